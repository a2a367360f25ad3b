"""Ground truth for the k-subset tests, written without the library.

W(S) is the sum of pairwise L1 distances over unordered pairs.  Everything
here is computed the slow, obvious way (double loops, enumeration of all
subsets with ``itertools.combinations``), so that the tests compare the
library against an independent reference and never against its own output.

The module has a distinctive name because ``tests/ksubset`` has no
``__init__.py``: with pytest's default import mode it is imported as a
top-level module.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

#: Relative and absolute tolerance for comparing objective values computed
#: along different summation orders.
RTOL = 1e-9
ATOL = 1e-9


def close(a: float, b: float) -> bool:
    """``a == b`` up to floating-point summation error."""
    return math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)


def at_most(a: float, b: float) -> bool:
    """``a <= b`` up to floating-point summation error."""
    return a <= b + RTOL * max(1.0, abs(b)) + ATOL


def as_rows(points) -> np.ndarray:
    """Points as a float (n, d) array; a 1-D array is n points on a line."""
    pts = np.asarray(points, dtype=float)
    return pts[:, None] if pts.ndim == 1 else pts


def l1(p, q) -> float:
    """L1 distance of two points, by an explicit loop over the coordinates."""
    return float(sum(abs(float(a) - float(b)) for a, b in zip(p, q)))


def naive_weight(points) -> float:
    """W by the O(k^2) double loop over unordered pairs."""
    pts = as_rows(points)
    total = 0.0
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            total += l1(pts[i], pts[j])
    return total


def ring_distance(a: float, b: float, length: float) -> float:
    """Distance on a ring of circumference ``length``."""
    d = abs(a - b)
    return min(d, length - d)


def ring_weight(positions, length: float) -> float:
    """W on a ring by the double loop."""
    pos = [float(x) for x in np.ravel(positions)]
    return float(
        sum(ring_distance(pos[i], pos[j], length) for i in range(len(pos)) for j in range(i + 1, len(pos)))
    )


def distance_matrix(points, *, ring_length: float | None = None) -> np.ndarray:
    """All pairwise distances by a double loop (L1, or ring distance in 1-D)."""
    pts = as_rows(points)
    n = len(pts)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            if ring_length is None:
                out[i, j] = out[j, i] = l1(pts[i], pts[j])
            else:
                out[i, j] = out[j, i] = ring_distance(pts[i, 0], pts[j, 0], ring_length)
    return out


#: the most k-subsets the brute force enumerates (C(n, k)); a test that
#: needs more is too large for ground truth (see :func:`brute_k`)
MOST_SUBSETS = 3_000_000


def brute_k(n: int, most: int) -> int:
    """The largest k <= ``most`` whose C(n, k) subsets the brute force takes
    (at least 1): random tests draw k up to it."""
    k = max(1, min(most, n))
    while k > 1 and math.comb(n, k) > MOST_SUBSETS:
        k -= 1
    return k


def subset_weights(dist: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """W of every k-subset, enumerated with ``itertools.combinations``.

    Returns (subsets of shape (C(n, k), k), their weights).
    """
    n = len(dist)
    count = math.comb(n, k)
    if count > MOST_SUBSETS:
        raise ValueError(f"brute force over C({n}, {k}) = {count:,} subsets is too large for a test")
    flat = itertools.chain.from_iterable(itertools.combinations(range(n), k))
    subsets = np.fromiter(flat, dtype=np.intp, count=count * k).reshape(-1, k)
    w = np.zeros(len(subsets))
    for a, b in itertools.combinations(range(k), 2):
        w += dist[subsets[:, a], subsets[:, b]]
    return subsets, w


def connected_gnp(rng, n: int, p):
    """A connected G(n, p) random graph, redrawn until connected; ``p`` a
    probability or a (low, high) range drawn from anew at each try."""
    import networkx as nx

    while True:
        prob = float(rng.uniform(*p)) if isinstance(p, tuple) else p
        G = nx.gnp_random_graph(n, prob, seed=int(rng.integers(1 << 30)))
        if nx.is_connected(G):
            return G


def matrix_optimum(dist, k: int) -> float:
    """OPT over a distance matrix (any metric), by brute force."""
    _, w = subset_weights(np.asarray(dist, dtype=float), k)
    return float(w.min())


def optimum(points, k: int, *, ring_length: float | None = None) -> float:
    """OPT, the least W over all k-subsets (brute force)."""
    _, w = subset_weights(distance_matrix(points, ring_length=ring_length), k)
    return float(w.min())


def optimal_subsets(points, k: int, *, ring_length: float | None = None) -> set[tuple[int, ...]]:
    """Every k-subset (as a sorted index tuple) whose W equals OPT."""
    subsets, w = subset_weights(distance_matrix(points, ring_length=ring_length), k)
    best = w.min()
    tol = RTOL * max(1.0, abs(best)) + ATOL
    return {tuple(int(i) for i in s) for s in subsets[w <= best + tol]}


def arrangement_costs(parts: np.ndarray, k: int) -> np.ndarray:
    """Least cut sum over orderings of each row of ``parts`` (ascending, zeros allowed),
    by a dynamic programme in numpy batches over the rows (the cut of a prefix
    of s points costs s (k - s); the library scores partitions in compiled
    loops, checked against this).

    State: the sum already put at the left end (the right end holds the
    rest).  A part w put at the left makes a cut whose prefix is the new
    left sum; put at the right end, a cut whose suffix is the right sum
    beyond it (zero, costing nothing, for the outermost part).  Rows are
    kept sorted by the current part so that each part size is one slice."""
    n_sets, n_steps = parts.shape
    big = np.int64(1) << 50
    s = np.arange(k + 1, dtype=np.int64)
    phi = s * (k - s)
    cost = np.full((n_sets, k + 1), big, dtype=np.int64)
    cost[:, 0] = 0
    total = np.zeros(n_sets, dtype=np.int64)
    where = np.arange(n_sets)  # original row of each current row
    for step in range(n_steps):
        order = np.argsort(parts[where, step], kind="stable")
        where, cost, total = where[order], cost[order], total[order]
        w = parts[where, step]
        edges = np.flatnonzero(np.diff(w)) + 1
        for lo, hi in zip(np.concatenate(([0], edges)), np.concatenate((edges, [n_sets]))):
            v = int(w[lo])
            if v == 0:
                continue
            block, t = cost[lo:hi], total[lo:hi, None]
            # right end: left sum unchanged, cut suffix = total - s (invalid states stay huge)
            right = block + (t - s) * (k - t + s)
            left = np.full_like(block, big)
            left[:, v:] = block[:, : k + 1 - v] + phi[v:]
            cost[lo:hi] = np.minimum(np.minimum(left, right), big)
        total = total + w
    out = np.empty(n_sets)
    out[where] = cost.min(axis=1)
    return out
