"""The result type shared by every solver of optalloc."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Result", "STATUSES"]

#: The statuses a :class:`Result` may carry.
STATUSES = ("optimal", "feasible", "time_limit", "infeasible", "error")


@dataclass(frozen=True)
class Result:
    """Outcome of one solver call.

    Every solver of the project returns this type, so allocators, exact
    solvers and approximations can be compared and certified alike.

    Attributes
    ----------
    indices : numpy.ndarray
        Sorted row indices of the chosen points into the input array.
    points : numpy.ndarray
        The chosen points, ``input[indices]``.
    objective : float
        W, the sum of pairwise L1 distances over unordered pairs.
    average : float
        ``W / C(k, 2)`` (0 when k = 1).
    bound : float or None
        A proven lower bound on the optimum, or None when the method has none.
    gap : float or None
        ``(objective - bound) / objective`` (0 when both are 0), or None.
    guarantee : float or None
        Worst-case factor of the method (``objective <= guarantee * OPT``),
        1 for exact methods, None when unknown.
    status : str
        One of ``"optimal"``, ``"feasible"``, ``"time_limit"``,
        ``"infeasible"``, ``"error"``.  ``"optimal"`` is only reported when
        optimality is proven.
    method : str
        The method name, as given to :func:`optalloc.ksubset.solve`.
    message : str
        Human-readable account of the outcome (keeps a solver's own wording).
    wall_time : float
        Seconds spent in the solver.
    extra : dict
        Method-specific data (tie counts, centre, iterations, ...).
    permutation : numpy.ndarray or None
        For assignment problems: ``permutation[i]`` is the node given to task
        (or rank) i, in the QAP sense ``sum_ij W[i, j] C[p(i), p(j)]``.  Task
        mappings and orderings set it; k-subset methods leave it None.
    """

    indices: np.ndarray
    points: np.ndarray
    objective: float
    average: float
    bound: float | None
    gap: float | None
    guarantee: float | None
    status: str
    method: str
    message: str = ""
    wall_time: float = 0.0
    extra: dict = field(default_factory=dict)
    permutation: np.ndarray | None = None

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")

    @property
    def k(self) -> int:
        """Number of chosen points."""
        return int(len(self.indices))

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python (JSON-ready) view with the field names of the class."""
        out = {}
        for f in dataclasses.fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out

    def replace(self, **changes) -> Result:
        """A copy with some fields changed (the result itself is frozen)."""
        return dataclasses.replace(self, **changes)


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        value = float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def relative_gap(objective: float, bound: float | None) -> float | None:
    """``(objective - bound) / objective``, clipped at 0; None without a bound."""
    if bound is None:
        return None
    if objective <= 0:
        return 0.0
    return max(0.0, (objective - bound) / objective)
