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

The three levels run as one iterative depth-first search, compiled by
numba when it is installed (plain Python otherwise, some hundred times
slower).  Its cost follows the number of partitions scoring below the
incumbent: on a 16 x 16 mesh with half the nodes free, 30-140 at k = 16,
180-380 at k = 20 and 500-950 at k = 24, all proven in 0.1-1.6 s (the
pairwise LP takes 2-15 s); 1500-2200 at k = 28 (0.4-3.3 s), about 4000
at k = 32 (3-21 s), and beyond that the search does not finish; on a nearly
empty machine a handful to a few thousand.  A node budget and a time limit stop it.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ._box import (
    _ascending_parts,
    _large_table,
    _scored_partitions,
)
from ._boxsearch import AVAILABLE as _HAVE_NUMBA
from ._common import (
    as_int,
    distinct_lattice,
    validate_k,
    validate_points,
    validate_positive,
)
from ._line import _window_weights

#: most steps (pairs of windows) spent on the table of column pairs of
#: :func:`_pair_windows` (a step takes a few ns compiled)
PAIR_STEPS = 5 * 10**7


def _cut_tails(gaps, caps, k, A, B, tail):  # pragma: no cover - compiled by numba when installed
    """tail[i, L]: least cost of the cuts after line i, given L points on
    lines 0..i, the later lines holding at most their caps and the points on
    lines 0..i at most A[i + 1], on the others at most B[i + 1] (inf if
    the rest cannot be placed)."""
    m = len(caps)
    tail[m - 1, :] = np.inf
    tail[m - 1, k] = 0.0
    for i in range(m - 2, -1, -1):
        for s in range(k + 1):
            best = np.inf
            if s <= A[i + 1] and k - s <= B[i + 1]:
                for v in range(min(caps[i + 1], k - s) + 1):
                    best = min(best, tail[i + 1, s + v])
            tail[i, s] = gaps[i] * s * (k - s) + best


def _now():
    """Seconds of a monotonic clock (callable from the compiled search)."""
    return time.perf_counter()


def _add_row(free, c, X, fc, i, v, seen, prev_col, prev_row, queue):  # pragma: no cover - compiled by numba when installed
    """Give row i v cells of ``X`` (free, in columns under their count c,
    tracked in ``fc``), moving the earlier rows along augmenting paths
    when a column is full; False when the rows so far admit no such
    matrix."""
    p = free.shape[0]
    for _ in range(v):
        # a column with room that row i does not use yet: take it
        done = False
        for j in range(p):
            if free[j, i] and X[j, i] == 0 and fc[j] < c[j]:
                X[j, i] = 1
                fc[j] += 1
                done = True
                break
        if done:
            continue
        # breadth-first over full columns: row i takes a cell of column j0,
        # a row i2 in it moves to column j2, ... until a column with room
        seen[:] = False
        head = tail = 0
        for j in range(p):
            if free[j, i] and X[j, i] == 0:
                seen[j] = True
                prev_col[j] = -1
                queue[tail] = j
                tail += 1
        end = -1
        while head < tail and end < 0:
            j = queue[head]
            head += 1
            for i2 in range(i):
                if X[j, i2] == 1:
                    for j2 in range(p):
                        if not seen[j2] and free[j2, i2] and X[j2, i2] == 0:
                            seen[j2] = True
                            prev_col[j2] = j
                            prev_row[j2] = i2
                            if fc[j2] < c[j2]:
                                end = j2
                                break
                            queue[tail] = j2
                            tail += 1
                    if end >= 0:
                        break
        if end < 0:
            return False
        fc[end] += 1
        j = end
        while prev_col[j] >= 0:
            X[j, prev_row[j]] = 1
            X[prev_col[j], prev_row[j]] = 0
            j = prev_col[j]
        X[j, i] = 1
    return True


def _rest_costs(vals, mult, k, cut, out):  # pragma: no cover - compiled by numba when installed
    """out[code]: least sum of the cuts between the nonzero parts of a
    sub-multiset (``code`` its mixed-radix digits over ``vals``) placed
    side by side after the others, over their orders; the cut after the
    last is not counted."""
    nv = len(vals)
    radix = np.ones(nv, dtype=np.int64)
    for t in range(1, nv):
        radix[t] = radix[t - 1] * (mult[t - 1] + 1)
    for code in range(len(out)):
        s = 0
        cnt = 0
        for t in range(nv):
            d = (code // radix[t]) % (mult[t] + 1)
            s += d * vals[t]
            cnt += d
        if cnt <= 1:
            out[code] = 0
            continue
        left = k - s
        best = np.inf
        for t in range(nv):
            if (code // radix[t]) % (mult[t] + 1) > 0:
                val = cut[left + vals[t]] + out[code - radix[t]]
                best = min(best, val)
        out[code] = best
    return radix


def _rows(free, c, wx, k, gy, cut, excess, below, total, upper, nodes, node_cap, deadline,
          rcap, tail_y, A, B, E, r, vpos, rl, rcost, X, FC, work, best_x):  # pragma: no cover - compiled by numba when installed
    """Row profiles for the column profile c (costing wx) with W below
    ``upper`` (W an integer: at most upper - 1), realised by a set.
    ``excess[t]`` is the sum of (conj_s - t)^+ over the conjugate parts:
    the rows, majorised by them (Gale-Ryser), keep sum_i (r_i - t)^+ at
    most that, for every t, already over the rows chosen so far.  The
    rows chosen so far are kept filled (``X[i]``, ``FC[i]``: the cells and
    column counts of rows 0..i-1, by :func:`_add_row`), so a prefix that
    no 0/1 matrix on the free cells realises is cut at once, and a full
    profile is a set.  Returns (upper, nodes, found, complete); a set
    found lowers upper."""
    p, q = free.shape
    used = 0
    for j in range(p):
        if c[j] > 0:
            used += 1
    for i in range(q):
        s = 0
        for j in range(p):
            if c[j] > 0 and free[j, i]:
                s += 1
        rcap[i] = min(s, used)
    # Hall's condition: rows 0..i-1 hold at most A[i] points, the rest at most B[i]
    for i in range(q + 1):
        a = 0
        b = 0
        for j in range(p):
            a += min(c[j], below[i, j])
            b += min(c[j], total[j] - below[i, j])
        A[i] = a
        B[i] = b
    if k > B[0]:
        return upper, nodes, False, True
    # the least cost of the row cuts still to come, within Hall's limits
    _cut_tails(gy, rcap, k, A, B, tail_y)
    found = False
    i = 0
    rl[0] = 0
    rcost[0] = 0.0
    E[0, :] = 0
    X[0, :, :] = 0
    FC[0, :] = 0
    seen = work[0] == 1
    prev_col, prev_row, queue = work[1], work[2], work[3]
    vpos[0] = min(rcap[0], k)
    while True:
        if vpos[i] < 0:
            r[i] = 0
            if i == 0:
                break
            i -= 1
            continue
        v = vpos[i]
        vpos[i] -= 1
        new = rl[i] + v
        if rcost[i] + tail_y[i, new] > upper - 1 - wx:
            continue
        ok = True
        for t in range(v):
            if E[i, t] + v - t > excess[t]:
                ok = False
                break
        if not ok:
            continue
        r[i] = v
        cost = rcost[i] if i == q - 1 else rcost[i] + gy[i] * cut[new]
        nodes += 1
        if nodes >= node_cap or ((nodes & 16383) == 0 and _now() > deadline[0]):
            return upper, nodes, found, False
        nxt = i + 1
        if new > A[nxt] or k - new > B[nxt]:
            continue
        X[nxt] = X[i]
        FC[nxt] = FC[i]
        if not _add_row(free, c, X[nxt], FC[nxt], i, v, seen, prev_col, prev_row, queue):
            continue
        if nxt == q:
            upper = wx + cost
            best_x[:, :] = X[q]
            found = True
            continue
        for t in range(p + 1):
            E[nxt, t] = E[i, t] + max(v - t, 0)
        rl[nxt] = new
        rcost[nxt] = cost
        vpos[nxt] = min(rcap[nxt], k - new)
        i = nxt
    return upper, nodes, found, True


def _pair_windows(free, ys, m, out):  # pragma: no cover - compiled by numba when installed
    """out[j, j2, a, b]: least sum of |y_s - y_t| over a window of a
    consecutive free cells of column j and one of b of column j2 (left as
    it is where either has too few free cells).  Every optimal set takes
    a window of free cells in each column (see the module docstring), so
    this bounds the pairs across two placed columns; windows of the
    table D of distances are rectangles of its 2D prefix sums."""
    p, q = free.shape
    Y = np.zeros((p, q))
    cnt = np.zeros(p, dtype=np.int64)
    for j in range(p):
        for i in range(q):
            if free[j, i]:
                Y[j, cnt[j]] = ys[i]
                cnt[j] += 1
    P = np.zeros((q + 1, q + 1))
    for j in range(p):
        for j2 in range(j + 1, p):
            f, f2 = cnt[j], cnt[j2]
            for u in range(f):
                for v in range(f2):
                    P[u + 1, v + 1] = P[u, v + 1] + P[u + 1, v] - P[u, v] + abs(Y[j, u] - Y[j2, v])
            for a in range(1, min(m, f) + 1):
                for b in range(1, min(m, f2) + 1):
                    best = np.inf
                    for s in range(f - a + 1):
                        for t in range(f2 - b + 1):
                            w = P[s + a, t + b] - P[s, t + b] - P[s + a, t] + P[s, t]
                            best = min(best, w)
                    out[j, j2, a, b] = best
                    out[j2, j, b, a] = best


def _target(free, capx, below, gx, gy, k, cut, tail_x, counts, score, score_y, own, later, cross, pair,
            upper, node_cap, deadline, best_x):  # pragma: no cover - compiled by numba when installed
    """Every set of W below ``upper`` over the partitions in score order,
    ``upper`` dropping with each set found (kept in ``best_x``).  Returns
    (best W or inf, nodes, complete).

    Besides arr(lambda'), W_y has a bound that sees the busy cells of the
    columns: the pairs within column j cost at least ``own[j, c_j]``, the
    least W of c_j of its free y values, and the pairs across columns j, j'
    at least ``cross[c_j, c_j']`` (distinct rows, at unit spacing or more).
    So W_y is at least the sum of cross over the pairs of parts plus the
    own values of the columns placed plus, for the parts still to place,
    the least own value over the columns to come (``later``).  Two placed
    columns j, j' of a set that takes a window of free cells in each
    column, as every optimal set does, cost at least
    ``pair[j, j', c_j, c_j']`` across, which sees where their free cells
    are (rows free in one column and busy in the other misalign the two),
    instead of ``cross``."""
    p, q = free.shape
    max_part = counts.shape[1]
    best = np.inf
    nodes = 0
    vals = np.zeros(max_part + 1, dtype=np.int64)
    mult = np.zeros(max_part + 1, dtype=np.int64)
    c = np.zeros(p, dtype=np.int64)
    chosen = np.zeros(p, dtype=np.int64)
    tpos = np.zeros(p + 1, dtype=np.int64)
    lefts = np.zeros(p + 1, dtype=np.int64)
    codes = np.zeros(p + 1, dtype=np.int64)
    ccost = np.zeros(p + 1)
    conj = np.zeros(max_part, dtype=np.int64)
    excess = np.zeros(p + 1, dtype=np.int64)
    E = np.zeros((q + 1, p + 1), dtype=np.int64)
    rcap = np.zeros(q, dtype=np.int64)
    tail_y = np.empty((q, k + 1))
    A = np.zeros(q + 1, dtype=np.int64)
    B = np.zeros(q + 1, dtype=np.int64)
    r = np.zeros(q, dtype=np.int64)
    vpos = np.zeros(q + 1, dtype=np.int64)
    rl = np.zeros(q + 1, dtype=np.int64)
    rcost = np.zeros(q + 1)
    X = np.zeros((q + 1, p, q), dtype=np.int8)
    FC = np.zeros((q + 1, p), dtype=np.int64)
    work = np.zeros((4, p), dtype=np.int64)
    wsum = np.zeros(p + 1)  # pairs across the parts + own spread of the columns placed
    for pi in range(len(score)):
        if score[pi] > upper - 1:
            break
        # the parts as distinct values (ascending, 0 for the empty columns)
        # with multiplicities, and the conjugate partition
        nparts = 0
        nv = 0
        if counts[pi].sum() < p:
            vals[0] = 0
            mult[0] = p - counts[pi].sum()
            nv = 1
        for v in range(1, max_part + 1):
            m = counts[pi, v - 1]
            if m > 0:
                vals[nv] = v
                mult[nv] = m
                nv += 1
                nparts += m
        # conj[t]: columns with more than t points; excess[t] = sum (conj - t)^+
        for t in range(max_part):
            conj[t] = nparts
            nparts -= counts[pi, t]
        for t in range(p + 1):
            e = 0
            for s in range(max_part):
                e += max(conj[s] - t, 0)
            excess[t] = e
        size = 1
        for t in range(nv):
            if vals[t] > 0:
                size *= mult[t] + 1
        # least cost of the cuts between the parts not placed yet (0 when
        # the table would be too large: a weaker bound, still valid)
        nz0 = 1 if vals[0] == 0 else 0
        if size <= 1 << 16:
            rest = np.zeros(size)
            radix = _rest_costs(vals[nz0:nv], mult[nz0:nv], k, cut, rest)
        else:
            rest = np.zeros(1)
            radix = np.zeros(nv - nz0, dtype=np.int64)
        score_rows = score_y[pi]
        pairs = 0.0
        for t in range(nv):
            if vals[t] > 0:
                pairs += mult[t] * (mult[t] - 1) / 2 * cross[vals[t], vals[t]]
                for u in range(t + 1, nv):
                    pairs += mult[t] * mult[u] * cross[vals[t], vals[u]]
        wsum[0] = pairs
        # the column profiles ordering the parts, depth-first, larger parts first
        j = 0
        lefts[0] = 0
        ccost[0] = 0.0
        codes[0] = size - 1 if size <= 1 << 16 else 0
        tpos[0] = nv - 1
        while j >= 0:
            if j == p:
                upper, nodes, found, complete = _rows(free, c, ccost[p], k, gy, cut, excess, below, capx, upper,
                                                      nodes, node_cap, deadline, rcap, tail_y, A, B, E, r, vpos,
                                                      rl, rcost, X, FC, work, best_x)
                if found:
                    best = upper
                if not complete:
                    return best, nodes, False
                j -= 1
                mult[chosen[j]] += 1
                c[j] = 0
                continue
            descended = False
            while tpos[j] >= 0:
                t = tpos[j]
                tpos[j] -= 1
                v = vals[t]
                if mult[t] == 0 or v > capx[j]:
                    continue
                new = lefts[j] + v
                code = codes[j]
                if v > 0:
                    code -= radix[t - nz0]
                after = 0.0
                if new < k:
                    after = cut[new] + rest[code]
                xlow = ccost[j] + max(tail_x[j, new], after)
                if xlow > upper - 1 - score_rows:
                    continue
                # W_y from the spread within the columns, placed and to come
                across = 0.0
                if v > 0:
                    for j2 in range(j):
                        if c[j2] > 0:
                            across += pair[j2, j, c[j2], v] - cross[c[j2], v]
                ylow = wsum[j] + own[j, v] + across
                for u in range(nv):
                    m = mult[u] - 1 if u == t else mult[u]
                    if vals[u] > 0 and m > 0:
                        ylow += m * later[j + 1, vals[u]]
                if xlow + ylow > upper - 1:
                    continue
                nodes += 1
                if nodes >= node_cap or ((nodes & 16383) == 0 and _now() > deadline[0]):
                    return best, nodes, False
                mult[t] -= 1
                c[j] = v
                chosen[j] = t
                wsum[j + 1] = wsum[j] + own[j, v] + across
                lefts[j + 1] = new
                codes[j + 1] = code
                ccost[j + 1] = ccost[j] if j == p - 1 else ccost[j] + gx[j] * cut[new]
                j += 1
                tpos[j] = nv - 1
                descended = True
                break
            if not descended:
                j -= 1
                if j >= 0:
                    mult[chosen[j]] += 1
                    c[j] = 0
    return best, nodes, True


if _HAVE_NUMBA:  # pragma: no cover - exercised when numba is installed
    from numba import njit, objmode

    @njit(cache=True)
    def _now():
        with objmode(t="float64"):
            t = time.perf_counter()
        return t

    _cut_tails = njit(cache=True)(_cut_tails)
    _rest_costs = njit(cache=True)(_rest_costs)
    _add_row = njit(cache=True)(_add_row)
    _pair_windows = njit(cache=True)(_pair_windows)
    _rows = njit(cache=True)(_rows)
    # without the GIL: exact runs the search in a thread beside the LP
    _target = njit(cache=True, nogil=True)(_target)


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
    search stops after ``node_limit`` nodes (compiled: about a million
    per second) or ``time_limit`` seconds.  Returns None when the points are not distinct 2D lattice points or the
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


def _spread_tables(ys, free, k, max_part):
    """Tables of the column bound on W_y (see :func:`_target`).

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
            own[j, v] = _window_weights(col, v).min()
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


def _search(setup, k, upper, node_limit, time_limit, deadline=None, known=-math.inf):
    """:func:`profile_search` on the grid of :func:`_setup` (checked input).

    ``deadline``, a one-element array of :func:`time.perf_counter` time
    (made when not given), stops the search once the clock passes it (and
    ``time_limit`` brings it forward); another thread may set it to -inf
    to stop the search within some 16,000 nodes.  ``known``, a proven lower
    bound on the optimum (an earlier, stopped search's), is where the
    deepening starts when it is above the least score."""
    xs, xi, ys, yi, free, capx, _, counts, score, score_y, rest = setup
    # a table cut at ``rest`` lists every partition below it, not above:
    # the search is complete only up to there
    upper = min(float(upper), rest)
    p, q = free.shape
    gx, gy = np.diff(xs).astype(float), np.diff(ys).astype(float)
    s = np.arange(k + 1)
    cut = (s * (k - s)).astype(float)
    capx = capx.astype(np.int64)  # free cells of each column
    no_limit = np.full(p + 1, k, dtype=np.int64)
    tail_x = np.empty((p, k + 1))
    _cut_tails(gx, capx, k, no_limit, no_limit, tail_x)
    below = np.zeros((q + 1, p), dtype=np.int64)  # free cells of each column in the rows before
    below[1:] = np.cumsum(free.T, axis=0)
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    score, score_y = np.asarray(score, dtype=float), np.asarray(score_y, dtype=float)
    own, later, cross = _spread_tables(ys, free, k, counts.shape[1])
    # the table of column pairs costs a step per pair of windows (2e5 on
    # 16 x 16 half free): compiled, and up to PAIR_STEPS; otherwise two
    # columns cost what two aligned blocks do
    pair = np.broadcast_to(cross, (p, p) + cross.shape).copy()
    sizes = np.minimum(capx, counts.shape[1])
    wins = sizes * (capx + 1) - sizes * (sizes + 1) / 2  # windows of 1..sizes cells per column
    if _HAVE_NUMBA and (wins.sum() ** 2 - (wins**2).sum()) / 2 <= PAIR_STEPS:
        _pair_windows(free, ys.astype(float), counts.shape[1], pair)
    if deadline is None:
        deadline = np.array([math.inf])
    if time_limit is not None:
        deadline[0] = min(deadline[0], time.perf_counter() + time_limit)
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
        value, nodes, complete = _target(free, capx, below, gx, gy, int(k), cut, tail_x,
                                         counts, score, score_y, own, later, cross, pair, float(target),
                                         int(node_limit - used), deadline, best_x)
        used += int(nodes)
        if value < math.inf:
            found = float(value)
        if not complete:
            break
        # below target: none, or the best set found (the search went on below it)
        lower = float(target) if found is None else found
        step *= 2
    if found is None:
        return None, None, lower
    cols, rows = np.nonzero(best_x)
    code = {(int(a), int(b)): t for t, (a, b) in enumerate(zip(xi, yi))}
    idx = np.sort([code[(int(a), int(b))] for a, b in zip(cols, rows)])
    return found, idx, lower


__all__ = ["profile_bound", "profile_search"]
