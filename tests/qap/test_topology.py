"""Topologies and cost matrices: hand-computed entries, an independent
graph construction as ground truth, metric properties."""

import dataclasses
import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.qap import Topology


def reference_graph(shape, torus):
    """The mesh/torus as a NetworkX graph on coordinate tuples, built
    without optalloc."""
    G = nx.Graph()
    pts = list(itertools.product(*(range(s) for s in shape)))
    G.add_nodes_from(pts)
    for p in pts:
        for k, s in enumerate(shape):
            q = list(p)
            q[k] += 1
            if q[k] == s:
                if not torus or s == 1:
                    continue
                q[k] = 0
            if tuple(q) != p:
                G.add_edge(p, tuple(q))
    return G


def node_id(coord, shape):
    # x fastest: id = x + W * (y + H * z)
    i, stride = 0, 1
    for c, s in zip(coord, shape):
        i += c * stride
        stride *= s
    return i


# -- hand-computed entries ---------------------------------------------------

def test_torus_4x4_hand_entries():
    t = Topology.torus((4, 4))
    a, b = node_id((0, 0), (4, 4)), node_id((3, 1), (4, 4))
    assert b == 7
    assert t.axis_distances()[:, a, b].tolist() == [1, 1]  # dx = 1 via the wrap, dy = 1
    assert t.cost_matrix("classic")[a, b] == 2
    assert t.cost_matrix("td")[a, b] == 2
    # half a ring away: 2 hops either way (the modulo form of eq. 4 would say 0)
    c = node_id((2, 0), (4, 4))
    assert t.cost_matrix("classic")[a, c] == 2
    assert t.cost_matrix("td")[a, c] == 4
    d = node_id((2, 2), (4, 4))
    assert t.cost_matrix("classic")[a, d] == 4 and t.cost_matrix("td")[a, d] == 4
    e = node_id((1, 3), (4, 4))  # dx = 0, dy = 2
    assert t.cost_matrix("classic")[e, node_id((1, 1), (4, 4))] == 2
    assert t.cost_matrix("td")[e, node_id((1, 1), (4, 4))] == 4


def test_mesh_4x4_hand_entries():
    m = Topology.mesh((4, 4))
    a, b = node_id((0, 0), (4, 4)), node_id((3, 1), (4, 4))
    assert m.axis_distances()[:, a, b].tolist() == [3, 1]
    assert m.cost_matrix("classic")[a, b] == 4
    assert m.cost_matrix("td")[a, b] == 6
    f = node_id((3, 3), (4, 4))
    assert m.cost_matrix("classic")[a, f] == 6 and m.cost_matrix("td")[a, f] == 6
    g = node_id((0, 3), (4, 4))
    assert m.cost_matrix("classic")[a, g] == 3 and m.cost_matrix("td")[a, g] == 6


def test_td_3d_hand_entries():
    m = Topology.mesh((4, 4, 2))
    a, b = node_id((0, 0, 0), (4, 4, 2)), node_id((3, 1, 1), (4, 4, 2))
    assert m.axis_distances()[:, a, b].tolist() == [3, 1, 1]
    assert m.cost_matrix("classic")[a, b] == 5
    assert m.cost_matrix("td")[a, b] == 5 + (3 - 1)
    t = Topology.torus((4, 4, 4))
    c = node_id((2, 3, 0), (4, 4, 4))  # dx = 2, dy = 1, dz = 0
    assert t.cost_matrix("classic")[0, c] == 3
    assert t.cost_matrix("td")[0, c] == 3 + 2
    balanced = node_id((1, 1, 1), (4, 4, 4))
    assert t.cost_matrix("td")[0, balanced] == 3


@pytest.mark.parametrize("make", [Topology.mesh, Topology.torus])
def test_td_3d_is_half_the_pairwise_differences(make):
    t = make((3, 4, 5))
    A = t.axis_distances().astype(float)
    pairwise = sum(np.abs(A[k] - A[l]) for k, l in itertools.combinations(range(3), 2))
    np.testing.assert_array_equal(t.cost_matrix("td"), A.sum(axis=0) + pairwise / 2)


@pytest.mark.parametrize("make", [Topology.mesh, Topology.torus])
def test_td_2d_is_eq7(make):
    t = make((5, 3))
    dx, dy = t.axis_distances().astype(float)
    np.testing.assert_array_equal(t.cost_matrix("td"), dx + dy + np.abs(dx - dy))


def test_td_ignores_axes_of_side_one():
    np.testing.assert_array_equal(Topology.torus((8, 8, 1)).cost_matrix("td"),
                                  Topology.torus((8, 8)).cost_matrix("td"))
    np.testing.assert_array_equal(Topology.mesh((1, 6)).cost_matrix("td"),
                                  Topology.mesh((1, 6)).cost_matrix("classic"))


# -- against an independent construction ---------------------------------------

SHAPES = [(1,), (5,), (4, 4), (3, 5), (2, 3), (1, 4), (2, 2, 2), (3, 4, 2), (5, 1, 3)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("torus", [False, True])
def test_distances_and_links_match_reference_graph(shape, torus):
    t = (Topology.torus if torus else Topology.mesh)(shape)
    G = reference_graph(shape, torus)
    assert t.n == G.number_of_nodes()
    ids = [node_id(p, shape) for p in G.nodes]
    assert [tuple(c) for c in t.coords[ids]] == list(G.nodes)
    ref = dict(nx.all_pairs_shortest_path_length(G))
    D = t.distances()
    for p, row in ref.items():
        for q, hops in row.items():
            assert D[node_id(p, shape), node_id(q, shape)] == hops
    expected = {(node_id(p, shape), node_id(q, shape)) for p, q in G.edges}
    expected |= {(v, u) for u, v in expected}
    links = t.links()
    assert len(links) == len(expected)
    assert {tuple(e) for e in links.tolist()} == expected


def test_from_graph_matches_grid():
    G = reference_graph((4, 3), True)
    g = Topology.from_graph(G)
    perm = [node_id(p, (4, 3)) for p in g.labels]
    t = Topology.torus((4, 3))
    np.testing.assert_array_equal(g.distances(), t.distances()[np.ix_(perm, perm)])
    assert g.kind == "graph" and g.n == 12 and g.ndim is None and not g.is_grid


# -- properties ---------------------------------------------------------------

shapes = st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple)


@settings(max_examples=40, deadline=None)
@given(shape=shapes, torus=st.booleans())
def test_distances_are_a_metric(shape, torus):
    t = (Topology.torus if torus else Topology.mesh)(shape)
    D = t.distances()
    np.testing.assert_array_equal(D, D.T)
    assert np.all(np.diag(D) == 0)
    off = ~np.eye(t.n, dtype=bool)
    assert np.all(D[off] >= 1)
    # triangle inequality D[i, k] <= D[i, j] + D[j, k]
    assert np.all(D[:, None, :] <= D[:, :, None] + D[None, :, :])
    if torus:
        assert D.max() == sum(s // 2 for s in shape)
    C = t.cost_matrix("td")
    np.testing.assert_array_equal(C, C.T)
    assert np.all(C >= D) and np.all(np.diag(C) == 0)
    assert np.all(C <= 2 * D)


@settings(max_examples=25, deadline=None)
@given(shape=shapes, torus=st.booleans(), data=st.data())
def test_partition_is_a_submatrix_in_given_order(shape, torus, data):
    t = (Topology.torus if torus else Topology.mesh)(shape)
    nodes = data.draw(st.lists(st.integers(0, t.n - 1), min_size=1, max_size=t.n, unique=True))
    for crit in ("classic", "td"):
        full = t.cost_matrix(crit)
        np.testing.assert_array_equal(t.cost_matrix(crit, nodes=nodes), full[np.ix_(nodes, nodes)])
    np.testing.assert_array_equal(t.node_ids(t.coords[nodes]), nodes)


def test_large_machine_builds():
    t = Topology.torus((40, 40))
    C = t.cost_matrix("td")
    assert C.shape == (1600, 1600) and C.max() == 40 + 0  # (20, 20) is balanced
    assert Topology.torus((12, 12, 12)).distances().max() == 18


# -- constructors, parsing, partitions ----------------------------------------------

def test_parse_and_str_round_trip():
    for spec in ("torus:8x8", "mesh:4x4x2", "torus:5", "mesh:3x1"):
        assert str(Topology.parse(spec)) == spec
    assert Topology.parse(" Torus: 8x8 ".replace(": ", ":")) == Topology.torus((8, 8))
    assert Topology.parse("mesh:4x4x2") == Topology.mesh([4, 4, 2])
    assert Topology.parse("torus:8x8") != Topology.mesh((8, 8))
    assert hash(Topology.torus((8, 8))) == hash(Topology.parse("torus:8x8"))
    assert repr(Topology.torus((2, 3))) == "Topology.torus((2, 3))"


@pytest.mark.parametrize("spec", ["torus", "ring:8", "torus:8by8", "torus:", "mesh:4x0", ":4x4", "torus:8x-8"])
def test_parse_rejects(spec):
    with pytest.raises(ValueError, match="`(spec|shape)`"):
        Topology.parse(spec)


@pytest.mark.parametrize("shape", [(4, 0), (-1,), (), 2.5, "ab", (3, 1.5), 0])
def test_shape_validation(shape):
    with pytest.raises(ValueError, match="`shape` sides must be positive integers"):
        Topology.mesh(shape)


def test_int_shape_is_one_axis():
    assert Topology.torus(6) == Topology.torus((6,))


def test_frozen():
    t = Topology.torus((4, 4))
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.shape = (2, 2)
    D = t.distances()
    D[0, 1] = 99
    assert t.distances()[0, 1] == 1
    g = Topology.from_graph(nx.cycle_graph(4))
    g.distances()[0, 1] = 99
    assert g.distances()[0, 1] == 1


def test_box_nodes_partitions():
    t = Topology.torus((16, 16))
    quadrant = t.box_nodes((0, 0), (8, 8))  # Pascual et al. sec. 5.2
    assert len(quadrant) == 64 and quadrant[:3].tolist() == [0, 1, 2] and quadrant[8] == 16
    band = t.box_nodes((0, 0), (16, 4))
    assert band.tolist() == list(range(64))
    wrapped = t.box_nodes((15, 15), (2, 2))
    assert wrapped.tolist() == [255, 240, 15, 0]
    # the quadrant's classic matrix is that of an 8x8 mesh: wrap links are outside it
    np.testing.assert_array_equal(t.cost_matrix("classic", quadrant), Topology.mesh((8, 8)).distances())
    with pytest.raises(ValueError, match="does not fit"):
        Topology.mesh((4, 4)).box_nodes((3, 0), (2, 2))
    with pytest.raises(ValueError, match="`origin`"):
        t.box_nodes((16, 0), (2, 2))
    with pytest.raises(ValueError, match="`size`"):
        t.box_nodes((0, 0), (2, 2, 2))


@pytest.mark.parametrize("nodes, rule", [
    ([0, 16], "ids must be in 0..15, got 16"),
    ([-1, 2], "ids must be in 0..15, got -1"),
    ([1, 2, 1], "ids must be distinct, 1 is repeated"),
    ([], "at least one"),
    ([0.0, 1.0], "integer node ids"),
    ([[0, 1]], "1-D"),
])
def test_nodes_validation(nodes, rule):
    with pytest.raises(ValueError, match=rule):
        Topology.torus((4, 4)).cost_matrix("td", nodes=nodes)


def test_criterion_validation():
    with pytest.raises(ValueError, match="`criterion` must be one of classic, td"):
        Topology.torus((4, 4)).cost_matrix("manhattan")
    assert Topology.torus((4, 4)).cost_matrix("TD")[0, 2] == 4


# -- graphs --------------------------------------------------------------------------

def test_graph_weighted_and_hops():
    G = nx.Graph()
    G.add_edge("a", "b", w=1.0)
    G.add_edge("b", "c", w=1.0)
    G.add_edge("a", "c", w=5.0)
    G.add_edge("c", "d")  # no attribute: length 1
    hops = Topology.from_graph(G)
    wt = Topology.from_graph(G, weight="w")
    assert hops.labels == ("a", "b", "c", "d")
    assert hops.distances()[0].tolist() == [0, 1, 1, 2]
    assert wt.distances()[0].tolist() == [0, 1, 2, 3]
    assert hops.cost_matrix("classic", nodes=[3, 0]).tolist() == [[0, 2], [2, 0]]
    assert hops != wt


def test_multigraph_keeps_shortest_parallel_edge():
    G = nx.MultiGraph()
    G.add_edge(0, 1, w=4.0)
    G.add_edge(0, 1, w=2.0)
    assert Topology.from_graph(G, weight="w").distances()[0, 1] == 2.0


def test_single_node_graph():
    G = nx.Graph()
    G.add_node("only")
    t = Topology.from_graph(G)
    assert t.n == 1 and t.distances().tolist() == [[0.0]] and len(t.links()) == 0


@pytest.mark.parametrize("G, rule", [
    (nx.Graph([(0, 1), (2, 3)]), "must be connected"),
    (nx.Graph([(0, 1), (1, 1)]), "self-loop at node 1"),
    (nx.DiGraph([(0, 1), (1, 0)]), "must be undirected"),
    (nx.Graph(), "no nodes"),
])
def test_graph_rejects(G, rule):
    with pytest.raises(ValueError, match=rule):
        Topology.from_graph(G)


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), float("inf"), "x"])
def test_graph_rejects_bad_lengths(value):
    G = nx.Graph()
    G.add_edge(0, 1, w=value)
    with pytest.raises(ValueError, match="'w' must be"):
        Topology.from_graph(G, weight="w")


def test_graph_has_no_axes():
    g = Topology.from_graph(nx.cycle_graph(5))
    with pytest.raises(ValueError, match="'td' needs per-axis hop counts"):
        g.cost_matrix("td")
    with pytest.raises(ValueError, match="`coords` needs a mesh or torus"):
        _ = g.coords
    with pytest.raises(ValueError, match="needs a mesh or torus"):
        g.axis_distances()
    assert sorted(map(tuple, g.links().tolist()))[:2] == [(0, 1), (0, 4)]
    assert len(g.links()) == 10


def test_direct_graph_construction_is_checked():
    assert Topology("graph", labels=("a", "b"), edges=((0, 1, 2.0),)).distances()[0, 1] == 2.0
    with pytest.raises(ValueError, match="`edges` must join distinct node ids in 0..1"):
        Topology("graph", labels=("a", "b"), edges=((0, 2, 1.0),))
    with pytest.raises(ValueError, match="`edges` lengths must be positive"):
        Topology("graph", labels=("a", "b"), edges=((0, 1, -1.0),))
    with pytest.raises(ValueError, match="`kind` must be"):
        Topology("ring", (4,))
    with pytest.raises(ValueError, match="takes no `labels`"):
        Topology("mesh", (2,), labels=("a", "b"))
