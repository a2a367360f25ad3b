"""Exact k-subset over a distance matrix: the cut loop of :func:`.exact` in any metric.

The solve on a torus or a network runs the same phases as the L1 solver
after its L1-only ones (screening by k3/line, the box and profile
searches):

1. an incumbent: Gen-Alg's best set and swap descent from the best few
   Gen-Alg centres (swaps scored from the distance matrix);
2. cheap bounds that hold in the metric at hand (the neighbour bound in any
   metric; the axis bound on a mesh or torus, where the distance
   is a sum over axes);
3. on a 2D mesh or torus with integer W, the search over column and row
   counts of :mod:`..search._torusprofile`, for up to ``_SHORT_SEARCH`` seconds
   before the LP and, on an idle machine, then in a thread beside it
   (:class:`TorusRace`: the first of the two to prove ends the other);
4. the cut loop on the pairwise LP with triangle and linking rows, its
   Lagrangian bound, reduced-cost fixing and rounding, then
   branch-and-bound on the same LP with x binary (:mod:`._cutloop`,
   shared with the L1 solver).

From ``_STAR_FROM`` candidates on, the star bound of :mod:`._star` (a
Lagrangian bound that holds in every metric) runs in a thread beside
phases 3 and 4; when it proves the incumbent optimal it ends the LP.

Nothing L1-specific is used: the LP is the linearisation of W over the
given distances, the triangle rows ``y_ij + y_il - y_jl <= x_i`` hold for
every 0/1 point whatever the distances, and the Lagrangian bound holds for
any multipliers.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from dataclasses import dataclass, replace

import numpy as np

from ..._subset import metric_subset_result
from ..._validate import validate_positive
from .._common import rows_of_cells
from ..bounds import axis_metric, gen_alg_holds, neighbour_metric, partition_metric
from ..heuristics.centres import centre_sets, gen_alg_guarantee, metric_descent, set_weights
from ..search import (
    block_search,
    block_structure,
    idle_optimum,
    torus_cuboid_optimum,
    torus_narrow,
    torus_profile_search,
)
from ._race import ProfileRace
from ._star import StarRace
from ._state import Bracket, ExactOptions, ExactProblem

__all__ = ["MetricProblem", "solve_metric_exact"]

#: Gen-Alg centres that seed swap descent.
_STARTS = 6
#: Instances of at most this many subsets are enumerated.
_ENUMERATE_UP_TO = 20000
#: The cut loop's LP by the dual simplex up to this n k, by IPM above.
_SIMPLEX_UP_TO = 1024
#: The star bound runs beside the cut loop from this many candidates on
_STAR_FROM = 100
#: On a 2D torus the narrow and wide sets are tried first from this many
#: candidates on (below, the searches after them are as quick)
_NARROW_FROM = 64
#: Seconds of the search over column and row counts before the LP (it then
#: goes on beside the LP).
_SHORT_SEARCH = 2.0
#: nodes of the search for the optimum of an idle 3D torus, at most so many
#: per second left under a time limit (as the L1 solver's box optimum)
_IDLE_BOX_NODES, _IDLE_BOX_NODES_PER_SECOND = 60_000, 3_000


@dataclass(frozen=True, eq=False)
class MetricProblem(ExactProblem):
    """An exact solve over the distance matrix ``D`` of the candidates,
    whose node ids are ``ids`` (``pts`` holds their coordinates, or an
    (n, 0) array on a network)."""

    D: np.ndarray = None
    ids: np.ndarray = None
    grid: bool = False
    anchor: int | None = None

    def prepare(self, lp) -> None:
        """Fix x of the ``anchor`` row at 1: on a machine whose free set every
        translation maps onto itself (an idle torus), some optimal set holds
        any given node."""
        if self.anchor is not None:
            lp.h.changeColsBounds(1, np.array([self.anchor], dtype=np.int32), np.ones(1), np.ones(1))

    def distances(self) -> np.ndarray:
        return self.D

    def weight(self, indices: np.ndarray) -> float:
        idx = np.asarray(indices)
        return float(self.D[np.ix_(idx, idx)].sum() / 2.0)

    def descend(self, indices: np.ndarray) -> np.ndarray:
        return metric_descent(self.D, indices)

    def result(self, indices, termination: str, message: str, extra: dict, bound: float | None = None):
        return metric_subset_result(self.D, indices, ids=self.ids, coords=self.pts if self.grid else None,
                                    method="exact", start=self.start, bound=bound, termination=termination,
                                    message=message, extra=extra, exact=True)


def _incumbent(D: np.ndarray, k: int) -> tuple[np.ndarray, float, float]:
    """Swap descent from the best Gen-Alg centres: (rows, W, Gen-Alg's W)."""
    near, ws = centre_sets(D, k)
    g_w = float(ws.min())
    best, best_w = None, np.inf
    for c in np.argsort(ws, kind="stable")[:_STARTS]:
        rows = metric_descent(D, np.sort(near[c]))
        w = float(D[np.ix_(rows, rows)].sum() / 2.0)
        if w < best_w - 1e-9:
            best, best_w = rows, w
    return best, best_w, g_w


def solve_metric_exact(D: np.ndarray, k: int, *, ids, coords=None, axes=None, time_limit=None, rel_gap=0.0,
                       max_rounds=200, profiles=True, verbose=False):
    """The exact optimum over the distance matrix D (see the module notes).

    ``axes`` is ``(shape, torus)`` when D is the mesh/torus distance of
    ``coords`` (it enables the axis bound); None otherwise.
    """
    start = time.perf_counter()
    time_limit = validate_positive(time_limit, "time_limit")
    n = len(D)
    integral = bool(np.all(D == np.round(D)))
    pts = np.asarray(coords, dtype=float) if coords is not None else np.zeros((n, 0))
    # an idle torus (every axis wraps, every node free) is vertex-transitive
    idle_grid = axes is not None and n == int(np.prod(axes[0]))
    idle_torus = idle_grid and all(axes[1])
    problem = MetricProblem(pts, k, start, None if time_limit is None else start + time_limit, float(rel_gap),
                            integral, D=D, ids=ids, grid=coords is not None, anchor=0 if idle_torus else None)
    if k == n:
        return problem.result(np.arange(n), "optimal", "k = n: every node", {"phase": "screen"}, bound=None)
    rows, ub, g_w = _incumbent(D, k)
    if k <= 2:  # Gen-Alg is exact for k <= 2
        return problem.result(rows, "optimal", "k <= 2: Gen-Alg is exact", {"phase": "screen"})
    if math.comb(n, k) <= _ENUMERATE_UP_TO:
        from ..special import enumerate_subsets

        best, *_ = enumerate_subsets(n, k, lambda sets: set_weights(D, sets), chunk=4096,
                                     limit=_ENUMERATE_UP_TO, time_limit=None, start=start)
        return problem.result(best, "optimal", "small instance: enumeration", {"phase": "screen"})
    bounds = {"neighbour": neighbour_metric(D, k)}
    if gen_alg_holds(D, axes is not None):
        bounds["gen-alg"] = g_w / gen_alg_guarantee(k)
    if axes is not None:
        bounds["axis"] = axis_metric(pts, k, *axes)
        bound = partition_metric(pts, k, *axes)
        if bound is not None:
            bounds["partition"] = bound
        if idle_grid and len(axes[0]) == 2:
            rows, ub = _idle_set(pts, k, axes, rows, ub, D)
        if profiles and len(axes[0]) == 3 and any(axes[1]):
            box = _idle_box(pts, k, axes, problem.time_left())
            if box is not None:
                bounds["box"], fit = box
                if fit is not None:
                    rows, ub = fit, float(D[np.ix_(fit, fit)].sum() / 2)
    lb = max(bounds.values())
    extra = {"bounds": {name: round(v, 6) for name, v in bounds.items()}}
    if problem.closed(lb, ub):
        extra["phase"] = "bounds"
        return problem.result(rows, "optimal", "proven optimal by the cheap bounds", extra, bound=ub)
    state = Bracket(lb, ub, rows, "bounds")
    if (profiles and n >= _NARROW_FROM and axes is not None and len(axes[0]) == 2 and any(axes[1])
            and _searchable(D, pts, axes, integral)):
        state = _narrow(problem, axes, state, extra)
        if problem.closed(state.lb, state.ub):
            extra["phase"] = "narrow"
            return problem.result(state.indices, "optimal", "proven by the shape search on the cut meshes and the "
                                  "wide partition bound", extra, bound=state.ub)
    # the star bound (any metric) in a thread beside the searches and the
    # LP, which it often proves first
    time_left = problem.time_left()
    star = None
    if n >= _STAR_FROM and not problem.done_gap(lb, ub) and (time_left is None or time_left > 0):
        star = StarRace(problem, state)
    try:
        return _search_and_cut(problem, D, axes, state, extra, star, max_rounds=max_rounds, profiles=profiles,
                               verbose=verbose)
    finally:
        if star is not None:
            star.join(state, extra, False, problem.start)


def _search_and_cut(problem: MetricProblem, D, axes, state: Bracket, extra: dict, star, *, max_rounds: int,
                    profiles: bool, verbose: bool):
    """The searches that apply (block and class counts on a network,
    column and row counts on a 2D grid), then the cut loop, with the star
    bound ``star`` (a :class:`._star.StarRace` or None) running beside."""
    from ._cutloop import _cut_loop

    pts, k, n = problem.pts, problem.k, len(D)
    idle_grid = axes is not None and n == int(np.prod(axes[0]))
    if axes is None and profiles and not problem.done_gap(state.lb, state.ub):
        structure = block_structure(D)
        if structure is not None:
            state = _block_search(problem, structure, state, extra, verbose)
            if problem.closed(state.lb, state.ub):
                extra["phase"] = "blocks"
                return problem.result(state.indices, "optimal", "proven by the search over block and class counts",
                                      extra, bound=state.ub)
    race = None
    if profiles and _searchable(D, pts, axes, problem.integral) and not problem.done_gap(state.lb, state.ub):
        state = _short_search(problem, axes, state, extra, verbose)
        if problem.closed(state.lb, state.ub):
            extra["phase"] = "profiles"
            return problem.result(state.indices, "optimal", "proven by the search over column and row counts",
                                  extra, bound=state.ub)
        # beside the LP only on an idle machine, where the LP stalls on
        # symmetric optima: elsewhere a search still running after its
        # short budget rarely finishes first, and its thread slows the LP
        # down on a loaded 2-core machine (docs/experiments.md)
        time_left = problem.time_left()
        if idle_grid and (time_left is None or time_left > 0):
            race = TorusRace(problem, axes, state)
    # the interior point method pays from smaller LPs on than in L1 (docs/benchmarks.md)
    options = ExactOptions(None, "simplex" if n * k <= _SIMPLEX_UP_TO else "ipm", max_rounds, None, False, verbose)
    try:
        return _cut_loop(problem, options, state, extra, race, None, star)
    finally:
        if race is not None:
            race.finish()


def _idle_set(pts, k, axes, rows, ub, D):
    """On an idle 2D mesh or torus, the set that attains the partition
    bound (:func:`._ring.idle_optimum`) when it is lighter than the
    incumbent ``rows`` of W ``ub``."""
    best = idle_optimum(k, tuple(int(s) for s in axes[0]), tuple(bool(t) for t in axes[1]))
    if best is not None and best[0] < ub:
        rows = rows_of_cells(pts, best[1])
        ub = float(D[np.ix_(rows, rows)].sum() / 2)
    return rows, ub


def _idle_box(pts, k, axes, time_left):
    """On a 3D torus: the least W of k nodes of the idle machine
    (:func:`..search._cuboid.torus_cuboid_optimum`), a lower bound for
    every state of it, and the rows of ``pts`` of an optimal idle set
    moved into the free nodes when a translation (along the wrapped axes
    around the ring, along the others inside the box) puts it there, or
    None; None when the search does not finish within its node budget."""
    shape = tuple(int(s) for s in axes[0])
    wrap = tuple(bool(w) for w in axes[1])
    nodes = _IDLE_BOX_NODES if time_left is None else int(min(_IDLE_BOX_NODES,
                                                               _IDLE_BOX_NODES_PER_SECOND * max(time_left, 0.0)))
    found = torus_cuboid_optimum(shape, wrap, k, nodes=nodes) if nodes > 0 else None
    if found is None:
        return None
    value, cells = found
    cells = cells.astype(np.int64)
    free = np.zeros(shape, dtype=bool)
    grid = np.asarray(pts).astype(np.int64)
    free[tuple(grid.T)] = True
    ranges = [range(s) if w else range(-int(cells[:, a].min()), s - int(cells[:, a].max()))
              for a, (s, w) in enumerate(zip(shape, wrap, strict=True))]
    shifts = np.array(np.meshgrid(*ranges, indexing="ij")).reshape(3, -1).T
    moved = (cells[None, :, :] + shifts[:, None, :]) % np.array(shape)
    fits = free[moved[..., 0], moved[..., 1], moved[..., 2]].all(axis=1)
    if not fits.any():
        return value, None
    code = {tuple(c): t for t, c in enumerate(grid.tolist())}
    return value, np.sort(np.array([code[tuple(c)] for c in moved[int(np.argmax(fits))].tolist()], dtype=np.int64))


def _searchable(D: np.ndarray, pts: np.ndarray, axes, integral: bool) -> bool:
    """Whether :func:`torus_profile_search` applies: a 2D mesh or torus
    whose distance matrix is the sum of the per-axis distances of the
    coordinates, and integer W."""
    if axes is None or len(axes[0]) != 2 or not integral:
        return False
    total = np.zeros_like(D)
    for a, (side, wrap) in enumerate(zip(*axes, strict=True)):
        gap = np.abs(pts[:, a][:, None] - pts[:, a][None, :])
        total += np.minimum(gap, side - gap) if wrap else gap
    return bool(np.array_equal(total, D))


def _short_budget(problem: MetricProblem) -> float:
    """Seconds for a search run before the LP: ``_SHORT_SEARCH``, at most a
    quarter of the time left."""
    time_left = problem.time_left()
    return _SHORT_SEARCH if time_left is None else min(_SHORT_SEARCH, time_left / 4)


def _short_search(problem: MetricProblem, axes, state: Bracket, extra: dict, verbose: bool) -> Bracket:
    """The search over column and row counts before the LP, for at most
    _SHORT_SEARCH seconds (a quarter of the time left): it settles small k
    at once, where building the LP costs more."""
    budget = _short_budget(problem)
    if budget <= 0:
        return state
    t0 = time.perf_counter()
    value, idx, lower = torus_profile_search(problem.pts, problem.k, *axes, state.ub, time_limit=budget)
    extra["profile_seconds"] = time.perf_counter() - t0
    if verbose:
        print(f"search over column and row counts ({budget:g} s): "
              f"{'finished' if lower is not None else 'stopped'} t={time.perf_counter() - problem.start:.2f}s",
              file=sys.stderr, flush=True)
    return _merge(state, value, idx, lower)


def _narrow(problem: MetricProblem, axes, state: Bracket, extra: dict) -> Bracket:
    """On a 2D torus, the narrow sets by the mesh's shape search on the cut
    meshes and the wide sets by their partition bound
    (:func:`..search._torusnarrow.torus_narrow`), for at most
    ``_SHORT_SEARCH`` seconds (a quarter of the time left)."""
    budget = _short_budget(problem)
    if budget <= 0:
        return state
    t0 = time.perf_counter()
    value, idx, lower = torus_narrow(problem.pts, problem.k, *axes, state.ub, time_limit=budget)
    extra["narrow_seconds"] = time.perf_counter() - t0
    return _merge(state, value, idx, lower)


def _block_search(problem: MetricProblem, structure, state: Bracket, extra: dict, verbose: bool) -> Bracket:
    """The search over block and class counts of :mod:`..search._blocksearch`, for
    at most half the time left (all of it without a limit)."""
    time_left = problem.time_left()
    budget = None if time_left is None else time_left / 2
    if budget is not None and budget <= 0:
        return state
    t0 = time.perf_counter()
    value, idx, lower = block_search(structure, problem.k, state.ub, time_limit=budget)
    extra["block_seconds"] = time.perf_counter() - t0
    extra["blocks"] = structure.blocks
    if verbose:
        print(f"search over block and class counts ({structure.blocks} blocks): "
              f"{'finished' if lower is not None else 'stopped'} t={time.perf_counter() - problem.start:.2f}s",
              file=sys.stderr, flush=True)
    return _merge(state, value, idx, lower)


def _merge(state: Bracket, value, idx, lower) -> Bracket:
    """``state`` with the search's set (if lighter) and bound (if proven)."""
    if value is not None and value < state.ub:
        state = replace(state, ub=value, indices=idx)
    if lower is not None:
        state = replace(state, lb=max(state.lb, lower))
    return state


class TorusRace(ProfileRace):
    """:func:`torus_profile_search` in a thread beside the cut loop (the
    compiled search runs without the GIL, as HiGHS does): when it finishes
    it cancels the LP it watches (:meth:`watch`); :meth:`join` stops it and
    merges its result.  The profile search's race, with the torus search."""

    def __init__(self, problem: MetricProblem, axes, state: Bracket):  # noqa: D107 - the race's own start
        time_left = problem.time_left()
        self.deadline = np.array([math.inf if time_left is None else time.perf_counter() + time_left])
        self.result, self.lp, self.joined = None, None, False
        self.started, self.seconds = time.perf_counter(), 0.0
        self.proven = threading.Event()
        self.thread = threading.Thread(target=self._run_torus, args=(problem, axes, state.ub), daemon=True)
        self.thread.start()

    def _run_torus(self, problem, axes, ub):
        self.result = torus_profile_search(problem.pts, problem.k, *axes, ub, deadline=self.deadline)
        self.seconds = time.perf_counter() - self.started
        if self.result[2] is not None:  # finished: its best set, or the incumbent, is optimal
            self.prove()

    def join(self, state: Bracket, problem: MetricProblem, extra: dict, verbose: bool) -> Bracket:
        """Stop the search and take its set and bound into ``state`` (once)."""
        if self.joined:
            return state
        result = self.finish()
        if result is not None:
            state = _merge(state, *result)
        extra["profile_seconds"] = extra.get("profile_seconds", 0.0) + self.seconds
        if self.proven.is_set() and problem.closed(state.lb, state.ub):
            state = replace(state, phase="profiles")
        if verbose:
            print(f"search over column and row counts beside the LP ({self.seconds:.2f} s): bound {state.lb:g} "
                  f"incumbent {state.ub:g} t={time.perf_counter() - problem.start:.2f}s", file=sys.stderr, flush=True)
        return state
