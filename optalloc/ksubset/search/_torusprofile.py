"""Exact search over column and row counts on a 2D torus (or mesh) of free nodes.

On a machine of p x q nodes whose distance is a sum of per-axis distances
(``DX`` between columns, ``DY`` between rows: the ring distance on a
wrapped axis, the line distance otherwise), a set S of k free nodes with
column counts c (c_j nodes in column j) and row counts r has

    W(S) = W_x(c) + W_y(r),   W_x(c) = sum_{a<b} c_a c_b DX[a, b],

and likewise W_y.  A pair (c, r) is the pair of some set exactly when a
0/1 matrix supported on the free cells has column sums c and row sums r
(a bipartite flow), so the optimum is the least W_x(c) + W_y(r) over the
pairs a flow realises.  :func:`torus_profile_search` enumerates them in
three nested levels, each pruned by a lower bound that holds for every
set below it (the tables are built by :mod:`._torustables`):

0. partitions lambda of k (the column counts as a multiset), in the order
   of their score ``arr_x(lambda) + arr_y(lambda')`` (:mod:`._ring`: the
   organ pipe on a ring, Gale-Ryser for the rows); the search stops at
   the first score above the target.  Up to ``PARTITIONS`` of them;
   beyond, level 1 runs once over every column vector;
1. column counts c ordering lambda (and the empty columns), column by
   column.  A partial assignment costs its
   W_x so far; every point still to place adds its distance sum to the
   points placed (``acc``), at least the cheapest columns left filled
   under their free cells (:func:`_fill`), or the parts left
   in distinct columns, the largest in the cheapest (:func:`_rest_x`);
   those points add among
   themselves at least the 1D optimum of that many of the free cells of
   the columns left (:func:`_capped`: an arc of consecutive points in
   circular order, SAND2003 sec. 4 on a line or ring) and at least the
   organ-pipe cost of the parts left.  W_y is bounded
   below by the largest of: arr_y(lambda'); (a) a row holds at most one
   node per used column and at most its free cells in the columns used
   or still usable, so W_y is at least the 1D optimum of k rows under
   those caps; (b) the pairs within each placed column cost at least the
   1D optimum of c_j of its free rows (``own``), the pairs of two placed
   columns at least :func:`._torustables._pair_table`, the points left at
   least their least y-distance sums to the placed columns
   (:func:`._torustables._near_table`), and the parts left at least their
   least ``own`` and pair costs in the columns left (:func:`_rest_y`);
2. for a full c, row counts r row by row, each at most the free cells of
   its row among the used columns and at most u, with Hall's condition on
   every prefix and suffix of rows (rows 0..t-1 hold at most
   sum_j min(c_j, free cells of column j in them), the others likewise),
   the same ``acc`` and 1D bounds for the rows left; each row is placed
   at once in a 0/1 matrix (:func:`_add_row`, moving earlier rows along
   augmenting paths), so a prefix no set realises is cut where it
   appears, and a full r that fits is a set.

On an idle machine a rotation of a wrapped axis and its reflection about
line 0 map every set onto one of equal W: only sets whose line 0 on that
axis holds the most nodes, and line 1 no fewer than the last, are kept.

Only sets of W at most a target are sought, and the target drops below
each set found, so a search that ends proves its best set (or, with none,
the target + 1) optimal.  W must be an integer (integer distances).
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..._jit import njit
from .._common import rows_of_cells
from ._profilesearch import AugmentScratch, _add_row, _row_caps, deadline_array, now
from ._ring import free_grid, listable, scored_partitions
from ._torustables import build_tables

__all__ = ["torus_profile_search"]


@njit(cache=True)
def _suffix_caps(caps):  # pragma: no cover - compiled by numba
    """out[t]: ``caps`` with the lines before t zeroed (t = 0..n)."""
    n = len(caps)
    out = np.zeros((n + 1, n), dtype=np.int64)
    for t in range(n - 1, -1, -1):
        out[t] = out[t + 1]
        out[t, t] = caps[t]
    return out


@njit(cache=True)
def _fill(acc, cap, start, m, extra_row, v):  # pragma: no cover - compiled by numba
    """Least sum of (acc[t] + v * extra_row[t]) over m points put on the
    lines t >= start, at most cap[t] on line t (inf when they do not fit):
    the cheapest lines first."""
    n = len(acc)
    cost = np.empty(n - start)
    for t in range(start, n):
        cost[t - start] = acc[t] + v * extra_row[t]
    order = np.argsort(cost)
    total = 0.0
    left = m
    for o in order:
        t = start + o
        take = min(cap[t], left)
        total += take * cost[o]
        left -= take
        if left == 0:
            return total
    return math.inf


@njit(cache=True)
def _capped(a, D, k):  # pragma: no cover - compiled by numba
    """Least sum_{s<t} r_s r_t D[s, t] over counts r <= a summing to k (inf
    when sum a < k).  With position t repeated a[t] times in circular
    order, an optimal choice is k consecutive points (an arc: SAND2003
    sec. 4, on a line or a ring), and every window is a feasible r, so the
    least window is the optimum; windows slide one point at a time."""
    q = len(a)
    total = 0
    for t in range(q):
        total += a[t]
    if total < k:
        return math.inf
    pos = np.empty(total, dtype=np.int64)
    n = 0
    for t in range(q):
        for _ in range(a[t]):
            pos[n] = t
            n += 1
    r = np.zeros(q, dtype=np.int64)
    cost = 0.0
    for w in range(k):
        x = pos[w]
        for t in range(q):
            cost += r[t] * D[x, t]
        r[x] += 1
    best = cost
    for s in range(total - 1):
        out = pos[s]
        r[out] -= 1
        for t in range(q):
            cost -= r[t] * D[out, t]
        x = pos[(s + k) % total]
        for t in range(q):
            cost += r[t] * D[x, t]
        r[x] += 1
        if cost < best:
            best = cost
    return best


@njit(cache=True)
def _rows(free, c, DY, k, target, u, SY, below, capx, best_x, X, aug, nodes0, node_cap,  # pragma: no cover
          deadline, sym_y):
    """Least W_y <= target over row counts r realisable with column counts c;
    returns (best W_y or inf, nodes, complete) and the set in best_x."""
    p, q = free.shape
    a = np.zeros(q, dtype=np.int64)
    _row_caps(free, c, u, a)
    pre = np.zeros(q + 1, dtype=np.int64)  # most points in rows < t
    suf = np.zeros(q + 1, dtype=np.int64)  # most points in rows >= t
    for t in range(q + 1):
        s1 = 0
        s2 = 0
        for j in range(p):
            s1 += min(c[j], below[t, j])
            s2 += min(c[j], capx[j] - below[t, j])
        pre[t], suf[t] = s1, s2
    rest = np.zeros(q + 1, dtype=np.int64)  # capacity of rows >= i
    for i in range(q - 1, -1, -1):
        rest[i] = rest[i + 1] + a[i]
    if _capped(a, DY, k) > target:
        return math.inf, nodes0, True
    later = _suffix_caps(a)  # later[i]: the caps of rows >= i
    r = np.zeros(q, dtype=np.int64)
    nxt = np.zeros(q, dtype=np.int64)
    acc = np.zeros(q)
    fc = np.zeros(p, dtype=np.int64)
    X[:, :] = 0
    best = math.inf
    nodes = nodes0
    placed = 0
    py = 0.0
    i = 0
    nxt[0] = min(a[0], k)
    while i >= 0:
        for j in range(p):  # the cells of row i's previous try
            if X[j, i] == 1:
                X[j, i] = 0
                fc[j] -= 1
        lo = max(0, k - placed - rest[i + 1])
        if nxt[i] < lo:
            i -= 1
            if i >= 0:  # undo row i (its cells go at the top of the next pass)
                v = r[i]
                r[i] = 0
                placed -= v
                for t in range(q):
                    acc[t] -= v * DY[i, t]
                py -= v * acc[i]
            continue
        v = nxt[i]
        nxt[i] -= 1
        nodes += 1
        if nodes >= node_cap or ((nodes & 16383) == 0 and now() > deadline[0]):
            return best, nodes, False
        npl = placed + v
        if npl > pre[i + 1] or k - npl > suf[i + 1]:
            continue
        npy = py + v * acc[i]
        m = k - npl
        if m > 0:
            if i == q - 1:
                continue
            cross = _fill(acc, a, i + 1, m, DY[i], v)
            if npy + cross + SY[m] > target:
                continue
            # the m points left among themselves, in rows > i under their caps
            if npy + cross + _capped(later[i + 1], DY, m) > target:
                continue
        elif npy > target:
            continue
        if not _add_row(free, c, X, fc, i, v, aug):
            continue
        if m == 0:  # every column holds its count: a set
            best = npy
            best_x[:, :] = X
            target = npy - 1.0
            continue
        r[i] = v
        placed = npl
        for t in range(q):
            acc[t] += v * DY[i, t]
        py = npy
        i += 1
        nxt[i] = min(a[i], k - placed)
        if sym_y:  # row 0 holds the most (a rotation makes it so) ...
            nxt[i] = min(nxt[i], r[0])
            if i == q - 1 and q >= 3:  # ... and row 1 no fewer than row q - 1 (a reflection)
                nxt[i] = min(nxt[i], r[1])
    return best, nodes, True


@njit(cache=True)
def _rest_x(mult, v, acc, row, j, organ, parts, accs):  # pragma: no cover - compiled by numba
    """Lower bounds on the x-cost of the parts ``mult`` (less one part v)
    put in the columns after j: (among themselves, to the columns placed).
    Among themselves at least their organ-pipe cost (``organ``: :mod:`._ring`);
    each part pays its distance sum to the placed points in its own column,
    so the largest parts in the cheapest columns bound the second."""
    p = len(acc)
    n = 0
    for w in range(len(mult) - 1, 0, -1):
        for _ in range(mult[w] - (1 if w == v else 0)):
            parts[n] = w
            n += 1
    if n == 0:
        return 0.0, 0.0
    cnt = 0
    for t in range(j + 1, p):
        accs[cnt] = acc[t] + v * row[t]
        cnt += 1
    if cnt < n:
        return math.inf, math.inf
    srt = np.sort(accs[:cnt])
    cross = 0.0
    for i in range(n):
        cross += parts[i] * srt[i]
    own = 0.0
    for a in range(n):
        for b in range(a):
            own += parts[a] * parts[b] * organ[a, b]
    return own, cross


@njit(cache=True)
def _rest_y(mult, v, j, minown, minpair):  # pragma: no cover - compiled by numba
    """A lower bound on the y-cost among the parts ``mult`` (less one part
    v), put in distinct columns >= j: each part's least own cost there,
    each pair of parts its least pair cost there."""
    total = 0.0
    for w in range(1, len(mult)):
        n = mult[w] - (1 if w == v else 0)
        if n <= 0:
            continue
        total += n * minown[j, w]
        if n > 1:
            total += n * (n - 1) / 2 * minpair[j, w, w]
        for x in range(1, w):
            nx = mult[x] - (1 if x == v else 0)
            if nx > 0:
                total += n * nx * minpair[j, w, x]
    return total


@njit(cache=True, nogil=True)
def _columns(tb, k, target, node_cap, deadline, best_x, out, mult, ylow):  # pragma: no cover
    """The column search (see the module notes) over the column vectors
    whose counts are the multiset ``mult`` (mult[v]: columns of v nodes,
    mult[0] the empty ones), every one of which has W_y >= ``ylow``; out =
    [best W, nodes, complete] (best W inf when no set of W <= target was
    found)."""
    free, DX, DY, SX, SY, GY, own, pair, hcol = tb.free, tb.DX, tb.DY, tb.SX, tb.SY, tb.GY, tb.own, tb.pair, tb.hcol
    rest_own, fut, below, sym, organ, minown, minpair = tb.rest_own, tb.fut, tb.below, tb.sym, tb.organ, tb.minown, tb.minpair
    p, q = free.shape
    capx = np.zeros(p, dtype=np.int64)
    for j in range(p):
        for i in range(q):
            capx[j] += free[j, i]
    rest = np.zeros(p + 1, dtype=np.int64)
    nonempty = np.zeros(p + 1, dtype=np.int64)
    for j in range(p - 1, -1, -1):
        rest[j] = rest[j + 1] + capx[j]
        nonempty[j] = nonempty[j + 1] + (1 if capx[j] > 0 else 0)
    laterx = _suffix_caps(capx)  # laterx[j]: the caps of columns >= j
    restricted = mult[0] <= p  # one partition's column vectors
    partsbuf = np.zeros(p, dtype=np.int64)
    accs = np.zeros(p)
    c = np.zeros(p, dtype=np.int64)
    nxt = np.zeros(p, dtype=np.int64)
    acc = np.zeros(p)
    X = np.zeros((p, q), dtype=np.int8)
    aug = AugmentScratch(np.zeros(p, dtype=np.bool_), np.zeros(p, dtype=np.int64), np.zeros(p, dtype=np.int64),
                         np.zeros(p, dtype=np.int64))  # each column enters the queue at most once
    best = math.inf
    nodes = 0
    placed = 0
    used = 0
    px = 0.0
    po = 0.0  # own and pair bounds of the columns so far
    pinc = np.zeros(p)
    hrow = np.zeros(q)  # least y-distance sum of a point in each row to the columns placed
    hnew = np.zeros(q)
    rc = np.zeros(q, dtype=np.int64)  # used columns so far with a free cell in each row
    cap = np.zeros(q, dtype=np.int64)
    j = 0
    nxt[0] = min(capx[0], k)
    complete = True
    while j >= 0:
        lo = max(0, k - placed - rest[j + 1])
        if nxt[j] < lo:
            j -= 1
            if j >= 0:  # undo column j
                v = c[j]
                mult[v] += 1
                c[j] = 0
                placed -= v
                if v > 0:
                    used -= 1
                for t in range(p):
                    acc[t] -= v * DX[j, t]
                px -= v * acc[j]
                po -= pinc[j]
                if v > 0:
                    for i in range(q):
                        rc[i] -= free[j, i]
                        hrow[i] -= hcol[j, i, v]
            continue
        v = nxt[j]
        nxt[j] -= 1
        if mult[v] == 0:
            continue
        nodes += 1
        if nodes >= node_cap or ((nodes & 16383) == 0 and now() > deadline[0]):
            complete = False
            break
        npx = px + v * acc[j]
        npl = placed + v
        nused = used + (1 if v > 0 else 0)
        inc = own[j, v]
        if v > 0:
            for l in range(j):
                if c[l] > 0:
                    inc += pair[l, j, c[l], v]
        npo = po + inc
        m = k - npl
        if m == 0:
            u = nused
            if npx + max(GY[u], npo, ylow) <= target:
                c[j] = v
                out[3] += 1
                n_before = nodes
                wy, nodes, done = _rows(free, c, DY, k, target - npx, u, SY, below, capx, best_x, X, aug, nodes,
                                        node_cap, deadline, sym[1])
                c[j] = 0
                out[4] += nodes - n_before
                if wy < math.inf:
                    best = npx + wy
                    target = best - 1.0
                if not done:
                    complete = False
                    break
            continue
        if j == p - 1:
            continue
        low = _fill(acc, capx, j + 1, m, DX[j], v)
        xown = SX[m]
        if restricted:
            r_own, r_cross = _rest_x(mult, v, acc, DX[j], j, organ, partsbuf, accs)
            low = max(low, r_cross)
            xown = max(xown, r_own)
        umax = nused + min(m, nonempty[j + 1])
        base = npx + low + xown
        if base + max(GY[umax], npo + rest_own[j + 1, m], ylow) > target:
            continue
        # the m points left among themselves, in the columns after j
        base = npx + low + max(xown, _capped(laterx[j + 1], DX, m))
        if base + max(GY[umax], npo + rest_own[j + 1, m], ylow) > target:
            continue
        # the points left pay their y-distances to the columns placed
        # (hcol: to the v nearest free cells of a column), each row at most
        # once per column left with a free cell there
        if v > 0:
            for i in range(q):
                hnew[i] = hrow[i] + hcol[j, i, v]
        else:
            hnew[:] = hrow
        rest_y = rest_own[j + 1, m]
        if restricted:
            rest_y = max(rest_y, _rest_y(mult, v, j + 1, minown, minpair))
        if base + npo + _fill(hnew, fut[j + 1], 0, m, hnew, 0) + rest_y > target:
            continue
        # rows hold at most their free cells among the columns used so far
        # and those left, and at most one per used column
        for i in range(q):
            cap[i] = min(rc[i] + (free[j, i] if v > 0 else 0) + fut[j + 1, i], umax)
        if base + _capped(cap, DY, k) > target:
            continue
        c[j] = v
        mult[v] -= 1
        placed = npl
        used = nused
        for t in range(p):
            acc[t] += v * DX[j, t]
        px = npx
        po = npo
        pinc[j] = inc
        if v > 0:
            for i in range(q):
                rc[i] += free[j, i]
                hrow[i] += hcol[j, i, v]
        j += 1
        nxt[j] = min(capx[j], k - placed)
        if sym[0]:  # column 0 holds the most (a rotation makes it so) ...
            nxt[j] = min(nxt[j], c[0])
            if j == p - 1 and p >= 3:  # ... and column 1 no fewer than column p - 1 (a reflection)
                nxt[j] = min(nxt[j], c[1])
    out[0] = best
    out[1] = nodes
    out[2] = 1.0 if complete else 0.0


def torus_profile_search(coords, k: int, shape, torus, upper: float, *, node_limit: int = 10**9,
                         time_limit: float | None = None, deadline=None):
    """Least W <= ``upper`` - 1 over k of the free cells ``coords`` (integer
    (n, 2) coordinates of a ``shape`` machine, axes wrapped as ``torus``).

    Returns ``(value, rows, lower)``: the best set found (W and its rows of
    ``coords``; None, None when no set of W < ``upper`` exists or none was
    found before the search stopped) and a proven lower bound on the
    optimum: ``value`` when the search finished with a set, ``upper`` when
    it finished without one, else None.  ``deadline``, a one-element array
    of :func:`time.perf_counter` time, lets another thread stop it.
    """
    coords = np.asarray(coords).astype(np.int64)
    p, q = (int(s) for s in shape)
    free = free_grid(coords, shape)
    counts, score_y = None, None
    if listable(k, p, q):
        counts, score, score_y = scored_partitions(k, free.sum(axis=1), q, torus)
        keep = score <= float(upper) - 1.0
        if not keep.any():  # every set costs at least the least score
            return None, None, float(upper)
        counts, score, score_y = counts[keep], score[keep], score_y[keep]
    tables = build_tables(free, k, torus)
    deadline = deadline_array(time_limit, deadline)
    best_x = np.zeros((p, q), dtype=np.int8)
    out = np.zeros(5)
    target, best, nodes, complete = float(upper) - 1.0, math.inf, 0, True
    for parts, ylow, low in zip(counts, score_y, score, strict=True) if counts is not None else ((None, 0, 0),):
        if low > target:
            break
        if nodes >= node_limit or time.perf_counter() > deadline[0]:
            complete = False
            break
        mult = np.full(k + 1, k + p, dtype=np.int64)  # no restriction
        if parts is not None:
            mult[1 : len(parts) + 1] = parts
            mult[len(parts) + 1 :] = 0
            mult[0] = p - int(parts.sum())
        _columns(tables, int(k), target, int(node_limit) - nodes, deadline, best_x, out, mult, float(ylow))
        nodes += int(out[1])
        if out[0] < best:
            best = float(out[0])
            target = best - 1.0
        if not out[2]:
            complete = False
            break
    if best == math.inf:
        return None, None, (float(upper) if complete else None)
    rows = rows_of_cells(coords, zip(*np.nonzero(best_x)))
    return best, rows, (best if complete else None)
