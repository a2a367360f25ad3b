"""Shared pieces of the QAP solvers: option checks, the clock, the result."""

from __future__ import annotations

import math
import time

import numpy as np

from .._result import Result, relative_gap
from .._validate import validate_positive
from ._core import validate_permutation


class Stopwatch:
    """Wall clock of one solver call with an optional limit in seconds."""

    def __init__(self, limit: float | None):
        self.limit = validate_positive(limit, "time_limit")
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        return None if self.limit is None else self.limit - self.elapsed()

    def expired(self) -> bool:
        return self.limit is not None and self.elapsed() >= self.limit


def integral_data(A: np.ndarray, B: np.ndarray) -> bool:
    """True when every flow and cost is a whole number (objectives are then exact in float64)."""
    return bool(np.all(A == np.round(A)) and np.all(B == np.round(B)))


def positive_int(value, name: str) -> int:
    return validate_positive(value, name, allow_none=False, integer=True)


def validate_fraction(value, name: str) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a number in (0, 1], got {value!r}") from None
    if not 0 < value <= 1:
        raise ValueError(f"`{name}` must be in (0, 1], got {value}")
    return value


def validate_start(start, n: int) -> np.ndarray | None:
    if start is None:
        return None
    try:
        return validate_permutation(start, n).copy()
    except ValueError as exc:
        raise ValueError(str(exc).replace("`perm`", "`start`")) from None


def qap_result(A: np.ndarray, B: np.ndarray, perm, *, method: str, start: float, bound: float | None = None,
               status: str | None = None, message: str = "", extra: dict | None = None,
               exact: bool = False, nodes=None, points=None) -> Result:
    """Assemble a :class:`~optalloc.Result` for a QAP permutation.

    ``indices`` are the nodes used (sorted), ``points`` their coordinates
    when known, ``average`` the objective per unit of flow (sum W), and
    ``status`` is "optimal" only when the bound meets the objective.
    """
    p = np.asarray(perm, dtype=np.intp)
    value = float((A * B[np.ix_(p, p)]).sum())
    total = float(A.sum())
    integral = integral_data(A, B)
    if bound is not None:
        bound = float(bound)
        if integral:
            bound = float(math.ceil(bound - 1e-6 * max(1.0, abs(bound))))
        if bound > value + 1e-9 * max(1.0, abs(value)):
            raise RuntimeError(f"internal error: lower bound {bound} exceeds objective {value}")
    gap = relative_gap(value, bound)
    if status is None:
        status = "optimal" if bound is not None and bound >= value - 1e-9 * max(1.0, abs(value)) else "feasible"
    if status == "optimal" and bound is None:
        bound = value
        gap = 0.0
    used = p if nodes is None else np.asarray(nodes)[p]
    indices = np.sort(used)
    pts = np.empty((0, 0)) if points is None else np.asarray(points)[indices]
    return Result(
        indices=indices,
        points=pts,
        objective=value,
        average=value / total if total else 0.0,
        bound=bound,
        gap=gap,
        guarantee=(1.0 if status == "optimal" else None) if exact else None,
        status=status,
        method=method,
        message=message,
        wall_time=time.perf_counter() - start,
        extra=dict(extra or {}),
        permutation=np.asarray(used, dtype=np.intp),
    )
