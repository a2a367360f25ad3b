"""order_graph: orderings of any connected network, against brute force and the curves."""

from __future__ import annotations

import itertools
import json

import networkx as nx
import numpy as np
import pytest

from optalloc.cli import main
from optalloc.curves import (
    box_order,
    curve_objective,
    gilbert,
    graph_distances,
    hilbert,
    mesh_distances,
    order_graph,
    order_objective,
    snake,
)
from optalloc.machine import Machine, read_graph


def mesh_graph(shape):
    """The mesh of the given sides as a graph labelled by coordinates (x, y[, z])."""
    return nx.Graph(nx.grid_graph(dim=list(shape)[::-1]))


def _brute(G, *, ring=False):
    labels, D = graph_distances(G)
    return min(order_objective(D, p, ring=ring) for p in itertools.permutations(range(len(labels))))


def _valid(res, G):
    assert sorted(res.order) == list(range(G.number_of_nodes()))
    labels = list(G.nodes)
    assert res.labels == [labels[i] for i in res.order]
    _, D = graph_distances(G)
    assert res.objective == pytest.approx(order_objective(D, res.order))
    assert res.termination in ("optimal", "completed", "time_limit", "iteration_limit")
    assert (res.status == "optimal") == (res.termination == "optimal") and res.runtime >= 0


GRAPHS = {
    "path5": nx.path_graph(5),
    "cycle6": nx.cycle_graph(6),
    "star6": nx.star_graph(5),
    "mesh2x3": mesh_graph((2, 3)),
    "tree7": nx.random_labeled_tree(7, seed=3) if hasattr(nx, "random_labeled_tree") else nx.balanced_tree(2, 2),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_small_graphs_are_ordered_optimally(name):
    G = GRAPHS[name]
    best = _brute(G)
    res = order_graph(G)  # auto: the IP up to 8 nodes
    _valid(res, G)
    assert res.status == "optimal" and res.termination == "optimal"
    assert res.objective == pytest.approx(best)
    search = order_graph(G, method="qap", rng=0, iterations=300)
    _valid(search, G)
    assert search.objective >= best - 1e-9
    assert search.bound <= best + 1e-9


def test_search_beats_or_matches_every_start_and_the_curves():
    rng = np.random.default_rng(0)
    G = mesh_graph((8, 8))
    G.remove_nodes_from([tuple(map(int, rng.integers(0, 8, 2))) for _ in range(8)])
    G = G.subgraph(max(nx.connected_components(G), key=len)).copy()
    res = order_graph(G, rng=0, iterations=300)
    _valid(res, G)
    assert res.objective <= min(res.extra["starts"].values()) + 1e-9
    for curve in ("gilbert", "hilbert", "snake", "row-major"):
        other = order_graph(G, method=curve)
        _valid(other, G)
        assert res.objective <= other.objective + 1e-9
    assert res.bound <= res.objective


def test_curve_methods_on_a_full_mesh_match_the_box_curves():
    G = mesh_graph((6, 4))
    assert order_graph(G, method="gilbert").objective == pytest.approx(curve_objective(gilbert((6, 4))))
    assert order_graph(G, method="snake").objective == pytest.approx(curve_objective(snake((6, 4))))


def test_greedy_and_spectral_starts_are_orders():
    G = nx.petersen_graph()
    for method in ("greedy", "spectral"):
        _valid(order_graph(G, method=method, rng=1), G)


def test_ring_ranks_and_edge_lengths():
    G = nx.cycle_graph(7)
    res = order_graph(G, ring=True)
    assert res.objective == pytest.approx(_brute(G, ring=True))
    H = nx.path_graph(4)
    nx.set_edge_attributes(H, 2.0, "length")
    assert order_graph(H, weight="length").objective == pytest.approx(2 * order_graph(H).objective)


def test_same_seed_same_order():
    G = nx.random_regular_graph(3, 20, seed=2)
    a = order_graph(G, rng=5, iterations=200)
    b = order_graph(G, rng=5, iterations=200)
    assert np.array_equal(a.order, b.order)


@pytest.mark.parametrize(
    "G, kwargs, match",
    [
        (nx.Graph([(0, 1), (2, 3)]), {}, "not connected"),
        (nx.Graph([(0, 1), (1, 1)]), {}, "self-loop"),
        (nx.DiGraph([(0, 1)]), {}, "undirected"),
        (nx.Graph(), {}, "no node"),
        (nx.path_graph(3), {"method": "nope"}, "unknown method"),
        (nx.path_graph(3), {"method": "gilbert"}, "coordinates"),
        (nx.Graph([(0, 1, {"w": -1})]), {"weight": "w"}, "positive"),
        ([[0, 1]], {}, "networkx graph"),
    ],
)
def test_bad_graphs(G, kwargs, match):
    with pytest.raises(ValueError, match=match):
        order_graph(G, **kwargs)


def test_read_graph_formats(tmp_path):
    G = nx.cycle_graph(5)
    (tmp_path / "g.txt").write_text("# a ring\n0 1\n1 2\n2 3\n3 4\n4 0\n")
    nx.write_graphml(G, tmp_path / "g.graphml")
    (tmp_path / "g.json").write_text(json.dumps(nx.node_link_data(G, edges="links")))
    for name in ("g.txt", "g.graphml", "g.json"):
        H = read_graph(tmp_path / name)
        assert H.number_of_nodes() == 5 and H.number_of_edges() == 5
    (tmp_path / "names.txt").write_text("01 2 5\n1 3\n01 2 4\n")  # zero-padded names stay text
    H = read_graph(tmp_path / "names.txt")
    assert sorted(map(str, H.nodes)) == ["01", "1", "2", "3"]
    assert H.edges["01", 2]["length"] == 4.0  # a repeated link keeps its shortest length
    (tmp_path / "broken.json").write_text('{"nodes": [1, 2]}')
    (tmp_path / "broken.graphml").write_text("<graphml><graph")
    for name in ("broken.json", "broken.graphml"):
        with pytest.raises(ValueError, match="networkx can read"):
            read_graph(tmp_path / name)
    (tmp_path / "bad.txt").write_text("0 1 2 3\n")
    with pytest.raises(ValueError, match="bad.txt:1"):
        read_graph(tmp_path / "bad.txt")


def test_cli_order(tmp_path, capsys):
    out = tmp_path / "order.txt"
    assert main(["order", "--machine", "4x4", "--iterations", "50", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 16 and len(set(lines)) == 16
    assert main(["order", "--machine", "4x4", "--out", str(out)]) == 2  # no overwrite without --force
    assert "exists" in capsys.readouterr().err
    g = tmp_path / "g.txt"
    g.write_text("a b\nb c\nc d\n")
    assert main(["order", "--machine", str(g), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "optimal" and data["labels"] in (list("abcd"), list("dcba"))
    g.write_text("a b\nc d\n")
    assert main(["order", "--machine", str(g)]) == 2
    assert "connected" in capsys.readouterr().err
    assert main(["order", "--machine", str(g), "--torus"]) == 2  # no such option: wrap is part of the spec

# ---------------------------------------------------------------------------
# A Machine where a mesh, torus or network is meant


def test_machine_mesh_is_ordered_by_node_id():
    m = Machine((6, 4))
    res = order_graph(m, method="gilbert")
    assert res.labels == [tuple(p) for p in gilbert((6, 4)).tolist()]
    assert m.coords[res.order].tolist() == gilbert((6, 4)).tolist()
    assert res.objective == pytest.approx(curve_objective(gilbert((6, 4))))
    search = order_graph(m, rng=0, iterations=100)
    assert sorted(search.order) == list(range(24))
    assert search.objective == pytest.approx(order_objective(m.distances(), search.order))
    assert search.objective <= res.objective + 1e-9


def test_machine_torus_uses_its_wrap_links():
    m = Machine((4, 4), torus=True)
    labels, D = graph_distances(m)
    assert labels == [tuple(p) for p in m.coords.tolist()]
    assert np.array_equal(D, m.distances())
    res = order_graph(m, method="snake")
    assert res.objective == pytest.approx(curve_objective(snake((4, 4)), torus=(4, 4)))
    part = Machine((4, 3), torus=(True, False))  # wrap along x only
    _, D = graph_distances(part)
    assert np.array_equal(D, mesh_distances(part.coords, torus=(4, None)))


def test_machine_network_keeps_labels_and_lengths():
    G = nx.path_graph(["a", "b", "c", "d"])
    res = order_graph(Machine.from_graph(G))
    assert res.labels in (list("abcd"), list("dcba")) and res.status == "optimal"
    nx.set_edge_attributes(G, 2.0, "length")
    longer = order_graph(Machine.from_graph(G, weight="length"))
    assert longer.objective == pytest.approx(2 * res.objective)
    with pytest.raises(ValueError, match="Machine carries its own"):
        order_graph(Machine.from_graph(G), weight="length")


def test_box_orders_take_a_mesh_or_torus_machine():
    assert np.array_equal(box_order(Machine((8, 8), torus=True), "hilbert"), hilbert((8, 8)))
    assert np.array_equal(gilbert(Machine((5, 3, 2))), gilbert((5, 3, 2)))
    with pytest.raises(ValueError, match="network"):
        box_order(Machine.from_graph(nx.path_graph(3)))
    with pytest.raises(ValueError, match="2 or 3 dimensions"):
        box_order(Machine((4,)))
