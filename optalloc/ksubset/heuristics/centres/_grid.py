"""Compiled kernels of the centre heuristics on a grid (mesh or torus).

The free points are the occupied cells of a grid of at most three axes
(fewer axes are padded with axes of length 1), each axis a line (mesh) or
a ring (torus).  ``occ`` holds, per cell (x fastest), the row of the point
there or -1.  Per axis the distance of coordinates u and v is ``|u - v|``,
or ``min(|u - v|, L - |u - v|)`` on a ring of length L.

Around a centre the k nearest points are its L1 ball shell by shell:
every point of the shells 0 .. R - 1 and, of shell R, the points of the
lowest rows (``in_order``: the rows grow with the cell id, so the shell is
walked in cell order and cut; else the shell's rows are sorted).  W of
the set is a sum over axes computed from per-axis histograms of the
offsets from the centre: ``sum over gaps of left * right`` on a line,
less ``2 delta - L`` for every pair more than L/2 apart on a ring.

The grid's arrays (``grid_arrays``) are built in :mod:`._centres`, the swap
descent of MM+Inc (``grid_descent``) is in :mod:`._descent`.
"""

from __future__ import annotations

import numpy as np

from ...._jit import njit

__all__ = ["centre_rows", "centre_scores", "rotated_fill"]


@njit(cache=True)
def _span(c, b, L, wrap):
    """Coordinates within axis distance b of c, ascending: two runs
    (start, count) of consecutive coordinates."""
    if b < 0:
        return 0, 0, 0, 0
    if wrap:
        if 2 * b + 1 >= L:
            return 0, L, 0, 0
        lo = c - b
        hi = c + b
        if lo < 0:
            return 0, hi + 1, lo + L, L - (lo + L)
        if hi >= L:
            return 0, hi - L + 1, lo, L - lo
        return lo, hi - lo + 1, 0, 0
    lo = max(0, c - b)
    hi = min(L - 1, c + b)
    if hi < lo:
        return 0, 0, 0, 0
    return lo, hi - lo + 1, 0, 0


@njit(cache=True)
def _offset(v, c, L, wrap):
    """Signed offset of coordinate v from c (the shorter way round on a ring)."""
    d = v - c
    if wrap:
        if 2 * d > L:
            d -= L
        elif 2 * d < -L:
            d += L
    return d


@njit(cache=True)
def _shell(r, c0, c1, c2, L0, L1, L2, w0, w1, w2, occ, stop, rows, o0, o1, o2):
    """The points at L1 distance exactly r from (c0, c1, c2), in cell order
    (z slowest, x fastest), into rows/o0/o1/o2 (offsets from the centre);
    stops after ``stop`` points.  Returns how many."""
    n = 0
    a1, n1, a2, n2 = _span(c2, r, L2, w2)
    for jz in range(n1 + n2):
        z = a1 + jz if jz < n1 else a2 + jz - n1
        dz = _offset(z, c2, L2, w2)
        b = r - abs(dz)
        b1, m1, b2, m2 = _span(c1, b, L1, w1)
        for jy in range(m1 + m2):
            y = b1 + jy if jy < m1 else b2 + jy - m1
            dy = _offset(y, c1, L1, w1)
            bx = b - abs(dy)
            base = L0 * (y + L1 * z)
            xa = c0 - bx
            xb = c0 + bx
            if w0:
                if 2 * bx > L0:
                    continue
                if xa < 0:  # bx <= L0 / 2: one turn at most
                    xa += L0
                if xb >= L0:
                    xb -= L0
                if xb < xa:
                    xa, xb = xb, xa
            for t in range(2):
                x = xa if t == 0 else xb
                if t == 1 and xb == xa:
                    break
                if x < 0 or x >= L0:
                    continue
                row = occ[base + x]
                if row >= 0:
                    rows[n] = row
                    o0[n] = _offset(x, c0, L0, w0)
                    o1[n] = dy
                    o2[n] = dz
                    n += 1
                    if n == stop:
                        return n
    return n


@njit(cache=True)
def _walk(r, c0, c1, c2, L0, L1, L2, w0, w1, w2, occ, need, h0, h1, h2, mid, back):
    """The first ``need`` (at least 1) points at L1 distance exactly r from
    (c0, c1, c2) in cell order (those :func:`_shell` gives), their offsets
    counted in h0/h1/h2 (shifted by mid), the two cells of a row read
    together without a branch; with ``back``, the last ones (in reverse
    cell order), their offsets taken off.  Returns how many (at most need)."""
    n = 0
    sign = -1 if back else 1
    a1, n1, a2, n2 = _span(c2, r, L2, w2)
    for iz in range(n1 + n2):
        jz = n1 + n2 - 1 - iz if back else iz
        z = a1 + jz if jz < n1 else a2 + jz - n1
        dz = _offset(z, c2, L2, w2)
        b = r - abs(dz)
        b1, m1, b2, m2 = _span(c1, b, L1, w1)
        got = 0
        for iy in range(m1 + m2):
            jy = m1 + m2 - 1 - iy if back else iy
            y = b1 + jy if jy < m1 else b2 + jy - m1
            dy = _offset(y, c1, L1, w1)
            bx = b - abs(dy)
            base = L0 * (y + L1 * z)
            xa = c0 - bx  # the row's two cells (a before b in cell order) and their offsets
            xb = c0 + bx
            oa = -bx
            ob = bx
            if w0:
                if 2 * bx > L0:
                    continue
                if xa < 0:  # bx <= L0 / 2: one turn at most
                    xa += L0
                if xb >= L0:
                    xb -= L0
                if xb < xa:
                    xa, xb = xb, xa
                    oa, ob = ob, oa
            elif xa < 0:
                if xb >= L0:
                    continue
                xa = xb
                oa = ob
            elif xb >= L0:
                xb = xa
                ob = oa
            if back:  # b before a
                xa, xb = xb, xa
                oa, ob = ob, oa
            fa = 1 if occ[base + xa] >= 0 else 0
            fb = 0
            if xa == xb:  # one cell: its offset as _shell gives it
                oa = _offset(xa, c0, L0, w0)
            else:
                fb = 1 if occ[base + xb] >= 0 else 0
            if n + fa + fb > need:  # the first of the two only
                fb = 0
            h0[mid + oa] += sign * fa
            h0[mid + ob] += sign * fb
            h1[mid + dy] += sign * (fa + fb)
            n += fa + fb
            got += fa + fb
            if n == need:
                break
        h2[mid + dz] += sign * got
        if n == need:
            break
    return n


@njit(cache=True)
def _axis_w(h, lo, hi, k, L, wrap):
    """W along one axis of the points whose offsets are counted in h
    (index offset + lo .. hi, shifted by the array's middle)."""
    total = 0
    cum = 0
    for u in range(lo, hi):
        cum += h[u]
        total += cum * (k - cum)
    if wrap and 2 * (hi - lo) > L:
        # pairs more than L/2 apart: sum over v >= u + L//2 + 1 of
        # h[v] (2 (v - u) - L), from suffix sums of h and v h
        half = L // 2 + 1
        s0 = 0
        s1 = 0
        v = hi + 1
        for u in range(hi - half, lo - 1, -1):
            while v > u + half:
                v -= 1
                s0 += h[v]
                s1 += v * h[v]
            total -= h[u] * (2 * (s1 - u * s0) - L * s0)
    return total


@njit(cache=True)
def _ball(c0, c1, c2, occ, L, wrap, k, in_order, rows, o0, o1, o2, sel, h0, h1, h2, mid, keep):
    """The k nearest points of the centre: their W and star (sum of
    distances to the centre); with ``keep`` their rows go to ``sel``."""
    L0, L1, L2 = L[0], L[1], L[2]
    w0, w1, w2 = wrap[0], wrap[1], wrap[2]
    count = 0
    star = 0
    r = np.int64(0)  # not a literal 0 (see optalloc._jit)
    big = len(rows) + 1
    while True:
        need = k - count
        n = _shell(r, c0, c1, c2, L0, L1, L2, w0, w1, w2, occ, need + 1 if in_order else big, rows, o0, o1, o2)
        take = min(n, need)
        order = np.argsort(rows[:n]) if n > need and not in_order else np.arange(n)
        for q in range(take):
            t = order[q]
            h0[mid + o0[t]] += 1
            h1[mid + o1[t]] += 1
            h2[mid + o2[t]] += 1
            if keep:
                sel[count + q] = rows[t]
        count += take
        star += r * take
        if count == k:
            break
        r += 1
    lo = max(0, mid - r)
    hi = min(len(h0) - 1, mid + r)
    w = _axis_w(h0, lo, hi, k, L0, w0) + _axis_w(h1, lo, hi, k, L1, w1) + _axis_w(h2, lo, hi, k, L2, w2)
    for u in range(lo, hi + 1):
        h0[u] = 0
        h1[u] = 0
        h2[u] = 0
    return w, star


@njit(cache=True)
def _run(P, row, c, b, L, wrap):
    """Points of a row (prefix counts P[row], over the row twice) within
    axis distance b of c."""
    if b < 0:
        return 0
    if wrap:
        if 2 * b + 1 >= L:
            return P[row, L] - P[row, 0]
        s = c - b
        if s < 0:
            s += L
        return P[row, s + 2 * b + 1] - P[row, s]
    lo = max(0, c - b)
    hi = min(L - 1, c + b)
    if hi < lo:
        return 0
    return P[row, hi + 1] - P[row, lo]


@njit(cache=True, nogil=True)
def rotated_fill(T, occ, L, wrap, a, M, lo, hi):
    """The slices lo .. hi - 1 of the rotated prefix tables of the planes
    across axis a written into T, of shape (L[a], U + 1, U + 1), int16
    (the caller keeps the extended plane under 2**15 cells): the in-plane
    grid (axes p < r), a ring axis extended by M on either side (copies of
    the ring), its cell (i, j) at ``u = i + j``, ``v = i - j + width_r - 1``
    (i, j counted from the extended corner), prefix-summed over u and v.
    An L1 diamond in the plane is then a box: |du| <= b and |dv| <= b."""
    p = 1 if a == 0 else 0
    r = 1 if a == 2 else 2
    wp = L[p] + 2 * M[p]
    wr = L[r] + 2 * M[r]
    U = wp + wr - 1
    step = np.ones(3, dtype=np.int64)  # cell strides per axis
    step[1] = L[0]
    step[2] = L[0] * L[1]
    ip = np.empty(wp, dtype=np.int64)  # cell offsets of the extended in-plane coordinates
    for ti in range(wp):
        ip[ti] = ((ti - M[p]) % L[p]) * step[p]
    jr = np.empty(wr, dtype=np.int64)
    for tj in range(wr):
        jr[tj] = ((tj - M[r]) % L[r]) * step[r]
    for s in range(lo, hi):
        base = s * step[a]
        Ts = T[s]
        Ts[:, :] = 0
        for ti in range(wp):
            for tj in range(wr):
                if occ[base + ip[ti] + jr[tj]] >= 0:
                    Ts[ti + tj + 1, ti - tj + wr] = 1
        for u in range(1, U + 1):  # row sums, then down the columns
            run = 0
            for v in range(1, U + 1):
                run += Ts[u, v]
                Ts[u, v] = Ts[u - 1, v] + run


@njit(cache=True)
def _runs(q, c0, c1, c2, L0, L1, L2, w0, w1, w2, P, hu, hv, mid, count_only):
    """The points of the ball of radius q around (c0, c1, c2) counted by
    runs along the first axis (prefix counts P, rows over (second, third
    axis), second fastest): their number and, unless ``count_only``, their
    offsets along the second and third axes counted in hu, hv."""
    total = 0
    a1, n1, a2, n2 = _span(c2, q, L2, w2)
    for jz in range(n1 + n2):
        z = a1 + jz if jz < n1 else a2 + jz - n1
        dz = _offset(z, c2, L2, w2)
        b = q - abs(dz)
        sub = 0
        b1, m1, b2, m2 = _span(c1, b, L1, w1)
        for jy in range(m1 + m2):
            y = b1 + jy if jy < m1 else b2 + jy - m1
            dy = _offset(y, c1, L1, w1)
            cnt = _run(P, y + L1 * z, c0, b - abs(dy), L0, w0)
            sub += cnt
            if not count_only:
                hu[mid + dy] += cnt
        if not count_only:
            hv[mid + dz] += sub
        total += sub
    return total


@njit(cache=True, inline="always")  # three call sites: the radius search and _plane_slices
def _slices(a, q, c, T, M, L, wrap, PX, PY, h, mid, fill, tot, hb, two, memo, key):
    """The points of the ball of radius q around c, counted slice by slice
    across axis a: each slice's L1 diamond is a box of the rotated table T
    (:func:`rotated_fill`) when T is not empty and the diamond wraps
    onto no cell twice (b at most the margin M of the plane's ring axes,
    M <= (L - 1) // 2: 2 b + 1 <= L); on a plane of two rings of even
    lengths a diamond wider than that is the plane's points (``tot[a]``,
    per slice) less the diamond of radius ``L_p / 2 + L_r / 2 - 1 - b``
    around the antipode (a cell's two distances sum to ``L_p / 2 + L_r /
    2``); else runs of the prefix counts (PX along the first axis, for
    a = 1, 2; PY along the second, for a = 0) over the plane's other axis;
    with ``fill`` each slice's count goes to h at its offset (shifted by
    mid).  With ``two`` the ball of radius q + 1 is counted in the same
    pass, its slices' counts in hb and its total returned second (else 0).
    With ``key >= 0`` (the centre's in-plane cell) the count of slice t
    and radius b is kept in ``memo[t, b]`` as ``key << 32 | count`` and
    read back while the key matches: the centres of one line across the
    planes share their diamonds."""
    p = 1 if a == 0 else 0
    r = 1 if a == 2 else 2
    ci = c[p]
    cj = c[r]
    top = -1  # the largest radius a box counts exactly (M <= (L - 1) // 2 on a ring)
    far = q + 2  # the least radius counted by the antipode's box
    if T.shape[0] > 0:
        top = q + 1
        if wrap[p]:
            top = min(top, M[p])
        if wrap[r]:
            top = min(top, M[r])
        if wrap[p] and wrap[r] and L[p] % 2 == 0 and L[r] % 2 == 0:
            far = L[p] // 2 + L[r] // 2 - 1 - min(M[p], M[r])
    cu = ci + M[p] + cj + M[r]
    cv = ci + M[p] - cj - M[r] + L[r] + 2 * M[r] - 1
    ai = ci + L[p] // 2  # the antipode (no division: ci < L)
    ai -= L[p] if ai >= L[p] else 0
    aj = cj + L[r] // 2
    aj -= L[r] if aj >= L[r] else 0
    au = ai + M[p] + aj + M[r]
    av = ai + M[p] - aj - M[r] + L[r] + 2 * M[r] - 1
    U = T.shape[1] - 1
    # the runs: along axis ra of the rows A + B t, t over axis o
    P = PY if a == 0 else PX
    ra = 1 if a == 0 else 0
    o = 1 if a == 2 else 2
    total = 0
    outer = 0
    ca, La, wa = c[a], L[a], wrap[a]
    width = memo.shape[1] if key >= 0 else 0
    a1, n1, a2, n2 = _span(ca, q + 1 if two else q, La, wa)
    for j in range(n1 + n2):
        t = a1 + j if j < n1 else a2 + j - n1
        d = _offset(t, ca, La, wa)
        for s in range(2 if two else 1):
            b = q + s - abs(d)
            cnt = 0
            kept = 0 <= b < width
            if kept and memo[t, b] >> 32 == key:
                cnt = memo[t, b] & 0xFFFFFFFF
                kept = False
            elif b <= top:
                u0 = max(0, cu - b)
                u1 = min(U - 1, cu + b) + 1
                v0 = max(0, cv - b)
                v1 = min(U - 1, cv + b) + 1
                if u1 > u0 and v1 > v0:
                    cnt = T[t, u1, v1] - T[t, u0, v1] - T[t, u1, v0] + T[t, u0, v0]
            elif b >= far:
                cnt = tot[a, t]
                e = L[p] // 2 + L[r] // 2 - 1 - b
                if e >= 0:
                    cnt -= (T[t, au + e + 1, av + e + 1] - T[t, au - e, av + e + 1] - T[t, au + e + 1, av - e]
                            + T[t, au - e, av - e])
            elif L[o] == 1:  # one run: the plane is a line
                cnt = _run(P, t, ci, b, L[ra], wrap[ra])
            else:
                A = t
                B = L[0] if a == 0 else L[1]
                if a == 2:
                    A = L[1] * t
                    B = 1
                e1, m1, e2, m2 = _span(cj, b, L[o], wrap[o])
                for jj in range(m1 + m2):
                    tt = e1 + jj if jj < m1 else e2 + jj - m1
                    cnt += _run(P, A + B * tt, ci, b - abs(_offset(tt, cj, L[o], wrap[o])), L[ra], wrap[ra])
            if kept:
                memo[t, b] = key << 32 | cnt
            if s == 1:
                hb[mid + d] = cnt
                outer += cnt
            else:
                if fill:
                    h[mid + d] = cnt
                total += cnt
    return total, outer


@njit(cache=True)
def _plane_slices(r, c, T0, T1, M, L, wrap, PX, PY, h0, h1, mid, tot, hb, memo):
    """The ball of radius r counted across the first and the second axis
    (:func:`_slices`, their slices' counts in h0 and h1): one call where
    two would pass their many arguments twice."""
    _slices(1, r, c, T1, M, L, wrap, PX, PY, h1, mid, True, tot, hb, False, memo, -1)
    _slices(0, r, c, T0, M, L, wrap, PX, PY, h0, mid, True, tot, hb, False, memo, -1)


@njit(cache=True, inline="always")
def _score(c, occ, PX, PY, T0, T1, T2, M, L, wrap, k, in_order, q, rows, o0, o1, o2, h0, h1, h2, hb, mid, back,
           tot, memo):
    """W, star and the radius R of the k nearest points of the centre c:
    a ball of radius q < R counted, then the shells from q + 1 on point by
    point.  With the rotated tables across the first two axes, q = R - 1
    (moved from the guess given) and the ball is counted slice by slice
    (:func:`_slices`); without them (a planar grid, or small k) by runs
    along the first axis (:func:`_runs`), q lowered from the guess until
    the ball holds fewer than k points.  With the tables and the rows in
    cell order, when the shell R leaves out more than ``back`` fewer
    points than it gives, the ball R is counted instead and the shell's
    last points walked back from its end and taken off."""
    L0, L1, L2 = L[0], L[1], L[2]
    w0, w1, w2 = wrap[0], wrap[1], wrap[2]
    c0, c1, c2 = c[0], c[1], c[2]
    if T0.shape[0] == 0 and T1.shape[0] == 0:  # no plane across the first two axes: one pass of runs
        count = 0
        while q >= 0:
            count = _runs(q, c0, c1, c2, L0, L1, L2, w0, w1, w2, PX, h1, h2, mid, False)
            if count < k:
                break
            for u in range(max(0, mid - q), min(len(h0), mid + q + 1)):
                h1[u] = 0
                h2[u] = 0
            q -= 1
            count = 0
        if q >= 0:
            # the first axis's offsets: runs along the second axis
            a1, n1, a2, n2 = _span(c2, q, L2, w2)
            for jz in range(n1 + n2):
                z = a1 + jz if jz < n1 else a2 + jz - n1
                dz = _offset(z, c2, L2, w2)
                b = q - abs(dz)
                b1, m1, b2, m2 = _span(c0, b, L0, w0)
                for jx in range(m1 + m2):
                    x = b1 + jx if jx < m1 else b2 + jx - m1
                    dx = _offset(x, c0, L0, w0)
                    h0[mid + dx] += _run(PY, x + L0 * z, c1, b - abs(dx), L1, w1)
    else:
        # q: the largest radius whose ball holds fewer than k points, counted
        # with the ball q + 1 in one pass (their slices' counts in h2 and hb)
        q = max(q, -1)
        key = c0 + L0 * c1
        while True:
            count, upper = _slices(2, q, c, T2, M, L, wrap, PX, PY, h2, mid, True, tot, hb, True, memo, key)
            if count < k <= upper:
                break
            for u in range(max(0, mid - q - 1), min(len(h2), mid + q + 2)):
                h2[u] = 0
                hb[u] = 0
            q += -1 if count >= k else 1
        if in_order and upper - k + back < k - count:
            # fewer points of the shell q + 1 left out than taken: the ball
            # q + 1 less its shell's last upper - k points in cell order
            for u in range(max(0, mid - q - 1), min(len(h2), mid + q + 2)):
                h2[u] = hb[u]
            _plane_slices(q + 1, c, T0, T1, M, L, wrap, PX, PY, h0, h1, mid, tot, hb, memo)
            if upper > k:
                _walk(q + 1, c0, c1, c2, L0, L1, L2, w0, w1, w2, occ, upper - k, h0, h1, h2, mid, True)
            count = k
        elif q >= 0:
            _plane_slices(q, c, T0, T1, M, L, wrap, PX, PY, h0, h1, mid, tot, hb, memo)
        for u in range(max(0, mid - q - 1), min(len(hb), mid + q + 2)):
            hb[u] = 0
    r = q + 1
    big = len(rows) + 1
    while count < k:
        need = k - count
        if in_order:  # the shell's first points in cell order, counted as walked
            count += _walk(r, c0, c1, c2, L0, L1, L2, w0, w1, w2, occ, need, h0, h1, h2, mid, False)
            if count == k:
                break
            r += 1
            continue
        n = _shell(r, c0, c1, c2, L0, L1, L2, w0, w1, w2, occ, big, rows, o0, o1, o2)
        take = min(n, need)
        order = np.argsort(rows[:n]) if n > need else np.arange(n)  # the lowest rows of the shell
        for t in range(take):
            u = order[t]
            h0[mid + o0[u]] += 1
            h1[mid + o1[u]] += 1
            h2[mid + o2[u]] += 1
        count += take
        if count == k:
            break
        r += 1
    w = 0
    star = 0
    for a in range(3):
        h = h0 if a == 0 else (h1 if a == 1 else h2)
        reach = min(r, L[a] // 2 if wrap[a] else L[a] - 1)  # the largest distance along the axis
        w += _axis_w(h, mid - reach, mid + reach, k, L[a], wrap[a])
        for u in range(mid - reach, mid + reach + 1):
            star += abs(u - mid) * h[u]
            h[u] = 0
    return w, star, r


@njit(cache=True, nogil=True)
def centre_scores(cen, occ, PX, PY, T0, T1, T2, M, L, wrap, k, in_order, n, back, tot):
    """W and star of the k nearest points (of the n) around every centre
    (rows of ``cen``, grid coordinates); ``PX``, ``PY``: prefix counts of
    the points along the first axis (rows over the second and third axes)
    and along the second (rows over the first and third), each row twice;
    ``T0``, ``T1``, ``T2``: the tables of :func:`rotated_fill` across each axis
    with the margins M (empty tables: runs instead, see :func:`_score`);
    ``back``: see :func:`_score`; ``tot[a, t]``: the points of the plane t
    across axis a."""
    m = len(cen)
    ws = np.empty(m, dtype=np.int64)
    stars = np.empty(m, dtype=np.int64)
    rows = np.empty(n + 1, dtype=np.int64)
    o0 = np.empty(n + 1, dtype=np.int64)
    o1 = np.empty(n + 1, dtype=np.int64)
    o2 = np.empty(n + 1, dtype=np.int64)
    mid = max(L[0], L[1], L[2])
    h0 = np.zeros(2 * mid + 1, dtype=np.int64)
    h1 = np.zeros(2 * mid + 1, dtype=np.int64)
    h2 = np.zeros(2 * mid + 1, dtype=np.int64)
    hb = np.zeros(2 * mid + 1, dtype=np.int64)
    memo = np.full((L[2], 2 * mid + 2), -1, dtype=np.int64)
    R = 0
    for i in range(m):
        w, s, R = _score(cen[i], occ, PX, PY, T0, T1, T2, M, L, wrap, k, in_order, R - 1, rows, o0, o1, o2, h0, h1,
                         h2, hb, mid, back, tot, memo)
        ws[i] = w
        stars[i] = s
    return ws, stars


@njit(cache=True)
def centre_rows(c, occ, L, wrap, k, in_order, n):
    """The rows of the k nearest points around centre c (as
    :func:`centre_scores` takes them) and their W."""
    rows = np.empty(n + 1, dtype=np.int64)
    o0 = np.empty(n + 1, dtype=np.int64)
    o1 = np.empty(n + 1, dtype=np.int64)
    o2 = np.empty(n + 1, dtype=np.int64)
    sel = np.empty(k, dtype=np.int64)
    mid = max(L[0], L[1], L[2])
    h0 = np.zeros(2 * mid + 1, dtype=np.int64)
    h1 = np.zeros(2 * mid + 1, dtype=np.int64)
    h2 = np.zeros(2 * mid + 1, dtype=np.int64)
    w, _ = _ball(c[0], c[1], c[2], occ, L, wrap, k, in_order, rows, o0, o1, o2, sel, h0, h1, h2, mid, True)
    return sel, w
