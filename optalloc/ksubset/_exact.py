"""Exact k-subset: screening, a triangle-cut loop on the pairwise LP, then MIP.

The engine works on the pairwise linearisation of ``optalloc.models.pairwise``
(x_i chosen, y_ij = x_i x_j, level-1 RLT rows), held as arrays in HiGHS
(``highspy``) so that rows can be added between solves:

1. screening: k = n, k <= 2 (MM is exact), k = 3 (:func:`k3`), one
   dimension (:func:`line`), tiny instances (:func:`brute`); otherwise an
   incumbent from MM+Inc and Gen-Alg and the cheap bounds;
2. the cut loop: solve the LP, fix variables by reduced cost against the
   incumbent, separate violated rows (y_ij <= x_i, y_ij >= x_i + x_j - 1,
   triangle inequalities y_ij + y_il - y_jl <= x_i), round the LP point
   into a new incumbent with swap descent, repeat;
3. when the bound stalls: the same model as a MIP (x binary), with every
   row found so far and the incumbent as cutoff.

W is an integer on integer points, so a bound above W - 1 proves the
incumbent optimal.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ._bounds import axis_bound, neighbour_bound
from ._common import (
    is_integral,
    make_result,
    validate_k,
    validate_points,
    validate_positive,
    weights_of_sets,
)
from ._line import line
from ._median import gen_alg, mm, mm_inc, swap_descent
from ._small import brute, k3

FORMULATIONS = ("auto", "pairwise", "glover", "axis", "qp")
_EPS = 1e-6


@dataclass
class ExactSession:
    """State carried from one exact solve to the next on the same machine.

    Triangle inequalities depend only on three points, not on k or on the
    other points, so the cuts found binding in one decision are valid in the
    next; the session stores them by point coordinates and seeds later LPs
    with those whose three points are all present.  Results are cached by
    (free set, k).

    Examples
    --------
    >>> import numpy as np
    >>> from optalloc.ksubset import exact, ExactSession
    >>> from optalloc.bench import half_free_mesh
    >>> session = ExactSession()
    >>> pts = half_free_mesh(8, 8, seed=1)
    >>> a = exact(pts, 10, warm_start=session)
    >>> b = exact(pts[1:], 10, warm_start=session)
    >>> a.status, b.status, b.extra["seeded_cuts"] >= 0
    ('optimal', 'optimal', True)
    """

    max_cuts: int = 20000
    cuts: dict = field(default_factory=dict)
    cache: dict = field(default_factory=dict)
    hits: int = 0

    def _key(self, points: np.ndarray, k: int):
        order = np.lexsort(points.T[::-1])
        return (points[order].tobytes(), points.shape, k), order

    def remember(self, points: np.ndarray, triples: np.ndarray) -> None:
        for t in triples:
            key = tuple(map(tuple, points[t]))
            self.cuts[key] = self.cuts.get(key, 0) + 1
        if len(self.cuts) > self.max_cuts:  # keep the most often binding
            keep = sorted(self.cuts.items(), key=lambda kv: -kv[1])[: self.max_cuts // 2]
            self.cuts = dict(keep)

    def seeds(self, points: np.ndarray) -> np.ndarray:
        if not self.cuts:
            return np.empty((0, 3), dtype=np.intp)
        where = {tuple(p): i for i, p in enumerate(points)}
        out = []
        for key in self.cuts:
            idx = [where.get(p) for p in key]
            if None not in idx:
                out.append(idx)
        return np.array(out, dtype=np.intp).reshape(-1, 3)


class _PairLP:
    """The pairwise LP in HiGHS, with rows added on demand."""

    def __init__(self, points: np.ndarray, k: int, lp_solver: str):
        import highspy

        self.highspy = highspy
        n = len(points)
        self.n, self.k = n, k
        dist = np.abs(points[:, None, :] - points[None, :, :]).sum(axis=2)
        self.dist = dist
        iu, ju = np.triu_indices(n, 1)
        self.iu, self.ju = iu, ju
        self.m = len(iu)
        pid = np.full((n, n), -1, dtype=np.int64)
        pid[iu, ju] = np.arange(self.m)
        pid[ju, iu] = np.arange(self.m)
        self.pid = pid
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("solver", lp_solver)
        if lp_solver == "ipm":
            h.setOptionValue("run_crossover", "off")
        none = np.array([], dtype=np.int32)
        h.addCols(n, np.zeros(n), np.zeros(n), np.ones(n), 0, none, none, np.array([]))
        h.addCols(self.m, dist[iu, ju].astype(float), np.zeros(self.m), np.ones(self.m), 0, none, none, np.array([]))
        # cardinality and RLT rows: sum_j y_ij - (k - 1) x_i = 0
        starts = [0]
        index = [np.arange(n)]
        value = [np.ones(n)]
        for i in range(n):
            starts.append(starts[-1] + len(index[-1]))
            others = np.delete(np.arange(n), i)
            index.append(np.concatenate(([i], n + pid[i, others])))
            value.append(np.concatenate(([-(k - 1.0)], np.ones(n - 1))))
        lo = np.concatenate(([k], np.zeros(n))).astype(float)
        self.h = h
        self._add_rows_to(h, lo, lo.copy(), starts, index, value)
        self.rows = 1 + n
        self.triangles: list[tuple[int, np.ndarray]] = []  # (first row, triples)
        self.row_values = np.zeros(0)
        self.fixed0 = np.zeros(n, dtype=bool)

    @staticmethod
    def _add_rows_to(h, lo, hi, starts, index, value):
        idx = np.concatenate(index).astype(np.int32)
        val = np.concatenate(value).astype(float)
        h.addRows(len(lo), np.asarray(lo, float), np.asarray(hi, float), len(idx),
                  np.asarray(starts, dtype=np.int32), idx, val)

    def add_leq(self, index_rows: list[np.ndarray], value_rows: list[np.ndarray]) -> None:
        """Rows ``sum value * var <= 0``."""
        if not index_rows:
            return
        starts = np.cumsum([0] + [len(r) for r in index_rows[:-1]])
        inf = self.highspy.kHighsInf
        self._add_rows_to(self.h, np.full(len(index_rows), -inf), np.zeros(len(index_rows)), starts,
                          index_rows, value_rows)
        self.rows += len(index_rows)

    def add_triangles(self, tri: np.ndarray) -> None:
        """Rows y_ij + y_il - y_jl - x_i <= 0 for rows (i, j, l) of ``tri``."""
        if len(tri) == 0:
            return
        n, pid = self.n, self.pid
        i, j, l = tri.T
        idx = np.stack([n + pid[i, j], n + pid[i, l], n + pid[j, l], i], axis=1)
        val = np.broadcast_to(np.array([1.0, 1.0, -1.0, -1.0]), idx.shape)
        self.triangles.append((self.rows, tri))
        self.add_leq(list(idx), list(val))

    def solve(self, time_left: float | None):
        h = self.h
        if time_left is not None:
            h.setOptionValue("time_limit", max(0.01, time_left))
        h.run()
        status = h.getModelStatus()
        ok = status == self.highspy.HighsModelStatus.kOptimal
        info = h.getInfo()
        sol = h.getSolution()
        v = np.array(sol.col_value)
        rc = np.array(sol.col_dual)
        self.row_values = np.array(sol.row_value)
        return ok, info.objective_function_value, v, rc, h.modelStatusToString(status)

    def fix_zero(self, cols: np.ndarray) -> None:
        if len(cols):
            cols = cols.astype(np.int32)
            z = np.zeros(len(cols))
            self.h.changeColsBounds(len(cols), cols, z, z)

    def separate(self, x: np.ndarray, y: np.ndarray, max_rows: int, per_point: int):
        """Most violated rows at (x, y): linking rows first, then triangles."""
        n, pid = self.n, self.pid
        Y = np.zeros((n, n))
        Y[self.iu, self.ju] = y
        Y += Y.T
        rows_i, rows_v = [], []
        # y_ij <= x_i  (ordered pairs)
        viol = Y - x[:, None]
        np.fill_diagonal(viol, -1)
        a, b = np.nonzero(viol > 1e-6)
        if len(a):
            order = np.argsort(-viol[a, b])[:max_rows]
            for t in order:
                rows_i.append(np.array([n + pid[a[t], b[t]], a[t]]))
                rows_v.append(np.array([1.0, -1.0]))
        # x_i + x_j - y_ij <= 1 is rarely violated with the RLT rows; checked anyway
        low = x[self.iu] + x[self.ju] - y - 1
        bad = np.flatnonzero(low > 1e-6)
        tri = np.empty((0, 3), dtype=np.intp)
        if len(rows_i) < max_rows // 4:
            found = []
            active = np.flatnonzero(x > 1e-6)
            for i in active:
                T = Y[i][:, None] + Y[i][None, :] - Y - x[i]
                T[i, :] = -1
                T[:, i] = -1
                jj, ll = np.nonzero(np.triu(T, 1) > 1e-5)
                if len(jj):
                    vv = T[jj, ll]
                    o = np.argsort(-vv)[:per_point]
                    found.append(np.stack([np.full(len(o), i), jj[o], ll[o], np.round(vv[o] * 1e9)], axis=1))
            if found:
                allf = np.concatenate(found)
                allf = allf[np.argsort(-allf[:, 3], kind="stable")][: max_rows - len(rows_i)]
                tri = allf[:, :3].astype(np.intp)
        return rows_i, rows_v, bad, tri


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
    return make_result(pts, idx, method="exact", start=start, status="optimal", message=msg,
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
    lp_solver="simplex",
    max_rounds=200,
    cuts_per_round=None,
    verbose=False,
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
        with status ``"time_limit"``.
    rel_gap : float, optional
        Stop when ``(W - bound) / W <= rel_gap`` (status ``"feasible"``).
    warm_start : ExactSession, optional
        Carries cuts and results between related calls.
    lp_solver : {"simplex", "ipm"}, optional
        HiGHS LP algorithm in the cut loop (IPM runs without crossover).
    max_rounds : int, optional
        Cut rounds before switching to branch-and-bound.
    cuts_per_round : int, optional
        Rows added per round (default 10 n).
    verbose : bool, optional
        Print one line per round.

    Returns
    -------
    Result
        ``status="optimal"`` only when proven; ``bound`` is always a proven
        lower bound; ``extra`` reports rounds, rows, fixed points and the
        phase that closed the gap.

    Raises
    ------
    ValueError
        Bad input, unknown formulation, unavailable solver.

    Examples
    --------
    >>> from optalloc.ksubset import exact, brute
    >>> from optalloc.bench import half_free_mesh
    >>> pts = half_free_mesh(6, 6, seed=3)
    >>> r = exact(pts, 6)
    >>> r.status, r.objective == brute(pts, 6).objective
    ('optimal', True)
    """
    start = time.perf_counter()
    pts = validate_points(points)
    n, d = pts.shape
    k = validate_k(k, n)
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of: {', '.join(FORMULATIONS)}")
    if not isinstance(solver, str) or not solver:
        raise ValueError(f"`solver` must be a solver name, got {solver!r}")
    time_limit = validate_positive(time_limit, "time_limit")
    rel_gap = float(rel_gap)
    if not 0 <= rel_gap < 1:
        raise ValueError(f"`rel_gap` must be in [0, 1), got {rel_gap}")
    if lp_solver not in ("simplex", "ipm"):
        raise ValueError(f"`lp_solver` must be 'simplex' or 'ipm', got {lp_solver!r}")
    if warm_start is not None and not isinstance(warm_start, ExactSession):
        raise ValueError("`warm_start` must be an ExactSession")
    if solver != "highs" or formulation != "auto":
        from ._pyomo import solve_formulation

        return solve_formulation(pts, k, solver=solver, formulation=formulation, time_limit=time_limit,
                                 rel_gap=rel_gap, start=start)

    if warm_start is not None:
        key, _ = warm_start._key(pts, k)
        hit = warm_start.cache.get(key)
        if hit is not None:
            warm_start.hits += 1
            where = {tuple(p): i for i, p in enumerate(pts)}
            idx = [where[p] for p in hit]
            return make_result(pts, idx, method="exact", start=start, status="optimal", message="cached",
                               extra={"phase": "cache"}, exact=True)

    res = _screen(pts, k, start)
    if res is None:
        res = _cut_and_branch(pts, k, start, time_limit, rel_gap, warm_start, lp_solver, max_rounds,
                              cuts_per_round, verbose)
    if warm_start is not None and res.status == "optimal":
        key, _ = warm_start._key(pts, k)
        warm_start.cache[key] = [tuple(p) for p in res.points]
    return res


def _cut_and_branch(pts, k, start, time_limit, rel_gap, session, lp_solver, max_rounds, cuts_per_round, verbose):
    n = len(pts)
    integral = is_integral(pts)
    deadline = None if time_limit is None else start + time_limit

    def time_left():
        return None if deadline is None else deadline - time.perf_counter()

    heur = [mm_inc(pts, k), gen_alg(pts, k)]
    best = min(heur, key=lambda r: r.objective)
    inc_idx, ub = best.indices, best.objective
    lb = max(neighbour_bound(pts, k), axis_bound(pts, k), *(r.objective / r.guarantee for r in heur))

    def closed(lb, ub):
        if integral:
            return lb > ub - 1 + 1e-6 or lb >= ub - 1e-9
        return lb >= ub - 1e-9 * max(1.0, ub)

    def done_gap(lb, ub):
        return ub > 0 and (ub - lb) / ub <= rel_gap

    extra = {"rounds": 0, "rows": 0, "fixed": 0, "phase": "bounds", "seeded_cuts": 0}
    if closed(lb, ub):
        return make_result(pts, inc_idx, method="exact", start=start, bound=ub, status="optimal",
                           message="heuristic matches a cheap bound", extra=extra, exact=True)

    lp = _PairLP(pts, k, lp_solver)
    per_round = cuts_per_round or 10 * n
    if session is not None:
        seeds = session.seeds(pts)
        lp.add_triangles(seeds)
        extra["seeded_cuts"] = int(len(seeds))
    cutoff = (ub - 1 + 1e-6) if integral else ub
    status_msg = ""
    last_lbs: list[float] = []
    phase = "cuts"
    for rnd in range(max_rounds):
        tl = time_left()
        if tl is not None and tl <= 0:
            break
        ok, obj, v, rc, status_msg = lp.solve(tl)
        if not ok:
            break
        lb = max(lb, obj - 1e-7 * max(1.0, abs(obj)))
        extra["rounds"] = rnd + 1
        x, y = v[:n], v[n:]
        # reduced-cost fixing: a point whose inclusion costs more than the gap is out
        fix = (~lp.fixed0) & (x < _EPS) & (obj + rc[:n] > cutoff)
        if fix.any():
            lp.fixed0 |= fix
            lp.fix_zero(np.flatnonzero(fix))
        ycols = np.flatnonzero((y < _EPS) & (obj + rc[n:] > cutoff))
        lp.fix_zero(n + ycols)
        # rounding: the k largest x, then swap descent
        cand = np.argsort(-x, kind="stable")[:k]
        cand, _ = swap_descent(pts, np.sort(cand))
        w = float(weights_of_sets(pts, cand[None])[0])
        if w < ub - 1e-9:
            inc_idx, ub = cand, w
            cutoff = (ub - 1 + 1e-6) if integral else ub
        if verbose:
            print(f"round {rnd}: bound {lb:.3f} incumbent {ub:g} rows {lp.rows} fixed {int(lp.fixed0.sum())} "
                  f"t={time.perf_counter() - start:.2f}s")
        if closed(lb, ub) or done_gap(lb, ub):
            phase = "cuts"
            break
        rows_i, rows_v, _, tri = lp.separate(x, y, per_round, max(4, per_round // max(1, int((x > _EPS).sum()))))
        if not rows_i and len(tri) == 0:
            phase = "stalled"
            break
        lp.add_leq(rows_i, rows_v)
        lp.add_triangles(tri)
        last_lbs.append(obj)
        if len(last_lbs) >= 4 and last_lbs[-1] - last_lbs[-4] < 0.01 * max(1.0, ub - last_lbs[-1]):
            phase = "stalled"
            break
    extra.update({"rows": int(lp.rows), "fixed": int(lp.fixed0.sum())})
    if not (closed(lb, ub) or done_gap(lb, ub)) and (time_left() is None or time_left() > 0):
        lb, ub, inc_idx, phase = _branch(lp, pts, k, lb, ub, inc_idx, time_left(), integral, rel_gap)
    extra["phase"] = phase
    if session is not None and lp.triangles:
        _remember_binding(session, lp, pts)
    if closed(lb, ub):
        status, bound = "optimal", ub
    else:
        status = "feasible" if done_gap(lb, ub) else "time_limit"
        bound = lb
    message = {
        "optimal": f"proven optimal by the {phase} phase",
        "feasible": f"relative gap within {rel_gap:g}",
        "time_limit": "time limit reached; the bound is proven, the incumbent may not be optimal",
    }[status]
    if status_msg and status_msg != "Optimal":
        message += f" (last HiGHS status: {status_msg})"
    return make_result(pts, inc_idx, method="exact", start=start, bound=bound, status=status,
                       message=message, extra=extra, exact=True)


def _branch(lp, pts, k, lb, ub, inc_idx, time_left, integral, rel_gap):
    """Branch-and-bound on the LP with every row found, x binary."""
    h, n = lp.h, lp.n
    hs = lp.highspy
    h.setOptionValue("solver", "choose")
    h.setOptionValue("mip_rel_gap", max(rel_gap, 1e-9))
    if integral:
        h.setOptionValue("mip_abs_gap", 1 - 1e-6)
    if time_left is not None:
        h.setOptionValue("time_limit", max(0.01, time_left))
    cols = np.arange(n, dtype=np.int32)
    h.changeColsIntegrality(n, cols, np.full(n, hs.HighsVarType.kInteger))
    sol = np.zeros(n + lp.m)
    sol[inc_idx] = 1
    chosen = np.zeros(n, dtype=bool)
    chosen[inc_idx] = True
    sol[n:] = (chosen[lp.iu] & chosen[lp.ju]).astype(float)
    hs_sol = hs.HighsSolution()
    hs_sol.col_value = list(sol)
    h.setSolution(hs_sol)
    h.run()
    info = h.getInfo()
    if info.mip_dual_bound is not None and math.isfinite(info.mip_dual_bound):
        lb = max(lb, info.mip_dual_bound - 1e-7 * max(1.0, abs(info.mip_dual_bound)))
    if h.getInfo().primal_solution_status == 2:
        v = np.array(h.getSolution().col_value)
        cand = np.flatnonzero(v[:n] > 0.5)
        if len(cand) == k:
            w = float(weights_of_sets(pts, cand[None])[0])
            if w < ub:
                inc_idx, ub = cand, w
    return lb, ub, inc_idx, "branch"


def _remember_binding(session, lp, pts):
    """Store the triangle rows that were tight at the last LP solution."""
    rv = lp.row_values
    for first, tri in lp.triangles:
        vals = rv[first : first + len(tri)]
        if len(vals) == len(tri):
            session.remember(pts, tri[np.abs(vals) < 1e-6])


__all__ = ["exact", "ExactSession", "FORMULATIONS"]
