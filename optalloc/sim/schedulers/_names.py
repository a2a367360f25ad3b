"""Schedulers by name: the queue disciplines of :mod:`._schedulers` and the
Cplant schedulers of :mod:`._cplant`."""

from __future__ import annotations

from ._cplant import CPLANT_SCHEDULERS
from ._schedulers import EASY, FCFS, Conservative, Scheduler

__all__ = ["SCHEDULERS", "make_scheduler"]

SCHEDULERS = {"fcfs": FCFS, "easy": EASY, "conservative": Conservative, **CPLANT_SCHEDULERS}


def make_scheduler(scheduler) -> Scheduler:
    """A scheduler from a name (``"fcfs"``, ``"easy"``, ``"conservative"``,
    ``"cplant"`` and its variants, see :data:`SCHEDULERS`) or an instance.

    Examples
    --------
    >>> make_scheduler("easy")
    EASY()
    """
    if isinstance(scheduler, Scheduler):
        return scheduler
    if isinstance(scheduler, str) and scheduler.lower() in SCHEDULERS:
        return SCHEDULERS[scheduler.lower()]()
    raise ValueError(f"`scheduler` must be one of {', '.join(map(repr, SCHEDULERS))} or a Scheduler, "
                     f"got {scheduler!r}")

