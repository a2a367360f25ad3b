"""Compiled kernels of MC1x1 on a grid: shells counted with prefix sums.

A mesh or torus of any number of axes is an occupancy grid; the number of
free cells in an axis-aligned box is a sum of 2^d entries of its prefix
(summed-area) table.  On a wrapped axis the grid is tiled twice, so a
window of at most L positions that starts anywhere on the ring is one
interval of the tiled axis.  A shell (the cells at L-infinity distance s
from a box) is the difference of two boxes, so the shell counts of a
centre, hence its MC score, cost O(r 2^d) for a last shell r; the
tie-breaking score's parts are box sums of the grid weighted by the walls
a cell touches.  Only the sets that matter (the winner, the tied
candidates whose score a bound cannot rule out, every centre on a torus)
are enumerated cell by cell, over their last shell only.  This module
holds the counting and the mesh's kernels; the torus's are in
:mod:`._mcshell`.
"""

from __future__ import annotations

import numpy as np

from ...._jit import njit

__all__ = ["prefix_table", "mesh_scores", "mesh_fill", "tie_parts"]


def prefix_table(grid: np.ndarray, ring) -> tuple[np.ndarray, np.ndarray]:
    """The flattened prefix table of ``grid`` (any dimension), its axes
    marked in ``ring`` tiled twice, and the table's strides (in entries).

    ``table[i_0, ..., i_{d-1}]`` is the sum of ``grid`` over the cells
    below ``(i_0, ..., i_{d-1})`` on every axis (a leading zero row per axis).
    Up to three axes one compiled pass builds it.

    >>> t, st = prefix_table(np.ones((2, 3), dtype=np.int64), (False, False))
    >>> int(t[2 * st[0] + 3 * st[1]]), st.tolist()
    (6, [4, 1])
    """
    reps = tuple(2 if w else 1 for w in ring)
    total = float(np.abs(grid).sum()) * float(np.prod(reps))
    dtype = np.int32 if total < 2**31 else np.int64
    if grid.ndim <= 3:
        g3 = grid.reshape((1,) * (3 - grid.ndim) + grid.shape)
        if g3.dtype == np.bool_:
            g3 = g3.view(np.uint8)
        r3 = (1,) * (3 - grid.ndim) + reps
        t = np.empty([s * r + 1 for s, r in zip(g3.shape, r3)], dtype=dtype)
        _prefix3(g3, t)
        t = t[(1,) * (3 - grid.ndim)]  # past the dummy axes' zero rows
    else:
        t = np.pad(np.tile(grid, reps).astype(dtype), [(1, 0)] * grid.ndim)
        for a in range(grid.ndim):
            np.cumsum(t, axis=a, out=t)
    strides = np.array(t.strides, dtype=np.int64) // t.itemsize
    return t.ravel(), strides


@njit(cache=True)
def _prefix3(g, out):
    """The prefix table ``out`` (one more entry per axis) of the 3-axis grid
    g repeated to fill it (the tiling of a wrapped axis)."""
    A, B, C = g.shape
    X, Y, Z = out.shape
    for j in range(Y):
        for l in range(Z):
            out[0, j, l] = 0
    for i in range(1, X):
        for l in range(Z):
            out[i, 0, l] = 0
        for j in range(1, Y):
            out[i, j, 0] = 0
    for i in range(1, X):
        gi = (i - 1) % A
        for j in range(1, Y):
            gj = (j - 1) % B
            row = 0
            gl = 0
            for l in range(1, Z):
                row += g[gi, gj, gl]
                gl += 1
                if gl == C:
                    gl = 0
                out[i, j, l] = out[i - 1, j, l] + out[i, j - 1, l] - out[i - 1, j - 1, l] + row


@njit(cache=True)
def _box(P, st, a0, a1):
    """Sum of the grid over the box [a0, a1] (inclusive, in table coordinates)."""
    d = len(st)
    total = 0
    for m in range(1 << d):
        idx = 0
        neg = 0
        for a in range(d):
            if (m >> a) & 1:
                idx += a0[a] * st[a]
                neg ^= 1
            else:
                idx += (a1[a] + 1) * st[a]
        if neg:
            total -= P[idx]
        else:
            total += P[idx]
    return total


@njit(cache=True)
def _window(shape, ring, c, lo, hi, a0, a1):
    """Table coordinates of the offsets [lo, hi] around cell c (a ring axis
    wraps into its second copy, a mesh axis is clipped); False when empty."""
    for a in range(len(shape)):
        if ring[a]:
            s = c[a] + lo[a]  # no division: within a turn or two of the ring
            while s < 0:
                s += shape[a]
            while s >= shape[a]:
                s -= shape[a]
            a0[a] = s
            a1[a] = s + hi[a] - lo[a]
        else:
            a0[a] = max(c[a] + lo[a], 0)
            a1[a] = min(c[a] + hi[a], shape[a] - 1)
            if a0[a] > a1[a]:
                return False
    return True


@njit(cache=True)
def _ring_range(shape, ring, r, lo, hi):
    """Offsets of the L-infinity ball of radius r per axis: [-r, r], clipped
    on a ring to the L positions [-(L - 1) // 2, L // 2]."""
    for a in range(len(shape)):
        if ring[a]:
            lo[a] = max(-r, -((shape[a] - 1) // 2))
            hi[a] = min(r, shape[a] // 2)
        else:
            lo[a] = -r
            hi[a] = r


# -- mesh: shells around request boxes ----------------------------------------


@njit(cache=True)
def mesh_scores(P, st, shape, lo, hi, k):
    """Per centre (box [lo, hi]): the MC score (sum of the k smallest shell
    numbers), the last shell r and the free cells in shells below r."""
    n, d = lo.shape
    score = np.empty(n, dtype=np.int64)
    last = np.empty(n, dtype=np.int64)
    inner = np.empty(n, dtype=np.int64)
    a0 = np.empty(d, dtype=np.int64)
    a1 = np.empty(d, dtype=np.int64)
    for i in range(n):
        prev = 0
        acc = 0
        s = 0
        while True:
            for a in range(d):
                a0[a] = max(lo[i, a] - s, 0)
                a1[a] = min(hi[i, a] + s, shape[a] - 1)
            cnt = _box(P, st, a0, a1)
            if cnt >= k:
                acc += s * (k - prev)
                break
            acc += s * (cnt - prev)
            prev = cnt
            s += 1
        score[i] = acc
        last[i] = s
        inner[i] = prev
    return score, last, inner


@njit(cache=True)
def mesh_fill(cells, index, shape, lo, hi, r, k, centre):
    """MC's set around one centre: every free cell of the shells below r,
    then shell r greedily, each time the cell of least total L1 distance to
    those chosen (lowest input index on ties); with r = 0 it starts from
    the centre.  ``index`` maps a cell (C order) to its input row, -1 busy."""
    d = cells.shape[1]
    a0 = np.empty(d, dtype=np.int64)
    a1 = np.empty(d, dtype=np.int64)
    vol = 1
    for a in range(d):
        a0[a] = max(lo[a] - r, 0)
        a1[a] = min(hi[a] + r, shape[a] - 1)
        vol *= a1[a] - a0[a] + 1
    chosen = np.empty(k, dtype=np.int64)
    pool = np.empty(vol, dtype=np.int64)
    nc = 0
    npool = 0
    x = a0.copy()
    for _ in range(vol):
        flat = 0
        for a in range(d):
            flat = flat * shape[a] + x[a]
        j = index[flat]
        if j >= 0:
            sh = 0
            for a in range(d):
                g = max(lo[a] - x[a], x[a] - hi[a], 0)
                if g > sh:
                    sh = g
            if sh < r:
                chosen[nc] = j
                nc += 1
            elif j != centre or r > 0:
                pool[npool] = j
                npool += 1
        a = d - 1
        while a >= 0:
            x[a] += 1
            if x[a] <= a1[a]:
                break
            x[a] = a0[a]
            a -= 1
    if nc == 0:
        chosen[0] = centre
        nc = 1
    pool = np.sort(pool[:npool])
    s = np.zeros(npool, dtype=np.int64)
    for p in range(npool):
        acc = 0
        for c in range(nc):
            for a in range(d):
                acc += abs(cells[pool[p], a] - cells[chosen[c], a])
        s[p] = acc
    taken = np.zeros(npool, dtype=np.bool_)
    while nc < k:
        best = -1
        bv = np.iinfo(np.int64).max
        for p in range(npool):
            if not taken[p] and s[p] < bv:
                bv = s[p]
                best = p
        taken[best] = True
        q = pool[best]
        chosen[nc] = q
        nc += 1
        for p in range(npool):
            for a in range(d):
                s[p] += abs(cells[pool[p], a] - cells[q, a])
    return chosen


@njit(cache=True)
def tie_parts(P, Q, st, shape, lo, hi, last, inner, k, sr, cand):
    """The parts of the Johnson-Bunde-Leung score that do not depend on
    which cells of the last shell are taken, per candidate (rows ``cand``):
    ``available`` (whole), the inner shells' wall sum, the walls of the free
    cells of the last shell, their number and the busy cells of shell
    last + 1.  ``P`` counts free cells, ``Q`` sums their walls."""
    t = len(cand)
    d = len(shape)
    avail = np.zeros(t, dtype=np.int64)
    wall_in = np.zeros(t, dtype=np.int64)
    wall_last = np.zeros(t, dtype=np.int64)
    cnt_last = np.zeros(t, dtype=np.int64)
    busy = np.zeros(t, dtype=np.int64)
    a0 = np.empty(d, dtype=np.int64)
    a1 = np.empty(d, dtype=np.int64)
    for u in range(t):
        i = cand[u]
        L = last[i]
        top = L + sr
        reach = max(top, L + 1)
        pf = 0
        pw = 0
        pv = 0
        av = 0
        for s in range(reach + 1):
            vol = 1
            for a in range(d):
                a0[a] = max(lo[i, a] - s, 0)
                a1[a] = min(hi[i, a] + s, shape[a] - 1)
                vol *= a1[a] - a0[a] + 1
            f = _box(P, st, a0, a1)
            w = _box(Q, st, a0, a1)
            cf = f - pf
            cw = w - pw
            rev = top - s + 1
            if s < L:
                wall_in[u] += rev * cw
            elif s == L:
                wall_last[u] = cw
                cnt_last[u] = cf
            if L <= s <= top:
                av += rev * cf
            if s == L + 1:
                busy[u] = (vol - pv) - cf
            pf = f
            pw = w
            pv = vol
        m = k - inner[i]
        avail[u] = av - m * (sr + 1)
    return avail, wall_in, wall_last, cnt_last, busy
