"""What the phases of the exact solver pass between them: the problem, the
options, and the bracket [lower bound, incumbent] reached so far."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._common import make_result, weights_of_sets
from ..heuristics.centres import swap_descent

if TYPE_CHECKING:
    from ._session import ExactSession


@dataclass(frozen=True, eq=False)
class ExactProblem:
    """One exact solve: the points (checked), k, when it started and must
    end (:func:`time.perf_counter` times; no deadline without a time
    limit), the relative gap that ends it, and whether W is an integer."""

    pts: np.ndarray
    k: int
    start: float
    deadline: float | None
    rel_gap: float
    integral: bool

    def time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def closed(self, lb: float, ub: float) -> bool:
        """Whether the bound ``lb`` proves the incumbent of W ``ub`` optimal."""
        if self.integral:
            return lb > ub - 1 + 1e-6 or lb >= ub - 1e-9
        return lb >= ub - 1e-9 * max(1.0, ub)

    def done_gap(self, lb: float, ub: float) -> bool:
        """Whether ``lb`` and ``ub`` are within the requested relative gap."""
        return ub > 0 and (ub - lb) / ub <= self.rel_gap

    def distances(self) -> np.ndarray:
        """The (n, n) distance matrix of the candidates (L1 on the points)."""
        pts = self.pts
        return np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)

    def weight(self, indices: np.ndarray) -> float:
        """W of the candidates ``indices``."""
        return float(weights_of_sets(self.pts, np.asarray(indices)[None])[0])

    def descend(self, indices: np.ndarray) -> np.ndarray:
        """A local optimum of swap descent from ``indices`` (sorted)."""
        return swap_descent(self.pts, indices)[0]

    def prepare(self, lp) -> None:
        """Restrict the pairwise LP ``lp`` before the first round (nothing here)."""

    def result(self, indices, termination: str, message: str, extra: dict, bound: float | None = None):
        return make_result(self.pts, indices, method="exact", start=self.start, bound=bound, termination=termination,
                           message=message, extra=extra, exact=True)


@dataclass(frozen=True)
class ExactOptions:
    """The options of :func:`.exact` that steer its phases."""

    session: ExactSession | None
    lp_solver: str  # "simplex" or "ipm" ("auto" resolved)
    max_rounds: int
    cuts_per_round: int | None
    profiles: bool
    verbose: bool
    #: run the star bound (:mod:`._star`) beside the cut loop on large inputs
    star: bool = True


@dataclass(frozen=True, eq=False)
class Bracket:
    """Where a solve stands: the proven lower bound ``lb``, the incumbent
    (its W ``ub`` and its indices) and the phase that got there."""

    lb: float
    ub: float
    indices: np.ndarray
    phase: str
