"""Branch-and-bound for the optimum of a full box, beyond enumeration.

:mod:`._box` shows ``OPT(box, k) = min over lambda of arr(lambda) +
arr(lambda')`` over the partitions lambda of k with parts <= b (the box
height) and at most a parts (its width).  Its tables stop at 50,000
partitions; a full 16 x 16 machine has 8.9 million at k = 128.
This search builds lambda one part at a time, largest first, and prunes
with two lower bounds that use everything the decided parts fix.

Columns, arr(lambda).  Some optimal order of the parts is unimodal, so it
is built from the largest part outwards: each new (smaller) part goes to
the left or the right of the block, and the cut between them costs
``f(u) = u (k - u)`` with u the points still to come on that side.  The
state is u (the points still to come on the left); once the parts left to
choose (r points) are reached, they form two outer blocks of u and r - u
points, each made of parts no larger than the last one chosen, c: the two
cuts next to the middle block cost f(u) + f(r - u), and a block of m
points has at least ceil(m / c) - 1 inner cuts, the i-th from the inside
with between m - i c and m - i points beyond it (f is concave: its least
value on that range is at an end).

Rows, arr(lambda').  With j parts chosen, the last being c, the row counts
lambda'_s for s > c are known (they are < j) and the c others are each in
[j, a].  In a unimodal order the known ones are outside and the unknown
ones a middle block of M = k - (known sum) points.  The known ones are
placed outside-in by the DP of :func:`_place_row` (state: points on the
left, A); the middle block adds the cut at A + M and c - 1
inner cuts, the i-th with between A + i j and A + M - (c - i) j points
before it (and within a of the ends of that range, parts being <= a).

Children are visited in order of their bound (best first), and a leaf
(the parts sum to k) is scored exactly by the same two DPs.  The loops are
compiled by numba.
"""

from __future__ import annotations

import numpy as np

from ..._jit import njit
from ._boxdual import no_tables

_BIG = np.int64(1) << 50
#: entries of the cut bound table by parts allowed, at most
_TABLE = 1 << 22
#: boxes of at most this many cells get a first incumbent (:func:`_round_guess`)
_GUESS_CELLS = 1 << 20


def _cut_bounds(f, b, n_max, k):  # pragma: no cover - compiled by numba
    """B[c, n, m]: least cost of the inner cuts of an outer block of m
    points made of at most n parts (n <= n_max; n_max + 1: any number),
    each <= c (see the module docstring)."""
    B = np.zeros((b + 1, n_max + 2, k + 1), dtype=np.int64)
    for c in range(1, b + 1):
        for n in range(n_max + 2):
            for m in range(k + 1):
                if n <= n_max and m > n * c:
                    B[c, n, m] = _BIG
                    continue
                total = 0
                for i in range(1, (m + c - 1) // c):
                    lo = max(1, m - i * c)
                    hi = m - i  # the i inner parts hold at least i, and at least i m / n
                    if n <= n_max:
                        hi = min(hi, m - (i * m + n - 1) // n)
                    total += min(f[lo], f[hi])
                B[c, n, m] = total
    return B


def _place_row(Y, t, v, f, nxt):  # pragma: no cover - compiled by numba
    """Place a part v at the left or the right end (outside-in DP over the
    left sum, states 0..t valid); returns the new total t + v."""
    for s in range(t + v + 1):
        best = _BIG
        if s <= t and Y[s] < _BIG:  # right end: t - s points beyond its outer cut
            best = Y[s] + f[t - s]
        if s >= v and Y[s - v] < _BIG:  # left end: s points before its inner cut
            c = Y[s - v] + f[s]
            best = min(best, c)
        nxt[s] = best
    for s in range(t + v + 1):
        Y[s] = nxt[s]
    return t + v


def _grow_columns(Xj, r, w, f, out):  # pragma: no cover - compiled by numba
    """Add part w outside the middle block: from u (points to come on the
    left, r in all) to u - w (left) or u (right)."""
    for u in range(r - w + 1):
        best = _BIG
        if Xj[u + w] < _BIG:
            best = Xj[u + w] + f[u + w]
        if Xj[u] < _BIG and Xj[u] + f[r - u] < best:
            best = Xj[u] + f[r - u]
        out[u] = best
    for u in range(r - w + 1, len(out)):
        out[u] = _BIG


def _dual_bound(dual, w, j, cx, r2, cy, t, f, fixed):  # pragma: no cover - compiled by numba
    """The Lagrangian bound (:mod:`._boxdual`, tables ``dual``) of the child
    that adds part w at depth j: the columns to come from each state u of
    ``cx`` (r2 points, parts <= w), the w middle rows (each of at least
    j + 1 cells) from each state A of ``cy`` (t points placed), plus
    ``fixed``, the weights of what the child fixes; rounded up, as W is an
    integer."""
    big = np.int64(1) << 60
    scale = dual.scale
    low_x = big
    for u in range(r2 + 1):
        v = dual.columns[w, r2 * (r2 + 1) // 2 + u]
        if cx[u] < _BIG and v < big:
            low_x = min(low_x, scale * cx[u] + v)
    low_y = big
    level = dual.level[j + 1]
    base = t * (t + 1) // 2
    M = len(f) - 1 - t  # the points of the middle rows
    for A in range(t + 1):
        v = np.int64(dual.rows[level, w, base + A])
        if cy[A] < _BIG and v < dual.none:
            low_y = min(low_y, scale * (cy[A] + f[A + M]) + v)
    if low_x >= big or low_y >= big:
        return _BIG
    return (low_x + low_y + fixed + scale - 1) // scale


def _search(a, b, k, upper, node_limit, best_parts, n_max, dual):  # pragma: no cover - compiled by numba
    """Least arr(lambda) + arr(lambda') below ``upper`` over partitions of k
    (parts <= b, at most a of them), best first by bound.  Writes the parts
    of the best partition found into ``best_parts`` (descending, zero
    padded); returns (value, nodes, complete): value = ``upper`` when none
    is below it, complete False when ``node_limit`` stopped the search.
    With ``dual.scale`` > 0, the Lagrangian tables ``dual`` of
    :mod:`._boxdual` bound every child too."""
    K = k + 1
    f = np.empty(K, dtype=np.int64)
    for L in range(K):
        f[L] = L * (k - L)
    B = _cut_bounds(f, b, n_max, k)
    depth = min(a, k) + 1
    X = np.full((depth + 1, K), _BIG, dtype=np.int64)  # columns: by points to come on the left
    Y = np.full((depth + 1, K), _BIG, dtype=np.int64)  # rows: by points on the left
    tY = np.zeros(depth + 1, dtype=np.int64)  # row counts placed
    S = np.zeros(depth + 1, dtype=np.int64)  # sum of the parts chosen
    parts = np.zeros(depth + 1, dtype=np.int64)  # parts[j]: the j-th part (parts[0] = b, a cap)
    cand = np.zeros((depth + 1, b + 1), dtype=np.int64)  # children by bound
    clb = np.zeros((depth + 1, b + 1), dtype=np.int64)  # and their bounds
    ncand = np.zeros(depth + 1, dtype=np.int64)
    pos = np.zeros(depth + 1, dtype=np.int64)
    lbs = np.zeros(b + 1, dtype=np.int64)
    cx = np.empty(K, dtype=np.int64)
    cy = np.empty(K, dtype=np.int64)
    leaf = np.empty(K, dtype=np.int64)
    nxt = np.empty(K, dtype=np.int64)
    cap = np.zeros(b + 1, dtype=np.int64)
    CP = np.zeros(depth + 1, dtype=np.int64)  # weights of the parts chosen: sum of Pi(part)
    RP = np.zeros(depth + 1, dtype=np.int64)  # and of the rows known: - sum of pi_s lambda'_s
    # a square box holds the transpose of every set: search only the
    # partitions with no more parts than the largest one
    square = a == b
    best = upper
    nodes = 0
    parts[0] = b
    Y[0, 0] = 0
    j = 0
    expand = True
    while True:
        if expand:  # bound every child of the node at depth j
            nodes += 1
            if nodes > node_limit:
                return best, nodes, False
            r = k - S[j]
            last = parts[j]
            slots = a - j
            if square and j >= 1:  # no more parts than the first (see above)
                slots = min(a, parts[1]) - j
            t = tY[j]
            for s in range(t + 1):
                cy[s] = Y[j, s]
            nc = 0
            for w in range(last, 0, -1):
                if w < last and j >= 1:  # one more row count equal to j is known
                    t = _place_row(cy, t, j, f, nxt)
                if w > r:
                    continue
                r2 = r - w
                room = min(slots, w) if square and j == 0 else slots  # parts left, this one among them
                if r2 > (room - 1) * w:  # the rest no longer fits in the parts left
                    break
                if j == 0:
                    for u in range(K):
                        cx[u] = 0 if u <= r2 else _BIG
                else:
                    _grow_columns(X[j], r, w, f, cx)
                if r2 == 0:  # a partition: the last w row counts equal j + 1
                    for s in range(t + 1):
                        leaf[s] = cy[s]
                    tt = t
                    for _ in range(w):
                        tt = _place_row(leaf, tt, j + 1, f, nxt)
                    value = cx[0] + leaf[: tt + 1].min()
                    if value < best:
                        best = value
                        best_parts[:] = 0
                        best_parts[:j] = parts[1 : j + 1]
                        best_parts[j] = w
                    continue
                lbx = _BIG
                n = min(room - 1, n_max + 1)
                for u in range(r2 + 1):
                    if cx[u] < _BIG:
                        v = cx[u] + f[u] + f[r2 - u] + B[w, n, u] + B[w, n, r2 - u]
                        lbx = min(lbx, v)
                # the w unknown row counts: level s holds j + 1 plus the
                # parts still to come of at least s cells, at most
                # min(room - 1, r2 // s) of them; cap[i] bounds any i of them
                M = k - t
                cap[0] = 0
                for i in range(1, w + 1):
                    cap[i] = cap[i - 1] + j + 1 + min(room - 1, r2 // i)
                lby = _BIG
                for A in range(t + 1):
                    if cy[A] >= _BIG:
                        continue
                    v = cy[A] + f[A + M]
                    for i in range(1, w):
                        lo = max(A + (j + 1) * i, A + M - cap[w - i])
                        hi = min(A + M - (j + 1) * (w - i), A + cap[i])
                        v += min(f[lo], f[hi])
                    lby = min(lby, v)
                lb = lbx + lby
                if dual.scale > 0 and lb < best:
                    fixed = CP[j] + dual.Pi[w] + RP[j]  # the parts' weights, and the rows' of j cells now known
                    if j >= 1:
                        fixed -= j * (dual.Pi[last] - dual.Pi[w])
                    lb = max(lb, _dual_bound(dual, w, j, cx, r2, cy, t, f, fixed))
                if lb < best:
                    cand[j, nc] = w
                    lbs[nc] = lb
                    nc += 1
            for p in range(1, nc):  # best bound first (insertion sort, few children)
                cw, cl = cand[j, p], lbs[p]
                q = p - 1
                while q >= 0 and lbs[q] > cl:
                    cand[j, q + 1] = cand[j, q]
                    lbs[q + 1] = lbs[q]
                    q -= 1
                cand[j, q + 1] = cw
                lbs[q + 1] = cl
            ncand[j] = nc
            clb[j, :nc] = lbs[:nc]
            pos[j] = 0
            expand = False
        # the children in order of bound: once one cannot beat the best set
        # found since they were bounded, none of the others can
        if pos[j] >= ncand[j] or clb[j, pos[j]] >= best:
            if j == 0:
                break
            j -= 1
            continue
        w = cand[j, pos[j]]
        pos[j] += 1
        r = k - S[j]
        if j == 0:
            for u in range(K):
                X[1, u] = 0 if u <= r - w else _BIG
        else:
            _grow_columns(X[j], r, w, f, X[j + 1])
        t = tY[j]
        for s in range(K):
            Y[j + 1, s] = Y[j, s]
        if j >= 1:
            for _ in range(parts[j] - w):
                t = _place_row(Y[j + 1], t, j, f, nxt)
        tY[j + 1] = t
        S[j + 1] = S[j] + w
        CP[j + 1] = CP[j] + dual.Pi[w]
        RP[j + 1] = RP[j] - j * (dual.Pi[parts[j]] - dual.Pi[w]) if j >= 1 else 0
        parts[j + 1] = w
        j += 1
        expand = True
    return best, nodes, True


# compiled on first call (numba imported then, not here)
_cut_bounds = njit(cache=True)(_cut_bounds)
_place_row = njit(cache=True)(_place_row)
_grow_columns = njit(cache=True)(_grow_columns)
_dual_bound = njit(cache=True)(_dual_bound)
_search = njit(cache=True)(_search)


def _round_guess(width: int, height: int, k: int) -> int:
    """W of the best of a few round sets of k cells of the box: the k
    cells nearest its middle in the L_p norm, for p from 1 to 4 and four
    centres (the optimal sets are close to such balls).  Given to the
    search as its first incumbent, it spares the search most of the nodes
    it would spend finding a good set."""
    xs, ys = np.meshgrid(np.arange(width), np.arange(height), indexing="ij")
    best = None
    for p in (1.0, 1.5, 2.0, 2.5, 3.0, 4.0):
        for dx in (0.0, 0.5):
            for dy in (0.0, 0.5):
                norm = np.abs(xs - (width // 2 + dx)) ** p + np.abs(ys - (height // 2 + dy)) ** p
                chosen = np.zeros(width * height)
                chosen[np.argsort(norm.ravel(), kind="stable")[:k]] = 1
                chosen = chosen.reshape(width, height)
                w = 0
                for counts in (chosen.sum(axis=1), chosen.sum(axis=0)):  # W by the cuts of each axis
                    left = np.cumsum(counts)[:-1]
                    w += int(np.sum(left * (k - left)))
                best = w if best is None else min(best, w)
    return best


def _run(width: int, height: int, k: int, cap: int, node_limit: int, dual=None, n_max=None):
    """The compiled search below ``cap``: (value, nodes, complete, parts),
    with the cut bounds by parts allowed for ``n_max`` parts (default: as
    many as keep their table small), and the Lagrangian tables ``dual``
    (:func:`._boxdual.tables`) when given."""
    best_parts = np.zeros(min(width, k) + 2, dtype=np.int64)
    if n_max is None:
        n_max = min(width, k, max(0, _TABLE // ((height + 1) * (k + 1)) - 2))
    if dual is None:
        dual = no_tables(width, height, k)
    value, nodes, complete = _search(int(width), int(height), int(k), np.int64(cap), np.int64(node_limit), best_parts,
                                     np.int64(n_max), dual)
    return value, int(nodes), complete, best_parts


def floor_box(width: int, height: int, k: int, target: float, *, node_limit: int, dual=None):
    """Whether some partition of the box scores below ``target``:
    ``("above", None, nodes)`` when the search ended and none does (the box
    optimum is at least ``target``), ``("found", W, nodes)`` when it ended
    with the least W below it (the optimum), ``("open", None, nodes)``
    when ``node_limit`` nodes did not end it.  ``dual``: as for :func:`_run`."""
    cap = int(np.ceil(target))  # W is an integer: below target means below its ceiling
    value, nodes, complete, _ = _run(width, height, k, cap, node_limit, dual)
    if not complete:
        return "open", None, nodes
    if value >= cap:
        return "above", None, nodes
    return "found", float(value), nodes


def search_box(width: int, height: int, k: int, *, node_limit: int = 2_000_000, upper: float | None = None,
               dual=None):
    """The box optimum by branch-and-bound: ``(W, counts, nodes)`` with
    counts the multiplicity vector of an optimal partition (entry v - 1:
    columns of height v), or ``(None, None, nodes)`` when ``node_limit``
    nodes did not finish or no partition is below ``upper``.  ``dual``: as
    for :func:`_run`."""
    # W is an integer: below upper means below its ceiling
    cap = int(_BIG) if upper is None or not upper < _BIG else int(np.ceil(upper))
    if k <= width * height <= _GUESS_CELLS:  # the search finds that set or a better one
        cap = min(cap, _round_guess(width, height, k) + 1)
    value, nodes, complete, best_parts = _run(width, height, k, cap, node_limit, dual)
    if not complete or value >= cap:
        return None, None, nodes
    counts = np.bincount(best_parts[best_parts > 0], minlength=height + 1)[1:]
    return float(value), counts.astype(np.int64), nodes
