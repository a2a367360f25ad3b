"""GRASP for the QAP: Li, Pardalos and Resende's construction, 2-swap descent."""

from __future__ import annotations

import numpy as np

from .._progress import Progress, check_progress, library_progress
from ._common import (
    Stopwatch,
    positive_int,
    qap_result,
    validate_fraction,
    validate_start,
)
from ._core import validate_matrices
from ._search import descent


def construct(A: np.ndarray, B: np.ndarray, rng: np.random.Generator, *, alpha: float = 0.2,
              beta: float = 0.5) -> np.ndarray:
    """One greedy randomised permutation (Li, Pardalos and Resende 1994).

    Stage 1 places two tasks at once: the ``beta`` share of task pairs with
    the largest flows is matched, largest flow to smallest cost, with the
    same share of node pairs; among the ``alpha`` share of these matches
    with the smallest product flow x cost one is drawn at random.
    Stage 2 adds one task-node pair at a time: the cost of putting task i
    on node k is its interaction with the pairs already placed,
    ``W[i,i] C[k,k] + sum_(j,l) W[i,j] C[k,l] + W[j,i] C[l,k]``; one of the
    ``alpha`` share of cheapest free pairs is drawn at random.  O(n^3).
    """
    n = len(A)
    p = np.full(n, -1, dtype=np.intp)
    if n == 1:
        p[0] = 0
        return p
    off = ~np.eye(n, dtype=bool)
    # Stage 1 (Li et al. sec. 2.1): beta-share of pairs, matched by rank
    m = max(1, int(beta * n * (n - 1)))
    tasks = np.flatnonzero(off)
    nodes = tasks.copy()
    heavy = tasks[np.argsort(-A[off], kind="stable")[:m]]
    near = nodes[np.argsort(B[off], kind="stable")[:m]]
    prod = A.ravel()[heavy] * B.ravel()[near]
    rcl = max(1, int(alpha * m))
    pick = rng.choice(np.argsort(prod, kind="stable")[:rcl])
    i, j = divmod(int(heavy[pick]), n)
    k, l = divmod(int(near[pick]), n)
    p[i], p[j] = k, l
    free_t = np.ones(n, dtype=bool)
    free_n = np.ones(n, dtype=bool)
    free_t[[i, j]] = False
    free_n[[k, l]] = False
    # cost[i, k] of placing task i on node k given the placed pairs
    cost = np.outer(np.diagonal(A), np.diagonal(B))
    for t, v in ((i, k), (j, l)):
        cost += np.outer(A[:, t], B[:, v]) + np.outer(A[t, :], B[v, :])
    # Stage 2 (Li et al. sec. 2.2): one assignment at a time
    for placed in range(2, n):
        ft = np.flatnonzero(free_t)
        fn = np.flatnonzero(free_n)
        sub = cost[np.ix_(ft, fn)].ravel()
        size = max(1, int(alpha * len(sub)))
        cand = np.argpartition(sub, size - 1)[:size] if size < len(sub) else np.arange(len(sub))
        a, b = divmod(int(rng.choice(cand)), len(fn))
        t, v = int(ft[a]), int(fn[b])
        p[t] = v
        free_t[t] = False
        free_n[v] = False
        if placed < n - 1:
            cost += np.outer(A[:, t], B[:, v]) + np.outer(A[t, :], B[v, :])
    return p


def grasp(W, C, *, iterations: int = 50, alpha: float = 0.2, beta: float = 0.5, rng=None, start=None,
          time_limit: float | None = None, target: float | None = None, progress=None):
    """GRASP for the quadratic assignment problem (Pascual et al. sec. 3.2).

    Each iteration builds a permutation with the randomised greedy of Li,
    Pardalos and Resende and improves it by best-improvement 2-swap
    descent; the best permutation over all iterations is returned.

    Parameters
    ----------
    W, C : array_like, shape (n, n)
        Flows between tasks and costs between nodes; the objective is
        ``sum_ij W[i, j] * C[p[i], p[j]]``.
    iterations : int, default 50
        Constructions (each followed by a descent).
    alpha : float in (0, 1], default 0.2
        Share of the cheapest candidates kept in the restricted candidate
        list (alpha = 1 is a random start, small alpha is greedy).
    beta : float in (0, 1], default 0.5
        Share of pairs matched in stage 1 of the construction.
    rng : None, int or numpy.random.Generator
        Seed; equal seeds give equal results.
    start : array_like, optional
        A permutation to improve first (counted as an iteration).
    time_limit : float, optional
        Stop after this many seconds (at least one iteration runs).
    target : float, optional
        Stop as soon as the objective is at most ``target``.
    progress : bool or callable, optional
        A callable is called as ``progress(iteration, best)`` after every
        iteration; True: progress on stderr (a bar on a terminal, a line
        every few seconds and one at the end elsewhere).  Default: silent.

    Returns
    -------
    MappingResult
        ``permutation`` (task i on node ``permutation[i]``), ``objective``,
        status ``"feasible"``, termination ``"completed"`` (every iteration
        run, or the ``target`` met) or ``"time_limit"``; ``extra`` has
        ``iterations``, ``moves`` (swaps made by the descents) and
        ``found_at`` (iteration of the best).

    Notes
    -----
    One iteration is O(n^3): the construction updates an n x n cost table
    n times, and each descent move costs O(n^2) with Taillard's update of
    the swap values.

    References
    ----------
    Y. Li, P. M. Pardalos, M. G. C. Resende, "A greedy randomized adaptive
    search procedure for the quadratic assignment problem", DIMACS Series
    16 (1994).  J. A. Pascual, J. Miguel-Alonso, J. A. Lozano,
    "Optimization-based mapping framework for parallel applications",
    Technical Report EHU-KAT-IK-02-10, sec. 3.2.

    Examples
    --------
    >>> import numpy as np
    >>> from optalloc.qap import grasp, objective
    >>> W = np.array([[0, 5, 0], [5, 0, 1], [0, 1, 0]])
    >>> C = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]])
    >>> res = grasp(W, C, iterations=5, rng=0)
    >>> res.objective, objective(W, C, res.permutation) == res.objective
    (12.0, True)
    """
    clock = Stopwatch(time_limit)
    A, B = validate_matrices(W, C)
    n = len(A)
    iterations = positive_int(iterations, "iterations")
    alpha = validate_fraction(alpha, "alpha")
    beta = validate_fraction(beta, "beta")
    rng = np.random.default_rng(rng)
    first = validate_start(start, n)
    check_progress(progress)
    best_p, best_v, found, moves, done = None, np.inf, 0, 0, 0
    termination = "completed"
    report, scope = library_progress(progress, label="grasp", unit="iterations", total=iterations)
    with scope:
        for it in range(iterations):
            p = first.copy() if (it == 0 and first is not None) else construct(A, B, rng, alpha=alpha, beta=beta)
            p, value, m = descent(A, B, p)
            moves += m
            done += 1
            if value < best_v:
                best_p, best_v, found = p.copy(), value, it
            if isinstance(report, Progress):
                report.track(done, best=best_v)
            elif report is not None:
                report(it, best_v)
            if target is not None and best_v <= target:
                break
            if clock.expired():
                if done < iterations:
                    termination = "time_limit"
                break
    extra = {"iterations": done, "moves": moves, "found_at": found, "alpha": alpha, "beta": beta}
    return qap_result(A, B, best_p, method="grasp", start=clock.start, extra=extra, termination=termination,
                      message=f"best of {done} GRASP iterations")
