"""Centre-based heuristics: MM (Manhattan Median), Gen-Alg and MM+Inc."""

from __future__ import annotations

import time

import numpy as np

from ..._common import (
    as_int,
    distance_dtype,
    k_nearest,
    l1_to_all,
    make_result,
    validate_k,
    validate_points,
    validate_positive,
    weights_of_sets,
)
from ...bounds import heuristic_bound
from ._centres import grid_gen_alg, grid_mm, grid_swap, lattice_grid, neighbour_of_stars, town_of_grid

# Entries of one distance block (centres x points); bounds memory at ~64 MB.
_BLOCK = 1 << 23


def mm_guarantee(d: int, k: int) -> float:
    """Worst-case factor of MM: 1 for k <= 3, else min(2 - 1/(2d), 2 - 2/k).

    2 - 1/(2d) (7/4 in the plane) is Bender et al. 2005, Theorems 1 and 3;
    2 - 2/k is SAND2003-3702 Theorem 6.  For k <= 3 MM is exact: W of three
    points is twice their shortest star, whose centre is a grid point, and
    any three points nearest to it are no worse.
    """
    if k <= 3:
        return 1.0
    return min(2.0 - 1.0 / (2 * d), 2.0 - 2.0 / k)


def gen_alg_guarantee(k: int) -> float:
    """Worst-case factor of Gen-Alg, 2 - 2/k (1 for k <= 2)."""
    return max(1.0, 2.0 - 2.0 / k)


def _grid_centres(points: np.ndarray) -> tuple[list[np.ndarray], int]:
    axes = [np.unique(points[:, a]) for a in range(points.shape[1])]
    return axes, int(np.prod([len(u) for u in axes]))


def _centre_block(axes: list[np.ndarray], lo: int, hi: int) -> np.ndarray:
    shape = [len(u) for u in axes]
    idx = np.unravel_index(np.arange(lo, hi), shape)
    return np.stack([axes[a][idx[a]] for a in range(len(axes))], axis=1)


def _best_of_centres(points, k, centre_blocks, keep: int = 0):
    """Evaluate the k nearest points of every centre; keep the lightest set.

    Returns (best set, its W, index of its centre, number of centres, the
    ``keep`` lightest sets as rows, lightest first).  Ties between centres
    go to the first centre in the given order.
    """
    pts = distance_dtype(points)
    best_w, best_set, best_c, seen = np.inf, None, -1, 0
    top_w, top = np.zeros(0), np.zeros((0, k), dtype=np.int64)
    for centres in centre_blocks:
        d = l1_to_all(pts, centres.astype(pts.dtype, copy=False))
        sets = k_nearest(d, k)
        w = weights_of_sets(points, sets)
        i = int(np.argmin(w))
        if w[i] < best_w:
            best_w, best_set, best_c = float(w[i]), sets[i].copy(), seen + i
        if keep:
            top_w, top = np.concatenate([top_w, w]), np.concatenate([top, sets])
            order = np.argsort(top_w, kind="stable")[:keep]
            top_w, top = top_w[order], top[order]
        seen += len(centres)
    return best_set, best_w, best_c, seen, top


def mm(points, k):
    """MM, the Manhattan Median algorithm.

    Every point of the product of the coordinate sets is a candidate median;
    around each, take the k input points nearest in L1 and keep the set of
    least W (Bender et al. 2005, sec. 2; SAND2003 sec. 5.2).  Centres may be
    any point of space; the chosen points are always input points.

    Parameters
    ----------
    points : array_like, shape (n, d)
        Free processors (or any points of R^d).
    k : int
        Number of points to choose, ``1 <= k <= n``.

    Returns
    -------
    Result
        ``guarantee`` is ``min(2 - 1/(2d), 2 - 2/k)``: 7/4 in the plane for
        k >= 8 (1 for k <= 3, where MM is exact); ``bound`` is the largest of the
        neighbour bound, the town bound and ``W / guarantee``; ``extra["centre"]`` is the
        winning median.

    Notes
    -----
    Distinct integer points of 1 to 3 coordinates whose bounding box has
    at most ``max(4096, 16 n)`` cells (the free nodes of a mesh) are taken
    as cells of that box: around each centre its L1 ball is counted by
    runs of prefix sums and its last shells walked cell by cell, and W
    comes from per-axis histograms, in O(k + R^(d-1) + width) per centre
    for a k-th distance R; no distance matrix is built.  Other points go
    through blocks of centres x points: O(n^(d+1)) time.  Both choose the
    same set.  Ties: among points at the same distance from a centre the
    lower input index is taken; among centres of equal W the first in
    lexicographic order of coordinates (the first axis slowest) wins.  The
    result is therefore deterministic.  The neighbour bound comes from the
    stars of the centres at the points, which every centre's shells give.

    References
    ----------
    M. A. Bender et al., "Communication-aware processor allocation for
    supercomputers", WADS 2005, Theorems 1 and 3.

    Examples
    --------
    >>> import numpy as np
    >>> from optalloc.ksubset import mm
    >>> pts = np.array([[0, 0], [0, 1], [1, 0], [5, 5], [5, 6]])
    >>> r = mm(pts, 3)
    >>> r.indices.tolist(), r.objective, r.status
    ([0, 1, 2], 4.0, 'optimal')
    """
    start = time.perf_counter()
    pts = validate_points(points)
    return _mm(pts, validate_k(k, len(pts)), lattice_grid(pts), start)


def _present(coords: np.ndarray, side: int) -> np.ndarray:
    """The distinct values of ``coords`` (integers in 0 .. side - 1), ascending."""
    seen = np.zeros(side, dtype=np.bool_)
    seen[coords] = True
    return np.flatnonzero(seen)


def _mm(pts, k, grid, start):
    """MM's result on validated points (``grid``: their lattice grid or None)."""
    n, d = pts.shape
    g = mm_guarantee(d, k)
    if grid is not None:
        values = [_present(grid.co[:, a], int(grid.L[a])) for a in range(d)]
        best_set, best_w, cell, seen, stars = grid_mm(grid, k, values)
        centre = cell + grid.origin
        bound = max(neighbour_of_stars(stars, k), town_of_grid(d, k), best_w / g)
    else:
        axes, total = _grid_centres(pts)
        step = max(1, _BLOCK // n)
        blocks = (_centre_block(axes, lo, min(total, lo + step)) for lo in range(0, total, step))
        best_set, best_w, best_c, seen, _ = _best_of_centres(pts, k, blocks)
        centre = _centre_block(axes, best_c, best_c + 1)[0]
        bound = max(heuristic_bound(pts, k), best_w / g)
    return make_result(
        pts,
        best_set,
        method="mm",
        start=start,
        guarantee=g,
        bound=bound,
        extra={"centre": centre.astype(float).tolist(), "centres": seen},
    )


def gen_alg(points, k, *, descents: int = 0):
    """Gen-Alg: MM restricted to centres at the input points themselves.

    Around every input point take its k nearest input points (itself
    included) in L1 and keep the set of least W (Krumke et al. 1997).

    Parameters
    ----------
    points : array_like, shape (n, d)
    k : int
    descents : int, default 0
        Also run the swap descent of :func:`mm_inc` from the sets of this
        many centres, the lightest first, and return the lightest set
        found.  W only drops, so the guarantee stands.

    Returns
    -------
    Result
        ``guarantee = 2 - 2/k``; ``bound`` as for :func:`mm`;
        ``extra["centre"]`` is the winning centre (coordinates) and
        ``extra["centre_index"]`` its row in ``points``; with
        ``descents``, ``extra["gen_alg_objective"]`` is the W of
        Gen-Alg's own set.

    Notes
    -----
    On the free nodes of a mesh (see :func:`mm`) each centre costs
    O(k + R^(d-1) + width), no distance matrix; other points O(n^2) in
    dense blocks.  Ties as in :func:`mm` (the lower input index at the
    k-th distance), among centres of equal W the first in input order;
    the ``descents`` centres are the lightest, ties in input order.

    References
    ----------
    S. O. Krumke et al., "Compact location problems", Theor. Comput. Sci.
    181 (1997), the 2 - 2/k factor; SAND2003-3702 sec. 5.2 compares it with
    MM.

    Examples
    --------
    >>> from optalloc.ksubset import gen_alg
    >>> gen_alg([[0, 0], [0, 1], [1, 0], [5, 5], [5, 6]], 2).objective
    1.0
    """
    start = time.perf_counter()
    pts = validate_points(points)
    n = len(pts)
    k = validate_k(k, n)
    descents = as_int(descents, "descents")
    if descents < 0:
        raise ValueError(f"`descents` must be at least 0, got {descents}")
    g = gen_alg_guarantee(k)
    grid = lattice_grid(pts)
    if grid is not None:
        best_set, best_w, best_c, stars, top = grid_gen_alg(grid, k, descents)
        bound = max(neighbour_of_stars(stars, k), town_of_grid(pts.shape[1], k), best_w / g)
    else:
        step = max(1, _BLOCK // n)
        blocks = (pts[lo : lo + step] for lo in range(0, n, step))
        best_set, best_w, best_c, _, top = _best_of_centres(pts, k, blocks, keep=descents)
        bound = max(heuristic_bound(pts, k), best_w / g)
    extra = {"centre": pts[best_c].tolist(), "centre_index": best_c}
    if descents:
        extra["gen_alg_objective"] = best_w
        for rows in top:
            chosen, _ = grid_swap(grid, rows) if grid is not None else swap_descent(pts, rows)
            w = float(weights_of_sets(pts, chosen[None])[0])
            if w < best_w:
                best_w, best_set = w, chosen
    return make_result(pts, best_set, method="gen-alg", start=start, guarantee=g, bound=bound, extra=extra)


def swap_descent(points: np.ndarray, chosen: np.ndarray, *, max_swaps: int | None = None):
    """Best-improvement swaps of one chosen and one unchosen point.

    Keeps s(p) = sum of L1 distances from every point p to the chosen set;
    swapping chosen i for unchosen j changes W by ``s(j) - s(i) - d(i, j)``,
    so a full neighbourhood scan is one k x (n - k) array operation and a
    swap updates s in O(n).  On the free nodes of a mesh (see :func:`mm`)
    s is kept per axis and coordinate, and only the j whose lower bound
    ``s(j) - max s(i) - far(j)`` reaches the best change are scored; the
    same swaps are made: the pair of least change, on ties the lowest
    chosen index, then the lowest unchosen index.

    Returns (chosen indices, number of swaps).
    """
    grid = lattice_grid(np.asarray(points, dtype=float))
    if grid is not None:
        return grid_swap(grid, chosen, max_swaps=max_swaps)
    n = len(points)
    pts = distance_dtype(points)
    inside = np.zeros(n, dtype=bool)
    inside[chosen] = True
    s = l1_to_all(pts, pts[chosen]).sum(axis=0).astype(np.float64)
    swaps = 0
    while max_swaps is None or swaps < max_swaps:
        cin = np.flatnonzero(inside)
        cout = np.flatnonzero(~inside)
        if len(cout) == 0:
            break
        dij = l1_to_all(pts[cout], pts[cin])  # (k, n - k)
        delta = s[cout][None, :] - s[cin][:, None] - dij
        flat = int(np.argmin(delta))
        if delta.flat[flat] >= -1e-9 * max(1.0, float(s.max())):
            break
        i, j = cin[flat // len(cout)], cout[flat % len(cout)]
        inside[i], inside[j] = False, True
        s += l1_to_all(pts, pts[[j]])[0] - l1_to_all(pts, pts[[i]])[0]
        swaps += 1
    return np.flatnonzero(inside), swaps


def mm_inc(points, k, *, max_swaps=None):
    """MM+Inc: MM followed by improving swaps until a local minimum.

    Starting from MM's set, repeatedly exchange the chosen/unchosen pair
    that lowers W the most, until no exchange lowers it (Bender et al. 2005,
    sec. 5).

    Parameters
    ----------
    points : array_like, shape (n, d)
    k : int
    max_swaps : int, optional
        Stop after this many swaps (default: run to a local minimum).

    Returns
    -------
    Result
        Same ``guarantee`` as MM (swaps only lower W); ``extra["swaps"]``.

    Notes
    -----
    MM's cost plus, per swap, O(n) bounds and the pairs of the few
    unchosen points whose bound does not rule them out (on the free nodes
    of a mesh; O(k (n - k)) on other points).  Each swap takes the pair of
    least change of W, on ties the lowest chosen index and then the lowest
    unchosen index, while W drops by more than ``1e-9 * max(1, max s)``.

    Examples
    --------
    >>> from optalloc.ksubset import mm_inc
    >>> pts = [[5, 5], [2, 0], [4, 2], [2, 0], [0, 2], [0, 4], [0, 4], [3, 3]]
    >>> r = mm_inc(pts, 6)
    >>> r.extra["mm_objective"], r.objective, r.extra["swaps"]
    (58.0, 56.0, 1)
    """
    start = time.perf_counter()
    pts = validate_points(points)
    k = validate_k(k, len(pts))
    if max_swaps is not None:
        max_swaps = validate_positive(max_swaps, "max_swaps", integer=True)
    grid = lattice_grid(pts)
    base = _mm(pts, k, grid, start)
    if grid is not None:
        chosen, swaps = grid_swap(grid, base.indices, max_swaps=max_swaps)
    else:
        chosen, swaps = swap_descent(pts, base.indices, max_swaps=max_swaps)
    g = base.guarantee
    w = float(weights_of_sets(pts, chosen[None])[0])
    bound = max(base.bound, w / g)
    return make_result(
        pts,
        chosen,
        method="mm-inc",
        start=start,
        guarantee=g,
        bound=bound,
        extra={"swaps": swaps, "mm_objective": base.objective},
    )


__all__ = ["mm", "gen_alg", "mm_inc", "swap_descent"]
