"""Exact k-subset: screening, a triangle-cut loop on the pairwise LP, then MIP.

The engine works on the pairwise linearisation of ``optalloc.models.pairwise``
(x_i chosen, y_ij = x_i x_j, level-1 RLT rows), held as arrays in HiGHS
(``highspy``) so that rows can be added between solves:

1. screening: k = n, k <= 2 (MM is exact), k = 3 (:func:`k3`), one
   dimension (:func:`line`), tiny instances (:func:`brute`); otherwise an
   incumbent from MM+Inc and Gen-Alg and the cheap bounds, among them the
   optimum of the full bounding rectangle (:func:`box_optimum`; beyond its
   partition tables by a compiled branch-and-bound, on nearly full
   rectangles with time to spare), which proves its own optimal set when
   that set fits among the points;
2. in the plane, when the free set nearly fills its rectangle (the
   partition bound within a few percent of the incumbent) or few column
   partitions score below the incumbent (small k), a short
   :func:`profile_search` over column and row profiles, which proves such
   instances far faster than the LP (it stalls on the symmetric optima of
   nearly empty machines);
3. the cut loop, with a search in a thread beside it when one applies
   (compiled by numba: the searches and HiGHS release the GIL, so on two
   cores the first to prove ends both): on 2D lattice points with busy
   cells among the free ones (the cheap bounds more than 5 % below the
   incumbent) the search over the shapes of optimal sets
   (:mod:`..search._shapesearch`, which runs alone for ``_SHAPE_FIRST`` first),
   elsewhere the profile search: solve the LP, fix variables by reduced cost
   against the incumbent, separate violated rows (y_ij <= x_i, y_ij >= x_i + x_j - 1,
   triangle inequalities y_ij + y_il - y_jl <= x_i), round the LP point
   into a new incumbent with swap descent, repeat;
4. when the bound stalls: the same model as a MIP (x binary), with every
   row found so far and the incumbent as cutoff.

This module holds the entry, the screening and phases 1-2; the LP is in
:mod:`._pairlp`, phases 3-4 in :mod:`._cutloop`, the searches beside the
LP in :mod:`._race`.

W is an integer on integer points, so a bound above W - 1 proves the
incumbent optimal.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from ..._progress import Progress, check_progress, library_progress
from .._common import (
    is_integral,
    make_result,
    validate_k,
    validate_points,
    validate_positive,
)
from ..bounds import BOUND_NODES, BOUND_NODES_3D, axis_bound, box_start, known_box_lower
from ..heuristics import gen_alg, mm, mm_inc
from ..search import fit_in, profile_bound_grid, profile_grid, profile_search_grid, shape_grid
from ..special import brute, k3, line
from ._cutloop import _cut_loop
from ._race import ProfileRace, ShapeRace
from ._session import ExactSession
from ._star import STAR_MIN_POINTS, StarRace
from ._state import Bracket, ExactOptions, ExactProblem

FORMULATIONS = ("auto", "pairwise", "glover", "axis", "qp")

#: lp_solver="auto" takes the simplex up to this n k, the IPM above
_SIMPLEX_UP_TO = 2048
#: seconds of profile search by relative gap between the incumbent and the
#: partition bound (within 3 % the LP stalls on the symmetric optima of a
#: nearly empty machine), and by the number of partitions scoring below the
#: incumbent (16 x 16 half free: up to 1000 of them at k <= 24, 1500-1700
#: at k = 28, from about 1800 on at k >= 28)
_PROFILE_SLICES = ((0.005, 10.0), (0.03, 5.0), (0.08, 1.0))
_PROFILE_COUNTS = ((1700, 3.0),)
#: beyond this relative gap between the incumbent and the partition bound
#: (busy cells among the free ones) the search over shapes runs beside the
#: LP instead of the profile search; within it (nearly empty machines) the
#: shape search meets many sets of equal W and the profile search is faster
_SHAPE_GAP = 0.05
#: seconds the shape search runs alone before the LP is built beside it
_SHAPE_FIRST = 0.5
#: swap descents from this many of Gen-Alg's lightest centre sets give the
#: first incumbent (beside MM+Inc)
_DESCENTS = 16
#: ... under a time limit of at least this many seconds (one descent below)
_DESCENTS_FROM = 2.0
#: a partition table beyond the cached ones is scored when the bounds are
#: this close and this many seconds are left
_LARGE_TABLE_GAP, _LARGE_TABLE_SECONDS = 0.05, 5.0
#: the box optimum runs its branch-and-bound with up to _BOX_NODES nodes
#: when the points fill this share of their rectangle, else with the cheap
#: bound's BOUND_NODES (still worth it: the box optimum is a lower bound
#: that the heuristics often meet); with a time limit at most
#: _BOX_NODES_PER_SECOND per second left
_BOX_FILL, _BOX_NODES, _BOX_NODES_PER_SECOND = 0.9, 400_000, 40_000
#: the same for 3D points (cuboid_optimum)
_BOX_NODES_3D, _BOX_NODES_3D_PER_SECOND = 60_000, 3_000


def _screen(pts, k, start):
    """Cases solved exactly without the LP; None when none applies."""
    n, d = pts.shape
    if k == n:
        idx, msg = np.arange(n), "k = n: every point"
    elif k <= 2:
        idx, msg = mm(pts, k).indices, "k <= 2: MM is exact"
    elif k == 3:
        idx, msg = k3(pts).indices, "k = 3: nearest-neighbour search"
    elif d == 1:
        idx, msg = line(pts, k).indices, "one dimension: sliding window"
    elif math.comb(n, k) <= 20000:
        idx, msg = brute(pts, k).indices, "small instance: enumeration"
    else:
        return None
    return make_result(pts, idx, method="exact", start=start, termination="optimal", message=msg,
                       extra={"phase": "screen"}, exact=True)


def exact(
    points,
    k,
    *,
    solver="highs",
    formulation="auto",
    time_limit=None,
    rel_gap=0.0,
    warm_start=None,
    lp_solver="auto",
    max_rounds=200,
    cuts_per_round=None,
    profiles=True,
    verbose=False,
    progress=None,
    star=True,
):
    """Exact k-subset min-sum-L1 with a proven bound.

    Parameters
    ----------
    points : array_like, shape (n, d)
    k : int
    solver : str, optional
        ``"highs"`` (default) runs the cut loop on HiGHS; any other name is
        handed to Pyomo's ``SolverFactory`` with the model ``formulation``.
    formulation : {"auto", "pairwise", "glover", "axis", "qp"}, optional
        ``"auto"``: the cut loop for HiGHS, the pairwise MIP otherwise.  A
        named formulation is built by ``optalloc.models`` and solved as a
        MIP through Pyomo (``"qp"`` needs an MIQP solver).
    time_limit : float, optional
        Seconds.  On expiry the incumbent and the proven bound are returned
        with termination ``"time_limit"``.
    rel_gap : float, optional
        Stop when ``(W - bound) / W <= rel_gap`` (termination ``"gap_limit"``).
    warm_start : ExactSession, optional
        Carries cuts and results between related calls.
    lp_solver : {"auto", "simplex", "ipm"}, optional
        HiGHS LP algorithm in the cut loop (IPM runs without crossover).
        ``"auto"``: the dual simplex, warm-started between rounds, when
        n k <= 2048, the interior point method above (measured faster
        there: fewer, larger rounds).
    max_rounds : int, optional
        Cut rounds before switching to branch-and-bound.
    cuts_per_round : int, optional
        Triangle inequalities added per round (default 10 n with the
        simplex, 80 n with the interior point method); violated linking
        rows are always all added.
    profiles : bool, optional
        For 2D lattice points whose partition bound is within a few percent
        of the incumbent, or with at most 1700 column partitions scoring
        below it, run :func:`profile_search` for a short while before the
        LP, and otherwise in a thread beside the cut loop, the first proof
        ending both (default True); False goes
        straight to the cut loop alone.
    star : bool, optional
        On inputs of at least 200 points, raise the bound by the star
        bound (a Lagrangian bound of the linearisation, by subgradient
        ascent) in a thread beside the cut loop
        (default True); False: the cut loop alone.
    verbose : bool, optional
        Print a line after the profile search (before the LP and beside
        it) and one per round of the cut loop on standard error.
    progress : bool or callable, optional
        A callable gets ``(round, bound, incumbent)`` after each round of
        the cut loop (and as round 0 after the profile search that may come
        before it); True: progress on stderr (a bar on a terminal, a line
        every few seconds and one at the end elsewhere).  Default: silent.

    Returns
    -------
    Result
        ``status="optimal"`` only when proven; ``bound`` is always a proven
        lower bound; ``extra`` reports rounds, rows, triangle rows, fixed
        points, seeded cuts and the phase that closed the gap ("screen",
        "cache", "box", "bounds", "profiles", "shapes", "cuts", "star", "stalled"
        or "branch").

    Notes
    -----
    The time limit covers the cut loop and branch-and-bound, not the
    screening and the starting heuristics.

    Raises
    ------
    ValueError
        Bad input, unknown formulation, unavailable solver.

    Examples
    --------
    >>> import numpy as np
    >>> from optalloc.ksubset import exact, brute
    >>> cells = np.array([(x, y) for y in range(6) for x in range(6)])
    >>> pts = cells[np.sort(np.random.default_rng(3).choice(36, 18, replace=False))]  # half free
    >>> r = exact(pts, 6)
    >>> r.status, r.objective == brute(pts, 6).objective
    ('optimal', True)
    """
    start = time.perf_counter()
    pts = validate_points(points)
    n = len(pts)
    k = validate_k(k, n)
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of: {', '.join(FORMULATIONS)}")
    if not isinstance(solver, str) or not solver:
        raise ValueError(f"`solver` must be a solver name, got {solver!r}")
    time_limit = validate_positive(time_limit, "time_limit")
    rel_gap = float(rel_gap)
    if not 0 <= rel_gap < 1:
        raise ValueError(f"`rel_gap` must be in [0, 1), got {rel_gap}")
    if not isinstance(profiles, bool):
        raise ValueError(f"`profiles` must be True or False, got {profiles!r}")  # noqa: TRY004
    if not isinstance(star, bool):
        raise ValueError(f"`star` must be True or False, got {star!r}")  # noqa: TRY004
    if lp_solver not in ("auto", "simplex", "ipm"):
        raise ValueError(f"`lp_solver` must be 'auto', 'simplex' or 'ipm', got {lp_solver!r}")
    if lp_solver == "auto":
        lp_solver = "simplex" if n * k <= _SIMPLEX_UP_TO else "ipm"
    if warm_start is not None and not isinstance(warm_start, ExactSession):
        raise ValueError("`warm_start` must be an ExactSession")
    check_progress(progress)
    if formulation == "qp" and solver in ("highs", "appsi_highs"):
        raise ValueError("formulation 'qp' is a non-convex binary quadratic program, which HiGHS does not "
                         "solve; choose an MIQP solver (e.g. solver='gurobi' or 'scip') or another formulation")
    report, scope = library_progress(progress, label="exact", unit="rounds")
    with scope:
        if isinstance(report, Progress):
            report = _rounds_of(report)
        if solver != "highs" or formulation != "auto":
            from ._pyomo import solve_formulation

            return solve_formulation(pts, k, solver=solver, formulation=formulation, time_limit=time_limit,
                                     rel_gap=rel_gap, start=start, verbose=verbose)

        key = warm_start._key(pts, k) if warm_start is not None else None
        if warm_start is not None:
            res = warm_start._answer(key, pts, time_limit, start)
            if res is not None:
                return res
        res = _screen(pts, k, start)
        if res is None:
            problem = ExactProblem(pts, k, start, None if time_limit is None else start + time_limit, rel_gap,
                                   is_integral(pts))
            options = ExactOptions(warm_start, lp_solver, max_rounds, cuts_per_round, profiles, verbose, star)
            res = _cut_and_branch(problem, options, report)
        if warm_start is not None:
            warm_start._keep(key, res, time_limit, rel_gap)
        return res


def _rounds_of(report: Progress):
    """The ``progress(round, bound, incumbent)`` callback that shows the rounds on ``report``."""
    def show(rnd, lower, upper):
        report.track(rnd, bound=lower, best=upper)
    return show


def _cut_and_branch(problem: ExactProblem, options: ExactOptions, progress=None):
    """Phases 1 and 2 of :func:`exact` after the screening, then the cut
    loop (with the profile search beside it when it applies); ``progress``
    (a callable or None) gets ``(round, bound, incumbent)``."""


    pts, k = problem.pts, problem.k
    # under a short limit the descents would take much of it (docs/experiments.md)
    time_left = problem.time_left()
    descents = _DESCENTS if time_left is None or time_left >= _DESCENTS_FROM else 1
    heur = [mm_inc(pts, k), gen_alg(pts, k, descents=descents)]
    best = min(heur, key=lambda r: r.objective)
    inc_idx, ub = best.indices, best.objective
    # each heuristic's bound already holds the neighbour and town bounds and
    # its W / guarantee
    lb = max(axis_bound(pts, k), *(r.bound for r in heur))
    extra = {"rounds": 0, "rows": 0, "fixed": 0, "phase": "bounds", "seeded_cuts": 0, "lp_solver": options.lp_solver}
    # the optimum of the bounding rectangle bounds every instance inside it;
    # when one of its optimal sets fits among the points, that set is optimal
    box = box_start(pts, k, *_box_nodes(pts, problem.time_left()))
    if box is not None:
        box_value, box_cells = box
        lb = max(lb, box_value)
        fit = fit_in(pts, box_cells)
        if fit is not None:
            extra["phase"] = "box"
            return problem.result(fit, "optimal", "an optimal set of the bounding rectangle fits among the points",
                                  extra, bound=box_value)
    else:  # a bracket on the rectangle's optimum proven before (a certification's idle machine)
        lb = max(lb, known_box_lower(pts, k))
    # None unless distinct 2D lattice points; beyond the partition tables
    # the partitions below the incumbent are listed when the bounds are
    # close (scoring up to LARGE_LIMIT of them)
    time_left = problem.time_left()
    near = options.profiles and ub > 0 and (ub - lb) / ub <= _LARGE_TABLE_GAP
    near = near and (time_left is None or time_left > _LARGE_TABLE_SECONDS)
    grid = profile_grid(pts, k, ub if near else None)
    prof = profile_bound_grid(grid)
    if prof is not None:
        lb = max(lb, prof)
    if problem.closed(lb, ub):
        return problem.result(inc_idx, "optimal", "heuristic matches a cheap bound", extra, bound=ub)
    state = Bracket(lb, ub, inc_idx, "cuts")
    # the shape search where the bounds (the box and partition bounds of an
    # idle machine among them) are far below the incumbent
    far = options.profiles and ub > 0 and (ub - lb) / ub > _SHAPE_GAP
    shapes = shape_grid(pts) if far else None
    if options.profiles and prof is not None and shapes is None and not problem.done_gap(lb, ub):
        state = _short_search(problem, grid, prof, state, extra, options.verbose)
        if progress is not None:
            progress(0, state.lb, state.ub)
        if problem.closed(state.lb, state.ub):
            extra["phase"] = "profiles"
            return problem.result(state.indices, "optimal", "proven by the search over column and row profiles",
                                  extra, bound=state.ub)
    if problem.done_gap(state.lb, state.ub):
        return problem.result(state.indices, "gap_limit", "cheap bounds already within the requested relative gap "
                              f"{problem.rel_gap:g}", extra, bound=state.lb)
    race = None
    time_left = problem.time_left()
    if time_left is None or time_left > 0:
        if shapes is not None:
            race = ShapeRace(shapes, problem, state)
        elif options.profiles and prof is not None:
            race = ProfileRace(grid, problem, state)
    if isinstance(race, ShapeRace):
        # an instance the search proves within its head start (_SHAPE_FIRST)
        # needs no LP
        wait = _SHAPE_FIRST if time_left is None else min(_SHAPE_FIRST, time_left / 2)
        if race.proven.wait(wait):
            state = race.join(state, problem, extra, options.verbose)
            if problem.closed(state.lb, state.ub):
                extra["phase"] = "shapes"
                return problem.result(state.indices, "optimal", "proven by the search over shapes", extra,
                                      bound=state.ub)
    # on large inputs the first LP takes long: the star bound beside it
    # gives a bracket early (the better bound wins)
    star = None
    if options.star and len(pts) >= STAR_MIN_POINTS and (time_left is None or time_left > 0):
        star = StarRace(problem, state)
        if isinstance(race, ShapeRace):  # the stars' values bound the shape search too
            star.feed(race)
    try:
        return _cut_loop(problem, options, state, extra, race, progress, star)
    finally:
        if race is not None:
            race.finish()
        if star is not None:
            star.join(state, extra, False, problem.start)


def _box_nodes(pts: np.ndarray, time_left: float | None) -> tuple[int, int]:
    """Node budgets of the box optimum's branch-and-bound, in 2D and 3D:
    the large ones on a nearly full rectangle (where its optimal set may
    fit), the cheap bound's elsewhere, within the time left."""
    span = np.prod((pts.max(axis=0) - pts.min(axis=0) + 1).astype(float))
    if time_left is None:
        nodes, nodes_3d = _BOX_NODES, _BOX_NODES_3D
    else:
        nodes = int(min(_BOX_NODES, _BOX_NODES_PER_SECOND * max(time_left, 0.0)))
        nodes_3d = int(min(_BOX_NODES_3D, _BOX_NODES_3D_PER_SECOND * max(time_left, 0.0)))
    if len(pts) < _BOX_FILL * span:
        nodes, nodes_3d = min(nodes, BOUND_NODES), min(nodes_3d, BOUND_NODES_3D)
    return nodes, nodes_3d


def _short_search(problem: ExactProblem, grid, prof: float, state: Bracket, extra: dict, verbose: bool) -> Bracket:
    """Phase 2: the profile search before the LP, for a budget set by the
    gap between the incumbent and the partition bound ``prof`` and by the
    number of partitions scoring below the incumbent (none: ``state``)."""
    lb, ub, inc_idx = state.lb, state.ub, state.indices
    gap = (ub - prof) / ub
    below = int(np.searchsorted(grid.score, ub - 1, side="right"))  # partitions scoring below ub
    budget = max(next((sec for limit, sec in _PROFILE_SLICES if gap <= limit), 0.0),
                 next((sec for limit, sec in _PROFILE_COUNTS if below <= limit), 0.0))
    time_left = problem.time_left()
    if time_left is not None:
        budget = min(budget, time_left / 2)
    if budget <= 0:
        return state
    t0 = time.perf_counter()
    value, idx, lower = profile_search_grid(grid, problem.k, ub, 10**8, budget)
    extra["profile_seconds"] = time.perf_counter() - t0
    if value is not None:
        inc_idx, ub = idx, value
    lb = max(lb, lower)
    if verbose:
        print(f"profile search ({below} partitions below the incumbent, {budget:g} s): bound {lb:g} "
              f"incumbent {ub:g} t={time.perf_counter() - problem.start:.2f}s", file=sys.stderr, flush=True)
    return Bracket(lb, ub, inc_idx, state.phase)


__all__ = ["exact", "ExactSession", "FORMULATIONS"]
