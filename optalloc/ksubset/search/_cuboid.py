"""The k-subset optimum of a full three-dimensional box.

The argument of :mod:`._box` carries over.  Permuting the coordinate
values of one axis keeps the slice sizes of the other two, so the W of k
cells of an ``a x b x c`` box is at least ``arr(X) + arr(Y) + arr(Z)``
(X, Y, Z the slice sizes along each axis), with equality for the best
order of each axis; and pushing the cells towards the origin along one
axis keeps the slice sizes of the other two and makes that axis's sizes
majorise the old ones, which does not increase ``arr`` (it is concave and
symmetric).  Hence::

    OPT(a x b x c, k) = min over plane partitions pi of k in the box of
                        arr(X) + arr(Y) + arr(Z)

(checked against brute force on every k of boxes up to 4 x 3 x 2).

The search builds the plane partition as its x-slices, largest first:
each slice is a Young diagram in the ``b x c`` cross-section, contained in
the one before.  With slices chosen, R points left and n more slices to
come (every value that fits is tried), each inside the last slice nu:

* x: the slice sizes are the chosen ones and n parts in [1, |nu|] summing
  to R; the greedy ones (as many full parts as possible) majorise every
  such choice, so their arr is a lower bound (arr is Schur-concave);
* y and z: the rest adds a matrix m of multiplicities in [0, n] on the
  cells of nu, its row sums to Y and its column sums to Z.  The sum of the
  two arr's is concave in m, so its least value on that polytope is at a
  vertex: every entry 0 or n but one; sorting rows and columns (which only
  majorises further, the chosen sums being non-increasing too) makes the
  n-entries a Young diagram T of R // n cells inside nu.  The odd entry is
  bounded by putting it on the largest row and the largest column.

Children are ordered by the cheap bound (each axis on its own: the
greedy completions, as many full x-slices as possible and the rows and
layers of nu filled up to n times) and the strong one is checked when a
child is about to be expanded, stopping at the first (n, T) below the
incumbent; leaves are scored exactly.  The loops are compiled by numba.
Its reach on an 8 x 8 x 5 box: k = 27 (the 3 x 3 x 3 cube, W = 972) in
0.2 s, k = 40 in about 27,000 nodes (5 s), k = 64 (the 4 x 4 x 4 cube,
7539) in 9 minutes.

The compiled functions pass named state: :class:`Cuboid` (the box and its
diagram table), :class:`Slices` (the slices chosen so far and their sums)
and :class:`ArrScratch` (the table and working arrays of :func:`_arr`),
namedtuples that numba passes as plain structures.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import NamedTuple

import numpy as np

from ..._jit import njit
from ._box import arrangement
from ._boxsearch import _BIG, _place_row
from ._ring import organ_distances, organ_places

#: cross-sections with more Young diagrams than this are refused (8 x 8 has
#: 12,870; the children of a node are scanned among all of them)
MAX_DIAGRAMS = 20_000
#: default node budget of :func:`cuboid_optimum` (a node costs more as k
#: grows; measured costs in docs/experiments.md)
SEARCH_NODES = 100_000
#: the budgets count nodes of a cross-section with this many diagrams (8 x 5);
#: a node scans every diagram, so larger ones get proportionally fewer nodes
_REFERENCE_DIAGRAMS = comb(13, 5)


class Cuboid(NamedTuple):
    """The box (sides a >= b >= c, each at most k) and the Young diagrams
    of its b x c cross-section (:func:`_diagrams`): read only."""

    a: int
    b: int
    c: int
    k: int
    #: D[t]: row lengths of diagram t; C[t]: its conjugate; size[t]: its
    #: cells; start[s]: the first diagram of s cells (sorted by size)
    D: np.ndarray
    C: np.ndarray
    size: np.ndarray
    start: np.ndarray
    #: organ[axis]: the organ-pipe distances of that axis (x, y, z of the
    #: sorted box) on a torus (:func:`._ring.organ_distances`); shape (3, 0, 0)
    #: on a mesh, where arr is the line's
    organ: np.ndarray


class Slices(NamedTuple):
    """The x-slices chosen so far: ``sizes[i]`` the cells of slice i, and
    ``Y[d]``, ``Z[d]`` the y and z slice sums of the first d slices."""

    sizes: np.ndarray
    Y: np.ndarray
    Z: np.ndarray


class ArrScratch(NamedTuple):
    """What :func:`_arr` reads (``f[L] = L (k - L)``; on a torus the
    axes' organ-pipe distances) and its working arrays, with ``vec``,
    where the bounds build the vectors they score."""

    f: np.ndarray
    cost: np.ndarray
    nxt: np.ndarray
    tmp: np.ndarray
    vec: np.ndarray
    organ: np.ndarray


class SearchResult(NamedTuple):
    """What :func:`_search` returns."""

    value: int
    nodes: int
    complete: bool


def _arr(vec, n, scratch, axis):  # pragma: no cover - compiled by numba
    """arr of the positive entries of vec[:n] on ``axis`` (the unimodal DP
    of :mod:`._box` on a mesh; on a torus the organ pipe, the least on a
    ring or a line, :mod:`._ring`; ``scratch``: an :class:`ArrScratch`, its
    ``vec`` untouched)."""
    f, cost, nxt, tmp, organ = scratch.f, scratch.cost, scratch.nxt, scratch.tmp, scratch.organ
    m = 0
    for i in range(n):
        v = vec[i]
        if v > 0:
            j = m  # insertion sort, ascending
            while j > 0 and tmp[j - 1] > v:
                tmp[j] = tmp[j - 1]
                j -= 1
            tmp[j] = v
            m += 1
    if organ.shape[1] > 0:  # the organ pipe: the a-th largest at its place
        total = 0
        for a in range(m):
            for b in range(a):
                total += tmp[m - 1 - a] * tmp[m - 1 - b] * organ[axis, a, b]
        return total
    cost[0] = 0
    t = np.int64(0)  # not a literal 0 (see optalloc._jit)
    for i in range(m):
        t = _place_row(cost, t, tmp[i], f, nxt)
    best = cost[0]
    for s in range(1, t + 1):
        best = min(best, cost[s])
    return best


def _inside(D, small, big, b):  # pragma: no cover - compiled by numba
    """Whether diagram ``small`` lies inside diagram ``big`` (row by row)."""
    for j in range(b):
        if D[small, j] > D[big, j]:
            return False
    return True


def _add_slice(box, sl, depth, nu):  # pragma: no cover - compiled by numba
    """Row depth + 1 of the y and z slice sums of ``sl`` (:class:`Slices`):
    row depth plus slice nu."""
    Y, Z, D, C, b, c = sl.Y, sl.Z, box.D, box.C, box.b, box.c
    for j in range(b):
        Y[depth + 1, j] = Y[depth, j] + D[nu, j]
    for t in range(c):
        Z[depth + 1, t] = Z[depth, t] + C[nu, t]


def _greedy_bound(box, sl, depth, nu, R, scratch):  # pragma: no cover - compiled by numba
    """The cheap bound of a node (``depth`` slices in ``sl``, the last nu,
    R points left): each axis on its own, x with the fewest slices to come,
    y and z with the most (module docstring); ``_BIG`` when the R points
    left cannot fit."""
    a, b, c, D, C = box.a, box.b, box.c, box.D, box.C
    sizes, Yk, Zk, work = sl.sizes, sl.Y[depth], sl.Z[depth], scratch.vec
    cap = 0
    for j in range(b):
        cap += D[nu, j]
    lo = (R + cap - 1) // cap
    hi = min(a - depth, R)
    if lo > hi:
        return _BIG
    for i in range(depth):
        work[i] = sizes[i]
    left = R
    for i in range(lo):
        work[depth + i] = min(left, cap)
        left -= work[depth + i]
    v = _arr(work, depth + lo, scratch, 0)
    left = R
    for j in range(b):
        add = min(left, hi * D[nu, j])
        work[j] = Yk[j] + add
        left -= add
    v += _arr(work, b, scratch, 1)
    left = R
    for t in range(c):
        add = min(left, hi * C[nu, t])
        work[t] = Zk[t] + add
        left -= add
    return v + _arr(work, c, scratch, 2)


def _below(box, sl, depth, nu, R, cutoff, scratch):  # pragma: no cover - compiled by numba
    """Whether the strong bound of a node (``depth`` slices in ``sl``, the
    last nu, R points left; module docstring: n slices to come, the rest a
    Young diagram T of R // n cells repeated n times) is below ``cutoff``;
    stops at the first (n, T) that is."""
    a, b, c, D, C, start = box.a, box.b, box.c, box.D, box.C, box.start
    sizes, Yk, Zk, work = sl.sizes, sl.Y[depth], sl.Z[depth], scratch.vec
    cap = 0
    for j in range(b):
        cap += D[nu, j]
    for n in range((R + cap - 1) // cap, min(a - depth, R) + 1):
        # x: the chosen sizes, then n parts in [1, cap] taken greedily
        for i in range(depth):
            work[i] = sizes[i]
        left = R - n
        for i in range(n):
            add = min(left, cap - 1)
            work[depth + i] = 1 + add
            left -= add
        xb = _arr(work, depth + n, scratch, 0)
        if xb >= cutoff:
            continue
        q, r = R // n, R % n
        for T in range(start[q], start[q + 1]):
            if not _inside(D, T, nu, b):
                continue
            for j in range(b):
                work[j] = Yk[j] + n * D[T, j]
            work[0] += r
            v = xb + _arr(work, b, scratch, 1)
            if v >= cutoff:
                continue
            for t in range(c):
                work[t] = Zk[t] + n * C[T, t]
            work[0] += r
            if v + _arr(work, c, scratch, 2) < cutoff:
                return True
    return False


def _search(box, upper, node_limit, best_path):  # pragma: no cover - compiled by numba
    """Least arr(X) + arr(Y) + arr(Z) below ``upper`` over plane partitions
    of k in the box (a :class:`Cuboid`) given by their x-slices (indices
    into its diagram table).  Writes the slices of the best one into
    ``best_path`` (-1 padded); returns a :class:`SearchResult` (value,
    nodes, complete)."""
    a, b, c, k, D, size = box.a, box.b, box.c, box.k, box.D, box.size
    nd = D.shape[0]
    f = np.empty(k + 1, dtype=np.int64)
    for L in range(k + 1):
        f[L] = L * (k - L)
    depth_max = min(a, k) + 1
    Y = np.zeros((depth_max + 1, b), dtype=np.int64)
    Z = np.zeros((depth_max + 1, c), dtype=np.int64)
    sizes = np.zeros(depth_max + 1, dtype=np.int64)
    path = np.full(depth_max + 1, -1, dtype=np.int64)
    Rs = np.zeros(depth_max + 1, dtype=np.int64)
    kids = np.zeros((depth_max + 1, nd), dtype=np.int64)
    nkids = np.zeros(depth_max + 1, dtype=np.int64)
    pos = np.zeros(depth_max + 1, dtype=np.int64)
    kid_lb = np.zeros((depth_max + 1, nd), dtype=np.int64)
    lbs = np.zeros(nd, dtype=np.int64)
    idx = np.zeros(nd, dtype=np.int64)
    work = np.zeros(max(depth_max + a + 2, b + 1, c + 1), dtype=np.int64)
    scratch = ArrScratch(f, np.zeros(k + 1, dtype=np.int64), np.zeros(k + 1, dtype=np.int64),
                         np.zeros(work.shape[0], dtype=np.int64), work, box.organ)
    sl = Slices(sizes, Y, Z)
    best = upper
    nodes = 0
    depth = np.int64(0)  # not a literal 0 (see optalloc._jit)
    Rs[0] = k
    last = nd - 1  # the full cross-section (largest diagram, last in the table)
    expand = True
    while True:
        if expand:
            nodes += 1
            if nodes > node_limit:
                return SearchResult(best, nodes, False)
            R = Rs[depth]
            prev = last if depth == 0 else path[depth - 1]
            cnt = 0
            for nu in range(nd):
                cells = size[nu]
                if cells == 0 or cells > R or R - cells > (a - depth - 1) * cells:
                    continue
                if not _inside(D, nu, prev, b):
                    continue
                _add_slice(box, sl, depth, nu)  # row depth + 1: scratch until descended
                sizes[depth] = cells
                if cells == R:  # a leaf: score it
                    v = _arr(sizes, depth + 1, scratch, 0)
                    v += _arr(Y[depth + 1], b, scratch, 1) + _arr(Z[depth + 1], c, scratch, 2)
                    if v < best:
                        best = v
                        best_path[:] = -1
                        for i in range(depth):
                            best_path[i] = path[i]
                        best_path[depth] = nu
                    continue
                lb = _greedy_bound(box, sl, depth + 1, nu, R - cells, scratch)
                if lb < best:
                    idx[cnt] = nu
                    lbs[cnt] = lb
                    cnt += 1
            order = np.argsort(lbs[:cnt], kind="mergesort")
            for i in range(cnt):
                kids[depth, i] = idx[order[i]]
                kid_lb[depth, i] = lbs[order[i]]
            nkids[depth] = cnt
            pos[depth] = 0
        # the next child of this depth whose bounds are still below the best
        nu = -1
        while pos[depth] < nkids[depth] and kid_lb[depth, pos[depth]] < best:
            cand = kids[depth, pos[depth]]
            pos[depth] += 1
            _add_slice(box, sl, depth, cand)
            sizes[depth] = size[cand]
            if _below(box, sl, depth + 1, cand, Rs[depth] - size[cand], best, scratch):
                nu = cand
                break
        if nu >= 0:  # its sums and size are in place (row depth + 1, sizes[depth])
            path[depth] = nu
            Rs[depth + 1] = Rs[depth] - size[nu]
            depth += 1
            expand = True
        else:
            if depth == 0:
                return SearchResult(best, nodes, True)
            depth -= 1
            expand = False


# compiled on first call (numba imported then, not here)
_arr = njit(cache=True)(_arr)
_inside = njit(cache=True)(_inside)
_add_slice = njit(cache=True)(_add_slice)
_greedy_bound = njit(cache=True)(_greedy_bound)
_below = njit(cache=True)(_below)
_search = njit(cache=True)(_search)


@lru_cache(maxsize=8)
def _diagrams(b: int, c: int):
    """Young diagrams in a b x c rectangle (row lengths, non-increasing, <= c),
    sorted by size: rows, conjugates, sizes, and the first index of each size."""
    rows: list[tuple] = []

    def grow(prefix, cap):
        if len(prefix) == b:
            rows.append(tuple(prefix))
            return
        for v in range(cap, -1, -1):
            grow([*prefix, v], v)

    grow([], c)
    D = np.array(rows, dtype=np.int64).reshape(-1, b)
    size = D.sum(axis=1)
    order = np.argsort(size, kind="stable")
    D, size = D[order], size[order]
    C = (D[:, :, None] > np.arange(c)[None, None, :]).sum(axis=1).astype(np.int64)
    start = np.searchsorted(size, np.arange(b * c + 2)).astype(np.int64)
    return D, C, size, start


def _cells(sides, slices, k, wrap=(False, False, False)):
    """Cells of the plane partition with the given x-slices, each axis put in
    an optimal order (module docstring), in box coordinates (on a wrapped
    axis the organ pipe around the ring, :mod:`._ring`)."""
    pts = np.array([(i, j, z) for i, nu in enumerate(slices) for j, h in enumerate(nu) for z in range(h)])
    for axis in range(3):
        sizes = np.bincount(pts[:, axis], minlength=sides[axis])
        src = np.argsort(-sizes, kind="stable")
        if wrap[axis]:  # the a-th largest slice at the a-th organ-pipe place
            where = np.empty(sides[axis], dtype=np.int64)
            where[src] = organ_places(sides[axis])
            pts[:, axis] = where[pts[:, axis]]
            continue
        order = arrangement(sizes, k)  # the sizes, in an optimal order
        # the largest slices go to the positions holding the largest sizes
        dst = np.argsort(-np.asarray(order + [0] * (sides[axis] - len(order))), kind="stable")
        where = np.empty(sides[axis], dtype=np.int64)
        where[src] = dst
        pts[:, axis] = where[pts[:, axis]]
    return pts


@lru_cache(maxsize=256)
def _cuboid_optimum(sides: tuple, k: int, nodes: int, wrap: tuple = (False, False, False)):
    order = np.argsort(sides, kind="stable")[::-1]  # slices across the two shorter sides
    a, b, c = (min(sides[i], k) for i in order)
    if comb(b + c, c) > MAX_DIAGRAMS or nodes <= 0:
        return None
    D, C, size, start = _diagrams(b, c)
    path = np.full(min(a, k) + 1, -1, dtype=np.int64)
    organ = np.zeros((3, 0, 0), dtype=np.int64)
    if any(wrap):
        m = max(a, b, c)
        organ = np.zeros((3, m, m), dtype=np.int64)
        for t, i in enumerate(order):
            n = min(sides[i], k)
            organ[t, :n, :n] = organ_distances(sides[i], bool(wrap[i]))[:n, :n]
    # a node scans every diagram: budgets are in nodes of an 8 x 5 cross-section
    limit = max(1, nodes * _REFERENCE_DIAGRAMS // len(D))
    res = _search(Cuboid(a, b, c, k, D, C, size, start, organ), np.int64(_BIG), np.int64(limit), path)
    if not res.complete:
        return None
    sorted_sides = tuple(int(sides[i]) for i in order)
    sorted_wrap = tuple(bool(wrap[i]) for i in order)
    if any(wrap):  # positions on the whole ring, not the box capped at k
        cells = _cells(sorted_sides, [D[i].tolist() for i in path if i >= 0], k, sorted_wrap)
    else:
        cells = _cells((a, b, c), [D[i].tolist() for i in path if i >= 0], k)
    back = np.empty(3, dtype=np.int64)
    back[order] = np.arange(3)
    return float(res.value), cells[:, back]


def torus_cuboid_optimum(sides, wrap, k: int, *, nodes: int = SEARCH_NODES):
    """Least W of k nodes of an idle 3D torus of ``sides`` (axis i a ring
    where ``wrap[i]``, a line elsewhere), with an optimal set of nodes.

    The argument of the module holds on rings: permuting the positions of
    one axis is a bijection of the nodes that keeps the slice sizes of the
    other two, so W >= arr(X) + arr(Y) + arr(Z) with arr the least cost of
    the slice sizes on that axis (the organ pipe on a ring or a line,
    :mod:`._ring`), attained by putting every axis in organ-pipe order;
    pushing the cells towards one corner majorises, and arr is
    Schur-concave in any metric (:mod:`._ring`).  The bounds of the search
    use that arr is Schur-concave and, with the total fixed, concave in the
    counts (the ring distance is a sum of cut semimetrics, one per half of
    the ring, so its matrix is conditionally negative semidefinite, and a
    least of concave functions is concave).  The optimum bounds every
    state of that torus from below (its free nodes are among all nodes).
    None as :func:`cuboid_optimum`.

    >>> w, cells = torus_cuboid_optimum((4, 4, 4), (True, True, True), 8)
    >>> w, cells.shape
    (48.0, (8, 3))
    """
    sides = tuple(int(s) for s in sides)
    wrap = tuple(bool(w) and s > 2 for w, s in zip(wrap, sides, strict=True))
    found = _cuboid_optimum(sides, int(k), int(nodes), wrap)
    if found is None:
        return None
    w, cells = found
    return w, cells.copy()


def cuboid_optimum(width: int, height: int, depth: int, k: int, *, nodes: int = SEARCH_NODES):
    """Least W of k cells of a full ``width x height x depth`` box, with an
    optimal set.

    Returns ``(W, cells)`` (cells as (x, y, z) offsets from the corner of the
    box), or None when the branch-and-bound of this module does not finish
    within ``nodes`` nodes (counted for an
    8 x 5 cross-section, which has 1,287 Young diagrams; a cross-section
    with m diagrams gets ``nodes * 1287 // m``), or the two shorter sides
    have more than :data:`MAX_DIAGRAMS` Young diagrams.

    Examples
    --------
    >>> from optalloc.ksubset import cuboid_optimum
    >>> w, cells = cuboid_optimum(8, 8, 5, 27)
    >>> w, sorted(int(v) for v in cells.max(axis=0) - cells.min(axis=0) + 1)
    (972.0, [3, 3, 3])
    """
    sides = tuple(int(s) for s in (width, height, depth))
    if min(sides) < 1:
        raise ValueError(f"the box must have positive sides, got {' x '.join(map(str, sides))}")
    volume = sides[0] * sides[1] * sides[2]
    if not 1 <= k <= volume:
        raise ValueError(f"k must be between 1 and {volume} for a {' x '.join(map(str, sides))} box, got {k}")
    found = _cuboid_optimum(sides, int(k), int(nodes))
    if found is None:
        return None
    w, cells = found
    return w, cells.copy()


__all__ = ["MAX_DIAGRAMS", "SEARCH_NODES", "cuboid_optimum"]
