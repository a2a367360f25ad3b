"""The wall clock of one solver call, shared by every package."""

from __future__ import annotations

import math
import time

__all__ = ["Stopwatch"]


class Stopwatch:
    """Wall clock of one solver call with an optional limit in seconds.

    Parameters
    ----------
    limit : float, optional
        Seconds; None for no limit. ValueError unless positive and finite
        (the message names ``time_limit``).

    Examples
    --------
    >>> clock = Stopwatch(None)
    >>> clock.expired(), clock.remaining()
    (False, None)
    >>> Stopwatch(60).remaining() > 59
    True
    """

    def __init__(self, limit: float | None):
        # the check of optalloc._validate.validate_positive (core modules import none of each other)
        if limit is not None:
            try:
                limit = float(limit)
            except (TypeError, ValueError):
                raise ValueError(f"`time_limit` must be a number, got {limit!r}") from None
            if not (limit > 0 and math.isfinite(limit)):
                raise ValueError(f"`time_limit` must be positive, got {limit!r}")
        self.limit = limit
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        """Seconds since the clock started."""
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        """Seconds left before the limit (negative once past it); None without a limit."""
        return None if self.limit is None else self.limit - self.elapsed()

    def expired(self) -> bool:
        """True once the limit has passed (never without a limit)."""
        return self.limit is not None and self.elapsed() >= self.limit
