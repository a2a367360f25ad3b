"""Swap neighbourhood of the QAP: move values, their update, 2-swap descent.

Notation: ``A`` the flows (tasks x tasks), ``B`` the costs (nodes x nodes),
``p`` the permutation (task i on node p[i]) and ``Bp = B[p][:, p]``, so the
objective is ``sum(A * Bp)``.  Swapping the nodes of tasks r and s changes
the objective by ``delta[r, s]``.

Taillard (1991) gives the change of one swap in O(n) and, after a swap
(u, v) has been made, the change of every swap (r, s) disjoint from {u, v}
in O(1) from its old value; the O(n) formula refreshes the 2n values that
involve u or v.  A full scan of the neighbourhood thus costs O(n^2) per
move instead of O(n^3).  Both are vectorised here.
"""

from __future__ import annotations

import numpy as np

from ._common import Stopwatch, positive_int, qap_result, validate_start
from ._core import validate_matrices


def permuted(B: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``B[p][:, p]``: the cost between the nodes of each pair of tasks."""
    return B[np.ix_(p, p)]


def _t(X: np.ndarray) -> np.ndarray:
    return np.swapaxes(X, -1, -2)


def delta_matrix(A: np.ndarray, Bp: np.ndarray) -> np.ndarray:
    """Change of the objective for every swap (r, s), as an (n, n) matrix.

    O(n^3) through two matrix products; the diagonal is 0.  ``Bp`` may
    carry leading batch axes (one permuted cost matrix per search chain).
    """
    # sum_k (a_kr - a_ks)(b_ks - b_kr) = M[r,s] + M[s,r] - m[r] - m[s], M = A^T Bp
    # sum_k (a_rk - a_sk)(b_sk - b_rk) = N[r,s] + N[s,r] - e[r] - e[s], N = A Bp^T
    M = A.T @ Bp
    N = A @ _t(Bp)
    S = M + _t(M) + N + _t(N)
    m = np.diagonal(M, axis1=-2, axis2=-1) + np.diagonal(N, axis1=-2, axis2=-1)
    S -= m[..., :, None]
    S -= m[..., None, :]
    # the sums above run over all k; the terms k = r and k = s are the 2x2 block
    ad = np.diagonal(A)
    bd = np.diagonal(Bp, axis1=-2, axis2=-1)
    ar, br = ad[:, None], bd[..., :, None]
    as_, bs = ad[None, :], bd[..., None, :]
    S -= (ar - A) * (Bp - br)        # k = r, first sum
    S -= (A.T - as_) * (bs - _t(Bp))   # k = s, first sum
    S -= (ar - A.T) * (_t(Bp) - br)    # k = r, second sum
    S -= (A - as_) * (bs - Bp)       # k = s, second sum
    # the 2x2 block itself (Taillard's first four terms)
    S += (ar - as_) * (bs - br) + (A - A.T) * (_t(Bp) - Bp)
    idx = np.arange(A.shape[0])
    S[..., idx, idx] = 0.0
    return S


def delta_symmetric(A: np.ndarray, Bp: np.ndarray) -> np.ndarray:
    """:func:`delta_matrix` for symmetric A and B with zero diagonals.

    ``delta = 2 (M + M^T - m_r - m_s + 2 A o Bp)`` with ``M = A Bp`` and
    ``m = diag(M)``: one matrix product (batch axes allowed).
    """
    M = np.matmul(A, Bp)
    m = np.diagonal(M, axis1=-2, axis2=-1)
    D = M + _t(M)
    D -= m[..., :, None]
    D -= m[..., None, :]
    D += 2.0 * (A * Bp)
    D *= 2.0
    idx = np.arange(A.shape[0])
    D[..., idx, idx] = 0.0
    return D


def symmetric_zero_diagonal(A: np.ndarray, B: np.ndarray) -> bool:
    return bool(not np.diagonal(A).any() and not np.diagonal(B).any()
                and np.array_equal(A, A.T) and np.array_equal(B, B.T))


def delta_rows(A: np.ndarray, Bp: np.ndarray, rows) -> np.ndarray:
    """``delta[r, :]`` for the given rows, O(n) per entry (Taillard's formula)."""
    R = np.atleast_1d(np.asarray(rows, dtype=np.intp))
    P = A * Bp
    m = P.sum(axis=0) + P.sum(axis=1)            # diag(A^T Bp) + diag(A Bp^T)
    Ac, Bc = A[:, R].T, Bp[:, R].T               # a_kr, b_kr as rows
    Ar, Br = A[R], Bp[R]                         # a_rk, b_rk
    out = Ac @ Bp + Bc @ A + Ar @ Bp.T + Br @ A.T
    out -= m[R][:, None]
    out -= m
    ad, bd = np.diagonal(A), np.diagonal(Bp)
    a_r, b_r = ad[R][:, None], bd[R][:, None]
    # drop the terms k = r and k = s of both sums, add the 2x2 block
    out -= (a_r - Ar) * (Br - b_r) + (Ac - ad) * (bd - Bc)
    out -= (a_r - Ac) * (Bc - b_r) + (Ar - ad) * (bd - Br)
    out += (a_r - ad) * (bd - b_r) + (Ar - Ac) * (Bc - Br)
    out[np.arange(len(R)), R] = 0.0
    return out


def swap(p: np.ndarray, Bp: np.ndarray, u: int, v: int) -> None:
    """Exchange the nodes of tasks u and v in place (p and Bp)."""
    p[u], p[v] = p[v], p[u]
    row = Bp[u].copy()
    Bp[u] = Bp[v]
    Bp[v] = row
    col = Bp[:, u].copy()
    Bp[:, u] = Bp[:, v]
    Bp[:, v] = col


def update_after_swap(delta: np.ndarray, A: np.ndarray, Bp: np.ndarray, u: int, v: int) -> None:
    """Refresh ``delta`` in place after the swap (u, v); ``Bp`` is already swapped.

    Taillard (1991), eq. for r, s not in {u, v}:
    ``delta'[r,s] = delta[r,s] + (a_ru - a_rv + a_sv - a_su)(b'_su - b'_sv + b'_rv - b'_ru)
    + (a_ur - a_vr + a_vs - a_us)(b'_us - b'_vs + b'_vr - b'_ur)``.
    """
    alpha = A[:, u] - A[:, v]
    beta = Bp[:, v] - Bp[:, u]
    gamma = A[u, :] - A[v, :]
    dlt = Bp[v, :] - Bp[u, :]
    delta += np.subtract.outer(alpha, alpha) * np.subtract.outer(beta, beta)
    delta += np.subtract.outer(gamma, gamma) * np.subtract.outer(dlt, dlt)
    rows = delta_rows(A, Bp, (u, v))
    delta[u, :] = rows[0]
    delta[v, :] = rows[1]
    delta[:, u] = rows[0]
    delta[:, v] = rows[1]


class SwapState:
    """A permutation with its permuted costs and all swap values, kept current.

    Two ways to refresh the swap values after a move, chosen once:

    - symmetric A and B with zero diagonals (undirected traffic over
      distances, most QAPLIB instances) up to n = ``DIRECT_MAX``: the
      closed form ``delta = 2 (M + M^T - m_r - m_s + 2 A o Bp)`` with
      ``M = A Bp`` and ``m = diag(M)``, one matrix product and a handful of
      array operations (at these sizes the count of array operations, not
      the flops, sets the time);
    - otherwise Taillard's O(1) update of the pairs disjoint from the move
      and the O(n) formula for the 2n others: O(n^2) per move.
    """

    #: Largest n refreshed by the closed form (symmetric, zero diagonals).
    DIRECT_MAX = 96

    def __init__(self, A: np.ndarray, B: np.ndarray, p: np.ndarray):
        self.A, self.B, self.p = A, B, p
        n = len(A)
        self.direct = n <= self.DIRECT_MAX and symmetric_zero_diagonal(A, B)
        self.Bp = permuted(B, p)
        self.delta = delta_matrix(A, self.Bp)
        self.value = float((A * self.Bp).sum())

    def recompute_value(self) -> float:
        self.value = float((self.A * self.Bp).sum())
        return self.value

    def swap(self, u: int, v: int) -> None:
        """Make the swap (u, v) and refresh every swap value."""
        self.value += float(self.delta[u, v])
        swap(self.p, self.Bp, u, v)
        if not self.direct:
            update_after_swap(self.delta, self.A, self.Bp, u, v)
            return
        self.delta = delta_symmetric(self.A, self.Bp)


def descent(A: np.ndarray, B: np.ndarray, p: np.ndarray, *, tol: float = 1e-9, max_moves: int | None = None,
            clock=None):
    """Best-improvement 2-swap descent from ``p`` (Pascual et al. sec. 3.2).

    Every swap is evaluated (O(n^2) per move with the delta update) and the
    best one is made while it lowers the objective.  Stops early when the
    ``clock`` (a Stopwatch) expires.  Returns ``(p, value, moves)``; ``p``
    is modified in place.
    """
    return _descent(A, B, p, tol=tol, max_moves=max_moves, clock=clock)[:3]


def _descent(A, B, p, *, tol, max_moves, clock):
    """:func:`descent`, and why it stopped: "completed" (a local optimum),
    "iteration_limit" (``max_moves``) or "time_limit" (the clock)."""
    state = SwapState(A, B, p)
    n = len(p)
    moves = 0
    scale = tol * max(1.0, abs(state.value))
    stop = "iteration_limit"
    while max_moves is None or moves < max_moves:
        delta = state.delta
        flat = int(np.argmin(delta))
        u, v = divmod(flat, n)
        if delta[u, v] >= -scale:
            stop = "completed"
            break
        state.swap(u, v)
        moves += 1
        if clock is not None and (moves & 7) == 0 and clock.expired():
            stop = "time_limit"
            break
    else:
        if state.delta.min() >= -scale:  # the last move allowed ended in a local optimum
            stop = "completed"
    # the running sum drifts by rounding only; report the exact value
    return p, state.recompute_value(), moves, stop


def local_search(W, C, start, *, time_limit: float | None = None, max_moves: int | None = None):
    """Best-improvement 2-swap descent from a given permutation.

    Every move evaluates all n(n-1)/2 swaps of the nodes of two tasks and
    makes the one that lowers ``sum_ij W[i, j] C[p[i], p[j]]`` most; the
    search stops in a local optimum, where no swap improves (Pascual et
    al. sec. 3.2: the improvement step of GRASP). A move costs O(n^2):
    the swap values are kept up to date with Taillard's formulas.

    Parameters
    ----------
    W, C : array_like, shape (n, n)
        Flows between tasks and costs between nodes.
    start : array_like of int
        The starting permutation (task i on node ``start[i]``); not
        modified.
    time_limit : float, optional
        Seconds; the search stops at the first check after it (every 8
        moves), with the best permutation so far.
    max_moves : int, optional
        Largest number of swaps made.

    Returns
    -------
    MappingResult
        ``permutation`` (a local optimum unless a limit stopped the
        search), ``objective``; ``termination`` ``"completed"`` (a local
        optimum), ``"time_limit"`` or ``"iteration_limit"``; status
        ``"feasible"`` (no bound is computed); ``extra["moves"]`` the swaps
        made.

    Examples
    --------
    >>> from optalloc.qap import local_search
    >>> W = [[0, 5, 0], [5, 0, 1], [0, 1, 0]]
    >>> C = [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
    >>> res = local_search(W, C, [0, 2, 1])    # objective 22
    >>> res.permutation.tolist(), res.objective, res.extra["moves"], res.termination
    ([0, 1, 2], 12.0, 1, 'completed')
    """
    clock = Stopwatch(time_limit)
    A, B = validate_matrices(W, C)
    p = validate_start(start, len(A))
    if p is None:
        raise ValueError("`start` must be a permutation, got None")
    if max_moves is not None:
        max_moves = positive_int(max_moves, "max_moves")
    p, _, moves, termination = _descent(A, B, p, tol=1e-9, max_moves=max_moves, clock=clock)
    return qap_result(A, B, p, method="local_search", start=clock.start, termination=termination,
                      extra={"moves": moves}, message=f"2-swap descent, {moves} moves")
