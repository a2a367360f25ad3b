""":func:`dragonfly_exact`: the exact k-subset optimum on a dragonfly, from counts."""

from __future__ import annotations

import time

import numpy as np

from ..._jit import njit
from ..._subset import metric_subset_result
from ..._validate import as_int, validate_positive
from ..heuristics.centres import hierarchy_gen_alg
from ..search import block_search, block_structure, deadline_array
from ._search import count_bound, count_search
from ._tables import MAX_ROUTERS, count_form_fits, dragonfly_tables, is_dragonfly

__all__ = ["dragonfly_exact"]

#: nodes of the count search before, on a machine of at most _BLOCKS_UP_TO free nodes, the search over
#: block and class counts of the matrix gets a turn
_FIRST_NODES = 300_000
_BLOCKS_UP_TO = 1024
#: ... and at least this share of its nodes busy (where many routers hold a single free node and the
#: counts branch widely; on a nearly idle machine the count search is the faster)
_BUSY_SHARE = 0.1
#: the least seconds that turn gets
_BLOCKS_LEAST = 0.2


def _q_of(w: float, k: int) -> int:
    """Q of a set of W (``W = k (k - 1) + (3 k^2 - Q) / 2``)."""
    return round(3 * k * k - 2 * (w - k * (k - 1)))


def _w_of(q: int, k: int) -> float:
    return float(k * (k - 1) + (3 * k * k - q) / 2)


def _nodes(tables, vectors, free_mask) -> np.ndarray:
    """The chosen node ids of the groups' vertex vectors: the lowest free
    nodes of each router."""
    counts = np.zeros(len(tables.routers), dtype=np.int64)
    for b, u in enumerate(vectors.tolist()):
        if u >= 0:
            lo, hi = tables.gptr[b], tables.gptr[b + 1]
            counts[lo:hi] = tables.vec[u, :hi - lo]
    return _router_nodes(tables, counts, free_mask)


def _router_nodes(tables, counts, free_mask) -> np.ndarray:
    """The node ids, ascending, of ``counts[i]`` nodes on router
    ``tables.routers[i]``: the lowest free nodes of each."""
    p = tables.unit_size
    per = np.asarray(free_mask, dtype=bool).reshape(-1, p)
    out = [r * p + np.flatnonzero(per[r])[:c] for r, c in zip(tables.routers.tolist(), counts.tolist()) if c]
    return np.sort(np.concatenate(out)).astype(np.int64) if out else np.zeros(0, dtype=np.int64)


@njit(cache=True)
def _descent(M, f, c):  # pragma: no cover - compiled by numba
    """Moves of one chosen node from a router to another with a free node
    left, the move that raises Q = c' M c most first, until none raises it
    (c changed in place). Moving a node from router a to b changes Q by
    2 (Mc)_b - 2 (Mc)_a + M_aa + M_bb - 2 M_ab."""
    R = len(f)
    g = np.zeros(R, dtype=np.int64)
    for v in range(R):
        if c[v]:
            for w in range(R):
                g[w] += M[w, v] * c[v]
    while True:
        best, ba, bb = 0, -1, -1
        for a in range(R):
            if c[a] == 0:
                continue
            for b in range(R):
                if b != a and c[b] < f[b]:
                    d = 2 * (g[b] - g[a]) + M[a, a] + M[b, b] - 2 * M[a, b]
                    if d > best:
                        best, ba, bb = d, a, b
        if ba < 0:
            return c
        c[ba] -= 1
        c[bb] += 1
        for w in range(R):
            g[w] += M[w, bb] - M[w, ba]


def _improved(tables, nodes, free, h, w):
    """The set of ``nodes`` after :func:`_descent` on its router counts, and
    its W (the same set when no move helps)."""
    p = tables.unit_size
    where = np.full(h.units, -1, dtype=np.int64)
    where[tables.routers] = np.arange(len(tables.routers))
    c = np.bincount(where[np.asarray(nodes) // p], minlength=len(tables.routers)).astype(np.int64)
    start = c.copy()
    c = _descent(tables.M, tables.free, c)
    if np.array_equal(c, start):
        return nodes, w
    out = _router_nodes(tables, c, free)
    better = float(h.weight(out))
    return (out, better) if better < w else (nodes, w)


def _checked(tables, vectors, free, h, q, k):
    """The node ids and W of the count search's vectors, checked against its Q."""
    nodes = _nodes(tables, vectors, free)
    w = h.weight(nodes)
    if abs(w - _w_of(q, k)) > 1e-6 or len(nodes) != k:
        raise RuntimeError(f"internal error: the count search's set weighs {w}, its counts {_w_of(q, k)}")
    return nodes, w


def _blocks(machine, k, w, budget):
    """The search over block and class counts of the free nodes' matrix
    within ``budget`` seconds, below W = w: (node ids, W, proven) when it
    found a lighter set or proved w optimal (node ids None: the set of W
    w stands), else None."""
    if budget <= 0:
        return None
    ids = np.asarray(machine.free_ids(), dtype=np.int64)
    D = np.asarray(machine.distances(ids), dtype=float)
    structure = block_structure(D)
    if structure is None:
        return None
    _, rows, lower = block_search(structure, k, float(w), time_limit=budget)
    if rows is None and lower is None:
        return None
    nodes = np.sort(ids[rows]) if rows is not None else None
    if nodes is None:  # proven: nothing lighter than w
        return None if lower is None else (None, w, True)
    return nodes, float(machine.hierarchy.weight(nodes)), lower is not None


def dragonfly_exact(machine, k, *, time_limit=None, node_limit=None):
    """The least W of k free nodes of a dragonfly, proven by a search over
    group and router counts.

    W of a set depends only on how many chosen nodes sit on each router;
    some optimum fills every router it uses but at most one; the search
    (:mod:`._search`) runs over group counts, then the groups' router
    counts, with bounds from the pairs within a group, the greatest saving
    between two groups at their counts and the best partners of the nodes
    still to place. It starts from Gen-Alg's set, improved by moving one
    node at a time to another router while that lowers W.

    Parameters
    ----------
    machine : Machine
        A dragonfly (:func:`optalloc.machine.dragonfly`, any arrangement);
        its free nodes are the candidates.
    k : int
        Nodes to choose, 1 <= k <= free nodes.
    time_limit : float, optional
        Seconds; on expiry the best set found is returned with the
        greatest bound of the nodes the search left open (termination
        ``"time_limit"``).
    node_limit : int, optional
        Nodes of the search; past it, as on a time limit (termination
        ``"node_limit"``).

    Returns
    -------
    SubsetResult
        ``indices`` node ids; ``method`` ``"exact"``; ``extra``: ``nodes``
        searched, ``phase`` ``"counts"``.

    Raises
    ------
    ValueError
        ``machine`` is not a dragonfly, its groups have more than
        :data:`~optalloc.ksubset.dragonfly.MAX_ROUTERS` routers (the
        vertex vectors of a group would not fit), or k is out of range.

    Examples
    --------
    >>> from optalloc.machine import dragonfly
    >>> r = dragonfly_exact(dragonfly(), 16)
    >>> r.objective, r.status
    (424.0, 'optimal')
    """
    start = time.perf_counter()
    if not is_dragonfly(machine):
        raise ValueError(f"`machine` must be a dragonfly, got {machine!r}")
    if not count_form_fits(machine.hierarchy):
        raise ValueError(f"the count search takes dragonflies of at most {MAX_ROUTERS} routers per group, the "
                         f"{machine.describe()} has {machine.hierarchy.units_per_block}")
    k = as_int(k, "k")
    n = machine.n_free
    if not 1 <= k <= n:
        raise ValueError(f"`k` must be between 1 and the number of free nodes ({n}) of the "
                         f"{machine.describe()}, got {k}")
    time_limit = validate_positive(time_limit, "time_limit")
    node_limit = 10**15 if node_limit is None else int(validate_positive(node_limit, "node_limit", integer=True))
    h = machine.hierarchy
    free = np.asarray(machine.free)
    nodes, _, w = hierarchy_gen_alg(h, free, k)
    extra = {"phase": "counts", "nodes": 0}
    if k <= 2 or k == n:  # Gen-Alg is exact for k <= 2; k = n has one answer
        if k == n:
            nodes = np.flatnonzero(free)
            w = h.weight(nodes)
        return metric_subset_result(None, np.arange(k), ids=nodes, coords=None, method="exact", start=start,
                                    termination="optimal", message="k <= 2 or k = n", extra=extra, exact=True,
                                    weight=(float(w), True))
    tables = dragonfly_tables(h, free, k)
    nodes, w = _improved(tables, nodes, free, h, w)  # Gen-Alg's set, then node moves: the first target
    deadline = deadline_array(time_limit)
    busy = n <= _BLOCKS_UP_TO and n <= (1 - _BUSY_SHARE) * machine.n
    first = min(node_limit, _FIRST_NODES) if busy else node_limit
    t0 = time.perf_counter()
    q, vectors, finished, searched, leaves, upper = count_search(tables, k, _q_of(w, k), deadline=deadline,
                                                                 node_limit=first)
    if vectors is not None:
        nodes, w = _checked(tables, vectors, free, h, q, k)
    if not finished and first < node_limit and time.perf_counter() < deadline[0]:
        # a busy machine, where the counts branch widely: the search over block and class counts of the
        # free nodes' matrix, for as long as the count search took, then the count search from its set
        found = _blocks(machine, k, w, min(max(time.perf_counter() - t0, _BLOCKS_LEAST), deadline[0] -
                                           time.perf_counter()))
        if found is not None:
            if found[0] is not None:
                nodes, w = found[0], found[1]
            if found[2]:
                extra.update(phase="blocks", nodes=searched, count_leaves=leaves)
                return metric_subset_result(None, np.arange(k), ids=nodes, coords=None, method="exact",
                                            start=start, termination="optimal", extra=extra, exact=True,
                                            message="proven by the search over block and class counts",
                                            weight=(float(w), True))
        q, vectors, finished, more, more_leaves, upper = count_search(tables, k, _q_of(w, k), deadline=deadline,
                                                                      node_limit=node_limit - searched)
        searched, leaves = searched + more, leaves + more_leaves
        if vectors is not None:
            nodes, w = _checked(tables, vectors, free, h, q, k)
    extra["nodes"] = searched
    extra["count_leaves"] = leaves
    if finished:
        bound, termination, message = float(w), "optimal", "proven by the search over group and router counts"
    else:
        # the nodes left open: none holds a set above their greatest bound
        bound = min(float(w), _w_of(min(upper, count_bound(tables, k, [])), k))
        stopped = time.perf_counter() - start >= (time_limit or 0) if time_limit is not None else False
        termination = "time_limit" if stopped else "node_limit"
        message = (f"time limit of {time_limit} s reached" if stopped else f"node limit of {node_limit} reached")
    return metric_subset_result(None, np.arange(k), ids=nodes, coords=None, method="exact", start=start,
                                bound=bound, termination=termination, message=message, extra=extra, exact=True,
                                weight=(float(w), True))
