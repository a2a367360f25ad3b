"""The star bound: a Lagrangian lower bound without an LP solver.

For a k-set S and any antisymmetric matrix A (A_ij = -A_ji),

    W(S) = sum over ordered pairs (i, j) of S, i != j, of (d_ij / 2 + A_ij)

since the A terms cancel in pairs.  Each point i of S pays for its k - 1
partners at least v_i(A), the sum of the k - 1 smallest entries of row i
of C = D / 2 + A (off the diagonal), so W(S) >= sum of v_i over S >= the
sum of the k smallest v_i.  This holds for every A and every distance
matrix (any metric, any dimension), so whatever A the ascent below ends
with, the value is a proven lower bound.  Its best value over A is the
bound of the level-1 linearisation (the pairwise LP with its cardinality,
RLT and linking rows y_ij <= x_i), reached here by a subgradient ascent
whose steps cost one pass over the n x n matrix each: a few seconds where
the LP takes a minute (512 points).  C changes little from a step to the
next, so each row first gathers its entries up to its last (k - 1)-th
least plus a margin and chooses among them (:func:`_star_rows`); the
values are those of a sort of the row, whatever the margin.

Forcing a point i into the set changes the bound to v_i plus the k - 1
smallest v_j of the others, so a point whose bound so forced exceeds the
incumbent's cutoff is in no better set (:func:`star_bound` reports them).
"""

from __future__ import annotations

import math
import sys
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..._jit import njit
from .._common import triangle_keys
from ._watch import LPWatcher

if TYPE_CHECKING:
    from ._state import Bracket, ExactProblem

#: relative margin taken off the bound (and added to a cutoff) for the
#: rounding of the sums
_SLACK = 1e-9
#: the exact solver runs the star bound beside its LP from this many points
#: on (below, the LP's first round is quick and at least as strong)
STAR_MIN_POINTS = 200
#: most subgradient steps of that run (it also stops at the time limit)
STAR_STEPS = 100_000
#: triangle rows: separated every this many steps, at most this many new
#: ones per point each time and this many priced ones per point in all
_SEPARATE_EVERY, _NEW_ROWS, _MAX_ROWS = 10, 20, 250
#: the first step's share of Polyak's, and the steps without progress
#: after which it halves (tuned on seeds 0 and 1 of 32 x 32 and 8 x 8 x 8
#: half free and seed 107 of 8 x 8 x 8; with 10 or 50, the ascent stopped
#: while the bound could still rise)
_THETA, _STALL = 1.0, 200
#: deflection: each step goes along the subgradient plus this share of the
#: last direction (0: plain subgradient steps); tuned on seeds 0-4
_BETA = 0.6
#: seconds of ascent before its values are first offered to a search
#: (:meth:`StarRace.feed`)
_FEED_FIRST = 2.0


class StarBound(NamedTuple):
    """What :func:`star_bound` returns: the best proven bound, the points
    no set below ``cutoff`` contains (a boolean mask; none without a
    cutoff), the ascent steps taken, the lightest set among the
    stars' choices (its W and indices; inf and None when none beat
    ``upper``), and the stars' values at the best step (``values[i]``:
    what point i pays at least for its partners, so that every k-set
    weighs at least the sum of its points' values; None without a step)."""

    value: float
    excluded: np.ndarray
    steps: int
    found: float = np.inf
    indices: np.ndarray | None = None
    values: np.ndarray | None = None


class _Triangles(NamedTuple):
    """The triangle rows priced so far: apexes i, legs (j, l), multipliers."""

    tri: np.ndarray
    tau: np.ndarray


class RowLevels(NamedTuple):
    """What each row of the stars keeps between the calls of an ascent
    (:func:`_star_rows`): its m-th least entry at the last call (inf:
    none yet) and the margin gathered above it."""

    tau: np.ndarray
    gap: np.ndarray

    @classmethod
    def fresh(cls, n: int) -> RowLevels:
        return cls(np.full(n, np.inf), np.zeros(n))


def _pair_prices(i, j, l, tau, n):
    """The y-costs the priced triangle rows (apexes i, legs j and l, prices
    tau) add (an n x n symmetric matrix) and what they take off each
    apex's x: the prices moved from zero to tau (:func:`_move_prices`)."""
    P, apex = np.zeros((n, n)), np.zeros(n)
    _move_prices(i, j, l, np.zeros(len(tau)), tau, 1.0, P, apex)
    return P, apex


def _row_slopes(i, j, l, tau, Z, x, gt):  # pragma: no cover - compiled by numba
    """gt[t]: the subgradient of triangle row t at the stars' picks Z and
    chosen points x (0 where tau is 0 and it points down); returns the sum
    of squares."""
    total = 0.0
    for t in range(len(tau)):
        a, b, c = i[t], j[t], l[t]
        g = (Z[a, b] + Z[b, a] + Z[a, c] + Z[c, a] - Z[b, c] - Z[c, b]) / 2.0 - x[a]
        if tau[t] <= 0.0 and g < 0.0:
            g = 0.0
        gt[t] = g
        total += g * g
    return total


def _move_prices(i, j, l, tau, gt, size, P, apex):  # pragma: no cover - compiled by numba
    """tau += size * gt (kept >= 0), with the pair prices P and the apex
    prices moved along."""
    for t in range(len(tau)):
        new = max(0.0, tau[t] + size * gt[t])
        d = new - tau[t]
        if d != 0.0:
            a, b, c = i[t], j[t], l[t]
            P[a, b] += d
            P[b, a] += d
            P[a, c] += d
            P[c, a] += d
            P[b, c] -= d
            P[c, b] -= d
            apex[a] += d
            tau[t] = new


_row_slopes = njit(cache=True, nogil=True)(_row_slopes)
_move_prices = njit(cache=True, nogil=True)(_move_prices)


def _least_first(val, idx, m):  # pragma: no cover - compiled by numba
    """Reorder ``val`` (with ``idx`` alongside) so that its first m entries
    are its m smallest (quickselect, the middle entry as pivot)."""
    lo, hi = 0, len(val) - 1
    t = m - 1
    while lo < hi:
        pivot = val[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while val[i] < pivot:
                i += 1
            while val[j] > pivot:
                j -= 1
            if i <= j:
                val[i], val[j] = val[j], val[i]
                idx[i], idx[j] = idx[j], idx[i]
                i += 1
                j -= 1
        if t <= j:
            hi = j
        elif t >= i:
            lo = i
        else:
            break


def _least_sorted(val, idx, t, m):  # pragma: no cover - compiled by numba
    """Reorder ``val[:t]`` (with ``idx``) so that its first m entries are
    its m smallest, ascending: a sorted buffer of the least so far, into
    which few of the later entries are inserted."""
    for q in range(t):
        c = val[q]
        if q >= m and c >= val[m - 1]:
            continue
        j = idx[q]
        p = min(q, m) - 1
        while p >= 0 and val[p] > c:
            if p + 1 < m:
                val[p + 1] = val[p]
                idx[p + 1] = idx[p]
            p -= 1
        val[p + 1] = c
        idx[p + 1] = j


def _star_rows(dist, A, P, apex, m, priced, tau, gap):  # pragma: no cover - compiled by numba
    """v and the partners of every row of C = (dist + P) / 2 + A (P only
    when ``priced``): the m cheapest entries off the diagonal, their sum
    less the apex price.  ``tau[i]``: row i's m-th least entry at the last
    call (inf at first), ``gap[i]``: a margin above it; the entries at most
    ``tau[i] + gap[i]`` are gathered first and the least of them chosen,
    the whole row only when fewer than m are gathered (both arrays are
    updated: the margin doubles after such a miss and halves when more
    than 2 m are gathered).  The values do not depend on them (which of
    equal entries are the partners may)."""
    n = dist.shape[0]
    v = np.empty(n)
    part = np.empty((n, m), dtype=np.int64)
    val = np.empty(n - 1)
    idx = np.empty(n - 1, dtype=np.int64)
    for i in range(n):
        th = tau[i] + gap[i]
        for attempt in range(2):
            t = 0
            for j in range(n):
                if j != i:
                    c = ((dist[i, j] + P[i, j]) / 2.0 if priced else dist[i, j] / 2.0) + A[i, j]
                    val[t] = c
                    idx[t] = j
                    t += 1 if c <= th else 0
            if t >= m:
                break
            th = np.inf
        missed = attempt == 1
        if t <= 2 * m:  # few gathered: insert them in order
            _least_sorted(val, idx, t, m)
        else:
            _least_first(val[:t], idx[:t], m)
        total = 0.0
        top = val[0]
        for q in range(m):
            total += val[q]
            top = max(top, val[q])
            part[i, q] = idx[q]
        v[i] = total - apex[i]
        if missed:
            gap[i] = max(2.0 * gap[i], (top - val[0]) / m + 1e-9 * (abs(top) + 1.0))
        elif t > 2 * m:
            gap[i] *= 0.5
        tau[i] = top
    return v, part


_least_first = njit(cache=True, nogil=True)(_least_first)
_least_sorted = njit(cache=True, nogil=True)(_least_sorted)
_star_rows = njit(cache=True, nogil=True)(_star_rows)  # beside the LP's thread (see StarRace)


def star_values(dist: np.ndarray, k: int, A: np.ndarray, prices=None, levels=None):
    """v_i of every point (the k - 1 cheapest partners of row i of C, less
    the apex prices of i) and the k - 1 partners of each (indices);
    ``prices``: the pair and apex prices of the triangle rows (or None);
    ``levels``: the :class:`RowLevels` kept between the calls of an
    ascent (None: fresh ones)."""
    n = len(dist)
    if k < 2 or n < 2:  # no partners
        return -(prices[1] if prices is not None else np.zeros(n)), np.zeros((n, 0), dtype=np.int64)
    tau, gap = levels if levels is not None else RowLevels.fresh(n)
    if prices is not None:
        P, apex = prices
        return _star_rows(dist, A, P, apex, min(k - 1, n - 1), True, tau, gap)
    return _star_rows(dist, A, dist, np.zeros(n), min(k - 1, n - 1), False, tau, gap)


def bound_of(v: np.ndarray, k: int) -> float:
    """The sum of the k smallest v_i."""
    return float(np.partition(v, k - 1)[:k].sum()) if k < len(v) else float(v.sum())


def _separate(chosen: np.ndarray, part: np.ndarray, Z: np.ndarray, most: int) -> np.ndarray:
    """Triangle rows (i, j, l) violated by the star solution: i chosen, j
    and l among its partners, y_ab = (Z_ab + Z_ba) / 2 with Z the picks
    of the stars; the ``most`` most violated (ties: in the order found)."""
    tri, viol = _violated(chosen, part, Z)
    return tri[np.argsort(-viol, kind="stable")[:most]]


def _violated(chosen, part, Z):  # pragma: no cover - compiled by numba
    """Every violated row of :func:`_separate` and its violation
    ``y_ij + y_il - y_jl - x_i`` (x_i = 1), by chosen point, then legs in
    the order of its partners."""
    m = part.shape[1]
    count = 0
    for s in range(2):  # count, then fill
        if s == 1:
            tri = np.empty((count, 3), dtype=np.int64)
            viol = np.empty(count)
            count = 0
        for i in chosen:
            for a in range(m):
                ja = part[i, a]
                ya = (Z[i, ja] + Z[ja, i]) / 2.0
                for b in range(a + 1, m):
                    jb = part[i, b]
                    t = ya + (Z[i, jb] + Z[jb, i]) / 2.0 - (Z[ja, jb] + Z[jb, ja]) / 2.0 - 1.0
                    if t > 1e-9:
                        if s == 1:
                            tri[count, 0] = i
                            tri[count, 1] = ja
                            tri[count, 2] = jb
                            viol[count] = t
                        count += 1
    return tri, viol


_violated = njit(cache=True, nogil=True)(_violated)


def _merge(tri: _Triangles, new: np.ndarray, n: int, most: int) -> _Triangles:
    """The priced rows with the rows of ``new`` (multiplier 0) added, those
    priced at 0 dropped first, without repeats, at most ``most`` (the
    highest priced kept)."""
    keep = tri.tau > 0
    rows = np.concatenate([tri.tri[keep], new]) if len(new) else tri.tri[keep]
    tau = np.concatenate([tri.tau[keep], np.zeros(len(new))]) if len(new) else tri.tau[keep]
    _, first = np.unique(triangle_keys(rows, n), return_index=True)
    rows, tau = rows[first], tau[first]
    if len(tau) > most:
        top = np.argsort(-tau, kind="stable")[:most]
        rows, tau = rows[top], tau[top]
    return _Triangles(rows.astype(np.int64), tau)


def star_bound(dist: np.ndarray, k: int, *, upper: float | None = None, cutoff: float | None = None,
               steps: int = 300, seconds: float | None = None, deadline: np.ndarray | None = None,
               triangles: bool = True, enough: float | None = None, integral: bool = False,
               publish=None, share_rows=None) -> StarBound:
    """The star bound of the distance matrix ``dist`` for k-sets, raised by
    at most ``steps`` subgradient steps (and ``seconds``; None: no clock;
    ``deadline``, a one-element array of :func:`time.perf_counter` time
    that another thread may move, stops it too).

    ``upper`` (the W of a known set) sets the step lengths (Polyak's rule;
    without it the steps aim 5 % above the bound); ``cutoff`` (a value
    every better set stays at or below) marks the points excluded by
    forcing them in (module docstring); ``triangles``: price the triangle
    rows the stars violate (relax and cut), else the level-1 bound only.
    The ascent also stops once the bound passes ``enough`` (the value
    that proves the incumbent optimal, say), or proves the lightest set
    it found optimal (``integral``: W is an integer, a bound above W - 1
    does).  ``publish(values, bound)`` (optional) is called at each new
    best step with the stars' values then (see :class:`StarBound`).
    """
    dist = np.asarray(dist, dtype=float)
    n = len(dist)
    if not 2 <= k <= n:
        return StarBound(0.0, np.zeros(n, dtype=bool), 0)
    found, found_idx = np.inf, None
    A, Z = np.zeros((n, n)), np.zeros((n, n))
    rows = cols = np.zeros(0, dtype=np.int64)
    legs, prices = (), (np.zeros((n, n)), np.zeros(n))
    dA, dt = np.zeros((n, n)), np.zeros(0)
    tri = _Triangles(np.empty((0, 3), dtype=np.int64), np.zeros(0))
    best, best_v = -np.inf, None
    levels = RowLevels.fresh(n)
    theta = _THETA
    stuck = 0
    end = None if seconds is None else time.perf_counter() + seconds
    step = 0
    for step in range(1, steps + 1):
        v, part = star_values(dist, k, A, prices if len(tri.tau) else None, levels)
        value = bound_of(v, k)
        if best_v is None or value > best + 1e-9 * max(1.0, abs(best)):
            best, best_v, stuck = value, v, 0
            if publish is not None:
                publish(v, value)
        else:
            stuck += 1
            if stuck >= _STALL:  # halve the step when the bound stops rising
                theta, stuck = theta / 2, 0
        if (upper is not None and best >= upper - 1e-9) or (end is not None and time.perf_counter() > end):
            break
        if deadline is not None and time.perf_counter() > deadline[0]:
            break
        stop_at = np.inf if enough is None else enough
        if found < np.inf:  # the bound that proves the lightest set found optimal
            stop_at = min(stop_at, found - 1 + 1e-6 if integral else found - 1e-9 * max(1.0, found))
        if best - _SLACK * max(1.0, abs(best)) > stop_at:
            break
        if theta < 1e-4:
            break
        chosen = np.argpartition(v, k - 1)[:k] if k < n else np.arange(n)
        # the stars' picks Z (i picks j), kept sparse: the subgradient of A
        # is Z - Z^T, nonzero on the one-way picks only
        Z[rows, cols] = 0.0
        rows, cols = np.repeat(chosen, part.shape[1]), part[chosen].ravel()
        Z[rows, cols] = 1.0
        one_way = Z[cols, rows] == 0.0
        gt = np.zeros(len(tri.tau))
        squares = 0.0
        if len(tri.tau):
            x = np.zeros(n)
            x[chosen] = 1.0
            squares = _row_slopes(*legs, tri.tau, Z, x, gt)
        if _BETA > 0:  # deflected: the step goes along g + beta * the last direction
            dA *= _BETA
            dA[rows[one_way], cols[one_way]] += 1.0
            dA[cols[one_way], rows[one_way]] -= 1.0
            if len(dt) == len(gt):
                gt += _BETA * dt
                gt[(tri.tau <= 0) & (gt < 0)] = 0.0
            dt = gt.copy()
            norm = float((dA * dA).sum()) / 2.0 + float((gt * gt).sum())
        else:
            norm = float(one_way.sum()) + float(squares)
        if norm == 0:
            break  # the stars agree and violate no priced row: no direction left
        target = upper if upper is not None else 1.05 * max(value, 1.0)
        size = theta * max(target - value, 1e-9 * max(1.0, abs(value))) / norm
        if _BETA > 0:
            A += size * dA
        else:
            A[rows[one_way], cols[one_way]] += size
            A[cols[one_way], rows[one_way]] -= size
        if len(gt):
            _move_prices(*legs, tri.tau, gt, size, *prices)
        if step % _SEPARATE_EVERY == 1:
            # the k chosen points are a set: keep the lightest one seen
            w = float(dist[np.ix_(chosen, chosen)].sum()) / 2.0
            if w < min(found, np.inf if upper is None else upper):
                found, found_idx = w, np.sort(chosen)
        if triangles and step % _SEPARATE_EVERY == 1:
            tri = _merge(tri, _separate(chosen, part, Z, _NEW_ROWS * n), n, _MAX_ROWS * n)
            # the prices afresh (rows dropped and added)
            legs = tuple(np.ascontiguousarray(c) for c in tri.tri.T)
            prices = _pair_prices(*legs, tri.tau, n)
            if share_rows is not None:
                share_rows(tri)
    excluded = np.zeros(n, dtype=bool)
    if cutoff is not None and best_v is not None and k < n:
        # forcing i in: v_i plus the k - 1 smallest of the others
        order = np.argsort(best_v, kind="stable")
        low = best_v[order[: k - 1]].sum()
        kth = best_v[order[k - 1]]
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        others = np.where(rank < k - 1, low - best_v + kth, low)  # i among the k - 1: replace it by the k-th
        # a margin for the rounding of the sums (the A terms cancel only up to it)
        excluded = best_v + others > cutoff + _SLACK * max(1.0, abs(cutoff))
    return StarBound(float(best) - _SLACK * max(1.0, abs(best)), excluded, step, found, found_idx, best_v)


class StarRace(LPWatcher):
    """:func:`star_bound` in a thread beside the cut loop of the exact
    solver (the compiled rows of the stars and HiGHS both release the
    GIL), until ``STAR_STEPS`` steps or the time limit of ``problem``.  When its
    bound proves the incumbent optimal it cancels the LP it watches and
    sets ``proven``; :meth:`join` stops it and raises the bracket's bound
    to its value."""

    def __init__(self, problem: ExactProblem, state: Bracket):
        time_left = problem.time_left()
        self.deadline = np.array([math.inf if time_left is None else time.perf_counter() + time_left])
        self.result: StarBound | None = None
        self.started, self.seconds, self.joined = time.perf_counter(), 0.0, False
        self.proven, self.lp, self.closed = threading.Event(), None, problem.closed
        self.integral = problem.integral
        # the least bound that closes the gap (W an integer: above ub - 1)
        self.enough = state.ub - 1 + 1e-6 if problem.integral else state.ub - 1e-9 * max(1.0, state.ub)
        # a search fed with the stars' values (see feed); when they were last
        # offered to it, and the gap then
        self.sink, self.offered, self.offered_gap = None, -math.inf, math.inf
        # the triangle rows the ascent prices, as it last separated them
        self.priced: _Triangles | None = None
        self.thread = threading.Thread(target=self._run, args=(problem, state.ub), daemon=True)
        self.thread.start()

    def feed(self, sink) -> None:
        """Offer the stars' values to ``sink.offer(values)`` (a search that
        bounds with them, faster the closer they come to the incumbent) as
        the ascent goes: after ``_FEED_FIRST`` seconds, then whenever the
        gap to the incumbent has halved since the last offer (at most one
        offer a second), and once more when the ascent stalls."""
        self.sink = sink

    def _publish(self, values, bound) -> None:
        sink = self.sink
        if sink is None:
            return
        now = time.perf_counter()
        gap = self.enough - bound
        if now - self.started >= _FEED_FIRST and now - self.offered >= 1.0 and gap <= self.offered_gap / 2:
            self.offered, self.offered_gap = now, gap
            sink.offer(values.copy())

    def _share(self, tri: _Triangles) -> None:
        self.priced = tri

    def priced_rows(self) -> np.ndarray:
        """The triangle rows (i, j, l) the ascent prices now (a positive
        multiplier): rows of the pairwise LP too (:meth:`._pairlp._PairLP.add_triangles`)."""
        tri = self.priced
        if tri is None:
            return np.empty((0, 3), dtype=np.int64)
        return tri.tri[tri.tau > 0]

    def _run(self, problem, ub):
        dist = np.asarray(problem.distances(), dtype=float)
        self.result = star_bound(dist, problem.k, upper=ub, steps=STAR_STEPS, deadline=self.deadline,
                                 enough=self.enough, integral=self.integral, publish=self._publish,
                                 share_rows=self._share)
        sink = self.sink
        if sink is not None and self.result.values is not None and self.deadline[0] > time.perf_counter():
            sink.offer(self.result.values.copy())  # the ascent stalled: its last values
        self.seconds = time.perf_counter() - self.started
        if self.closed(self.result.value, min(ub, self.result.found)):
            self.prove()

    def join(self, state: Bracket, extra: dict, verbose: bool, start: float) -> Bracket:
        """Stop the ascent and take its bound into ``state`` (once)."""
        if self.joined:
            return state
        self.deadline[0] = -math.inf
        self.thread.join()
        self.joined = True
        if self.result is None:
            return state
        extra["star_bound"] = self.result.value
        extra["star_steps"] = self.result.steps
        if verbose:
            print(f"star bound beside the LP ({self.result.steps} steps, {self.seconds:.2f} s): "
                  f"{self.result.value:.1f} t={time.perf_counter() - start:.2f}s", file=sys.stderr, flush=True)
        state = replace(state, lb=max(state.lb, self.result.value))
        if self.result.found < state.ub:  # a lighter set among the stars' choices
            state = replace(state, ub=self.result.found, indices=self.result.indices)
        if self.proven.is_set() and self.closed(state.lb, state.ub):
            state = replace(state, phase="star")
        return state
