"""Distances of the generated networks from their structure, without a matrix.

A dragonfly and a fat tree are hierarchies of three levels: a compute node
hangs on one *unit* (a router, an edge switch), units form *blocks* (a
group, a pod), and ids run unit by unit, block by block. Hop counts (host
links counted, as :func:`~optalloc.machine.dragonfly` counts them) are

- 0 to itself, 2 to another node of its unit;
- ``2 + local`` to a node of another unit of its block (dragonfly 1: the
  routers of a group are all-to-all; fat tree 2: edge, aggregation, edge);
- ``2 + far`` to a node of another block, less what the global links save
  (fat tree: far 4 through a core switch, no global links). On a
  dragonfly far is 3 (local, global, local: every pair of groups is
  joined), the router hop count is 1 when the two routers share a global
  link, and 2 when router v links into the group of w, w into the group
  of v, or v and w link to a common router; these are the only paths of
  one or two hops between groups.

So a pair costs O(h^2) for h global links per router, and the structure
holds O(n + links).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit

__all__ = ["Hierarchy", "dragonfly_hierarchy", "fat_tree_hierarchy"]

class Hierarchy:
    """The structure of a dragonfly or a fat tree: node -> unit -> block.

    Attributes
    ----------
    kind : str
        ``"dragonfly"`` or ``"fattree"``.
    unit_size : int
        Nodes per unit (router, edge switch).
    units_per_block : int
        Units per block (routers per group, edge switches per pod).
    blocks : int
        Number of blocks (groups, pods).
    local, far : int
        Unit hop count within a block, and between blocks before the global
        links are counted.
    neighbours : (units, H) int array
        The units each unit shares a global link with (-1 pads); empty
        (H = 0) on a fat tree.
    linked_blocks : (units, H2) int array
        The blocks each unit holds a global link into (-1 pads).

    Examples
    --------
    >>> h = fat_tree_hierarchy(4)
    >>> h.n, h.pair_distances([0, 0, 0, 0], [0, 1, 2, 4]).tolist()
    (16, [0.0, 2.0, 4.0, 6.0])
    """

    def __init__(self, kind, unit_size, units_per_block, blocks, local, far, pairs=None):
        self.kind = kind
        self.unit_size = int(unit_size)
        self.units_per_block = int(units_per_block)
        self.blocks = int(blocks)
        self.local = int(local)
        self.far = int(far)
        self.units = self.units_per_block * self.blocks
        self.n = self.units * self.unit_size
        self.neighbours = _padded(self.units, pairs)
        lb = np.where(self.neighbours >= 0, self.neighbours // self.units_per_block, -1)
        self.linked_blocks = _padded_rows(lb)
        self._tables = None
        self._switch_tree = None  # the fat tree as a tree of switches (Machine.tree), built on first use

    @property
    def key(self) -> tuple:
        """What identifies the network (equal for equal structures)."""
        return (self.kind, self.unit_size, self.units_per_block, self.blocks, self.local, self.far,
                self.neighbours.tobytes())

    def unit_of(self, nodes) -> np.ndarray:
        """The unit (router, edge switch) of each node."""
        return np.asarray(nodes, dtype=np.int64) // self.unit_size

    def unit_distances(self, v, w) -> np.ndarray:
        """Hops between units ``v[t]`` and ``w[t]`` (router to router), int8."""
        v, w = np.broadcast_arrays(np.asarray(v, dtype=np.int64), np.asarray(w, dtype=np.int64))
        out = _unit_pairs(np.ascontiguousarray(v).reshape(-1), np.ascontiguousarray(w).reshape(-1),
                          self.units_per_block, self.local, self.far, self.neighbours, self.linked_blocks)
        return out.reshape(v.shape)

    def pair_distances(self, i, j) -> np.ndarray:
        """Hops between nodes ``i[t]`` and ``j[t]`` (broadcasting), float64."""
        i, j = np.broadcast_arrays(np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64))
        d = 2.0 + self.unit_distances(i // self.unit_size, j // self.unit_size).astype(np.float64)
        return np.where(i == j, 0.0, d)

    def block(self, nodes) -> np.ndarray:
        """The (m, m) distances between ``nodes``: worked out per pair of
        their units, then spread to the nodes."""
        nodes = np.asarray(nodes, dtype=np.int64)
        units, inverse = np.unique(nodes // self.unit_size, return_inverse=True)
        U = _unit_block(units, self.units_per_block, self.local, self.far, self.neighbours, self.linked_blocks)
        D = 2.0 + U[np.ix_(inverse, inverse)]
        np.fill_diagonal(D, 0.0)
        return D

    def tables(self) -> tuple:
        """The lists a count-based search reads, as CSR pairs (built once):
        ``(into_ptr, into_idx)``, per block the units of other blocks that
        hold a global link into it; ``(pair_ptr, pair_idx)``, per unit v the
        units w of other blocks that share a global neighbour with v while
        neither links into the other's block (two hops only that way)."""
        if self._tables is None:
            R, upb = self.units, self.units_per_block
            lb, nb = self.linked_blocks, self.neighbours
            rows = np.repeat(np.arange(R), lb.shape[1])
            blk = lb.reshape(-1)
            keep = blk >= 0
            into = _csr(self.blocks, blk[keep], rows[keep])
            H = nb.shape[1]
            v = np.repeat(nb, H, axis=1).reshape(-1)
            w = np.tile(nb, (1, H)).reshape(-1)
            ok = (v >= 0) & (w >= 0) & (v != w)
            v, w = v[ok], w[ok]
            ok = v // upb != w // upb
            v, w = v[ok], w[ok]
            if len(v):
                p = np.unique(np.stack([v, w], axis=1), axis=0)
                v, w = p[:, 0], p[:, 1]
                a = (lb[v] == (w // upb)[:, None]).any(axis=1) | (lb[w] == (v // upb)[:, None]).any(axis=1)
                v, w = v[~a], w[~a]
            self._tables = into + _csr(R, v, w)
        return self._tables

    def weight(self, nodes) -> float:
        """W of distinct ``nodes``, the sum of their pairwise distances, from
        their counts per unit: ``k (k - 1) + c^T U c / 2`` for the unit hop
        counts U (no k x k matrix).

        Examples
        --------
        >>> fat_tree_hierarchy(4).weight([0, 1, 2])  # 2 + 4 + 4
        10.0
        """
        nodes = np.asarray(nodes, dtype=np.int64)
        k = len(nodes)
        units, c = np.unique(nodes // self.unit_size, return_counts=True)
        U = _unit_block(units, self.units_per_block, self.local, self.far, self.neighbours, self.linked_blocks)
        return float(k * (k - 1) + (c @ U.astype(np.int64) @ c) // 2)

    def matrix(self) -> np.ndarray:
        """The (n, n) distances of every node (a large array: callers check the size)."""
        return self.block(np.arange(self.n))

    def links(self) -> np.ndarray:
        """(L, 2) unit pairs (u < v) of the global links."""
        u = np.repeat(np.arange(self.units), self.neighbours.shape[1])
        v = self.neighbours.reshape(-1)
        keep = (v >= 0) & (u < v)
        return np.stack([u[keep], v[keep]], axis=1)


@njit(cache=True)
def _unit_hops(v, w, upb, local, far, nb, lb):  # pragma: no cover - compiled
    """Hops between units v and w (see the module notes)."""
    if v == w:
        return 0
    bv, bw = v // upb, w // upb
    if bv == bw:
        return local
    d = far
    H = nb.shape[1]
    for s in range(H):
        x = nb[v, s]
        if x == w:
            return 1
        if x >= 0 and d > 2:
            for t in range(H):
                if nb[w, t] == x:
                    d = 2
    if d > 2:
        for s in range(lb.shape[1]):
            if (lb[v, s] == bw and bw >= 0) or (lb[w, s] == bv and bv >= 0):
                return 2
    return d


@njit(cache=True)
def _unit_pairs(v, w, upb, local, far, nb, lb):  # pragma: no cover - compiled
    out = np.empty(v.shape[0], dtype=np.int8)
    for t in range(v.shape[0]):
        out[t] = _unit_hops(v[t], w[t], upb, local, far, nb, lb)
    return out


@njit(cache=True)
def _unit_block(units, upb, local, far, nb, lb):  # pragma: no cover - compiled
    """The (m, m) unit hop counts between ``units``."""
    m = units.shape[0]
    out = np.zeros((m, m), dtype=np.int8)
    for i in range(m):
        for j in range(i + 1, m):
            d = _unit_hops(units[i], units[j], upb, local, far, nb, lb)
            out[i, j] = d
            out[j, i] = d
    return out


def _csr(rows: int, tails: np.ndarray, heads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row pointers and the heads of each row, ascending."""
    order = np.lexsort((heads, tails))
    ptr = np.concatenate([[0], np.cumsum(np.bincount(tails, minlength=rows))]).astype(np.int64)
    return ptr, np.asarray(heads, dtype=np.int64)[order]


def _padded(units: int, pairs) -> np.ndarray:
    """Each unit's distinct neighbours over the undirected ``pairs``, as an
    (units, max degree) array padded with -1."""
    if pairs is None or len(pairs) == 0:
        return np.zeros((units, 0), dtype=np.int64)
    p = np.asarray(pairs, dtype=np.int64)
    key = np.unique(np.concatenate([p[:, 0] * units + p[:, 1], p[:, 1] * units + p[:, 0]]))
    tails, heads = np.divmod(key, units)
    keep = tails != heads
    return _rows_of(units, tails[keep], heads[keep])


def _rows_of(units: int, tails: np.ndarray, heads: np.ndarray) -> np.ndarray:
    deg = np.bincount(tails, minlength=units)
    out = np.full((units, int(deg.max()) if len(tails) else 0), -1, dtype=np.int64)
    if len(tails):
        start = np.concatenate([[0], np.cumsum(deg)[:-1]])
        out[tails, np.arange(len(tails)) - start[tails]] = heads
    return out


def _padded_rows(a: np.ndarray) -> np.ndarray:
    """The distinct non-negative values of each row, padded with -1."""
    units = len(a)
    if a.shape[1] == 0:
        return a.copy()
    rows = np.repeat(np.arange(units), a.shape[1])
    vals = a.reshape(-1)
    keep = vals >= 0
    width = int(vals.max()) + 1 if keep.any() else 1
    tails, heads = np.divmod(np.unique(rows[keep] * width + vals[keep]), width)
    return _rows_of(units, tails, heads)


def dragonfly_global_links(groups: int, routers: int, h: int, arrangement: str) -> np.ndarray:
    """(L, 2) router pairs of the global links (router id ``group * routers
    + r``), one row per global port pair, in the arrangements of
    :func:`~optalloc.machine.dragonfly`."""
    ports = routers * h
    if groups < 2:
        return np.zeros((0, 2), dtype=np.int64)
    g = np.repeat(np.arange(groups), ports)
    port = np.tile(np.arange(ports), groups)
    r = port // h
    copy, j = np.divmod(port, groups - 1)
    if arrangement == "absolute":  # the j-th other group, counted from group 0
        t = np.where(j < g, j, j + 1)
        back = copy * (groups - 1) + np.where(g < t, g, g - 1)
        other = back // h
    elif arrangement == "relative":  # the group j + 1 places further on
        t = (g + j + 1) % groups
        other = (copy * (groups - 1) + (groups - 2 - j)) // h
    else:  # circulant: router r to router r of groups g +- (r h/2 + o)
        keep = port % h < h // 2
        g, port, r = g[keep], port[keep], r[keep]
        t = (g + r * h // 2 + port % h + 1) % groups
        other = r
    return np.stack([g * routers + r, t * routers + other], axis=1)


def dragonfly_hierarchy(groups, routers, nodes, h, arrangement) -> Hierarchy:
    """The :class:`Hierarchy` of a checked dragonfly's parameters."""
    return Hierarchy("dragonfly", nodes, routers, groups, 1, 3,
                     dragonfly_global_links(groups, routers, h, arrangement))


def fat_tree_hierarchy(k) -> Hierarchy:
    """The :class:`Hierarchy` of a k-ary fat tree (k even)."""
    half = k // 2
    return Hierarchy("fattree", half, half, k, 2, 4)
