"""The bounds of the search over shapes (:mod:`._shapesearch`).

Each holds for every optimal set below a node of the search: the cost of
the points still to place (:func:`_rest`), how many of them lie above the
rows placed (:func:`_balance`), how far they spread in x
(:func:`_spread_ok`) and, given a Lagrangian bound's values, their least
values (:func:`_value_tables`, :func:`_value_rest`).  The module notes of
:mod:`._shapesearch` give the arguments.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..._jit import njit
from ._box import box_optimum

__all__ = ["BOX_LIMIT", "BOX_NODES"]

#: partitions scored, and nodes of the box search, per entry of the table
#: of box optima (beyond them an entry comes from the one before)
BOX_LIMIT = 5000
BOX_NODES = 5000


#: complete tables of :func:`_box_table` kept, by (p, q, k)
_TABLES: dict = {}
_KEEP = 64


def _box_table(p: int, q: int, k: int, deadline=None) -> np.ndarray:
    """t[m]: the least W of m cells of an idle p x q box (unit steps), for
    m <= k; a lower bound on the W of m distinct lattice points whose x
    values take at most p values and y values at most q.  Where the box
    optimum is not found within its node budget, or once ``deadline`` (a
    one-element :func:`time.perf_counter` array) has passed,
    ``m t[m-1] / (m - 2)`` (each of the m sets of m - 1 points costs at
    least t[m-1], and every pair lies in m - 2 of them).  Tables built
    to the end are kept (the last ``_KEEP``)."""
    key = (int(p), int(q), int(k))
    kept = _TABLES.get(key)
    if kept is not None:
        return kept
    out = np.zeros(k + 1)
    complete = True
    for m in range(2, k + 1):
        found = None
        if m <= p * q and complete:
            found = box_optimum(p, q, m, limit=BOX_LIMIT, nodes=BOX_NODES)
            complete = deadline is None or time.perf_counter() <= deadline[0]
        out[m] = found[0] if found is not None else math.ceil(m * out[m - 1] / (m - 2) - 1e-9)
    out.setflags(write=False)
    if complete:
        if len(_TABLES) >= _KEEP:
            _TABLES.pop(next(iter(_TABLES)), None)
        _TABLES[key] = out
    return out


@njit(cache=True)
def _outward(V, cap, a, b, first, last, m):  # pragma: no cover - compiled by numba
    """Least sum of V over m slots on the lines first..a and b..last (cap[t]
    at line t; inf when they do not fit), where V does not drop moving
    away from a and b: the cheaper of the two next lines first."""
    total = 0.0
    while m > 0:
        if a >= first and (b > last or V[a] <= V[b]):
            t = a
            a -= 1
        elif b <= last:
            t = b
            b += 1
        else:
            return math.inf
        take = min(cap[t], m)
        total += take * V[t]
        m -= take
    return total


@njit(cache=True)
def _fill_x(A, cap, l, u, m):  # pragma: no cover - compiled by numba
    """Least sum of A over m slots in columns l..u, cap[x] at column x
    (inf when they do not fit); A is convex, so the cheapest columns are
    a run around its least value."""
    xs = l
    for x in range(l + 1, u + 1):
        if A[x] < A[xs]:
            xs = x
    take = min(cap[xs], m)
    return take * A[xs] + _outward(A, cap, xs - 1, xs + 1, l, u, m - take)


@njit(cache=True)
def _fill_y(B, cap, lo, hi, m):  # pragma: no cover - compiled by numba
    """Least sum of B over m slots in the rows outside lo..hi, cap[y] at
    row y (inf when they do not fit); B grows away from lo..hi, which
    holds every point placed."""
    return _outward(B, cap, lo - 1, hi + 1, np.int64(0), len(B) - 1, m)  # not a literal 0 (see optalloc._jit)


@njit(cache=True)
def _line(pos, cap, m, buf):  # pragma: no cover - compiled by numba
    """Least W of m points on a line, cap[t] of them at pos[t] (sorted):
    a run of m consecutive points in sorted order is optimal, and a run
    s..s+m-1 costs ``sum_j (2 (j - s) - m + 1) z_j``."""
    n = 0
    for t in range(len(cap)):
        for _ in range(cap[t]):
            buf[n] = pos[t]
            n += 1
    if n < m:
        return math.inf
    if m <= 1:
        return 0.0
    s1 = 0.0
    s2 = 0.0
    for j in range(m):
        s1 += buf[j]
        s2 += j * buf[j]
    best = 2 * s2 - (m - 1) * s1
    for s in range(1, n - m + 1):
        out, inn = buf[s - 1], buf[s + m - 1]
        s1 += inn - out
        s2 += (s + m - 1) * inn - (s - 1) * out
        w = 2 * s2 - (2 * s + m - 1) * s1
        if w < best:
            best = w
    return best


@njit(cache=True)
def _split(B, cap, lo, hi, ys, m, plane, up, dn, alo, ahi):  # pragma: no cover - compiled by numba
    """A lower bound on the y-cross cost of m points put in the rows
    outside lo..hi (cap[y] in row y) plus their W among themselves: with a
    of them above and b below, the rows nearest first on each side, and
    W at least the box optima of a and of b points plus a b times the
    distance between the rows either side of lo..hi."""
    q = len(B)
    na = 0
    up[0] = 0.0
    y = lo - 1
    while y >= 0 and na < m:
        for _ in range(min(cap[y], m - na)):
            up[na + 1] = up[na] + B[y]
            na += 1
        y -= 1
    nb = 0
    dn[0] = 0.0
    y = hi + 1
    while y < q and nb < m:
        for _ in range(min(cap[y], m - nb)):
            dn[nb + 1] = dn[nb] + B[y]
            nb += 1
        y += 1
    gap = ys[hi + 1] - ys[lo - 1] if lo > 0 and hi < q - 1 else 0.0
    best = math.inf
    for a in range(max(0, m - nb, alo), min(m, na, ahi) + 1):
        b = m - a
        v = up[a] + dn[b] + plane[a] + plane[b] + a * b * gap
        if v < best:
            best = v
    return best


@njit(cache=True)
def _rest(free, xs, ys, A, B, lo, hi, l, u, m, rowpref, colpref, plane, budget, cc, rc, buf, up, dn, alo, ahi):  # pragma: no cover
    """A lower bound on the cost the m points still to place add (see the
    module notes), alo..ahi of them above the rows lo..hi, or inf as soon
    as one part exceeds ``budget``."""
    q, p = free.shape
    for y in range(q):
        rc[y] = 0 if lo <= y <= hi else rowpref[y, u + 1] - rowpref[y, l]
    for x in range(p):
        cc[x] = 0
    for x in range(l, u + 1):
        cc[x] = colpref[x, q] - colpref[x, hi + 1] + colpref[x, lo]
    cross = _fill_y(B, rc, lo, hi, m)
    if cross == math.inf:
        return math.inf
    fx = _fill_x(A, cc, l, u, m)
    cross += fx
    own = plane[m]
    if cross + own > budget:
        return math.inf
    own = max(own, _line(xs, cc, m, buf) + _line(ys, rc, m, buf))
    if cross + own > budget:
        return math.inf
    split = _split(B, rc, lo, hi, ys, m, plane, up, dn, alo, ahi)
    if fx + split > budget:
        return math.inf
    # each point pays A + B at its own cell: the cheapest free cells left,
    # above lo..hi and below it, a of them above and m - a below
    na = 0
    for y in range(lo):
        for x in range(l, u + 1):
            if free[y, x]:
                buf[na] = A[x] + B[y]
                na += 1
    nb = 0
    for y in range(hi + 1, q):
        for x in range(l, u + 1):
            if free[y, x]:
                buf[na + nb] = A[x] + B[y]
                nb += 1
    if na + nb < m:
        return math.inf
    above = np.sort(buf[:na])
    below = np.sort(buf[na : na + nb])
    gap = ys[hi + 1] - ys[lo - 1] if lo > 0 and hi < q - 1 else 0.0
    joint = math.inf  # cross and W among themselves, by the split
    best = math.inf  # cross alone
    sa = 0.0
    for a in range(min(m, na)):
        sa += above[a]
    sb = 0.0
    for b in range(m - min(m, na)):
        sb += below[b]
    for a in range(min(m, na), max(0, m - nb) - 1, -1):  # a above, m - a below
        b = m - a
        if alo <= a <= ahi:
            best = min(best, sa + sb)
            joint = min(joint, sa + sb + plane[a] + plane[b] + a * b * gap)
        if a > 0 and b < nb:
            sa -= above[a - 1]
            sb += below[b]
    return max(max(cross, best) + own, fx + split, joint)


@njit(cache=True)
def _above(dlo, dhi, m):  # pragma: no cover - compiled by numba
    """The least and most points above (of m still to place) when above
    less below lies in dlo..dhi."""
    alo = 0 if dlo == -math.inf else max(0, math.ceil((dlo + m) / 2 - 1e-9))
    ahi = m if dhi == math.inf else min(m, math.floor((dhi + m) / 2 + 1e-9))
    return alo, ahi


@njit(cache=True)
def _ends(line):  # pragma: no cover - compiled by numba
    """The first and last places of ``line`` that hold a chosen cell (-1, -1: none)."""
    first, last = -1, -1
    for t in range(len(line)):
        if line[t]:
            if first < 0:
                first = t
            last = t
    return first, last


@njit(cache=True)
def _balance(free, chosen, B, ys, lo, hi):  # pragma: no cover - compiled by numba
    """Bounds on d = (points still to place above the rows lo..hi) - (those
    below) in every optimal set that holds the cells ``chosen`` of those
    rows and none of their other free cells.

    In a column, let u be a chosen cell and v a free cell left out, both in
    rows lo..hi, with c = y_v - y_u.  The points still to place change
    B(y_v) - B(y_u) by c d, and the cells differ in y alone, so the swap
    condition reads ``B(y_v) - B(y_u) + c d >= |c|`` with B over the cells
    placed.  B is convex, so the slope (B(y_v) - B(y_u)) / c is least for
    the top chosen cell and the first free cell below the chosen ones (a
    lower bound on d), largest for the last free cell above them and the
    bottom chosen cell (an upper bound)."""
    dlo, dhi = -math.inf, math.inf
    for x in range(free.shape[1]):
        top, bot = _ends(chosen[lo : hi + 1, x])
        if top < 0:
            continue
        top, bot = top + lo, bot + lo
        for y in range(bot + 1, hi + 1):
            if free[y, x]:  # chosen cells form a run of free cells: y is left out
                dlo = max(dlo, 1.0 - (B[y] - B[top]) / (ys[y] - ys[top]) - 1e-9)
                break
        for y in range(top - 1, lo - 1, -1):
            if free[y, x]:
                dhi = min(dhi, -1.0 - (B[bot] - B[y]) / (ys[bot] - ys[y]) + 1e-9)
                break
    return dlo, dhi


@njit(cache=True)
def _spread_ok(free, chosen, A, xs, lo, hi, m):  # pragma: no cover - compiled by numba
    """Whether the m points still to place can sit in columns between the
    free cells each row of lo..hi leaves out, as the swap condition in x
    wants of an optimal set.

    In row y let the chosen cells run from cl to cr, and vl < cl, vr > cr
    be the nearest free cells left out (every point still to place lies
    strictly between them).  Swapping cr for vl changes W by
    ``A(vl) - A(cr) - (cr - vl)``, and the points r still to place add
    ``m (cr - vl) - 2 E_L`` to A(vl) - A(cr), with E_L = sum over r of
    max(0, cr - r_x); so ``E_L <= G_L = (A_P(vl) - A_P(cr) + (m - 1) (cr -
    vl)) / 2`` with A_P over the points placed, and likewise
    E_R = sum of max(0, r_x - cl) <= G_R.  Every point adds at least
    cr' - cl'' to E_L at cr' plus E_R at cl'' (cr' >= cl''), so
    ``G_L(row 1) + G_R(row 2) >= m (cr_1 - cl_2)`` for every two rows."""
    p = free.shape[1]
    n = hi - lo + 1
    gl = np.full(n, math.inf)  # G_L of each row and its cr
    gr = np.full(n, math.inf)
    at_r = np.zeros(n)
    at_l = np.zeros(n)
    for i in range(n):
        y = lo + i
        cl, cr = _ends(chosen[y])
        if cl < 0:
            continue
        for x in range(cl - 1, -1, -1):
            if free[y, x]:  # left out: the chosen cells are a run of free cells
                gl[i] = (A[x] - A[cr] + (m - 1) * (xs[cr] - xs[x])) / 2
                at_r[i] = xs[cr]
                break
        for x in range(cr + 1, p):
            if free[y, x]:
                gr[i] = (A[x] - A[cl] + (m - 1) * (xs[x] - xs[cl])) / 2
                at_l[i] = xs[cl]
                break
    for i in range(n):
        if gl[i] < -1e-9 or gr[i] < -1e-9:
            return False
    for i in range(n):
        if gl[i] == math.inf:
            continue
        for j in range(n):
            if gr[j] == math.inf or at_r[i] < at_l[j]:
                continue
            if gl[i] + gr[j] < m * (at_r[i] - at_l[j]) - 1e-9:
                return False
    return True


@njit(cache=True)
def _value_tables(free, v, depth):  # pragma: no cover - compiled by numba
    """``(top, bot)``: ``top[r, l, u, j]`` is the sum of the j least ``v``
    over the free cells of rows < r in columns l..u, ``bot[r, l, u, j]``
    over rows >= r, for j <= depth (inf where fewer cells)."""
    q, p = free.shape
    top = np.full((q + 1, p, p, depth + 1), math.inf)
    bot = np.full((q + 1, p, p, depth + 1), math.inf)
    least = np.zeros(depth)
    for l in range(p):
        for u in range(l, p):
            for side in range(2):
                out = top if side == 0 else bot
                n = 0
                for step in range(q + 1):
                    r = step if side == 0 else q - step
                    total = 0.0
                    out[r, l, u, 0] = 0.0
                    for j in range(n):
                        total += least[j]
                        out[r, l, u, j + 1] = total
                    if step == q:
                        break
                    y = step if side == 0 else q - 1 - step
                    for x in range(l, u + 1):
                        if not free[y, x]:
                            continue
                        val = v[y, x]
                        if n == depth and val >= least[depth - 1]:
                            continue
                        i = n if n < depth else depth - 1
                        while i > 0 and least[i - 1] > val:
                            least[i] = least[i - 1]
                            i -= 1
                        least[i] = val
                        if n < depth:
                            n += 1
    return top, bot


@njit(cache=True)
def _value_rest(top, bot, lo, hi, l, u, m, alo, ahi):  # pragma: no cover - compiled by numba
    """Least sum of the values of m points in columns l..u, a of them in
    the rows above lo and m - a below hi, over a in [alo, ahi]; past the
    tables' depth each further point costs the last value tabled."""
    depth = top.shape[3] - 1
    best = math.inf
    for a in range(max(alo, 0), min(ahi, m) + 1):
        s = _tabled(top, lo, l, u, a, depth) + _tabled(bot, hi + 1, l, u, m - a, depth)
        if s < best:
            best = s
    return best


@njit(cache=True)
def _tabled(t, r, l, u, j, depth):  # pragma: no cover - compiled by numba
    """Entry j of the table ``t`` at (r, l, u), extended past ``depth`` by
    the last value tabled per further point (inf when the table is)."""
    if j <= depth:
        return t[r, l, u, j]
    full = t[r, l, u, depth]
    if full == math.inf:
        return math.inf
    return full + (j - depth) * (full - t[r, l, u, depth - 1])
