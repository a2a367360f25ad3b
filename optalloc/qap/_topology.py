"""Machine topologies for task mapping: meshes, tori and general graphs.

A :class:`Topology` numbers the nodes of a machine 0 .. N-1 and supplies
the cost matrix C of the mapping QAP ``sum_ij W[i, j] C[p(i), p(j)]``
(Pascual et al., eq. 2), either over the whole machine or over a
partition of it (the nodes a scheduler gave to one job).

Cost criteria
-------------
classic
    Hop distance (Pascual et al. sec. 4.1): the sum of the per-axis hop
    counts on a mesh or torus, the shortest-path length on a graph.
td
    Traffic Distribution (Pascual et al. sec. 4.2, eq. 7): the hop
    distance plus a penalty for routes that load one axis more than the
    others; defined on meshes and tori only.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field

import numpy as np

__all__ = ["CRITERIA", "Topology"]

#: The cost criteria :meth:`Topology.cost_matrix` knows.
CRITERIA = ("classic", "td")

_GRID_KINDS = ("mesh", "torus")


#: Largest machine described (node coordinates are held in memory).
NODES_MAX = 10_000_000
#: Largest node set of a dense distance or cost matrix.
DENSE_MAX = 20_000


def _validate_shape(shape) -> tuple[int, ...]:
    """``shape`` as a non-empty tuple of positive ints (an int means one axis)."""
    try:
        sides = (operator.index(shape),)
    except TypeError:
        try:
            sides = tuple(operator.index(s) for s in shape)
        except TypeError:
            raise ValueError(f"`shape` sides must be positive integers, got {shape!r}") from None
    if not sides or any(s < 1 for s in sides):
        raise ValueError(f"`shape` sides must be positive integers, got {shape!r}")
    if math.prod(sides) > NODES_MAX:
        raise ValueError(f"`shape` {'x'.join(map(str, sides))} has {math.prod(sides)} nodes; at most {NODES_MAX}")
    return sides


def _validate_nodes(nodes, n: int, *, name: str = "nodes", length: int | None = None) -> np.ndarray:
    """``nodes`` as a 1-D intp array of distinct node ids in 0..n-1."""
    a = np.asarray(nodes)
    if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
        raise ValueError(f"`{name}` must be a 1-D sequence of integer node ids")
    if length is not None and len(a) != length:
        raise ValueError(f"`{name}` must hold {length} node ids (one per task), got {len(a)}")
    if len(a) == 0:
        raise ValueError(f"`{name}` must hold at least one node id")
    if a.min() < 0 or a.max() >= n:
        bad = a[(a < 0) | (a >= n)][0]
        raise ValueError(f"`{name}` ids must be in 0..{n - 1}, got {int(bad)}")
    if len(np.unique(a)) != len(a):
        vals, counts = np.unique(a, return_counts=True)
        raise ValueError(f"`{name}` ids must be distinct, {int(vals[counts > 1][0])} is repeated")
    return a.astype(np.intp)


def _strides(shape: tuple[int, ...]) -> np.ndarray:
    # node id of (x, y, z) = x + W * (y + H * z): x varies fastest
    return np.concatenate(([1], np.cumprod(shape[:-1]))).astype(np.intp)


@dataclass(frozen=True, repr=False)
class Topology:
    """The nodes of a machine and the distances between them.

    Build one with :meth:`mesh`, :meth:`torus`, :meth:`from_graph` or
    :meth:`parse`; the fields are read-only.

    Attributes
    ----------
    kind : {"mesh", "torus", "graph"}
        The family.
    shape : tuple of int or None
        Sides (W, H) or (W, H, D) along x, y, z for a mesh or torus
        (any number of axes is accepted); None for a graph.
    labels : tuple or None
        For a graph, the NetworkX node of each node id (in ``G.nodes``
        order); None for a mesh or torus.
    edges : tuple of (int, int, float) or None
        For a graph, its undirected edges ``(u, v, length)`` between node
        ids, u < v; None for a mesh or torus.

    Notes
    -----
    Node ids of a mesh or torus are row-major with x fastest: the node at
    (x, y, z) has id ``x + W * (y + H * z)``, and ``coords[i]`` inverts it.
    This is also the numbering of tasks by the pattern generators of
    :mod:`optalloc.qap`, so the identity mapping puts task (x, y) on node
    (x, y).

    Examples
    --------
    >>> from optalloc.qap import Topology
    >>> t = Topology.torus((4, 4))
    >>> t.n, str(t)
    (16, 'torus:4x4')
    >>> t.coords[7].tolist()
    [3, 1]
    >>> float(t.distances()[0, 7]), float(Topology.mesh((4, 4)).distances()[0, 7])
    (2.0, 4.0)
    """

    kind: str
    shape: tuple[int, ...] | None = None
    labels: tuple | None = None
    edges: tuple[tuple[int, int, float], ...] | None = None
    _hops: np.ndarray | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self):
        if self.kind in _GRID_KINDS:
            object.__setattr__(self, "shape", _validate_shape(self.shape))
            if self.labels is not None or self.edges is not None:
                raise ValueError(f"a {self.kind} takes no `labels` or `edges`")
        elif self.kind == "graph":
            if self.labels is None or self.edges is None:
                raise ValueError("a graph topology needs `labels` and `edges`; use Topology.from_graph")
            object.__setattr__(self, "_hops", _graph_distances(len(self.labels), self.edges))
        else:
            raise ValueError(f"`kind` must be 'mesh', 'torus' or 'graph', got {self.kind!r}")

    # -- constructors -------------------------------------------------------

    @classmethod
    def mesh(cls, shape) -> Topology:
        """A mesh of the given sides, e.g. ``(8, 8)`` or ``(4, 4, 2)``.

        Examples
        --------
        >>> from optalloc.qap import Topology
        >>> Topology.mesh((3, 2)).coords.tolist()
        [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]
        """
        return cls("mesh", _validate_shape(shape))

    @classmethod
    def torus(cls, shape) -> Topology:
        """A torus (a mesh with wrap-around links on every axis).

        Examples
        --------
        >>> from optalloc.qap import Topology
        >>> Topology.torus((5,)).distances()[0].tolist()
        [0.0, 1.0, 2.0, 2.0, 1.0]
        """
        return cls("torus", _validate_shape(shape))

    @classmethod
    def from_graph(cls, G, *, weight: str | None = None) -> Topology:
        """A topology from a connected undirected NetworkX graph.

        Parameters
        ----------
        G : networkx.Graph or networkx.MultiGraph
            Undirected, connected, without self-loops. Node ids follow
            ``list(G.nodes)``.
        weight : str, optional
            Edge attribute holding the length of a link. None (default)
            counts hops. Edges without the attribute have length 1 (as in
            NetworkX); lengths must be positive and finite. Of parallel
            edges the shortest counts.

        Returns
        -------
        Topology
            With ``kind == "graph"``; distances are shortest-path lengths.

        Raises
        ------
        ValueError
            If G is empty, directed, disconnected, has a self-loop or a
            non-positive length.

        Examples
        --------
        >>> import networkx as nx
        >>> from optalloc.qap import Topology
        >>> t = Topology.from_graph(nx.path_graph(["a", "b", "c"]))
        >>> t.labels, t.distances()[0].tolist()
        (('a', 'b', 'c'), [0.0, 1.0, 2.0])
        """
        if G.is_directed():
            raise ValueError("`G` must be undirected (convert with G.to_undirected())")
        labels = tuple(G.nodes)
        if not labels:
            raise ValueError("`G` has no nodes")
        index = {v: i for i, v in enumerate(labels)}
        best: dict[tuple[int, int], float] = {}
        for u, v, data in G.edges(data=True):
            if u == v:
                raise ValueError(f"`G` has a self-loop at node {u!r}; remove self-loops first")
            length = 1.0 if weight is None else data.get(weight, 1.0)
            try:
                length = float(length)
            except (TypeError, ValueError):
                raise ValueError(f"`G` edge ({u!r}, {v!r}): {weight!r} must be a number, got {length!r}") from None
            if not (math.isfinite(length) and length > 0):
                raise ValueError(f"`G` edge ({u!r}, {v!r}): {weight!r} must be positive and finite, got {length}")
            key = tuple(sorted((index[u], index[v])))
            best[key] = min(length, best.get(key, math.inf))
        edges = tuple((i, j, w) for (i, j), w in sorted(best.items()))
        return cls("graph", None, labels, edges)

    @classmethod
    def parse(cls, spec: str) -> Topology:
        """A mesh or torus from text such as ``"torus:8x8"`` or ``"mesh:4x4x2"``.

        Examples
        --------
        >>> from optalloc.qap import Topology
        >>> Topology.parse("mesh:4x4x2") == Topology.mesh((4, 4, 2))
        True
        """
        kind, sep, sides = str(spec).strip().lower().partition(":")
        usage = f"`spec` must look like 'torus:8x8' or 'mesh:4x4x2', got {spec!r}"
        if not sep or kind.strip() not in _GRID_KINDS:
            raise ValueError(usage)
        try:
            shape = tuple(int(s) for s in sides.split("x"))
        except ValueError:
            raise ValueError(usage) from None
        return cls(kind.strip(), _validate_shape(shape))

    # -- nodes --------------------------------------------------------------

    @property
    def n(self) -> int:
        """Number of nodes."""
        return math.prod(self.shape) if self.is_grid else len(self.labels)

    @property
    def is_grid(self) -> bool:
        """True for a mesh or a torus (nodes have coordinates)."""
        return self.kind in _GRID_KINDS

    @property
    def ndim(self) -> int | None:
        """Number of axes of a mesh or torus; None for a graph."""
        return len(self.shape) if self.is_grid else None

    @property
    def coords(self) -> np.ndarray:
        """(N, d) int array: ``coords[i]`` is the (x, y[, z]) of node i.

        Raises ValueError for a graph topology (no coordinates).
        """
        self._need_grid("`coords`")
        ids = np.arange(self.n, dtype=np.intp)
        return (ids[:, None] // _strides(self.shape)) % np.asarray(self.shape, dtype=np.intp)

    def node_ids(self, coords) -> np.ndarray:
        """Node ids of coordinates: an (m, d) array (or one point) of ints.

        Examples
        --------
        >>> from optalloc.qap import Topology
        >>> Topology.mesh((4, 4)).node_ids([[3, 1], [0, 2]]).tolist()
        [7, 8]
        """
        self._need_grid("`node_ids`")
        c = np.asarray(coords)
        if c.ndim == 0 or c.shape[-1] != len(self.shape) or not np.issubdtype(c.dtype, np.integer):
            raise ValueError(f"`coords` must be integer points with {len(self.shape)} coordinates")
        if np.any(c < 0) or np.any(c >= np.asarray(self.shape)):
            raise ValueError(f"`coords` must lie inside the {self}")
        return c @ _strides(self.shape)

    def box_nodes(self, origin, size) -> np.ndarray:
        """Node ids of the sub-box of sides ``size`` whose low corner is ``origin``.

        The ids come x fastest, as the box's own row-major order; on a
        torus the box may wrap around. Pascual et al. sec. 5.2 use such
        partitions ("quadrant": 8x8 of a 16x16 torus; "band": 16x4).

        Examples
        --------
        >>> from optalloc.qap import Topology
        >>> Topology.torus((4, 4)).box_nodes((3, 0), (2, 2)).tolist()
        [3, 0, 7, 4]
        """
        self._need_grid("`box_nodes`")
        d = len(self.shape)
        try:
            lo = tuple(operator.index(v) for v in origin)
        except TypeError:
            raise ValueError(f"`origin` must hold {d} integers, got {origin!r}") from None
        if len(lo) != d or any(not 0 <= v < s for v, s in zip(lo, self.shape)):
            raise ValueError(f"`origin` must be a node of the {self}, got {origin!r}")
        sz = _validate_shape(size)
        if len(sz) != d:
            raise ValueError(f"`size` must have {d} sides, got {size!r}")
        wrap = self.kind == "torus"
        if any(v + s > side if not wrap else s > side for v, s, side in zip(lo, sz, self.shape)):
            raise ValueError(f"`size` {sz} at `origin` {lo} does not fit in the {self}")
        local = np.arange(math.prod(sz), dtype=np.intp)
        pts = (local[:, None] // _strides(sz)) % np.asarray(sz) + np.asarray(lo)
        return (pts % np.asarray(self.shape)) @ _strides(self.shape)

    def links(self) -> np.ndarray:
        """(L, 2) int array of every directed link (u, v) of the machine.

        A mesh or torus has a link to each neighbour at +-1 along every
        axis (wrapping on a torus); a side of 2 on a torus gives one link
        each way, a side of 1 none. A graph has both directions of every
        edge.

        Examples
        --------
        >>> from optalloc.qap import Topology
        >>> len(Topology.mesh((3, 3)).links()), len(Topology.torus((4, 4)).links())
        (24, 64)
        """
        if not self.is_grid:
            e = np.array([(u, v) for u, v, _ in self.edges], dtype=np.intp).reshape(-1, 2)
            return np.concatenate([e, e[:, ::-1]])
        heads, valid = self._grid_link_table()
        tails = np.repeat(np.arange(self.n, dtype=np.intp), 2 * len(self.shape))
        return np.stack([tails[valid], heads[valid]], axis=1)

    # -- distances and costs -----------------------------------------------

    def axis_distances(self, nodes=None) -> np.ndarray:
        """(d, m, m) int array of per-axis hop counts between the given nodes.

        ``axis_distances()[k, i, j]`` is the number of hops along axis k
        from node i to node j: ``|x_i - x_j|`` on a mesh and the wrap
        distance ``min(|x_i - x_j|, s - |x_i - x_j|)`` on a torus of side
        s. Only for a mesh or torus.

        Examples
        --------
        >>> from optalloc.qap import Topology
        >>> Topology.torus((4, 4)).axis_distances([0, 7])[:, 0, 1].tolist()
        [1, 1]
        """
        self._need_grid("`axis_distances`")
        return np.stack(list(self._axis_hops(self._nodes(nodes))))

    def distances(self, nodes=None) -> np.ndarray:
        """Hop distances between nodes (the classic cost matrix).

        Parameters
        ----------
        nodes : sequence of int, optional
            A partition: distinct node ids, in the order the rows and
            columns should take. Default: every node, 0 .. N-1.

        Returns
        -------
        numpy.ndarray
            (m, m) float array; shortest-path lengths on a graph (under
            its edge lengths).

        Raises
        ------
        ValueError
            If a node id is out of range or repeated.

        Notes
        -----
        On a torus each axis contributes its wrap distance
        ``min(|dx|, s - |dx|)``. (The modulo form of Pascual et al. eq. 4
        gives 0 instead of s/2 for nodes half a ring apart, so it is not
        used.) Building the matrix costs O(d m^2) with numpy broadcasting.
        """
        idx = self._nodes(nodes)
        if not self.is_grid:
            return self._hops[np.ix_(idx, idx)].copy()
        total = np.zeros((len(idx), len(idx)))
        for hops in self._axis_hops(idx):
            total += hops
        return total

    def cost_matrix(self, criterion: str = "classic", nodes=None) -> np.ndarray:
        """The cost matrix C of the mapping QAP over a set of nodes.

        Parameters
        ----------
        criterion : {"classic", "td"}
            "classic": hop distance (Pascual et al. eq. 6). "td": Traffic
            Distribution, hop distance plus the spread of the per-axis hop
            counts (eq. 7 and its 3-D form below); mesh or torus only.
        nodes : sequence of int, optional
            The partition the job runs on (distinct node ids); row and
            column r of C belong to ``nodes[r]``. Default: every node.

        Returns
        -------
        numpy.ndarray
            (m, m) float array with zero diagonal, symmetric.

        Raises
        ------
        ValueError
            Unknown criterion, "td" on a graph, bad ``nodes``.

        Notes
        -----
        Pascual et al. define TD on a 2-D torus as
        ``dist + |dist_x - dist_y|`` (eq. 7): of two routes of equal
        length, the one that splits its hops evenly between the axes costs
        less, because it puts less pressure on one axis. For d axes we use

            td = dist + (max_k dist_k - min_k dist_k),

        the gap between the most and the least used axis. It is zero
        exactly when all axes carry the same number of hops, is eq. 7 for
        d = 2, and for d = 3 equals half the sum of the three pairwise
        differences ``|dist_x - dist_y| + |dist_x - dist_z| +
        |dist_y - dist_z|`` (for sorted a <= b <= c that sum is 2 (c - a)),
        so the two natural 3-D extensions agree. Axes of side 1 carry no
        traffic and are left out, so an 8x8x1 machine costs like an 8x8
        one. On a torus the per-axis counts are wrap distances.

        References
        ----------
        .. [1] J. A. Pascual, J. Miguel-Alonso, J. A. Lozano,
           "Optimization-based mapping framework for parallel
           applications", Technical Report EHU-KAT-IK-02-10, University of
           the Basque Country, 2010, sec. 4.

        Examples
        --------
        >>> from optalloc.qap import Topology
        >>> mesh = Topology.mesh((4, 4))
        >>> mesh.cost_matrix("classic")[0, 7].item(), mesh.cost_matrix("td")[0, 7].item()
        (4.0, 6.0)
        >>> Topology.torus((8, 8)).cost_matrix("td", nodes=[0, 3, 27]).tolist()
        [[0.0, 6.0, 6.0], [6.0, 0.0, 6.0], [6.0, 6.0, 0.0]]
        """
        crit = str(criterion).lower()
        if crit not in CRITERIA:
            raise ValueError(f"`criterion` must be one of {', '.join(CRITERIA)}, got {criterion!r}")
        if crit == "classic":
            return self.distances(nodes)
        if not self.is_grid:
            raise ValueError("`criterion` 'td' needs per-axis hop counts: use a mesh or torus, not a graph")
        idx = self._nodes(nodes)
        m = len(idx)
        total = np.zeros((m, m))
        hi = lo = None
        used = 0
        for side, hops in zip(self.shape, self._axis_hops(idx)):
            total += hops
            if side > 1:  # an axis of side 1 carries no traffic
                if used == 0:
                    hi, lo = hops, hops.copy()
                else:
                    np.maximum(hi, hops, out=hi)
                    np.minimum(lo, hops, out=lo)
                used += 1
        if used >= 2:
            hi -= lo
            total += hi  # Pascual et al. eq. 7: dist + |dist_x - dist_y|
        return total

    # -- internals ----------------------------------------------------------

    def _need_grid(self, what: str) -> None:
        if not self.is_grid:
            raise ValueError(f"{what} needs a mesh or torus topology, not a graph")

    def _nodes(self, nodes) -> np.ndarray:
        """The selected node ids; refuses dense matrices beyond ``DENSE_MAX`` nodes."""
        idx = np.arange(self.n, dtype=np.intp) if nodes is None else _validate_nodes(nodes, self.n)
        if len(idx) > DENSE_MAX:
            raise ValueError(f"{len(idx)} nodes: distance and cost matrices are dense, at most {DENSE_MAX} nodes "
                             f"({DENSE_MAX ** 2 * 8 / 1e9:.1f} GB each); pass a partition (`nodes`)")
        return idx

    def _axis_hops(self, idx: np.ndarray):
        """Yield the (m, m) hop counts along each axis, one axis at a time."""
        strides = _strides(self.shape)
        for side, stride in zip(self.shape, strides):
            x = ((idx // stride) % side).astype(np.int32)
            d = np.subtract.outer(x, x)
            np.abs(d, out=d)
            if self.kind == "torus":
                np.minimum(d, side - d, out=d)  # wrap distance min(|d|, s - |d|)
            yield d

    def _grid_link_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Head node and validity of the 2d outgoing link slots of each node.

        Slot ``2 k`` of node u is its link in the + direction of axis k,
        slot ``2 k + 1`` the - direction.
        """
        d, n = len(self.shape), self.n
        coords = self.coords
        strides = _strides(self.shape)
        heads = np.zeros((n, 2 * d), dtype=np.intp)
        valid = np.zeros((n, 2 * d), dtype=bool)
        ids = np.arange(n, dtype=np.intp)
        for k, (side, stride) in enumerate(zip(self.shape, strides)):
            x = coords[:, k]
            for slot, step in ((2 * k, 1), (2 * k + 1, -1)):
                nx_ = (x + step) % side
                heads[:, slot] = ids + (nx_ - x) * stride
                if self.kind == "torus":
                    # side 2: both directions reach the same neighbour, keep one link
                    valid[:, slot] = side >= 3 or (side == 2 and step == 1)
                else:
                    valid[:, slot] = (x + step >= 0) & (x + step < side)
        return heads.ravel(), valid.ravel()

    def __repr__(self) -> str:
        if self.is_grid:
            return f"Topology.{self.kind}({self.shape})"
        return f"<Topology graph: {len(self.labels)} nodes, {len(self.edges)} edges>"

    def __str__(self) -> str:
        if self.is_grid:
            return f"{self.kind}:" + "x".join(map(str, self.shape))
        return f"graph of {len(self.labels)} nodes"


def _graph_distances(n: int, edges) -> np.ndarray:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    if n == 0:
        raise ValueError("`G` has no nodes")
    if edges:
        u, v, w = (np.array(c) for c in zip(*edges))
        if not (np.issubdtype(u.dtype, np.integer) and np.issubdtype(v.dtype, np.integer)) \
                or u.min() < 0 or v.min() < 0 or max(u.max(), v.max()) >= n or np.any(u == v):
            raise ValueError(f"`edges` must join distinct node ids in 0..{n - 1}")
        if not np.all(np.isfinite(w) & (w > 0)):
            raise ValueError("`edges` lengths must be positive and finite")
    else:
        u = v = np.zeros(0, dtype=np.intp)
        w = np.zeros(0)
    A = csr_matrix((w.astype(np.float64), (u.astype(np.intp), v.astype(np.intp))), shape=(n, n))
    D = shortest_path(A, method="D", directed=False)
    if not np.all(np.isfinite(D)):
        unreachable = int(np.argmax(~np.isfinite(D[0])))
        raise ValueError(f"`G` must be connected: no path from node id 0 to node id {unreachable}")
    D.setflags(write=False)
    return D
