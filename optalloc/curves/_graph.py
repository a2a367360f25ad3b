"""Orderings of any connected network: curves, starts, the QAP engine, the IP."""

from __future__ import annotations

import time

import numpy as np

from .._progress import Progress, check_progress, library_progress
from .._result import OrderResult, status_of
from ..machine import Machine
from ._large import SPARSE_FROM, SPARSE_METHODS, order_large
from ._starts import _CURVES, _coordinates, curve_start, spectral_start

#: Largest network ordered (its distance matrix is dense).
DENSE_MAX = 20000

#: Methods of :func:`order_graph`.
GRAPH_METHODS = ("auto", "qap", "brute", "ip", "gilbert", "hilbert", "snake", "row-major", "moore", "closed-gilbert",
                 "closed-snake", "spectral", "greedy", "sparse")


def _machine_graph(machine: Machine):
    """The graph of a :class:`~optalloc.machine.Machine`, nodes in id order, and its length attribute.

    A mesh or torus gives its nodes labelled by their coordinate tuples
    (as ``nx.grid_2d_graph`` does) with a link to each neighbour, wrapping
    where an axis wraps; a network gives its own labels and links, with
    their lengths in the edge attribute ``"length"``.  The attribute name
    is returned, or None when every link is one hop.
    """
    import networkx as nx

    if machine.n > DENSE_MAX:
        raise ValueError(f"the machine has {machine.n} nodes; orderings use a dense distance matrix, at most "
                         f"{DENSE_MAX} nodes")
    G = nx.Graph()
    if machine.is_grid:
        labels = [tuple(int(c) for c in row) for row in machine.coords]
        G.add_nodes_from(labels)
        G.add_edges_from((labels[u], labels[v]) for u, v in machine.links().tolist())
        return G, None
    labels = list(machine.labels)
    G.add_nodes_from(labels)
    G.add_edges_from((labels[i], labels[j], {"length": w}) for i, j, w in machine.edges)
    return G, ("length" if any(w != 1 for _, _, w in machine.edges) else None)


def _as_graph(G, weight: str | None):
    """``G`` and ``weight``, a Machine turned into its graph."""
    if not isinstance(G, Machine):
        return G, weight
    if weight is not None:
        raise ValueError("`weight` names an edge attribute of a networkx graph; a Machine carries its own "
                         "link lengths")
    return _machine_graph(G)


def graph_distances(G, *, weight: str | None = None):
    """Node labels (in ``G``'s order) and the shortest-path matrix of a connected graph.

    ``G`` may be a :class:`~optalloc.machine.Machine`: a mesh or torus
    labelled by coordinate tuples, or a network by its labels, in node id
    order.  Raises a one-line ValueError for directed, empty, disconnected
    graphs, self-loops and non-positive edge lengths.
    """
    import networkx as nx
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import shortest_path

    G, weight = _as_graph(G, weight)
    if not isinstance(G, nx.Graph):
        raise ValueError(f"`G` must be a networkx graph, got {type(G).__name__}")
    if G.is_directed():
        raise ValueError("`G` must be undirected (pass G.to_undirected() to order a directed network)")
    if G.number_of_nodes() == 0:
        raise ValueError("`G` has no node")
    if nx.number_of_selfloops(G):
        raise ValueError(f"`G` has {nx.number_of_selfloops(G)} self-loop(s); remove them (nx.selfloop_edges)")
    if not nx.is_connected(G):
        raise ValueError(f"`G` is not connected ({nx.number_connected_components(G)} components); order each "
                         "component (nx.connected_components) or add the missing links")
    labels = list(G.nodes)
    if len(labels) > DENSE_MAX:
        raise ValueError(f"`G` has {len(labels)} nodes; orderings use a dense distance matrix, at most "
                         f"{DENSE_MAX} nodes ({DENSE_MAX ** 2 * 8 / 1e9:.1f} GB)")
    index = {v: i for i, v in enumerate(labels)}
    rows, cols, vals = [], [], []
    for u, v, data in G.edges(data=True):
        w = 1.0 if weight is None else data.get(weight, 1.0)
        try:
            w = float(w)
        except (TypeError, ValueError):
            raise ValueError(f"edge ({u!r}, {v!r}) has a non-numeric {weight!r}: {w!r}") from None
        if not (w > 0 and np.isfinite(w)):
            raise ValueError(f"edge ({u!r}, {v!r}) has {weight!r} = {w}; lengths must be positive and finite")
        rows.append(index[u])
        cols.append(index[v])
        vals.append(w)
    n = len(labels)
    A = coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    # parallel edges of a multigraph: the shortest counts (csgraph keeps the minimum
    # only for explicit duplicates summed by tocsr, so take the minimum by hand)
    if G.is_multigraph():
        best = {}
        for r, c, v in zip(rows, cols, vals):
            key = (min(r, c), max(r, c))
            best[key] = min(v, best.get(key, np.inf))
        r, c = zip(*best)
        A = coo_matrix((list(best.values()), (r, c)), shape=(n, n)).tocsr()
    D = shortest_path(A, directed=False, unweighted=weight is None)
    return labels, D


def greedy_start(D: np.ndarray) -> np.ndarray:
    """Nearest-neighbour path from a peripheral node (largest eccentricity, lowest index)."""
    n = len(D)
    cur = int(np.argmax(D.max(axis=1)))
    seen = np.zeros(n, dtype=bool)
    out = [cur]
    seen[cur] = True
    for _ in range(n - 1):
        d = np.where(seen, np.inf, D[cur])
        cur = int(np.argmin(d))
        seen[cur] = True
        out.append(cur)
    return np.array(out, dtype=np.intp)


def order_graph(G, *, method: str = "auto", weights=None, ring: bool = False, weight: str | None = None,
                rng=None, time_limit: float | None = None, iterations: int | None = None,
                progress=None) -> OrderResult:
    """A linear order of the nodes of a network that keeps neighbours close.

    Minimises the ordering objective of SAND2003-3702 sec. 4.2,
    ``sum over ranks i < j of w(r(i, j)) * dist(v_i, v_j)``, over orders of
    the nodes of a connected NetworkX graph.

    Parameters
    ----------
    G : networkx.Graph or Machine
        Connected, undirected, without self-loops (any labels); or a
        :class:`~optalloc.machine.Machine`: a mesh or torus (its nodes
        labelled by coordinates, so the curves apply) or a network.
    method : str, default "auto"
        ``"qap"``: the ordering as a quadratic assignment (flow
        ``w(r(i, j))`` between ranks, distance between nodes) solved by the
        robust tabu search of :mod:`optalloc.qap`, started from the best of
        the coordinate curves (when nodes are labelled by integer
        coordinates), a spectral order and a greedy nearest-neighbour path,
        each polished by 2-swap descent; ``"brute"``: every order (up to
        9 nodes); ``"ip"``: the exact integer program
        (:func:`optalloc.curves.order_ip`, small graphs, slow beyond 8 nodes);
        ``"gilbert"``, ``"hilbert"``, ``"snake"``, ``"row-major"``: box
        curves over the nodes' coordinates; ``"moore"``,
        ``"closed-gilbert"``, ``"closed-snake"``: the closed curves (last
        node next to the first; on a mesh or torus Machine they use its
        wrap links, see :func:`optalloc.curves.closed_gilbert`); ``"spectral"``, ``"greedy"``:
        the starts alone; ``"sparse"``: without a distance matrix (below);
        ``"auto"``: ``"brute"`` up to 8 nodes, ``"qap"`` up to 256, else
        ``"sparse"``.

        Above 256 nodes the curves, ``"spectral"`` (meshes and tori),
        ``"greedy"`` and ``"sparse"`` build no N x N matrix: the objective
        sums the rank pairs whose weight float arithmetic can see (a few
        dozen offsets under the default weights; the weight left out is
        ``extra["weight_left_out"]``), their distances read pair by pair
        (:meth:`~optalloc.machine.Machine.pair_distances`).
        ``"sparse"`` starts from the box curves (a mesh or torus), or the
        node id order, the labels' order and a greedy nearest-neighbour
        path (a network), and improves the best by swaps of two ranks
        evaluated in O(offsets) reads each.  Its bound is the
        Gilmore-Lawler bound with the assignment relaxed: each rank's
        term is minimised over the nodes.
    weights : callable, array_like or None
        ``w(d)`` for rank distance d (default ``2**-(d-1)``).
    ring : bool
        Rank distance around a ring of ranks.
    weight : str, optional
        Edge attribute holding link lengths (default: every link is one
        hop); not with a Machine, which has its own lengths.
    rng : None, int or numpy.random.Generator
        Seed of the search.
    time_limit : float, optional
        Seconds for the search ("qap") or the solver ("ip").
    iterations : int, optional
        Tabu moves ("qap"); default ``20 N`` when no time limit is given.
        "sparse": swaps evaluated (default ``20 N``; the search also stops
        after 8 rounds of 2048 swaps without a gain).
    progress : bool or callable, optional
        "qap": a callable gets ``(iteration, best)`` every 1000 moves of the
        tabu search, ``best`` the best ordering objective so far.  True:
        progress on stderr, for every method (a bar on a terminal, a line
        every few seconds and one at the end elsewhere).  Default: silent.

    Returns
    -------
    OrderResult
        ``order[r]`` is the index (in ``list(G.nodes)``; for a Machine, the
        node id) of the node at rank r, ``labels`` the node labels in order
        (coordinate tuples on a mesh or torus),
        ``objective`` the ordering objective, ``bound`` a proven lower bound
        (the Gilmore-Lawler bound of the QAP, or the IP's bound; above 256
        nodes the relaxed one of ``"sparse"``, for every method), ``gap``,
        ``status`` ("optimal" only when proven), ``extra["starts"]`` the
        objective of each start.

    Examples
    --------
    >>> import networkx as nx
    >>> from optalloc.curves import order_graph
    >>> G = nx.grid_2d_graph(4, 4)
    >>> res = order_graph(G, rng=0, iterations=200)
    >>> res.objective <= order_graph(G, method="gilbert").objective
    True
    >>> order_graph(nx.path_graph(5)).labels in ([0, 1, 2, 3, 4], [4, 3, 2, 1, 0])
    True
    >>> from optalloc.machine import Machine
    >>> order_graph(Machine((3, 2)), method="snake").order.tolist()
    [0, 1, 2, 5, 4, 3]
    >>> big = order_graph(Machine((20, 20)), rng=0)
    >>> big.method, big.bound <= big.objective
    ('sparse', True)
    """
    start_time = time.perf_counter()
    if method not in GRAPH_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(GRAPH_METHODS)}")
    check_progress(progress)
    report, scope = library_progress(progress, label="order")
    with scope:
        return _order_graph(G, method, weights, ring, weight, rng, time_limit, iterations, report, start_time)


def _order_graph(G, method, weights, ring, weight, rng, time_limit, iterations, progress, start_time):
    """:func:`order_graph` with ``progress`` None, a callable or a Progress."""
    from ._objective import order_objective, rank_weights

    size = G.n if isinstance(G, Machine) else (G.number_of_nodes() if hasattr(G, "number_of_nodes") else 0)
    if method == "sparse" or (size > SPARSE_FROM and method in ("auto", *SPARSE_METHODS)):
        method = "sparse" if method == "auto" else method
        return order_large(G, method, weights, ring, weight, rng, time_limit, iterations, progress, start_time)
    grid = G if isinstance(G, Machine) and G.is_grid else None
    G, weight = _as_graph(G, weight)
    labels, D = graph_distances(G, weight=weight)
    n = len(labels)
    c = rank_weights(n, weights, ring=ring)
    if method == "auto":
        method = "brute" if n <= 8 else "qap"
    extra: dict = {}
    bound = None
    termination = "completed"
    if method == "ip":
        from ._ip import order_ip

        res = order_ip(D, weights=weights, ring=ring, time_limit=time_limit)
        order, bound, termination = np.asarray(res.order), res.bound, res.termination
        extra.update(res.extra)
    elif method == "brute":
        if n > BRUTE_MAX:
            raise ValueError(f"brute force enumerates N!/2 orders; N = {n} is above {BRUTE_MAX}")
        order, bound = _brute(D, c)
    elif method in _CURVES[4:] and grid is not None and grid.ndim in (2, 3):
        from ._orders import box_order  # the closed curves see the machine's wrap links

        order = grid.node_ids(box_order(grid, method.replace("-", "_"))).astype(np.intp)
    elif method in _CURVES:
        order = curve_start(labels, method)
    elif method == "spectral":
        order = spectral_start(G, rng)
    elif method == "greedy":
        order = greedy_start(D)
    else:
        order, bound, extra = _qap_order(G, labels, D, c, rng, time_limit, iterations, progress)
    value = order_objective(D, order, weights=weights, ring=ring)
    if bound is not None and bound >= value - 1e-9 * max(1.0, abs(value)):
        termination, bound = "optimal", min(bound, value)
    total = float(c[np.abs(np.subtract.outer(np.arange(n), np.arange(n)))].sum() / 2)
    return OrderResult(
        order=np.asarray(order, dtype=np.intp), labels=[labels[i] for i in order], objective=value,
        average=value / total if total else 0.0, bound=bound,
        guarantee=1.0 if termination == "optimal" else None, status=status_of(termination),
        termination=termination, method=method, message=extra.pop("message", ""),
        runtime=time.perf_counter() - start_time, extra=extra)


#: Largest graph ordered by enumeration.
BRUTE_MAX = 9


def _brute(D: np.ndarray, c: np.ndarray):
    """Best order over all permutations: the QAP (rank flows, node distances) enumerated."""
    from optalloc.qap import brute

    n = len(D)
    F = c[np.abs(np.subtract.outer(np.arange(n), np.arange(n)))]
    res = brute(F, D, limit=BRUTE_MAX)
    return res.permutation, res.bound / 2  # the QAP counts each rank pair twice


def _qap_order(G, labels, D, c, rng, time_limit, iterations, progress=None):
    """The ordering as a QAP: flow c(|i-j|) between ranks i, j; distance between nodes."""
    from optalloc._clock import Stopwatch
    from optalloc.qap import gilmore_lawler, local_search, tabu

    clock = Stopwatch(time_limit)
    rng = np.random.default_rng(rng)
    n = len(labels)
    F = c[np.abs(np.subtract.outer(np.arange(n), np.arange(n)))]
    starts = {}
    if _coordinates(labels) is not None:
        for name in ("gilbert", "snake"):
            starts[name] = curve_start(labels, name)
    starts["greedy"] = greedy_start(D)
    if n >= 3:
        starts["spectral"] = spectral_start(G, rng)
    values = {}
    best_name, best_p, best_v = None, None, np.inf
    for name, p in starts.items():
        values[name] = float((F * D[np.ix_(p, p)]).sum() / 2)
        if best_p is not None and clock.expired():  # no time left to polish this start
            continue
        remaining = clock.remaining()
        polished = local_search(F, D, p, time_limit=None if remaining is None else max(remaining, 1e-6))
        if polished.objective < best_v:
            best_name, best_p, best_v = name, polished.permutation, polished.objective
    # the QAP counts each rank pair twice
    bound = gilmore_lawler(F, D) / 2
    extra = {"starts": values, "best_start": best_name}
    if n < 2 or best_v / 2 <= bound or clock.expired():
        return best_p, bound, extra
    if iterations is None and time_limit is None:
        iterations = 20 * n
    # the QAP counts each rank pair twice: progress shows the ordering objective
    if isinstance(progress, Progress):
        progress.setdefaults(total=iterations, unit="iterations")
        progress.track(0, best=best_v / 2)
        step = lambda it, best: progress.track(it, best=best / 2)
    else:
        step = None if progress is None else (lambda it, best: progress(it, best / 2))
    remaining = clock.remaining()
    res = tabu(F, D, start=best_p, rng=rng, iterations=iterations,
               time_limit=None if remaining is None else max(remaining, 1e-3), target=2 * bound, progress=step)
    if isinstance(progress, Progress):
        progress.track(res.extra["iterations"], best=res.objective / 2)
    extra.update(iterations=res.extra["iterations"], message=f"tabu search from the {best_name} start")
    return res.permutation, bound, extra
