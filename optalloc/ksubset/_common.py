"""Input validation, the objective W and result assembly for the k-subset problem."""

from __future__ import annotations

import math
import operator
import time

import numpy as np

from .._result import SubsetResult, status_of
from .._validate import validate_positive  # noqa: F401 (re-exported to the k-subset modules)

# Relative tolerance used to compare objective values computed along
# different summation orders.
_RTOL = 1e-9


def validate_points(points, *, name="points", min_dim=1) -> np.ndarray:
    """Return ``points`` as a C-contiguous float64 array of shape (n, d).

    A 1-D array is read as n points on a line.
    """
    try:
        arr = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`{name}` must be a numeric array of shape (n, d): {exc}") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"`{name}` must have shape (n, d), got an array with {arr.ndim} dimensions")
    if arr.shape[0] == 0:
        raise ValueError(f"`{name}` is empty")
    if arr.shape[1] < min_dim:
        raise ValueError(f"`{name}` must have at least {min_dim} coordinate(s) per point, got {arr.shape[1]}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` contains NaN or infinite coordinates")
    return np.ascontiguousarray(arr)


def as_int(value, name: str) -> int:
    """``value`` as an int (integers only, no silent rounding of floats)."""
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"`{name}` must be an integer, got {value!r}") from None


def validate_k(k, n: int) -> int:
    """Return ``k`` as an int in [1, n]."""
    k = as_int(k, "k")
    if not 1 <= k <= n:
        raise ValueError(f"`k` must be between 1 and the number of points ({n}), got {k}")
    return k


def rows_by_point(points: np.ndarray) -> dict[tuple, list[int]]:
    """Each distinct point (as a tuple) -> its rows in ``points``, in order.

    Callers pop from the lists to give repeated points successive rows.
    """
    rows: dict[tuple, list[int]] = {}
    for i, p in enumerate(map(tuple, points)):
        rows.setdefault(p, []).append(i)
    return rows


def is_integral(points: np.ndarray) -> bool:
    """True when every coordinate is an integer (then W is an integer)."""
    return bool(np.all(points == np.round(points)))


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


def _weights_sorted(sorted_sets: np.ndarray) -> np.ndarray:
    k = sorted_sets.shape[1]
    coef = 2.0 * np.arange(k) - (k - 1)
    return np.einsum("mkd,k->m", sorted_sets, coef)


def l1_to_all(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """L1 distances, shape (len(centres), len(points))."""
    out = np.abs(centres[:, None, 0] - points[None, :, 0])
    for a in range(1, points.shape[1]):
        out += np.abs(centres[:, None, a] - points[None, :, a])
    return out


def linf_to_all(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """L-infinity distances, shape (len(centres), len(points))."""
    out = np.abs(centres[:, None, 0] - points[None, :, 0])
    for a in range(1, points.shape[1]):
        np.maximum(out, np.abs(centres[:, None, a] - points[None, :, a]), out=out)
    return out


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


def is_proven_optimal(objective: float, bound: float | None, integral: bool) -> bool:
    if bound is None:
        return False
    tol = _RTOL * max(1.0, abs(objective))
    if integral:
        # W is an integer: a bound above W - 1 proves optimality.
        return bound > objective - 1 + tol or bound >= objective - tol
    return bound >= objective - tol


def make_result(
    points: np.ndarray,
    indices,
    *,
    method: str,
    start: float,
    guarantee: float | None = None,
    bound: float | None = None,
    status: str | None = None,
    termination: str | None = None,
    message: str = "",
    extra: dict | None = None,
    exact: bool = False,
) -> SubsetResult:
    """Assemble a :class:`~optalloc.SubsetResult` for a chosen subset of ``points``.

    ``termination`` says why the method stopped (default: ``"optimal"`` when
    the bound meets the objective, else ``"completed"``); ``status`` is the
    older single word (``"optimal"``, ``"feasible"``, ``"time_limit"``,
    ``"infeasible"``, ``"error"``) and is read as the termination it names.
    With ``exact=True`` (an exact method) the guarantee is 1 when the
    outcome is proven optimal and None otherwise.
    """
    idx = np.sort(np.asarray(indices, dtype=np.intp))
    chosen = points[idx]
    objective = float(_weights_sorted(np.sort(chosen, axis=0)[None])[0]) if len(idx) else 0.0
    k = len(idx)
    pairs = k * (k - 1) / 2
    average = objective / pairs if pairs else 0.0
    integral = is_integral(points)
    if bound is not None:
        bound = float(bound)
        if integral:
            bound = float(math.ceil(bound - _RTOL * max(1.0, abs(bound))))
        if bound > objective + _RTOL * max(1.0, abs(objective)):
            raise RuntimeError(f"internal error: lower bound {bound} exceeds objective {objective}")
        bound = min(bound, objective)
    if termination is None:
        termination = _LEGACY.get(status) if status is not None else None
    if termination is None:
        termination = "optimal" if is_proven_optimal(objective, bound, integral) else "completed"
    if termination == "optimal":
        bound = objective
    if exact:
        guarantee = 1.0 if termination == "optimal" else None
    return SubsetResult(
        indices=idx,
        points=chosen,
        objective=objective,
        average=average,
        bound=bound,
        guarantee=guarantee,
        status=status_of(termination),
        termination=termination,
        method=method,
        message=message,
        runtime=time.perf_counter() - start,
        extra=dict(extra or {}),
    )


#: The single-word outcomes of older code, as terminations.
_LEGACY = {"optimal": "optimal", "feasible": "completed", "time_limit": "time_limit",
           "infeasible": "infeasible", "error": "error"}
