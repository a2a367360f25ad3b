"""Input checks shared by every package."""

from __future__ import annotations

import math
import operator

import numpy as np

__all__ = [
    "as_int",
    "rank_weight_table",
    "validate_distances",
    "validate_k",
    "validate_points",
    "validate_positive",
]


def validate_positive(value, name: str, *, allow_none=True, integer=False):
    """``value`` as a positive finite number (an int with ``integer=True``), or None when allowed.

    Integers go through ``operator.index``, so a float is never silently rounded.
    """
    if value is None and allow_none:
        return None
    try:
        value = operator.index(value) if integer else float(value)
    except (TypeError, ValueError):
        kind = "an integer" if integer else "a number"
        raise ValueError(f"`{name}` must be {kind}, got {value!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"`{name}` must be positive, got {value!r}")
    return value


def as_int(value, name: str) -> int:
    """``value`` as an int (integers only, no silent rounding of floats).

    >>> as_int(3, "k")
    3
    >>> as_int(3.0, "k")
    Traceback (most recent call last):
    ...
    ValueError: `k` must be an integer, got 3.0
    """
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"`{name}` must be an integer, got {value!r}") from None


def int_at_least(value, low: int, message: str, *, below: str | None = None) -> int:
    """``value`` as an int of at least ``low`` (a bool or a float is refused):
    otherwise a one-line ValueError ``"{message}, got {value!r}"``, with
    ``below`` in place of ``message`` for an integer under ``low``.

    >>> int_at_least(3, 1, "`n` must be a positive integer")
    3
    >>> int_at_least(True, 1, "`n` must be a positive integer")
    Traceback (most recent call last):
    ...
    ValueError: `n` must be a positive integer, got True
    >>> int_at_least(0, 1, "`n` must be a positive integer", below="`n` must be at least 1")
    Traceback (most recent call last):
    ...
    ValueError: `n` must be at least 1, got 0
    """
    try:
        if isinstance(value, bool):
            raise TypeError
        v = operator.index(value)
    except TypeError:
        raise ValueError(f"{message}, got {value!r}") from None
    if v < low:
        raise ValueError(f"{below or message}, got {v!r}")
    return v


def validate_k(k, n: int) -> int:
    """Return ``k`` as an int in [1, n]."""
    k = as_int(k, "k")
    if not 1 <= k <= n:
        raise ValueError(f"`k` must be between 1 and the number of points ({n}), got {k}")
    return k


def validate_points(points, *, name="points", min_dim=1) -> np.ndarray:
    """Return ``points`` as a C-contiguous float64 array of shape (n, d).

    A 1-D array is read as n points on a line.

    >>> validate_points([1, 2]).tolist()
    [[1.0], [2.0]]
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


def validate_distances(D, *, name: str = "D") -> np.ndarray:
    """``D`` as a float64 non-empty square matrix of finite entries.

    >>> validate_distances([[0, 1], [1, 0]]).dtype
    dtype('float64')
    >>> validate_distances([[0, 1]])
    Traceback (most recent call last):
    ...
    ValueError: `D` must be a non-empty square (N, N) matrix, got shape (1, 2)
    """
    D = np.asarray(D, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] != D.shape[1] or D.shape[0] == 0:
        raise ValueError(f"`{name}` must be a non-empty square (N, N) matrix, got shape {D.shape}")
    if not np.all(np.isfinite(D)):
        raise ValueError(f"`{name}` must have finite entries")
    return D


def rank_weight_table(n, weights=None, *, ring: bool = False) -> np.ndarray:
    """The checked ``weights`` of an ordering of ``n`` nodes, per rank difference.

    ``c[k]`` (k = 0 .. n-1) is the weight ``w(r(k))`` of two ranks k apart,
    ``r(k) = k`` or ``min(k, n - k)`` with ``ring``; ``c[0] = 0``.
    ``weights`` is a callable ``w(d)``, an array indexed by the rank
    distance d (entry 0 ignored), or None for ``2**-(d - 1)``.  This is
    :func:`optalloc.curves.rank_weights`, kept here so that the ordering
    model can check its input without importing the curves.

    >>> rank_weight_table(4, ring=True).tolist()
    [0.0, 1.0, 0.5, 1.0]
    """
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"`n` must be positive, got {n}")
    k = np.arange(n)
    r = np.minimum(k, n - k) if ring else k
    maxd = int(r.max()) if n > 1 else 0
    if weights is None:
        table = 2.0 ** (1.0 - np.arange(maxd + 1, dtype=np.float64))
    elif callable(weights):
        table = np.array([0.0] + [float(weights(d)) for d in range(1, maxd + 1)])
    else:
        table = np.asarray(weights, dtype=np.float64)
        if table.ndim != 1 or len(table) < maxd + 1:
            raise ValueError(f"`weights` must be a 1D array with an entry for every rank distance 0..{maxd}, "
                             f"got shape {table.shape}")
    if not np.all(np.isfinite(table[1:maxd + 1])):
        raise ValueError("`weights` must be finite")
    out = table[r].astype(np.float64)
    out[0] = 0.0
    return out


def validate_nodes(nodes, n: int, *, name: str = "nodes", length: int | None = None) -> np.ndarray:
    """``nodes`` as a 1-D int array of distinct ids in 0..n-1; a one-line
    ValueError naming ``name`` otherwise."""
    a = np.asarray(nodes)
    if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
        raise ValueError(f"`{name}` must be a 1-D sequence of integer node ids")
    if length is not None and len(a) != length:
        raise ValueError(f"`{name}` must hold {length} node ids, got {len(a)}")
    if len(a) == 0:
        raise ValueError(f"`{name}` must hold at least one node id")
    if a.min() < 0 or a.max() >= n:
        bad = a[(a < 0) | (a >= n)][0]
        raise ValueError(f"`{name}` ids must be in 0..{n - 1}, got {int(bad)}")
    if len(np.unique(a)) != len(a):
        vals, counts = np.unique(a, return_counts=True)
        raise ValueError(f"`{name}` ids must be distinct, {int(vals[counts > 1][0])} is repeated")
    return a.astype(np.int64)
