"""The tables the search over column and row counts reads (:mod:`._torusprofile`).

Each is a lower bound (or an exact 1D optimum) computed once per
instance from the free cells; :class:`TorusTables` carries them into the
compiled search.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._jit import njit
from ._ring import organ_distances

__all__ = ["TorusTables", "build_tables"]


class TorusTables(NamedTuple):
    """What the column search reads: the free cells, the axes' distances
    and the lower-bound tables of :func:`torus_profile_search`."""

    free: np.ndarray  # free[j, i]: cell (column j, row i) is free
    DX: np.ndarray  # distance between columns
    DY: np.ndarray  # distance between rows
    SX: np.ndarray  # SX[m]: 1D optimum of m points on the x axis (likewise SY)
    SY: np.ndarray
    GY: np.ndarray  # GY[u]: least W_y of k points, each row capped at u
    own: np.ndarray  # own[j, v]: least W_y of v free cells of column j
    pair: np.ndarray  # pair[j, l, a, b]: :func:`_pair_table`
    hcol: np.ndarray  # hcol[j, i, v]: :func:`_near_table`
    rest_own: np.ndarray  # rest_own[j, m]: least sum of own over m points in columns >= j
    fut: np.ndarray  # fut[j, i]: columns >= j with a free cell in row i
    below: np.ndarray  # below[t, j]: free cells of column j in rows < t
    sym: np.ndarray  # per axis: an idle wrapped axis (rotations and reflections)
    organ: np.ndarray  # organ[a, b]: x-distance of the organ-pipe places of the a-th and b-th largest counts
    minown: np.ndarray  # minown[j, w]: least own[t, w] over t >= j
    minpair: np.ndarray  # minpair[j, a, b]: least pair cost over two columns >= j


@njit(cache=True)
def _suffix_minima(own, pair):  # pragma: no cover - compiled by numba
    """minown[j, w]: least own[t, w] over t >= j; minpair[j, a, b]: least
    pair cost of a cells of one column and b of another, both >= j."""
    p, kk = own.shape
    minown = np.full((p + 1, kk), np.inf)
    minpair = np.full((p + 1, kk, kk), np.inf)
    for j in range(p - 1, -1, -1):
        minown[j] = minown[j + 1]
        minpair[j] = minpair[j + 1]
        for w in range(kk):
            minown[j, w] = min(minown[j, w], own[j, w])
        for t in range(j + 1, p):
            for a in range(kk):
                for b in range(kk):
                    x = min(pair[j, t, a, b], pair[j, t, b, a])
                    if x < minpair[j, a, b]:
                        minpair[j, a, b] = x
    return minown, minpair


@njit(cache=True)
def _one_way(fa, fb, DY, k):  # pragma: no cover - compiled by numba
    """least[a, b]: the a least h(s, b) over the cells s of fa summed, with
    h(s, b) the sum of the b least distances of s to the cells fb."""
    na, nb = min(len(fa), k), min(len(fb), k)
    h = np.zeros((len(fa), nb + 1))
    row = np.empty(len(fb))
    for s in range(len(fa)):
        for t in range(len(fb)):
            row[t] = DY[fa[s], fb[t]]
        row.sort()
        for b in range(1, nb + 1):
            h[s, b] = h[s, b - 1] + row[b - 1]
    least = np.full((k + 1, k + 1), np.inf)
    for b in range(nb + 1):
        least[0, b] = 0.0
        col = np.sort(h[:, b])
        for a in range(1, na + 1):
            least[a, b] = least[a - 1, b] + col[a - 1]
    return least


@njit(cache=True)
def _pairs(free, DY, k, out):  # pragma: no cover - compiled by numba
    p = free.shape[0]
    for j in range(p):
        fj = np.nonzero(free[j])[0]
        if len(fj) == 0:
            continue
        for l in range(j + 1, p):
            fl = np.nonzero(free[l])[0]
            if len(fl) == 0:
                continue
            one = _one_way(fj, fl, DY, k)
            other = _one_way(fl, fj, DY, k)
            for a in range(k + 1):
                for b in range(k + 1):
                    out[j, l, a, b] = max(one[a, b], other[b, a])


def _pair_table(free: np.ndarray, DY: np.ndarray, k: int) -> np.ndarray:
    """pair[j, l, a, b] (j < l): a lower bound on the sum of DY over the
    pairs of a free cells of column j and b free cells of column l.  For a
    cell s of column j, its b partners cost at least h(s, b), the sum of
    its b least distances to the free cells of column l; so the a cells
    cost at least the a least h(s, b) summed, and symmetrically (the larger
    of the two is kept; inf where a column has fewer free cells)."""
    p = free.shape[0]
    out = np.full((p, p, k + 1, k + 1), np.inf)
    _pairs(free, np.ascontiguousarray(DY, dtype=np.float64), int(k), out)
    return out


def _near_table(free: np.ndarray, DY: np.ndarray, k: int) -> np.ndarray:
    """hcol[j, i, v]: the sum of the v least DY[i, t] over the free cells t
    of column j (0 where v exceeds them: never read there)."""
    p, q = free.shape
    out = np.zeros((p, q, k + 1))
    for j in range(p):
        cells = np.flatnonzero(free[j])
        v = min(len(cells), k)
        if v:
            out[j, :, 1 : v + 1] = np.cumsum(np.sort(DY[:, cells], axis=1), axis=1)[:, :v]
    return out


def _axis_distance(side: int, wrap: bool) -> np.ndarray:
    a = np.arange(side)
    d = np.abs(a[:, None] - a[None, :]).astype(float)
    return np.minimum(d, side - d) if wrap else d


@njit(cache=True)
def _arcs(q, k, side, wrap, out):  # pragma: no cover - compiled by numba
    """out[m]: least W of m consecutive points of the sorted positions q
    (in circular order on a ring of ``side`` when ``wrap``), m <= k."""
    n = len(q)
    for m in range(1, k + 1):
        out[m] = 0.0 if m == 1 else np.inf
    for s in range(n):
        w = 0.0
        for m in range(2, min(k, n) + 1):
            t = s + m - 1
            if t >= n and not wrap:
                break
            a = q[t % n] + (side if t >= n else 0)
            for r in range(s, t):
                b = q[r % n] + (side if r >= n else 0)
                d = a - b
                if wrap and side - d < d:
                    d = side - d
                w += d
            if w < out[m]:
                out[m] = w


def _one_d(pos: np.ndarray, k: int, side: int, wrap: bool) -> np.ndarray:
    """T[m]: the 1D optimum of m of the positions ``pos`` (with repeats),
    m = 0..k (inf when fewer than m): the least arc of m consecutive
    points in circular order (SAND2003 sec. 4, on a line or a ring)."""
    out = np.full(k + 1, np.inf)
    out[0] = 0.0
    if k >= 1 and len(pos):
        _arcs(np.sort(np.asarray(pos, dtype=np.float64)), int(k), float(side), bool(wrap and side > 2), out)
    return out


def build_tables(free: np.ndarray, k: int, torus) -> TorusTables:
    """The tables of the search over the free cells ``free`` (p x q), axes
    wrapped as ``torus``."""
    p, q = free.shape
    cells = np.argwhere(free)
    DX, DY = _axis_distance(p, bool(torus[0])), _axis_distance(q, bool(torus[1]))
    SX = _one_d(cells[:, 0], k, p, bool(torus[0]))
    SY = _one_d(cells[:, 1], k, q, bool(torus[1]))
    capy = free.sum(axis=0)
    GY = np.full(p + 1, np.inf)  # by the number u of used columns
    for u in range(1, p + 1):
        pos = np.repeat(np.arange(q), np.minimum(capy, u))
        if len(pos) >= k:
            GY[u] = _one_d(pos, k, q, bool(torus[1]))[k]
    # own[j, v]: least W_y of v of the free cells of column j (same-column
    # pairs); rest_own[j, m]: least sum of own over m points in columns >= j
    own = np.full((p, k + 1), np.inf)
    for j in range(p):
        own[j] = _one_d(np.flatnonzero(free[j]), k, q, bool(torus[1]))
    rest_own = np.full((p + 1, k + 1), np.inf)
    rest_own[p, 0] = 0.0
    for j in range(p - 1, -1, -1):
        for m in range(k + 1):
            rest_own[j, m] = min(own[j, v] + rest_own[j + 1, m - v] for v in range(m + 1))
    below = np.zeros((q + 1, p), dtype=np.int64)
    below[1:] = np.cumsum(free.T, axis=0)
    fut = np.zeros((p + 1, q), dtype=np.int64)  # columns >= j with a free cell in row i
    fut[:p] = np.cumsum(free[::-1], axis=0)[::-1]
    # on an idle machine a rotation of a wrapped axis, and its reflection
    # about line 0, map every set onto one of equal W: the search keeps the
    # sets whose line 0 on that axis holds the most nodes and whose line 1
    # holds no fewer than the last
    idle = bool(free.all())
    sym = np.array([idle and bool(torus[0]), idle and bool(torus[1])])
    pair = _pair_table(free, DY, k)
    return TorusTables(free, DX, DY, SX, SY, GY, own, pair, _near_table(free, DY, k), rest_own, fut, below, sym,
                       organ_distances(p, bool(torus[0])), *_suffix_minima(own, pair))
