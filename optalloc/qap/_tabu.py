"""Robust tabu search for the QAP (Taillard 1991)."""

from __future__ import annotations

import numpy as np

from ._common import (
    Stopwatch,
    positive_int,
    qap_result,
    validate_fraction,
    validate_positive,
    validate_start,
)
from ._core import validate_matrices
from ._grasp import construct
from ._search import SwapState, delta_matrix, delta_symmetric, symmetric_zero_diagonal


def tabu(W, C, *, iterations: int | None = None, time_limit: float | None = None, rng=None, start=None,
         tenure: tuple[float, float] = (0.9, 1.1), aspiration: float = 5.0, restart: float | None = 50.0,
         alpha: float = 0.2, chains: int = 1, target: float | None = None, progress=None):
    """Robust tabu search for the quadratic assignment problem.

    Every iteration makes the best authorised swap of the whole 2-swap
    neighbourhood, even a worsening one.  After tasks r and s swap, putting
    r back on its old node (and s on its old node) is forbidden for a
    tenure drawn uniformly in ``tenure * n`` (re-drawn every ``2 * 1.1 n``
    iterations).  A swap that is tabu for both tasks is refused unless it
    gives a new best solution (aspiration by objective).  A task that has
    not been on a node for ``aspiration * n^2`` iterations may be forced
    there (long-term diversification).  Beyond Taillard's method, a run
    whose best has not improved for ``restart * n`` iterations starts again
    from a fresh randomised greedy construction (the GRASP construction of
    Li, Pardalos and Resende, with ``alpha``), with the tabu memory cleared;
    the best permutation over all runs is returned.

    Parameters
    ----------
    W, C : array_like, shape (n, n)
        Flows between tasks and costs between nodes.
    iterations : int, optional
        Number of moves (of every chain); by default ``1000 n`` for one
        chain and ``200 n`` for several when no ``time_limit`` is given,
        unlimited otherwise.
    time_limit : float, optional
        Seconds.
    rng : None, int or numpy.random.Generator
        Seed for the start and the tenures.
    start : array_like, optional
        Starting permutation; a randomised greedy construction by default.
    tenure : (float, float), default (0.9, 1.1)
        Range of the tabu tenure as multiples of n.
    aspiration : float, default 5
        Long-term aspiration after ``aspiration * n^2`` iterations.
    target : float, optional
        Stop as soon as the objective is at most ``target``.
    restart : float or None, default 50
        Restart after ``restart * n`` iterations without improving the
        run's best; None runs one robust tabu search (Taillard's method).
    alpha : float in (0, 1], default 0.2
        Candidate-list share of the greedy constructions (start, restarts).
    chains : int, default 1
        Independent searches run side by side as one array computation
        (the first from ``start``, the others from greedy constructions);
        an iteration moves every chain.  On small instances (n up to a
        few dozen) several chains cost little more time per iteration
        than one, since array overheads dominate.
    progress : callable, optional
        ``progress(iteration, best)`` every 1000 iterations.

    Returns
    -------
    Result
        The best permutation met; ``extra`` has ``iterations`` (moves per
        chain), ``chains``, ``restarts`` and ``found_at`` (iteration of the
        best).

    Notes
    -----
    Each iteration is O(n^2): the swap values are kept up to date with
    Taillard's O(1) formula and the choice is a masked arg-min.

    References
    ----------
    E. Taillard, "Robust taboo search for the quadratic assignment
    problem", Parallel Computing 17 (1991) 443-455.

    Examples
    --------
    >>> import numpy as np
    >>> from optalloc.qap import tabu
    >>> W = np.array([[0, 5, 0], [5, 0, 1], [0, 1, 0]])
    >>> C = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]])
    >>> tabu(W, C, iterations=20, rng=0).objective
    12.0
    """
    clock = Stopwatch(time_limit)
    A, B = validate_matrices(W, C)
    n = len(A)
    chains = positive_int(chains, "chains")
    if iterations is None:
        iterations = (1000 if chains == 1 else 200) * n if time_limit is None else None
    else:
        iterations = positive_int(iterations, "iterations")
    lo, hi = _validate_tenure(tenure)
    aspiration = validate_positive(aspiration, "aspiration", allow_none=False)
    if restart is not None:
        restart = validate_positive(restart, "restart")
    alpha = validate_fraction(alpha, "alpha")
    rng = np.random.default_rng(rng)
    p = validate_start(start, n)
    if p is None:
        p = construct(A, B, rng, alpha=alpha)
    args = (rng, iterations, clock, lo * n, hi * n, aspiration * n * n, target, progress,
            None if restart is None else max(1, int(restart * n)), lambda r: construct(A, B, r, alpha=alpha))
    if chains == 1 or n < 2:
        best, it, found, restarts = _search(A, B, p, *args)
    else:
        P = np.array([p] + [construct(A, B, rng, alpha=alpha) for _ in range(chains - 1)])
        best, it, found, restarts = _search_chains(A, B, P, *args)
    return qap_result(A, B, best, method="tabu", start=clock.start,
                      extra={"iterations": it, "chains": chains, "restarts": restarts, "found_at": found},
                      message=f"robust tabu search, {chains} chain(s) x {it} iterations, {restarts} restarts")


def _validate_tenure(tenure):
    try:
        lo, hi = (float(t) for t in tenure)
    except (TypeError, ValueError):
        raise ValueError(f"`tenure` must be a pair (low, high) of positive numbers, got {tenure!r}") from None
    if not 0 < lo <= hi:
        raise ValueError(f"`tenure` must satisfy 0 < low <= high, got {tenure!r}")
    return lo, hi


def _search(A, B, p, rng, iterations, clock, t_lo, t_hi, asp, target, progress, restart, restart_start):
    n = len(p)
    best = p.copy()
    if n < 2:
        return best, 0, 0, 0
    state = SwapState(A, B, p)
    best_v = state.value
    found = 0
    tol = 1e-9 * max(1.0, abs(best_v))
    # last[r, node]: iteration when task r last left the node (0 = the start,
    # Taillard); tab[r, s] = last[r, p[s]], the age of the move "r to s's node"
    last = np.zeros((n, n))
    tab = np.zeros((n, n))
    # the lower triangle and the diagonal are never candidates
    closed = np.tril(np.full((n, n), np.inf))
    period = int(2 * t_hi) + 1
    t = t_lo + (t_hi - t_lo) * rng.random()
    it = 0
    run_best, run_at, restarts = best_v, 0, 0
    while iterations is None or it < iterations:
        it += 1
        if restart is not None and it - run_at > restart:
            # diversify: a fresh start, the tabu memory forgotten
            q = restart_start(rng)
            state = SwapState(A, B, q)
            p = q
            last[:] = it
            tab[:] = it
            run_best, run_at = state.value, it
            restarts += 1
        if it % period == 0:
            t = t_lo + (t_hi - t_lo) * rng.random()
        delta = state.delta
        cand = delta + closed
        # aspiration: a swap that beats the best, or one long forgotten
        if cand.min() < best_v - state.value - tol:
            pass
        elif tab.min() < it - asp:
            forced = (tab < it - asp) | (tab.T < it - asp)
            cand[~forced] = np.inf
        else:
            # tabu when both tasks would return to a node left recently
            recent = tab > it - t
            cand[recent & recent.T] = np.inf
        flat = int(np.argmin(cand))
        u, v = divmod(flat, n)
        if cand[u, v] == np.inf:       # every move tabu: take the best one
            flat = int(np.argmin(delta + closed))
            u, v = divmod(flat, n)
        last[u, p[u]] = it
        last[v, p[v]] = it
        state.swap(u, v)
        # only the columns of u and v see a new node or a new time
        tab[:, u] = last[:, p[u]]
        tab[:, v] = last[:, p[v]]
        if state.value < run_best - tol:
            run_best, run_at = state.value, it
        if state.value < best_v - tol:
            value = state.recompute_value()  # drop accumulated rounding at each record
            if value < best_v:
                best_v, best, found = value, p.copy(), it
        if progress is not None and it % 1000 == 0:
            progress(it, best_v)
        if target is not None and best_v <= target:
            break
        if (it & 63) == 0 and clock.expired():
            break
    return best, it, found, restarts


def _search_chains(A, B, P, rng, iterations, clock, t_lo, t_hi, asp, target, progress, restart, restart_start):
    """Robust tabu search on m chains at once: ``P`` has shape (m, n).

    The rules are those of :func:`_search`, applied per chain with array
    operations over the chain axis; the swap values are recomputed from
    one batched matrix product per iteration.
    """
    m, n = P.shape
    ar = np.arange(m)
    cols = np.arange(n)
    fast = symmetric_zero_diagonal(A, B)
    delta_of = (lambda X: delta_symmetric(A, X)) if fast else (lambda X: delta_matrix(A, X))
    Bp = B[P[:, :, None], P[:, None, :]]
    val = (A * Bp).sum(axis=(1, 2))
    best_v, best_p, found = float(val.min()), P[int(val.argmin())].copy(), 0
    tol = 1e-9 * max(1.0, abs(best_v))
    run_best, run_at = val.copy(), np.zeros(m)
    last = np.zeros((m, n, n))   # last[c, r, node]: when task r of chain c left the node
    tab = np.zeros((m, n, n))    # tab[c, r, s] = last[c, r, P[c, s]]
    closed = np.tril(np.full((n, n), np.inf))
    period = int(2 * t_hi) + 1
    t = t_lo + (t_hi - t_lo) * rng.random(m)
    it = restarts = 0
    while iterations is None or it < iterations:
        it += 1
        if restart is not None:
            stale = np.flatnonzero(it - run_at > restart)
            for c in stale:  # a fresh start, its tabu memory forgotten
                P[c] = restart_start(rng)
                Bp[c] = B[np.ix_(P[c], P[c])]
                val[c] = (A * Bp[c]).sum()
                last[c] = it
                tab[c] = it
                run_best[c], run_at[c] = val[c], it
            restarts += len(stale)
        if it % period == 0:
            t = t_lo + (t_hi - t_lo) * rng.random(m)
        delta = delta_of(Bp)
        cand = delta + closed
        # aspiration: a swap that beats the global best, or one long forgotten
        aspired = cand < (best_v - val - tol)[:, None, None]
        if tab.min() < it - asp:
            aspired |= ((tab < it - asp) | (np.swapaxes(tab, 1, 2) < it - asp)) & np.isfinite(closed)
        recent = tab > (it - t)[:, None, None]
        allowed = np.where(aspired.any(axis=(1, 2))[:, None, None], aspired, ~(recent & np.swapaxes(recent, 1, 2)))
        choice = np.where(allowed, cand, np.inf).reshape(m, -1).argmin(axis=1)
        stuck = ~np.isfinite(cand.reshape(m, -1)[ar, choice])
        if stuck.any():  # every move tabu: take the best one
            choice[stuck] = cand.reshape(m, -1)[stuck].argmin(axis=1)
        u, v = np.divmod(choice, n)
        val += delta[ar, u, v]
        pu, pv = P[ar, u], P[ar, v]
        last[ar, u, pu] = it
        last[ar, v, pv] = it
        P[ar, u], P[ar, v] = pv, pu
        row = Bp[ar, u, :].copy()
        Bp[ar, u, :] = Bp[ar, v, :]
        Bp[ar, v, :] = row
        col = Bp[ar, :, u].copy()
        Bp[ar, :, u] = Bp[ar, :, v]
        Bp[ar, :, v] = col
        # only the columns of u and v see a new node or a new time
        tab[ar, :, u] = last[ar[:, None], cols[None, :], P[ar, u][:, None]]
        tab[ar, :, v] = last[ar[:, None], cols[None, :], P[ar, v][:, None]]
        better = val < run_best - tol
        run_best = np.where(better, val, run_best)
        run_at = np.where(better, it, run_at)
        c = int(val.argmin())
        if val[c] < best_v - tol:
            exact_v = float((A * Bp[c]).sum())  # drop accumulated rounding at each record
            val[c] = exact_v
            if exact_v < best_v:
                best_v, best_p, found = exact_v, P[c].copy(), it
        if progress is not None and it % 1000 == 0:
            progress(it, best_v)
        if target is not None and best_v <= target:
            break
        if (it & 15) == 0 and clock.expired():
            break
    return best_p, it, found, restarts
