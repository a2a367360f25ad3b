"""Machines on a tree of switches: distances and W from the tree against
shortest paths in the graph, and the errors of what is not a tree."""

import networkx as nx
import numpy as np
import pytest

from optalloc.machine import Machine, fat_tree


def _random_tree(seed: int, n: int = 40):
    rng = np.random.default_rng(seed)
    G = nx.random_labeled_tree(n, seed=seed)
    for u, v in G.edges:
        G[u][v]["w"] = float(rng.integers(1, 5))
    hosts = [v for v in G if G.degree(v) == 1]
    return G, hosts, rng


@pytest.mark.parametrize("seed", range(12))
def test_distances_and_weight_are_the_graphs(seed):
    G, hosts, rng = _random_tree(seed)
    rng.shuffle(hosts)
    m = Machine.from_tree(G, hosts, weight="w")
    D = dict(nx.all_pairs_dijkstra_path_length(G, weight="w"))
    ref = np.array([[D[a][b] for b in hosts] for a in hosts])
    assert m.labels == tuple(hosts)
    assert np.array_equal(m.distances(), ref)
    for _ in range(5):
        s = rng.choice(m.n, int(rng.integers(1, m.n + 1)), replace=False)
        assert m.tree.weight(s) == pytest.approx(ref[np.ix_(s, s)].sum() / 2)


def test_root_does_not_change_distances():
    G, hosts, _ = _random_tree(3)
    a = Machine.from_tree(G, hosts, weight="w")
    for root in list(G)[:5]:
        b = Machine.from_tree(G, hosts, weight="w", root=root)
        assert np.array_equal(a.distances(), b.distances())


def test_hosts_inside_the_tree():
    # a host with vertices below it (a path) still measures path lengths
    G = nx.path_graph(6)
    m = Machine.from_tree(G, [0, 2, 5])
    assert m.distances().tolist() == [[0, 2, 5], [2, 0, 3], [5, 3, 0]]


def test_fat_tree_as_a_tree():
    m = fat_tree(8)
    i, j = np.triu_indices(m.n, 1)
    assert np.array_equal(m.tree.pair_distances(i, j), m.pair_distances(i, j))
    rng = np.random.default_rng(1)
    for _ in range(10):
        s = rng.choice(m.n, 20, replace=False)
        assert m.tree.weight(s) == m.hierarchy.weight(s)


def test_tree_machine_behaves_as_a_machine():
    G = nx.Graph([("top", "s1"), ("top", "s2"), ("s1", "a"), ("s1", "b"), ("s2", "c")])
    m = Machine.from_tree(G, ["a", "b", "c"])
    assert m.kind == "network" and m.hierarchy is None
    assert m.describe() == "tree of 3 nodes and 3 switches"
    m.allocate([1], owner=3)
    c = m.copy()
    assert c.n_free == 2 and c.tree is m.tree and c.metric_key == m.metric_key
    assert m.tree.hosts_under(m.tree.V - 2).tolist() == [0, 1]  # s1 holds a and b


@pytest.mark.parametrize("make, message", [
    (lambda: Machine.from_tree(nx.cycle_graph(4), [0, 1]), "not a tree"),
    (lambda: Machine.from_tree(nx.Graph([(0, 1), (2, 3), (3, 4)]), [0, 4]), "not a tree"),
    (lambda: Machine.from_tree(nx.path_graph(3), [0, 7]), "not a vertex"),
    (lambda: Machine.from_tree(nx.path_graph(3), []), "empty"),
    (lambda: Machine.from_tree(nx.path_graph(3), [0, 0]), "twice"),
    (lambda: Machine.from_tree(nx.DiGraph([(0, 1)]), [0]), "undirected"),
])
def test_bad_trees(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_disconnected_forest_with_as_many_links():
    # V - 1 links but a cycle and a lone vertex: not connected
    G = nx.cycle_graph(3)
    G.add_node(9)
    with pytest.raises(ValueError, match="not a tree|not connected"):
        Machine.from_tree(G, [0, 9])
