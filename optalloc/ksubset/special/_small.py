"""Exact solvers for small cases: k = 3 by nearest neighbours, and brute force."""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from .._common import as_int, make_result, validate_k, validate_points, validate_positive, weights_of_sets

#: Largest number of subsets :func:`brute` accepts by default.
BRUTE_LIMIT = 5_000_000


def k3(points, k=3):
    """Exact k = 3 in O(n log n) for fixed dimension.

    For three points, W = 2 (x-range + y-range + ...), twice the length of
    their smallest L1 Steiner star, whose centre is their coordinate-wise
    median c; the optimal triple is then three nearest points of c
    (SAND2003 sec. 5.1.2).  Rather than building the order-3 Voronoi
    diagram, whose L1 version is fragile under the shared coordinates and
    ties of meshes, we use a packing consequence of the same fact: let r be
    half the optimal W (the sum over axes of the triple's extents) and a any
    point of an optimal triple.  Cut the cube of L-inf radius r around a
    into (2d + 1)^d cells of side just below r / d (2d + 1 of them cover
    the side 2r); three input points in one cell would have extents summing
    to less than r, a better triple, so each cell holds at most two points,
    and the ball of L1 radius r around a (which holds the whole triple)
    holds at most 2 (2d + 1)^d input points.  Hence the triple lies among
    the m = 2 (2d + 1)^d - 1 nearest neighbours of each of its points,
    whatever the ties, and searching every point with every pair of its m
    nearest neighbours is exact.  (When r = 0 the triple is three copies of
    one point and is found the same way.)

    Parameters
    ----------
    points : array_like, shape (n, d)
        Points, n >= 3; meant for the plane (m = 49), exact in any
        dimension but the neighbour count grows as (2d + 1)^d (685 in 3-D).
    k : int, optional
        Must be 3 (accepted so that the dispatcher can pass it).

    Returns
    -------
    Result
        ``status="optimal"``, ``guarantee=1``.

    Notes
    -----
    O(n log n) for the k-d tree (L1 queries) and O(n m^2) for the pairs,
    m = 2 (2d + 1)^d - 1: 5 on a line, 49 in the plane.  Ties go to the triple found first (smallest first
    point, then neighbours in tree order).

    References
    ----------
    SAND2003-3702 sec. 5.1.2 (Lemma 1); Bender et al. (2005), sec. 1.

    Examples
    --------
    >>> from optalloc.ksubset import k3
    >>> r = k3([[0, 0], [4, 4], [0, 2], [1, 1], [9, 0]])
    >>> r.indices.tolist(), r.objective
    ([0, 2, 3], 6.0)
    """
    start = time.perf_counter()
    pts = validate_points(points)
    n, d = pts.shape
    k = as_int(k, "k")
    if k != 3:
        raise ValueError(f"method 'k3' solves k = 3 only, got k = {k}")
    validate_k(3, n)
    m = min(n - 1, 2 * (2 * d + 1) ** d - 1)
    from scipy.spatial import cKDTree  # a slow import (~70 ms): only when k3 runs

    _, nb = cKDTree(pts).query(pts, k=m + 1, p=1)
    nb = np.asarray(nb).reshape(n, m + 1)
    iu, ju = np.triu_indices(m + 1, k=1)
    best_w, best = np.inf, None
    step = max(1, (1 << 21) // len(iu))
    for lo in range(0, n, step):
        block = nb[lo : lo + step]
        a = np.arange(lo, lo + len(block))
        # triples (a, b, c) with b, c distinct neighbours of a, both != a
        b, c = block[:, iu], block[:, ju]
        ok = (b != a[:, None]) & (c != a[:, None])
        trip = np.stack([np.broadcast_to(a[:, None], b.shape), b, c], axis=-1)[ok]
        if len(trip) == 0:
            continue
        w = weights_of_sets(pts, trip)
        i = int(np.argmin(w))
        if w[i] < best_w:
            best_w, best = float(w[i]), trip[i]
    return make_result(pts, best, method="k3", start=start, guarantee=1.0, termination="optimal",
                       extra={"neighbours": int(m)})


def brute(points, k, *, limit=BRUTE_LIMIT, time_limit=None):
    """Exact optimum by enumerating all C(n, k) subsets.

    Parameters
    ----------
    points : array_like, shape (n, d)
    k : int
    limit : int, optional
        Refuse instances with more than this many subsets (default 5e6).
    time_limit : float, optional
        Seconds; on expiry the best subset seen is returned with status
        ``"time_limit"``.

    Returns
    -------
    Result
        ``status="optimal"`` after a full enumeration.  Ties: the first
        subset in lexicographic order of indices.

    Raises
    ------
    ValueError
        More than ``limit`` subsets.

    Examples
    --------
    >>> from optalloc.ksubset import brute
    >>> brute([[0, 0], [3, 0], [1, 1], [0, 1]], 3).indices.tolist()
    [0, 2, 3]
    """
    start = time.perf_counter()
    pts = validate_points(points)
    n = len(pts)
    k = validate_k(k, n)
    limit = validate_positive(limit, "limit", allow_none=False, integer=True)
    time_limit = validate_positive(time_limit, "time_limit")
    chunk = max(1, (1 << 20) // max(1, k * pts.shape[1]))
    best, done, total, termination = enumerate_subsets(n, k, lambda sets: weights_of_sets(pts, sets), chunk=chunk,
                                                       limit=limit, time_limit=time_limit, start=start)
    msg = f"enumerated {done} of {total} subsets"
    guarantee = 1.0 if termination == "optimal" else None
    return make_result(pts, best, method="brute", start=start, guarantee=guarantee, termination=termination, message=msg,
                       extra={"subsets": done})


def enumerate_subsets(n: int, k: int, weigh, *, chunk: int, limit: int, time_limit, start: float):
    """The least-weight k-subset of ``range(n)`` by enumeration in
    lexicographic order (ties: the first), ``chunk`` subsets at a time;
    ``weigh(sets)`` gives the W of each row of an (m, k) array.

    Returns ``(best, done, total, termination)``: the best rows, the subsets
    enumerated, C(n, k), and ``"optimal"`` or ``"time_limit"`` (when
    ``time_limit`` seconds since ``start`` passed before the end). More than
    ``limit`` subsets is a ValueError, before any work.
    """
    total = math.comb(n, k)
    if total > limit:
        raise ValueError(
            f"brute force over C({n}, {k}) = {total:.3g} subsets exceeds the limit of {limit:.3g}; "
            "use an exact or approximate method instead"
        )
    combos = itertools.combinations(range(n), k)
    best_w, best, done, termination = np.inf, None, 0, "optimal"
    while True:
        block = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, chunk)), dtype=np.intp)
        if block.size == 0:
            break
        sets = block.reshape(-1, k)
        w = weigh(sets)
        i = int(np.argmin(w))
        if w[i] < best_w:
            best_w, best = float(w[i]), sets[i].copy()
        done += len(sets)
        if time_limit is not None and time.perf_counter() - start > time_limit and done < total:
            termination = "time_limit"
            break
    return best, done, total, termination


__all__ = ["k3", "brute", "BRUTE_LIMIT"]
