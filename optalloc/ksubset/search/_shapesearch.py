"""Exact search over the shapes an optimal set can take, for 2D lattice points.

Swapping a chosen point u of a set S for a free point v outside it changes
W by ``grad(v) - grad(u) - D(u, v)``, where ``grad(z)`` is the sum of the
distances from z to the points of S.  So in an optimal set
``grad(v) - grad(u) >= D(u, v) > 0`` for every chosen u and free v left
out: S is the set of free points where grad is below some level.  Under
the L1 distance grad separates, ``grad(x, y) = A(x) + B(y)`` with
``A(x) = sum over S of |x - s_x|`` and B likewise, both convex.  Hence
(for every optimal set, with any free cells):

* each row y takes the free cells of an interval ``J_y = {x : A(x) <=
  level - B(y)}``, and the intervals are nested: ordered by B, each lies
  in the ones before;
* ordered by B (a convex function), the rows grow an interval of rows,
  one row at a time above or below.

The search builds the sets in that order: a first row, then one row at a
time just above or just below the rows so far, each taking a window of
its free cells inside the interval left by the rows before.  A row's
window ``C`` may sit in any interval from its own span to the largest one
that avoids the row's other free cells; every later row must lie in all of
those largest intervals, so only the largest is kept (a window of no cells
keeps one of the gaps between the row's free cells).  Two moves in a row,
one down then one up, lead to the same state in either order whenever the
second order is allowed too; only the up-first order is searched then.

Each partial set S, with m points still to place in the rows outside its
rows and in the columns of the current interval, costs at least

    W(S) + (cross: each point still to place pays its distance sum to S)
         + (the points still to place among themselves).

With a of them above the rows of S and m - a below, the cross part is at
least the a least ``A(x) + B(y)`` over the free cells left above plus the
m - a least below, and the other part at least the least W of a and of
m - a cells of an idle box of the machine's sides
(:func:`._box.box_optimum`) plus a (m - a) times the distance between the
rows either side of S's; the bound is the least over a
(:func:`._shapebounds._rest`).  Cheaper bounds go first: each axis filled
on its own under the free cells left, and the 1D optima of the two axes
(an optimal choice on a line is a run of consecutive points, SAND2003
sec. 4).  The swap condition bounds a too: a column's chosen cells and
the free cells it leaves out in S's rows fix how B may change between
them, and the points still to place change it by (2a - m) times their
distance (:func:`._shapebounds._balance`); in a row, the free cells left
out either side of the chosen run bound how far the points still to
place may spread left and right of it (:func:`._shapebounds._spread_ok`).

Given values such that every k-set weighs at least the sum of its
points' values (a Lagrangian bound's, :class:`._star.StarBound`), a set
below a node weighs at least the values of its points placed plus the m
least values in the rows outside S's and the columns of the interval
(split above and below within the balance's range; tabled per band of
rows and interval of columns by :func:`._shapebounds._value_tables`).

Only sets of W at most a target are sought, and the target drops below
each set found, so a search that ends proves its best set optimal (or the
optimum above the target).  The objective must be an integer, as it is on
lattice points.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..._jit import njit
from .._common import as_int, distinct_lattice, validate_k, validate_points, validate_positive
from ._profilesearch import deadline_array, now
from ._shapebounds import _above, _balance, _box_table, _rest, _spread_ok, _value_rest, _value_tables

__all__ = ["ShapeGrid", "shape_grid", "shape_search", "shape_search_grid"]

#: the tables of least values (``values`` of :func:`shape_search_grid`)
#: hold sums of up to this many points; beyond, each further point costs
#: the last value tabled
_VALUE_DEPTH = 64


class ShapeGrid(NamedTuple):
    """2D lattice points on their grid of distinct coordinates."""

    free: np.ndarray  # free[i, j]: a point at (xs[j], ys[i]) (rows first)
    xs: np.ndarray  # the distinct x values (float)
    ys: np.ndarray  # the distinct y values (float)
    index: np.ndarray  # index[i, j]: the point at (xs[j], ys[i]), -1 where none


def shape_grid(points) -> ShapeGrid | None:
    """The grid of ``points``, or None unless they are distinct 2D
    lattice points."""
    pts = validate_points(points)
    if pts.shape[1] != 2 or not distinct_lattice(pts):
        return None
    pts = pts.astype(np.int64)
    xs, xi = np.unique(pts[:, 0], return_inverse=True)
    ys, yi = np.unique(pts[:, 1], return_inverse=True)
    index = np.full((len(ys), len(xs)), -1, dtype=np.int64)
    index[yi, xi] = np.arange(len(pts))
    return ShapeGrid(index >= 0, xs.astype(float), ys.astype(float), index)


@njit(cache=True)
def _place(free, xs, ys, y, a, b, on, chosen, A, B):  # pragma: no cover - compiled by numba
    """Put the free cells of row y in columns a..b into the set (``on`` 1)
    or take them out (0): ``chosen`` and the potentials A and B follow."""
    sign = 1.0 if on else -1.0
    cnt = 0
    for x in range(a, b + 1):
        if free[y, x]:
            chosen[y, x] = on
            cnt += 1
            for z in range(len(A)):
                A[z] += sign * abs(xs[z] - xs[x])
    for z in range(len(B)):
        B[z] += sign * cnt * abs(ys[z] - ys[y])


@njit(cache=True, nogil=True)
def _shapes(free, xs, ys, k, plane, target, node_cap, deadline, best, vals, vtop, vbot):  # pragma: no cover
    """The search of the module notes below ``target``; returns (best W or
    inf, nodes, complete) and the best set in ``best``.  With ``vtop`` of
    more than one row, ``vals`` (values per cell) and their tables bound
    every set below a node too."""
    q, p = free.shape
    use_v = vtop.shape[0] > 1
    # the values' sums hold up to rounding (see _star)
    vslack = 1e-7 * max(1.0, abs(target)) if target < math.inf else 0.0
    rowpref = np.zeros((q, p + 1), dtype=np.int64)  # free cells of row y in columns < x
    for y in range(q):
        for x in range(p):
            rowpref[y, x + 1] = rowpref[y, x] + free[y, x]
    colpref = np.zeros((p, q + 1), dtype=np.int64)  # free cells of column x in rows < y
    for x in range(p):
        for y in range(q):
            colpref[x, y + 1] = colpref[x, y] + free[y, x]
    width = 2 * (p * (p + 1) // 2 + p + 1)
    # the moves found at each depth: row, span of its cells [a, b] (a > b:
    # none), the interval [l, u] left, W after it
    oy = np.zeros((q + 1, width), dtype=np.int64)
    oa = np.zeros((q + 1, width), dtype=np.int64)
    ob = np.zeros((q + 1, width), dtype=np.int64)
    ol = np.zeros((q + 1, width), dtype=np.int64)
    ou = np.zeros((q + 1, width), dtype=np.int64)
    ow = np.zeros((q + 1, width))
    ov = np.zeros((q + 1, width))  # the values of the points placed after it
    nopt = np.zeros(q + 1, dtype=np.int64)
    cur = np.zeros(q + 1, dtype=np.int64)
    # the state at each depth: rows lo..hi placed, interval [l, u], m left,
    # W so far; whether the move into it went up, and its span
    slo = np.zeros(q + 1, dtype=np.int64)
    shi = np.zeros(q + 1, dtype=np.int64)
    sl = np.zeros(q + 1, dtype=np.int64)
    su = np.zeros(q + 1, dtype=np.int64)
    sm = np.zeros(q + 1, dtype=np.int64)
    sw = np.zeros(q + 1)
    sv = np.zeros(q + 1)
    sup = np.zeros(q + 1, dtype=np.bool_)
    sa = np.zeros(q + 1, dtype=np.int64)
    sb = np.zeros(q + 1, dtype=np.int64)
    # the points still to place above the rows lo..hi less those below, at
    # least sdlo and at most sdhi (see _balance)
    sdlo = np.zeros(q + 1)
    sdhi = np.zeros(q + 1)
    A = np.zeros(p)  # sum of |x - s_x| over the points placed
    B = np.zeros(q)
    A2 = np.zeros(p)
    B2 = np.zeros(q)
    cc = np.zeros(p, dtype=np.int64)
    rc = np.zeros(q, dtype=np.int64)
    buf = np.zeros(p * q + 1)
    up = np.zeros(k + 1)
    dn = np.zeros(k + 1)
    cand = np.zeros(2, dtype=np.int64)
    cells = np.zeros(p, dtype=np.int64)
    chosen = np.zeros((q, p), dtype=np.int8)
    found = math.inf
    nodes = 0
    for first in range(q):  # the row of least B
        d = 0
        slo[0], shi[0], sl[0], su[0], sm[0], sw[0], sv[0] = first, first - 1, 0, p - 1, k, 0.0, 0.0
        sdlo[0], sdhi[0] = -math.inf, math.inf
        expand = True
        while d >= 0:
            if expand:
                expand = False
                nopt[d] = 0
                cur[d] = 0
                lo, hi, l, u, m, w = slo[d], shi[d], sl[d], su[d], sm[d], sw[d]
                nc = 0
                if d == 0:
                    cand[0] = first
                    nc = 1
                else:
                    if lo > 0:
                        cand[nc] = lo - 1
                        nc += 1
                    if hi < q - 1:
                        cand[nc] = hi + 1
                        nc += 1
                for ic in range(nc):
                    y = cand[ic]
                    nlo, nhi = min(lo, y), max(hi, y)
                    # the balance of the points still to place, seen from the
                    # rows nlo..nhi: a row above moves its points from above
                    # to placed, a row below from below
                    shift = -1.0 if (d > 0 and y < lo) else 1.0
                    # a move up right after a move down (or the first row)
                    # that commutes with it: searched in the other order
                    swap = d > 0 and y < lo and not sup[d]
                    t = 0
                    for x in range(l, u + 1):
                        if free[y, x]:
                            cells[t] = x
                            t += 1
                    for g in range(t + 1):  # no cells: the interval keeps a gap
                        gl = cells[g - 1] + 1 if g > 0 else l
                        gu = cells[g] - 1 if g < t else u
                        if gl > gu or (swap and (sa[d] > sb[d] or (gl <= sa[d] and sb[d] <= gu))):
                            continue
                        alo, ahi = _above(sdlo[d], sdhi[d], m)
                        if w + _rest(free, xs, ys, A, B, nlo, nhi, gl, gu, m, rowpref, colpref, plane, target - w,
                                     cc, rc, buf, up, dn, alo, ahi) <= target:
                            i = nopt[d]
                            oy[d, i], oa[d, i], ob[d, i], ol[d, i], ou[d, i], ow[d, i] = y, 1, 0, gl, gu, w
                            ov[d, i] = sv[d]
                            nopt[d] += 1
                    for a in range(t):
                        add = 0.0
                        vadd = sv[d]
                        for x in range(p):
                            A2[x] = A[x]
                        for b in range(a, t):
                            cnt = b - a + 1
                            if cnt > m:
                                break
                            xb = xs[cells[b]]
                            for s in range(a, b):
                                add += xb - xs[cells[s]]
                            add += A[cells[b]] + B[y]
                            if use_v:  # without values ``vals`` is a 1 x 1 placeholder
                                vadd += vals[y, cells[b]]
                            for x in range(p):
                                A2[x] += abs(xs[x] - xb)
                            nl = cells[a - 1] + 1 if a > 0 else l
                            nu = cells[b + 1] - 1 if b < t - 1 else u
                            if swap and (sa[d] > sb[d] or (nl <= sa[d] and sb[d] <= nu)):
                                continue
                            nw = w + add
                            if nw > target:
                                continue
                            if cnt < m:
                                for z in range(q):
                                    B2[z] = B[z] + cnt * abs(ys[z] - ys[y])
                                alo, ahi = _above(sdlo[d] + shift * cnt, sdhi[d] + shift * cnt, m - cnt)
                                if use_v and vadd + _value_rest(vtop, vbot, nlo, nhi, nl, nu, m - cnt, alo,
                                                                ahi) > target + vslack:
                                    continue
                                if nw + _rest(free, xs, ys, A2, B2, nlo, nhi, nl, nu, m - cnt, rowpref, colpref,
                                              plane, target - nw, cc, rc, buf, up, dn, alo, ahi) > target:
                                    continue
                            i = nopt[d]
                            oy[d, i], oa[d, i], ob[d, i], ol[d, i], ou[d, i], ow[d, i] = y, cells[a], cells[b], nl, nu, nw
                            ov[d, i] = vadd
                            nopt[d] += 1
            if cur[d] >= nopt[d]:
                d -= 1
                if d >= 0:  # undo the move that led to depth d + 1
                    i = cur[d] - 1
                    _place(free, xs, ys, oy[d, i], oa[d, i], ob[d, i], 0, chosen, A, B)
                continue
            i = cur[d]
            cur[d] += 1
            nodes += 1
            if nodes >= node_cap or ((nodes & 4095) == 0 and now() > deadline[0]):
                return found, nodes, False
            if ow[d, i] > target:  # the target dropped since the move was found
                continue
            y, a, b = oy[d, i], oa[d, i], ob[d, i]
            cnt = 0
            for x in range(a, b + 1):
                cnt += free[y, x]
            m = sm[d] - cnt
            if m == 0:
                found = ow[d, i]
                target = found - 1.0
                best[:, :] = chosen
                for x in range(a, b + 1):
                    if free[y, x]:
                        best[y, x] = 1
                continue
            _place(free, xs, ys, y, a, b, 1, chosen, A, B)
            lo = min(slo[d], y) if d > 0 else y
            hi = max(shi[d], y) if d > 0 else y
            d += 1
            slo[d], shi[d], sl[d], su[d], sm[d], sw[d] = lo, hi, ol[d - 1, i], ou[d - 1, i], m, ow[d - 1, i]
            sv[d] = ov[d - 1, i]
            sup[d] = d > 1 and y < slo[d - 1]
            sa[d], sb[d] = a, b
            shift = -1.0 if sup[d] else 1.0
            dlo, dhi = _balance(free, chosen, B, ys, lo, hi)
            sdlo[d] = max(dlo, sdlo[d - 1] + shift * cnt)
            sdhi[d] = min(dhi, sdhi[d - 1] + shift * cnt)
            alo, ahi = _above(sdlo[d], sdhi[d], m)
            if alo > ahi or not _spread_ok(free, chosen, A, xs, lo, hi, m):  # no set below is optimal
                nopt[d] = 0
                cur[d] = 0
                continue
            expand = True
    return found, nodes, True


def shape_search_grid(grid: ShapeGrid, k: int, target: float, *, node_limit: int = 10**12,
                      time_limit: float | None = None, deadline=None, values=None):
    """The least W of k points of ``grid`` (at most ``target``): returns
    ``(value, indices, complete)``, value inf and indices None when no set
    of W <= target was found; ``complete`` when the search ended, so that
    no set of W <= target (or below the value) exists.

    ``values`` (one per point, in the order of ``grid.index``): values
    such that every k-set weighs at least the sum of its points' values
    (:attr:`._star.StarBound.values`); they bound the sets below each node
    too."""
    q, p = grid.free.shape
    deadline = deadline_array(time_limit, deadline)
    plane = _box_table(p, q, int(k), deadline)
    best = np.zeros((q, p), dtype=np.int8)
    free = grid.free.astype(np.int8)
    if values is None:
        vals, vtop, vbot = np.zeros((1, 1)), np.zeros((1, 1, 1, 1)), np.zeros((1, 1, 1, 1))
    else:
        vals = np.zeros((q, p))
        vals[grid.free] = np.asarray(values, dtype=float)[grid.index[grid.free]]
        vtop, vbot = _value_tables(free, vals, max(1, min(int(k), _VALUE_DEPTH)))
    value, _, complete = _shapes(free, grid.xs, grid.ys, int(k), plane, float(target), int(node_limit), deadline,
                                 best, vals, vtop, vbot)
    if value == math.inf:
        return math.inf, None, bool(complete)
    return float(value), np.sort(grid.index[best.astype(bool)]), bool(complete)


def shape_search(points, k: int, upper: float, *, node_limit: int = 10**12, time_limit: float | None = None):
    """Least W below ``upper`` over k of ``points`` (distinct 2D integer
    points), by the search over shapes of the module notes.

    Returns ``(value, indices, lower)``: the best set found below
    ``upper`` (None, None when none was found) and a proven lower bound
    on the optimum when the search ended (``value``, or ``upper`` when no
    set lies below it), else None.  Returns None when the points are not
    distinct 2D lattice points.  The search stops after ``node_limit``
    nodes or ``time_limit`` seconds.
    """
    upper = float(upper)
    if math.isnan(upper):
        raise ValueError("`upper` must be a number, got nan")
    grid = shape_grid(points)
    if grid is None:
        return None
    k = validate_k(k, int(grid.free.sum()))
    node_limit = as_int(node_limit, "node_limit")
    if node_limit < 1:
        raise ValueError(f"`node_limit` must be at least 1, got {node_limit}")
    time_limit = validate_positive(time_limit, "time_limit")
    target = math.ceil(upper) - 1.0 if upper < math.inf else math.inf  # W is an integer
    value, idx, complete = shape_search_grid(grid, k, target, node_limit=node_limit, time_limit=time_limit)
    found = value < math.inf
    lower = (value if found else upper) if complete else None
    return (value, idx, lower) if found else (None, None, lower)
