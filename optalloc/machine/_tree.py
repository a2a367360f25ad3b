"""Nodes on a tree of switches: distances from the tree, without a matrix.

A tree network (a Slurm tree topology, a fat tree seen through its
levels, any tree of switches a user gives) has its compute nodes, the
*hosts*, at vertices of a tree whose other vertices are switches. The
distance of two hosts is the length of the one path between them:
``depth(a) + depth(b) - 2 depth(lca(a, b))`` for the depths from a root.
So a pair costs O(log height) (binary lifting) and the structure holds
O(vertices).

The sum of the pairwise distances of a set S of k hosts has a form the
exact solvers use: a link e (the one from a vertex to its parent) lies on
the path of a pair exactly when one host of the pair is below it, so
``W(S) = sum_e length(e) c_e (k - c_e)`` where ``c_e`` counts the hosts
of S below e. :meth:`SwitchTree.weight` reads it in O(vertices).

Vertices are numbered hosts first: vertex ``i < n`` is node ``i`` of the
machine, vertices ``n ..`` are switches.
"""

from __future__ import annotations

import numpy as np

from ._network import edge_length

__all__ = ["SwitchTree", "fat_tree_switches", "tree_from_graph"]


class SwitchTree:
    """Hosts on a rooted tree of switches.

    Parameters
    ----------
    parent : (V,) int array
        The parent of each vertex, -1 at the root (exactly one). Vertices
        ``0 .. n-1`` are the hosts, the others switches.
    length : (V,) float array
        Length of the link from each vertex to its parent (ignored at the
        root); positive and finite.
    n : int
        Number of hosts.
    switch_labels : sequence, optional
        One label per switch (vertex ``n + s``); default ``s``.

    Attributes
    ----------
    order : (V,) int array
        Vertices root first, each after its parent (breadth first): a
        reversed pass visits children before parents.
    depth : (V,) float array
        Path length from the root.
    level : (V,) int array
        Links from the root.

    Raises
    ------
    ValueError
        One line: not one root, a cycle, a bad length or a host count
        outside ``1 .. V``.

    Examples
    --------
    Hosts 0 and 1 on switch 3, host 2 and switch 3 on the root switch 4:

    >>> t = SwitchTree([3, 3, 4, 4, -1], [1, 1, 1, 1, 0], 3)
    >>> t.pair_distances([0, 0], [1, 2]).tolist(), t.weight([0, 1, 2])
    ([2.0, 3.0], 8.0)
    """

    def __init__(self, parent, length, n: int, switch_labels=None):
        parent = np.asarray(parent, dtype=np.int64).reshape(-1)
        length = np.asarray(length, dtype=np.float64).reshape(-1)
        V = len(parent)
        if len(length) != V:
            raise ValueError(f"`length` has {len(length)} entries for {V} vertices")
        if not 1 <= n <= V:
            raise ValueError(f"a tree of {V} vertices holds 1 to {V} hosts, got {n}")
        if np.any((parent < -1) | (parent >= V)):
            raise ValueError(f"`parent` must name vertices 0 .. {V - 1} (or -1 at the root)")
        roots = np.flatnonzero(parent < 0)
        if len(roots) != 1:
            raise ValueError(f"a tree has one root (parent -1), got {len(roots)}")
        root = int(roots[0])
        rest = np.delete(length, root)
        if not np.all(np.isfinite(rest) & (rest > 0)):
            raise ValueError("link lengths must be positive and finite")
        self.n = int(n)
        self.V = V
        self.root = root
        self.parent = parent
        self.length = length.copy()
        self.length[root] = 0.0
        self.switch_labels = tuple(range(V - n)) if switch_labels is None else tuple(switch_labels)
        if len(self.switch_labels) != V - n:
            raise ValueError(f"{len(self.switch_labels)} switch labels for {V - n} switches")
        # children in CSR, then a breadth-first order from the root
        kids = np.flatnonzero(parent >= 0)
        by = np.argsort(parent[kids], kind="stable")
        self.child = kids[by]
        self.child_ptr = np.zeros(V + 1, dtype=np.int64)
        np.cumsum(np.bincount(parent[kids], minlength=V), out=self.child_ptr[1:])
        order = np.empty(V, dtype=np.int64)
        order[0] = root
        self.depth = np.zeros(V)
        self.level = np.zeros(V, dtype=np.int64)
        bounds = [0]
        head, tail = 0, 1
        while head < tail:  # level by level
            bounds.append(tail)
            layer = order[head:tail]
            starts, ends = self.child_ptr[layer], self.child_ptr[layer + 1]
            sizes = ends - starts
            total = int(sizes.sum())
            if tail + total > V:
                break
            if total:
                kids_of = self.child[np.repeat(starts - np.cumsum(sizes) + sizes, sizes) + np.arange(total)]
                order[tail:tail + total] = kids_of
                self.depth[kids_of] = self.depth[parent[kids_of]] + self.length[kids_of]
                self.level[kids_of] = self.level[parent[kids_of]] + 1
            head, tail = tail, tail + total
        if tail != V:
            raise ValueError("`parent` does not make a tree: a vertex is not below the root (a cycle)")
        self.order = order
        self._layers = bounds  # order[bounds[t]:bounds[t + 1]] is level t
        self.height = int(self.level.max())
        # binary lifting: up[j][v] = the 2^j-th ancestor (the root above the top)
        up = [np.where(parent >= 0, parent, root)]
        for _ in range(max(1, self.height.bit_length()) - 1):
            up.append(up[-1][up[-1]])
        self._up = up

    @property
    def key(self) -> tuple:
        """What identifies the tree's distances (equal for equal trees)."""
        return ("tree", self.n, self.parent.tobytes(), self.length.tobytes())

    def lca(self, a, b) -> np.ndarray:
        """The lowest common ancestor of vertices ``a[t]`` and ``b[t]``."""
        a, b = np.broadcast_arrays(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
        shape = a.shape
        a, b = a.reshape(-1).copy(), b.reshape(-1).copy()
        swap = self.level[a] < self.level[b]
        a[swap], b[swap] = b[swap], a[swap]
        gap = self.level[a] - self.level[b]
        for j, up in enumerate(self._up):
            step = (gap >> j) & 1 == 1
            a[step] = up[a[step]]
        for up in reversed(self._up):
            move = up[a] != up[b]
            a[move] = up[a[move]]
            b[move] = up[b[move]]
        top = np.where(a == b, a, self.parent[a])
        return top.reshape(shape)

    def pair_distances(self, i, j) -> np.ndarray:
        """Path lengths between hosts (or vertices) ``i[t]`` and ``j[t]``, broadcasting."""
        i, j = np.broadcast_arrays(np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64))
        top = self.lca(i, j)
        return self.depth[i] + self.depth[j] - 2.0 * self.depth[top]

    def block(self, nodes) -> np.ndarray:
        """The (m, m) distances between hosts ``nodes``."""
        nodes = np.asarray(nodes, dtype=np.int64)
        D = self.pair_distances(nodes[:, None], nodes[None, :])
        np.fill_diagonal(D, 0.0)
        return D

    def matrix(self) -> np.ndarray:
        """The (n, n) distances of every host (a large array: callers check the size)."""
        return self.block(np.arange(self.n))

    def below(self, nodes) -> np.ndarray:
        """How many of the distinct hosts ``nodes`` lie below each vertex (itself included)."""
        c = np.bincount(np.asarray(nodes, dtype=np.int64), minlength=self.V).astype(np.int64)
        b = self._layers
        for t in range(len(b) - 2, 0, -1):  # the deepest level first
            layer = self.order[b[t]:b[t + 1]]
            np.add.at(c, self.parent[layer], c[layer])
        return c

    def weight(self, nodes) -> float:
        """W of distinct hosts ``nodes``: ``sum_e length(e) c_e (k - c_e)``."""
        c = self.below(nodes)
        k = len(np.asarray(nodes).reshape(-1))
        return float(np.dot(self.length, c * (k - c)))

    def hosts_under(self, v: int) -> np.ndarray:
        """The hosts below vertex ``v``, ascending."""
        out, stack = [], [int(v)]
        while stack:
            u = stack.pop()
            if u < self.n:
                out.append(u)
            stack.extend(self.child[self.child_ptr[u]:self.child_ptr[u + 1]].tolist())
        return np.sort(np.asarray(out, dtype=np.int64))


def tree_from_graph(G, hosts, *, weight: str | None = None, root=None) -> tuple[SwitchTree, tuple]:
    """The :class:`SwitchTree` of a NetworkX tree whose vertices ``hosts``
    (labels, in node-id order) are the compute nodes; returns the tree and
    the host labels. The root is ``root`` (a label) or a centre of the
    tree (fewest links to the farthest vertex)."""
    if G.is_directed():
        raise ValueError("`G` must be undirected (convert with G.to_undirected())")
    hosts = tuple(hosts)
    if not hosts:
        raise ValueError("`hosts` is empty: a machine has at least one node")
    if len(set(hosts)) != len(hosts):
        raise ValueError("`hosts` names a vertex twice")
    missing = [h for h in hosts if h not in G]
    if missing:
        raise ValueError(f"host {missing[0]!r} is not a vertex of `G`")
    V = G.number_of_nodes()
    if G.number_of_edges() != V - 1:
        raise ValueError(f"`G` is not a tree: {V} vertices and {G.number_of_edges()} links (a tree has "
                         f"{V - 1})")
    host_set = set(hosts)
    switches = [v for v in G.nodes if v not in host_set]
    labels = list(hosts) + switches
    index = {v: i for i, v in enumerate(labels)}
    nbr: list[list[int]] = [[] for _ in range(V)]
    lengths: dict[tuple[int, int], float] = {}
    for u, v, data in G.edges(data=True):
        value = edge_length(u, v, data, weight)
        a, b = index[u], index[v]
        nbr[a].append(b)
        nbr[b].append(a)
        lengths[(min(a, b), max(a, b))] = value
    if root is None:
        r = _centre(nbr)
    else:
        if root not in index:
            raise ValueError(f"root {root!r} is not a vertex of `G`")
        r = index[root]
    parent, seen, _ = _bfs(nbr, r)
    if not seen.all():
        raise ValueError("`G` is not connected: no path between some of its vertices")
    length = np.zeros(V)
    for v in range(V):
        if parent[v] >= 0:
            length[v] = lengths[(min(v, parent[v]), max(v, parent[v]))]
    return SwitchTree(parent, length, len(hosts), switch_labels=switches), hosts


def _bfs(nbr, r):
    """Parents from a breadth-first pass from r, which vertices it reached, and the last one."""
    parent = np.full(len(nbr), -1, dtype=np.int64)
    seen = np.zeros(len(nbr), dtype=bool)
    seen[r] = True
    queue = [r]
    for u in queue:
        for w in nbr[u]:
            if not seen[w]:
                seen[w] = True
                parent[w] = u
                queue.append(w)
    return parent, seen, queue[-1]


def _centre(nbr) -> int:
    """The middle vertex of a longest path (two breadth-first passes)."""
    a = _bfs(nbr, 0)[2]
    parent, _, b = _bfs(nbr, a)
    path = [b]
    while parent[path[-1]] >= 0:
        path.append(int(parent[path[-1]]))
    return path[len(path) // 2]


def fat_tree_switches(h) -> SwitchTree:
    """The tree of a fat tree's :class:`~optalloc.machine._structured.Hierarchy`
    as far as distances go: host - edge switch - pod - one root, links of 1
    (hosts 2, 4 or 6 hops apart as they share an edge switch, a pod or
    neither)."""
    n, units, blocks = h.n, h.units, h.blocks
    parent = np.empty(n + units + blocks + 1, dtype=np.int64)
    parent[:n] = n + np.arange(n) // h.unit_size
    parent[n:n + units] = n + units + np.arange(units) // h.units_per_block
    parent[n + units:n + units + blocks] = n + units + blocks
    parent[-1] = -1
    length = np.ones(len(parent))
    labels = [f"edge{u}" for u in range(units)] + [f"pod{b}" for b in range(blocks)] + ["core"]
    return SwitchTree(parent, length, n, switch_labels=labels)
