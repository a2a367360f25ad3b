"""Compiled kernels of MC1x1 on a torus: the k nearest free cells of every
centre by (L-infinity, L1, node id) and their W, from the prefix table of
:mod:`._mcgrid` and a padded grid of node ids.

A centre's set is the free cells of its L-infinity ball of radius r - 1
(r found with box counts) and the first free cells of shell r in (L1,
node id) order; only shell r is visited cell by cell, through offsets
sorted once per radius.  W is summed per axis over a histogram of the
set's offsets: the inner ball's slabs are box counts (or reads of the
cross-section grids of :func:`section_piece`), the last shell's cells are added one by one (or,
from the ball of radius r, the shell's cells the set leaves out are
removed one by one).
"""

from __future__ import annotations

import functools

import numpy as np

from ...._jit import njit
from ._mcgrid import _box, _ring_range, _window

__all__ = ["ball_counts", "section_piece", "shell_offsets", "torus_set", "torus_weights"]



@functools.lru_cache(maxsize=16)
def shell_offsets(radius: int, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The offsets of the cube [-radius, radius]^d sorted by L-infinity norm,
    then L1 norm, then as node ids (the last axis first); where each
    L-infinity shell starts (radius + 2 entries);
    where each group of one (L-infinity, L1) norm starts, and the first
    group of each shell.

    >>> offs, start, groups, first = shell_offsets(1, 2)
    >>> offs[:3].tolist(), start.tolist(), groups.tolist(), first.tolist()
    ([[0, 0], [0, -1], [-1, 0]], [0, 1, 9], [0, 1, 5, 9], [0, 1, 3])
    """
    axis = np.arange(-radius, radius + 1, dtype=np.int64)
    offs = np.stack(np.meshgrid(*[axis] * d, indexing="ij"), axis=-1).reshape(-1, d)
    a = np.abs(offs)
    linf, l1 = a.max(axis=1), a.sum(axis=1)
    order = np.lexsort(tuple(offs[:, a] for a in range(d)) + (l1, linf))
    offs, linf, l1 = np.ascontiguousarray(offs[order]), linf[order], l1[order]
    start = np.searchsorted(linf, np.arange(radius + 2)).astype(np.int64)
    key = linf * (d * radius + 1) + l1
    groups = np.concatenate((np.flatnonzero(np.diff(key)) + 1, [len(key)]))
    groups = np.concatenate(([0], groups)).astype(np.int64)
    first = np.searchsorted(groups, start).astype(np.int64)
    for arr in (offs, start, groups, first):
        arr.setflags(write=False)  # cached: shared by every call
    return offs, start, groups, first


@njit(cache=True)
def _ball(P, st, shape, ring, c, s, lo, hi, a0, a1):
    """Free cells within L-infinity distance s of cell c (with wrap)."""
    _ring_range(shape, ring, s, lo, hi)
    _window(shape, ring, c, lo, hi, a0, a1)
    return _box(P, st, a0, a1)


@njit(cache=True, nogil=True)
def ball_counts(P, st, shape, ring, cells, k):
    """Per centre: the radius r of the first L-infinity ball (with wrap)
    holding k free cells, the free cells of the ball of radius r - 1, a
    lower bound on the sum of the k smallest L-infinity distances (the
    MC score) from those two counts alone, the free cells of the ball
    of radius r, and an estimate of the centre's work in
    :func:`torus_weights` (its slabs, and the cells of shell r it walks
    to find the cells taken, or left out: the fewer, at the shell's
    density), by which the centres are shared out among threads.

    The search for r starts from the previous centre's (a neighbour, as
    the centres come in node-id order).  The score is ``sum_{s < r} (k -
    N(s))`` for N(s) the free cells of the ball of radius s; N(s) is at
    most N(r - 1) and at most the cells of that ball, which gives the bound.
    """
    n, d = cells.shape
    last = np.empty(n, dtype=np.int64)
    inner = np.empty(n, dtype=np.int64)
    score = np.empty(n, dtype=np.int64)
    outer = np.empty(n, dtype=np.int64)
    work = np.empty(n, dtype=np.float64)
    lo = np.empty(d, dtype=np.int64)
    hi = np.empty(d, dtype=np.int64)
    a0 = np.empty(d, dtype=np.int64)
    a1 = np.empty(d, dtype=np.int64)
    r = np.int64(0)  # not a literal 0 (see optalloc._jit)
    for i in range(n):
        c = cells[i]
        # the least r with N(r) >= k: up from r while short, down while r - 1 suffices
        cnt = _ball(P, st, shape, ring, c, r, lo, hi, a0, a1)
        while cnt < k:
            r += 1
            cnt = _ball(P, st, shape, ring, c, r, lo, hi, a0, a1)
        below = 0
        while r > 0:
            below = _ball(P, st, shape, ring, c, r - 1, lo, hi, a0, a1)
            if below < k:
                break
            r -= 1
            cnt = below
        if r == 0:
            below = 0
        last[i] = r
        inner[i] = below
        outer[i] = cnt
        acc = 0
        vol = 1  # the cells of the ball of radius s
        prev = 0
        for s in range(r + 1):
            prev = vol
            vol = 1
            for a in range(d):
                side = 2 * s + 1
                if ring[a] and shape[a] < side:
                    side = shape[a]
                vol *= side
            if s < r:
                acc += k - min(below, vol)
        score[i] = acc
        shell = vol - prev if r > 0 else 1
        work[i] = 8.0 * (2 * r + 1) + min(k - below, cnt - k) * shell / max(1, cnt - below)
    return last, inner, score, outer, work


@njit(cache=True)
def _axis_weight(h, lo, hi, side, wrap, R):
    """Sum over pairs of a histogram h (offsets lo..hi, stored at t + R) of
    their distance on the axis (ring distance when it wraps)."""
    if not wrap or 2 * (hi - lo) <= side:
        cnt = 0
        mom = 0
        w = 0
        for t in range(lo, hi + 1):
            c = h[t + R]
            if c:
                w += c * (t * cnt - mom)
                cnt += c
                mom += c * t
        return w
    # min(g, side - g) = g - (2 g - side) where 2 g > side, i.e. g >= H: the
    # pairs that far apart are taken off with prefix sums of the counts
    H = side // 2 + 1
    cnt = 0
    mom = 0
    far_cnt = 0
    far_mom = 0
    p = lo
    w = 0
    for u in range(lo, hi + 1):
        while p <= u - H:
            far_cnt += h[p + R]
            far_mom += h[p + R] * p
            p += 1
        c = h[u + R]
        if c:
            w += c * (u * cnt - mom) - c * ((2 * u - side) * far_cnt - 2 * far_mom)
            cnt += c
            mom += c * u
    return w


@njit(cache=True)
def _last_shell(idpad, freepad, base, offs, delta, groups, first, r, m, lo, hi, wraps, back, buf_id, buf_off, tmp_id,
                tmp_off, counts):
    """The m cells taken from shell r around a centre (padded index
    ``base``): the free cells of the shell by L1 norm, then node id.
    Writes their offset rows to the front of ``buf_off`` (the scan reads
    the byte grid ``freepad``; node ids, in ``buf_id``, are read only for
    the group that completes the set when the window wraps).  With
    ``back``, the m free cells a set leaves out of the shell instead (the
    complement of the choice): the last ones by L1 norm, then node id,
    found by walking the shell from its far end.

    Within a group of one L1 norm the offsets come in node-id order unless
    the centre's window wraps (``wraps``); then the smallest ids (with
    ``back`` the largest) of the group that completes the count are
    selected (their order is not kept)."""
    d = offs.shape[1]
    clipped = False
    for a in range(d):
        if lo[a] > -r or hi[a] < r:
            clipped = True
    step = -1 if back else 1
    g0, g1 = (first[r + 1] - 1, first[r] - 1) if back else (first[r], first[r + 1])
    got = np.int64(0)  # not literal zeros (see optalloc._jit)
    level = np.int64(0)
    for g in range(g0, g1, step):
        level = got
        j0, j1 = (groups[g + 1] - 1, groups[g] - 1) if back else (groups[g], groups[g + 1])
        if clipped:
            for j in range(j0, j1, step):
                inside = True
                for a in range(d):
                    if offs[j, a] < lo[a] or offs[j, a] > hi[a]:
                        inside = False
                if inside:
                    v = idpad[base + delta[j]]
                    if v >= 0:
                        buf_id[got] = v
                        buf_off[got] = j
                        got += 1
        else:
            for j in range(j0, j1, step):
                buf_off[got] = j
                got += freepad[base + delta[j]]  # branch-free
        if got >= m:
            break
    if wraps and got > m:
        for p in range(level, got):
            buf_id[p] = step * idpad[base + delta[buf_off[p]]]  # backwards: the largest ids first
        _select(buf_id, buf_off, level, got, m, tmp_id, tmp_off, counts)


@njit(cache=True)
def _select(ids, rows, left, stop, m, tmp_id, tmp_row, counts):
    """Reorder ``ids[left:stop]`` (distinct, with ``rows`` alongside) so
    that the entries before position m are the smallest.

    The ids are bucketed by value into at most 64 ranges (one pass to
    count); the ranges below the one that holds the m-th smallest are
    taken whole, that one is sorted (it holds few ids: a group's cells lie
    in a few planes of the machine)."""
    lo = ids[left]
    hi = ids[left]
    for p in range(left, stop):
        lo = min(lo, ids[p])
        hi = max(hi, ids[p])
    shift = 0
    while ((hi - lo) >> shift) >= 64:
        shift += 1
    for b in range(65):
        counts[b] = 0
    for p in range(left, stop):
        counts[(ids[p] - lo) >> shift] += 1
    need = m - left
    below = 0
    b = 0
    while below + counts[b] < need:
        below += counts[b]
        b += 1
    w = left
    c = 0
    for p in range(left, stop):
        bucket = (ids[p] - lo) >> shift
        if bucket < b:
            tmp_id[w - left] = ids[p]
            tmp_row[w - left] = rows[p]
            w += 1
    for p in range(left, stop):
        if (ids[p] - lo) >> shift == b:
            v = ids[p]
            r = rows[p]
            q = below + c - 1
            while q >= below and tmp_id[q] > v:
                tmp_id[q + 1] = tmp_id[q]
                tmp_row[q + 1] = tmp_row[q]
                q -= 1
            tmp_id[q + 1] = v
            tmp_row[q + 1] = r
            c += 1
    for p in range(need):
        ids[left + p] = tmp_id[p]
        rows[left + p] = tmp_row[p]


@njit(cache=True)
def _wraps(shape, ring, c, lo, hi):
    """True when the window [c + lo, c + hi] crosses the seam of a ring."""
    for a in range(len(shape)):
        if ring[a] and (c[a] + lo[a] < 0 or c[a] + hi[a] >= shape[a]):
            return True
    return False


@njit(cache=True, nogil=True)
def torus_weights(P, st, idpad, freepad, pst, pad, shape, ring, cells, last, inner, outer, back, k, offs, delta,
                  start, groups, first, R, sections, which):
    """W (the sum of torus L1 distances over pairs) of each centre's set
    (the k nearest free cells by L-infinity, L1, node id).

    The histogram starts from a ball's count per slab of each axis: the
    ball of radius r - 1, to which the cells the set takes from shell r
    are added (walked from the shell's near end); or, where ``back[i]``
    (where the set takes most of the shell's free cells; ``outer[i]``
    the free cells of the ball of radius r), the ball of radius r, from which the
    cells the set leaves out are removed (walked from the far end).  The
    counts are read from ``sections[which[i], a]`` (the free cells of the
    cross-section through a padded cell, :func:`section_piece`, for the
    radius of that ball) when ``which[i] >= 0``, else counted with the
    prefix table."""
    n, d = cells.shape
    W = np.empty(n, dtype=np.int64)
    lo = np.empty(d, dtype=np.int64)
    hi = np.empty(d, dtype=np.int64)
    slo = np.empty(d, dtype=np.int64)
    shi = np.empty(d, dtype=np.int64)
    a0 = np.empty(d, dtype=np.int64)
    a1 = np.empty(d, dtype=np.int64)
    h = np.zeros((d, 2 * R + 1), dtype=np.int64)
    nmax = 1
    for r in range(R + 1):
        nmax = max(nmax, start[r + 1] - start[r])
    buf_id = np.empty(nmax, dtype=np.int32)
    buf_off = np.empty(nmax, dtype=np.int64)
    tmp_id = np.empty(nmax, dtype=np.int32)
    tmp_off = np.empty(nmax, dtype=np.int64)
    counts = np.empty(65, dtype=np.int64)
    for i in range(n):
        r = last[i]
        m = k - inner[i]
        from_far = back[i] and r > 0
        for a in range(d):
            for t in range(R - r, R + r + 1):
                h[a, t] = 0
        base = np.int64(0)  # not a literal 0 (see optalloc._jit)
        for a in range(d):
            base += (cells[i, a] + pad[a]) * pst[a]
        if r > 0:
            _ring_range(shape, ring, r if from_far else r - 1, lo, hi)
            q = which[i]
            if q >= 0:
                for a in range(d):
                    for t in range(lo[a], hi[a] + 1):
                        h[a, t + R] = sections[q, a, base + t * pst[a]]
            else:
                for a in range(d):
                    for b in range(d):
                        slo[b] = lo[b]
                        shi[b] = hi[b]
                    for t in range(lo[a], hi[a] + 1):
                        slo[a] = t
                        shi[a] = t
                        if _window(shape, ring, cells[i], slo, shi, a0, a1):
                            h[a, t + R] = _box(P, st, a0, a1)
        _ring_range(shape, ring, r, lo, hi)
        wraps = _wraps(shape, ring, cells[i], lo, hi)
        if from_far:
            e = outer[i] - k
            if e > 0:
                _last_shell(idpad, freepad, base, offs, delta, groups, first, r, e, lo, hi, wraps, True, buf_id,
                            buf_off, tmp_id, tmp_off, counts)
                for p in range(e):
                    j = buf_off[p]
                    for a in range(d):
                        h[a, offs[j, a] + R] -= 1
        else:
            _last_shell(idpad, freepad, base, offs, delta, groups, first, r, m, lo, hi, wraps, False, buf_id,
                        buf_off, tmp_id, tmp_off, counts)
            for p in range(m):
                j = buf_off[p]
                for a in range(d):
                    h[a, offs[j, a] + R] += 1
        w = 0
        for a in range(d):
            w += _axis_weight(h[a], lo[a], hi[a], shape[a], ring[a], R)
        W[i] = w
    return W


@njit(cache=True, nogil=True)
def _slide(g, out, radius):
    """``out[..., x] = sum of g[..., x - radius : x + radius + 1]`` along
    the last axis of 3-axis arrays, where the window fits (out is zero)."""
    X, Y, N = g.shape
    for i in range(X):
        for j in range(Y):
            s = 0
            for t in range(2 * radius + 1):
                s += g[i, j, t]
            for x in range(radius, N - radius):
                out[i, j, x] = s
                if x + radius + 1 < N:
                    s += g[i, j, x + radius + 1] - g[i, j, x - radius]


def _window_sum(g: np.ndarray, axis: int, radius: int, out: np.ndarray) -> None:
    """Sum ``g`` (int32, at most three axes) over the window of ``radius``
    along ``axis`` into ``out`` (zero, the same shape) where the window fits."""
    if g.shape[axis] <= 2 * radius:
        return
    if g.ndim <= 3:  # one compiled pass along the axis (views put it last)
        lead = (1,) * (3 - g.ndim)
        _slide(np.moveaxis(g.reshape(lead + g.shape), axis + 3 - g.ndim, -1),
               np.moveaxis(out.reshape(lead + out.shape), axis + 3 - g.ndim, -1), radius)
        return
    c = np.cumsum(g, axis=axis, dtype=np.int32)
    size = g.shape[axis]

    def at(lo, hi):
        idx = [slice(None)] * g.ndim
        idx[axis] = slice(lo, hi)
        return tuple(idx)

    out[at(radius, radius + 1)] = c[at(2 * radius, 2 * radius + 1)]
    out[at(radius + 1, size - radius)] = c[at(2 * radius + 1, size)] - c[at(0, size - 2 * radius - 1)]


def section_piece(occupied: np.ndarray, radius: int, a: int, lo: int, hi: int, out: np.ndarray) -> None:
    """The cells x with ``lo <= x_a < hi`` of the cross-section grid of
    axis a, written into ``out`` (int32 of ``occupied``'s shape, zero
    there): per padded cell x, the occupied cells y with y_a = x_a and
    |y_b - x_b| <= radius on every other axis, exact where those windows
    stay inside the grid (0 elsewhere).  No window runs along axis a, so
    the pieces of an axis are independent: threads can share the grids
    out.

    >>> out = np.zeros((3, 3), dtype=np.int32)
    >>> section_piece(np.ones((3, 3), dtype=np.int32), 1, 0, 0, 3, out)
    >>> out[1, 1].item()
    3
    """
    idx = [slice(None)] * occupied.ndim
    idx[a] = slice(lo, hi)
    g = occupied[tuple(idx)]
    others = [b for b in range(occupied.ndim) if b != a]
    if not others:
        out[tuple(idx)] = g
        return
    for n, b in enumerate(others):
        dst = out[tuple(idx)] if n == len(others) - 1 else np.zeros(g.shape, dtype=np.int32)
        _window_sum(g, b, radius, dst)
        g = dst


@njit(cache=True)
def torus_set(idpad, freepad, pst, pad, shape, ring, cell, r, m, k, offs, delta, start, groups, first):
    """The k node ids of one centre's set: its ball of radius r - 1, then
    the m cells of shell r by L1 norm and node id."""
    d = len(shape)
    lo = np.empty(d, dtype=np.int64)
    hi = np.empty(d, dtype=np.int64)
    base = np.int64(0)  # not a literal 0 (see optalloc._jit)
    for a in range(d):
        base += (cell[a] + pad[a]) * pst[a]
    out = np.empty(k, dtype=np.int64)
    got = 0
    if r > 0:
        _ring_range(shape, ring, r - 1, lo, hi)
        for j in range(start[r]):
            inside = True
            for a in range(d):
                if offs[j, a] < lo[a] or offs[j, a] > hi[a]:
                    inside = False
            if inside:
                v = idpad[base + delta[j]]
                if v >= 0:
                    out[got] = v
                    got += 1
    _ring_range(shape, ring, r, lo, hi)
    nmax = start[r + 1] - start[r]
    buf_id = np.empty(nmax, dtype=np.int32)
    buf_off = np.empty(nmax, dtype=np.int64)
    _last_shell(idpad, freepad, base, offs, delta, groups, first, r, m, lo, hi, _wraps(shape, ring, cell, lo, hi),
                False, buf_id, buf_off, np.empty(nmax, dtype=np.int32), np.empty(nmax, dtype=np.int64),
                np.empty(65, dtype=np.int64))
    for p in range(m):
        out[got + p] = idpad[base + delta[buf_off[p]]]
    return out
