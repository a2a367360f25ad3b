"""Compiled inner loop of the robust tabu search (numba).

The moves of the tabu search run in compiled loops: Taillard's O(1) update of every swap
value per move and one pass over the neighbourhood that applies the tabu,
aspiration and tie rules, a few microseconds per move at n = 20 against
about a hundred for the array version in :mod:`._tabu`.  Both follow
the same rules and the same random draws, so on integer data they visit the
same permutations (the tests compare them).

State of chain ``c`` (a :class:`Chains`): ``P[c]`` the permutation,
``Bp[c] = B[P[c]][:, P[c]]`` the permuted costs, ``D[c, r, s]`` (r < s) the
change of the objective if tasks r and s swap nodes, ``L[c, r, node]`` the
iteration at which task r last left that node, ``val[c]`` the objective.
The flows and the rules travel as a :class:`TabuRules`; :func:`tabu_steps`
takes both and returns a :class:`StepsEnd`.

The compiled loop itself (:func:`_tabu_steps`) keeps a flat signature, on
purpose: numba types a namedtuple argument in Python at every call (flat
arrays and scalars go through its C fast path), a few microseconds more
per call. The loop is entered once per slice and once per restart, so on
small instances that restart often that cost shows in the whole search
(measured in docs/experiments.md), while the compiled code runs as fast
either way.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import njit

#: Codes returned by :func:`tabu_steps`.
DONE, RESTART, TARGET = 0, 1, 2


class TabuRules(NamedTuple):
    """The flows and the rules of a run (read only; the costs travel
    permuted, in :class:`Chains`)."""

    #: flows between tasks (float, n x n)
    A: np.ndarray
    #: A and B symmetric with zero diagonals (the shorter formulas)
    sym: bool
    #: a value must beat a best by more than this to count
    tol: float
    #: the tenures are re-drawn every ``period`` iterations
    period: int
    #: a move whose tasks left their new nodes more than ``asp``
    #: iterations ago is allowed (long-term aspiration)
    asp: float
    #: iterations without a better run best before a restart (0: never)
    restart: int
    #: stop once a chain's best is at most this (-inf: never)
    target: float


class Chains(NamedTuple):
    """The state of m chains (first axis), changed in place by :func:`tabu_steps`."""

    P: np.ndarray
    Bp: np.ndarray
    D: np.ndarray
    L: np.ndarray
    val: np.ndarray
    #: the best value since the chain's last start, and its iteration
    run_best: np.ndarray
    run_at: np.ndarray
    #: the best value of each chain, its permutation and its iteration
    best_v: np.ndarray
    best_p: np.ndarray
    found: np.ndarray


class StepsEnd(NamedTuple):
    """What :func:`tabu_steps` returns: why it stopped (``DONE``,
    ``RESTART`` or ``TARGET``) and the next iteration."""

    code: int
    it: int


def tabu_steps(rules: TabuRules, chains: Chains, tenure: np.ndarray, it: int, stop: int) -> StepsEnd:
    """Run iterations ``it .. stop - 1`` of every chain of ``chains`` under
    ``rules``; see the module docstring.

    ``tenure[k, c]`` is the tenure of chain c from iteration
    ``k * rules.period`` on.  The chains are independent.  Returns a
    :class:`StepsEnd`: ``RESTART`` when a chain must restart before
    iteration ``it`` (its best since its last start has not improved for
    ``rules.restart`` iterations; nothing of iteration ``it`` has run),
    ``TARGET`` when a chain reached ``rules.target`` in iteration
    ``it - 1``, ``DONE`` when ``it == stop``.
    """
    code, it = _steps(rules.A, rules.sym, rules.tol, rules.period, rules.asp, rules.restart, rules.target,
                      chains.P, chains.Bp, chains.D, chains.L, chains.val, chains.run_best, chains.run_at,
                      chains.best_v, chains.best_p, chains.found, tenure, it, stop)
    return StepsEnd(code, it)


def _tabu_steps(A, sym, tol, period, asp, restart, target, P, Bp, D, L, val, run_best, run_at, best_v, best_p, found,
                tenure, it, stop):
    """:func:`tabu_steps` on the fields of its :class:`TabuRules` and
    :class:`Chains`, in that order (flat: see the module docstring);
    returns (code, it)."""
    m, n = P.shape
    alpha = np.empty(n)
    beta = np.empty(n)
    gamma = np.empty(n)
    dl = np.empty(n)
    row = np.empty(n)
    inf = np.inf
    while it < stop:
        if restart > 0:
            for c in range(m):
                if it - run_at[c] > restart:
                    return RESTART, it
        for c in range(m):
            p = P[c]
            Dc = D[c]
            Lc = L[c]
            recent = it - tenure[it // period, c]
            old = it - asp
            bar = best_v[c] - val[c] - tol
            a_min, ua, va = inf, -1, -1     # aspired moves
            o_min, uo, vo = inf, -1, -1     # authorised moves
            for r in range(n - 1):
                pr = p[r]
                for s in range(r + 1, n):
                    d = Dc[r, s]
                    tr = Lc[r, p[s]]
                    ts = Lc[s, pr]
                    if d < bar or tr < old or ts < old:
                        if d < a_min:
                            a_min, ua, va = d, r, s
                    elif d < o_min and not (tr > recent and ts > recent):
                        o_min, uo, vo = d, r, s
            if ua >= 0:
                u, v = ua, va
            elif uo >= 0:
                u, v = uo, vo
            else:  # every move tabu: the best one
                m_min, u, v = inf, 0, 1
                for r in range(n - 1):
                    for s in range(r + 1, n):
                        if Dc[r, s] < m_min:
                            m_min, u, v = Dc[r, s], r, s
            val[c] += Dc[u, v]
            pu = p[u]
            pv = p[v]
            Lc[u, pu] = it
            Lc[v, pv] = it
            p[u] = pv
            p[v] = pu
            # the new permuted costs: rows and columns u and v exchange
            Q = Bp[c]
            for k in range(n):
                x = Q[u, k]
                Q[u, k] = Q[v, k]
                Q[v, k] = x
            for k in range(n):
                x = Q[k, u]
                Q[k, u] = Q[k, v]
                Q[k, v] = x
            # Taillard's update of the pairs disjoint from {u, v} (the pairs
            # with u or v get it too, to keep the loops simple, and are
            # overwritten below)
            for k in range(n):
                alpha[k] = A[k, u] - A[k, v]
                beta[k] = Q[k, v] - Q[k, u]
                gamma[k] = A[u, k] - A[v, k]
                dl[k] = Q[v, k] - Q[u, k]
            _update(Dc, alpha, beta, gamma, dl, sym)
            # the pairs with u or v, O(n) each
            for w in (u, v):
                _row(A, Q, w, row, sym)
                for s in range(n):
                    if s < w:
                        Dc[s, w] = row[s]
                    elif s > w:
                        Dc[w, s] = row[s]
            if val[c] < run_best[c] - tol:
                run_best[c] = val[c]
                run_at[c] = it
            if val[c] < best_v[c] - tol:
                exact = _value(A, Q)  # drop accumulated rounding at each record
                val[c] = exact
                if exact < best_v[c]:
                    best_v[c] = exact
                    best_p[c] = p
                    found[c] = it
        it += 1
        for c in range(m):
            if best_v[c] <= target:
                return TARGET, it
    return DONE, it


def _update(Dc, alpha, beta, gamma, dl, sym):
    n = len(alpha)
    for r in range(n - 1):
        ar, br, gr, dr = alpha[r], beta[r], gamma[r], dl[r]
        if sym:
            for s in range(r + 1, n):
                Dc[r, s] += 2.0 * (ar - alpha[s]) * (br - beta[s])
        else:
            for s in range(r + 1, n):
                Dc[r, s] += (ar - alpha[s]) * (br - beta[s]) + (gr - gamma[s]) * (dr - dl[s])


def _row(A, Q, r, out, sym):
    """``out[s]``: change of the objective when tasks r and s swap nodes, O(n^2).

    ``Q`` is the permuted cost matrix (``Q[i, j]`` the cost between the
    nodes of tasks i and j); Taillard's O(n) formula for every s, summed over
    all k in contiguous loops and corrected for the terms k = r and k = s.
    With ``sym`` (A and B symmetric with zero diagonals) both sums of the
    formula are equal and the correction is ``2 a_rs q_rs``.
    """
    n = len(out)
    out[:] = 0.0
    for k in range(n):
        akr = A[k, r]
        qkr = Q[k, r]
        for s in range(n):
            out[s] += (akr - A[k, s]) * (Q[k, s] - qkr)
    if sym:
        for s in range(n):
            out[s] = 2.0 * (out[s] + 2.0 * A[r, s] * Q[r, s])
        out[r] = 0.0
        return
    arr = A[r, r]
    qrr = Q[r, r]
    for s in range(n):
        acc = 0.0
        for k in range(n):
            acc += (A[r, k] - A[s, k]) * (Q[s, k] - Q[r, k])
        ass = A[s, s]
        qss = Q[s, s]
        ars, asr, qrs, qsr = A[r, s], A[s, r], Q[r, s], Q[s, r]
        acc -= (arr - ars) * (qrs - qrr) + (asr - ass) * (qss - qsr)  # k = r and k = s, first sum
        acc -= (arr - asr) * (qsr - qrr) + (ars - ass) * (qss - qrs)  # k = r and k = s, second sum
        acc += (arr - ass) * (qss - qrr) + (ars - asr) * (qsr - qrs)  # the 2x2 block
        out[s] += acc
    out[r] = 0.0


def _value(A, Q):
    total = 0.0
    n = len(A)
    for i in range(n):
        for j in range(n):
            total += A[i, j] * Q[i, j]
    return total


# compiled on first call (numba imported then, not here)
_row = njit(cache=True, fastmath=True)(_row)
_update = njit(cache=True)(_update)
_value = njit(cache=True)(_value)
_steps = njit(cache=True, nogil=True)(_tabu_steps)
