"""The strip-enumeration PTAS (Bender et al. 2005, sec. 3 and 4.2;
SAND2003-3702 sec. 5.3), in the plane and in d dimensions."""

from __future__ import annotations

import functools
import itertools
import math
import time

import numpy as np

from .._common import as_int, make_result, validate_k, validate_points, validate_positive, weights_of_sets
from ..special._small import BRUTE_LIMIT
from ._median import mm_inc


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
    s = np.full(m, k // m)
    s[: k % m] += 1
    return s


def _cuts(n: int, sizes: np.ndarray):
    """All b_0 < ... < b_m in 0..n with b_{i+1} - b_i >= sizes[i]."""
    m = len(sizes)
    tail = np.concatenate((np.cumsum(sizes[::-1])[::-1], [0]))  # tail[i] = sizes[i:].sum()

    def rec(i, b):  # b_i = b is fixed; choose b_{i+1}, ...
        if i == m:
            yield (b,)
            return
        for e in range(b + int(sizes[i]), n - int(tail[i + 1]) + 1):
            for rest in rec(i + 1, e):
                yield (b, *rest)

    for b0 in range(n - int(tail[0]) + 1):
        yield from rec(0, b0)


def _gap_bound(coord_sorted: np.ndarray, cuts, sizes) -> float:
    """Sum over strip pairs i < j of s_i s_j (min of strip j - max of strip i)."""
    lo = np.array([coord_sorted[cuts[i]] for i in range(len(sizes))])
    hi = np.array([coord_sorted[cuts[i + 1] - 1] for i in range(len(sizes))])
    total = 0.0
    for i in range(len(sizes)):
        gaps = np.maximum(lo[i + 1 :] - hi[i], 0.0)
        total += float(sizes[i] * (sizes[i + 1 :] * gaps).sum())
    return total


@functools.lru_cache(maxsize=16)
def _layout(m: int, d: int):
    """Cells of an m x ... x m table in C order, and for each cell the axes
    whose slice through it ends there."""
    cells = list(itertools.product(range(m), repeat=d))
    last = {(a, idx[a]): c for c, idx in enumerate(cells) for a in range(d)}
    closes = [tuple(a for a in range(d) if last[a, idx[a]] == c) for c, idx in enumerate(cells)]
    return cells, closes


def _tables(sizes: np.ndarray, cap: np.ndarray):
    """Non-negative integer tables of shape ``cap.shape`` (m per axis) whose
    slices along every axis sum to ``sizes``, entry-wise at most ``cap``.

    Cells are filled in C order, largest value first, never below what the
    rest of each slice can still hold; the last cell of a slice takes what
    the slice still needs.  The same array is yielded each time (copy it to
    keep it)."""
    d, m = cap.ndim, len(sizes)
    if m == 0:
        return
    cells, closes = _layout(m, d)
    caps = [int(c) for c in cap.ravel()]
    table = np.zeros(cap.shape, dtype=np.int64)
    flat = table.reshape(-1)
    left = [[int(v) for v in sizes] for _ in range(d)]  # left[a][s]: still needed in slice s of axis a
    room = [[0] * m for _ in range(d)]  # room[a][s]: capacity of the slice's cells not yet filled
    for c, idx in enumerate(cells):
        for a in range(d):
            room[a][idx[a]] += caps[c]
    if any(left[a][s] > room[a][s] for a in range(d) for s in range(m)):
        return
    axes = range(d)

    def rec(c):
        if c == len(cells):
            yield table
            return
        idx = cells[c]
        for a in axes:
            room[a][idx[a]] -= caps[c]
        hi = min(caps[c], *(left[a][idx[a]] for a in axes))
        lo = max(0, *(left[a][idx[a]] - room[a][idx[a]] for a in axes))
        if closes[c]:  # the slices ending here all need the same amount
            need = {left[a][idx[a]] for a in closes[c]}
            lo = max(lo, *need)
            hi = min(hi, *need)
        for v in range(hi, lo - 1, -1):
            flat[c] = v
            for a in axes:
                left[a][idx[a]] -= v
            yield from rec(c + 1)
            for a in axes:
                left[a][idx[a]] += v
        flat[c] = 0
        for a in axes:
            room[a][idx[a]] += caps[c]

    yield from rec(0)


#: Largest number of boundary-vector combinations (one vector per axis)
#: :func:`ptas` accepts without a time limit.
PTAS_LIMIT = 10**7

#: Most structures (boundary vectors on every axis times cell tables, as
#: :func:`_structures` counts them) the default m may enumerate: a few
#: seconds, at most some tens of seconds.
PTAS_BUDGET = 5 * 10**5


def _count_cuts(n: int, sizes: np.ndarray) -> int:
    """Number of boundary vectors of :func:`_cuts` (a stars-and-bars count)."""
    m = len(sizes)
    slack = n - int(sizes.sum())
    return math.comb(slack + m + 1, m + 1) if slack >= 0 else 0


def _structures(n: int, k: int, m: int, d: int) -> int:
    """How many structures the PTAS may enumerate with m slices per axis:
    the combinations of boundary vectors (one per axis) times the cell
    tables each may take, bounded by filling every slice of axis 0 but the
    last (its m^(d-1) cells sum to the slice size) in every way."""
    sizes = _sizes(k, m)
    cells = m ** (d - 1)
    tables = math.prod(math.comb(int(s) + cells - 1, cells - 1) for s in sizes[:-1])
    return _count_cuts(n, sizes) ** d * tables


def _default_m(n: int, k: int, d: int, budget: int):
    """``(m, count)`` for the default m: the largest m whose structures fit
    ``budget``, or the largest fitting one that has a guarantee when there is
    one; None when even m = 1 is over the budget."""
    fits = []
    for m in range(1, k + 1):
        count = _structures(n, k, m, d)
        if count > budget:  # the counts grow with m
            break
        fits.append((m, count))
    proven = [(m, c) for m, c in fits if ptas_guarantee(m, k, d) is not None]
    if proven and ptas_guarantee(fits[-1][0], k, d) is None:
        return proven[-1]
    return fits[-1] if fits else None


def _sci(x: int) -> str:
    """A count in three significant digits, however large."""
    return f"{x:.3g}" if x < 10**300 else f"about 1e{len(str(x)) - 1}"


def _cheaper_brute(n: int, k: int, count: int) -> int | None:
    """C(n, k) when brute force over the C(n, k) sets is cheaper than ``count`` structures, else None."""
    sets = math.comb(n, k)
    return sets if sets <= min(count, BRUTE_LIMIT) else None


def ptas(points, k, *, m=None, time_limit=None, limit=PTAS_LIMIT, budget=PTAS_BUDGET):
    """Strip-enumeration PTAS, in the plane and in d dimensions.

    Guess the structure of an optimal set S: on every axis, m + 1
    boundaries that cut it into m slices of k/m points each, and the number
    of its points in each cell (the intersection of one slice per axis: an
    m x ... x m table whose slices along every axis sum to k/m).  For each
    guess, take from each cell its points minimal in the direction whose
    coordinate on axis a is (points of S before the cell's slice) - (points
    after it): this minimises the distances to the points of the other
    slices (SAND2003-3702 Lemma 5), and the distances inside slices are a
    small share of the total (Lemmas 7, 8).  Keep the best set over all
    guesses.

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
        Slices per axis, 1 <= m <= k.  With m = k the enumeration is
        exhaustive and the result exact in any dimension.  Default: from
        ``budget``, counted before starting.
    time_limit : float, optional
        Seconds; on expiry the best set so far is returned with status
        ``"time_limit"``.
    limit : int, optional
        Without a time limit, refuse instances with more than this many
        combinations of boundary vectors (one per axis; default 1e7), which
        would not finish; with one, refuse those with more boundary vectors
        on one axis, which could not even be listed.
    budget : int, optional
        For the default m: the most structures (boundary vectors on every
        axis times cell tables, an upper bound counted before starting) it
        may enumerate (default 5e5, a few seconds).  The default m is the
        largest whose count fits, or the largest fitting one with a
        guarantee when the largest has none.  When even m = 1 is over the
        budget: a ValueError without a time limit, m = 1 with one.

    Returns
    -------
    Result
        ``guarantee`` is 1 when m = k; in the plane ``1 / (1 - 1/(2(m-2))
        - 2/(m-1))`` when k is a multiple of m and the factor is positive
        (m >= 4); None otherwise (Bender et al. prove a (1 + eps) factor
        for fixed d > 2 without stating it): the guarantee of the m used,
        ``extra["m"]``.  ``extra["structures"]`` counts the cell tables
        evaluated, ``extra["structures_max"]`` the structures counted
        before starting.  ``message`` says when brute force over the
        C(n, k) sets is cheaper (the PTAS is run all the same).

    Raises
    ------
    ValueError
        Bad arguments; an enumeration over ``limit`` (see there); with the
        default m and no time limit, more structures than ``budget`` even
        for m = 1 (the message gives the count).

    Notes
    -----
    Running time.  With n points there are O(n^(m+1)) boundary vectors per
    axis, O(n^(d(m+1))) combinations, and for each up to O(k^(m^d)) cell
    tables: exponential in m and d.  Combinations whose inter-slice
    distance alone (s_i s_j times the gap between slices i and j, summed
    over the axes) reaches the incumbent (MM+Inc first) are pruned, which
    removes most of them, but the method remains practical only for small
    n (a few dozen points) and m <= 4 (m <= 2 in space); it exists to check
    the theory and as ground truth, not as an allocator.

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
    if m is None:
        budget = as_int(budget, "budget")
        if budget < 1:
            raise ValueError(f"`budget` must be at least 1, got {budget}")
        chosen = _default_m(n, k, d, budget)
        if chosen is None and time_limit is None:
            count = _structures(n, k, 1, d)
            sets = _cheaper_brute(n, k, count)
            alt = f"use method 'brute' (C({n}, {k}) = {sets} sets, cheaper)" if sets else "use method 'exact'"
            raise ValueError(
                f"the PTAS would enumerate up to {_sci(count)} structures even with m = 1 (n = {n}, k = {k}, d = {d}), "
                f"more than the budget of {budget:.3g}; pass a time_limit or a larger budget, or {alt}"
            )
        m = chosen[0] if chosen is not None else 1
    else:
        m = as_int(m, "m")
    if not 1 <= m <= k:
        raise ValueError(f"`m` must be between 1 and k ({k}), got {m}")
    count = _structures(n, k, m, d)
    sets = _cheaper_brute(n, k, count)
    note = "" if sets is None else (f"brute force over C({n}, {k}) = {sets} sets is cheaper than the PTAS at m = {m} "
                                    f"(up to {count} structures): method 'brute'")
    sizes = _sizes(k, m)
    per_axis = _count_cuts(n, sizes)
    if per_axis > limit:  # the sorted lists of boundary vectors alone would not fit, time limit or not
        raise ValueError(
            f"the PTAS would list {per_axis:.3g} boundary vectors per axis (n = {n}, m = {m}), more than the "
            f"limit of {limit:.3g}; pass a smaller m or use method 'exact'"
        )
    combos = per_axis**d
    if time_limit is None and combos > limit:
        raise ValueError(
            f"the PTAS would enumerate {combos:.3g} combinations of slice boundaries (n = {n}, m = {m}, "
            f"d = {d}), more than the limit of {limit:.3g}; pass a smaller m, a time_limit, or use method 'exact'"
        )
    before = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    grad = before - (k - before - sizes)  # points before the slice minus points after it

    inc = mm_inc(pts, k)
    best_w, best = inc.objective, inc.indices
    evaluated = 0
    timed_out = False

    def out_of_time():
        return time_limit is not None and time.perf_counter() - start > time_limit

    ranks, boundaries = [], []
    for a in range(d):
        others = [pts[:, b] for b in range(d) if b != a]
        order = np.lexsort((np.arange(n), *others[::-1], pts[:, a]))  # by x_a, the others, index
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        ranks.append(rank)
        coord = pts[order, a]
        listed = []
        for i, c in enumerate(_cuts(n, sizes)):
            if i % 4096 == 4095 and out_of_time():
                timed_out = True
                break
            listed.append((_gap_bound(coord, c, sizes), c))
        if timed_out:
            break
        boundaries.append(sorted(listed, key=lambda t: t[0]))
    shape = (m,) * d
    cells, _ = _layout(m, d)
    slice_of = np.zeros((d, n), dtype=np.int64)
    inside = np.ones((d + 1, n), dtype=bool)

    def evaluate():
        nonlocal best_w, best, evaluated
        cell = np.ravel_multi_index(tuple(slice_of), shape, mode="clip")  # outside: masked next
        cell = np.where(inside[d], cell, -1)
        cap = np.bincount(cell[inside[d]], minlength=m**d).reshape(shape)
        tables = _tables(sizes, cap)
        first = next(tables, None)
        if first is None:  # the cells cannot hold the slice sizes
            return
        ordered = []  # candidates of each cell in the order of its direction, ties by index
        for c, idx in enumerate(cells):  # the C order of _tables
            members = np.flatnonzero(cell == c)
            key = sum(grad[idx[a]] * pts[members, a] for a in range(d))
            ordered.append(members[np.lexsort((members, key))])
        for table in itertools.chain([first], tables):
            if evaluated % 64 == 63 and out_of_time():
                return
            evaluated += 1
            chosen = np.concatenate([ordered[c][:v] for c, v in enumerate(table.ravel())])
            w = float(weights_of_sets(pts, chosen[None])[0])
            if w < best_w:
                best_w, best = w, np.sort(chosen)

    def rec(a, lb):  # choose the boundaries of axis a, the inter-slice distance so far is lb
        nonlocal timed_out
        if a == d:
            evaluate()
            return
        for bound, cuts in boundaries[a]:
            if lb + bound + rest[a] >= best_w:  # the rest of the list is no better
                break
            if out_of_time():
                timed_out = True
                return
            slice_of[a] = np.searchsorted(np.asarray(cuts), ranks[a], side="right") - 1
            inside[a + 1] = inside[a] & (ranks[a] >= cuts[0]) & (ranks[a] < cuts[-1])
            if np.count_nonzero(inside[a + 1]) < k:  # fewer than k points in every slab
                continue
            rec(a + 1, lb + bound)
            if timed_out:
                return

    if not timed_out:
        # the least inter-slice distance the axes after a can add
        rest = np.concatenate((np.cumsum([b[0][0] for b in boundaries][::-1])[::-1], [0.0]))[1:]
        rec(0, 0.0)
    if timed_out:
        termination, g = "time_limit", None
    else:
        termination, g = ("optimal" if m == k else "completed"), ptas_guarantee(m, k, d)
    return make_result(pts, best, method="ptas", start=start, guarantee=g, termination=termination, message=note,
                       extra={"m": m, "structures": evaluated, "structures_max": count})


__all__ = ["ptas", "ptas_guarantee"]
