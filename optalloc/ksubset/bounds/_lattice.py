"""Cheap proven lower bounds on the k-subset optimum.

``neighbour_bound``
    For a k-set S, ``2 W(S) = sum_{s in S} sum_{t in S} d(s, t)``, and the
    inner sum is at least f(s), the sum of the k smallest distances from s
    to the input (s itself included, at distance 0).  Hence
    ``W(OPT) >= 1/2 * (sum of the k smallest values of f)``.  This dominates
    the median-star bound ``k/2 * min_c f(c)`` of SAND2003 sec. 5.2.1
    (Lemma 4), since every f(s) is at least ``min_c f(c)``.
``axis_bound``
    W is separable: ``W(S) = sum_a W_a(S)`` with ``W_a`` the pairwise
    distance along axis a.  So ``W(OPT) >= sum_a min_S W_a(S)``, and each
    term is a one-dimensional instance solved exactly by the sliding window
    of SAND2003 sec. 5.1.1.
``town_bound``
    The least W of k distinct points of the integer lattice Z^2 ("optimal
    town", OEIS A193452, k <= 49; Demaine et al., arXiv:1009.5628, Table 1)
    or Z^3 (OEIS A290190, k <= 13) bounds W of any k distinct integer
    points of the plane (or space) from below, whatever the free set.  It
    is the bound that matters on empty or nearly empty meshes, where the
    LP relaxation has many symmetric optima.
``box_bound``
    The least W of k cells of the full rectangle spanned by the points
    (2D lattice points), computed exactly by :func:`box_optimum`, or of
    the full box (3D, :func:`cuboid_optimum`): every k-subset of the
    points is a k-subset of that box.  It is the optimum on an empty
    machine, and dominates the town bound whenever the box is too narrow
    for the town.
``profile`` (in ``lower_bound``)
    The same argument over the column counts that fit the free set's
    columns (:func:`profile_bound`, 2D only), at least the box bound.
"""

from __future__ import annotations

import numpy as np

from .._common import (
    distance_dtype,
    distinct_lattice,
    half_least,
    l1_to_all,
    validate_k,
    validate_points,
)
from ..search import box_bracket, box_optimum, cuboid_optimum, profile_bound
from ..special import window_weights


def neighbour_sums(points: np.ndarray, k: int, *, chunk: int = 1 << 22) -> np.ndarray:
    """f(p): sum of the k smallest L1 distances from each point (itself included)."""
    n = len(points)
    pts = distance_dtype(points)
    out = np.empty(n)
    rows = max(1, chunk // n)
    for lo in range(0, n, rows):
        d = l1_to_all(pts, pts[lo : lo + rows])
        part = np.partition(d, k - 1, axis=1)[:, :k] if k < n else d
        out[lo : lo + rows] = part.sum(axis=1)
    return out


def neighbour_bound(points, k, f: np.ndarray | None = None) -> float:
    """``1/2 * (sum of the k smallest f(p))``; see the module docstring.

    Examples
    --------
    >>> from optalloc.ksubset import neighbour_bound
    >>> neighbour_bound([[0, 0], [1, 0], [0, 1], [1, 1]], 4)
    8.0
    """
    points = validate_points(points)
    k = validate_k(k, len(points))
    if f is None:
        f = neighbour_sums(points, k)
    return half_least(f, k)


def axis_bound(points, k) -> float:
    """``sum over axes of the exact one-dimensional optimum``.

    Examples
    --------
    >>> from optalloc.ksubset import axis_bound
    >>> axis_bound([[0, 0], [1, 0], [0, 1], [1, 1]], 4)
    8.0
    """
    points = validate_points(points)
    k = validate_k(k, len(points))
    total = 0.0
    for a in range(points.shape[1]):
        total += float(window_weights(np.sort(points[:, a]), k).min())
    return total


#: OEIS A193452: least W of k distinct points of Z^2, k = 1..49.
TOWN_2D = (0, 1, 4, 8, 16, 25, 38, 54, 72, 96, 124, 152, 188, 227, 272, 318, 374, 433, 496, 563, 632, 716,
           804, 895, 992, 1091, 1204, 1318, 1442, 1570, 1704, 1840, 1996, 2153, 2318, 2486, 2656, 2847, 3040,
           3241, 3446, 3662, 3886, 4112, 4360, 4612, 4868, 5128, 5398)
#: OEIS A290190 (with k = 1 prepended): least W of k distinct points of Z^3, k = 1..13.
TOWN_3D = (0, 1, 4, 8, 16, 25, 36, 48, 68, 89, 112, 136, 168)


def town_bound(points, k) -> float:
    """The optimal-town value for k when the points are distinct lattice
    points of Z^2 or Z^3 and the table covers k; 0 otherwise.

    Examples
    --------
    >>> from optalloc.ksubset import town_bound
    >>> town_bound([[x, y] for x in range(5) for y in range(5)], 7)
    38.0
    """
    points = validate_points(points)
    k = validate_k(k, len(points))
    table = {2: TOWN_2D, 3: TOWN_3D}.get(points.shape[1])
    if table is None or k > len(table) or not distinct_lattice(points):
        return 0.0
    return float(table[k - 1])


#: nodes of the box branch-and-bound that the cheap box bound allows (a
#: fraction of a second; exact allows more)
BOUND_NODES = 50_000
#: and of the 3D one (:func:`cuboid_optimum`, whose nodes cost more)
BOUND_NODES_3D = 2_000


def box_start(points: np.ndarray, k: int, nodes: int = BOUND_NODES, nodes_3d: int = BOUND_NODES_3D):
    """``(W, cells)`` of :func:`box_optimum` for the bounding rectangle of
    the points, or of :func:`cuboid_optimum` for their bounding box in 3D
    (cells relative to its corner); None when it does not apply (not
    distinct 2D or 3D lattice points, or neither the partition table nor
    the branch-and-bound settle it within ``nodes`` nodes, ``nodes_3d`` in
    3D)."""
    if points.shape[1] not in (2, 3) or not distinct_lattice(points):
        return None
    sides = (points.max(axis=0) - points.min(axis=0) + 1).astype(int).tolist()
    if len(sides) == 3:
        return cuboid_optimum(*sides, k, nodes=nodes_3d)
    return box_optimum(*sides, k, nodes=nodes)


def known_box_lower(points: np.ndarray, k: int) -> float:
    """The lower end of the bracket this process already proved on the
    optimum of the points' full bounding rectangle (:func:`box_bracket`,
    searched no further; a certification works it out for its idle
    machine), for distinct 2D lattice points; 0 otherwise."""
    if points.shape[1] != 2 or not distinct_lattice(points):
        return 0.0
    sides = (points.max(axis=0) - points.min(axis=0) + 1).astype(int).tolist()
    return box_bracket(*sides, k, nodes=0)[0]


def box_bound(points, k) -> float:
    """The optimum of k cells of the full rectangle spanned by the points,
    for distinct 2D lattice points (of their full box in 3D); 0 otherwise,
    and when the rectangle has more than 50,000 partitions of k to score
    and the compiled branch-and-bound does not finish within 50,000 nodes
    (a fraction of a second; see :func:`box_optimum`), or in 3D when
    :func:`cuboid_optimum` does not within 2,000 (at most about a second).

    Examples
    --------
    >>> from optalloc.ksubset import box_bound, town_bound
    >>> row_pair = [[x, y] for x in range(20) for y in range(2)]
    >>> box_bound(row_pair, 12), town_bound(row_pair, 12)
    (176.0, 152.0)
    """
    points = validate_points(points)
    k = validate_k(k, len(points))
    found = box_start(points, k)
    return 0.0 if found is None else float(found[0])


def heuristic_bound(points: np.ndarray, k: int) -> float:
    """The bound every heuristic reports before its own W / guarantee:
    the larger of the neighbour and town bounds (both O(n^2) or less)."""
    return max(neighbour_bound(points, k), town_bound(points, k))


def lower_bound(points, k) -> dict[str, float]:
    """All cheap bounds of this module, by name."""
    points = validate_points(points)
    k = validate_k(k, len(points))
    profile = profile_bound(points, k)
    return {"neighbour": neighbour_bound(points, k), "axis": axis_bound(points, k), "town": town_bound(points, k),
            "box": box_bound(points, k), "profile": 0.0 if profile is None else profile}


__all__ = ["neighbour_sums", "neighbour_bound", "axis_bound", "town_bound", "box_bound", "lower_bound", "TOWN_2D",
           "TOWN_3D"]
