"""Orderings of large machines without a distance matrix.

The ordering objective (:mod:`._objective`) weighs every rank pair by
``w(r(i, j))``; the default weight halves with each rank step, so only
the pairs a few dozen ranks apart carry weight that float arithmetic can
see.  Here the objective is a sum over those *offsets* s alone (the
pairs ``(i, i + s)``, around the ring with ``ring``), each distance read
pair by pair from :meth:`~optalloc.machine.Machine.pair_distances`: O(N S)
reads for S offsets, and no N x N matrix.  The offsets left out carry at
most a relative ``TAIL`` of the rank weight (see :func:`rank_offsets`).

The bound is the Gilmore-Lawler bound of the ordering as a QAP with the
assignment relaxed rank by rank: rank i's pairs cost at least the
smallest scalar product of its flows (sorted down) with the distances
from one node to the others (sorted up), minimised over the nodes; half
the sum over ranks is a lower bound of every order's objective.  On a
mesh or torus the sorted distances come from shell counts of the L1 ball
(a few classes of nodes by their distance to the faces); on a network
from each node's row, read in blocks.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SparseFlows", "neighbour_lists", "rank_bound", "rank_offsets", "sparse_objective", "swap_search"]

#: Largest share of the total rank weight left out by :func:`rank_offsets`.
TAIL = 1e-13
#: Most rank pairs (about N times the offsets) of a sparse evaluation.
PAIRS_MAX = 10_000_000
#: Most offsets (the bound holds 2 distances a node for each).
OFFSETS_MAX = 512
#: Elements of one block of pair distances.
BLOCK = 1 << 22


class SparseFlows:
    """The rank offsets that carry weight, and their weights.

    Attributes
    ----------
    n : int
        Number of ranks.
    ring : bool
        Offsets wrap around the ring of ranks.
    offsets, weights : numpy.ndarray
        Offsets s >= 1 (sorted) and the weight of a pair s ranks apart.
    tail : float
        Total weight of the rank pairs left out (times the largest
        distance, a bound of the objective left out).
    """

    def __init__(self, n, offsets, weights, ring, tail):
        self.n, self.ring, self.tail = int(n), bool(ring), float(tail)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.weights = np.asarray(weights, dtype=np.float64)

    @property
    def reach(self) -> int:
        """The largest offset."""
        return int(self.offsets.max()) if len(self.offsets) else 0

    def pairs(self, s: int):
        """Rank pairs ``(i, j)`` s apart: ``i`` and ``j`` arrays."""
        n = self.n
        if not self.ring:
            i = np.arange(n - s, dtype=np.int64)
            return i, i + s
        m = n // 2 if 2 * s == n else n
        i = np.arange(m, dtype=np.int64)
        return i, (i + s) % n

    def partners(self, ranks: np.ndarray):
        """Partner ranks ``(m, P)`` of each rank and the weight of each pair
        (0 where a partner does not exist)."""
        off = np.concatenate([self.offsets, -self.offsets])
        w = np.concatenate([self.weights, self.weights])
        p = ranks[:, None] + off[None, :]
        if self.ring:
            # a partner half the ring away is met both ways: half weight each
            w = np.where(2 * np.abs(off) == self.n, w / 2, w)
            return p % self.n, np.broadcast_to(w, p.shape).copy()
        ok = (p >= 0) & (p < self.n)
        return np.where(ok, p, 0), np.where(ok, w[None, :], 0.0)

    def rows(self):
        """The distinct flow rows of the ranks, each sorted down, and how
        many ranks have it: ``(rows (R, P), counts (R,))``."""
        n, s = self.n, self.reach
        if self.ring:
            # every rank alike; a partner half the ring away is one pair
            w = np.concatenate([self.weights, self.weights[2 * self.offsets != n]])
            return -np.sort(-w)[None, :], np.array([float(n)])
        if n <= 2 * s + 1:
            ranks, counts = np.arange(n, dtype=np.int64), np.ones(n)
        else:
            # ranks at least `reach` from both ends share one row
            edge = np.arange(s, dtype=np.int64)
            ranks = np.concatenate([edge, [s], n - 1 - edge])
            counts = np.concatenate([np.ones(s), [n - 2 * s], np.ones(s)])
        _, w = self.partners(ranks)
        return -np.sort(-w, axis=1), counts


def rank_offsets(n: int, c: np.ndarray, ring: bool) -> SparseFlows:
    """The offsets that carry weight under the rank weights ``c``.

    ``c[k]`` is the weight of a pair k ranks apart (``rank_weights``).
    Offsets are kept by decreasing weight until the pairs left out hold at
    most :data:`TAIL` of the total weight, so the objective left out is at
    most ``TAIL * diameter / shortest distance`` of the objective.

    Raises
    ------
    ValueError
        When the weight is spread over more than :data:`PAIRS_MAX` pairs
        or :data:`OFFSETS_MAX` offsets.
    """
    top = n // 2 if ring else n - 1
    s = np.arange(1, top + 1, dtype=np.int64)
    w = np.asarray(c[1: top + 1], dtype=np.float64)
    count = (np.where(2 * s == n, n // 2, n) if ring else n - s).astype(np.float64)
    mass = w * count
    total = float(mass.sum())
    keep = np.argsort(-w, kind="stable")
    left = total - np.cumsum(mass[keep])
    cut = int(np.searchsorted(-left, -TAIL * total)) + 1 if total > 0 else 0
    cut = min(cut, len(keep))
    chosen = np.sort(keep[:cut])
    chosen = chosen[w[chosen] > 0]
    pairs = float(count[chosen].sum())
    if pairs > PAIRS_MAX or len(chosen) > OFFSETS_MAX:
        raise ValueError(f"the rank weights reach {pairs:.0f} rank pairs at {len(chosen)} rank distances; a "
                         f"machine of {n} nodes is ordered from at most {PAIRS_MAX} pairs at {OFFSETS_MAX} "
                         "distances (use weights that fall with the rank distance)")
    return SparseFlows(n, s[chosen], w[chosen], ring, max(total - float(mass[chosen].sum()), 0.0))


def sparse_objective(dist, order: np.ndarray, flows: SparseFlows) -> float:
    """The ordering objective of ``order`` over the offsets of ``flows``,
    distances read by ``dist(i, j)`` (elementwise on node id arrays)."""
    total = 0.0
    for s, w in zip(flows.offsets.tolist(), flows.weights.tolist()):
        i, j = flows.pairs(s)
        total += w * float(dist(order[i], order[j]).sum())
    return total


# -- sorted distances of the nodes ---------------------------------------------


def _grid_profiles(machine, depth: int) -> np.ndarray:
    """The ``depth`` smallest distances from a node to the others, for each
    class of nodes of a mesh or torus: ``(classes, depth)``."""
    shape, torus = machine.shape, machine.torus
    radius = 1
    while True:
        per_axis = []
        for side, wrap in zip(shape, torus):
            delta = np.arange(radius + 1)
            if wrap:
                e = np.where(delta == 0, 1, np.where(2 * delta < side, 2, np.where(2 * delta == side, 1, 0)))
                per_axis.append(e[None, :])
                continue
            # a node x cells from the nearer face; beyond `radius` all alike
            x = np.arange(min((side + 1) // 2, radius + 1))[:, None]
            e = (delta[None, :] + x < side).astype(int) + ((delta[None, :] <= x) & (delta[None, :] > 0))
            per_axis.append(e)
        shells = np.ones((1, 1), dtype=np.int64)
        for e in per_axis:
            # convolve every class with every position class of this axis, up to `radius`
            out = np.zeros((len(shells) * len(e), radius + 1), dtype=np.int64)
            for a, row in enumerate(shells):
                for b, col in enumerate(e):
                    out[a * len(e) + b] = np.convolve(row, col)[: radius + 1]
            shells = out
        enough = shells[:, 1:].sum(axis=1).min() >= depth
        if enough or radius >= sum(shape):
            break
        radius *= 2
    dist = np.arange(radius + 1, dtype=np.float64)
    prof = np.full((len(shells), depth), np.inf)
    for r, row in enumerate(shells):
        d = np.repeat(dist[1:], row[1:])[:depth]
        prof[r, : len(d)] = d
    return prof


def _network_profiles(dist, n: int, depth: int, near: int, progress=None):
    """Each node's ``depth`` smallest distances to the others (sorted) and
    its ``near`` nearest nodes, reading every pair in blocks of rows."""
    nodes = np.arange(n, dtype=np.int64)
    rows = max(1, BLOCK // max(n, 1))
    prof = np.empty((n, depth))
    nbr = np.empty((n, near), dtype=np.int64)
    take = min(max(depth, near) + 1, n)
    for lo in range(0, n, rows):
        v = nodes[lo: lo + rows]
        D = np.asarray(dist(v[:, None], nodes[None, :]), dtype=np.float64)
        D[np.arange(len(v)), v] = np.inf  # not itself
        idx = np.argpartition(D, take - 1, axis=1)[:, :take] if take < n else np.tile(nodes, (len(v), 1))
        d = np.take_along_axis(D, idx, axis=1)
        o = np.lexsort((idx, d), axis=1)
        idx, d = np.take_along_axis(idx, o, axis=1), np.take_along_axis(d, o, axis=1)
        prof[lo: lo + len(v)] = d[:, :depth] if d.shape[1] >= depth else np.pad(
            d, ((0, 0), (0, depth - d.shape[1])), constant_values=np.inf)
        nbr[lo: lo + len(v)] = idx[:, :near] if idx.shape[1] >= near else np.pad(
            idx, ((0, 0), (0, near - idx.shape[1])), constant_values=-1)
        if progress is not None:
            progress(lo + len(v))
    return prof, nbr


def rank_bound(flows: SparseFlows, profiles: np.ndarray) -> float:
    """Half the sum over ranks of the least scalar product of the rank's
    flows and a node's sorted distances: a lower bound of the objective of
    every order.  ``profiles[v]`` are node v's (or class v's) smallest
    distances to the other nodes, sorted up (inf past the last node)."""
    rows, counts = flows.rows()
    width = min(rows.shape[1], profiles.shape[1])
    rows = rows[:, :width]
    prof = np.where(np.isfinite(profiles[:, :width]), profiles[:, :width], 0.0)
    # rows with fewer flows than nodes: zero flows meet the infinite padding
    least = (prof @ rows.T).min(axis=0)
    return float(np.dot(least, counts) / 2)


def neighbour_lists(machine, radius: int = 2) -> np.ndarray:
    """Node ids within L1 distance ``radius`` of each node of a mesh or
    torus, by distance, -1 where off the mesh: ``(n, m)``."""
    d = len(machine.shape)
    grids = np.meshgrid(*[np.arange(-radius, radius + 1)] * d, indexing="ij")
    offs = np.stack([g.ravel() for g in grids], axis=1)
    size = np.abs(offs).sum(axis=1)
    offs = offs[(size > 0) & (size <= radius)]
    offs = offs[np.argsort(np.abs(offs).sum(axis=1), kind="stable")]
    shape = np.asarray(machine.shape)
    strides = np.cumprod(np.concatenate([[1], shape[:-1]]))
    pts = machine.coords[:, None, :] + offs[None, :, :]
    wrap = np.asarray(machine.torus)
    pts = np.where(wrap, pts % shape, pts)
    ok = np.all((pts >= 0) & (pts < shape), axis=2)
    ids = (np.where(ok[:, :, None], pts, 0) * strides).sum(axis=2)
    return np.where(ok, ids, -1)


def greedy_path(dist, n: int, nbr: np.ndarray, start: int = 0) -> np.ndarray:
    """A nearest-neighbour path: from each node to its nearest unvisited
    node among ``nbr`` (in their order), else to the nearest unvisited node
    of all (read pair by pair)."""
    seen = np.zeros(n, dtype=bool)
    out = np.empty(n, dtype=np.int64)
    cur = start
    left = np.ones(n, dtype=bool)
    for t in range(n):
        out[t] = cur
        seen[cur] = True
        left[cur] = False
        if t == n - 1:
            break
        cand = nbr[cur]
        cand = cand[cand >= 0]
        free = cand[~seen[cand]]
        if len(free):
            cur = int(free[0])
            continue
        rest = np.flatnonzero(left)
        cur = int(rest[np.argmin(dist(np.full(len(rest), cur), rest))])
    return out


# -- local search ----------------------------------------------------------------


def _deltas(dist, order, a, b, flows):
    """Change of the objective when the nodes at ranks a and b swap."""
    na, nb = order[a], order[b]
    total = np.zeros(len(a))
    for x, y, nx_, ny_ in ((a, b, na, nb), (b, a, nb, na)):
        p, w = flows.partners(x)
        w = np.where(p == y[:, None], 0.0, w)
        oj = order[p]
        total += (w * (dist(ny_[:, None], oj) - dist(nx_[:, None], oj))).sum(axis=1)
    return total


def swap_search(dist, order: np.ndarray, flows: SparseFlows, value: float, *, nbr=None, rng=None,
                evaluations: int, clock=None, target: float = -np.inf, batch: int = 2048,
                patience: int = 8, progress=None):
    """Improve ``order`` by swaps of two ranks, many evaluated at once.

    Each round draws ``batch`` swaps (rank a with a rank near it, or with
    the rank of a node near a's neighbour in the order, from ``nbr``),
    evaluates them in O(offsets) distance reads each, and applies the
    improving ones that touch no rank pair of another (best first).  Stops
    after ``evaluations`` swaps, ``patience`` rounds without a gain, the
    clock, or at ``target``.  Returns ``(order, value, evaluated)``.
    """
    rng = np.random.default_rng(rng)
    n = len(order)
    order = np.array(order, dtype=np.int64)
    if n < 2 or not len(flows.offsets):
        return order, value, 0
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    reach = flows.reach
    window = max(2, min(n - 1, 2 * reach))
    done, idle = 0, 0
    while done < evaluations and idle < patience and value > target:
        if clock is not None and clock.expired():
            break
        m = int(min(batch, evaluations - done))
        a = rng.integers(n, size=m)
        b = a + rng.integers(-window, window + 1, size=m)
        if nbr is not None:
            # half the draws: a node near the node before (or after) rank a
            side = np.clip(a + rng.choice((-1, 1), size=m), 0, n - 1)
            pick = nbr[order[side], rng.integers(nbr.shape[1], size=m)]
            use = (rng.random(m) < 0.5) & (pick >= 0)
            b = np.where(use, pos[np.maximum(pick, 0)], b)
        b = b % n if flows.ring else np.clip(b, 0, n - 1)
        keep = a != b
        a, b = a[keep], b[keep]
        done += m
        if not len(a):
            idle += 1
            continue
        delta = _deltas(dist, order, a, b, flows)
        good = np.flatnonzero(delta < -1e-12 * max(1.0, abs(value)))
        if not len(good):
            idle += 1
            if progress is not None:
                progress(done, value)
            continue
        good = good[np.argsort(delta[good], kind="stable")]
        claimed = np.zeros(n, dtype=bool)
        gain = 0.0
        for t in good.tolist():
            x, y = int(a[t]), int(b[t])
            if claimed[x] or claimed[y]:
                continue
            for r in (x, y):  # no other swap within reach of these ranks
                lo, hi = r - reach, r + reach + 1
                if flows.ring:
                    claimed[np.arange(lo, hi) % n] = True
                else:
                    claimed[max(lo, 0): min(hi, n)] = True
            order[x], order[y] = order[y], order[x]
            pos[order[x]], pos[order[y]] = x, y
            gain += float(delta[t])
        value += gain
        idle = 0
        if progress is not None:
            progress(done, value)
    return order, value, done
