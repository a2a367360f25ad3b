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
3. the cut loop, with the profile search in a thread beside it when it
   applies (compiled with numba: both release the GIL, so on two cores the
   first to prove ends both): solve the LP, fix variables by reduced cost
   against the incumbent, separate violated rows (y_ij <= x_i, y_ij >= x_i + x_j - 1,
   triangle inequalities y_ij + y_il - y_jl <= x_i), round the LP point
   into a new incumbent with swap descent, repeat;
4. when the bound stalls: the same model as a MIP (x binary), with every
   row found so far and the incumbent as cutoff.

W is an integer on integer points, so a bound above W - 1 proves the
incumbent optimal.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ._bounds import BOUND_NODES, BOUND_NODES_3D, axis_bound, box_start
from ._box import fit_in
from ._boxsearch import AVAILABLE as _HAVE_NUMBA
from ._common import (
    is_integral,
    make_result,
    rows_by_point,
    validate_k,
    validate_points,
    validate_positive,
    weights_of_sets,
)
from ._line import line
from ._median import gen_alg, mm, mm_inc, swap_descent
from ._profile import _bound as _profile_bound
from ._profile import _search as _profile_search
from ._profile import _setup as _profile_setup
from ._small import brute, k3

FORMULATIONS = ("auto", "pairwise", "glover", "axis", "qp")


class _Race:
    """:func:`profile_search` in a thread beside the cut loop (the compiled
    search and HiGHS both release the GIL, so on two cores the slower of
    the two costs no wall time).  When the search proves its answer it
    cancels the LP; :meth:`finish` stops it and returns its result."""

    def __init__(self, grid, k, ub, lb, time_left, closed):
        self.deadline = np.array([math.inf if time_left is None else time.perf_counter() + time_left])
        self.result, self.lp, self.closed, self.joined = None, None, closed, False
        self.started, self.seconds = time.perf_counter(), 0.0
        self.proven = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(grid, k, ub, lb), daemon=True)
        self.thread.start()

    def _run(self, grid, k, ub, lb):
        # the deepening starts at the bound proven so far (by a short search
        # before the LP, say), not again from the least score
        value, idx, lower = _profile_search(grid, k, ub, 10**15, None, self.deadline, lb)
        self.result = (value, idx, lower)
        self.seconds = time.perf_counter() - self.started
        if self.closed(lower, ub if value is None else value):
            self.proven.set()
            lp = self.lp
            if lp is not None:
                lp.h.cancelSolve()

    def watch(self, lp):
        """Let the search cancel ``lp`` (from now on) when it proves."""
        lp.h.HandleUserInterrupt = True
        self.lp = lp
        if self.proven.is_set():
            lp.h.cancelSolve()

    def finish(self):
        self.deadline[0] = -math.inf
        self.thread.join()
        self.joined = True
        return self.result


_EPS = 1e-6
#: lp_solver="auto" takes the simplex up to this n k, the IPM above
_SIMPLEX_UP_TO = 2048
#: seconds of profile search by relative gap between the incumbent and the
#: partition bound (within 3 % the LP stalls on the symmetric optima of a
#: nearly empty machine, and the search closes within 2 s on every 16 x 16
#: trace state at k = 64 seen, but one), and by the number of partitions
#: scoring below the incumbent (16 x 16 half free: up to 1000 of them,
#: k <= 24, the search closes within 1.6 s where the LP takes 2-15 s;
#: 1500-1700, k = 28, within 1.6 s; from about 1800 on, k >= 28, it may
#: take 10-60 s, the LP 10-26 s)
_PROFILE_SLICES = ((0.005, 10.0), (0.03, 5.0), (0.08, 1.0))
_PROFILE_COUNTS = ((1700, 3.0),)
#: a partition table beyond the cached ones is scored when the bounds are
#: this close and this many seconds are left
_LARGE_TABLE_GAP, _LARGE_TABLE_SECONDS = 0.05, 5.0
#: the box optimum runs its branch-and-bound with up to _BOX_NODES nodes (a
#: few seconds) when the points fill this share of their rectangle, else with
#: the cheap bound's BOUND_NODES (a fraction of a second: still worth it, the
#: box optimum is a lower bound that the heuristics often meet); with a time
#: limit at most _BOX_NODES_PER_SECOND per second left (a node costs 10-25 us)
_BOX_FILL, _BOX_NODES, _BOX_NODES_PER_SECOND = 0.9, 400_000, 40_000
#: the same for 3D points (cuboid_optimum; a node costs 0.1-0.5 ms)
_BOX_NODES_3D, _BOX_NODES_3D_PER_SECOND = 60_000, 3_000


@dataclass
class ExactSession:
    """State carried from one exact solve to the next on the same machine.

    Triangle inequalities depend only on three points, not on k or on the
    other points, so the cuts found binding in one decision are valid in the
    next; the session stores them by point coordinates and seeds later LPs
    with those whose three points are all present.  Results are cached by
    (free set, k): an optimum for every later call, a bracket left by a time
    limit for later calls with no more time than it had.

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
        """Cache key of (free set, k), whatever the order of the points."""
        order = np.lexsort(points.T[::-1])
        return points[order].tobytes(), points.shape, k

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
            if None not in idx and len(set(idx)) == 3:  # repeated points share a key
                out.append(idx)
        return np.array(out, dtype=np.intp).reshape(-1, 3)


class _PairLP:
    """The pairwise LP in HiGHS, with rows added and dropped between solves.

    Every row is registered as (kind, a, b, c): kind 0 the cardinality and
    RLT rows, 1 ``y_ab <= x_a``, 2 ``x_a + x_b - y_ab <= 1``, 3 the triangle
    ``y_ab + y_ac - y_bc <= x_a``.
    """

    BASE, UP, LOW, TRI = 0, 1, 2, 3

    def __init__(self, dist: np.ndarray, k: int, lp_solver: str):
        import highspy

        self.highspy = highspy
        n = len(dist)
        self.n, self.k = n, k
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
        self.h = h
        none = np.array([], dtype=np.int32)
        h.addCols(n, np.zeros(n), np.zeros(n), np.ones(n), 0, none, none, np.array([]))
        h.addCols(self.m, dist[iu, ju].astype(float), np.zeros(self.m), np.ones(self.m), 0, none, none, np.array([]))
        # cardinality and RLT rows: sum_j y_ij - (k - 1) x_i = 0
        index = [np.arange(n)]
        value = [np.ones(n)]
        for i in range(n):
            others = np.delete(np.arange(n), i)
            index.append(np.concatenate(([i], n + pid[i, others])))
            value.append(np.concatenate(([-(k - 1.0)], np.ones(n - 1))))
        lo = np.concatenate(([k], np.zeros(n))).astype(float)
        self.keys = np.zeros((0, 4), dtype=np.int64)
        self.age = np.zeros(0, dtype=np.int64)
        self._add(lo, lo.copy(), index, value, np.column_stack([np.zeros(n + 1), np.arange(-1, n), np.zeros((n + 1, 2))]))
        self.up = np.zeros((n, n), dtype=bool)  # y_ab <= x_a present
        self.row_values = np.zeros(0)
        self.fixed0 = np.zeros(n, dtype=bool)

    @property
    def rows(self) -> int:
        return len(self.keys)

    def _add(self, lo, hi, index, value, keys):
        """Add rows: ``index`` / ``value`` a list of arrays (one per row) or
        two 2D arrays (rows of equal length, built without Python loops)."""
        if len(index) == 0:
            return
        if isinstance(index, np.ndarray):
            starts = (np.arange(len(index)) * index.shape[1]).astype(np.int32)
            idx, val = index.ravel().astype(np.int32), np.asarray(value, dtype=float).ravel()
        else:
            starts = np.cumsum([0] + [len(r) for r in index[:-1]]).astype(np.int32)
            idx = np.concatenate(index).astype(np.int32)
            val = np.concatenate(value).astype(float)
        self.h.addRows(len(lo), np.asarray(lo, float), np.asarray(hi, float), len(idx), starts, idx, val)
        self.keys = np.vstack([self.keys, np.asarray(keys, dtype=np.int64).reshape(-1, 4)])
        self.age = np.concatenate([self.age, np.zeros(len(lo), dtype=np.int64)])

    def add_up(self, a: np.ndarray, b: np.ndarray) -> None:
        """Rows y_ab <= x_a (skipping those present)."""
        keep = ~self.up[a, b]
        a, b = a[keep], b[keep]
        if len(a) == 0:
            return
        self.up[a, b] = True
        n, inf = self.n, self.highspy.kHighsInf
        index = np.stack([n + self.pid[a, b], a], axis=1)
        value = np.broadcast_to([1.0, -1.0], index.shape)
        keys = np.column_stack([np.full(len(a), self.UP), a, b, np.zeros(len(a))])
        self._add(np.full(len(a), -inf), np.zeros(len(a)), index, value, keys)

    def add_low(self, pairs: np.ndarray) -> None:
        """Rows x_a + x_b - y_ab <= 1 for pair indices ``pairs``."""
        if len(pairs) == 0:
            return
        a, b = self.iu[pairs], self.ju[pairs]
        n, inf = self.n, self.highspy.kHighsInf
        index = np.stack([a, b, n + pairs], axis=1)
        value = np.broadcast_to([1.0, 1.0, -1.0], index.shape)
        keys = np.column_stack([np.full(len(a), self.LOW), a, b, np.zeros(len(a))])
        self._add(np.full(len(a), -inf), np.ones(len(a)), index, value, keys)

    def add_triangles(self, tri: np.ndarray) -> None:
        """Rows y_ij + y_il - y_jl - x_i <= 0 for rows (i, j, l) of ``tri``."""
        if len(tri) == 0:
            return
        n, pid, inf = self.n, self.pid, self.highspy.kHighsInf
        i, j, l = tri.T
        index = np.stack([n + pid[i, j], n + pid[i, l], n + pid[j, l], i], axis=1)
        value = np.broadcast_to([1.0, 1.0, -1.0, -1.0], index.shape)
        keys = np.column_stack([np.full(len(tri), self.TRI), tri])
        self._add(np.full(len(tri), -inf), np.zeros(len(tri)), index, value, keys)

    def drop_slack(self, min_age: int, tol: float = 1e-6) -> int:
        """Delete triangle rows slack for ``min_age`` rounds in a row.

        Linking rows stay: dropping them makes the LP cycle."""
        rv = self.row_values
        if len(rv) != self.rows:
            return 0
        slack = (self.keys[:, 0] == self.TRI) & (rv < -tol)
        self.age = np.where(slack, self.age + 1, 0)
        drop = np.flatnonzero(self.age > min_age)
        if len(drop) == 0:
            return 0
        self.h.deleteRows(len(drop), drop.astype(np.int32))
        keep = np.ones(self.rows, dtype=bool)
        keep[drop] = False
        self.keys, self.age, self.row_values = self.keys[keep], self.age[keep], rv[keep]
        return len(drop)

    def triangles(self) -> np.ndarray:
        return self.keys[self.keys[:, 0] == self.TRI][:, 1:]

    def binding_triangles(self, tol: float = 1e-6) -> np.ndarray:
        if len(self.row_values) != self.rows:
            return np.empty((0, 3), dtype=np.int64)
        tri = (self.keys[:, 0] == self.TRI) & (np.abs(self.row_values) < tol)
        return self.keys[tri][:, 1:]

    def solve(self, time_left: float | None):
        h = self.h
        if time_left is not None:
            # HiGHS compares its time limit with the run time accumulated over
            # every run() of this object, not with the time of this run
            h.setOptionValue("time_limit", h.getRunTime() + max(0.01, time_left))
        h.run()
        status = h.getModelStatus()
        ok = status == self.highspy.HighsModelStatus.kOptimal
        sol = h.getSolution()
        v = np.array(sol.col_value)
        self.row_values = np.array(sol.row_value)
        self.row_duals = np.array(sol.row_dual) if sol.dual_valid else None
        return ok, h.getInfo().objective_function_value, v, h.modelStatusToString(status)

    def fix_zero(self, cols: np.ndarray) -> None:
        if len(cols):
            cols = cols.astype(np.int32)
            z = np.zeros(len(cols))
            self.h.changeColsBounds(len(cols), cols, z, z)

    def separate(self, x: np.ndarray, y: np.ndarray, max_rows: int, per_point: int) -> tuple[int, int]:
        """Add violated rows at (x, y): every violated linking row (two or
        three entries each) and up to ``max_rows`` most violated triangle
        inequalities, at most ``per_point`` with the same apex.  Returns
        (linking rows, triangle rows) added."""
        n = self.n
        Y = np.zeros((n, n))
        Y[self.iu, self.ju] = y
        Y += Y.T
        viol = Y - x[:, None]
        np.fill_diagonal(viol, -1)
        a, b = np.nonzero(viol > 1e-6)
        before = self.rows
        self.add_up(a, b)
        self.add_low(np.flatnonzero(x[self.iu] + x[self.ju] - y - 1 > 1e-6))
        links = self.rows - before
        found = []
        for i in np.flatnonzero(x > 1e-6):
            T = Y[i][:, None] + Y[i][None, :] - Y - x[i]
            T[i, :] = -1
            T[:, i] = -1
            jj, ll = np.nonzero(np.triu(T, 1) > 1e-5)
            if len(jj):
                vv = T[jj, ll]
                o = np.argsort(-vv, kind="stable")[:per_point]
                found.append((vv[o], np.stack([np.full(len(o), i), jj[o], ll[o]], axis=1)))
        if found:
            vals = np.concatenate([f[0] for f in found])
            tri = np.concatenate([f[1] for f in found])
            self.add_triangles(tri[np.argsort(-vals, kind="stable")[:max_rows]])
        return links, self.rows - before - links

    def complete(self) -> None:
        """All linking rows y_ab <= x_a, so that binary x makes y exact."""
        a, b = np.nonzero(~self.up)
        off = a != b
        self.add_up(a[off], b[off])


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
    lp_solver="auto",
    max_rounds=200,
    cuts_per_round=None,
    profiles=True,
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
        ending both (default True; the thread needs numba); False goes
        straight to the cut loop alone.
    verbose : bool, optional
        Print a line after the profile search (before the LP and beside
        it) and one per round of the cut loop on standard error.

    Returns
    -------
    Result
        ``status="optimal"`` only when proven; ``bound`` is always a proven
        lower bound; ``extra`` reports rounds, rows, triangle rows, fixed
        points, seeded cuts and the phase that closed the gap ("screen",
        "cache", "box", "bounds", "profiles", "cuts", "stalled" or
        "branch").

    Notes
    -----
    The time limit covers the cut loop and branch-and-bound, not the
    screening and the starting heuristics (milliseconds on meshes).

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
    if not isinstance(profiles, bool):
        raise ValueError(f"`profiles` must be True or False, got {profiles!r}")  # noqa: TRY004
    if lp_solver not in ("auto", "simplex", "ipm"):
        raise ValueError(f"`lp_solver` must be 'auto', 'simplex' or 'ipm', got {lp_solver!r}")
    if lp_solver == "auto":
        lp_solver = "simplex" if n * k <= _SIMPLEX_UP_TO else "ipm"
    if warm_start is not None and not isinstance(warm_start, ExactSession):
        raise ValueError("`warm_start` must be an ExactSession")
    if formulation == "qp" and solver in ("highs", "appsi_highs"):
        raise ValueError("formulation 'qp' is a non-convex binary quadratic program, which HiGHS does not "
                         "solve; choose an MIQP solver (e.g. solver='gurobi' or 'scip') or another formulation")
    if solver != "highs" or formulation != "auto":
        from ._pyomo import solve_formulation

        return solve_formulation(pts, k, solver=solver, formulation=formulation, time_limit=time_limit,
                                 rel_gap=rel_gap, start=start)

    key = warm_start._key(pts, k) if warm_start is not None else None
    if warm_start is not None:
        hit = warm_start.cache.get(key)
        # an optimum always serves; a bracket serves a call with no more time
        # (the same solve would run out again), and is returned as it was
        if hit is not None and (hit[1] is None or (time_limit is not None and time_limit <= hit[2])):
            warm_start.hits += 1
            where = rows_by_point(pts)
            idx = [where[p].pop(0) for p in hit[0]]  # repeated points take successive rows
            if hit[1] is None:
                return make_result(pts, idx, method="exact", start=start, status="optimal", message="cached",
                                   extra={"phase": "cache"}, exact=True)
            return make_result(pts, idx, method="exact", start=start, status="time_limit", bound=hit[1],
                               message=f"cached bracket of a solve that ran out of its {hit[2]:g} s",
                               extra={"phase": "cache"}, exact=True)

    res = _screen(pts, k, start)
    if res is None:
        res = _cut_and_branch(pts, k, start, time_limit, rel_gap, warm_start, lp_solver, max_rounds,
                              cuts_per_round, profiles, verbose)
    if warm_start is not None:
        # by key: the points of the set, the bound of a bracket (None when
        # optimal) and the time limit that produced it
        if res.status == "optimal":
            warm_start.cache[key] = ([tuple(p) for p in res.points], None, None)
        elif res.status == "time_limit" and rel_gap == 0:
            warm_start.cache[key] = ([tuple(p) for p in res.points], res.bound, time_limit)
    return res


def _lagrangian_bound(lp: _PairLP, dist: np.ndarray, k: int) -> tuple[float, np.ndarray]:
    """A lower bound from the LP's row multipliers, exact for any multipliers,
    and the Lagrangian reduced costs of the x columns.

    Every column of the pairwise LP has bounds [0, 1], so for row
    multipliers lam (free on equality rows, <= 0 on <= rows)
    ``L(lam) = b . lam + sum_j min(0, c_j - (A^T lam)_j)`` bounds the LP,
    hence the optimum, from below (Lagrangian duality), however accurate the
    solver's multipliers are.  Points fixed at 0 by reduced cost count with
    upper bound 0, so the value bounds the sets the fixings kept, those
    that could beat the incumbent; the caller combines it with the cutoff.

    Forcing x_i = 1 changes only the term of column i, from min(0, d_i) to
    d_i (d_i = -(A^T lam)_i, its reduced cost), so ``L(lam) + max(0, d_i)``
    bounds every set containing point i, as exactly as L(lam) itself: the
    caller fixes points by this test rather than by the solver's reduced
    costs, which carry its tolerances.
    """
    lam = lp.row_duals
    if lam is None or len(lam) != lp.rows:
        return -np.inf, np.zeros(lp.n)
    keys = lp.keys
    kind = keys[:, 0]
    lam = np.where(kind == lp.BASE, lam, np.minimum(lam, 0.0))
    n = lp.n
    base = np.flatnonzero(kind == lp.BASE)
    pi0 = lam[base[0]]
    mu = np.zeros(n)
    mu[keys[base[1:], 1]] = lam[base[1:]]
    # A^T lam: x columns (n) and y columns (n x n, symmetric)
    atx = np.full(n, pi0) - (k - 1) * mu
    aty = mu[:, None] + mu[None, :]
    for code, sx, sy in ((lp.UP, ((1, -1.0),), ((1, 2, 1.0),)),
                         (lp.LOW, ((1, 1.0), (2, 1.0)), ((1, 2, -1.0),)),
                         (lp.TRI, ((1, -1.0),), ((1, 2, 1.0), (1, 3, 1.0), (2, 3, -1.0)))):
        rows = np.flatnonzero(kind == code)
        if len(rows) == 0:
            continue
        lv = lam[rows]
        for col, coef in sx:
            np.add.at(atx, keys[rows, col], coef * lv)
        for c1, c2, coef in sy:
            np.add.at(aty, (keys[rows, c1], keys[rows, c2]), coef * lv)
            np.add.at(aty, (keys[rows, c2], keys[rows, c1]), coef * lv)
    bound = k * pi0 + lam[kind == lp.LOW].sum()
    bound += np.minimum(0.0, -atx)[~lp.fixed0].sum()
    bound += np.minimum(0.0, (dist - aty)[lp.iu, lp.ju]).sum()
    return float(bound), -atx


def _cut_and_branch(pts, k, start, time_limit, rel_gap, session, lp_solver, max_rounds, cuts_per_round, profiles,
                    verbose):
    n = len(pts)
    integral = is_integral(pts)
    deadline = None if time_limit is None else start + time_limit

    def time_left():
        return None if deadline is None else deadline - time.perf_counter()

    heur = [mm_inc(pts, k), gen_alg(pts, k)]
    best = min(heur, key=lambda r: r.objective)
    inc_idx, ub = best.indices, best.objective
    # each heuristic's bound already holds the neighbour and town bounds and
    # its W / guarantee
    lb = max(axis_bound(pts, k), *(r.bound for r in heur))

    def closed(lb, ub):
        if integral:
            return lb > ub - 1 + 1e-6 or lb >= ub - 1e-9
        return lb >= ub - 1e-9 * max(1.0, ub)

    def done_gap(lb, ub):
        return ub > 0 and (ub - lb) / ub <= rel_gap

    extra = {"rounds": 0, "rows": 0, "fixed": 0, "phase": "bounds", "seeded_cuts": 0, "lp_solver": lp_solver}
    # the optimum of the bounding rectangle bounds every instance inside it;
    # when one of its optimal sets fits among the points, that set is optimal
    # beyond the partition tables the box optimum is a branch-and-bound: up
    # to seconds on a nearly full rectangle (where its optimal set may fit),
    # a fraction of a second elsewhere, within the time left
    span = np.prod((pts.max(axis=0) - pts.min(axis=0) + 1).astype(float))
    tl = time_left()
    nodes = _BOX_NODES if tl is None else int(min(_BOX_NODES, _BOX_NODES_PER_SECOND * max(tl, 0.0)))
    nodes_3d = _BOX_NODES_3D if tl is None else int(min(_BOX_NODES_3D, _BOX_NODES_3D_PER_SECOND * max(tl, 0.0)))
    if n < _BOX_FILL * span:
        nodes, nodes_3d = min(nodes, BOUND_NODES), min(nodes_3d, BOUND_NODES_3D)
    box = box_start(pts, k, nodes, nodes_3d)
    if box is not None:
        lb = max(lb, box[0])
        fit = fit_in(pts, box[1])
        if fit is not None:
            extra["phase"] = "box"
            return make_result(pts, fit, method="exact", start=start, bound=box[0], status="optimal",
                               message="an optimal set of the bounding rectangle fits among the points",
                               extra=extra, exact=True)
    # None unless distinct 2D lattice points; beyond the partition tables
    # the partitions below the incumbent are listed when the bounds are
    # close (scoring up to LARGE_LIMIT of them takes about 2 s)
    near = profiles and ub > 0 and (ub - lb) / ub <= _LARGE_TABLE_GAP
    near = near and (time_left() is None or time_left() > _LARGE_TABLE_SECONDS)
    grid = _profile_setup(pts, k, ub if near else None)
    prof = _profile_bound(grid)
    if prof is not None:
        lb = max(lb, prof)
    if closed(lb, ub):
        return make_result(pts, inc_idx, method="exact", start=start, bound=ub, status="optimal",
                           message="heuristic matches a cheap bound", extra=extra, exact=True)
    if profiles and prof is not None and not done_gap(lb, ub):
        gap = (ub - prof) / ub
        below = int(np.searchsorted(grid[8], ub - 1, side="right"))  # partitions scoring below ub
        budget = max(next((sec for limit, sec in _PROFILE_SLICES if gap <= limit), 0.0),
                     next((sec for limit, sec in _PROFILE_COUNTS if below <= limit), 0.0))
        if time_left() is not None:
            budget = min(budget, time_left() / 2)
        if budget > 0:
            t0 = time.perf_counter()
            value, idx, lower = _profile_search(grid, k, ub, 10**8, budget)
            extra["profile_seconds"] = time.perf_counter() - t0
            if value is not None:
                inc_idx, ub = idx, value
            lb = max(lb, lower)
            if verbose:
                print(f"profile search ({below} partitions below the incumbent, {budget:g} s): bound {lb:g} "
                      f"incumbent {ub:g} t={time.perf_counter() - start:.2f}s", file=sys.stderr, flush=True)
            if closed(lb, ub):
                extra["phase"] = "profiles"
                return make_result(pts, inc_idx, method="exact", start=start, bound=ub, status="optimal",
                                   message="proven by the search over column and row profiles",
                                   extra=extra, exact=True)
    if done_gap(lb, ub):
        return make_result(pts, inc_idx, method="exact", start=start, bound=lb, status="feasible",
                           message=f"cheap bounds already within the requested relative gap {rel_gap:g}",
                           extra=extra, exact=True)

    race = None
    if profiles and prof is not None and _HAVE_NUMBA and (time_left() is None or time_left() > 0):
        race = _Race(grid, k, ub, lb, time_left(), closed)
    try:
        return _cut_loop(pts, k, start, time_left, closed, done_gap, lb, ub, inc_idx, extra, session, lp_solver,
                         max_rounds, cuts_per_round, integral, rel_gap, race, verbose)
    finally:
        if race is not None:
            race.finish()


def _cut_loop(pts, k, start, time_left, closed, done_gap, lb, ub, inc_idx, extra, session, lp_solver, max_rounds,
              cuts_per_round, integral, rel_gap, race, verbose):
    """Phases 3 and 4 of :func:`exact`, with the profile search in ``race``
    (or None) beside them."""
    n = len(pts)

    def join(lb, ub, inc_idx, phase):
        """Stop the search beside the LP and take its set and bound."""
        if race is None or race.joined:
            return lb, ub, inc_idx, phase
        result = race.finish()
        value, idx, lower = result if result is not None else (None, None, -math.inf)
        if value is not None and value < ub:
            inc_idx, ub = idx, value
        lb = max(lb, lower)
        extra["profile_seconds"] = race.seconds
        if race.proven.is_set() and closed(lb, ub):
            phase = "profiles"
        if verbose:
            print(f"profile search beside the LP ({race.seconds:.2f} s): bound {lb:g} incumbent {ub:g} "
                  f"t={time.perf_counter() - start:.2f}s", file=sys.stderr, flush=True)
        return lb, ub, inc_idx, phase

    if time_left() is not None and time_left() <= 0:
        # building the LP alone takes seconds on large machines
        return make_result(pts, inc_idx, method="exact", start=start, bound=lb, status="time_limit",
                           message="time limit reached; the bound is proven (the cheap bounds: no time was left "
                           "for the LP), the incumbent may not be optimal", extra=extra, exact=True)
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
    lp = _PairLP(dist, k, lp_solver)
    if race is not None:
        race.watch(lp)
    if session is not None:
        seeds = session.seeds(pts)
        lp.add_triangles(seeds)
        extra["seeded_cuts"] = int(len(seeds))
    per_round = cuts_per_round or (10 if lp_solver == "simplex" else 80) * n
    # linking rows of each point with its 2k nearest: the LP would violate
    # them first (measured: half the time of adding them on demand)
    near = np.argsort(dist, axis=1, kind="stable")[:, 1 : 2 * k + 1]
    a, b = np.repeat(np.arange(n), near.shape[1]), near.ravel()
    lp.add_up(a, b)
    lp.add_up(b, a)
    status_msg, phase, last = "", "cuts", []
    for rnd in range(max_rounds):
        tl = time_left()
        if (tl is not None and tl <= 0) or (race is not None and race.proven.is_set()):
            break
        ok, obj, v, status_msg = lp.solve(tl)
        if not ok:
            break
        extra["rounds"] = rnd + 1
        # the Lagrangian value of the LP's multipliers: a bound that does not
        # rely on the solver's tolerances.  It covers the sets the fixings
        # kept; those fixed away cost more than the cutoff.
        x, y = v[:n], v[n:]
        cutoff = (ub - 1 + 1e-6) if integral else ub
        value, dx = _lagrangian_bound(lp, dist, k)
        lb = ub if value > cutoff else max(lb, value)
        # reduced-cost fixing: a point whose inclusion costs more than the gap is out
        fix = (~lp.fixed0) & (value + np.maximum(0.0, dx) > cutoff) & (value <= cutoff)
        if fix.any():
            lp.fixed0 |= fix
            lp.fix_zero(np.flatnonzero(fix))
        # rounding: the k largest x, then swap descent
        cand, _ = swap_descent(pts, np.sort(np.argsort(-x, kind="stable")[:k]))
        w = float(weights_of_sets(pts, cand[None])[0])
        if w < ub - 1e-9:
            inc_idx, ub = cand, w
        if verbose:
            print(f"round {rnd + 1}: LP {obj:.3f} bound {lb:.3f} incumbent {ub:g} rows {lp.rows} "
                  f"fixed {int(lp.fixed0.sum())} t={time.perf_counter() - start:.2f}s", file=sys.stderr, flush=True)
        if closed(lb, ub) or done_gap(lb, ub):
            break
        lp.drop_slack(min_age=3)
        links, cuts = lp.separate(x, y, per_round, max(4, per_round // max(1, int((x > _EPS).sum()))))
        if links + cuts == 0:
            phase = "stalled"
            break
        last.append(obj)
        if len(last) >= 4 and last[-1] - last[-4] < 0.01 * max(1.0, ub - last[-1]):
            phase = "stalled"
            break
    extra.update({"rows": int(lp.rows), "fixed": int(lp.fixed0.sum()), "triangles": int(len(lp.triangles()))})
    if session is not None:
        session.remember(pts, lp.binding_triangles())
    if race is not None and race.proven.is_set():
        lb, ub, inc_idx, phase = join(lb, ub, inc_idx, phase)
    if not (closed(lb, ub) or done_gap(lb, ub)) and (time_left() is None or time_left() > 0):
        lb, ub, inc_idx, phase = _branch(lp, pts, k, lb, ub, inc_idx, time_left(), integral, rel_gap)
    lb, ub, inc_idx, phase = join(lb, ub, inc_idx, phase)
    extra["phase"] = phase
    if closed(lb, ub):
        status, bound = "optimal", ub
    else:
        timed_out = time_left() is not None and time_left() <= 0.05
        status = "time_limit" if timed_out else "feasible"
        bound = lb
    message = {
        "optimal": f"proven optimal by the {phase} phase",
        "feasible": f"stopped at the requested relative gap {rel_gap:g}" if done_gap(lb, ub)
        else f"the {phase} phase ended without closing the gap",
        "time_limit": "time limit reached; the bound is proven, the incumbent may not be optimal",
    }[status]
    if status_msg and status_msg != "Optimal" and phase != "profiles":  # the search cancels the LP
        message += f" (last HiGHS status: {status_msg})"
    return make_result(pts, inc_idx, method="exact", start=start, bound=bound, status=status,
                       message=message, extra=extra, exact=True)


def _branch(lp, pts, k, lb, ub, inc_idx, time_left, integral, rel_gap):
    """Branch-and-bound on the LP with every row found, x binary.

    Only sets better than the incumbent are sought (objective bound at the
    cutoff, points fixed by reduced cost stay out), so an infeasible MIP
    proves the incumbent optimal, and the MIP's dual bound holds for every
    set that could beat it.
    """
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
        return ub, ub, inc_idx, "branch"
    info = h.getInfo()
    if info.primal_solution_status == 2:
        cand = np.flatnonzero(np.array(h.getSolution().col_value)[:n] > 0.5)
        if len(cand) == k:
            w = float(weights_of_sets(pts, cand[None])[0])
            if w < ub:
                inc_idx, ub = cand, w
    if status == hs.HighsModelStatus.kOptimal and rel_gap == 0:
        return ub, ub, inc_idx, "branch"
    dual = info.mip_dual_bound
    if dual is not None and math.isfinite(dual):
        lb = max(lb, min(dual - 1e-7 * max(1.0, abs(dual)), cutoff))
    return lb, ub, inc_idx, "branch"


__all__ = ["exact", "ExactSession", "FORMULATIONS"]
