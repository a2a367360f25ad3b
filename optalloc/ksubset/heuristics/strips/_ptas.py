"""The strip-enumeration PTAS (Bender et al. 2005, sec. 3 and 4.2;
SAND2003-3702 sec. 5.3), in the plane and in d dimensions, enumerated by
compiled loops pruned by the best set found so far (:mod:`._ptasaxis`,
:mod:`._ptastables`, :mod:`._ptassearch`)."""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass

import numpy as np

from ...._progress import check_progress, library_progress
from ..._common import as_int, is_integral, make_result, validate_k, validate_points, validate_positive
from ...special import BRUTE_LIMIT
from ..centres import mm_inc
from ._ptasaxis import axis_tables, axis_vectors, least_weights
from ._ptassearch import count_combos, sample, search

#: Most boundary vectors :func:`ptas` lists on one axis, and without a
#: time limit most combinations of them (one per axis) it accepts.
PTAS_LIMIT = 10**7

#: Seconds the default m may take by the cost model (see :func:`ptas`).
PTAS_BUDGET = 5.0

#: Random paths of the cost model's estimate (:func:`._ptassearch.sample`).
SAMPLES = 256

#: Seconds of work between two looks at the clock (time limit, progress).
_SLICE = 0.25


def ptas_guarantee(m: int, k: int, d: int = 2) -> float | None:
    """1 for m = k; in the plane 1 / (1 - 1/(2(m-2)) - 2/(m-1)) when it
    applies; None otherwise."""
    if m == k:
        return 1.0
    if d != 2 or m <= 2 or k % m:
        return None
    rest = 1 - 1 / (2 * (m - 2)) - 2 / (m - 1)
    return 1 / rest if rest > 0 else None


def _sizes(k: int, m: int) -> np.ndarray:
    """Strip sizes: k/m each, the remainder one by one to the first strips."""
    s = np.full(m, k // m, dtype=np.int64)
    s[: k % m] += 1
    return s


class _OverLimit(Exception):
    """More boundary vectors on one axis than the limit."""


@dataclass
class _Plan:
    """The boundary vectors of every axis for one m, sorted by B, ready
    for :func:`._ptassearch.search` (see there for the arrays)."""

    m: int
    sizes: np.ndarray
    g: np.ndarray
    cells: np.ndarray
    arrays: tuple  # V, Bv, Om, Xv, Zv, off
    combos: int  # combinations whose sum of B is below the incumbent; -1: over the limit
    seconds: float  # to list them


class _Instance:
    """What every m shares: the points, the order of every axis, the
    incumbent ``state`` = [W, how far below it a bound must be to go on,
    tolerance] and its set ``best``, the work counters."""

    def __init__(self, pts: np.ndarray, k: int, incumbent: bool = True):
        self.pts = np.ascontiguousarray(pts, dtype=float)
        self.k = k
        n, d = pts.shape
        self.order = np.empty((d, n), dtype=np.int64)
        for a in range(d):
            others = [pts[:, b] for b in range(d) if b != a]
            self.order[a] = np.lexsort((np.arange(n), *others[::-1], pts[:, a]))  # by x_a, the others, index
        self.coord = np.ascontiguousarray(np.take_along_axis(pts.T, self.order, axis=1))
        self.opt1 = np.array([least_weights(self.coord[a], k) for a in range(d)])
        self.alive = np.ones(n, dtype=np.bool_)
        if incumbent:
            inc = mm_inc(pts, k)
            tol = 1e-9 * max(1.0, abs(inc.objective))
            # integer coordinates: W is an integer, and a bound above W - 1 rules a set out
            self.state = np.array([inc.objective, 1 - tol if is_integral(pts) else tol, tol])
            self.best = np.sort(inc.indices).astype(np.int64)
        else:
            self.state = np.array([np.inf, 0.0, 0.0])
            self.best = np.arange(k, dtype=np.int64)
        self.counts = np.zeros(8, dtype=np.int64)

    def plan(self, m: int, limit: int, deadline: float | None) -> _Plan | None:
        """The boundary vectors for m; None when ``deadline`` passes first."""
        t0 = time.perf_counter()
        pts, k = self.pts, self.k
        n, d = pts.shape
        sizes = _sizes(k, m)
        before = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        g = (before - (k - before - sizes)).astype(float)  # points before the slice minus points after it
        tables = [axis_tables(self.coord[a], sizes, k) for a in range(d)]
        least = np.array([t[2][0, 0] for t in tables])
        step = max(1, n // 64)
        lists = []
        for a in range(d):
            parts = []
            for lo in range(0, n if m > 1 else 1, step):
                if deadline is not None and time.perf_counter() > deadline:
                    return None
                bound = self.state[0] - self.state[1]
                *part, complete = axis_vectors(self.coord[a], tables[a], sizes, k, g, pts, self.order, self.coord, a,
                                               self.alive, least, self.opt1, bound, limit + 1, lo, lo + step)
                parts.append(part)
                if not complete or sum(len(p[1]) for p in parts) > limit:
                    raise _OverLimit(a)
            V, B, om, X, Z = (np.concatenate([p[i] for p in parts]) for i in range(5))
            keep = np.argsort(B, kind="stable")
            lists.append((V[keep], B[keep], om[keep], X[keep], Z[keep]))
        sizes_of = [len(t[1]) for t in lists]
        off = np.concatenate(([0], np.cumsum(sizes_of))).astype(np.int64)
        V = np.concatenate([t[0] for t in lists]).reshape(int(off[-1]), max(m - 1, 0))
        if m == 1:
            V = np.zeros((int(off[-1]), 1), dtype=np.int64)
        arrays = (np.ascontiguousarray(V),) + tuple(np.ascontiguousarray(np.concatenate([t[i] for t in lists]))
                                                    for i in (1, 2, 3, 4)) + (off,)
        combos = 0
        if min(sizes_of) > 0:
            combos = int(count_combos(arrays[1], off, d, self.state[0] - self.state[1], limit))
        cells = np.array(list(itertools.product(range(m), repeat=d)), dtype=np.int64).reshape(-1, d)
        return _Plan(m, sizes, g, cells, arrays, combos, time.perf_counter() - t0)

    def _args(self, plan: _Plan) -> tuple:
        V, Bv, Om, Xv, Zv, off = plan.arrays
        return (self.pts, self.order, V, Bv, Om, Xv, Zv, off, plan.sizes, plan.g, plan.cells, self.opt1,
                self.state, self.best)

    def predict(self, plan: _Plan) -> float:
        """Seconds the search of ``plan`` should take: Knuth's estimate of
        its work in units, at the seconds per unit that the estimate's own
        sample took."""
        if plan.combos == 0:
            return plan.seconds
        t0 = time.perf_counter()
        units, done = sample(*self._args(plan), SAMPLES, 0, self.counts)
        spent = time.perf_counter() - t0
        return plan.seconds + spent + units * spent / max(done, 1.0)

    def run(self, plan: _Plan, stop: float | None, report, prune: bool = True) -> bool:
        """Search ``plan`` to the end (True), or until ``stop`` (False);
        every structure without ``prune``."""
        if plan.combos == 0:  # every combination is ruled out by its bounds
            return True
        pos = np.zeros(self.pts.shape[1], dtype=np.int64)
        units = 1 << 16
        args = self._args(plan)
        total = plan.combos if plan.combos >= 0 else None
        while True:
            t0 = time.perf_counter()
            done = search(*args, pos, units, self.counts, prune)
            if report is not None:
                report(int(self.counts[0]), total)
            if done:
                return True
            if stop is not None and time.perf_counter() > stop:
                return False
            spent = max(time.perf_counter() - t0, 1e-4)
            units = int(min(max(units * _SLICE / spent, 1 << 12), 1 << 40))


def _enumerate(points, k: int, m: int, *, prune: bool = True):
    """``(W, indices)``: the lightest set of the structures for m, with no
    incumbent to start from; every structure and table is scored when
    ``prune`` is False (the reference the pruned search must match)."""
    inst = _Instance(validate_points(points), k, incumbent=False)
    plan = inst.plan(m, PTAS_LIMIT, None)
    inst.run(plan, None, None, prune)
    return float(inst.state[0]), inst.best


_warm: list = []


def _warm_up() -> None:
    """Compile (or load from the cache) every kernel once, on a tiny
    instance, so that the cost model does not time the compiler."""
    if not _warm:
        inst = _Instance(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [3.0, 1.0], [2.0, 2.0]]), 3)
        inst.state[0] = np.inf  # nothing ruled out: every kernel runs
        plan = inst.plan(2, PTAS_LIMIT, None)
        inst.predict(plan)
        inst.run(plan, None, None)
        _warm.append(True)


def _choose_m(inst: _Instance, budget: float, limit: int):
    """``(plan, predicted seconds)`` of the default m: the largest m whose
    listing plus predicted search fits ``budget`` (the largest fitting one
    with a guarantee when the largest has none); ``(None, predicted)`` when
    not even m = 1 fits."""
    d = inst.pts.shape[1]
    fits, over = [], math.inf
    deadline = time.perf_counter() + budget  # for the whole scan
    for m in range(1, inst.k + 1):
        try:
            plan = inst.plan(m, limit, deadline if fits else None)
        except _OverLimit:
            break
        seconds = inst.predict(plan) if plan is not None else math.inf
        if seconds > budget:
            over = seconds
            break
        fits.append((plan, seconds))
        if len(fits) > 1 and fits[-2][0].seconds > _SLICE / 10:
            # the listing for m + 1, by the growth from m - 1 to m: stop when it cannot fit either
            growth = plan.seconds / fits[-2][0].seconds
            if plan.seconds * growth > deadline - time.perf_counter():
                break
    if not fits:
        return None, over
    proven = [f for f in fits if ptas_guarantee(f[0].m, inst.k, d) is not None]
    if proven and ptas_guarantee(fits[-1][0].m, inst.k, d) is None:
        return proven[-1]
    return fits[-1]


def ptas(points, k, *, m=None, time_limit=None, limit=PTAS_LIMIT, budget=PTAS_BUDGET, progress=None):
    """Strip-enumeration PTAS, in the plane and in d dimensions.

    Guess the structure of an optimal set S: on every axis, m - 1 of its
    points (the pins) that cut it, in the order of that axis, into m
    slices of k/m points, each pin the first of its slice; and the number
    of its points in each cell (one slice per axis: an m x ... x m table
    whose slices along every axis sum to k/m).  For each guess, take in
    each cell its pins and then its points least in the direction whose
    coordinate on axis a is (points of S before the cell's slice) -
    (points after it): this makes the distances between points of
    different slices least (SAND2003-3702 Lemma 5), and the distances
    inside slices are a small share of the total (Lemmas 7, 8).  Keep the
    best set over all guesses.  The enumeration is compiled and pruned:
    a partial guess is dropped when a lower bound on every set it can
    give reaches the best set found so far (MM+Inc's set at the start),
    so the result has the W of the full enumeration.

    Ties and shared coordinates are handled by symbolic perturbation: the
    slices of axis a are ranges of the order by (x_a, the other
    coordinates, index), so a column of a mesh may be split between two
    slices, as SAND2003 sec. 5.3 allows.  Cells are then a partition and no
    point is chosen twice.

    Parameters
    ----------
    points : array_like, shape (n, d)
    k : int
    m : int, optional
        Slices per axis, 1 <= m <= k.  With m = k the result is exact in
        any dimension.  Default: from ``budget``, by a cost model.
    time_limit : float, optional
        Seconds; on expiry the best set so far is returned with status
        ``"time_limit"``.
    limit : int, optional
        The most boundary vectors listed on one axis (those that pass the
        bounds; more is a ValueError, time limit or not) and, without a
        time limit, the most combinations of them (default 1e7).
    budget : float, optional
        Seconds, for the default m (default 5): for m = 1, 2, ... the
        PTAS lists the boundary vectors and estimates the time of their
        search (Knuth's estimate of its work from random paths, at the
        seconds per unit those paths took), and keeps the largest m whose
        total fits, or the largest fitting one with a guarantee when the
        largest has none.  The scan over m stops once its own time
        reaches the budget, or when the listing for the next m, by the
        growth of the last two, would not fit the time left; choosing
        takes up to about the budget again.  With a time limit below the
        budget, the limit stands for the budget.
        When even m = 1 does not fit: a ValueError without a time limit,
        m = 1 with one.
    progress : bool or callable, optional
        None or False (default): silent; True: progress on standard error
        (structures examined); a callable is called as ``progress(done,
        total)``.

    Returns
    -------
    Result
        ``guarantee`` is 1 when m = k; in the plane ``1 / (1 - 1/(2(m-2))
        - 2/(m-1))`` when k is a multiple of m and the factor is positive
        (m >= 4); None otherwise (Bender et al. prove a (1 + eps) factor
        for fixed d > 2 without stating it).  ``extra``: ``m``;
        ``combinations`` (of boundary vectors examined), ``structures``
        (those past the bounds on their pins), ``tables`` (complete cell
        tables scored); ``structures_max`` (combinations whose bounds were
        below MM+Inc's W, counted before the search); ``predicted_seconds``
        (the cost model's, for the default m).  ``message`` says when brute
        force over the C(n, k) sets is cheaper (the PTAS is run all the
        same).

    Raises
    ------
    ValueError
        Bad arguments; an instance over ``limit`` (see there); with the
        default m and no time limit, a predicted time over ``budget`` even
        for m = 1.

    Notes
    -----
    Exponential in m and d: O(n^(m-1)) boundary vectors per axis, their
    combinations over the d axes, up to O(k^(m^d)) tables each.  The
    bounds (1-D DPs per axis and across two axes, the pins of every axis,
    a min-cost flow over the cells in the plane) cut most of it: see
    docs/methods/ptas.md.

    References
    ----------
    M. A. Bender et al. (2005), sec. 3 (Theorem 2) and sec. 4.2 (Theorem 4);
    SAND2003-3702 sec. 5.3.

    Examples
    --------
    >>> from optalloc.ksubset import ptas, brute
    >>> pts = [[0, 0], [1, 0], [0, 1], [3, 3], [4, 3], [2, 1], [5, 0]]
    >>> r = ptas(pts, 3, m=3)
    >>> r.objective == brute(pts, 3).objective, r.guarantee
    (True, 1.0)
    >>> cube = [[0, 0, 0], [1, 0, 0], [0, 1, 1], [2, 2, 2], [1, 1, 0]]
    >>> ptas(cube, 3, m=3).objective == brute(cube, 3).objective
    True
    """
    start = time.perf_counter()
    pts = validate_points(points)
    n, d = pts.shape
    k = validate_k(k, n)
    time_limit = validate_positive(time_limit, "time_limit")
    limit = validate_positive(limit, "limit", allow_none=False, integer=True)
    check_progress(progress)
    if m is None:
        budget = validate_positive(budget, "budget", allow_none=False)
        _warm_up()
    else:
        m = as_int(m, "m")
        if not 1 <= m <= k:
            raise ValueError(f"`m` must be between 1 and k ({k}), got {m}")
    stop = None if time_limit is None else start + time_limit
    inst = _Instance(pts, k)
    predicted = None
    try:
        if m is None:
            plan, predicted = _choose_m(inst, budget if time_limit is None else min(budget, time_limit), limit)
            if plan is None:
                if time_limit is None:
                    raise ValueError(
                        f"the PTAS would take about {predicted:.3g} s even with m = 1 (n = {n}, k = {k}, d = {d}), "
                        f"more than the budget of {budget:g} s; pass a time_limit or a larger budget, or use "
                        f"method 'exact'")
                plan = inst.plan(1, limit, stop)
            m = 1 if plan is None else plan.m
        else:
            plan = inst.plan(m, limit, stop)
    except _OverLimit as over:
        raise ValueError(
            f"the PTAS would list more than {limit:.3g} boundary vectors on axis {over.args[0]} (n = {n}, "
            f"m = {m}); pass a smaller m or use method 'exact'") from None
    if plan is not None and plan.combos < 0 and time_limit is None:
        raise ValueError(
            f"the PTAS would enumerate more than {limit:.3g} combinations of boundary vectors (n = {n}, m = {m}, "
            f"d = {d}); pass a smaller m, a time_limit, or use method 'exact'")
    finished = False
    inst.counts[:] = 0  # the search of the m used, not the estimates
    if plan is not None:
        report, scope = library_progress(progress, label="ptas", unit="structures")
        with scope:
            if report is not None and hasattr(report, "track"):
                report = report.track
            finished = inst.run(plan, stop, report)
    if finished:
        termination, g = ("optimal" if m == k else "completed"), ptas_guarantee(m, k, d)
    else:
        termination, g = "time_limit", None
    combos = None if plan is None or plan.combos < 0 else plan.combos
    sets = math.comb(n, k)
    note = ""
    if combos is not None and m < k and sets <= min(combos, BRUTE_LIMIT):
        note = (f"brute force over C({n}, {k}) = {sets} sets is cheaper than the PTAS at m = {m} "
                f"({combos} combinations of boundaries): method 'brute'")
    counts = inst.counts
    extra = {"m": m, "combinations": int(counts[0]), "structures": int(counts[2]), "tables": int(counts[6]),
             "structures_max": combos, "predicted_seconds": predicted}
    return make_result(pts, inst.best, method="ptas", start=start, guarantee=g, termination=termination,
                       message=note, extra=extra)


__all__ = ["ptas", "ptas_guarantee"]
