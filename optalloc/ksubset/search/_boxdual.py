"""Lagrangian bounds on the optimum of a full box, for its branch-and-bound.

:mod:`._box` shows ``OPT(box, k) = min over lambda of arr(lambda) +
arr(lambda')``: lambda a partition of k (the column heights, parts <= b,
at most a of them), lambda' its conjugate (the row lengths), arr the least
sum of cut costs ``f(L) = L (k - L)`` over the orders of the parts.  The
two terms are tied only by lambda' being the conjugate of lambda.  For any
real weights pi_1 .. pi_b,

    sum_s pi_s lambda'_s = sum_i Pi(lambda_i),   Pi(x) = pi_1 + ... + pi_x,

because lambda'_s counts the parts of at least s.  Hence

    arr(lambda) + arr(lambda') = [arr(lambda) + sum_i Pi(lambda_i)]
                                + [arr(lambda') - sum_s pi_s lambda'_s],

and the least of the first bracket over all multisets of column heights
(:func:`_columns`) plus the least of the second over all descending row
sequences (:func:`_rows`) is at most the optimum, whatever pi is: the
relaxation drops the tie, the weights price it.  :func:`multipliers` finds
the weights that make the bound largest (the Lagrangian dual, concave in pi)
by cutting planes: each evaluation gives a plane (its subgradient is the
column and row counts that attain the two least values), and the next pi
maximises the least of the planes, an LP solved by HiGHS through
:func:`scipy.optimize.linprog`, within a box around the best pi so far
(doubled when a step that pays reaches its edge); a step that does not
pay still adds its planes.

On 32 x 32 the dual is within 1.5 % of the optimum for k from 128 to 512.
The search then bounds every node by the same split with what the node
fixes (:func:`tables`): the columns still to come by the exact least of the
first bracket from the node's state on, and the rows still unknown (a
middle block of rows, each holding at least one cell of every column
chosen) by the exact least of the second.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._jit import njit

#: weights are rounded to multiples of 1 / _SCALE so that the tables are
#: exact integers (W times _SCALE)
_SCALE = 16
#: spacing of the least row lengths tabled for the middle rows
_LO_STEP = 3
#: most cutting-plane rounds of :func:`multipliers`
_ROUNDS = 400


def _tri(r, u):  # pragma: no cover - compiled by numba
    """Index of the state (r, u), 0 <= u <= r, in a triangular array."""
    return r * (r + 1) // 2 + u


def _columns(a, b, k, Pi):  # pragma: no cover - compiled by numba
    """Least arr(h) + sum Pi(h_i) over the sequences h of at most a parts
    in 1..b summing to k; returns it and the parts' counts by height."""
    f = np.empty(k + 1)
    for L in range(k + 1):
        f[L] = L * (k - L)
    D = np.full((a + 1, k + 1), np.inf)
    arg = np.zeros((a + 1, k + 1), dtype=np.int64)
    D[0, 0] = 0.0
    best, n_best = np.inf, 0
    for n in range(1, a + 1):
        for L in range(1, k + 1):  # the cut after the n-th part has L points before it
            low, x_low = np.inf, 0
            for x in range(1, min(b, L) + 1):
                v = D[n - 1, L - x] + Pi[x]
                if v < low:
                    low, x_low = v, x
            D[n, L] = low + f[L]
            arg[n, L] = x_low
        if D[n, k] < best:
            best, n_best = D[n, k], n
    counts = np.zeros(b + 1, dtype=np.int64)
    L = k
    for n in range(n_best, 0, -1):
        counts[arg[n, L]] += 1
        L -= arg[n, L]
    return best, counts


def _rows(a, b, k, pi, lo, scale, T, choice):  # pragma: no cover - compiled by numba
    """Least arr(v) - sum_s pi_s v_s over the descending sequences v of at
    most b parts in lo..a summing to k (cuts times ``scale``), built from
    the largest part outwards
    (each part to the left or right of the block; state: the points still to
    come, r, and those of them on the left, u).

    ``T[j, tri(r, u)]``, when T has more than one row, gets the least value
    of the first j parts over the states (r, u) they reach; ``choice``, when
    it has more than one row, records the moves for the parts, which are
    returned (``parts[s]``, s = 1..), else zeros."""
    K = k + 1
    n = K * (K + 1) // 2
    f = np.empty(K)
    for L in range(K):
        f[L] = scale * L * (k - L)
    keep_t = T.shape[0] > 1
    keep_c = choice.shape[0] > 1
    lo = max(lo, 1)
    cur = np.full((a + 1, n), np.inf)
    nxt = np.full((a + 1, n), np.inf)
    suf = np.empty(n)
    arg = np.zeros(n, dtype=np.int64)
    best, j_best, w_best = np.inf, 0, 0
    for w in range(lo, min(a, k) + 1):
        r = k - w
        for u in range(r + 1):
            cur[w, _tri(r, u)] = -pi[1] * w
            if keep_t and cur[w, _tri(r, u)] < T[1, _tri(r, u)]:
                T[1, _tri(r, u)] = cur[w, _tri(r, u)]
        if r == 0 and cur[w, 0] < best:
            best, j_best, w_best = cur[w, 0], 1, w
    for j in range(2, min(b, k // lo) + 1):
        for w in range(a + 1):
            nxt[w, :] = np.inf
        suf[:] = np.inf
        for w in range(min(a, k // (j - 1)), lo - 1, -1):
            rmax = k - (j - 1) * w  # the j - 1 parts placed are at least w each
            for i in range(_tri(rmax, rmax) + 1):  # suf: the least over last parts >= w
                if cur[w, i] < suf[i]:
                    suf[i] = cur[w, i]
                    arg[i] = w
            if j * w > k:
                continue
            for r in range(w, rmax + 1):
                r2 = r - w
                for u2 in range(r2 + 1):
                    i_left = _tri(r, u2 + w)  # the new part on the left: the cut has u2 + w before it
                    i_right = _tri(r, u2)  # on the right: r - u2 beyond it
                    v, code = suf[i_left] + f[u2 + w], 2 * arg[i_left]
                    if suf[i_right] + f[r - u2] < v:
                        v, code = suf[i_right] + f[r - u2], 2 * arg[i_right] + 1
                    if v == np.inf:
                        continue
                    v -= pi[j] * w
                    i = _tri(r2, u2)
                    nxt[w, i] = v
                    if keep_c:
                        choice[j, w, i] = code
                    if keep_t and v < T[j, i]:
                        T[j, i] = v
            if nxt[w, 0] < best:
                best, j_best, w_best = nxt[w, 0], j, w
        cur, nxt = nxt, cur
    parts = np.zeros(b + 1, dtype=np.int64)
    if keep_c and j_best > 0:
        r = u = 0
        w = w_best
        for j in range(j_best, 0, -1):
            parts[j] = w
            if j == 1:
                break
            code = choice[j, w, _tri(r, u)]
            r += w
            if code % 2 == 0:
                u += w
            w = code // 2
    return best, parts


def _column_table(b, k, Pis, scale):  # pragma: no cover - compiled by numba
    """``V[c, tri(r, u)]``: least cost (cuts times ``scale`` plus the
    weights ``Pis`` of the parts) of the parts still to come, each <= c and
    r in all, placed outwards from a block with u of them to come on its
    left (:func:`._boxsearch._grow_columns`)."""
    K = k + 1
    big = np.int64(1) << 60
    V = np.full((b + 1, K * (K + 1) // 2), big, dtype=np.int64)
    for c in range(b + 1):
        V[c, 0] = 0
    for r in range(1, K):
        for c in range(1, b + 1):
            r2 = r - c
            for u in range(r + 1):
                best = V[c - 1, _tri(r, u)]
                if r2 >= 0:
                    if u >= c and V[c, _tri(r2, u - c)] < big:  # on the left
                        best = min(best, scale * (u * (k - u)) + V[c, _tri(r2, u - c)] + Pis[c])
                    if u <= r2 and V[c, _tri(r2, u)] < big:  # on the right
                        best = min(best, scale * ((r - u) * (k - r + u)) + V[c, _tri(r2, u)] + Pis[c])
                V[c, _tri(r, u)] = best
    return V


_tri = njit(cache=True)(_tri)
_columns = njit(cache=True)(_columns)
_rows = njit(cache=True)(_rows)
_column_table = njit(cache=True)(_column_table)


def memory(a: int, b: int, k: int) -> int:
    """Bytes the weights and tables of an ``a x b`` box and k take at their
    peak, roughly: the moves of :func:`multipliers` and two layers of its
    DP, or the tables of :func:`tables`, whichever is more."""
    states = (k + 1) * (k + 2) // 2
    levels = len(range(1, a + 1, _LO_STEP))
    finding = (b + 1) * (a + 1) * states * (1 if 2 * a + 1 < 128 else 2) + 2 * (a + 1) * states * 8
    tabling = (b + 1) * states * (8 + 8 + 4 * levels)  # V, a level in floats, the levels as integers
    return max(finding, tabling)


def _no_table():
    return np.zeros((1, 1))


def multipliers(a: int, b: int, k: int, *, rounds: int = _ROUNDS, tolerance: float = 0.5):
    """``(bound, pi)``: the best Lagrangian bound found on the optimum of k
    cells of an ``a x b`` box (parts <= b, at most a of them) and its
    weights pi (pi[0] unused; pi[1] = 0, as adding one number to every
    weight changes neither bracket's sum: both sides hold k cells).  Stops
    when the cutting-plane model is within ``tolerance`` of the bound, or
    after ``rounds`` evaluations."""
    from scipy.optimize import linprog

    choice = np.zeros((b + 1, a + 1, (k + 1) * (k + 2) // 2), dtype=np.int8 if 2 * a + 1 < 128 else np.int16)
    no_t = _no_table()
    m = b - 1  # the weights pi_2 .. pi_b, then the two brackets' values

    def evaluate(pi):
        value_c, counts = _columns(a, b, k, np.cumsum(pi))
        value_r, parts = _rows(a, b, k, pi, 1, 1.0, no_t, choice)
        g_c = np.cumsum(counts[::-1])[::-1].astype(float)  # g_c[s]: parts of at least s
        g_r = -parts.astype(float)
        for g, v, col in ((g_c, value_c, m), (g_r, value_r, m + 1)):  # theta <= v + g (pi' - pi)
            row = np.zeros(m + 2)
            row[:m], row[col] = -g[2:], 1.0
            planes.append(row)
            rhs.append(v - g[2:] @ pi[2:])
        return value_c + value_r

    planes, rhs = [], []
    center = np.zeros(b + 1)
    best = evaluate(center)
    width = float(k)  # half-width of the box around the centre the next weights are sought in
    cost = np.zeros(m + 2)
    cost[m:] = -1.0
    for _ in range(rounds - 1):
        bounds = [(x - width, x + width) for x in center[2:]] + [(None, None)] * 2
        lp = linprog(cost, A_ub=np.array(planes), b_ub=np.array(rhs), bounds=bounds, method="highs")
        if lp.status != 0:
            break
        model = -lp.fun
        if model - best <= tolerance:  # no better weights in the box: none anywhere (the dual is concave)
            break
        pi = np.zeros(b + 1)
        pi[2:] = lp.x[:m]
        value = evaluate(pi)
        if value >= best + 0.1 * (model - best):  # a step that pays: move the centre
            if np.abs(pi[2:] - center[2:]).max() >= 0.99 * width:
                width *= 2
            center, best = pi, value
    return best, center


class Tables(NamedTuple):
    """What the search needs of the weights pi (all scaled by ``scale``)."""

    columns: np.ndarray  #: V[c, tri(r, u)] (:func:`_column_table`)
    rows: np.ndarray  #: T[level, j, tri(r, u)]: :func:`_rows` with parts >= the level's least row length
    level: np.ndarray  #: level[x]: the row of ``rows`` for middle rows of at least x cells
    Pi: np.ndarray  #: Pi[x] = pi_1 + ... + pi_x (scaled integers)
    scale: int  #: 0: no tables (the search skips the bound)
    none: int  #: the entry of ``rows`` for a state no rows reach


def tables(a: int, b: int, k: int, pi: np.ndarray) -> Tables:
    """The search's tables for the weights ``pi`` (see the module docstring)."""
    pis = np.round(_SCALE * np.asarray(pi, dtype=float)).astype(np.int64)
    pis[0] = 0
    Pi = np.cumsum(pis)
    V = _column_table(b, k, Pi, np.int64(_SCALE))
    los = list(range(1, a + 1, _LO_STEP))
    n = (k + 1) * (k + 2) // 2
    no_c = np.zeros((1, 1, 1), dtype=np.int8)
    T = np.empty((len(los), b + 1, n), dtype=np.int32)
    for i, lo in enumerate(los):  # one level at a time in floats, kept as integers
        level = np.full((b + 1, n), np.inf)
        _rows(a, b, k, pis.astype(float), lo, float(_SCALE), level, no_c)  # integer weights: exact in float
        finite = np.isfinite(level)
        if T.dtype == np.int32 and finite.any() and np.abs(level[finite]).max() >= 2**30:  # rare: widen
            T = np.where(T == np.iinfo(np.int32).max, np.iinfo(np.int64).max, T.astype(np.int64))
        T[i] = np.iinfo(T.dtype).max  # no state
        T[i][finite] = level[finite]
    level = np.array([max(i for i, lo in enumerate(los) if lo <= max(x, 1)) for x in range(a + 2)], dtype=np.int64)
    return Tables(V, T, level, Pi, _SCALE, int(np.iinfo(T.dtype).max))


def no_tables(a: int, b: int, k: int) -> Tables:
    """Tables that bound nothing (for a search without the dual)."""
    return Tables(np.zeros((1, 1), dtype=np.int64), np.zeros((1, 1, 1), dtype=np.int32),
                  np.zeros(a + 2, dtype=np.int64), np.zeros(b + 1, dtype=np.int64), 0, int(np.iinfo(np.int32).max))
