"""The quadratic assignment objective and its input checks."""

from __future__ import annotations

import numpy as np


def validate_square(m, name: str) -> np.ndarray:
    """``m`` as a non-empty square float array of finite entries."""
    try:
        a = np.asarray(m, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`{name}` must be a numeric square matrix: {exc}") from None
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"`{name}` must be a square matrix, got shape {a.shape}")
    if a.shape[0] == 0:
        raise ValueError(f"`{name}` is empty")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"`{name}` contains NaN or infinite entries")
    return a


def validate_matrices(W, C) -> tuple[np.ndarray, np.ndarray]:
    """Return W (flows between tasks) and C (costs between nodes) as float
    arrays of the same square shape."""
    mats = [validate_square(W, "W"), validate_square(C, "C")]
    if mats[0].shape != mats[1].shape:
        raise ValueError(f"`W` and `C` must have the same size, got {mats[0].shape[0]} and {mats[1].shape[0]}")
    return mats[0], mats[1]


def validate_permutation(perm, n: int) -> np.ndarray:
    """``perm`` as an int array holding each of 0..n-1 once."""
    p = np.asarray(perm)
    if p.ndim != 1 or len(p) != n or not np.issubdtype(p.dtype, np.integer):
        raise ValueError(f"`perm` must be an integer array of length {n}")
    if not np.array_equal(np.sort(p), np.arange(n)):
        raise ValueError(f"`perm` must hold each of 0..{n - 1} exactly once")
    return p.astype(np.intp)


def objective(W, C, perm) -> float:
    """QAP cost ``sum_ij W[i, j] * C[perm[i], perm[j]]``: task i on node perm[i].

    Examples
    --------
    >>> from optalloc.qap import objective
    >>> objective([[0, 3], [3, 0]], [[0, 1], [1, 0]], [1, 0])
    6.0
    """
    W, C = validate_matrices(W, C)
    p = validate_permutation(perm, len(W))
    return float((W * C[np.ix_(p, p)]).sum())
