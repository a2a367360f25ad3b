"""Swap descent on a grid (mesh or torus), compiled: the ``+Inc`` of MM+Inc.

Swap descent keeps, per axis, ``g[a][v]`` = sum of the axis distances
from coordinate v to the chosen set, so s(p) = sum_a g[a][p_a] costs d
reads; swapping chosen i for unchosen j changes W by s(j) - s(i) - d(i, j),
and ``s(j) - max_i s(i) - far(j)`` (far(j): the largest axis distances
from j to the chosen set, summed) bounds that from below, which leaves
few j to score against every chosen i.  The grid's points are those of
:class:`._centres.Grid` (cell coordinates ``co``, per axis the length L and
whether it wraps); :func:`._centres.grid_swap` runs the descent on a Grid.
"""

from __future__ import annotations

import numpy as np

from ...._jit import njit

__all__ = ["grid_descent"]


@njit(cache=True)
def _axis_dist(u, v, L, wrap):
    t = abs(u - v)
    if wrap and 2 * t > L:
        t = L - t
    return t


@njit(cache=True)
def _axis_tables(h, L, wrap):
    """g[v]: the sum of axis distances from coordinate v to the chosen
    points, whose coordinates are counted in h."""
    g = np.zeros(L, dtype=np.int64)
    if wrap:
        for u in range(L):
            if h[u] == 0:
                continue
            for v in range(L):
                g[v] += h[u] * _axis_dist(u, v, L, wrap)
        return g
    left = 0  # chosen points below v, and the sum of their coordinates
    sleft = 0
    tot = 0
    stot = 0
    for u in range(L):
        tot += h[u]
        stot += h[u] * u
    for v in range(L):
        g[v] = v * left - sleft + (stot - sleft - v * h[v]) - v * (tot - left - h[v])
        left += h[v]
        sleft += h[v] * v
    return g


@njit(cache=True)
def _extent(h, L):
    """The least and largest coordinate counted in h."""
    lo = 0
    while lo < L - 1 and h[lo] == 0:
        lo += 1
    hi = L - 1
    while hi > 0 and h[hi] == 0:
        hi -= 1
    return lo, hi


@njit(cache=True)
def _far(v, lo, hi, L, wrap):
    """At least the largest axis distance from v to a chosen coordinate."""
    if wrap:
        return L // 2
    return max(v - lo, hi - v)


@njit(cache=True)
def _by_value(f):
    """Coordinates of an axis in ascending order of ``f``."""
    return np.argsort(f, kind="mergesort")


@njit(cache=True)
def grid_descent(co, L, wrap, inside, max_swaps, tol_once, exact_from=10 ** 9):
    """Best-improvement swaps from the chosen points (``inside``, changed
    in place) to a local minimum: each step takes the pair of least
    ``delta = s(j) - s(i) - d(i, j)``, the lowest chosen row i and then
    the lowest unchosen row j on ties, while delta < -tol, with
    ``tol = 1e-9 * max(1, max_p s(p))`` over every point, at each step or
    (``tol_once``) at the first.  ``max_swaps`` < 0: no limit.  Returns the
    number of swaps.

    Only the unchosen j of ``lb(j) = s(j) - max_i s(i) - far(j) < -tol``
    can swap, and lb is a sum over axes of ``g[a][v] - far_a(v)``: they
    are found cell by cell from the axes' values in ascending order, not
    by a pass over every point.  While ``sum_a max_v g[a][v] < 1e9`` the
    integer deltas compare with any tol below 1 alike, so max_p s(p) is
    read only from ``exact_from`` (default 1e9) on."""
    n = len(co)
    d = co.shape[1]
    width = max(L[0], L[1], L[2])
    hist = np.zeros((d, width), dtype=np.int64)
    g = np.zeros((d, width), dtype=np.int64)
    lo = np.zeros(d, dtype=np.int64)
    hi = np.zeros(d, dtype=np.int64)
    occ = np.full(L[0] * L[1] * L[2], -1, dtype=np.int64)
    step = np.ones(3, dtype=np.int64)
    step[1] = L[0]
    step[2] = L[0] * L[1]
    k = 0
    for p in range(n):
        cell = 0
        for a in range(d):
            cell += co[p, a] * step[a]
        occ[cell] = p
        if inside[p]:
            k += 1
            for a in range(d):
                hist[a, co[p, a]] += 1
    for a in range(d):
        g[a, : L[a]] = _axis_tables(hist[a], L[a], wrap[a])
        lo[a], hi[a] = _extent(hist[a], L[a])
    cin = np.empty(k, dtype=np.int64)  # the chosen rows, in any order
    t = 0
    for p in range(n):
        if inside[p]:
            cin[t] = p
            t += 1
    sin = np.empty(k, dtype=np.int64)
    key = np.empty(k, dtype=np.int64)
    f = np.zeros((3, width), dtype=np.int64)  # g[a][v] - far_a(v); 0 on the padded axes
    fmin = np.zeros(3, dtype=np.int64)
    cand = np.empty(n, dtype=np.int64)
    clb = np.empty(n, dtype=np.int64)
    swaps = 0
    tol = -1.0
    while max_swaps < 0 or swaps < max_swaps:
        if k == n or k == 0:
            break
        for q in range(k):
            p = cin[q]
            sp = 0
            for a in range(d):
                sp += g[a, co[p, a]]
            sin[q] = sp
            key[q] = -sp * n + p
        # the chosen by s descending (rows ascending on ties): the pair
        # search for one j stops once s(i) + far(j) falls below its best
        order = np.argsort(key)
        cin = cin[order]
        sin = sin[order]
        smax = sin[0]
        if tol < 0 or not tol_once:
            top = 0
            for a in range(d):
                top += g[a, : L[a]].max()
            if top < min(exact_from, 10 ** 9):
                tol = 0.5  # as 1e-9 max(1, max_p s(p)) < 1 for integer deltas
            else:
                sall = smax
                for p in range(n):
                    sp = 0
                    for a in range(d):
                        sp += g[a, co[p, a]]
                    sall = max(sall, sp)
                tol = 1e-9 * max(1.0, float(sall))
        # the unchosen of lb < -tol, the first of least lb (lowest row on ties) scored first
        for a in range(d):
            for v in range(L[a]):
                f[a, v] = g[a, v] - _far(v, lo[a], hi[a], L[a], wrap[a])
            fmin[a] = f[a, : L[a]].min()
        limit = smax - tol
        o0 = _by_value(f[0, : L[0]])
        o1 = _by_value(f[1, : L[1]])
        o2 = _by_value(f[2, : L[2]])
        m = 0
        jbest = -1
        for x in o0:
            v0 = f[0, x]
            if v0 + fmin[1] + fmin[2] >= limit:
                break
            for y in o1:
                v1 = v0 + f[1, y]
                if v1 + fmin[2] >= limit:
                    break
                for z in o2:
                    v2 = v1 + f[2, z]
                    if v2 >= limit:
                        break
                    p = occ[x + step[1] * y + step[2] * z]
                    if p < 0 or inside[p]:
                        continue
                    cand[m] = p
                    clb[m] = v2 - smax
                    if jbest < 0 or clb[m] < clb[jbest] or (clb[m] == clb[jbest] and p < cand[jbest]):
                        jbest = m
                    m += 1
        if m == 0:
            break
        best = 0
        bi = -1
        bj = -1
        for phase in range(2):
            for t in range(m):
                if phase == 0:
                    if t != jbest:
                        continue
                elif t == jbest or clb[t] > best:
                    continue
                p = cand[t]
                sj = 0
                far = 0
                for a in range(d):
                    sj += g[a, co[p, a]]
                    far += _far(co[p, a], lo[a], hi[a], L[a], wrap[a])
                top = -1  # the largest s(i) + d(i, j), and the lowest row i reaching it
                ti = -1
                for q in range(k):
                    if sin[q] + far < top:
                        break
                    i = cin[q]
                    dij = 0
                    for a in range(d):
                        dij += _axis_dist(co[i, a], co[p, a], L[a], wrap[a])
                    val = sin[q] + dij
                    if val > top or (val == top and i < ti):
                        top = val
                        ti = i
                delta = sj - top
                if bi < 0 or delta < best or (delta == best and (ti < bi or (ti == bi and p < bj))):
                    best = delta
                    bi = ti
                    bj = p
        if best >= -tol:
            break
        inside[bi] = False
        inside[bj] = True
        for q in range(k):
            if cin[q] == bi:
                cin[q] = bj
        for a in range(d):
            u = co[bi, a]
            v = co[bj, a]
            hist[a, u] -= 1
            hist[a, v] += 1
            for x in range(L[a]):
                g[a, x] += _axis_dist(x, v, L[a], wrap[a]) - _axis_dist(x, u, L[a], wrap[a])
            lo[a], hi[a] = _extent(hist[a], L[a])
        swaps += 1
    return swaps
