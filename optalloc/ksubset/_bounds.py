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
"""

from __future__ import annotations

import numpy as np

from ._common import distance_dtype, l1_to_all, validate_k, validate_points
from ._line import _window_weights


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
    return 0.5 * float(np.partition(f, k - 1)[:k].sum())


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
        total += float(_window_weights(np.sort(points[:, a]), k).min())
    return total


def lower_bound(points, k) -> dict[str, float]:
    """All cheap bounds of this module, by name."""
    points = validate_points(points)
    k = validate_k(k, len(points))
    return {"neighbour": neighbour_bound(points, k), "axis": axis_bound(points, k)}


__all__ = ["neighbour_sums", "neighbour_bound", "axis_bound", "lower_bound"]
