"""Exact k-subset search over the twin classes and blocks of a network.

Many networks put several nodes in the same place: the compute nodes of
one dragonfly router or of one fat-tree edge switch are *twins* (each is
as far from every other node as its twin is, and the twins are as far
apart as either is from its nearest node).  Which twins of a class are
chosen does not change W, only how many: with ``n_r`` nodes of class r,

    W = sum_r e_r C(n_r, 2) + sum_{r<s} n_r n_s D[r, s],

with ``e_r`` the distance within class r.  The classes fall into blocks
(a dragonfly's groups, a fat tree's pods).  Between blocks g and h the
class distances are split as ``D[r, s] = a + x_r + y_s + z_rs`` with one
constant ``a`` for all pairs of blocks (:func:`_split`: rows reduced, then
columns, exact when the pair is a sum of a row and a column term; else
:func:`_fit`).  With ``c_g`` nodes in block g and class counts ``v_g``,

    W = a (k^2 - sum_g c_g^2) / 2
        + sum_g [F_g(v_g) + sum_{h != g} c_h (v_g . x_gh)]
        + sum_{g<h} v_g' z_gh v_h,

``F_g`` the pairs within block g: each block's bracket sees the other
blocks only through their counts, and the last sum is at least
``neg[g, h, c_g, c_h]``, its least value at those counts (enumerated).
:func:`block_search` runs two nested depth-first searches:

1. block counts, block by block.  A node with blocks 0..j placed is
   bounded by the first line, the ``neg`` terms (their least over the
   counts still open), for each placed block its least bracket with the
   nodes still to place put where it gains most (the most negative gains
   first, under each block's nodes), and a dynamic programme over the
   blocks left, each adding its least bracket for a count (the others'
   nodes again where it gains most) less ``a`` times its count squared / 2;
2. under full counts whose bound is below the target, class counts block
   by block, each block's candidates sorted by their bracket: the exact
   remainder of the pairs placed replaces its ``neg`` term, which it
   never undercuts, so the bound only rises and a block's candidates are
   cut at the first that overshoots.

Only sets of W below a target are sought, and the target drops to each
set found, so a search that ends proves its best set (or, with none, the
incumbent it started from) optimal.  Every bound above holds for any
distances and any partition into blocks; the blocks only decide how fast
it goes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..._jit import njit
from ._profilesearch import deadline_array, now

__all__ = ["BlockStructure", "block_search", "block_structure"]

#: A block is enumerated when its class count vectors number at most this.
_MAX_VECTORS = 1024
#: ... and all blocks' pairs of vectors at most this.
_MAX_PAIRS = 20_000_000
#: At most this many blocks (the search goes one level per block).
_MAX_BLOCKS = 64


@dataclass(frozen=True)
class BlockStructure:
    """Twin classes and blocks of the rows of a distance matrix.

    ``members[r]``: the rows of class r; ``block[r]``: its block;
    ``Dc``: class distances, ``Dc[r, r]`` the distance within class r.
    """

    members: tuple
    block: np.ndarray
    Dc: np.ndarray

    @property
    def blocks(self) -> int:
        """How many blocks."""
        return int(self.block.max()) + 1


def twin_classes(D: np.ndarray) -> np.ndarray:
    """Class of each row: rows i and j are twins when ``D[i, j]`` is the
    nearest distance of both and their rows agree elsewhere."""
    n = len(D)
    R = np.array(D, dtype=float)
    off = R + np.diag(np.full(n, np.inf))
    R[np.arange(n), np.arange(n)] = off.min(axis=1)
    _, cls = np.unique(R, axis=0, return_inverse=True)
    return np.asarray(cls).ravel()


def _components(adj: np.ndarray) -> np.ndarray:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    return connected_components(csr_matrix(adj), directed=False)[1]


def _clique_blocks(near: np.ndarray) -> np.ndarray:
    """Blocks of classes: maximal cliques of ``near``, largest first, each
    taken whole while none of its classes is taken; the rest alone."""
    import networkx as nx

    G = nx.from_numpy_array(near.astype(np.int8))
    cliques = []
    for q in nx.find_cliques(G):
        cliques.append(sorted(q))
        if len(cliques) > 100_000:
            break
    cliques.sort(key=lambda q: (-len(q), q))
    block = np.full(len(near), -1, dtype=np.int64)
    b = 0
    for q in cliques:
        if len(q) > 1 and (block[q] < 0).all():
            block[q] = b
            b += 1
    for r in np.flatnonzero(block < 0):
        block[r] = b
        b += 1
    return block


def block_structure(D: np.ndarray, *, per_block: float = 3.0) -> BlockStructure | None:
    """Twin classes of D and blocks of classes, or None when the classes
    form a single block, the blocks hold fewer than ``per_block`` nodes on
    average, there are more than ``_MAX_BLOCKS`` blocks or a block has too
    many count vectors to enumerate.

    The blocks are the components of the classes at the least distance
    between classes (a fat tree's pods); when those are all one component,
    the largest cliques of such pairs (a dragonfly's groups, whose routers
    are all one hop apart, while a global link joins two routers of two
    groups).
    """
    n = len(D)
    if n < 4:
        return None
    cls = twin_classes(D)
    nc = int(cls.max()) + 1
    members = tuple(np.flatnonzero(cls == r) for r in range(nc))
    reps = np.array([m[0] for m in members])
    Dc = np.array(D, dtype=float)[np.ix_(reps, reps)]
    for r, m in enumerate(members):
        Dc[r, r] = D[m[0], m[1]] if len(m) > 1 else 0.0
    if nc < 2:
        return None
    off = Dc + np.diag(np.full(nc, np.inf))
    near = off <= off.min()
    block = _components(near)
    if block.max() == 0:
        block = _clique_blocks(near)
    if block.max() == 0 or per_block * (block.max() + 1) > n or block.max() >= _MAX_BLOCKS:
        return None  # one block, too few nodes per block to gain from it, or too many blocks
    sizes = np.array([np.prod([len(members[r]) + 1 for r in np.flatnonzero(block == g)], dtype=float)
                      for g in range(block.max() + 1)])
    if sizes.max() > _MAX_VECTORS or (sizes.sum() ** 2 - (sizes ** 2).sum()) / 2 > _MAX_PAIRS:
        return None
    return BlockStructure(members, block, Dc)


class BlockTables(NamedTuple):
    """What the compiled search reads (built by :func:`_tables`; read only)."""

    cap: np.ndarray      # (B,) nodes per block
    vec: np.ndarray      # (V, R) class counts of every block's vectors
    vec_f: np.ndarray    # (V,) their W within the block
    vstart: np.ndarray   # (B, C + 2): block g's vectors of count a are vstart[g, a]:vstart[g, a + 1]
    gain: np.ndarray     # (V, B) per node of block h: v . x_gh (at most 0 where the split is a sum)
    order: np.ndarray    # (V, B) blocks by gain, most negative first
    alpha: float         # the constant of every pair of blocks
    resid: np.ndarray    # (B, B, R, R) class distances less the split
    neg: np.ndarray      # (B, B, C + 1, C + 1) the least W of the residuals, by counts
    neg_row: np.ndarray  # (B, B, C + 1) the least of neg over the second count
    neg_all: np.ndarray  # (B, B) the least of neg
    classes: np.ndarray  # (B, R) class ids of each block, -1 padded


def _split(M: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """``alpha, x, y`` with ``alpha + x_r + y_s <= M[r, s]``, x, y <= 0:
    rows reduced, then columns (exact when M is a sum of a row and a
    column term)."""
    u = M.min(axis=1)
    v = (M - u[:, None]).min(axis=0)
    return float(u.max() + v.max()), u - u.max(), v - v.max()


def _mode(a: np.ndarray) -> float:
    """The most frequent value of a (the largest of the most frequent)."""
    values, counts = np.unique(a, return_counts=True)
    return float(values[counts == counts.max()].max())


def _fit(M: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Row and column terms of ``alpha + x_r + y_s`` that match M on the
    most entries (row by row, then column by column), for a pair of blocks
    whose distances are not such a sum."""
    x = np.array([_mode(row - alpha) for row in M])
    y = np.array([_mode(col) for col in (M - alpha - x[:, None]).T])
    return x, y


def _tables(s: BlockStructure) -> BlockTables:
    """Count vectors of every block, their W within it and their gains."""
    B = s.blocks
    cls_of = [np.flatnonzero(s.block == g) for g in range(B)]
    split_of = {}  # by (block, block) in the original numbering, each orientation once

    def oriented(g, h):
        if (g, h) not in split_of:
            split_of[g, h] = _split(s.Dc[np.ix_(cls_of[g], cls_of[h])])
        return split_of[g, h]

    splits = {(g, h): oriented(g, h) for g in range(B) for h in range(g + 1, B)}
    common = max(a for a, _, _ in splits.values())
    # the blocks of pairs that are not a sum of row and column terms first
    # (their bound is weakest while a count is open), then the largest
    odd = np.zeros(B, dtype=np.int64)
    for (g, h), (a, _, _) in splits.items():
        if a < common:
            odd[g] += 1
            odd[h] += 1
    cap = np.array([sum(len(s.members[r]) for r in c) for c in cls_of], dtype=np.int64)
    perm = np.lexsort((-cap, -odd))
    splits = {(g, h): oriented(perm[g], perm[h]) for g in range(B) for h in range(g + 1, B)}
    cls_of = [cls_of[g] for g in perm]
    cap = cap[perm]
    R = max(len(c) for c in cls_of)
    C = int(cap.max())
    classes = np.full((B, R), -1, dtype=np.int64)
    vecs, fs, vstart, offset = [], [], np.zeros((B, C + 2), dtype=np.int64), 0
    for g, cl in enumerate(cls_of):
        classes[g, :len(cl)] = cl
        sizes = [len(s.members[r]) for r in cl]
        grid = np.stack(np.meshgrid(*[np.arange(z + 1) for z in sizes], indexing="ij"), -1).reshape(-1, len(cl))
        sub = s.Dc[np.ix_(cl, cl)]
        e = np.diag(sub)
        f = (grid * (grid - 1) / 2.0) @ e + np.einsum("vr,rs,vs->v", grid, sub - np.diag(e), grid) / 2.0
        cnt = grid.sum(axis=1)
        order = np.lexsort((f, cnt))
        padded = np.zeros((len(grid), R), dtype=np.int64)
        padded[:, :len(cl)] = grid[order]
        vecs.append(padded)
        fs.append(f[order])
        vstart[g] = offset + np.searchsorted(cnt[order], np.arange(C + 2))
        offset += len(grid)
    vec = np.concatenate(vecs)
    x = np.zeros((B, B, R))
    resid = np.zeros((B, B, R, R))
    neg = np.zeros((B, B, C + 1, C + 1))
    for (g, h), (a, xg, xh) in splits.items():
        M = s.Dc[np.ix_(cls_of[g], cls_of[h])]
        if a < common:
            xg, xh = _fit(M, common)
        x[g, h, :len(xg)], x[h, g, :len(xh)] = xg, xh
        rest = M - common - xg[:, None] - xh[None, :]
        resid[g, h, :M.shape[0], :M.shape[1]] = rest
        resid[h, g, :M.shape[1], :M.shape[0]] = rest.T
        if np.any(rest != 0):  # the least the residuals take, by counts (every count up to the caps occurs)
            vg, vh = vec[vstart[g, 0]:vstart[g, C + 1], :len(xg)], vec[vstart[h, 0]:vstart[h, C + 1], :len(xh)]
            cross = vg @ rest @ vh.T
            cg, ch = vg.sum(axis=1), vh.sum(axis=1)
            table = np.full((C + 1, C + 1), np.inf)
            np.minimum.at(table, (np.repeat(cg, len(ch)), np.tile(ch, len(cg))), cross.ravel())
            table[np.isinf(table)] = 0.0  # counts above a block's nodes: read only by the least of a row
            neg[g, h], neg[h, g] = table, table.T
    gain = np.zeros((len(vec), B))
    for g in range(B):
        rows = slice(vstart[g, 0], vstart[g, C + 1])
        gain[rows] = vec[rows] @ x[g].T
    return BlockTables(cap, vec, np.concatenate(fs), vstart, gain, np.argsort(gain, axis=1, kind="stable"),
                       float(common), resid, neg, neg.min(axis=3), neg.min(axis=(2, 3)), classes)


class _Scratch(NamedTuple):
    """Working arrays of one search, allocated once by :func:`block_search`."""

    dp: np.ndarray     # (k + 1,) the dynamic programme over the blocks left
    nxt: np.ndarray    # (k + 1,)
    hb: np.ndarray     # (k + 2,) one block's least term by count
    known: np.ndarray  # (B + 1, V): known[j + 1, u]: u's gains from the blocks up to j
    cand: np.ndarray   # (V,) class vectors of the full counts, cheapest first per block
    cost: np.ndarray   # (V,) their costs


@njit(cache=True)
def _vector_cost(t, u, g, j, total, known):  # pragma: no cover - compiled by numba
    """Least F + gains of vector u of block g: the blocks up to j hold
    their counts (``known[u]``: u's gains from them), the others (g aside)
    ``total`` nodes, put where u gains most."""
    cap, gain, order = t.cap, t.gain, t.order
    B = len(cap)
    x = t.vec_f[u] + known[u]
    left = total
    for i in range(B):
        if left <= 0:
            break
        h = order[u, i]
        if gain[u, h] >= 0.0:
            break
        if h == g or h <= j:
            continue
        take = min(cap[h], left)
        x += take * gain[u, h]
        left -= take
    return x


@njit(cache=True)
def _bound(t, j, c, k, known, w):  # pragma: no cover - compiled by numba
    """A lower bound on W of every set whose blocks 0..j hold c (module
    notes); ``known[u]``: the gains of vector u from blocks 0..j."""
    cap, vstart, alpha = t.cap, t.vstart, t.alpha
    neg, neg_row, neg_all = t.neg, t.neg_row, t.neg_all
    dp, nxt, hb = w.dp, w.nxt, w.hb
    B = len(cap)
    s = 0
    sq = 0.0
    for g in range(j + 1):
        s += c[g]
        sq += c[g] * c[g]
    m = k - s
    lb = alpha * (k * k - sq) / 2.0
    for g in range(B):
        for h in range(g + 1, B):
            if h <= j:
                lb += neg[g, h, c[g], c[h]]
            elif g <= j:
                lb += neg_row[g, h, c[g]]
            else:
                lb += neg_all[g, h]
    for g in range(j + 1):
        if c[g] == 0:
            continue
        best = np.inf
        for u in range(vstart[g, c[g]], vstart[g, c[g] + 1]):
            best = min(best, _vector_cost(t, u, g, j, m, known))
        lb += best
    for i in range(m + 1):
        dp[i] = np.inf
    dp[0] = 0.0
    for h in range(j + 1, B):
        top = min(cap[h], m)
        for a in range(1, top + 1):
            best = np.inf
            for u in range(vstart[h, a], vstart[h, a + 1]):
                best = min(best, _vector_cost(t, u, h, j, m - a, known))
            hb[a] = best - alpha * a * a / 2.0
        for i in range(m + 1):
            nxt[i] = dp[i]
        for i in range(m):
            if dp[i] == np.inf:
                continue
            for a in range(1, min(top, m - i) + 1):
                v = dp[i] + hb[a]
                if v < nxt[i + a]:
                    nxt[i + a] = v
        for i in range(m + 1):
            dp[i] = nxt[i]
    return lb + dp[m]


@njit(cache=True)
def _resid(resid, g, h, vec, u, w, R):  # pragma: no cover - compiled by numba
    x = 0.0
    for r in range(R):
        if vec[u, r] == 0:
            continue
        for q in range(R):
            if vec[w, q] != 0:
                x += vec[u, r] * vec[w, q] * resid[g, h, r, q]
    return x


@njit(cache=True)
def _vectors(t, c, lb, target, eps, best_v, w):  # pragma: no cover - compiled by numba
    """Least W below ``target`` over class counts with block counts c
    (``lb``: their bound); improves ``best_v`` and returns the new target."""
    vec, vec_f, vstart, gain, resid, neg = t.vec, t.vec_f, t.vstart, t.gain, t.resid, t.neg
    cand, cost = w.cand, w.cost
    B = len(c)
    R = vec.shape[1]
    act = np.empty(B, dtype=np.int64)
    cstart = np.zeros(B + 1, dtype=np.int64)
    low = np.zeros(B)
    A = 0
    for g in range(B):
        if c[g] == 0:
            continue
        act[A] = g
        lo, hi = vstart[g, c[g]], vstart[g, c[g] + 1]
        base = cstart[A]
        for u in range(lo, hi):
            x = vec_f[u]
            for h in range(B):
                if h != g:
                    x += c[h] * gain[u, h]
            cost[base + u - lo] = x
        idx = np.argsort(cost[base:base + hi - lo])
        tmp = cost[base:base + hi - lo].copy()
        for i in range(hi - lo):
            cand[base + i] = lo + idx[i]
            cost[base + i] = tmp[idx[i]]
        low[A] = cost[base]
        cstart[A + 1] = base + hi - lo
        A += 1
    sel = np.zeros(A, dtype=np.int64)
    bound = np.zeros(A + 1)
    bound[0] = lb
    p = 0
    sel[0] = cstart[0] - 1
    while p >= 0:
        sel[p] += 1
        if sel[p] >= cstart[p + 1]:
            p -= 1
            continue
        v = bound[p] + cost[sel[p]] - low[p]
        if v >= target - eps:  # sorted by cost, and the residuals only add
            p -= 1
            continue
        g, u = act[p], cand[sel[p]]
        for q in range(p):
            h = act[q]
            v += _resid(resid, h, g, vec, cand[sel[q]], u, R) - neg[h, g, c[h], c[g]]
        if v >= target - eps:
            continue
        if p == A - 1:
            target = v
            best_v[:] = -1
            for q in range(A):
                best_v[act[q]] = cand[sel[q]]
            continue
        bound[p + 1] = v
        p += 1
        sel[p] = cstart[p] - 1
    return target


@njit(cache=True)
def _search(t, k, target, eps, deadline, node_limit, best_v, state, w):  # pragma: no cover - compiled by numba
    """The search over block counts (module notes); ``state``: [nodes,
    finished (1.0)]."""
    cap, gain, known = t.cap, t.gain, w.known
    B = len(cap)
    V = len(t.vec)
    rest = np.zeros(B + 1, dtype=np.int64)
    for g in range(B - 1, -1, -1):
        rest[g] = rest[g + 1] + cap[g]
    c = np.zeros(B, dtype=np.int64)
    lo = np.zeros(B, dtype=np.int64)
    used = np.zeros(B + 1, dtype=np.int64)
    state[1] = 0.0
    j = 0
    lo[0] = max(0, k - rest[1])
    c[0] = min(cap[0], k) + 1
    while j >= 0:
        c[j] -= 1
        if c[j] < lo[j]:
            c[j] = 0
            j -= 1
            continue
        state[0] += 1
        if state[0] % 256 == 0 and (now() > deadline[0] or state[0] > node_limit):
            return target
        for u in range(V):
            known[j + 1, u] = known[j, u] + c[j] * gain[u, j]
        b = _bound(t, j, c, k, known[j + 1], w)
        if b >= target - eps:
            continue
        s = used[j] + c[j]
        if j == B - 1:
            target = _vectors(t, c, b, target, eps, best_v, w)
            continue
        used[j + 1] = s
        j += 1
        lo[j] = max(0, k - s - rest[j + 1])
        c[j] = min(cap[j], k - s) + 1
    state[1] = 1.0
    return target


def block_search(structure: BlockStructure, k: int, upper: float, *, time_limit: float | None = None,
                 deadline=None, node_limit: int = 10**12):
    """Least W below ``upper`` over k of the rows ``structure`` describes.

    Returns ``(value, rows, lower)`` as :func:`._torusprofile.torus_profile_search`
    does: the best set found below ``upper`` (its W and rows; None, None
    when none was found), and a proven lower bound on the optimum when the
    search finished (``value``, or ``upper`` when no set is lighter), else None.
    """
    t = _tables(structure)
    deadline = deadline_array(time_limit, deadline)
    eps = 1e-9 * (max(1.0, abs(float(upper))) if math.isfinite(upper) else 1.0)
    best_v = np.full(len(t.cap), -1, dtype=np.int64)
    state = np.zeros(2)
    V, B = len(t.vec), len(t.cap)
    work = _Scratch(np.empty(k + 1), np.empty(k + 1), np.empty(k + 2), np.zeros((B + 1, V)),
                    np.empty(V, dtype=np.int64), np.empty(V))
    value = _search(t, int(k), float(upper), eps, deadline, int(node_limit), best_v, state, work)
    rows = None
    if best_v.max() >= 0:
        picked = []
        for g, u in enumerate(best_v.tolist()):
            if u < 0:
                continue
            for slot, r in enumerate(t.classes[g].tolist()):
                if r >= 0 and t.vec[u, slot]:
                    picked.extend(structure.members[r][: t.vec[u, slot]].tolist())
        rows = np.sort(np.array(picked, dtype=np.int64))
    found = value if rows is not None else None
    if not state[1]:
        return found, rows, None
    return found, rows, (value if rows is not None else float(upper))
