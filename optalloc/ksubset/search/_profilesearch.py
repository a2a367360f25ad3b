"""The compiled loops of the profile search (see :mod:`._profile`).

:func:`_target` walks the partitions in score order and, below each, the
column profiles; :func:`_rows` the row profiles of one column profile,
keeping the rows chosen so far filled by :func:`_add_row`.
:func:`_cut_tails`, :func:`_rest_costs` and :func:`_pair_windows` build
the tables their bounds read.  All are compiled by numba; :func:`_target`
runs without the GIL, so that :func:`.exact` can run the search in a
thread beside the LP.

What travels between them is named: :class:`ProfileTables` (the grid and
the tables of one search, read only), :class:`TargetRun` (one target's
node budget, deadline and best set), :class:`RowScratch` and
:class:`AugmentScratch` (the working arrays of the row search), and the
results :class:`TargetResult` and :class:`RowsResult`.  They are
namedtuples, which numba passes to and returns from compiled functions
as plain structures (measured as fast as the flat argument lists).
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np

from ..._jit import njit, objmode


class ProfileTables(NamedTuple):
    """The grid and the tables of one profile search (read only; built by
    :func:`._profile.profile_search_grid`)."""

    #: free[j, i]: a free cell at column j, row i
    free: np.ndarray
    #: free cells of each column (int64)
    capx: np.ndarray
    #: below[i, j]: free cells of column j in rows 0..i-1 (shape (q + 1, p))
    below: np.ndarray
    #: gaps between consecutive columns and rows (float)
    gx: np.ndarray
    gy: np.ndarray
    #: the number of points
    k: int
    #: cut[L] = L (k - L)
    cut: np.ndarray
    #: :func:`_cut_tails` of the columns without Hall's limits
    tail_x: np.ndarray
    #: the partitions in score order (counts[:, v - 1]: parts equal to v),
    #: their scores and the arr(lambda') part of them
    counts: np.ndarray
    score: np.ndarray
    score_y: np.ndarray
    #: the column bound on W_y (see :func:`_target`)
    own: np.ndarray
    later: np.ndarray
    cross: np.ndarray
    pair: np.ndarray


class TargetRun(NamedTuple):
    """What one :func:`_target` call reads and writes beside the tables."""

    #: most nodes to spend
    node_cap: int
    #: one-element array, a :func:`time.perf_counter` time: the search
    #: stops once the clock passes it (another thread may set it to -inf)
    deadline: np.ndarray
    #: the cells of the best set found (p x q, int8)
    best_x: np.ndarray


class AugmentScratch(NamedTuple):
    """Working arrays of :func:`_add_row` (one entry per column)."""

    seen: np.ndarray
    prev_col: np.ndarray
    prev_row: np.ndarray
    queue: np.ndarray


class RowScratch(NamedTuple):
    """Working arrays of :func:`_rows`, allocated once by :func:`_target`
    (q rows, p columns)."""

    #: each row's free cells among the used columns
    rcap: np.ndarray
    #: :func:`_cut_tails` of the rows, within Hall's limits A and B
    tail_y: np.ndarray
    A: np.ndarray
    B: np.ndarray
    #: per depth: sum of (r - t)^+ over the rows chosen, the next value to
    #: try, the points so far, their cost, the cells and column counts
    E: np.ndarray
    vpos: np.ndarray
    rl: np.ndarray
    rcost: np.ndarray
    X: np.ndarray
    FC: np.ndarray
    aug: AugmentScratch


class RowsResult(NamedTuple):
    """What :func:`_rows` returns."""

    upper: float
    nodes: int
    found: bool
    complete: bool


class TargetResult(NamedTuple):
    """What :func:`_target` returns: the best W (inf when no set was found
    below the target), the nodes spent and whether the search finished."""

    value: float
    nodes: int
    complete: bool


def _cut_tails(gaps, caps, k, A, B, tail):  # pragma: no cover - compiled by numba
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


def deadline_array(time_limit, deadline=None) -> np.ndarray:
    """The one-element :func:`time.perf_counter` deadline the compiled
    searches poll: ``deadline`` (an array another thread may lower), or a
    new one, brought forward to ``time_limit`` seconds from now if given."""
    if deadline is None:
        deadline = np.array([math.inf])
    if time_limit is not None:
        deadline[0] = min(deadline[0], time.perf_counter() + time_limit)
    return deadline


def now():
    """Seconds of a monotonic clock (callable from the compiled search)."""
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


def _add_row(free, c, X, fc, i, v, aug):  # pragma: no cover - compiled by numba
    """Give row i v cells of ``X`` (free, in columns under their count c,
    tracked in ``fc``), moving the earlier rows along augmenting paths
    when a column is full (``aug``: an :class:`AugmentScratch`); False
    when the rows so far admit no such matrix."""
    seen, prev_col, prev_row, queue = aug.seen, aug.prev_col, aug.prev_row, aug.queue
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


def _row_caps(free, c, u, out):  # pragma: no cover - compiled by numba
    """out[i]: the free cells of row i in the columns c uses, at most u
    (the used columns: one node per column and row)."""
    p, q = free.shape
    for i in range(q):
        s = 0
        for j in range(p):
            if c[j] > 0 and free[j, i]:
                s += 1
        out[i] = min(s, u)


def _rest_costs(vals, mult, k, cut, out):  # pragma: no cover - compiled by numba
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


def _rows(tables, c, wx, excess, upper, nodes, run, rows):  # pragma: no cover - compiled by numba
    """Row profiles for the column profile c (costing wx) with W below
    ``upper`` (W an integer: at most upper - 1), realised by a set, over
    ``tables`` (a :class:`ProfileTables`), within ``run`` (a
    :class:`TargetRun`: the set found goes to ``run.best_x``), in the
    working arrays ``rows`` (a :class:`RowScratch`).
    ``excess[t]`` is the sum of (conj_s - t)^+ over the conjugate parts:
    the rows, majorised by them (Gale-Ryser), keep sum_i (r_i - t)^+ at
    most that, for every t, already over the rows chosen so far.  The
    rows chosen so far are kept filled (``X[i]``, ``FC[i]``: the cells and
    column counts of rows 0..i-1, by :func:`_add_row`), so a prefix that
    no 0/1 matrix on the free cells realises is cut at once, and a full
    profile is a set.  Returns a :class:`RowsResult` (upper, nodes,
    found, complete); a set found lowers upper."""
    free, k, gy, cut, below, total = tables.free, tables.k, tables.gy, tables.cut, tables.below, tables.capx
    node_cap, deadline, best_x = run.node_cap, run.deadline, run.best_x
    rcap, tail_y, A, B, E, vpos = rows.rcap, rows.tail_y, rows.A, rows.B, rows.E, rows.vpos
    rl, rcost, X, FC, aug = rows.rl, rows.rcost, rows.X, rows.FC, rows.aug
    p, q = free.shape
    used = 0
    for j in range(p):
        if c[j] > 0:
            used += 1
    _row_caps(free, c, used, rcap)
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
        return RowsResult(upper, nodes, False, True)
    # the least cost of the row cuts still to come, within Hall's limits
    _cut_tails(gy, rcap, k, A, B, tail_y)
    found = False
    i = 0
    rl[0] = 0
    rcost[0] = 0.0
    E[0, :] = 0
    X[0, :, :] = 0
    FC[0, :] = 0
    vpos[0] = min(rcap[0], k)
    while True:
        if vpos[i] < 0:
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
        cost = rcost[i] if i == q - 1 else rcost[i] + gy[i] * cut[new]
        nodes += 1
        if nodes >= node_cap or ((nodes & 16383) == 0 and now() > deadline[0]):
            return RowsResult(upper, nodes, found, False)
        nxt = i + 1
        if new > A[nxt] or k - new > B[nxt]:
            continue
        X[nxt] = X[i]
        FC[nxt] = FC[i]
        if not _add_row(free, c, X[nxt], FC[nxt], i, v, aug):
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
    return RowsResult(upper, nodes, found, True)


def _pair_windows(free, ys, m, out):  # pragma: no cover - compiled by numba
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


def _target(tables, upper, run):  # pragma: no cover - compiled by numba
    """Every set of W below ``upper`` over the partitions in score order
    (``tables``: a :class:`ProfileTables`), ``upper`` dropping with each
    set found (kept in ``run.best_x``; ``run`` a :class:`TargetRun`).
    Returns a :class:`TargetResult` (best W or inf, nodes, complete).

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
    free, capx, gx, k, cut, tail_x = tables.free, tables.capx, tables.gx, tables.k, tables.cut, tables.tail_x
    counts, score, score_y = tables.counts, tables.score, tables.score_y
    own, later, cross, pair = tables.own, tables.later, tables.cross, tables.pair
    node_cap, deadline = run.node_cap, run.deadline
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
    aug = AugmentScratch(np.zeros(p, dtype=np.bool_), np.zeros(p, dtype=np.int64), np.zeros(p, dtype=np.int64),
                         np.zeros(p, dtype=np.int64))
    rows = RowScratch(np.zeros(q, dtype=np.int64), np.empty((q, k + 1)), np.zeros(q + 1, dtype=np.int64),
                      np.zeros(q + 1, dtype=np.int64), np.zeros((q + 1, p + 1), dtype=np.int64),
                      np.zeros(q + 1, dtype=np.int64), np.zeros(q + 1, dtype=np.int64), np.zeros(q + 1),
                      np.zeros((q + 1, p, q), dtype=np.int8), np.zeros((q + 1, p), dtype=np.int64), aug)
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
                res = _rows(tables, c, ccost[p], excess, upper, nodes, run, rows)
                upper, nodes = res.upper, res.nodes
                if res.found:
                    best = upper
                if not res.complete:
                    return TargetResult(best, nodes, False)
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
                if nodes >= node_cap or ((nodes & 16383) == 0 and now() > deadline[0]):
                    return TargetResult(best, nodes, False)
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
    return TargetResult(best, nodes, True)


# compiled on first call (numba imported then, not here)
now = njit(cache=True)(now)
_cut_tails = njit(cache=True)(_cut_tails)
_rest_costs = njit(cache=True)(_rest_costs)
_add_row = njit(cache=True)(_add_row)
_row_caps = njit(cache=True)(_row_caps)
_pair_windows = njit(cache=True)(_pair_windows)
_rows = njit(cache=True)(_rows)
# without the GIL: exact runs the search in a thread beside the LP
_target = njit(cache=True, nogil=True)(_target)
