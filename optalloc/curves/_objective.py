"""The ordering objective of SAND2003-3702 sec. 4.2 and locality measures.

An ordering puts the N nodes of a network at ranks 0 .. N-1; ``order[i]``
is the node at rank i.  With D the node distance matrix, the objective is

.. math::

    F = \\sum_{0 \\le i < j < N} w(r(i, j)) \\, D[v_i, v_j]

where r is the rank distance, linear ``j - i`` or ring
``min(j - i, N - (j - i))``, and w a weight that decreases quickly with the
rank distance, by default ``w(d) = 2**-(d - 1)``, so that nodes close in
the order must be close in the network.  The integer program of the same
section minimises F over all orderings (:func:`optalloc.curves.order_ip`);
here F is evaluated for a given ordering, so that curves can be compared on
one topology.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from .._validate import rank_weight_table, validate_distances

__all__ = [
    "Locality",
    "curve_objective",
    "default_weight",
    "locality",
    "mesh_distances",
    "order_objective",
    "rank_weights",
]


def default_weight(d):
    """The default weight ``w(d) = 2**-(d - 1)`` of rank distance d."""
    return 2.0 ** (1.0 - np.asarray(d, dtype=np.float64))


def _validate_order(order, n: int) -> np.ndarray:
    arr = np.asarray(order)
    if arr.ndim != 1 or len(arr) != n:
        raise ValueError(f"`order` must be a permutation of 0..{n - 1} (length {n}), got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise ValueError(f"`order` must hold integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if not np.array_equal(np.sort(arr), np.arange(n)):
        raise ValueError(f"`order` must be a permutation of 0..{n - 1}")
    return arr


def rank_weights(n: int, weights=None, *, ring: bool = False) -> np.ndarray:
    """Weight of each linear rank difference k = 0 .. n-1 under `weights` and `ring`.

    Parameters
    ----------
    n : int
        Number of nodes.
    weights : callable, array_like or None
        ``w(d)`` for a rank distance d >= 1: a callable, or an array indexed
        by d (entry 0 is ignored; the array needs an entry for every rank
        distance that occurs: n - 1 linear, n // 2 ring).  None gives
        ``2**-(d - 1)``.
    ring : bool
        Rank distance ``min(k, n - k)`` instead of k.

    Returns
    -------
    numpy.ndarray
        Float array ``c`` of length n with ``c[0] = 0`` and ``c[k] = w(r(k))``:
        the weight of a pair of positions k apart.

    Raises
    ------
    ValueError
        If `n` is not positive, or `weights` is too short or not finite.

    Examples
    --------
    >>> from optalloc.curves import rank_weights
    >>> rank_weights(4).tolist()
    [0.0, 1.0, 0.5, 0.25]
    >>> rank_weights(4, ring=True).tolist()
    [0.0, 1.0, 0.5, 1.0]
    """
    return rank_weight_table(n, weights, ring=ring)


def _diagonal_sums(D: np.ndarray, order: np.ndarray, ks) -> np.ndarray:
    """``sum_i D[order[i], order[i + k]]`` for each k in ks."""
    return np.array([D[order[:-k], order[k:]].sum() if k else 0.0 for k in ks])


def order_objective(D, order, *, weights=None, ring=False) -> float:
    """Ordering objective of SAND2003-3702 sec. 4.2 for one ordering.

    Parameters
    ----------
    D : array_like, shape (N, N)
        Distances between nodes (for example hop counts).
    order : array_like of int, shape (N,)
        A permutation of 0..N-1: ``order[i]`` is the node at rank i.
    weights : callable, array_like or None
        ``w(d)`` for rank distance d >= 1, as a callable or an array indexed
        by d (see :func:`rank_weights`); default ``2**-(d - 1)``.
    ring : bool
        Rank distance ``min(j - i, N - (j - i))`` (the ranks form a ring)
        instead of ``j - i``.

    Returns
    -------
    float
        ``sum over i < j of w(r(i, j)) * D[order[i], order[j]]``.

    Raises
    ------
    ValueError
        If `D` is not a finite square matrix, `order` not a permutation of
        its rows, or `weights` invalid.

    Notes
    -----
    Summed over the N - 1 diagonals of the reordered matrix, each in one
    vectorised step: O(N^2) time and no memory beyond `D`.  Diagonals of
    zero weight are skipped.

    References
    ----------
    .. [1] V. Leung et al., "Algorithmic support for commodity-based parallel
       computing systems", SAND2003-3702, sec. 4.2.

    Examples
    --------
    A path 0 - 1 - 2 - 3 in its own order and in a worse one:

    >>> import numpy as np
    >>> from optalloc.curves import order_objective
    >>> D = np.abs(np.subtract.outer(np.arange(4), np.arange(4)))
    >>> order_objective(D, [0, 1, 2, 3])
    5.75
    >>> order_objective(D, [1, 0, 3, 2])
    7.25
    """
    D = validate_distances(D)
    n = len(D)
    order = _validate_order(order, n)
    c = rank_weights(n, weights, ring=ring)
    ks = np.flatnonzero(c)
    # SAND2003 sec. 4.2: sum over rank distances k of w(k) times the
    # distances of the pairs k ranks apart
    return float(np.dot(c[ks], _diagonal_sums(D, order, ks)))


def _validate_points(points) -> np.ndarray:
    pts = np.asarray(points)
    if pts.ndim == 1:
        pts = pts[:, None]
    if pts.ndim != 2 or len(pts) == 0:
        raise ValueError(f"`points` must be a non-empty (N, d) array, got shape {pts.shape}")
    if pts.dtype.kind not in "iuf" or not np.all(np.isfinite(pts)):
        raise ValueError("`points` must hold finite numbers")
    return pts


def mesh_distances(points, *, torus=None) -> np.ndarray:
    """L1 (hop) distances between mesh or torus nodes given by coordinates.

    Parameters
    ----------
    points : array_like, shape (N, d)
        Node coordinates, one row per node.
    torus : tuple or None
        The sides ``(n_1, ..., n_d)`` of a torus: along axis a the distance
        is ``min(|x - y|, n_a - |x - y|)``.  An entry None (or 0) leaves
        that axis without wrap-around, for meshes wrapped in some
        dimensions only.  None: a mesh, no wrap-around.

    Returns
    -------
    numpy.ndarray
        Float (N, N) matrix of distances.

    Raises
    ------
    ValueError
        If `points` is not a finite (N, d) array or `torus` does not have d
        positive sides.

    Notes
    -----
    O(N^2 d) time, one axis at a time, so memory stays O(N^2).

    Examples
    --------
    >>> from optalloc.curves import mesh_distances
    >>> mesh_distances([[0, 0], [3, 1]]).tolist()
    [[0.0, 4.0], [4.0, 0.0]]
    >>> mesh_distances([[0, 0], [3, 1]], torus=(4, 4)).tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """
    pts = _validate_points(points)
    sides = _torus_sides(torus, pts.shape[1])
    out = np.zeros((len(pts), len(pts)))
    for a in range(pts.shape[1]):
        col = pts[:, a].astype(np.float64)
        diff = np.abs(col[:, None] - col[None, :])
        if sides[a] is not None:
            diff = np.minimum(diff, sides[a] - diff)
        out += diff
    return out


def _torus_sides(torus, d: int) -> list:
    """The wrap side of each axis (None: no wrap), ``torus`` checked."""
    sides = [None] * d
    if torus is not None:
        sides = list(torus)
        if len(sides) != d:
            raise ValueError(f"`torus` must have one side per coordinate ({d}), got {len(sides)}")
        for a, s in enumerate(sides):
            if s is None or s == 0:
                sides[a] = None
                continue
            if not np.isfinite(s) or s <= 0:
                raise ValueError(f"`torus` sides must be positive (or None for no wrap), got {torus!r}")
    return sides


def curve_objective(coords, *, weights=None, ring=False, torus=None) -> float:
    """Ordering objective of a curve given as coordinates in visiting order.

    Parameters
    ----------
    coords : array_like, shape (N, d)
        Node coordinates in visiting order, as returned by
        :func:`optalloc.curves.gilbert` and the other box orderings.
    weights, ring
        As for :func:`order_objective`.
    torus : tuple or None
        As for :func:`mesh_distances`: distances on a torus.

    Returns
    -------
    float
        :func:`order_objective` of the identity order on the L1 distances
        of `coords`.

    Raises
    ------
    ValueError
        As :func:`mesh_distances` and :func:`order_objective`.

    Notes
    -----
    Up to 4096 points through the distance matrix; above, without one:
    over the rank distances whose weight float arithmetic can see, each
    pair's distance from its coordinates (as ``order_graph`` does on a
    large machine), so a 32 x 32 x 32 curve takes well under a second.

    Examples
    --------
    >>> from optalloc.curves import curve_objective, gilbert, hilbert, snake
    >>> round(curve_objective(hilbert((8, 8))), 1), round(curve_objective(snake((8, 8))), 1)
    (201.4, 225.4)
    >>> round(curve_objective(gilbert((32, 32, 32)), torus=(32, 32, 32)), 1)
    103648.7
    """
    pts = _validate_points(coords)
    if len(pts) <= CURVE_DENSE_MAX:
        D = mesh_distances(pts, torus=torus)
        return order_objective(D, np.arange(len(D)), weights=weights, ring=ring)
    from ._scalable import rank_offsets, sparse_objective

    sides = _torus_sides(torus, pts.shape[1])
    pts = pts.astype(np.float64)

    def dist(i, j):
        diff = np.abs(pts[i] - pts[j])
        for a, side in enumerate(sides):
            if side is not None:
                diff[:, a] = np.minimum(diff[:, a], side - diff[:, a])
        return diff.sum(axis=1)

    n = len(pts)
    flows = rank_offsets(n, rank_weights(n, weights, ring=ring), ring)
    return sparse_objective(dist, np.arange(n), flows)


#: Most points :func:`curve_objective` evaluates through a distance matrix.
CURVE_DENSE_MAX = 4096


@dataclass(frozen=True)
class Locality:
    """Locality measures of an ordering (see :func:`locality`).

    Attributes
    ----------
    max_step : float
        Largest distance between nodes at consecutive ranks.
    mean_step : float
        Mean distance between nodes at consecutive ranks.
    stretch : float
        Mean over all rank pairs i < j of ``D[v_i, v_j] / (j - i)``.
    window : int or None
        The window size of `compactness`.
    compactness : float or None
        Mean pairwise distance inside a window of `window` consecutive
        ranks, averaged over all N - window + 1 windows; None without a
        window.
    """

    max_step: float
    mean_step: float
    stretch: float
    window: int | None = None
    compactness: float | None = None


def locality(D, order, *, window=None) -> Locality:
    """Locality measures of an ordering of the nodes of a network.

    Parameters
    ----------
    D : array_like, shape (N, N)
        Distances between nodes (hop counts, for example).
    order : array_like of int, shape (N,)
        A permutation of 0..N-1: ``order[i]`` is the node at rank i.
    window : int or None
        Window size for `compactness`, between 2 and N; None skips it.

    Returns
    -------
    Locality
        ``max_step`` and ``mean_step`` (distances between consecutive
        nodes), ``stretch`` and, with a window, ``compactness``.

    Raises
    ------
    ValueError
        For an invalid `D` or `order`, or a window outside 2..N.

    Notes
    -----
    The stretch is the average over all pairs of ranks of the network
    distance per unit of rank distance, ``D[v_i, v_j] / (j - i)``; it is 1
    for a path graph in path order and grows when nodes close in the order
    are far apart in the network.  The compactness of a window is the
    average hop count between two processors allocated to a job that
    receives `window` consecutive ranks (SAND2003-3702 sec. 4.3), so its
    mean over all windows predicts the average pairwise distance of
    contiguous 1D allocations.  Each pair k ranks apart lies in a known
    number of windows, so the mean is summed over rank differences below
    the window: O(N window) time; the stretch takes O(N^2).

    Examples
    --------
    >>> import numpy as np
    >>> from optalloc.curves import locality, mesh_distances, snake
    >>> D = mesh_distances(snake((4, 4)))
    >>> loc = locality(D, np.arange(16), window=4)
    >>> loc.max_step, loc.mean_step, loc.compactness
    (1.0, 1.0, 1.5897435897435896)
    """
    D = validate_distances(D)
    n = len(D)
    order = _validate_order(order, n)
    if window is not None:
        window = operator.index(window)
        if not 2 <= window <= n:
            raise ValueError(f"`window` must be between 2 and the number of nodes ({n}), got {window}")
    if n == 1:
        return Locality(0.0, 0.0, 0.0, window, None)
    steps = D[order[:-1], order[1:]]
    ks = np.arange(1, n)
    sums = _diagonal_sums(D, order, ks)
    npairs = n * (n - 1) / 2
    stretch = float(np.sum(sums / ks) / npairs)
    compact = None
    if window is not None:
        total = 0.0
        nwin = n - window + 1
        for k in range(1, window):
            i = np.arange(n - k)
            j = i + k
            # windows s with j - window + 1 <= s <= i, and 0 <= s <= n - window
            count = np.minimum(i, n - window) - np.maximum(0, j - window + 1) + 1
            total += float(np.dot(np.maximum(count, 0), D[order[i], order[j]]))
        compact = total / (nwin * window * (window - 1) / 2)
    return Locality(float(steps.max()), float(steps.mean()), stretch, window, compact)
