"""Boundary vectors of the strip-enumeration PTAS, one axis at a time
(:mod:`._ptas`; the structures are searched in :mod:`._ptassearch`).

On axis a a structure has m - 1 pins b_1 < ... < b_{m-1}, ranks in the
order of axis a (by that coordinate, then the others, then the index):
slice 0 holds the ranks below b_1, slice i the ranks from b_i up to
b_{i+1}, the last one every rank from b_{m-1} on; the pin b_i is the first
point of slice i in the chosen set, which holds s_i points of slice i.

Every bound here is a lower bound on the weight W of every k-set that has
these slices and pins (it "fits" them), so a vector whose bound reaches
the incumbent holds no lighter set and is dropped:

* B: the 1-D weight on axis a, sum_t c_t (2t - k + 1) over the sorted
  coordinates, slice i taking the positions before_i .. before_i + s_i
  - 1.  With the coefficients increasing inside a slice, the least choice
  in a slice is a window of consecutive ranks (after the pin), so the
  least B given the pins is a sum of window minima, and F[i][b], the least
  cost of slices i .. m - 1 with b_i = b, a DP over the ranks; a partial
  vector is bounded by its cost so far plus F.
* Off axis a: the pins' own weight, and :func:`pin_rest` (the pins'
  distances to the other k - #pins points, at least the least such
  distances, plus the least weight of k - #pins points).
* :func:`_group_dp`: with the slices cut so far (the others one group),
  the least weight on another axis e of a set with those slice counts and
  pins (X), and the least of its weight on e plus its linear part on
  axis a, sum_p g(slice_a(p)) p_a, which is the distance between points
  of different slices (Z, plus the slices' least own weights, omega);
  exact DPs over the order of axis e whose state counts the points taken
  in each group.
"""

from __future__ import annotations

import numpy as np

from ...._jit import njit

#: the DP of :func:`_group_dp` runs only below this many states
DP_STATES = 1 << 12


@njit(cache=True)
def _slice_offsets(sizes):  # pragma: no cover - compiled
    """``before[i]``: the points of the slices left of slice i;
    ``tail[i]``: those of slices i .. m - 1 (``tail[m] = 0``)."""
    m = sizes.shape[0]
    before = np.zeros(m, np.int64)
    tail = np.zeros(m + 1, np.int64)
    for i in range(1, m):
        before[i] = before[i - 1] + sizes[i - 1]
    for i in range(m - 1, -1, -1):
        tail[i] = tail[i + 1] + sizes[i]
    return before, tail


@njit(cache=True)
def axis_tables(c, sizes, k):  # pragma: no cover - compiled
    """The 1-D tables of one axis with sorted coordinates ``c``.

    Slice 0 is open to the left; slice i >= 1 starts at its pinned point
    b_i (its first chosen point).  C[0, j]: the weight terms of slice 0's
    window of ranks j .. j + s_0 - 1; C[i, j], i >= 1: those of the s_i - 1
    points after the pin, ranks j .. j + s_i - 2.  D likewise for the
    slice's own weight (the pin's term apart).  F[i, b]: the least cost of
    slices i .. m - 1 with the pin of slice i at b (F[0, 0]: of all the
    slices).  Dlast[b]: the least own weight of the last slice with its
    pin at b."""
    n = c.shape[0]
    m = sizes.shape[0]
    before, tail = _slice_offsets(sizes)
    C = np.full((m, n + 2), np.inf)
    D = np.full((m, n + 2), np.inf)
    for i in range(m):
        s = sizes[i]
        first = 0 if i == 0 else 1
        for j in range(n - s + first + 1):
            lin = 0.0
            own = 0.0
            for u in range(first, s):
                v = c[j + u - first]
                lin += (2 * (before[i] + u) - k + 1) * v
                own += (2 * u - s + 1) * v
            C[i, j] = lin
            D[i, j] = own
    F = np.full((m, n + 1), np.inf)
    Dlast = np.full(n + 1, np.inf)
    last = m - 1
    s = sizes[last]
    if m == 1:
        for j in range(n - s + 1):
            F[0, 0] = min(F[0, 0], C[0, j])
            Dlast[0] = min(Dlast[0], D[0, j])
        return C, D, F, Dlast
    run = np.inf
    own = np.inf
    for b in range(n - s, -1, -1):  # the pin at b, the others from b + 1 on
        run = min(run, C[last, b + 1])
        own = min(own, D[last, b + 1])
        F[last, b] = (2 * before[last] - k + 1) * c[b] + run
        Dlast[b] = (1 - s) * c[b] + own
    for i in range(m - 2, -1, -1):
        s = sizes[i]
        first = 0 if i == 0 else 1
        for b in range(before[i], n - tail[i] + 1):
            if i == 0 and b > 0:
                break
            run = np.inf
            best = np.inf
            for e in range(b + s, n - tail[i + 1] + 1):
                run = min(run, C[i, e - s + first])
                v = run + F[i + 1, e]
                best = min(best, v)
            head = 0.0 if i == 0 else (2 * before[i] - k + 1) * c[b]
            F[i, b] = head + best
    return C, D, F, Dlast


@njit(cache=True)
def least_weights(c, k):  # pragma: no cover - compiled
    """opt[r]: the least 1-D weight of r of the sorted coordinates ``c``
    (a window of r consecutive ones), r = 0 .. k."""
    n = c.shape[0]
    opt = np.zeros(k + 1)
    for r in range(2, k + 1):
        best = np.inf
        for j in range(n - r + 1):
            w = 0.0
            for u in range(r):
                w += (2 * u - r + 1) * c[j + u]
            best = min(best, w)
        opt[r] = best
    return opt


@njit(cache=True)
def pin_rest(near, pins, npin, k, a, spread, opt1, scratch):  # pragma: no cover - compiled
    """A bound on the weight off axis ``a`` (``a`` = -1: on every axis) of
    a k-set holding the points ``pins[:npin]``: their own weight
    (``spread``), the r = k - npin least distances ``near`` of the other
    points to them, and the least weight of any r points (``opt1``)."""
    r = k - npin
    total = 0.0
    for e in range(spread.shape[0]):
        if e != a:
            total += spread[e] + opt1[e, r]
    if r == 0:
        return total
    n = near.shape[0]
    scratch[:n] = near
    for u in range(npin):
        scratch[pins[u]] = np.inf
    part = np.partition(scratch[:n], r - 1) if r < n else scratch[:n]
    for t in range(r):
        total += part[t]
    return total


@njit(cache=True)
def _group_dp(e, a, order, coord, x, group_of, quota, lin, pinned, alive, k):  # pragma: no cover - compiled
    """``(least w_e, least of sum lin + w_e)`` over the k-sets of live
    points holding ``quota[i]`` points of group i and every pinned point:
    a DP over the order of axis e whose state counts the points taken in
    each group (their sum is the position of the next point, hence its
    coefficient 2 pos - k + 1)."""
    groups = quota.shape[0]
    n = order.shape[1]
    radix = np.ones(groups + 1, np.int64)
    for i in range(groups):
        radix[i + 1] = radix[i] * (quota[i] + 1)
    nst = radix[groups]
    cnt = np.zeros((nst, groups), np.int64)
    pos = np.zeros(nst, np.int64)
    for st in range(nst):
        for i in range(groups):
            cnt[st, i] = (st // radix[i]) % (quota[i] + 1)
            pos[st] += cnt[st, i]
    dpx = np.full(nst, np.inf)
    dpy = np.full(nst, np.inf)
    dpx[0] = 0.0
    dpy[0] = 0.0
    for r in range(n):
        q = order[e, r]
        if not alive[q]:
            continue
        i = group_of[q]
        c = coord[e, r]
        step = radix[i]
        if pinned[q]:  # taken in every set
            for st in range(nst - 1, -1, -1):
                if cnt[st, i] > 0 and dpx[st - step] < np.inf:
                    coef = c * (2 * pos[st - step] - k + 1)
                    dpx[st] = dpx[st - step] + coef
                    dpy[st] = dpy[st - step] + coef + lin[q]
                else:
                    dpx[st] = np.inf
                    dpy[st] = np.inf
        else:
            for st in range(nst - 1 - step, -1, -1):
                if dpx[st] < np.inf and cnt[st, i] < quota[i]:
                    coef = c * (2 * pos[st] - k + 1)
                    dpx[st + step] = min(dpx[st + step], dpx[st] + coef)
                    dpy[st + step] = min(dpy[st + step], dpy[st] + coef + lin[q])
    return dpx[nst - 1], dpy[nst - 1]


@njit(cache=True)
def _dp_bounds(i, p, b, c, sizes, tail, k, g, x, order, coord, a, alive, least, rom, Dlast, group_of, lin, pinned,
               quota, xe, ye, onaxis, bound):  # pragma: no cover - compiled
    """The DP bounds of :func:`axis_vectors` at depth i (pin p at b_i):
    the slices 0 .. i - 1 cut, the others one group.  Returns ``(Z, the
    node may hold a set lighter than bound)``; fills in xe, the least
    weights on the other axes."""
    n, d = x.shape
    m = sizes.shape[0]
    cur = 0
    for r in range(n):
        while cur < i and r == b[cur + 1]:
            cur += 1
        q = order[a, r]
        group_of[q] = cur
        if cur < i:
            lin[q] = g[cur] * x[q, a]
        else:
            lin[q] = min(g[i] * x[q, a], g[m - 1] * x[q, a])
    known = Dlast[b[i]] if i == m - 1 else 0.0
    for t in range(i):
        quota[t] = sizes[t]
        known += rom[t + 1] + (0.0 if t == 0 else (1 - sizes[t]) * c[b[t]])
    quota[i] = tail[i]
    was = pinned[p]
    pinned[p] = True
    other = 0.0
    for e in range(d):
        if e != a:
            xe[e], ye[e] = _group_dp(e, a, order, coord, x, group_of, quota[:i + 1], lin, pinned, alive, k)
            other += max(least[e], xe[e])
    pinned[p] = was
    z = -np.inf
    for e in range(d):
        if e != a:
            zz = ye[e] + known
            for f in range(d):
                if f != a and f != e:
                    zz += max(least[f], xe[f])
            z = max(z, zz)
    return z, onaxis + other < bound and z < bound


@njit(cache=True)
def axis_vectors(c, tables, sizes, k, g, x, order, coord, a, alive, least, opt1, bound, cap, b1_lo,
                 b1_hi):  # pragma: no cover - compiled
    """The boundary vectors (pins b_1 < ... < b_{m-1}, live points) of axis
    ``a`` that may hold a set lighter than ``bound``, found depth first
    over b_1, b_2, ... with the bounds of the module docstring (1): B (the
    1-D least weight on this axis, exact given the pins so far) plus, on
    every other axis e, the larger of ``least[e]`` and the pins' weight
    on e, or their least weight by :func:`_group_dp` given the slices so
    far; B plus :func:`pin_rest` off this axis; and the DP's least linear
    part on this axis plus weight on one other axis, plus the slices'
    least own weights.  The slices not cut yet form one group, whose
    points have the least coefficient g they may get.  Returns
    ``(vectors (N, m - 1), B, omega (N, m), X (N, d), Z (N,), complete)``:
    omega the slices' least own weights on this axis, X the least weights
    on the other axes, Z the whole bound; ``complete`` is False when more
    than ``cap`` were found.  Only b_1 in [b1_lo, b1_hi) is tried (the
    caller goes through the ranks in parts)."""
    C, D, F, Dlast = tables
    n = c.shape[0]
    m = sizes.shape[0]
    d = x.shape[1]
    before, tail = _slice_offsets(sizes)
    width = max(m - 1, 1)
    room = 256
    vecs = np.zeros((room, width), np.int64)
    B = np.empty(room)
    om = np.empty((room, m))
    XX = np.zeros((room, d))
    ZZ = np.empty(room)
    count = 0
    group_of = np.zeros(n, np.int64)
    lin = np.zeros(n)
    pinned = np.zeros(n, np.bool_)
    quota = np.zeros(m, np.int64)
    xe = np.zeros(d)
    ye = np.zeros(d)
    if m == 1:
        other = 0.0
        for e in range(d):
            if e != a:
                xe[e], ye[e] = _group_dp(e, a, order, coord, x, group_of, sizes, lin, pinned, alive, k)
                other += max(least[e], xe[e])
        z = -np.inf
        for e in range(d):
            if e != a:
                zz = ye[e] + Dlast[0]
                for f in range(d):
                    if f != a and f != e:
                        zz += max(least[f], xe[f])
                z = max(z, zz)
        if b1_lo == 0 and F[0, 0] + other < bound and z < bound:
            B[0] = F[0, 0]
            om[0, 0] = Dlast[0]
            XX[0, :] = xe
            ZZ[0] = z
            count = 1
        return vecs[:count, :0], B[:count], om[:count], XX[:count], ZZ[:count], True
    b = np.zeros(m + 1, np.int64)
    acc = np.zeros(m)
    run = np.full(m, np.inf)
    rom = np.full(m, np.inf)
    spread = np.zeros((m, d))
    near = np.zeros((m, n))  # near[i, q]: distance of q to the pins b_1 .. b_i off axis a
    plist = np.zeros(m, np.int64)
    scratch = np.empty(n)
    i = np.int64(1)  # not the literal 1: see optalloc._jit
    b[1] = max(sizes[0], b1_lo) - 1
    for j in range(b[1] - sizes[0] + 1):  # slice 0's windows before the first b_1 tried
        run[1] = min(run[1], C[0, j])
        rom[1] = min(rom[1], D[0, j])
    while i >= 1:
        b[i] += 1
        if b[i] > n - tail[i] or (i == 1 and b[1] >= b1_hi):
            i -= 1
            if i >= 1:
                pinned[order[a, b[i]]] = False
            continue
        first = 0 if i == 1 else 1
        j = b[i] - sizes[i - 1] + first
        run[i] = min(run[i], C[i - 1, j])
        rom[i] = min(rom[i], D[i - 1, j])
        p = order[a, b[i]]
        if not alive[p]:
            continue
        head = 0.0 if i == 1 else (2 * before[i - 1] - k + 1) * c[b[i - 1]]
        av = acc[i - 1] + head + run[i]
        other = 0.0
        for e in range(d):
            if e == a:
                continue
            w = spread[i - 1, e]
            for t in range(1, i):
                w += abs(x[p, e] - x[order[a, b[t]], e])
            spread[i, e] = w
            other += max(least[e], w)
        if av + F[i, b[i]] + other >= bound:
            continue
        z = -np.inf
        xe[:] = 0.0
        if d > 1:
            for q in range(n):
                dist = near[i - 1, q]
                for e in range(d):
                    if e != a:
                        dist += abs(x[q, e] - x[p, e])
                near[i, q] = dist
            for q in range(n):
                scratch[q] = near[i, q] if alive[q] else np.inf
            plist[i - 1] = p
            far = pin_rest(scratch, plist, i, k, a, spread[i], opt1, scratch)
            if av + F[i, b[i]] + far >= bound:
                continue
            states = tail[i] + 1
            for t in range(i):
                states *= sizes[t] + 1
            if states > DP_STATES:
                if i < m - 1:
                    acc[i] = av
                    pinned[p] = True
                    i += 1
                    b[i] = b[i - 1] + sizes[i - 1] - 1
                    run[i] = np.inf
                    rom[i] = np.inf
                    continue
                z = -np.inf
                xe[:] = 0.0
            else:
                z, ok = _dp_bounds(i, p, b, c, sizes, tail, k, g, x, order, coord, a, alive, least, rom, Dlast,
                                   group_of, lin, pinned, quota, xe, ye, av + F[i, b[i]], bound)
                if not ok:
                    continue
        if i < m - 1:
            acc[i] = av
            pinned[p] = True
            i += 1
            b[i] = b[i - 1] + sizes[i - 1] - 1
            run[i] = np.inf
            rom[i] = np.inf
            continue
        if count == cap:
            return vecs[:count], B[:count], om[:count], XX[:count], ZZ[:count], False
        if count == room:
            room *= 2
            vecs2 = np.zeros((room, width), np.int64)
            vecs2[:count] = vecs[:count]
            vecs = vecs2
            B2 = np.empty(room)
            B2[:count] = B[:count]
            B = B2
            om2 = np.empty((room, m))
            om2[:count] = om[:count]
            om = om2
            XX2 = np.zeros((room, d))
            XX2[:count] = XX[:count]
            XX = XX2
            ZZ2 = np.empty(room)
            ZZ2[:count] = ZZ[:count]
            ZZ = ZZ2
        for t in range(1, m):
            vecs[count, t - 1] = b[t]
            pin = 0.0 if t == 1 else (1 - sizes[t - 1]) * c[b[t - 1]]
            om[count, t - 1] = pin + rom[t]
        om[count, m - 1] = Dlast[b[m - 1]]
        B[count] = av + F[m - 1, b[m - 1]]
        XX[count, :] = xe
        ZZ[count] = z
        count += 1
    return vecs[:count], B[:count], om[:count], XX[:count], ZZ[:count], True


