"""Exact search over column and row profiles, for 2D lattice points.

For a set S of k points of the plane, let c be its *column profile* (how
many points lie in each of the distinct x values, left to right) and r its
*row profile*.  The L1 sum splits exactly into two one-dimensional sums::

    W(S) = W_x(c) + W_y(r),   W_x(c) = sum over t of g_t L_t (k - L_t),

with g_t the gap between the t-th and (t+1)-th distinct x values and L_t
the points left of it.  So the least W over the free points is the least
``W_x(c) + W_y(r)`` over the pairs (c, r) realised by some set of free
points: a 0/1 matrix supported on the free cells with column sums c and
row sums r, which is a bipartite flow problem.

The search enumerates the candidates in three nested levels, each pruned
by a bound that holds for every set below it (see :mod:`._box`):

1. partitions lambda of k (the column counts as a multiset), scored by
   ``arr(lambda) + arr(lambda')``; every S with that multiset costs at
   least the score (the rows of a 0/1 matrix with those column sums are
   majorised by lambda', Gale-Ryser);
2. column profiles c ordering lambda (and the empty columns) into the
   columns, with W_x(c) + arr(lambda') below the target;
3. row profiles r with W_y(r) below what is left, majorised by lambda',
   each row at most its free cells among the used columns;

and each surviving pair is checked by a maximum flow.  Only sets cheaper
than the incumbent are sought, and the target drops with each set found,
so a search that finishes proves its best set optimal.  It is fast when
the lambda scores are close to the incumbent -- a nearly empty machine,
where the pairwise LP stalls on symmetric optima -- and hopeless on sparse
free sets, where the scores are far below it; a node budget stops it.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ._box import (
    _ascending_parts,
    _conjugate_ascending,
    _large_table,
    _scored_partitions,
)
from ._common import (
    as_int,
    distinct_lattice,
    validate_k,
    validate_points,
    validate_positive,
)


class _Budget(Exception):
    """The node budget ran out."""


def _tail_costs(gaps: np.ndarray, caps: np.ndarray, k: int) -> np.ndarray:
    """tail[i, L]: least cost of the cuts after line i, given L points on
    lines 0..i, the later lines holding at most their caps (inf if the
    rest cannot be placed)."""
    m = len(caps)
    s = np.arange(k + 1)
    tail = np.full((m, k + 1), np.inf)
    tail[m - 1, k] = 0.0
    for i in range(m - 2, -1, -1):
        nxt = tail[i + 1]
        best = np.full(k + 1, np.inf)
        for v in range(min(int(caps[i + 1]), k) + 1):
            best[: k + 1 - v] = np.minimum(best[: k + 1 - v], nxt[v:])
        tail[i] = gaps[i] * s * (k - s) + best
    return tail


def _flow_set(free: np.ndarray, c: np.ndarray, r: np.ndarray):
    """Cells (column, row) of a 0/1 matrix on the free cells with column
    sums c and row sums r, or None."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow

    cols, rows = np.nonzero(free & (c[:, None] > 0) & (r[None, :] > 0))
    p, q = free.shape
    src, sink = p + q, p + q + 1
    tail = np.concatenate((np.full(p, src), cols, p + np.arange(q)))
    head = np.concatenate((np.arange(p), p + rows, np.full(q, sink)))
    cap = np.concatenate((c, np.ones(len(cols), dtype=np.int64), r)).astype(np.int32)
    graph = csr_matrix((cap, (tail, head)), shape=(p + q + 2, p + q + 2))
    flow = maximum_flow(graph, src, sink)
    if flow.flow_value < c.sum():
        return None
    f = flow.flow.tocsr()
    used = np.asarray(f[cols, p + rows]).ravel() > 0
    return cols[used], rows[used]


def _setup(points, k, upper=None):
    """The grid of the points and the partitions that fit its columns, or
    None when the search does not apply (bad input raises ValueError).

    Beyond the tables (``LIMIT`` partitions) and up to ``LARGE_LIMIT``,
    with ``upper`` given and numba installed, only the partitions scoring
    below ``upper`` are kept; the last entry of the result, ``rest``, is
    then ``upper`` (every partition left out scores at least that), else
    infinity."""
    pts = validate_points(points)
    k = validate_k(k, len(pts))
    if pts.shape[1] != 2 or not distinct_lattice(pts):
        return None
    pts = pts.astype(np.int64)
    xs, xi = np.unique(pts[:, 0], return_inverse=True)
    ys, yi = np.unique(pts[:, 1], return_inverse=True)
    p, q = len(xs), len(ys)
    free = np.zeros((p, q), dtype=bool)
    free[xi, yi] = True
    capx = free.sum(axis=1)
    max_part, max_parts = int(min(capx.max(), k)), int(min(p, k))
    scored = _scored_partitions(k, max_part, max_parts)
    rest = math.inf
    if scored is not None:
        counts, parts_desc, score, score_y = scored
    else:
        large = None if upper is None else _large_table(k, max_part, max_parts)
        if large is None:
            return None
        rest = float(upper)
        m = int(np.searchsorted(large[1], rest, side="left"))  # scores below upper
        counts, score, score_y = large[0][:m], large[1][:m], large[2][:m]
        parts_desc = _ascending_parts(counts, max_parts)[:, ::-1]
    # the parts must fit the column capacities: the j-th largest part at
    # most the j-th largest capacity
    caps_desc = np.sort(capx)[::-1][:max_parts]
    ok = (parts_desc <= caps_desc[None, :]).all(axis=1)
    counts, score, score_y = counts[ok], score[ok], score_y[ok]
    return xs, xi, ys, yi, free, capx, max_part, counts, score, score_y, rest


def profile_bound(points: np.ndarray, k: int):
    """The least partition score of the points (a lower bound on their
    optimum, at least the box bound of their bounding rectangle), or None
    when :func:`profile_search` does not apply."""
    return _bound(_setup(points, k))


def _bound(setup):
    """:func:`profile_bound` of a :func:`_setup` result."""
    if setup is None:
        return None
    score, rest = setup[8], setup[10]
    return float(min(np.ceil(score[0]) if len(score) else math.inf, rest))


def profile_search(points: np.ndarray, k: int, upper: float, *, node_limit: int = 200_000,
                   time_limit: float | None = None):
    """Least W below ``upper`` over k of ``points`` (distinct 2D integer
    points), with a proven lower bound.

    Returns ``(value, indices, lower)``: the best set found below ``upper``
    (None, None when none was found) and a proven lower bound on the
    optimum.  The search raises its target from the least partition score
    (iterative deepening); a target searched to the end without a set
    proves the optimum at least that target, so ``lower >= value`` (or
    ``lower >= upper`` when nothing was found) proves optimality.  The
    search stops after ``node_limit`` nodes or ``time_limit`` seconds.
    Returns None when the points are not distinct 2D lattice points or the
    partitions of k to score number more than ``LIMIT`` (``LARGE_LIMIT``
    when numba is installed: then only those scoring below ``upper`` are
    listed, which is all the search needs).
    """
    upper = float(upper)
    if math.isnan(upper):
        raise ValueError("`upper` must be a number, got nan")
    setup = _setup(points, k, upper)
    if setup is None:
        return None
    node_limit = as_int(node_limit, "node_limit")
    if node_limit < 1:
        raise ValueError(f"`node_limit` must be at least 1, got {node_limit}")
    time_limit = validate_positive(time_limit, "time_limit")
    return _search(setup, int(k), upper, node_limit, time_limit)


def _search(setup, k, upper, node_limit, time_limit):
    """:func:`profile_search` on the grid of :func:`_setup` (checked input)."""
    xs, xi, ys, yi, free, capx, max_part, counts, score, score_y, rest = setup
    # a table cut at ``rest`` lists every partition below it, not above:
    # the search is complete only up to there
    upper = min(float(upper), rest)
    p, q = free.shape
    gx, gy = np.diff(xs), np.diff(ys)
    tail_x = _tail_costs(gx, capx, k)
    cut = np.arange(k + 1) * (k - np.arange(k + 1))
    state = {"upper": upper, "best": None, "nodes": 0}
    memo: dict = {}  # rest_cost by (part values, multiplicities left)
    deadline = None if time_limit is None else time.perf_counter() + time_limit

    def tick():
        state["nodes"] += 1
        if state["nodes"] > node_limit:
            raise _Budget
        if deadline is not None and state["nodes"] % 512 == 0 and time.perf_counter() > deadline:
            raise _Budget

    capx_l, gx_l, gy_l, cut_l = capx.tolist(), gx.tolist(), gy.tolist(), cut.tolist()
    tail_x_l = tail_x.tolist()
    col_free = free.T.astype(np.int64)  # col_free[i]: free cells of row i, by column
    total = free.sum(axis=1)

    def rows_for(c, wx, conj_prefix):
        """Row profiles for the column profile c (costing wx), majorised by
        the conjugate of its parts (prefix sums ``conj_prefix``)."""
        used = c > 0
        rcap = np.minimum(free[used].sum(axis=0), int(used.sum()))
        tail_y = _tail_costs(gy, rcap, k).tolist()
        rcap = rcap.tolist()
        r = [0] * q
        # Hall's condition for the rows done and for the rows left: the
        # points of a set of rows R are at most sum_j min(c_j, free cells
        # of column j in R)
        seen = np.zeros(p, dtype=np.int64)

        def dfs(i, left, cost):
            tick()
            if left > np.minimum(c, seen).sum() or k - left > np.minimum(c, total - seen).sum():
                return
            if i == q:
                run = 0
                for t, v in enumerate(sorted(r, reverse=True)[: len(conj_prefix)]):
                    run += v
                    if run > conj_prefix[t]:
                        return
                cells = _flow_set(free, c, np.array(r))
                if cells is not None:
                    state["upper"] = wx + cost
                    state["best"] = (float(wx + cost), cells)
                return
            budget = state["upper"] - 1 - wx
            last = i == q - 1
            for v in range(min(rcap[i], k - left), -1, -1):
                new = left + v
                # the cuts from here on (this one included) at their least
                if cost + tail_y[i][new] > budget:
                    continue
                r[i] = v
                np.add(seen, col_free[i], out=seen)
                dfs(i + 1, new, cost if last else cost + gy_l[i] * cut_l[new])
                np.subtract(seen, col_free[i], out=seen)
            r[i] = 0

        dfs(0, 0, 0)

    def columns_for(lam, conj_prefix, arr_conj):
        """Column profiles ordering lam and the empty columns, then their rows."""
        values, mult = np.unique(np.concatenate((lam, np.zeros(p - len(lam), dtype=np.int64))), return_counts=True)
        values, mult = values.tolist(), mult.tolist()
        c = [0] * p
        vkey = tuple(values)

        def rest_cost(left):
            """Least sum of the cuts between the nonzero parts left in
            ``mult`` (placed after ``left`` points), over their orders."""
            key = (vkey, tuple(mult))
            found = memo.get(key)
            if found is not None:
                return found
            best = 0
            if sum(m for v, m in zip(values, mult) if v) > 1:
                best = None
                for t, v in enumerate(values):
                    if v and mult[t]:
                        mult[t] -= 1
                        val = cut_l[left + v] + rest_cost(left + v)
                        mult[t] += 1
                        best = val if best is None or val < best else best
            memo[key] = best
            return best

        def dfs(j, left, cost):
            tick()
            if j == p:
                rows_for(np.array(c), cost, conj_prefix)
                return
            budget = state["upper"] - 1 - arr_conj
            last = j == p - 1
            for t in range(len(values) - 1, -1, -1):
                v = values[t]
                if mult[t] == 0 or v > capx_l[j]:
                    continue
                new = left + v
                mult[t] -= 1
                # the later cuts at their least: by the capacities, or by the
                # order of the parts left (cut after this column included)
                more = new < k
                bound = cost + max(tail_x_l[j][new], (cut_l[new] + rest_cost(new)) if more else 0)
                if bound <= budget:
                    c[j] = v
                    dfs(j + 1, new, cost if last else cost + gx_l[j] * cut_l[new])
                mult[t] += 1
            c[j] = 0

        dfs(0, 0, 0)

    def search(target):
        """Every set of W below ``target`` (the best one kept, ``state['upper']`` tightening)."""
        state["upper"] = float(target)
        for i in range(len(score)):
            if score[i] > state["upper"] - 1:
                break
            lam = np.repeat(np.arange(1, max_part + 1), counts[i])[::-1]
            conj = _conjugate_ascending(counts[i : i + 1])[0][::-1]
            columns_for(lam, np.cumsum(conj[conj > 0]).tolist(), float(score_y[i]))

    # iterative deepening: the search below a target near the bound is
    # narrow, and a target searched without a set proves that bound
    lower = float(np.ceil(score[0])) if len(score) else float(upper)
    step = 1.0
    try:
        while state["best"] is None and lower < upper:
            target = min(lower + step, float(upper))
            search(target)
            # below target: none, or the best set found (the search went on below it)
            lower = float(target) if state["best"] is None else state["best"][0]
            step *= 2
    except _Budget:
        pass
    if state["best"] is None:
        return None, None, lower
    value, (cols, rows) = state["best"]
    code = {(int(a), int(b)): t for t, (a, b) in enumerate(zip(xi, yi))}
    idx = np.sort([code[(int(a), int(b))] for a, b in zip(cols, rows)])
    return float(value), idx, lower


__all__ = ["profile_bound", "profile_search"]
