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
   columns, with W_x(c) + arr(lambda') below the target, and W_x(c) plus
   a second bound on W_y that sees the busy cells (the spread of each
   column's own free cells, and for two placed columns the least cross
   sum of a window of consecutive free cells of each; see
   :func:`_target`);
3. row profiles r with W_y(r) below what is left, majorised by lambda'
   (checked as the rows are chosen), each row at most its free cells
   among the used columns, and the rows chosen so far realised by a 0/1
   matrix on the free cells: each new row is filled at once, moving the
   earlier rows along augmenting paths when a column is full, so a prefix
   no set realises is cut where it appears, and a full profile is a set.

Every optimal set takes a window of consecutive free cells in each column
(and in each row): if a free cell u of a column lay between its lowest
chosen cell lo and highest hi without being chosen, then with G(y) the
(convex) sum of |y - y_b| over the other chosen points but lo and hi,
swapping hi for u changes W by G(u) - G(hi) - (hi - u) and swapping lo
for u by G(u) - G(lo) - (u - lo); for u = t lo + (1 - t) hi the
t-weighted sum of the two is at most -2 t (1 - t) (hi - lo) < 0, so one
swap makes the set lighter.  The bounds of level 2 hold for such sets,
which include every optimal one, so the search's answers stand.

Only sets cheaper than the incumbent are sought, and the target drops with
each set found, so a search that finishes proves its best set optimal.
Rows 0..i-1 of a profile hold at most ``sum_j min(c_j, free cells of
column j in them)`` points (Hall's condition), and so do the rows from i
on: both checks cost O(1) per node once tabulated for c.

The three levels run as one iterative depth-first search
(:mod:`._profilesearch`), compiled by numba.  Its cost follows the number of partitions
scoring below the incumbent: on a 16 x 16 mesh with half the nodes free,
30-140 at k = 16, 180-380 at k = 20, 500-950 at k = 24, 1500-2200 at
k = 28 and about 4000 at k = 32, beyond which the search does not finish;
on a nearly empty machine a handful to a few thousand.  A node budget and a
time limit stop it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._common import (
    as_int,
    distinct_lattice,
    rows_of_cells,
    validate_k,
    validate_points,
    validate_positive,
)
from ..special import window_weights
from ._box import (
    _ascending_parts,
    _large_table,
    _scored_partitions,
)
from ._profilesearch import ProfileTables, TargetRun, _cut_tails, _pair_windows, _target, deadline_array

#: most steps (pairs of windows) spent on the table of column pairs of
#: :func:`._profilesearch._pair_windows`
PAIR_STEPS = 5 * 10**7


@dataclass(frozen=True, eq=False)
class ProfileGrid:
    """The points on their grid and the partitions of k that fit it: what
    :func:`profile_grid` returns and :func:`profile_search_grid` reads."""

    #: the distinct x values, and each point's index among them
    xs: np.ndarray
    xi: np.ndarray
    #: the distinct y values, and each point's index among them
    ys: np.ndarray
    yi: np.ndarray
    #: free[j, i]: a point at (xs[j], ys[i])
    free: np.ndarray
    #: the free cells of each column
    capx: np.ndarray
    #: the partitions in score order (counts[:, v - 1]: parts equal to v),
    #: their scores arr(lambda) + arr(lambda') and the arr(lambda') part
    counts: np.ndarray
    score: np.ndarray
    score_y: np.ndarray
    #: every partition left out scores at least this (infinity when none is)
    rest: float


def profile_grid(points, k, upper=None) -> ProfileGrid | None:
    """The grid of the points and the partitions that fit its columns, or
    None when the search does not apply (bad input raises ValueError).

    Beyond the tables (``LIMIT`` partitions) and up to ``LARGE_LIMIT``,
    with ``upper`` given, only the partitions scoring below ``upper`` are
    kept; ``rest`` is then ``upper`` (every partition left out scores at
    least that), else infinity."""
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
        all_counts, all_score, all_score_y = large
        m = int(np.searchsorted(all_score, rest, side="left"))  # scores below upper
        counts, score, score_y = all_counts[:m], all_score[:m], all_score_y[:m]
        parts_desc = _ascending_parts(counts, max_parts)[:, ::-1]
    # the parts must fit the column capacities: the j-th largest part at
    # most the j-th largest capacity
    caps_desc = np.sort(capx)[::-1][:max_parts]
    ok = (parts_desc <= caps_desc[None, :]).all(axis=1)
    counts, score, score_y = counts[ok], score[ok], score_y[ok]
    return ProfileGrid(xs, xi, ys, yi, free, capx, counts, score, score_y, rest)


def profile_bound(points: np.ndarray, k: int):
    """The least partition score of the points (a lower bound on their
    optimum, at least the box bound of their bounding rectangle), or None
    when :func:`profile_search` does not apply."""
    return profile_bound_grid(profile_grid(points, k))


def profile_bound_grid(grid: ProfileGrid | None):
    """:func:`profile_bound` of a :func:`profile_grid` result."""
    if grid is None:
        return None
    score = grid.score
    return float(min(np.ceil(score[0]) if len(score) else math.inf, grid.rest))


def profile_search(points: np.ndarray, k: int, upper: float, *, node_limit: int = 5_000_000,
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
    partitions of k to score number more than ``LARGE_LIMIT`` (beyond
    ``LIMIT`` only those scoring below ``upper`` are listed, which is all
    the search needs).
    """
    upper = float(upper)
    if math.isnan(upper):
        raise ValueError("`upper` must be a number, got nan")
    grid = profile_grid(points, k, upper)
    if grid is None:
        return None
    node_limit = as_int(node_limit, "node_limit")
    if node_limit < 1:
        raise ValueError(f"`node_limit` must be at least 1, got {node_limit}")
    time_limit = validate_positive(time_limit, "time_limit")
    return profile_search_grid(grid, int(k), upper, node_limit, time_limit)


def _spread_tables(ys, free, k, max_part):
    """Tables of the column bound on W_y (see :func:`._profilesearch._target`).

    ``own[j, v]``: least W of v of the free y values of column j (a window
    of consecutive free cells; inf beyond its free cells); ``later[j, v]``:
    the least of ``own[i, v]`` over columns i >= j; ``cross[a, b]``: least
    sum of |s - t| over a distinct integers s and b distinct integers t
    (the shorter block centred in the longer one)."""
    p = free.shape[0]
    own = np.full((p, k + 1), np.inf)
    own[:, 0] = 0.0
    for j in range(p):
        col = ys[free[j]].astype(float)
        if len(col):
            own[j, 1] = 0.0
        for v in range(2, min(len(col), k) + 1):
            own[j, v] = window_weights(col, v).min()
    later = np.full((p + 1, k + 1), np.inf)
    later[p, 0] = 0.0
    for j in range(p - 1, -1, -1):
        later[j] = np.minimum(later[j + 1], own[j])
    idx = np.arange(max_part + 1)
    cross = np.zeros((max_part + 1, max_part + 1))
    for a in range(1, max_part + 1):
        for b in range(1, a + 1):
            t = (a - b) // 2 + np.arange(b)
            cross[a, b] = cross[b, a] = np.abs(idx[:a, None] - t[None, :]).sum()
    return own, later, cross


def profile_search_grid(grid: ProfileGrid, k, upper, node_limit, time_limit, deadline=None, known=-math.inf):
    """:func:`profile_search` on the grid of :func:`profile_grid` (checked input).

    ``deadline``, a one-element array of :func:`time.perf_counter` time
    (made when not given), stops the search once the clock passes it (and
    ``time_limit`` brings it forward); another thread may set it to -inf
    to stop the search within some 16,000 nodes.  ``known``, a proven lower
    bound on the optimum (an earlier, stopped search's), is where the
    deepening starts when it is above the least score."""
    xs, ys, free = grid.xs, grid.ys, grid.free
    # a table cut at ``rest`` lists every partition below it, not above:
    # the search is complete only up to there
    upper = min(float(upper), grid.rest)
    p, q = free.shape
    gx, gy = np.diff(xs).astype(float), np.diff(ys).astype(float)
    s = np.arange(k + 1)
    cut = (s * (k - s)).astype(float)
    capx = grid.capx.astype(np.int64)  # free cells of each column
    no_limit = np.full(p + 1, k, dtype=np.int64)
    tail_x = np.empty((p, k + 1))
    _cut_tails(gx, capx, k, no_limit, no_limit, tail_x)
    below = np.zeros((q + 1, p), dtype=np.int64)  # free cells of each column in the rows before
    below[1:] = np.cumsum(free.T, axis=0)
    counts = np.ascontiguousarray(grid.counts, dtype=np.int64)
    score, score_y = np.asarray(grid.score, dtype=float), np.asarray(grid.score_y, dtype=float)
    own, later, cross = _spread_tables(ys, free, k, counts.shape[1])
    # the table of column pairs costs a step per pair of windows (2e5 on
    # 16 x 16 half free): up to PAIR_STEPS; beyond, two columns cost what
    # two aligned blocks do
    pair = np.broadcast_to(cross, (p, p) + cross.shape).copy()
    sizes = np.minimum(capx, counts.shape[1])
    wins = sizes * (capx + 1) - sizes * (sizes + 1) / 2  # windows of 1..sizes cells per column
    if (wins.sum() ** 2 - (wins**2).sum()) / 2 <= PAIR_STEPS:
        _pair_windows(free, ys.astype(float), counts.shape[1], pair)
    deadline = deadline_array(time_limit, deadline)
    tables = ProfileTables(free, capx, below, gx, gy, int(k), cut, tail_x, counts, score, score_y, own, later, cross,
                           pair)
    best_x = np.zeros((p, q), dtype=np.int8)
    found = None
    # iterative deepening: the search below a target near the bound is
    # narrow, and a target searched without a set proves that bound
    lower = float(np.ceil(score[0])) if len(score) else float(upper)
    lower = max(lower, min(float(np.ceil(known - 1e-6)), float(upper)))  # W is an integer
    step, used = 1.0, 0
    while found is None and lower < upper and used < node_limit:
        # the last step goes to upper at once rather than just below it (a
        # search to just below upper costs nearly as much as one to upper)
        target = float(upper) if lower + 2 * step > upper else lower + step
        res = _target(tables, float(target), TargetRun(int(node_limit - used), deadline, best_x))
        used += int(res.nodes)
        if res.value < math.inf:
            found = float(res.value)
        if not res.complete:
            break
        # below target: none, or the best set found (the search went on below it)
        lower = float(target) if found is None else found
        step *= 2
    if found is None:
        return None, None, lower
    cols, rows = np.nonzero(best_x)
    idx = rows_of_cells(np.column_stack([grid.xi, grid.yi]), zip(cols, rows))
    return found, idx, lower


__all__ = ["profile_bound", "profile_search"]
