"""The strip-enumeration PTAS for the plane (Bender et al. 2005, sec. 3;
SAND2003-3702 sec. 5.3)."""

from __future__ import annotations

import math
import time

import numpy as np

from ._common import as_int, make_result, validate_k, validate_points, validate_positive, weights_of_sets
from ._median import mm_inc


def ptas_guarantee(m: int, k: int) -> float | None:
    """1 / (1 - 1/(2(m-2)) - 2/(m-1)) when it applies, 1 for m = k."""
    if m == k:
        return 1.0
    if m <= 2 or k % m:
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


def _tables(rows, cols, cap):
    """Non-negative integer m x m tables with the given margins and caps."""
    m = len(rows)
    table = np.zeros((m, m), dtype=np.int64)
    row_left, col_left = rows.copy(), cols.copy()

    def rec(c):
        if c == m * m:
            yield table
            return
        i, j = divmod(c, m)
        if j == m - 1:  # the last cell of a row takes what the row still needs
            choices = [row_left[i]] if row_left[i] <= min(col_left[j], cap[i, j]) else []
        else:
            choices = range(min(row_left[i], col_left[j], cap[i, j]), -1, -1)
        for v in choices:
            if i == m - 1 and v != col_left[j]:
                continue
            table[i, j] = v
            row_left[i] -= v
            col_left[j] -= v
            yield from rec(c + 1)
            row_left[i] += v
            col_left[j] += v
        table[i, j] = 0

    yield from rec(0)


#: Largest number of boundary-vector pairs :func:`ptas` accepts without a time limit.
PTAS_LIMIT = 10**7


def _count_cuts(n: int, sizes: np.ndarray) -> int:
    """Number of boundary vectors of :func:`_cuts` (a stars-and-bars count)."""
    m = len(sizes)
    slack = n - int(sizes.sum())
    return math.comb(slack + m + 1, m + 1) if slack >= 0 else 0


def ptas(points, k, *, m=None, time_limit=None, limit=PTAS_LIMIT):
    """Strip-enumeration PTAS for the plane.

    Guess the structure of an optimal set: m + 1 x-boundaries that cut it
    into m vertical strips of k/m points each, m + 1 y-boundaries likewise,
    and the number k_ij of its points in each cell (strip i x strip j).
    For each guess, take from each cell the k_ij points minimal in the
    direction ``((2i + 1 - m) k/m, (2j + 1 - m) k/m)``: this minimises the
    distances to the points of the other strips (Lemma 5), and the distances
    inside strips are a small share of the total (Lemmas 7, 8).  Keep the
    best set over all guesses.

    Ties and shared coordinates are handled by symbolic perturbation: strips
    are ranges of the order by (x, y, index) (and (y, x, index)), so a column
    of a mesh may be split between two strips, as SAND2003 sec. 5.3 allows.
    Cells are then a partition and no point is chosen twice.

    Parameters
    ----------
    points : array_like, shape (n, 2)
    k : int
    m : int, optional
        Number of strips per axis, 1 <= m <= k (default min(k, 4)).  With
        m = k the enumeration is exhaustive and the result exact.
    time_limit : float, optional
        Seconds; on expiry the best set so far is returned with status
        ``"time_limit"``.
    limit : int, optional
        Without a time limit, refuse instances with more than this many
        pairs of boundary vectors (default 1e7), which would not finish.

    Returns
    -------
    Result
        ``guarantee`` is ``1 / (1 - 1/(2(m-2)) - 2/(m-1))`` when k is a
        multiple of m and the factor is positive (m >= 4), 1 when m = k,
        None otherwise.  ``extra["structures"]`` counts the cell tables
        evaluated.

    Notes
    -----
    Running time.  With n points there are O(n^(m+1)) boundary vectors per
    axis and, for each pair, up to O(k^(m^2)) cell tables: exponential in m.
    Pairs whose inter-strip distance alone (s_i s_j times the gap between
    strips i and j, summed over both axes) reaches the incumbent (MM+Inc
    first) are pruned, which removes most of them, but the method remains
    practical only for small n (a few dozen points) and m <= 4; it exists to
    check the theory and as ground truth, not as an allocator.

    References
    ----------
    M. A. Bender et al. (2005), sec. 3 (Theorem 2); SAND2003-3702 sec. 5.3.

    Examples
    --------
    >>> from optalloc.ksubset import ptas, brute
    >>> pts = [[0, 0], [1, 0], [0, 1], [3, 3], [4, 3], [2, 1], [5, 0]]
    >>> r = ptas(pts, 3, m=3)
    >>> r.objective == brute(pts, 3).objective, r.guarantee
    (True, 1.0)
    """
    start = time.perf_counter()
    pts = validate_points(points)
    n, d = pts.shape
    if d != 2:
        raise ValueError(f"method 'ptas' is for points in the plane, got {d} coordinates")
    k = validate_k(k, n)
    m = min(k, 4) if m is None else as_int(m, "m")
    if not 1 <= m <= k:
        raise ValueError(f"`m` must be between 1 and k ({k}), got {m}")
    time_limit = validate_positive(time_limit, "time_limit")
    sizes = _sizes(k, m)
    pairs = _count_cuts(n, sizes) ** 2
    if time_limit is None and pairs > limit:
        raise ValueError(
            f"the PTAS would enumerate {pairs:.3g} pairs of strip boundaries (n = {n}, m = {m}), more than "
            f"the limit of {limit:.3g}; pass a smaller m, a time_limit, or use method 'exact'"
        )
    left = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    grad = left - (k - left - sizes)  # points left of the strip minus points right of it

    xo = np.lexsort((np.arange(n), pts[:, 1], pts[:, 0]))  # by x, then y, then index
    yo = np.lexsort((np.arange(n), pts[:, 0], pts[:, 1]))
    xrank = np.empty(n, dtype=np.int64)
    xrank[xo] = np.arange(n)
    yrank = np.empty(n, dtype=np.int64)
    yrank[yo] = np.arange(n)
    xs, ys = pts[xo, 0], pts[yo, 1]

    inc = mm_inc(pts, k)
    best_w, best = inc.objective, inc.indices
    ycuts = sorted(((_gap_bound(ys, c, sizes), c) for c in _cuts(n, sizes)), key=lambda t: t[0])
    evaluated = 0
    timed_out = False
    for bx in _cuts(n, sizes):
        lbx = _gap_bound(xs, bx, sizes)
        if lbx + ycuts[0][0] >= best_w:
            continue
        xstrip = np.searchsorted(np.asarray(bx), xrank, side="right") - 1
        xin = (xrank >= bx[0]) & (xrank < bx[-1])
        for lby, by in ycuts:
            if lbx + lby >= best_w:  # the rest of ycuts is no better
                break
            if time_limit is not None and time.perf_counter() - start > time_limit:
                timed_out = True
                break
            ystrip = np.searchsorted(np.asarray(by), yrank, side="right") - 1
            inside = xin & (yrank >= by[0]) & (yrank < by[-1])
            cell = np.where(inside, xstrip * m + ystrip, -1)
            cap = np.bincount(cell[inside], minlength=m * m).reshape(m, m)
            members = [np.flatnonzero(cell == c) for c in range(m * m)]
            # candidates of each cell in the order of its direction, ties by index
            ordered = []
            for c, idx in enumerate(members):
                i, j = divmod(c, m)
                key = grad[i] * pts[idx, 0] + grad[j] * pts[idx, 1]
                ordered.append(idx[np.lexsort((idx, key))])
            for table in _tables(sizes.copy(), sizes.copy(), cap):
                evaluated += 1
                chosen = np.concatenate([ordered[c][: table.flat[c]] for c in range(m * m)])
                w = float(weights_of_sets(pts, chosen[None])[0])
                if w < best_w:
                    best_w, best = w, np.sort(chosen)
        if timed_out:
            break
    if timed_out:
        status, g = "time_limit", None
    else:
        status, g = ("optimal" if m == k else "feasible"), ptas_guarantee(m, k)
    return make_result(pts, best, method="ptas", start=start, guarantee=g, status=status,
                       extra={"m": m, "structures": evaluated})


__all__ = ["ptas", "ptas_guarantee"]
