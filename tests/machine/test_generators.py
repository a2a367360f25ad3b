"""Dragonfly, fat tree and processors-per-node machines; Machine.from_distances."""

import itertools

import networkx as nx
import numpy as np
import pytest

from optalloc.machine import Machine, dragonfly, fat_tree, processors_per_node
from optalloc.machine._generators import dragonfly_graph, fat_tree_graph


def _check_against_networkx(m, G, hosts):
    lengths = dict(nx.all_pairs_shortest_path_length(G))
    assert m.labels == tuple(hosts)
    D = m.distances()
    for (i, u), (j, v) in itertools.product(enumerate(hosts), repeat=2):
        assert D[i, j] == lengths[u][v]


@pytest.mark.parametrize("arrangement", ["absolute", "relative", "circulant"])
def test_dragonfly_default_72_nodes_matches_networkx(arrangement):
    m = dragonfly(arrangement=arrangement)
    assert m.n == 72 and m.kind == "network"
    G, hosts = dragonfly_graph(arrangement=arrangement)
    _check_against_networkx(m, G, hosts)
    # every router: 3 local links, 2 global links, 2 nodes
    routers = [v for v in G if v[0] == "r"]
    assert len(routers) == 36 and all(G.degree(r) == 3 + 2 + 2 for r in routers)


@pytest.mark.parametrize("arrangement", ["absolute", "relative"])
@pytest.mark.parametrize("groups,routers,nodes,h", [(9, 4, 2, 2), (5, 4, 1, 1), (3, 2, 3, 1), (4, 3, 2, 2), (1, 3, 2, 1)])
def test_dragonfly_sizes_and_balanced_global_links(arrangement, groups, routers, nodes, h):
    m = dragonfly(groups, routers, nodes, h, arrangement)
    assert m.n == groups * routers * nodes
    G, hosts = dragonfly_graph(groups, routers, nodes, h, arrangement)
    _check_against_networkx(m, G, hosts)
    between = {}
    for u, v in G.edges:
        if u[0] == v[0] == "r" and u[1] != v[1]:
            key = tuple(sorted((u[1], v[1])))
            between[key] = between.get(key, 0) + 1
    if groups > 1:
        # each pair of groups: the same number of global links
        assert len(between) == groups * (groups - 1) // 2
        assert set(between.values()) == {routers * h // (groups - 1)}
    else:
        assert not between


def test_dragonfly_diameter_absolute_one_link_per_group_pair():
    # a = 4 routers, h = 1, 5 groups: each pair of groups joined by one global link
    for groups, routers, h in [(5, 4, 1), (9, 4, 2)]:
        G, hosts = dragonfly_graph(groups, routers, 1, h, "absolute")
        R = G.subgraph(v for v in G if v[0] == "r")
        assert nx.diameter(R) <= 3  # local, global, local
        m = dragonfly(groups, routers, 1, h, "absolute")
        assert m.distances().max() == nx.diameter(R) + 2  # plus the two host links
    m = dragonfly()
    D = m.distances()
    assert D[0, 1] == 2  # two nodes of one router: node->router->node
    assert D[0, 2] == 3  # next router of the group


@pytest.mark.parametrize("k", [2, 4, 6, 8])
def test_fat_tree_counts_and_distance_classes(k):
    m = fat_tree(k)
    assert m.n == k ** 3 // 4
    half = k // 2
    D = m.distances()
    values, counts = np.unique(D, return_counts=True)
    expected = {0.0: m.n, 2.0: m.n * (half - 1), 4.0: m.n * (half * half - half), 6.0: m.n * (m.n - half * half)}
    expected = {d: c for d, c in expected.items() if c}
    assert dict(zip(values.tolist(), counts.tolist())) == expected
    if k <= 4:
        _check_against_networkx(m, *fat_tree_graph(k))


def test_fat_tree_switch_counts():
    G, hosts = fat_tree_graph(4)
    kinds = [v[0] for v in G if isinstance(v[0], str)]
    assert kinds.count("edge") == 8 and kinds.count("agg") == 8 and kinds.count("core") == 4


def test_processors_per_node():
    base = fat_tree(4)
    m = processors_per_node(base, 4)
    assert m.n == 64 and m.labels[:2] == (((0, 0, 0), 0), ((0, 0, 0), 1))
    D = m.distances()
    owner = np.repeat(np.arange(base.n), 4)
    same = owner[:, None] == owner[None, :]
    assert np.all(D[same] == 0)
    assert np.array_equal(D, base.distances()[np.ix_(owner, owner)])
    assert np.all(D[~same] > 0)
    mixed = processors_per_node(Machine((2, 2)), [4, 1, 1, 4])
    assert mixed.n == 10 and mixed.labels[4] == ((1, 0), 0)
    assert mixed.distance(0, 3) == 0 and mixed.distance(0, 9) == 2
    _ = mixed.allocate([0, 1], owner=3)
    assert mixed.n_free == 8 and mixed.copy_empty().distance(0, 9) == 2


@pytest.mark.parametrize("call,match", [
    (lambda: fat_tree(3), "even integer >= 2"),
    (lambda: fat_tree(0), "even integer >= 2"),
    (lambda: fat_tree("4"), "even integer >= 2"),
    (lambda: dragonfly(groups=0), "`groups` must be a positive integer"),
    (lambda: dragonfly(routers=-1), "`routers` must be a positive integer"),
    (lambda: dragonfly(nodes=0), "`nodes`"),
    (lambda: dragonfly(global_links=0), "`global_links`"),
    (lambda: dragonfly(arrangement="random"), "`arrangement` must be one of"),
    (lambda: dragonfly(groups=8), "must divide"),
    (lambda: dragonfly(5, 4, 1, 1, "circulant"), "even `global_links`"),
    (lambda: dragonfly(3, 2, 1, 2, "circulant"), r"routers` \* `global_links` \+ 1"),
    (lambda: processors_per_node(Machine(3), 0), "`counts` must be a positive integer"),
    (lambda: processors_per_node(Machine(3), [1, 2]), "one count per node"),
    (lambda: processors_per_node(Machine(3), [1, 2.5, 1]), "`counts`"),
    (lambda: processors_per_node([1, 2], 1), "`machine` must be a Machine"),
])
def test_bad_input_one_line_value_error(call, match):
    with pytest.raises(ValueError, match=match) as info:
        call()
    assert "\n" not in str(info.value)


def test_from_distances():
    m = Machine.from_distances("abc", [[0, 1, 2], [1, 0, 1], [2, 1, 0]], edges=[(0, 1), (1, 2)])
    assert m.labels == ("a", "b", "c") and m.edges == ((0, 1, 1.0), (1, 2, 1.0))
    assert m.distances([2, 0]).tolist() == [[0, 2], [2, 0]]
    assert len(m.links()) == 4
    full = Machine.from_distances("ab", [[0, 3], [3, 0]])
    assert full.edges == ((0, 1, 3.0),) and full.distance(0, 1) == 3


@pytest.mark.parametrize("labels,D,edges,match", [
    ("ab", [[0, 1], [2, 0]], None, "symmetric"),
    ("ab", [[1, 1], [1, 0]], None, "zero diagonal"),
    ("ab", [[0, -1], [-1, 0]], None, "negative"),
    ("ab", [[0, np.inf], [np.inf, 0]], None, "finite"),
    ("ab", [[0, 1, 1], [1, 0, 1]], None, "must be 2 x 2"),
    ("aa", [[0, 1], [1, 0]], None, "distinct"),
    ("", [], None, "empty"),
    ("ab", [["x", 1], [1, 0]], None, "matrix of numbers"),
    ("abc", [[0, 0, 1], [0, 0, 1], [1, 1, 0]], [(0, 1)], "positive distance"),
    ("ab", [[0, 1], [1, 0]], [(0, 5)], "positive distance"),
])
def test_from_distances_bad_input(labels, D, edges, match):
    with pytest.raises(ValueError, match=match) as info:
        Machine.from_distances(labels, D, edges=edges)
    assert "\n" not in str(info.value)
