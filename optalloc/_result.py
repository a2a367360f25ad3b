"""The result types shared by every solver of optalloc.

Every solver returns a :class:`Result`: the common fields (objective, proven
bound, how good the answer is, why the solver stopped, time) mean the same
for every problem, and each problem adds its own answer under its own name:
:class:`SubsetResult` (``indices``: the chosen processors),
:class:`OrderResult` (``order``: the nodes in rank order) and
:class:`MappingResult` (``permutation``: the node of each task).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["MappingResult", "OrderResult", "Result", "STATUSES", "SubsetResult", "TERMINATIONS"]

#: How good the answer of a :class:`Result` is.
STATUSES = ("optimal", "feasible", "infeasible", "none")

#: Why a solver stopped.
TERMINATIONS = (
    "optimal",          # optimality proven
    "completed",        # a method without a proof ran to its end
    "gap_limit",        # the requested relative gap was reached
    "time_limit",
    "node_limit",       # a node or enumeration budget ran out
    "iteration_limit",
    "infeasible",       # proven to have no solution
    "interrupted",
    "error",
)


@dataclass(frozen=True, kw_only=True)
class Result:
    """Outcome of one solver call.

    Attributes
    ----------
    objective : float
        The objective of the answer (``inf`` when there is none).
    bound : float or None
        A proven lower bound on the optimum; None when none is proven.
    status : str
        How good the answer is: ``"optimal"`` (proven), ``"feasible"`` (an
        answer, optimality not proven), ``"infeasible"`` (proven to have
        none) or ``"none"`` (no answer).
    termination : str
        Why the solver stopped, one of :data:`TERMINATIONS`: ``"optimal"``,
        ``"completed"`` (a heuristic that ran to its end), ``"gap_limit"``,
        ``"time_limit"``, ``"node_limit"``, ``"iteration_limit"``,
        ``"infeasible"``, ``"interrupted"``, ``"error"``.
    method : str
        The method name, as given to the solver.
    guarantee : float or None
        Worst-case factor of the method (``objective <= guarantee * OPT``),
        1 for a proven optimum, None when unknown.
    message : str
        Human-readable account of the outcome.
    runtime : float
        Seconds spent in the solver.
    extra : dict
        Method-specific data (tie counts, iterations, starts, ...).
    """

    objective: float
    bound: float | None = None
    status: str
    termination: str
    method: str = ""
    guarantee: float | None = None
    message: str = ""
    runtime: float = 0.0
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if self.termination not in TERMINATIONS:
            raise ValueError(f"termination must be one of {TERMINATIONS}, got {self.termination!r}")

    @property
    def gap(self) -> float | None:
        """``(objective - bound) / objective``, clipped at 0 (0 when both
        are 0); None without a bound or an answer."""
        if self.status in ("none", "infeasible"):
            return None
        return relative_gap(self.objective, self.bound)

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python (JSON-ready) view: every field, then ``gap``."""
        out = {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        out["gap"] = _plain(self.gap)
        return out

    def replace(self, **changes) -> Result:
        """A copy with some fields changed (the result itself is frozen)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, kw_only=True)
class SubsetResult(Result):
    """A chosen subset of processors (the k-subset problem, allocators).

    Attributes
    ----------
    indices : numpy.ndarray
        Sorted indices of the chosen processors: rows of the input point
        array, or node ids of the input machine.
    points : numpy.ndarray
        Coordinates of the chosen processors, ``input[indices]``.
    average : float
        Mean pairwise distance, ``objective / C(k, 2)`` (0 when k = 1).
    """

    indices: np.ndarray
    points: np.ndarray
    average: float = 0.0

    @property
    def k(self) -> int:
        """Number of chosen processors."""
        return int(len(self.indices))


@dataclass(frozen=True, kw_only=True)
class OrderResult(Result):
    """A linear order of the nodes of a machine (orderings for 1D allocation).

    Attributes
    ----------
    order : numpy.ndarray
        ``order[r]`` is the node id at rank r.
    labels : list or None
        The node labels in rank order (the graph's own node names), or None.
    average : float
        Objective per unit of rank weight (the weighted mean stretch).
    """

    order: np.ndarray
    labels: list | None = None
    average: float = 0.0


@dataclass(frozen=True, kw_only=True)
class MappingResult(Result):
    """An assignment of tasks to nodes (task mapping, the QAP).

    Attributes
    ----------
    permutation : numpy.ndarray
        ``permutation[i]`` is the node (or facility) given to task i, in the
        QAP sense ``sum_ij W[i, j] C[p(i), p(j)]``.
    average : float
        Objective per unit of traffic (``objective / sum W``).
    """

    permutation: np.ndarray
    average: float = 0.0


def status_of(termination: str, *, has_answer: bool = True) -> str:
    """The status that goes with a termination: optimal, infeasible, or
    feasible/none by whether an answer exists."""
    if termination == "optimal":
        return "optimal"
    if termination == "infeasible":
        return "infeasible"
    return "feasible" if has_answer else "none"


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
    if bound is None or not math.isfinite(objective):
        return None
    if objective <= 0:
        return 0.0
    return max(0.0, (objective - bound) / objective)
