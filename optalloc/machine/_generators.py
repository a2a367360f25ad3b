"""Machines of the networks people run: dragonfly, fat tree, and nodes
that hold several processors.

The dragonfly and the fat tree keep only their compute nodes; their
shortest-path hop distances through the routers and switches come from the
structure (group, router, the routers that hold the global links; pod,
edge switch), pair by pair, without a matrix. Every hop counts, the two host links
included, as SST's scheduler ``DragonflyMachine::getNodeDistance`` does (its
route holds the node-to-router and router-to-node links): two nodes of one
router or edge switch are 2 hops apart. Meshes and tori of any dimension are
``Machine(shape, torus=...)``.
"""

from __future__ import annotations

import numpy as np

from .._validate import int_at_least
from ._machine import NODES_MAX, PAIRS_MAX, Machine
from ._structured import dragonfly_hierarchy, fat_tree_hierarchy

__all__ = ["dragonfly", "dragonfly_graph", "fat_tree", "fat_tree_graph", "processors_per_node"]

ARRANGEMENTS = ("absolute", "relative", "circulant")



def dragonfly_text(groups, routers, nodes, global_links, arrangement) -> str:
    """The description of a dragonfly, in the keyword form ``parse_machine`` reads."""
    return (f"dragonfly:groups={groups},routers={routers},nodes={nodes},global={global_links},"
            f"arrangement={arrangement}")


def fat_tree_text(k) -> str:
    """The description of a k-ary fat tree, ``fattree:k=K``."""
    return f"fattree:k={k}"

def _check_size(n: int, what: str) -> None:
    """Refuse, before building it, a generated network above the size of a mesh."""
    if n > NODES_MAX:
        raise ValueError(f"{what} has {n} compute nodes; at most {NODES_MAX}")


def _check_processors(total: int) -> None:
    if total > PAIRS_MAX:
        raise ValueError(f"{total} processors; at most {PAIRS_MAX} (their distances are dense and every pair of "
                         "processors is a link)")


def _positive(name: str, value) -> int:
    return int_at_least(value, 1, f"`{name}` must be a positive integer")


def _count(value) -> int:
    """A processor count of one node: a non-negative integer."""
    return int_at_least(value, 0, "`counts` must hold non-negative integers",
                        below="`counts` must hold non-negative integers (processors per node)")


def _hosts(a: int, b: int, c: int) -> tuple:
    """Labels ``(x, y, z)`` for x < a, y < b, z < c, z fastest."""
    import itertools

    return tuple(itertools.product(range(a), range(b), range(c)))


def _dragonfly_params(groups, routers, nodes, global_links, arrangement):
    """The checked parameters of a dragonfly (one-line ValueError)."""
    g_n = _positive("groups", groups)
    a = _positive("routers", routers)
    p = _positive("nodes", nodes)
    h = _positive("global_links", global_links)
    _check_size(g_n * a * p, f"a dragonfly of {g_n} groups x {a} routers x {p} nodes")
    if arrangement not in ARRANGEMENTS:
        raise ValueError(f"`arrangement` must be one of {', '.join(map(repr, ARRANGEMENTS))}, got {arrangement!r}")
    ports = a * h  # global ports per group
    if g_n > 1 and ports % (g_n - 1):
        raise ValueError(f"`groups` - 1 ({g_n - 1}) must divide `routers` * `global_links` ({ports}) so that "
                         f"every pair of groups gets as many global links")
    if arrangement == "circulant" and (h % 2 or g_n != ports + 1):
        raise ValueError(f"the circulant arrangement needs an even `global_links` and `groups` = `routers` * "
                         f"`global_links` + 1, got {h} and {g_n}")
    return g_n, a, p, h


def dragonfly_graph(groups=9, routers=4, nodes=2, global_links=2, arrangement="absolute"):
    """The full dragonfly graph, routers and compute nodes, as NetworkX builds it.

    Routers are ``("r", g, r)``, compute nodes ``(g, r, k)``; the
    parameters and checks are those of :func:`dragonfly`, whose distances
    are this graph's shortest-path hop counts between compute nodes.

    Returns
    -------
    (networkx.Graph, list of tuple)
        The graph and the compute node labels in id order.

    Examples
    --------
    >>> G, hosts = dragonfly_graph()
    >>> G.number_of_nodes(), len(hosts), hosts[1]
    (108, 72, (0, 0, 1))
    """
    import networkx as nx

    g_n, a, p, h = _dragonfly_params(groups, routers, nodes, global_links, arrangement)
    ports = a * h
    G = nx.Graph()
    hosts = []
    for g in range(g_n):
        for r in range(a):
            G.add_node(("r", g, r))
            for k in range(p):
                hosts.append((g, r, k))
                G.add_edge((g, r, k), ("r", g, r))
            for s in range(r + 1, a):  # all-to-all within the group
                G.add_edge(("r", g, r), ("r", g, s))
    if g_n > 1:
        for g in range(g_n):
            for port in range(ports):  # global port `port` belongs to router port // h
                r = port // h
                copy, j = divmod(port, g_n - 1)
                if arrangement == "absolute":
                    # the j-th other group, counted from group 0
                    t = j if j < g else j + 1
                    back = copy * (g_n - 1) + (g if g < t else g - 1)
                elif arrangement == "relative":
                    # the group j + 1 places further on
                    t = (g + j + 1) % g_n
                    back = copy * (g_n - 1) + (g_n - 2 - j)
                else:  # circulant (SST): router r links to the router r of groups g +- (r h/2 + o)
                    if port % h >= h // 2:
                        continue
                    t = (g + r * h // 2 + port % h + 1) % g_n
                    G.add_edge(("r", g, r), ("r", t, r))
                    continue
                G.add_edge(("r", g, r), ("r", t, back // h))
    return G, hosts


def dragonfly(groups=9, routers=4, nodes=2, global_links=2, arrangement="absolute") -> Machine:
    """A dragonfly (Kim et al. 2008): groups of all-to-all routers joined by
    global links.

    Parameters
    ----------
    groups : int
        Number of groups. ``groups - 1`` must divide ``routers *
        global_links`` (every pair of groups gets as many global links);
        SST's DragonflyMachine takes ``routers * global_links + 1``.
    routers : int
        Routers per group (SST ``routersPerGroup``), all-to-all within the
        group (SST ``localTopology`` all-to-all).
    nodes : int
        Compute nodes per router (SST ``nodesPerRouter``).
    global_links : int
        Global links per router (SST ``opticalsPerRouter``).
    arrangement : {"absolute", "relative", "circulant"}
        How the global ports meet (SST ``globalTopology``). Number the
        global ports of a group ``0 .. routers*global_links - 1`` (router
        ``port // global_links``): "absolute" sends port j to the j-th
        other group counted from group 0, "relative" to the group ``j + 1``
        places further on; "circulant" (SST) links router r of group g to
        router r of groups ``g +- (r * global_links / 2 + o)``,
        ``o = 1 .. global_links / 2`` (even ``global_links``, ``groups =
        routers * global_links + 1``).

    Returns
    -------
    Machine
        ``groups * routers * nodes`` nodes labelled ``(group, router, k)``
        (group-major, as SST numbers them); distances are shortest-path hops
        through the routers, host links counted (2 between nodes of one
        router).

    Notes
    -----
    The defaults give the balanced 72-node dragonfly (``a = 2p = 2h``, 9
    groups of 4 routers of 2 nodes, every pair of groups joined by one
    global link). Then two routers are at most 3 hops apart (local, global,
    local), so nodes at most 5. SST routes local-global-local through the
    direct global link; the shortest path used here may take two global
    links instead and is never longer.

    Examples
    --------
    >>> m = dragonfly()
    >>> m.n, m.labels[:3], m.distance(0, 1), float(m.distances().max())
    (72, ((0, 0, 0), (0, 0, 1), (0, 1, 0)), 2.0, 5.0)
    """
    g_n, a, p, h = _dragonfly_params(groups, routers, nodes, global_links, arrangement)
    return Machine._generated(dragonfly_hierarchy(g_n, a, p, h, arrangement), _hosts(g_n, a, p),
                              dragonfly_text(groups, routers, nodes, global_links, arrangement))


def fat_tree_graph(k):
    """The full k-ary fat tree, hosts and switches, as NetworkX builds it.

    Hosts are ``(pod, edge, h)``, switches ``("edge", pod, e)``,
    ``("agg", pod, a)`` and ``("core", i, j)``; :func:`fat_tree`'s
    distances are this graph's hop counts between hosts.

    Returns
    -------
    (networkx.Graph, list of tuple)
        The graph and the host labels in id order.

    Examples
    --------
    >>> G, hosts = fat_tree_graph(4)
    >>> G.number_of_nodes(), len(hosts)
    (36, 16)
    """
    import networkx as nx

    k = _fat_tree_k(k)
    half = k // 2
    G = nx.Graph()
    hosts = []
    for pod in range(k):
        for e in range(half):
            for a in range(half):
                G.add_edge(("edge", pod, e), ("agg", pod, a))
            for h in range(half):
                hosts.append((pod, e, h))
                G.add_edge((pod, e, h), ("edge", pod, e))
        for a in range(half):
            for j in range(half):  # aggregation switch a meets core switches (a, 0 .. k/2-1)
                G.add_edge(("agg", pod, a), ("core", a, j))
    return G, hosts


def _fat_tree_k(k) -> int:
    k = int_at_least(k, 2, "`k` must be an even integer >= 2")
    if k % 2:
        raise ValueError(f"`k` must be an even integer >= 2, got {k}")
    _check_size(k**3 // 4, f"a fat tree of k = {k}")
    return k


def fat_tree(k) -> Machine:
    """A k-ary fat tree (Al-Fares et al. 2008).

    k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core switches,
    k/2 hosts per edge switch: k^3/4 hosts, labelled ``(pod, edge, h)``.
    Distances are hops through the switches, host links counted: 2 between
    hosts of one edge switch, 4 within a pod, 6 across pods.

    Raises
    ------
    ValueError
        ``k`` odd or below 2.

    Examples
    --------
    >>> m = fat_tree(4)
    >>> m.n, sorted(set(m.distances()[0].tolist()))
    (16, [0.0, 2.0, 4.0, 6.0])
    """
    k = _fat_tree_k(k)
    return Machine._generated(fat_tree_hierarchy(k), _hosts(k, k // 2, k // 2), fat_tree_text(k))


def processors_per_node(machine: Machine, counts) -> Machine:
    """A network machine with one node per processor.

    Parameters
    ----------
    machine : Machine
        The nodes (any mesh, torus or network).
    counts : int or sequence of int
        Processors per node: one positive count for every node, or one
        count per node id; a node with 0 processors holds none but still
        routes (the distances between the others go through it).

    Returns
    -------
    Machine
        Ids run node by node (the processors of node 0 first); labels are
        ``(node label, k)``, a node's label being its coordinates on a grid.
        Processors of one node are at distance 0, others at their nodes'
        distance.

    Raises
    ------
    ValueError
        A count that is not a positive integer (a list: not a non-negative
        integer, or all zero), or not one count per node.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> m = processors_per_node(Machine(3), [4, 1, 1])
    >>> m.n, m.labels[4], m.distances()[0].tolist()
    (6, ((1,), 0), [0.0, 0.0, 0.0, 0.0, 1.0, 2.0])
    """
    if not isinstance(machine, Machine):
        raise ValueError(f"`machine` must be a Machine, got {type(machine).__name__}")
    if np.ndim(counts) == 0:
        c = _positive("counts", counts)
        _check_processors(c * machine.n)  # before a list of one count per node
        per = [c] * machine.n
    else:
        per = [_count(c) for c in counts]
        if len(per) != machine.n:
            raise ValueError(f"`counts` must give one count per node ({machine.n}), got {len(per)}")
        if not any(per):
            raise ValueError("`counts` must give some node at least one processor, got all zero")
        _check_processors(sum(per))
    owner = np.repeat(np.arange(machine.n), per)

    def label(i):
        return machine.labels[i] if machine.labels is not None else tuple(int(v) for v in machine.coords[i])

    labels = [(label(i), k) for i, c in enumerate(per) if c for k in range(c)]
    if len(owner) == 1:  # one processor: a machine of one node
        return Machine.from_distances(labels, [[0.0]])
    used, inverse = np.unique(owner, return_inverse=True)  # the nodes that hold processors
    D = machine.distances(used)[np.ix_(inverse, inverse)]
    return Machine.from_distances(labels, D)
