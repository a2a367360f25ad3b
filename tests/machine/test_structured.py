"""Networks without an n x n matrix: dragonfly and fat-tree distances from
their structure against today's construction (NetworkX graph, shortest
paths, dense matrix), and large graphs read row by row."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

import optalloc.machine._machine as machine_module
from optalloc.bench.scale._networks import today_dragonfly, today_fat_tree
from optalloc.machine import Machine, dragonfly, fat_tree, parse_machine, processors_per_node


def _dragonfly_params(max_nodes=400):
    """Every valid small dragonfly of each arrangement (groups, routers, nodes, h, arrangement)."""
    out = []
    for g, a, h in itertools.product(range(1, 18), range(1, 6), range(1, 5)):
        for arr in ("absolute", "relative", "circulant"):
            if g > 1 and (a * h) % (g - 1):
                continue
            if arr == "circulant" and (h % 2 or g != a * h + 1):
                continue
            p = 1 + (g * a) % 3
            if g * a * p <= max_nodes:
                out.append((g, a, p, h, arr))
    return out


DRAGONFLIES = _dragonfly_params()


def test_the_oracle_covers_every_arrangement_and_many_sizes():
    assert len(DRAGONFLIES) > 100
    assert {d[4] for d in DRAGONFLIES} == {"absolute", "relative", "circulant"}


@pytest.mark.parametrize("params", DRAGONFLIES, ids=[",".join(map(str, d)) for d in DRAGONFLIES])
def test_dragonfly_distances_equal_todays_shortest_paths(params):
    ours, today = dragonfly(*params), today_dragonfly(*params)
    assert ours.labels == today.labels
    D = today.distances()
    assert np.array_equal(ours.distances(), D)
    rng = np.random.default_rng(len(D))
    i, j = rng.integers(0, ours.n, (2, 500))
    assert np.array_equal(ours.pair_distances(i, j), D[i, j])
    sub = rng.permutation(ours.n)[: max(1, ours.n // 3)]
    assert np.array_equal(ours.distances(sub), D[np.ix_(sub, sub)])
    assert ours.distance(int(i[0]), int(j[0])) == D[i[0], j[0]]


@pytest.mark.parametrize("k", [2, 4, 6, 8, 10])
def test_fat_tree_distances_equal_todays_shortest_paths(k):
    ours, today = fat_tree(k), today_fat_tree(k)
    assert ours.labels == today.labels and np.array_equal(ours.distances(), today.distances())
    i, j = np.random.default_rng(k).integers(0, ours.n, (2, 300))
    assert np.array_equal(ours.pair_distances(i, j), today.distances()[i, j])


def test_small_generated_networks_keep_their_links_text_and_consumers():
    for m, today in ((dragonfly(), today_dragonfly()), (fat_tree(4), today_fat_tree(4))):
        assert m.edges == today.edges  # every pair a link, as before
        assert np.array_equal(m.links(), today.links())
        assert parse_machine(m.describe()).metric_key == m.metric_key
        c = m.copy()
        assert c.metric_key == m.metric_key and c.hierarchy is m.hierarchy
        per = processors_per_node(m, 2)
        assert np.array_equal(per.distances(), processors_per_node(today, 2).distances())
    assert dragonfly().metric_key != dragonfly(arrangement="relative").metric_key


def test_reference_networks_build_without_a_matrix():
    # their build time (the target: under 1 s) is measured by the scale suite's networks part, not here
    import tracemalloc

    for build in (lambda: dragonfly(65, 32, 4, 2), lambda: fat_tree(32)):
        tracemalloc.start()
        m = build()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 100e6
        assert m.n > 8000 and m._dist is None
        i = np.arange(0, m.n, 97)
        assert m.pair_distances(i, i[::-1]).shape == i.shape


def test_the_whole_matrix_of_a_large_network_is_refused_with_its_size():
    m = dragonfly(65, 32, 4, 2)
    with pytest.raises(ValueError, match=r"^the whole distance matrix of the dragonfly:groups=65,.* would take "
                                         r"0\.6 GB; it is built up to 4096 nodes") as info:
        m.distances()
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="its links .* are listed up to 4096"):
        m.edges  # noqa: B018
    # a block of it, the nodes that matter
    assert m.distances([0, 1, 4, 8319]).tolist() == m.pair_distances([[0], [1], [4], [8319]], [0, 1, 4, 8319]).tolist()


def _random_graph(n, seed):
    G = nx.connected_watts_strogatz_graph(n, 4, 0.3, seed=seed)
    rng = np.random.default_rng(seed)
    for u, v in G.edges:
        G.edges[u, v]["w"] = float(rng.integers(1, 5))
    return G


def test_a_large_graph_reads_rows_of_the_nodes_that_matter(monkeypatch):
    G = _random_graph(300, 1)
    dense = Machine.from_graph(G, weight="w")
    D = dense.distances()
    monkeypatch.setattr(machine_module, "MATRIX_MAX", 100)
    monkeypatch.setattr("optalloc.machine._network.ROW_BYTES", 8 * 300 * 7)  # seven rows kept
    m = Machine.from_graph(G, weight="w")
    with pytest.raises(ValueError, match=r"^the whole distance matrix of the network of 300 nodes would take"):
        m.distances()
    rng = np.random.default_rng(0)
    i, j = rng.integers(0, 300, (2, 2000))
    assert np.array_equal(m.pair_distances(i, j), D[i, j])
    sub = rng.permutation(300)[:40]
    assert np.array_equal(m.distances(sub), D[np.ix_(sub, sub)])
    assert m.distance(3, 250) == D[3, 250]
    assert len(m._net._rows) <= 7  # the cache keeps its bound


def test_metric_key_tells_networks_apart():
    a = Machine.from_graph(nx.path_graph(5))
    b = Machine.from_graph(nx.cycle_graph(5))
    assert a.metric_key != b.metric_key and a.metric_key == Machine.from_graph(nx.path_graph(5)).metric_key
    assert Machine((4, 4)).metric_key != Machine((4, 4), torus=True).metric_key


@pytest.mark.parametrize("params", DRAGONFLIES[::7], ids=[",".join(map(str, d)) for d in DRAGONFLIES[::7]])
def test_the_weight_of_a_set_from_counts_per_router_equals_the_matrix_sum(params):
    m = dragonfly(*params)
    rng = np.random.default_rng(m.n)
    for _ in range(20):
        ids = rng.choice(m.n, int(rng.integers(1, m.n + 1)), replace=False)
        assert m.hierarchy.weight(ids) == m.distances(ids).sum() / 2
    f = fat_tree(6)
    ids = rng.choice(f.n, 20, replace=False)
    assert f.hierarchy.weight(ids) == f.distances(ids).sum() / 2
