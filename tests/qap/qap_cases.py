"""Random QAP instances shared by the QAP test modules."""

import numpy as np


def random_instance(n, seed, *, symmetric=False, diagonal=True, integral=True):
    """Flow and distance matrices with entries in [0, 10): whole numbers, or
    reals with ``integral=False``; ``symmetric`` adds each to its
    transpose, ``diagonal=False`` zeroes the diagonals."""
    rng = np.random.default_rng(seed)
    A = rng.integers(0, 10, (n, n)).astype(float) if integral else rng.random((n, n)) * 10
    B = rng.integers(0, 10, (n, n)).astype(float) if integral else rng.random((n, n)) * 10
    if symmetric:
        A, B = A + A.T, B + B.T
    if not diagonal:
        np.fill_diagonal(A, 0)
        np.fill_diagonal(B, 0)
    return A, B
