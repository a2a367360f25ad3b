"""Lower bounds for the QAP."""

from __future__ import annotations

import itertools

import numpy as np

from ._core import validate_matrices

#: Up to this many tasks the linear assignment of the bound is solved by
#: enumerating its permutations, which costs less than importing
#: scipy.optimize (the strong mode then imports it nowhere).
SMALL = 8


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
        assignment with :func:`scipy.optimize.linear_sum_assignment`, by
        enumeration up to ``SMALL`` tasks).

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
    return _assignment(L)


def _assignment(L: np.ndarray) -> float:
    """The least ``sum_i L[i, p(i)]`` over the permutations p."""
    n = len(L)
    if n <= SMALL:
        perms = np.array(list(itertools.permutations(range(n))), dtype=np.intp)
        return float(L[np.arange(n), perms].sum(axis=1).min())
    from scipy.optimize import linear_sum_assignment  # a slow import: only on larger instances

    rows, cols = linear_sum_assignment(L)
    return float(L[rows, cols].sum())
