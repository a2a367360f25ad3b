"""Lower bounds for the QAP."""

from __future__ import annotations

import numpy as np

from ._core import validate_matrices


def gilmore_lawler(W, C) -> float:
    """Gilmore-Lawler lower bound on ``min_p sum_ij W[i,j] C[p(i),p(j)]``.

    With task i on node k, the terms of row i cost at least
    ``l[i, k] = W[i,i] C[k,k] + <w_i, c_k>_-``, the minimal scalar product
    of the off-diagonal entries of row i of W and row k of C (one sorted
    ascending, the other descending: the rearrangement inequality).  Every
    permutation pays at least the optimal assignment on ``l``.

    Parameters
    ----------
    W, C : array_like, shape (n, n)
        Flows and costs.

    Returns
    -------
    float
        The bound; O(n^3) (sorting, one matrix product, one linear
        assignment with :func:`scipy.optimize.linear_sum_assignment`).

    References
    ----------
    P. C. Gilmore, "Optimal and suboptimal algorithms for the quadratic
    assignment problem", J. SIAM 10 (1962); E. L. Lawler, "The quadratic
    assignment problem", Management Science 9 (1963).

    Examples
    --------
    >>> from optalloc.qap import gilmore_lawler
    >>> gilmore_lawler([[0, 5, 0], [5, 0, 1], [0, 1, 0]], [[0, 1, 2], [1, 0, 1], [2, 1, 0]])
    12.0
    """
    A, B = validate_matrices(W, C)
    return float(_gl(A, B))


def _gl(A: np.ndarray, B: np.ndarray) -> float:
    n = len(A)
    if n == 1:
        return float(A[0, 0] * B[0, 0])
    off = ~np.eye(n, dtype=bool)
    a = np.sort(A[off].reshape(n, n - 1), axis=1)            # ascending
    b = np.sort(B[off].reshape(n, n - 1), axis=1)[:, ::-1]   # descending
    L = a @ b.T + np.outer(np.diagonal(A), np.diagonal(B))
    from scipy.optimize import linear_sum_assignment  # a slow import: only when a bound is asked for

    rows, cols = linear_sum_assignment(L)
    return float(L[rows, cols].sum())
