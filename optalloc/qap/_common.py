"""Shared pieces of the QAP solvers: option checks, the clock, the result."""

from __future__ import annotations

import math
import time

import numpy as np

from .._clock import Stopwatch
from .._result import MappingResult, status_of
from .._validate import validate_positive
from ._core import validate_permutation

__all__ = ["Stopwatch", "integral_data", "positive_int", "qap_result", "validate_fraction", "validate_positive",
           "validate_start"]


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
               termination: str | None = None, message: str = "", extra: dict | None = None,
               exact: bool = False, nodes=None) -> MappingResult:
    """Assemble a :class:`~optalloc.MappingResult` for a QAP permutation.

    ``permutation[i]`` is the node of task i (into ``nodes`` when given),
    ``average`` the objective per unit of flow (sum W). The termination is
    ``"optimal"`` whenever the bound meets the objective, else
    ``termination`` (why the method stopped; default ``"completed"``); the
    status follows from it (``"optimal"`` or ``"feasible"``).
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
    if termination == "optimal" and bound is None:  # proven by the caller
        bound = value
    if bound is not None and bound >= value - 1e-9 * max(1.0, abs(value)):
        termination = "optimal"
    elif termination is None or termination == "optimal":
        termination = "completed"
    used = p if nodes is None else np.asarray(nodes)[p]
    return MappingResult(
        permutation=np.asarray(used, dtype=np.intp),
        objective=value,
        average=value / total if total else 0.0,
        bound=bound,
        guarantee=(1.0 if termination == "optimal" else None) if exact else None,
        status=status_of(termination),
        termination=termination,
        method=method,
        message=message,
        runtime=time.perf_counter() - start,
        extra=dict(extra or {}),
    )
