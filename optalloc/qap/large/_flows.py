"""Communication matrices, dense or scipy.sparse, checked and read as messages."""

from __future__ import annotations

import numpy as np

from .._core import validate_square

__all__ = ["check_flows", "is_sparse", "message_list", "symmetric_graph"]


def is_sparse(W) -> bool:
    """True for a scipy.sparse matrix or array (recognised without importing scipy)."""
    return type(W).__module__.startswith("scipy.sparse") and hasattr(W, "tocsr")


def check_flows(W, name: str = "W"):
    """``W`` checked: a square float matrix of finite, non-negative flows.

    A scipy.sparse input comes back as a new CSR matrix (duplicates summed,
    explicit zeros dropped), anything else as a dense float array.
    """
    if not is_sparse(W):
        a = validate_square(W, name)
        if np.any(a < 0):
            i, j = np.argwhere(a < 0)[0]
            raise ValueError(f"`{name}` flows must be non-negative, got {a[i, j]} at ({i}, {j})")
        return a
    try:
        a = W.tocsr().astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`{name}` must be a numeric square matrix: {exc}") from None
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"`{name}` must be a square matrix, got shape {a.shape}")
    if a.shape[0] == 0:
        raise ValueError(f"`{name}` is empty")
    a = a.copy()
    a.sum_duplicates()
    if not np.all(np.isfinite(a.data)):
        raise ValueError(f"`{name}` contains NaN or infinite entries")
    if np.any(a.data < 0):
        k = int(np.argmax(a.data < 0))
        i = int(np.searchsorted(a.indptr, k, side="right") - 1)
        raise ValueError(f"`{name}` flows must be non-negative, got {a.data[k]} at ({i}, {a.indices[k]})")
    a.eliminate_zeros()
    return a


def message_list(W) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ordered pairs (i, j), i != j, with ``W[i, j] > 0``, and their bytes.

    ``W`` as :func:`check_flows` returns it; O(messages) for CSR.
    """
    if is_sparse(W):
        coo = W.tocoo()
        keep = (coo.row != coo.col) & (coo.data > 0)
        return coo.row[keep].astype(np.intp), coo.col[keep].astype(np.intp), coo.data[keep]
    off = W > 0
    np.fill_diagonal(off, False)
    i, j = np.nonzero(off)
    return i, j, W[i, j]


def symmetric_graph(W, n: int | None = None):
    """The undirected communication graph ``A = W + W^T`` as CSR, zero diagonal.

    ``A[i, j]`` is the traffic between tasks i and j in both directions,
    so ``sum_ij W[i, j] c(i, j) = sum_{i<j} A[i, j] c(i, j)`` for any
    symmetric cost c.  ``n`` pads the graph with tasks that send nothing.
    """
    from scipy import sparse

    i, j, w = message_list(W)
    size = len(W) if not is_sparse(W) else W.shape[0]
    size = size if n is None else n
    A = sparse.coo_matrix((np.concatenate((w, w)), (np.concatenate((i, j)), np.concatenate((j, i)))),
                          shape=(size, size)).tocsr()
    A.sum_duplicates()
    A.sort_indices()
    return A
