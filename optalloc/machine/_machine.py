"""The machine: a mesh, torus or network of nodes, each free or busy."""

from __future__ import annotations

import math
import operator

import numpy as np

from .._validate import validate_nodes
from ._limits import PAIRS_MAX, _strides
from ._links import MachineLinks, matrix_refusal
from ._network import GraphRows, distance_links, graph_links
from ._state import give_back, take

__all__ = ["Machine"]

#: Largest mesh or torus (its free/busy state is held per node).
NODES_MAX = 10_000_000
#: Most axes of a mesh or torus: the tori of the largest machines have 5
#: (Blue Gene/Q) and 6 (Fujitsu's Tofu), and the exact solver's search of a
#: set's symmetries grows as d! 2^d with the axes.
AXES_MAX = 6
#: Largest network, and largest node set of a dense distance matrix
#: (8 bytes a pair: 3.2 GB).
DENSE_MAX = 20_000
#: Largest network whose whole matrix ``distances()`` builds (134 MB).
MATRIX_MAX = 4096
#: Owner of the nodes that a machine map marks busy.
MAP_OWNER = -2


class Machine(MachineLinks):
    """A mesh, torus or network of nodes with a free/busy state.

    Node ids are the integers ``0 .. n-1``. On a mesh or torus node ``i``
    has coordinates ``coords[i]`` and ids run with x fastest
    (``id = x + W * (y + H * z)``): row-major over the rows (y) and layers
    (z) of a machine map. On a network the ids follow the order of the
    graph's nodes, whose labels are kept in ``labels``.

    Parameters
    ----------
    shape : sequence of int
        Nodes per axis (any number of axes).
    torus : bool or sequence of bool
        Wrap-around links, on every axis or per axis.

    Raises
    ------
    ValueError
        Bad shape or torus flags; more than 6 axes or 10,000,000 nodes
        (see Notes).

    Notes
    -----
    Build a network with :meth:`from_graph`, any machine from text with
    :func:`parse_machine`.

    Limits, checked before anything is built: a mesh or torus has at most
    6 axes (the 5-D and 6-D tori of Blue Gene/Q and Tofu; the exact
    solver's search of a set's symmetries grows as d! 2^d) and 10,000,000
    nodes; a graph at most 20,000 nodes, at most 4096 given by its
    distances alone (processors per node); a dragonfly or fat tree as many
    as a mesh (distances from its structure). A network's whole matrix ``distances()`` is built up to
    4096 nodes; beyond, :meth:`pair_distances` and ``distances(nodes)``
    (a graph: shortest paths from the nodes asked for). :meth:`allocate` and :meth:`release` raise
    RuntimeError on a busy, repeated, unknown or foreign node: an allocator
    bug stops the run.

    Examples
    --------
    >>> m = Machine((4, 2))
    >>> m.n, m.coords[5].tolist()
    (8, [1, 1])
    >>> _ = m.allocate([0, 5], owner=7)
    >>> m.n_free, m.is_free(5)
    (6, False)
    >>> Machine((8, 8), torus=True).distance(0, 7 * 8)
    1
    """

    def __init__(self, shape, *, torus=False):
        try:
            shape = tuple(operator.index(s) for s in np.atleast_1d(shape).tolist())
        except TypeError:
            raise ValueError(f"`shape` must be a sequence of positive integers, got {shape!r}") from None
        if len(shape) > AXES_MAX:
            raise ValueError(f"`shape` has {len(shape)} axes; a mesh or torus has at most {AXES_MAX}")
        if not shape or min(shape) < 1:
            raise ValueError(f"`shape` must give positive sizes, got {shape}")
        if isinstance(torus, (bool, np.bool_)):
            torus = (bool(torus),) * len(shape)
        else:
            flags = torus
            try:
                if isinstance(flags, str):
                    raise TypeError
                torus = tuple(flags)
            except TypeError:
                raise ValueError(f"`torus` must be a bool or one bool per axis ({len(shape)}), "
                                 f"got {flags!r}") from None
            if len(torus) != len(shape) or not all(isinstance(t, (bool, np.bool_)) for t in torus):
                raise ValueError(f"`torus` must be a bool or one bool per axis ({len(shape)}), got {flags!r}")
            torus = tuple(bool(t) for t in torus)
        if math.prod(shape) > NODES_MAX:
            raise ValueError(f"`shape` {'x'.join(map(str, shape))} has {math.prod(shape)} nodes; "
                             f"at most {NODES_MAX}")
        self.shape: tuple[int, ...] | None = shape
        self.torus: tuple[bool, ...] = torus
        self.labels: tuple | None = None
        self._edges, self._net = None, None
        self._init_state(math.prod(shape))

    def _init_state(self, n: int) -> None:
        self.n = int(n)
        self._coords = None
        self._dist = None
        self._owner = np.full(self.n, -1, dtype=np.int64)
        self._free = np.ones(self.n, dtype=bool)
        self._n_free = self.n
        self._cache = None
        self._text = None  # the description of a generated network (dragonfly, fat tree)
        self._key = None

    # -- constructors -------------------------------------------------------

    @classmethod
    def from_graph(cls, G, *, weight: str | None = None) -> Machine:
        """A network machine from a connected undirected NetworkX graph.

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

        Raises
        ------
        ValueError
            If G is empty, directed, disconnected, has a self-loop or a
            non-positive length, or more than 20,000 nodes.

        Examples
        --------
        >>> import networkx as nx
        >>> m = Machine.from_graph(nx.path_graph(["a", "b", "c"]))
        >>> m.labels, m.distances()[0].tolist(), m.shape
        (('a', 'b', 'c'), [0.0, 1.0, 2.0], None)
        """
        labels, edges = graph_links(G, weight, DENSE_MAX)
        self = cls.__new__(cls)
        self.shape, self.torus, self.labels, self._edges = None, (), labels, edges
        self._net = GraphRows(len(labels), edges, MATRIX_MAX)
        self._init_state(len(labels))
        return self

    @classmethod
    def from_distances(cls, labels, D, *, edges=None) -> Machine:
        """A network machine from node labels and a precomputed distance matrix.

        For distances through vertices that are not nodes of the machine
        (switches, routers), or between processors of one node (0).

        Parameters
        ----------
        labels : sequence
            One distinct hashable label per node; node ids follow this order.
        D : (n, n) array_like
            Distances: square, symmetric, finite, zero on the diagonal, and
            positive or zero (processors of one node) off it. Kept as
            :meth:`distances`; nothing checks the triangle inequality.
        edges : iterable of (int, int), optional
            The links :meth:`links` reports, as node id pairs of positive
            distance (their lengths are taken from D). Default: every pair of
            positive distance, so that shortest paths over the links give D
            back (when D is a metric) to code that rebuilds the graph.

        Raises
        ------
        ValueError
            One line, for a bad matrix, labels or edges; more than 4096
            nodes without ``edges`` (every pair a link), 20,000 with them.

        Examples
        --------
        >>> m = Machine.from_distances(["a", "b", "c"], [[0, 0, 2], [0, 0, 2], [2, 2, 0]])
        >>> m.distance(0, 1), m.distance(0, 2), len(m.edges)
        (0.0, 2.0, 2)
        """
        labels = tuple(labels)
        if edges is None and len(labels) > PAIRS_MAX:
            raise ValueError(f"{len(labels)} nodes given by their distances alone; at most {PAIRS_MAX} (every pair "
                             f"of nodes is a link; with `edges`, at most {DENSE_MAX})")
        labels, M, links = distance_links(labels, D, edges, DENSE_MAX)
        self = cls.__new__(cls)
        self.shape, self.torus, self.labels, self._edges, self._net = None, (), labels, links, None
        self._init_state(len(labels))
        self._dist = M
        return self

    # -- what the machine is -------------------------------------------------

    @property
    def kind(self) -> str:
        """``"mesh"``, ``"torus"`` (some axis wraps) or ``"network"``."""
        if self.shape is None:
            return "network"
        return "torus" if any(self.torus) else "mesh"

    @property
    def is_grid(self) -> bool:
        """True for a mesh or torus (nodes have coordinates)."""
        return self.shape is not None

    @property
    def is_torus(self) -> bool:
        """True when some axis wraps around."""
        return any(self.torus)

    @property
    def ndim(self) -> int | None:
        """Number of axes; None for a network."""
        return None if self.shape is None else len(self.shape)

    @property
    def size(self) -> int:
        """Number of nodes (the same as ``n``)."""
        return self.n

    @property
    def coords(self) -> np.ndarray | None:
        """(n, d) read-only int array: ``coords[i]`` is the (x, y, ...) of
        node i; None for a network."""
        if self.shape is None:
            return None
        if self._coords is None:
            ids = np.arange(self.n, dtype=np.int64)
            c = (ids[:, None] // _strides(self.shape)) % np.asarray(self.shape, dtype=np.int64)
            c.setflags(write=False)
            self._coords = c
        return self._coords

    def node_ids(self, coords) -> np.ndarray:
        """Node ids of coordinates: an (m, d) array (or one point) of ints.

        Examples
        --------
        >>> Machine((4, 4)).node_ids([[3, 1], [0, 2]]).tolist()
        [7, 8]
        """
        self._need_grid("`node_ids`")
        c = np.asarray(coords)
        if c.size == 0:
            return np.zeros(0, dtype=np.int64)
        if c.ndim == 0 or c.shape[-1] != len(self.shape) or not np.issubdtype(c.dtype, np.integer):
            if c.ndim >= 1 and c.shape[-1] == len(self.shape) and np.all(c == np.round(c)):
                c = c.astype(np.int64)
            else:
                raise ValueError(f"`coords` must be integer points with {len(self.shape)} coordinates")
        if np.any(c < 0) or np.any(c >= np.asarray(self.shape)):
            raise ValueError(f"`coords` must lie on the {self.describe()}")
        return (c @ _strides(self.shape)).astype(np.int64)

    def box_nodes(self, origin, size) -> np.ndarray:
        """Node ids of the sub-box of sides ``size`` whose low corner is
        ``origin``, x fastest; on a wrapping axis the box may wrap around.

        Examples
        --------
        >>> Machine((4, 4), torus=True).box_nodes((3, 0), (2, 2)).tolist()
        [3, 0, 7, 4]
        """
        self._need_grid("`box_nodes`")
        d = len(self.shape)
        try:
            lo = tuple(operator.index(v) for v in origin)
            sz = tuple(operator.index(v) for v in size)
        except TypeError:
            raise ValueError(f"`origin` and `size` must hold {d} integers, got {origin!r}, {size!r}") from None
        if len(lo) != d or any(not 0 <= v < s for v, s in zip(lo, self.shape)):
            raise ValueError(f"`origin` must be a node of the {self.describe()}, got {origin!r}")
        if len(sz) != d or min(sz) < 1:
            raise ValueError(f"`size` must have {d} positive sides, got {size!r}")
        if any(s > side if wrap else v + s > side for v, s, side, wrap in zip(lo, sz, self.shape, self.torus)):
            raise ValueError(f"`size` {sz} at `origin` {lo} does not fit in the {self.describe()}")
        local = np.arange(math.prod(sz), dtype=np.int64)
        pts = (local[:, None] // _strides(sz)) % np.asarray(sz) + np.asarray(lo)
        return (pts % np.asarray(self.shape)) @ _strides(self.shape)

    # -- distances -----------------------------------------------------------

    def axis_distances(self, a, b) -> np.ndarray:
        """Per-axis hop counts between coordinate arrays (wrap distance
        ``min(|d|, s - |d|)`` on a wrapping axis of side s)."""
        self._need_grid("`axis_distances`")
        d = np.abs(np.asarray(a, dtype=np.int64) - np.asarray(b, dtype=np.int64))
        for ax, wrap in enumerate(self.torus):
            if wrap:
                d[..., ax] = np.minimum(d[..., ax], self.shape[ax] - d[..., ax])
        return d

    def distance(self, i, j) -> float:
        """Distance between nodes ``i`` and ``j``: hops (wrapping on torus
        axes) on a grid, the shortest path on a network."""
        if self.shape is None:
            return float(self.pair_distances(i, j))
        return int(self.axis_distances(self.coords[i], self.coords[j]).sum())

    def pair_distances(self, i, j) -> np.ndarray:
        """Distances between nodes ``i[t]`` and ``j[t]``, elementwise.

        ``i`` and ``j`` are int arrays (or ints) of one shape, or shapes that
        broadcast; the result is a float array of that shape. This is the
        way to read many distances without a matrix: on a mesh or torus it
        sums the axis hops of the coordinates.

        Examples
        --------
        >>> Machine((8, 8), torus=True).pair_distances([0, 0], [7, 9]).tolist()
        [1.0, 2.0]
        """
        a = np.asarray(i, dtype=np.int64)
        b = np.asarray(j, dtype=np.int64)
        if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= self.n):
            raise ValueError(f"node ids must lie in 0 .. {self.n - 1}")
        if self.shape is None:
            if self._net is not None:
                return self._net.pair_distances(a, b)
            return np.asarray(self._dist[a, b], dtype=np.float64)
        coords = self.coords
        return self.axis_distances(coords[a], coords[b]).sum(axis=-1).astype(np.float64)

    def distances(self, nodes=None) -> np.ndarray:
        """(m, m) float matrix of distances between nodes.

        Parameters
        ----------
        nodes : sequence of int, optional
            Distinct node ids, in the order the rows should take. Default:
            every node; that matrix is built once and kept (read-only), on
            a network of at most 4096 nodes (a larger one raises
            ValueError with the matrix's size).

        Examples
        --------
        >>> Machine(5, torus=True).distances()[0].tolist()
        [0.0, 1.0, 2.0, 2.0, 1.0]
        """
        if nodes is None:
            if self._dist is None:
                if self.shape is None:
                    if self.n > MATRIX_MAX:
                        raise ValueError(matrix_refusal(self.describe(), self.n, MATRIX_MAX))
                    D = self._net.matrix()
                else:
                    D = self._distances(np.arange(self.n, dtype=np.int64))
                D.setflags(write=False)
                self._dist = D
            return self._dist
        return self._distances(self.check_nodes(nodes))

    def axis_hops(self, nodes=None):
        """Yield the (m, m) int hop counts along each axis between the nodes."""
        self._need_grid("`axis_hops`")
        idx = self._dense_nodes(nodes)
        for side, stride, wrap in zip(self.shape, _strides(self.shape), self.torus):
            x = ((idx // stride) % side).astype(np.int32)
            d = np.subtract.outer(x, x)
            np.abs(d, out=d)
            if wrap:
                np.minimum(d, side - d, out=d)
            yield d

    def _distances(self, idx: np.ndarray) -> np.ndarray:
        """A new (m, m) matrix of the distances between the nodes ``idx``."""
        idx = self._dense_nodes(idx)
        if self.shape is None:
            if self._dist is not None:
                return self._dist[np.ix_(idx, idx)]
            return self._net.block(idx)
        total = np.zeros((len(idx), len(idx)))
        for hops in self.axis_hops(idx):
            total += hops
        return total

    def check_nodes(self, nodes, *, name: str = "nodes", length: int | None = None) -> np.ndarray:
        """``nodes`` as a 1-D int array of distinct node ids; ValueError otherwise."""
        return validate_nodes(nodes, self.n, name=name, length=length)

    def _dense_nodes(self, nodes) -> np.ndarray:
        idx = np.arange(self.n, dtype=np.int64) if nodes is None else np.asarray(nodes, dtype=np.int64)
        if len(idx) > DENSE_MAX:
            raise ValueError(f"{len(idx)} nodes: distance matrices are dense, at most {DENSE_MAX} nodes "
                             f"({DENSE_MAX ** 2 * 8 / 1e9:.1f} GB each); pass a subset (`nodes`)")
        return idx

    def _need_grid(self, what: str) -> None:
        if self.shape is None:
            raise ValueError(f"{what} needs a mesh or torus, not a network")

    # -- free and busy nodes ---------------------------------------------------

    @property
    def n_free(self) -> int:
        """Number of free nodes."""
        return self._n_free

    @property
    def free(self) -> np.ndarray:
        """Read-only free mask over node ids."""
        v = self._free.view()
        v.setflags(write=False)
        return v

    @property
    def owner(self) -> np.ndarray:
        """Read-only array: the owner of each node (-1 when free)."""
        v = self._owner.view()
        v.setflags(write=False)
        return v

    def is_free(self, i) -> bool:
        """True when node ``i`` is free (ValueError for an unknown node)."""
        try:
            i = operator.index(i)
        except TypeError:
            raise ValueError(f"a node id is an integer, got {i!r}") from None
        if not 0 <= i < self.n:
            raise ValueError(f"node {i} does not exist (machine has {self.n} nodes)")
        return bool(self._free[i])

    def _free_arrays(self):
        if self._cache is None:
            ids = np.flatnonzero(self._free)
            ids.setflags(write=False)
            self._cache = (ids, None)  # the points when first asked for
        return self._cache

    def free_ids(self) -> np.ndarray:
        """Ids of the free nodes, ascending (read-only, cached until a change)."""
        return self._free_arrays()[0]

    def free_points(self) -> np.ndarray:
        """Coordinates of the free nodes, rows matching :meth:`free_ids`."""
        self._need_grid("`free_points`")
        ids, pts = self._free_arrays()
        if pts is None:
            pts = self.coords[ids]
            pts.setflags(write=False)
            self._cache = (ids, pts)
        return pts

    def _check_ids(self, ids) -> np.ndarray:
        arr = np.asarray(ids)
        if arr.dtype.kind not in "iu":
            if arr.size:
                raise RuntimeError(f"node ids must be integers, got {ids!r}")
            arr = arr.astype(np.int64)
        arr = arr.reshape(-1)
        if arr.size == 0:
            return arr.astype(np.int64)
        s = np.sort(arr)
        if s[0] < 0 or s[-1] >= self.n:
            bad = s[0] if s[0] < 0 else s[-1]
            raise RuntimeError(f"node {bad} does not exist (machine has {self.n} nodes)")
        rep = s[1:] == s[:-1]
        if rep.any():
            raise RuntimeError(f"node {s[1:][rep][0]} given twice in one allocation")
        return arr.astype(np.int64, copy=False)

    def allocate(self, ids, *, owner=0) -> np.ndarray:
        """Mark nodes busy for ``owner``; returns the ids as an array.

        Raises
        ------
        RuntimeError
            A node that is busy, unknown, or listed twice.
        """
        if _plain_ids(ids) and take(self._free, self._owner, ids, owner):  # one compiled pass, checks included
            self._n_free -= len(ids)
            self._cache = None
            return ids.reshape(-1)
        arr = self._check_ids(ids)
        busy = ~self._free[arr]
        if busy.any():
            node = int(arr[busy][0])
            raise RuntimeError(f"node {node} is busy (job {int(self._owner[node])})")
        self._free[arr] = False
        self._owner[arr] = owner
        self._n_free -= len(arr)
        self._cache = None
        return arr

    def release(self, ids, *, owner=0) -> None:
        """Free nodes held by ``owner``.

        Raises
        ------
        RuntimeError
            A node that is free, unknown, listed twice, or held by another job.
        """
        if _plain_ids(ids) and give_back(self._free, self._owner, ids, owner):
            self._n_free += len(ids)
            self._cache = None
            return
        arr = self._check_ids(ids)
        wrong = (self._owner[arr] != owner) | self._free[arr]
        if wrong.any():
            node = int(arr[wrong][0])
            state = "free" if self._free[node] else f"held by job {int(self._owner[node])}"
            raise RuntimeError(f"node {node} is {state}, not by job {owner}")
        self._free[arr] = True
        self._owner[arr] = -1
        self._n_free += len(arr)
        self._cache = None

    def reset(self) -> None:
        """Free every node."""
        self._free[:] = True
        self._owner[:] = -1
        self._n_free = self.n
        self._cache = None

    def copy(self) -> Machine:
        """A copy with the same nodes and the same free/busy state."""
        out = self.copy_empty()
        out._free[:] = self._free
        out._owner[:] = self._owner
        out._n_free = self._n_free
        return out

    def copy_empty(self) -> Machine:
        """A machine with the same nodes and links, all nodes free."""
        out = Machine.__new__(Machine)
        out.shape, out.torus, out.labels, out._edges, out._net = self.shape, self.torus, self.labels, self._edges, \
            self._net
        out._init_state(self.n)
        out._coords, out._dist, out._text, out._key = self._coords, self._dist, self._text, self._key
        return out

    # -- text -------------------------------------------------------------------

    def describe(self) -> str:
        """Short text form that :func:`parse_machine` reads back, e.g.
        ``"16x8 mesh"``, ``"8x8x8 torus"`` or ``"8x8 torus(tm)"`` (wrap on x
        only); a dragonfly or fat tree as built by :func:`dragonfly` or
        :func:`fat_tree` (``"fattree:k=4"``); ``"network of N nodes"`` for
        any other network."""
        if self._text is not None:
            return self._text
        if self.shape is None:
            return f"network of {self.n} nodes"
        dims = "x".join(map(str, self.shape))
        if all(self.torus):
            kind = "torus"
        elif any(self.torus):
            kind = "torus(" + "".join("t" if t else "m" for t in self.torus) + ")"
        else:
            kind = "mesh"
        return f"{dims} {kind}"

    def to_map(self, busy: str = "#") -> str:
        """The machine map of a 2D or 3D grid: ``.`` free, ``busy`` busy
        (the format :func:`parse_machine` reads from a file).

        Examples
        --------
        >>> m = Machine((3, 2)); _ = m.allocate([2, 3])
        >>> print(m.to_map(), end="")
        ..#
        #..
        """
        self._need_grid("`to_map`")
        if not 1 <= len(self.shape) <= 3:
            raise ValueError("a machine map draws 1 to 3 axes")
        W = self.shape[0]
        H = self.shape[1] if len(self.shape) > 1 else 1
        layers = []
        for z in range(self.shape[2] if len(self.shape) > 2 else 1):
            rows = []
            for y in range(H):
                base = W * (y + H * z)
                rows.append("".join("." if f else busy for f in self._free[base:base + W]))
            layers.append("\n".join(rows))
        return "\n\n".join(layers) + "\n"

    def __repr__(self) -> str:
        if self.hierarchy is not None or self.tree is not None:
            return f"<Machine network: {self.describe()}, {self.n} nodes>"
        if self.shape is None:
            return f"<Machine network: {self.n} nodes, {len(self.edges)} links>"
        return f"Machine({self.shape}, torus={self.torus if any(self.torus) else False})"

    def __str__(self) -> str:
        return self.describe()


def _plain_ids(ids) -> bool:
    """A non-empty 1-D int64 array: the compiled update takes it as it is."""
    return type(ids) is np.ndarray and ids.dtype == np.int64 and ids.ndim == 1 and ids.size > 0
