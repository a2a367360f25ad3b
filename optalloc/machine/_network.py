"""The checks and tables behind a network machine: links from a NetworkX
graph, a given distance matrix, shortest paths over the links."""

from __future__ import annotations

import math
import operator

import numpy as np


def edge_length(u, v, data: dict, weight) -> float:
    """The length of the link (u, v) of a graph (its ``weight`` attribute,
    1 without one); a one-line ValueError for a self-loop or a length that
    is not a positive finite number."""
    if u == v:
        raise ValueError(f"`G` has a self-loop at node {u!r}; remove self-loops first")
    length = 1.0 if weight is None else data.get(weight, 1.0)
    try:
        length = float(length)
    except (TypeError, ValueError):
        raise ValueError(f"`G` edge ({u!r}, {v!r}): {weight!r} must be a number, got {length!r}") from None
    if not (math.isfinite(length) and length > 0):
        raise ValueError(f"`G` edge ({u!r}, {v!r}): {weight!r} must be positive and finite, got {length}")
    return length


def graph_links(G, weight, max_nodes: int):
    """Labels and links ``(i, j, length)`` of a connected undirected graph;
    a one-line ValueError for what a machine cannot be."""
    if G.is_directed():
        raise ValueError("`G` must be undirected (convert with G.to_undirected())")
    labels = tuple(G.nodes)
    if not labels:
        raise ValueError("`G` has no nodes")
    if len(labels) > max_nodes:
        raise ValueError(f"`G` has {len(labels)} nodes; a network machine holds at most {max_nodes}")
    index = {v: i for i, v in enumerate(labels)}
    best: dict[tuple[int, int], float] = {}
    for u, v, data in G.edges(data=True):
        length = edge_length(u, v, data, weight)
        key = tuple(sorted((index[u], index[v])))
        best[key] = min(length, best.get(key, math.inf))
    edges = tuple((i, j, w) for (i, j), w in sorted(best.items()))
    _check_connected(len(labels), edges)
    return labels, edges


def distance_links(labels, D, edges, max_nodes: int):
    """Labels, the read-only distance matrix and the links of a machine given
    by its distances; a one-line ValueError for a bad matrix, labels or edges."""
    labels = tuple(labels)
    n = len(labels)
    if not 0 < n <= max_nodes:
        raise ValueError("`labels` is empty" if n == 0 else f"{n} nodes; at most {max_nodes}")
    try:
        if len(set(labels)) != n:
            raise ValueError("`labels` must be distinct")
    except TypeError:
        raise ValueError("`labels` must be hashable") from None
    try:
        M = np.array(D, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("`D` must be a square matrix of numbers") from None
    if M.shape != (n, n):
        raise ValueError(f"`D` must be {n} x {n} (one row per label), got shape {M.shape}")
    for bad, what in ((~np.isfinite(M), "be finite"), (np.diag(M) != 0, "have a zero diagonal"),
                      (M < 0, "not be negative"), (M != M.T, "be symmetric")):
        if np.any(bad):
            raise ValueError(f"`D` must {what}")
    if edges is None:
        iu, ju = np.triu_indices(n, k=1)
        keep = M[iu, ju] > 0
        iu, ju = iu[keep], ju[keep]
        links = tuple(zip(iu.tolist(), ju.tolist(), M[iu, ju].tolist()))
    else:
        best = {}
        for e in edges:
            try:
                i, j = (operator.index(v) for v in e)
            except (TypeError, ValueError):
                raise ValueError(f"`edges` must hold node id pairs, got {e!r}") from None
            if not (0 <= i < n and 0 <= j < n) or M[i, j] <= 0:
                raise ValueError(f"`edges`: ({i}, {j}) must join two nodes at a positive distance")
            best[(min(i, j), max(i, j))] = float(M[i, j])
        links = tuple((i, j, w) for (i, j), w in sorted(best.items()))
    M.setflags(write=False)
    return labels, M, links


def _adjacency(n: int, edges):
    from scipy.sparse import csr_matrix

    if edges:
        u, v, w = (np.array(c) for c in zip(*edges))
    else:
        u = v = np.zeros(0, dtype=np.int64)
        w = np.zeros(0)
    return csr_matrix((w.astype(np.float64), (u.astype(np.int64), v.astype(np.int64))), shape=(n, n))


def _check_connected(n: int, edges) -> None:
    from scipy.sparse.csgraph import connected_components

    count, label = connected_components(_adjacency(n, edges), directed=False)
    if count > 1:
        other = int(np.argmax(label != label[0]))
        raise ValueError(f"`G` must be connected: no path from node id 0 to node id {other}")


def graph_distances(n: int, edges) -> np.ndarray:
    from scipy.sparse.csgraph import shortest_path

    D = shortest_path(_adjacency(n, edges), method="D", directed=False)
    D.setflags(write=False)
    return D


#: Bytes of shortest-path rows a large network keeps between calls.
ROW_BYTES = 1 << 27


class GraphRows:
    """Shortest-path distances of a network given by its links: the whole
    matrix up to ``matrix_max`` nodes (built once), beyond that the rows of
    the nodes asked for (Dijkstra from them, ``indices=``), the last ones
    kept up to :data:`ROW_BYTES`."""

    def __init__(self, n: int, edges, matrix_max: int):
        from collections import OrderedDict

        self.n = n
        self.edges = edges
        self.dense = n <= matrix_max
        self._D = None
        self._A = None
        self._rows: OrderedDict = OrderedDict()
        self._keep = max(1, ROW_BYTES // (8 * n))

    def matrix(self) -> np.ndarray:
        if self._D is None:
            self._D = graph_distances(self.n, self.edges)
        return self._D

    def rows(self, sources: np.ndarray, columns=None) -> np.ndarray:
        """Distances from each of ``sources`` to ``columns`` (default every node)."""
        from scipy.sparse.csgraph import shortest_path

        sources = np.asarray(sources, dtype=np.int64)
        width = self.n if columns is None else len(columns)
        out = np.empty((len(sources), width))
        missing = []
        for t, s in enumerate(sources.tolist()):
            row = self._rows.get(s)
            if row is None:
                missing.append(t)
            else:
                self._rows.move_to_end(s)
                out[t] = row if columns is None else row[columns]
        if missing:
            if self._A is None:
                self._A = _adjacency(self.n, self.edges)
            miss = np.asarray(missing)
            step = self._keep
            for lo in range(0, len(miss), step):
                part = miss[lo:lo + step]
                R = shortest_path(self._A, method="D", directed=False, indices=sources[part])
                out[part] = R if columns is None else R[:, columns]
                for s, row in zip(sources[part].tolist(), R):
                    self._rows[s] = row
                while len(self._rows) > self._keep:
                    self._rows.popitem(last=False)
        return out

    def pair_distances(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.dense:
            return np.asarray(self.matrix()[a, b], dtype=np.float64)
        a, b = np.broadcast_arrays(a, b)
        if len(np.unique(b)) < len(np.unique(a)):
            a, b = b, a
        src, inverse = np.unique(a, return_inverse=True)
        out = np.empty(a.shape)
        flat_b, flat_inv, flat = b.reshape(-1), inverse.reshape(-1), out.reshape(-1)
        step = self._keep
        for lo in range(0, len(src), step):
            R = self.rows(src[lo:lo + step])
            sel = np.flatnonzero((flat_inv >= lo) & (flat_inv < lo + step))
            flat[sel] = R[flat_inv[sel] - lo, flat_b[sel]]
        return out

    def block(self, idx: np.ndarray) -> np.ndarray:
        if self.dense:
            return self.matrix()[np.ix_(idx, idx)]
        return self.rows(idx, idx)
