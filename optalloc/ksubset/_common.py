"""Input validation, the objective W and result assembly for the k-subset problem."""

from __future__ import annotations

import numpy as np

# Re-exported to the k-subset modules: the input checks live in the core
# module optalloc._validate, the result of a chosen subset in optalloc._subset.
from .._subset import is_integral, is_proven_optimal, subset_result, weights_sorted  # noqa: F401
from .._validate import as_int, validate_k, validate_points, validate_positive  # noqa: F401

#: :func:`optalloc._subset.subset_result` under the name the k-subset modules use.
make_result = subset_result
_weights_sorted = weights_sorted


def rows_by_point(points: np.ndarray) -> dict[tuple, list[int]]:
    """Each distinct point (as a tuple) -> its rows in ``points``, in order.

    Callers pop from the lists to give repeated points successive rows.
    """
    rows: dict[tuple, list[int]] = {}
    for i, p in enumerate(map(tuple, points)):
        rows.setdefault(p, []).append(i)
    return rows


def rows_of_cells(coords, cells) -> np.ndarray:
    """The rows of ``coords`` (distinct integer 2D coordinates) at ``cells``
    (pairs of the same coordinates), sorted."""
    code = {(int(a), int(b)): t for t, (a, b) in enumerate(np.asarray(coords).tolist())}
    return np.sort(np.array([code[(int(a), int(b))] for a, b in cells], dtype=np.int64))


def distinct_lattice(points: np.ndarray) -> bool:
    """Integer coordinates, no point repeated: the sets the town, box and
    profile values bound."""
    return is_integral(points) and len(np.unique(points, axis=0)) == len(points)


def weight(points) -> float:
    """Sum of pairwise L1 distances over unordered pairs, W(S).

    Each axis is sorted once; the i-th smallest of k values appears with
    sign + in i pairs and with sign - in k - 1 - i pairs, so
    ``W = sum_axes sum_i c_(i) * (2 i - k + 1)``.

    Parameters
    ----------
    points : array_like, shape (k, d) or (k,)
        The points.

    Returns
    -------
    float
        W in O(d k log k) time.

    Examples
    --------
    >>> from optalloc.ksubset import weight
    >>> weight([[0, 0], [1, 0], [0, 1]])
    4.0
    """
    pts = validate_points(points)
    return float(_weights_sorted(np.sort(pts, axis=0)[None, :, :])[0])


def weights_of_sets(points: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """W of many k-subsets at once: ``sets`` has shape (m, k) of row indices."""
    sub = points[sets]  # (m, k, d)
    sub.sort(axis=1)
    return _weights_sorted(sub)


def l1_to_all(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """L1 distances, shape (len(centres), len(points))."""
    out = np.abs(centres[:, None, 0] - points[None, :, 0])
    for a in range(1, points.shape[1]):
        out += np.abs(centres[:, None, a] - points[None, :, a])
    return out


def triangle_keys(tri: np.ndarray, n: int) -> np.ndarray:
    """One integer per triangle row (i, j, l) of n points, the same for
    (i, l, j): the row y_ij + y_il - y_jl <= x_i does not tell its legs
    apart."""
    lo, hi = np.minimum(tri[:, 1], tri[:, 2]), np.maximum(tri[:, 1], tri[:, 2])
    return (tri[:, 0] * n + lo) * n + hi


def half_least(values: np.ndarray, k: int) -> float:
    """Half the sum of the k least of ``values`` (the neighbour bound from
    every point's star or score).  Integers of a narrow range (a grid's
    stars and scores) are counted by value, others sorted; not by
    ``np.partition``, which is 20 times slower than sorting on a few
    distinct integers.

    >>> half_least(np.array([3, 1, 2, 1]), 3)
    2.0
    """
    values = np.asarray(values).ravel()
    k = min(int(k), values.size)
    if k <= 0:
        return 0.0
    if values.dtype.kind in "iu":
        lo = int(values.min())
        span = int(values.max()) - lo
        if span <= 4 * values.size:
            counts = np.bincount((values - lo).astype(np.int64), minlength=span + 1)
            upto = np.cumsum(counts)
            t = int(np.searchsorted(upto, k))  # the k-th least is lo + t
            below = int(upto[t - 1]) if t else 0
            total = int(np.dot(np.arange(t, dtype=np.int64), counts[:t])) + (k - below) * t + k * lo
            return 0.5 * float(total)
    return 0.5 * float(np.sort(values)[:k].sum())


def k_nearest(dist_rows: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k smallest entries of each row, ties to the lower index.

    The set in each row is exact; the order inside a row is unspecified.
    Integer distances take a fast path through one ``argpartition`` on the
    unique key ``distance * n + index``.
    """
    m, n = dist_rows.shape
    if k == n:
        return np.broadcast_to(np.arange(n), (m, n)).copy()
    if np.issubdtype(dist_rows.dtype, np.integer):
        top = int(dist_rows.max(initial=0)) + 1
        dtype = np.int32 if top * n < 2**31 else np.int64
        key = dist_rows.astype(dtype) * dtype(n) + np.arange(n, dtype=dtype)
        return np.argpartition(key, k - 1, axis=1)[:, :k]
    return np.argsort(dist_rows, axis=1, kind="stable")[:, :k]


def distance_dtype(points: np.ndarray):
    """The array to compute distances with: int32 for integer points, else float."""
    if is_integral(points) and np.abs(points).max(initial=0) < 2**28 // max(1, points.shape[1]):
        return points.astype(np.int32)
    return points
