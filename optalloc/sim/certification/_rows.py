"""One certified decision: the W of every allocator and the bracket of the optimum."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Relative tolerance of the ratio checks and of "optimal" in the summaries.
TOL = 1e-9


def _ratio(w: float, lower: float, upper: float) -> tuple[float, float]:
    """Certified interval of W / OPT for OPT in [lower, upper]."""
    if upper <= 0:  # OPT = 0 (k = 1): every allocator is optimal
        return (1.0, 1.0) if w <= 0 else (math.inf, math.inf)
    hi = w / lower if lower > 0 else math.inf
    return w / upper, hi


@dataclass(frozen=True)
class DecisionRow:
    """One allocation decision of the driver and what every allocator made of it.

    Attributes
    ----------
    index : int
        Decision number, in start order.
    job_id : int
    time : float
        Simulated start time.
    k, n_free : int
        Processors requested; free nodes before the placement.
    W : tuple of float
        W of each allocator, in the order of :attr:`Certification.names`.
    guarantee : tuple of float or None
        Worst-case factor each allocator's method reports for this k.
    lower, upper : float
        The optimum lies in ``[lower, upper]``; equal when proven.
    status : str
        ``"optimal"`` (proven), ``"time_limit"`` (bracket from a stopped
        exact solve) or ``"bracket"`` (cheap bounds only).
    exact_seconds : float
        Time of the exact solve (0 without one).
    cached : bool
        The exact optimum came from the session's cache.
    """

    index: int
    job_id: int
    time: float
    k: int
    n_free: int
    W: tuple
    guarantee: tuple
    lower: float
    upper: float
    status: str
    exact_seconds: float = 0.0
    cached: bool = False

    @property
    def proven(self) -> bool:
        """The optimum of this decision is proven."""
        return self.status == "optimal"

    @property
    def optimum(self) -> float | None:
        """The proven optimum, or None when only a bracket is known."""
        return self.upper if self.proven else None

    def ratios(self) -> list[tuple[float, float]]:
        """Certified interval of W / OPT of each allocator."""
        return [_ratio(w, self.lower, self.upper) for w in self.W]

    def best(self, names) -> tuple[str, ...]:
        """Names of the allocators with the least W on this decision."""
        low = min(self.W)
        return tuple(n for n, w in zip(names, self.W) if w <= low + TOL * max(1.0, low))


def _num(x):
    """JSON-safe number (inf becomes None)."""
    return None if x is None or not math.isfinite(x) else x


def _row_dict(r: DecisionRow, names) -> dict:
    return {"index": r.index, "job_id": r.job_id, "time": r.time, "k": r.k, "n_free": r.n_free,
            "lower": r.lower, "upper": r.upper, "status": r.status, "best": list(r.best(names)),
            "cached": r.cached, "exact_seconds": r.exact_seconds, "W": dict(zip(names, r.W)),
            "ratio": {n: [_num(lo), _num(hi)] for n, (lo, hi) in zip(names, r.ratios())}}


class DecisionRows:
    """What a sequence of decisions offers, by allocator: W, certified
    ratios, proven optima. The class needs ``names`` (the allocators) and
    ``rows`` (:class:`DecisionRow` objects)."""

    def __len__(self) -> int:
        return len(self.rows)

    def _col(self, name) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"`name` must be one of {', '.join(self.names)}, got {name!r}") from None

    def W(self, name) -> np.ndarray:
        """W of allocator ``name`` on every decision."""
        j = self._col(name)
        return np.array([r.W[j] for r in self.rows], dtype=float)

    def ratios(self, name) -> np.ndarray:
        """Certified ratio intervals of ``name``, shape (decisions, 2): [W/UB, W/LB]."""
        j = self._col(name)
        return np.array([r.ratios()[j] for r in self.rows], dtype=float).reshape(-1, 2)

    @property
    def n_proven(self) -> int:
        """Decisions whose optimum is proven."""
        return sum(r.proven for r in self.rows)
