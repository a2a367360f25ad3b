"""What a thread racing the cut loop shares: when it proves the incumbent
optimal, it says so (``proven``) and cancels the LP it watches."""

from __future__ import annotations


class LPWatcher:
    """A race beside the cut loop: ``proven`` (a :class:`threading.Event`)
    and the LP it may cancel (``lp``, None until :meth:`watch`), both set
    by the subclass's constructor."""

    def prove(self) -> None:
        """Mark the answer proven and cancel the LP being watched."""
        self.proven.set()
        lp = self.lp
        if lp is not None:
            lp.h.cancelSolve()

    def watch(self, lp) -> None:
        """Let the race cancel ``lp`` (a :class:`._pairlp._PairLP`) from now
        on when it proves (at once if it already has)."""
        lp.h.HandleUserInterrupt = True
        self.lp = lp
        if self.proven.is_set():
            lp.h.cancelSolve()
