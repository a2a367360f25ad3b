"""What a machine is made of besides its nodes: its links, and the
structure or digest that identifies its distances (part of
:class:`~optalloc.machine.Machine`)."""

from __future__ import annotations

import numpy as np

from ._limits import PAIRS_MAX, _strides
from ._network import GraphRows
from ._tree import SwitchTree, fat_tree_switches, tree_from_graph


def matrix_refusal(what: str, n: int, most: int) -> str:
    """Why the whole distance matrix of a large network is not built: one line, with its size."""
    return (f"the whole distance matrix of the {what} would take {n * n * 8 / 1e9:.1f} GB; it is built up to {most} "
            "nodes: read pair_distances or distances(nodes)")


class MachineLinks:
    """The links and metric identity of a :class:`Machine` (its base class)."""

    @classmethod
    def _generated(cls, hierarchy, labels, text: str):
        """A dragonfly or fat tree: distances from its :class:`Hierarchy`."""
        self = cls.__new__(cls)
        self.shape, self.torus, self.labels, self._edges, self._net = None, (), labels, None, hierarchy
        self._init_state(hierarchy.n)
        self._text = text
        return self

    @classmethod
    def from_tree(cls, G, hosts, *, weight: str | None = None, root=None):
        """A network machine whose nodes are the hosts of a tree of switches.

        The distance of two hosts is the length of the one path between
        them in G, worked out from the tree (no matrix): a Slurm tree
        topology, or any tree of switches. The exact k-subset solver runs
        on such a machine in polynomial time.

        Parameters
        ----------
        G : networkx.Graph
            An undirected tree (connected, one link fewer than vertices)
            over the hosts and the switches.
        hosts : sequence
            The vertices of G that are compute nodes, in node-id order (the
            machine's ``labels``); usually its leaves. The other vertices
            are switches.
        weight : str, optional
            Edge attribute holding a link's length (default: hops).
        root : optional
            The vertex the tree hangs from (default: a centre of the tree);
            distances do not depend on it.

        Raises
        ------
        ValueError
            If G is directed, not a tree, or a host is not a vertex of G.

        Examples
        --------
        >>> import networkx as nx
        >>> from optalloc.machine import Machine
        >>> G = nx.Graph([("top", "s1"), ("top", "s2"), ("s1", "a"), ("s1", "b"), ("s2", "c")])
        >>> m = Machine.from_tree(G, ["a", "b", "c"])
        >>> m.pair_distances([0, 0], [1, 2]).tolist(), m.tree.switch_labels
        ([2.0, 4.0], ('top', 's1', 's2'))
        """
        tree, labels = tree_from_graph(G, hosts, weight=weight, root=root)
        self = cls.__new__(cls)
        self.shape, self.torus, self.labels, self._edges, self._net = None, (), labels, None, tree
        self._init_state(tree.n)
        self._text = f"tree of {tree.n} nodes and {tree.V - tree.n} switches"
        return self

    @property
    def tree(self):
        """The :class:`SwitchTree` of a machine whose distances are a tree's
        (built with :meth:`from_tree`, or a fat tree seen as host, edge
        switch, pod and core), else None."""
        net = self._net
        if isinstance(net, SwitchTree):
            return net
        if net is not None and getattr(net, "kind", None) == "fattree":
            if net._switch_tree is None:
                net._switch_tree = fat_tree_switches(net)
            return net._switch_tree
        return None

    @property
    def edges(self) -> tuple[tuple[int, int, float], ...] | None:
        """A network's links ``(i, j, length)``, i < j; None on a grid.

        A dragonfly or fat tree, whose nodes meet through routers or
        switches, lists every pair of nodes with its distance (shortest
        paths over these links give the distances back), up to 4096 nodes;
        a larger one raises ValueError (read :meth:`pair_distances`).
        """
        if self._edges is None and self._net is not None and not isinstance(self._net, GraphRows):
            if self.n > PAIRS_MAX:
                raise ValueError(f"the {self.describe()} has {self.n} nodes; its links (every pair of nodes) are "
                                 f"listed up to {PAIRS_MAX}: read pair_distances or distances(nodes)")
            iu, ju = np.triu_indices(self.n, k=1)
            d = self._net.pair_distances(iu, ju)
            self._edges = tuple(zip(iu.tolist(), ju.tolist(), d.tolist()))
        return self._edges

    @property
    def hierarchy(self):
        """The structure of a dragonfly or fat tree (node, unit, block:
        router and group, edge switch and pod), else None."""
        net = self._net
        return net if net is not None and not isinstance(net, (GraphRows, SwitchTree)) else None

    @property
    def metric_key(self) -> tuple:
        """A hashable value that is equal for two machines of the same nodes
        and distances (computed once per machine): for caches keyed on the
        machine."""
        if self.shape is not None:
            return (self.shape, self.torus)
        if self._net is not None and not isinstance(self._net, GraphRows):  # a dragonfly, fat tree or tree
            return self._net.key
        if self._key is None:
            import hashlib

            h = hashlib.blake2b(digest_size=16)
            if self._net is None:  # given by its distances (and its links, when not every pair)
                h.update(np.ascontiguousarray(self._dist).tobytes())
                if len(self._edges) != np.count_nonzero(self._dist) // 2:
                    h.update(np.asarray(self._edges, dtype=np.float64).tobytes())
            else:  # a graph: its links
                h.update(np.asarray(self._edges, dtype=np.float64).tobytes())
            self._key = (self.n, h.hexdigest())
        return self._key

    def links(self) -> np.ndarray:
        """(L, 2) int array of every directed link (u, v) of the machine.

        A mesh or torus has a link to each neighbour at +-1 along every
        axis (wrapping where the axis wraps); a wrapping side of 2 gives one
        link each way, a side of 1 none. A network has both directions of
        every edge.

        Examples
        --------
        >>> from optalloc.machine import Machine
        >>> len(Machine((3, 3)).links()), len(Machine((4, 4), torus=True).links())
        (24, 64)
        """
        if self.shape is None:
            e = np.array([(u, v) for u, v, _ in self.edges], dtype=np.int64).reshape(-1, 2)
            return np.concatenate([e, e[:, ::-1]])
        coords = self.coords
        ids = np.arange(self.n, dtype=np.int64)
        out = []
        for k, (side, stride, wrap) in enumerate(zip(self.shape, _strides(self.shape), self.torus)):
            x = coords[:, k]
            for step in (1, -1):
                if wrap:
                    if side < 2 or (side == 2 and step == -1):
                        continue
                    ok = np.ones(self.n, dtype=bool)
                else:
                    ok = (x + step >= 0) & (x + step < side)
                head = ids + ((x + step) % side - x) * stride
                out.append(np.stack([ids[ok], head[ok]], axis=1))
        # order: by tail, then axis and direction
        links = np.concatenate(out) if out else np.zeros((0, 2), dtype=np.int64)
        return links[np.argsort(links[:, 0], kind="stable")]
