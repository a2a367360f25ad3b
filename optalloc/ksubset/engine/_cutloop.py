"""Phases 3 and 4 of :func:`.exact`: the cut loop on the pairwise LP, then MIP.

The cut loop solves the LP of :mod:`._pairlp`, fixes variables by reduced
cost against the incumbent, separates violated rows, rounds the LP point
into a new incumbent with swap descent, and repeats; when the bound stalls
the same model is solved as a MIP (x binary) with every row found so far
and the incumbent as cutoff.  The profile search may run beside it
(:class:`._race.ProfileRace`).
"""

from __future__ import annotations

import math
import sys
import time
from typing import TYPE_CHECKING

import numpy as np

from .._common import triangle_keys
from ._pairlp import _lagrangian_bound, _PairLP
from ._state import Bracket, ExactOptions, ExactProblem

if TYPE_CHECKING:
    from ._race import ProfileRace
    from ._star import StarRace

_EPS = 1e-6


def _cut_loop(problem: ExactProblem, options: ExactOptions, state: Bracket, extra: dict,
              race: ProfileRace | None, progress=None, star: StarRace | None = None):
    """Phases 3 and 4 of :func:`.exact` from ``state``, with the profile
    search in ``race`` and the star bound in ``star`` (each or None) beside
    them; fills ``extra``; ``progress`` (a callable or None) gets
    ``(round, bound, incumbent)`` after each round."""
    time_left = problem.time_left
    if time_left() is not None and time_left() <= 0:
        if star is not None:
            state = star.join(state, extra, options.verbose, problem.start)
        # building the LP alone is costly on large machines
        return problem.result(state.indices, "time_limit", "time limit reached; the bound is proven (the cheap "
                              "bounds: no time was left for the LP), the incumbent may not be optimal", extra,
                              bound=state.lb)
    lp, dist = _start_lp(problem, options, extra, race)
    if star is not None:
        star.watch(lp)
    state, status_msg = _rounds(lp, dist, problem, options, state, extra, race, progress, star)
    extra.update({"rows": int(lp.rows), "fixed": int(lp.fixed0.sum()), "triangles": int(len(lp.triangles()))})
    if options.session is not None:
        options.session.remember(problem.pts, lp.binding_triangles())
    if race is not None and race.proven.is_set():
        state = race.join(state, problem, extra, options.verbose)
    if star is not None and star.proven.is_set():
        state = star.join(state, extra, options.verbose, problem.start)
    if not (problem.closed(state.lb, state.ub) or problem.done_gap(state.lb, state.ub)) and (
            time_left() is None or time_left() > 0):
        state = _branch(lp, problem, state)
    if race is not None:
        state = race.join(state, problem, extra, options.verbose)
    if star is not None:
        state = star.join(state, extra, options.verbose, problem.start)
    extra["phase"] = state.phase
    return _outcome(problem, state, status_msg, extra)


#: add the triangle rows the star bound prices to the LP at each round
_STAR_ROWS = True


def _add_star_rows(lp, tri: np.ndarray) -> int:
    """Add the rows of ``tri`` (i, j, l) the LP does not hold yet; their number."""
    if len(tri) == 0:
        return 0
    new = ~np.isin(triangle_keys(tri, lp.n), triangle_keys(lp.triangles(), lp.n))
    lp.add_triangles(tri[new])
    return int(new.sum())


def _start_lp(problem: ExactProblem, options: ExactOptions, extra: dict, race: ProfileRace | None):
    """The LP with the session's cuts and the linking rows of near points,
    and the distance matrix."""
    pts, k = problem.pts, problem.k
    n = len(pts)
    dist = problem.distances()
    lp = _PairLP(dist, k, options.lp_solver)
    problem.prepare(lp)
    if race is not None:
        race.watch(lp)
    if options.session is not None:
        seeds = options.session.seeds(pts)
        lp.add_triangles(seeds)
        extra["seeded_cuts"] = int(len(seeds))
    # linking rows of each point with its 2k nearest: the LP would violate
    # them first (adding them at once is faster than on demand)
    near = np.argsort(dist, axis=1, kind="stable")[:, 1 : 2 * k + 1]
    a, b = np.repeat(np.arange(n), near.shape[1]), near.ravel()
    lp.add_up(a, b)
    lp.add_up(b, a)
    return lp, dist


def _rounds(lp: _PairLP, dist: np.ndarray, problem: ExactProblem, options: ExactOptions, state: Bracket,
            extra: dict, race: ProfileRace | None, progress=None, star: StarRace | None = None
            ) -> tuple[Bracket, str]:
    """The cut rounds from ``state``: the bracket they reach (phase "cuts",
    or "stalled" when the bound stops moving) and the last HiGHS status."""
    pts, k = problem.pts, problem.k
    n = len(pts)
    lb, ub, inc_idx = state.lb, state.ub, state.indices
    per_round = options.cuts_per_round or (10 if options.lp_solver == "simplex" else 80) * n
    status_msg, phase, last = "", "cuts", []
    for rnd in range(options.max_rounds):
        tl = problem.time_left()
        if (tl is not None and tl <= 0) or any(r is not None and r.proven.is_set() for r in (race, star)):
            break
        ok, obj, v, status_msg = lp.solve(tl)
        if not ok:
            break
        extra["rounds"] = rnd + 1
        # the Lagrangian value of the LP's multipliers: a bound that does not
        # rely on the solver's tolerances.  It covers the sets the fixings
        # kept; those fixed away cost more than the cutoff.
        x, y = v[:n], v[n:]
        cutoff = (ub - 1 + 1e-6) if problem.integral else ub
        value, dx = _lagrangian_bound(lp, dist, k)
        lb = ub if value > cutoff else max(lb, value)
        # reduced-cost fixing: a point whose inclusion costs more than the gap is out
        fix = (~lp.fixed0) & (value + np.maximum(0.0, dx) > cutoff) & (value <= cutoff)
        if fix.any():
            lp.fixed0 |= fix
            lp.fix_zero(np.flatnonzero(fix))
        # rounding: the k largest x, then swap descent
        cand = problem.descend(np.sort(np.argsort(-x, kind="stable")[:k]))
        w = problem.weight(cand)
        if w < ub - 1e-9:
            inc_idx, ub = cand, w
        if options.verbose:
            print(f"round {rnd + 1}: LP {obj:.3f} bound {lb:.3f} incumbent {ub:g} rows {lp.rows} "
                  f"fixed {int(lp.fixed0.sum())} t={time.perf_counter() - problem.start:.2f}s", file=sys.stderr,
                  flush=True)
        if progress is not None:
            progress(rnd + 1, lb, ub)
        if problem.closed(lb, ub) or problem.done_gap(lb, ub):
            break
        lp.drop_slack(min_age=3)
        links, cuts = lp.separate(x, y, per_round, max(4, per_round // max(1, int((x > _EPS).sum()))))
        if star is not None and _STAR_ROWS:
            added = _add_star_rows(lp, star.priced_rows())
            extra["star_rows"] = extra.get("star_rows", 0) + added
            cuts += added
        if links + cuts == 0:
            phase = "stalled"
            break
        last.append(obj)
        if len(last) >= 4 and last[-1] - last[-4] < 0.01 * max(1.0, ub - last[-1]):
            phase = "stalled"
            break
    return Bracket(lb, ub, inc_idx, phase), status_msg


def _outcome(problem: ExactProblem, state: Bracket, status_msg: str, extra: dict):
    """The result of the cut loop and branch-and-bound ending at ``state``."""
    lb, ub, phase = state.lb, state.ub, state.phase
    if problem.closed(lb, ub):
        termination, bound = "optimal", ub
    else:
        time_left = problem.time_left()
        if time_left is not None and time_left <= 0.05:
            termination = "time_limit"
        else:
            termination = "gap_limit" if problem.done_gap(lb, ub) else "completed"
        bound = lb
    message = {
        "optimal": f"proven optimal by the {phase} phase",
        "gap_limit": f"stopped at the requested relative gap {problem.rel_gap:g}",
        "completed": f"the {phase} phase ended without closing the gap",
        "time_limit": "time limit reached; the bound is proven, the incumbent may not be optimal",
    }[termination]
    if status_msg and status_msg != "Optimal" and phase not in ("profiles", "shapes", "star"):  # they cancel the LP
        message += f" (last HiGHS status: {status_msg})"
    return problem.result(state.indices, termination, message, extra, bound=bound)


def _branch(lp: _PairLP, problem: ExactProblem, state: Bracket) -> Bracket:
    """Branch-and-bound on the LP with every row found, x binary.

    Only sets better than the incumbent are sought (objective bound at the
    cutoff, points fixed by reduced cost stay out), so an infeasible MIP
    proves the incumbent optimal, and the MIP's dual bound holds for every
    set that could beat it.
    """
    time_left = problem.time_left()
    lb, ub, inc_idx = state.lb, state.ub, state.indices
    integral, rel_gap = problem.integral, problem.rel_gap
    lp.complete()
    h, n = lp.h, lp.n
    hs = lp.highspy
    cutoff = (ub - 1 + 1e-6) if integral else ub
    h.setOptionValue("solver", "choose")
    h.setOptionValue("mip_rel_gap", max(rel_gap, 1e-9))
    h.setOptionValue("objective_bound", cutoff)
    if integral:  # W is an integer: a gap below 1/2 closes it
        h.setOptionValue("mip_abs_gap", 0.5)
    if time_left is not None:
        h.setOptionValue("time_limit", max(0.01, time_left))
    cols = np.arange(n, dtype=np.int32)
    h.changeColsIntegrality(n, cols, np.full(n, hs.HighsVarType.kInteger))
    h.run()
    status = h.getModelStatus()
    if status == hs.HighsModelStatus.kInfeasible:
        return Bracket(ub, ub, inc_idx, "branch")
    info = h.getInfo()
    if info.primal_solution_status == 2:
        cand = np.flatnonzero(np.array(h.getSolution().col_value)[:n] > 0.5)
        if len(cand) == problem.k:
            w = problem.weight(cand)
            if w < ub:
                inc_idx, ub = cand, w
    if status == hs.HighsModelStatus.kOptimal and rel_gap == 0:
        return Bracket(ub, ub, inc_idx, "branch")
    dual = info.mip_dual_bound
    if dual is not None and math.isfinite(dual):
        lb = max(lb, min(dual - 1e-7 * max(1.0, abs(dual)), cutoff))
    return Bracket(lb, ub, inc_idx, "branch")
