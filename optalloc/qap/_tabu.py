"""Robust tabu search for the QAP (Taillard 1991)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .._progress import Progress, check_progress, library_progress
from . import _jit
from ._common import (
    Stopwatch,
    integral_data,
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
         alpha: float = 0.2, chains: int = 1, target: float | None = None, progress=None,
         engine: str | None = None, workers: int = 1):
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
        Independent searches (the first from ``start``, the others from
        greedy constructions), each with its own best for the aspiration
        and its own restarts; an iteration moves every chain.  In the numpy
        engine they run as one array computation, so that on small instances
        (n up to a few dozen) several chains cost little more time per
        iteration than one.
    progress : bool or callable, optional
        A callable gets ``(iteration, best)`` every 1000 iterations; True:
        progress on stderr (a bar on a terminal, a line every few seconds
        and one at the end elsewhere).  Default: silent.
    engine : {None, "jit", "numpy"}
        ``"jit"`` (the default): compiled loops, tens of times faster on
        small and medium n; ``"numpy"``: array operations only.  Both make
        the same moves on integer data.
    workers : int, default 1
        Threads (compiled engine): the chains are shared out among them and
        run in parallel, with the same results as in one thread except that
        with a ``target`` the chains stop at the end of a slice of up to
        1000 iterations rather than at once.

    Returns
    -------
    MappingResult
        The best permutation met; termination ``"completed"`` (the
        iterations run, or the ``target`` met) or ``"time_limit"``;
        ``extra`` has ``iterations`` (moves per chain), ``chains``,
        ``restarts`` and ``found_at`` (iteration of the best).

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
    engine = _engine(engine)
    workers = positive_int(workers, "workers")
    check_progress(progress)
    if workers > 1 and engine != "jit":
        raise ValueError("`workers` > 1 needs the compiled engine (engine='jit')")
    rng = np.random.default_rng(rng)
    p = validate_start(start, n)
    if p is None:
        p = construct(A, B, rng, alpha=alpha)
    P = np.array([p] + [construct(A, B, rng, alpha=alpha) for _ in range(chains - 1)])
    # tenures and restarts draw from streams of their own, so that every engine
    # (compiled, one chain, batched chains) makes the same moves; one restart
    # stream per chain keeps chains run in threads reproducible
    seeds = rng.integers(2**63, size=chains + 1)
    rng_t, rng_r = np.random.default_rng(seeds[0]), [np.random.default_rng(x) for x in seeds[1:]]
    report, scope = library_progress(progress, label="tabu", unit="iterations", total=iterations)
    with scope:
        step = (lambda it, best: report.track(it, best=best)) if isinstance(report, Progress) else report
        run = TabuRun(Tenures(rng_t, chains, lo * n, hi * n), iterations, clock, aspiration * n * n, target, step,
                      None if restart is None else max(1, int(restart * n)),
                      lambda c: construct(A, B, rng_r[c], alpha=alpha))
        if n < 2:
            out = TabuOutcome(p, 0, 0, 0)
        elif engine == "jit":
            out = _search_jit(A, B, P, run, workers=min(workers, chains))
        elif chains == 1:
            out = _search(A, B, p, run)
        else:
            out = _search_chains(A, B, P, run)
        if isinstance(report, Progress):
            report.track(out.iterations, best=float((A * B[np.ix_(out.best, out.best)]).sum()))
    best, it = out.best, out.iterations
    reached = target is not None and float((A * B[np.ix_(best, best)]).sum()) <= target
    ran_out = iterations is not None and it >= iterations
    termination = "time_limit" if clock.expired() and not (reached or ran_out) else "completed"
    return qap_result(A, B, best, method="tabu", start=clock.start, termination=termination,
                      extra={"iterations": it, "chains": chains, "restarts": out.restarts, "found_at": out.found_at,
                             "engine": engine},
                      message=f"robust tabu search, {chains} chain(s) x {it} iterations, {out.restarts} restarts")


def _validate_tenure(tenure):
    try:
        lo, hi = (float(t) for t in tenure)
    except (TypeError, ValueError):
        raise ValueError(f"`tenure` must be a pair (low, high) of positive numbers, got {tenure!r}") from None
    if not 0 < lo <= hi:
        raise ValueError(f"`tenure` must satisfy 0 < low <= high, got {tenure!r}")
    return lo, hi


def _engine(engine):
    if engine is None:
        return "jit"
    if engine not in ("jit", "numpy"):
        raise ValueError(f"unknown engine {engine!r}; choose 'jit' or 'numpy'")
    return engine


class Tenures:
    """Tabu tenures of m chains, one draw per chain every ``period`` iterations.

    ``row(k)`` is the tenure of each chain from iteration ``k * period`` on
    (Taillard re-draws it in [low, high] every ``2 high`` iterations).
    """

    def __init__(self, rng, m: int, low: float, high: float):
        self.rng, self.m, self.low, self.high = rng, m, low, high
        self.period = int(2 * high) + 1
        self.table = np.empty((0, m))

    def upto(self, k: int) -> np.ndarray:
        """The table with at least rows 0..k drawn."""
        if k >= len(self.table):
            extra = max(k + 1 - len(self.table), len(self.table), 16)
            draws = self.low + (self.high - self.low) * self.rng.random((extra, self.m))
            self.table = np.concatenate([self.table, draws])
        return self.table

    def row(self, k: int) -> np.ndarray:
        return self.upto(k)[k]


@dataclass(frozen=True, eq=False)
class TabuRun:
    """The limits and rules of one tabu search, as every engine reads them."""

    #: the tabu tenures of the chains
    tenures: Tenures
    #: moves per chain (None: until the clock runs out)
    iterations: int | None
    clock: Stopwatch
    #: long-term aspiration: a move to nodes left more than ``asp``
    #: iterations ago is allowed
    asp: float
    #: stop once the objective is at most this (None: never)
    target: float | None
    #: ``progress(iteration, best)`` every 1000 iterations, or None
    progress: Callable[[int, float], Any] | None
    #: iterations without a better run best before a restart (None: never)
    restart: int | None
    #: ``restart_start(c)``: a fresh permutation for chain c
    restart_start: Callable[[int], np.ndarray]


@dataclass(frozen=True, eq=False)
class TabuOutcome:
    """What an engine returns: the best permutation met, the iterations
    run (per chain), the iteration the best was found at and the restarts."""

    best: np.ndarray
    iterations: int
    found_at: int
    restarts: int


class _SliceEnd(NamedTuple):
    """How a group of chains ended a slice in :func:`_search_jit`."""

    reached: bool
    it: int


def _search(A, B, p, run: TabuRun) -> TabuOutcome:
    """One chain on a :class:`SwapState` (Taillard's O(n^2) update per move)."""
    tenures, iterations, clock, asp = run.tenures, run.iterations, run.clock, run.asp
    target, progress, restart, restart_start = run.target, run.progress, run.restart, run.restart_start
    n = len(p)
    best = p.copy()
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
    upper = np.isfinite(closed)
    period = tenures.period
    it = 0
    run_best, run_at, restarts = best_v, 0, 0
    while iterations is None or it < iterations:
        it += 1
        if restart is not None and it - run_at > restart:
            # diversify: a fresh start, the tabu memory forgotten
            q = restart_start(0)
            state = SwapState(A, B, q)
            p = q
            last[:] = it
            tab[:] = it
            run_best, run_at = state.value, it
            restarts += 1
        t = tenures.row(it // period)[0]
        delta = state.delta
        cand = delta + closed
        # aspiration: a swap that beats the best, or one long forgotten
        forced = ((tab < it - asp) | (tab.T < it - asp)) & upper
        if cand.min() < best_v - state.value - tol:
            pass
        elif forced.any():
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
    return TabuOutcome(best, it, found, restarts)


def _search_chains(A, B, P, run: TabuRun) -> TabuOutcome:
    """Robust tabu search on m independent chains at once: ``P`` has shape (m, n).

    The rules are those of :func:`_search`, applied per chain with array
    operations over the chain axis; the swap values are recomputed from
    one batched matrix product per iteration.
    """
    tenures, iterations, clock, asp = run.tenures, run.iterations, run.clock, run.asp
    target, progress, restart, restart_start = run.target, run.progress, run.restart, run.restart_start
    m, n = P.shape
    ar = np.arange(m)
    cols = np.arange(n)
    fast = symmetric_zero_diagonal(A, B)
    delta_of = (lambda X: delta_symmetric(A, X)) if fast else (lambda X: delta_matrix(A, X))
    Bp = B[P[:, :, None], P[:, None, :]]
    val = (A * Bp).sum(axis=(1, 2))
    best_v, best_p, found = val.copy(), P.copy(), np.zeros(m, dtype=np.int64)
    tol = 1e-9 * max(1.0, abs(float(val.min())))
    run_best, run_at = val.copy(), np.zeros(m)
    last = np.zeros((m, n, n))   # last[c, r, node]: when task r of chain c left the node
    tab = np.zeros((m, n, n))    # tab[c, r, s] = last[c, r, P[c, s]]
    closed = np.tril(np.full((n, n), np.inf))
    period = tenures.period
    it = restarts = 0
    while iterations is None or it < iterations:
        it += 1
        if restart is not None:
            stale = np.flatnonzero(it - run_at > restart)
            for c in stale:  # a fresh start, its tabu memory forgotten
                P[c] = restart_start(c)
                Bp[c] = B[np.ix_(P[c], P[c])]
                val[c] = (A * Bp[c]).sum()
                last[c] = it
                tab[c] = it
                run_best[c], run_at[c] = val[c], it
            restarts += len(stale)
        t = tenures.row(it // period)
        delta = delta_of(Bp)
        cand = delta + closed
        # aspiration: a swap that beats the chain's best, or one long forgotten
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
        for c in np.flatnonzero(val < best_v - tol):
            val[c] = (A * Bp[c]).sum()  # drop accumulated rounding at each record
            if val[c] < best_v[c]:
                best_v[c], best_p[c], found[c] = val[c], P[c], it
        if progress is not None and it % 1000 == 0:
            progress(it, float(best_v.min()))
        if target is not None and best_v.min() <= target:
            break
        if (it & 15) == 0 and clock.expired():
            break
    c = int(best_v.argmin())
    return TabuOutcome(best_p[c], it, int(found[c]), restarts)


def _search_jit(A, B, P, run: TabuRun, *, workers=1) -> TabuOutcome:
    """The chains of :func:`_search_chains` in compiled loops (:mod:`._jit`).

    Runs in slices of at most 1000 iterations (fewer on large n); between
    slices the clock, progress and the target are checked here.  With
    several ``workers`` the chains are split into that many groups, each
    run slice by slice in a thread of its own (the compiled loop releases
    the GIL).
    """
    tenures, iterations, clock, progress, restart = run.tenures, run.iterations, run.clock, run.progress, run.restart
    m, n = P.shape
    P = np.ascontiguousarray(P, dtype=np.int64)
    Bp = np.ascontiguousarray(B[P[:, :, None], P[:, None, :]])
    D = delta_matrix(A, Bp)
    val = (A * Bp).sum(axis=(1, 2))
    best_v, best_p, found = val.copy(), P.copy(), np.zeros(m, dtype=np.int64)
    tol = 1e-9 * max(1.0, abs(float(val.min())))
    integral = integral_data(A, B)
    sym = symmetric_zero_diagonal(A, B)
    run_best, run_at = val.copy(), np.zeros(m, dtype=np.int64)
    L = np.zeros((m, n, n))
    rules = _jit.TabuRules(A, sym, tol, tenures.period, run.asp, 0 if restart is None else restart,
                           -np.inf if run.target is None else float(run.target))
    groups = [g for g in np.array_split(np.arange(m), workers) if len(g)]
    restarts = np.zeros(m, dtype=np.int64)
    # each group's chains: views of the arrays above, changed in place here and by the kernel
    slices = [slice(int(g[0]), int(g[-1]) + 1) for g in groups]
    views = [_jit.Chains(P[sl], Bp[sl], D[sl], L[sl], val[sl], run_best[sl], run_at[sl], best_v[sl], best_p[sl], found[sl])
             for sl in slices]

    def run_group(gi, it, stop, table) -> _SliceEnd:
        """Iterations ``it .. stop - 1`` of the chains of group ``gi``."""
        g, sl, chains = groups[gi], slices[gi], views[gi]
        while it < stop:
            end = _jit.tabu_steps(rules, chains, np.ascontiguousarray(table[:, sl]), it, stop)
            it = end.it
            if end.code == _jit.TARGET:
                return _SliceEnd(True, it)
            if end.code == _jit.RESTART:
                for c in g[it - run_at[g] > restart]:  # a fresh start, its tabu memory forgotten
                    P[c] = run.restart_start(c)
                    Bp[c] = B[np.ix_(P[c], P[c])]
                    D[c] = delta_matrix(A, Bp[c])
                    val[c] = (A * Bp[c]).sum()
                    L[c] = it
                    run_best[c], run_at[c] = val[c], it
                    restarts[c] += 1
        if not integral:  # the incremental values drift by rounding: refresh them
            D[sl] = delta_matrix(A, Bp[sl])
            val[sl] = (A * Bp[sl]).sum(axis=(1, 2))
        return _SliceEnd(False, it)

    # slices end on multiples of 1000 (progress) and take about 4e6 pair updates at most
    per = max(1, 4_000_000 * len(groups) // (m * n * n))
    step = max(d for d in (1, 2, 5, 10, 25, 50, 100, 125, 250, 500, 1000) if d <= per)
    last_it = iterations if iterations is not None else np.iinfo(np.int64).max - 1
    pool = ThreadPoolExecutor(len(groups)) if len(groups) > 1 else None
    it = 1
    try:
        while it <= last_it:
            stop = min(((it - 1) // step + 1) * step + 1, last_it + 1)
            table = tenures.upto(stop // rules.period)
            if pool is None:
                outcomes = [run_group(0, it, stop, table)]
            else:
                k = len(groups)
                outcomes = list(pool.map(run_group, range(k), [it] * k, [stop] * k, [table] * k))
            it = max(end.it for end in outcomes)
            if any(end.reached for end in outcomes):
                break
            if progress is not None and (it - 1) % 1000 == 0:
                progress(it - 1, float(best_v.min()))
            if clock.expired():
                break
    finally:
        if pool is not None:
            pool.shutdown()
    c = int(best_v.argmin())
    return TabuOutcome(best_p[c], it - 1, int(found[c]), int(restarts.sum()))
