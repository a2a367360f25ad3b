"""Cost matrices of the mapping QAP, and the machine features mapping uses
(node ids, sub-boxes, links, distances): hand-computed entries, independent
graph constructions (plain Python and ``nx.grid_graph``) as ground truth,
metric properties."""

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.machine import Machine, parse_machine
from optalloc.qap import CRITERIA, cost_matrix


def mesh(shape):
    return Machine(shape)


def torus(shape):
    return Machine(shape, torus=True)


def axis_distances(m, nodes=None):
    """(d, n, n) per-axis hop counts."""
    return np.stack(list(m.axis_hops(nodes)))


def reference_graph(shape, wrap):
    """The mesh/torus as a NetworkX graph on coordinate tuples, built
    without optalloc; ``wrap`` a bool or one flag per axis."""
    wrap = (wrap,) * len(shape) if isinstance(wrap, bool) else tuple(wrap)
    G = nx.Graph()
    pts = list(itertools.product(*(range(s) for s in shape)))
    G.add_nodes_from(pts)
    for p in pts:
        for k, s in enumerate(shape):
            q = list(p)
            q[k] += 1
            if q[k] == s:
                if not wrap[k] or s == 1:
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


def test_criteria():
    assert CRITERIA == ("classic", "td")


# -- hand-computed entries ---------------------------------------------------

def test_torus_4x4_hand_entries():
    t = torus((4, 4))
    a, b = node_id((0, 0), (4, 4)), node_id((3, 1), (4, 4))
    assert b == 7
    assert axis_distances(t)[:, a, b].tolist() == [1, 1]  # dx = 1 via the wrap, dy = 1
    assert cost_matrix(t, "classic")[a, b] == 2
    assert cost_matrix(t, "td")[a, b] == 2
    # half a ring away: 2 hops either way (the modulo form of eq. 4 would say 0)
    c = node_id((2, 0), (4, 4))
    assert cost_matrix(t, "classic")[a, c] == 2
    assert cost_matrix(t, "td")[a, c] == 4
    d = node_id((2, 2), (4, 4))
    assert cost_matrix(t, "classic")[a, d] == 4 and cost_matrix(t, "td")[a, d] == 4
    e = node_id((1, 3), (4, 4))  # dx = 0, dy = 2
    assert cost_matrix(t, "classic")[e, node_id((1, 1), (4, 4))] == 2
    assert cost_matrix(t, "td")[e, node_id((1, 1), (4, 4))] == 4


def test_mesh_4x4_hand_entries():
    m = mesh((4, 4))
    a, b = node_id((0, 0), (4, 4)), node_id((3, 1), (4, 4))
    assert axis_distances(m)[:, a, b].tolist() == [3, 1]
    assert cost_matrix(m, "classic")[a, b] == 4
    assert cost_matrix(m, "td")[a, b] == 6
    f = node_id((3, 3), (4, 4))
    assert cost_matrix(m, "classic")[a, f] == 6 and cost_matrix(m, "td")[a, f] == 6
    g = node_id((0, 3), (4, 4))
    assert cost_matrix(m, "classic")[a, g] == 3 and cost_matrix(m, "td")[a, g] == 6


def test_mixed_wrap_hand_entries():
    # wraps on x only: (0, 0) -> (3, 3) is 1 hop along x, 3 along y
    m = Machine((4, 4), torus=(True, False))
    a, b = node_id((0, 0), (4, 4)), node_id((3, 3), (4, 4))
    assert axis_distances(m)[:, a, b].tolist() == [1, 3]
    assert cost_matrix(m, "classic")[a, b] == 4
    assert cost_matrix(m, "td")[a, b] == 4 + 2
    np.testing.assert_array_equal(cost_matrix("4x4 torus(tm)", "td"), cost_matrix(m, "td"))


def test_td_3d_hand_entries():
    m = mesh((4, 4, 2))
    a, b = node_id((0, 0, 0), (4, 4, 2)), node_id((3, 1, 1), (4, 4, 2))
    assert axis_distances(m)[:, a, b].tolist() == [3, 1, 1]
    assert cost_matrix(m, "classic")[a, b] == 5
    assert cost_matrix(m, "td")[a, b] == 5 + (3 - 1)
    t = torus((4, 4, 4))
    c = node_id((2, 3, 0), (4, 4, 4))  # dx = 2, dy = 1, dz = 0
    assert cost_matrix(t, "classic")[0, c] == 3
    assert cost_matrix(t, "td")[0, c] == 3 + 2
    balanced = node_id((1, 1, 1), (4, 4, 4))
    assert cost_matrix(t, "td")[0, balanced] == 3


@pytest.mark.parametrize("wrap", [False, True, (True, False, True)])
def test_td_3d_is_half_the_pairwise_differences(wrap):
    t = Machine((3, 4, 5), torus=wrap)
    A = axis_distances(t).astype(float)
    pairwise = sum(np.abs(A[k] - A[l]) for k, l in itertools.combinations(range(3), 2))
    np.testing.assert_array_equal(cost_matrix(t, "td"), A.sum(axis=0) + pairwise / 2)


@pytest.mark.parametrize("wrap", [False, True, (False, True)])
def test_td_2d_is_eq7(wrap):
    t = Machine((5, 3), torus=wrap)
    dx, dy = axis_distances(t).astype(float)
    np.testing.assert_array_equal(cost_matrix(t, "td"), dx + dy + np.abs(dx - dy))


def test_td_ignores_axes_of_side_one():
    np.testing.assert_array_equal(cost_matrix(torus((8, 8, 1)), "td"), cost_matrix(torus((8, 8)), "td"))
    np.testing.assert_array_equal(cost_matrix(mesh((1, 6)), "td"), cost_matrix(mesh((1, 6)), "classic"))


def test_classic_is_the_machine_distances():
    for m in (torus((4, 3)), Machine((5, 2, 3), torus=(False, True, True)), Machine.from_graph(nx.petersen_graph())):
        np.testing.assert_array_equal(cost_matrix(m), m.distances())
        np.testing.assert_array_equal(cost_matrix(m, nodes=[4, 1, 7]), m.distances([4, 1, 7]))


# -- against independent constructions -------------------------------------------

SHAPES = [(1,), (5,), (4, 4), (3, 5), (2, 3), (1, 4), (2, 2, 2), (3, 4, 2), (5, 1, 3)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("wrap", [False, True, "mixed"])
def test_distances_and_links_match_reference_graph(shape, wrap):
    if wrap == "mixed":  # wrap on the even axes only
        wrap = tuple(k % 2 == 0 for k in range(len(shape)))
    t = Machine(shape, torus=wrap)
    G = reference_graph(shape, wrap)
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


@pytest.mark.parametrize("shape, periodic", [
    ((4, 4), True), ((4, 4), False), ((5, 3), (True, False)), ((2, 3), (False, True)),
    ((3, 4, 2), (True, False, True)), ((4, 1, 3), (False, True, True)), ((6,), True), ((2, 2, 2), True),
])
def test_distances_and_links_match_nx_grid_graph(shape, periodic):
    """networkx's own grid: its node tuples list the axes in reverse order of ``dim``."""
    G = nx.grid_graph(dim=list(shape), periodic=periodic)
    m = Machine(shape, torus=periodic)

    def ident(v):
        return node_id(tuple(reversed(v)) if isinstance(v, tuple) else (v,), shape)

    D = m.distances()
    for u, row in nx.all_pairs_shortest_path_length(G):
        for v, hops in row.items():
            assert D[ident(u), ident(v)] == hops
    expected = {(ident(u), ident(v)) for u, v in G.edges if u != v}  # a ring of side 1 is a self-loop
    expected |= {(v, u) for u, v in expected}
    assert {tuple(e) for e in m.links().tolist()} == expected and len(m.links()) == len(expected)
    np.testing.assert_array_equal(cost_matrix(m, "classic"), D)


def test_from_graph_matches_grid():
    G = reference_graph((4, 3), True)
    g = Machine.from_graph(G)
    perm = [node_id(p, (4, 3)) for p in g.labels]
    t = torus((4, 3))
    np.testing.assert_array_equal(g.distances(), t.distances()[np.ix_(perm, perm)])
    np.testing.assert_array_equal(cost_matrix(g), cost_matrix(t)[np.ix_(perm, perm)])
    assert g.kind == "network" and g.n == 12 and g.ndim is None and not g.is_grid


# -- properties ---------------------------------------------------------------

shapes_and_wrap = st.lists(st.tuples(st.integers(1, 5), st.booleans()), min_size=1, max_size=3).map(
    lambda axes: (tuple(s for s, _ in axes), tuple(w for _, w in axes)))


@settings(max_examples=40, deadline=None)
@given(axes=shapes_and_wrap)
def test_distances_are_a_metric(axes):
    shape, wrap = axes
    t = Machine(shape, torus=wrap)
    D = t.distances()
    np.testing.assert_array_equal(D, D.T)
    assert np.all(np.diag(D) == 0)
    off = ~np.eye(t.n, dtype=bool)
    assert np.all(D[off] >= 1)
    # triangle inequality D[i, k] <= D[i, j] + D[j, k]
    assert np.all(D[:, None, :] <= D[:, :, None] + D[None, :, :])
    assert D.max() == sum(s // 2 if w else s - 1 for s, w in zip(shape, wrap))
    C = cost_matrix(t, "td")
    np.testing.assert_array_equal(C, C.T)
    assert np.all(C >= D) and np.all(np.diag(C) == 0)
    assert np.all(C <= 2 * D)


@settings(max_examples=25, deadline=None)
@given(axes=shapes_and_wrap, data=st.data())
def test_partition_is_a_submatrix_in_given_order(axes, data):
    shape, wrap = axes
    t = Machine(shape, torus=wrap)
    nodes = data.draw(st.lists(st.integers(0, t.n - 1), min_size=1, max_size=t.n, unique=True))
    for crit in ("classic", "td"):
        full = cost_matrix(t, crit)
        np.testing.assert_array_equal(cost_matrix(t, crit, nodes=nodes), full[np.ix_(nodes, nodes)])
    np.testing.assert_array_equal(t.node_ids(t.coords[nodes]), nodes)


def test_large_machine_builds():
    t = torus((40, 40))
    C = cost_matrix(t, "td")
    assert C.shape == (1600, 1600) and C.max() == 40 + 0  # (20, 20) is balanced
    assert torus((12, 12, 12)).distances().max() == 18


def test_dense_matrices_have_a_limit():
    with pytest.raises(ValueError, match="dense"):
        cost_matrix(torus((300, 300)), "td")
    # (0, 0), (150, 0), (150, 150): a partition of a large machine is fine
    assert cost_matrix(torus((300, 300)), "classic", nodes=[0, 150, 45150]).tolist() == \
        [[0.0, 150.0, 300.0], [150.0, 0.0, 150.0], [300.0, 150.0, 0.0]]
    assert cost_matrix(torus((300, 300)), "td", nodes=[0, 150, 45150]).tolist() == \
        [[0.0, 300.0, 300.0], [300.0, 0.0, 300.0], [300.0, 300.0, 0.0]]


# -- specs, shapes, node ids, partitions ------------------------------------------------

def test_specs_parse_and_round_trip():
    for spec, shape, wrap in (("torus:8x8", (8, 8), (True, True)), ("mesh:4x4x2", (4, 4, 2), (False,) * 3),
                              ("torus:5", (5,), (True,)), ("mesh:3x1", (3, 1), (False, False)),
                              ("8x8 torus(tm)", (8, 8), (True, False))):
        m = parse_machine(spec)
        assert (m.shape, m.torus) == (shape, wrap)
        back = parse_machine(m.describe())
        assert (back.shape, back.torus) == (m.shape, m.torus)
        np.testing.assert_array_equal(cost_matrix(spec, "td"), cost_matrix(m, "td"))
    assert parse_machine(" Torus: 8x8 ".replace(": ", ":")).torus == (True, True)
    assert parse_machine("torus:8x8").torus != parse_machine("mesh:8x8").torus
    assert repr(torus((2, 3))) == "Machine((2, 3), torus=(True, True))"
    assert str(parse_machine("torus:8x8")) == "8x8 torus"


@pytest.mark.parametrize("spec", ["torus", "ring:8", "torus:8by8", "torus:", "mesh:4x0", ":4x4", "torus:8x-8"])
def test_specs_rejected(spec):
    with pytest.raises(ValueError, match="`(machine|shape)`"):
        cost_matrix(spec)


@pytest.mark.parametrize("shape", [(4, 0), (-1,), (), 2.5, "ab", (3, 1.5), 0])
def test_shape_validation(shape):
    with pytest.raises(ValueError, match="`shape`"):
        Machine(shape)


def test_torus_flags_validation():
    with pytest.raises(ValueError, match="`torus` must be a bool or one bool per axis"):
        Machine((4, 4), torus=(True,))


def test_int_shape_is_one_axis():
    assert Machine(6, torus=True).shape == (6,)
    np.testing.assert_array_equal(cost_matrix(Machine(6, torus=True)), cost_matrix(torus((6,))))


def test_matrices_are_not_shared():
    t = torus((4, 4))
    C = cost_matrix(t)
    C[0, 1] = 99
    assert cost_matrix(t)[0, 1] == 1 and t.distances()[0, 1] == 1
    with pytest.raises(ValueError, match="read-only"):
        t.distances()[0, 1] = 99
    g = Machine.from_graph(nx.cycle_graph(4))
    cost_matrix(g)[0, 1] = 99
    assert cost_matrix(g)[0, 1] == 1 and g.distances()[0, 1] == 1


def test_node_ids():
    m = mesh((4, 4))
    assert m.node_ids([[3, 1], [0, 2]]).tolist() == [7, 8]
    assert m.coords[7].tolist() == [3, 1]
    with pytest.raises(ValueError, match="`coords`"):
        m.node_ids([[4, 0]])
    with pytest.raises(ValueError, match="`coords`"):
        m.node_ids([[1, 2, 3]])


def test_box_nodes_partitions():
    t = torus((16, 16))
    quadrant = t.box_nodes((0, 0), (8, 8))  # Pascual et al. sec. 5.2
    assert len(quadrant) == 64 and quadrant[:3].tolist() == [0, 1, 2] and quadrant[8] == 16
    band = t.box_nodes((0, 0), (16, 4))
    assert band.tolist() == list(range(64))
    wrapped = t.box_nodes((15, 15), (2, 2))
    assert wrapped.tolist() == [255, 240, 15, 0]
    # the quadrant's classic matrix is that of an 8x8 mesh: wrap links are outside it
    np.testing.assert_array_equal(cost_matrix(t, "classic", quadrant), mesh((8, 8)).distances())
    with pytest.raises(ValueError, match="does not fit"):
        mesh((4, 4)).box_nodes((3, 0), (2, 2))
    with pytest.raises(ValueError, match="`origin`"):
        t.box_nodes((16, 0), (2, 2))
    with pytest.raises(ValueError, match="`size`"):
        t.box_nodes((0, 0), (2, 2, 2))
    # wrap on x only: a box may wrap along x, not along y
    m = Machine((4, 4), torus=(True, False))
    assert m.box_nodes((3, 0), (2, 2)).tolist() == [3, 0, 7, 4]
    with pytest.raises(ValueError, match="does not fit"):
        m.box_nodes((0, 3), (2, 2))


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
        cost_matrix(torus((4, 4)), "td", nodes=nodes)


def test_criterion_validation():
    with pytest.raises(ValueError, match="`criterion` must be one of classic, td"):
        cost_matrix(torus((4, 4)), "manhattan")
    assert cost_matrix(torus((4, 4)), "TD")[0, 2] == 4


# -- networks --------------------------------------------------------------------------

def test_graph_weighted_and_hops():
    G = nx.Graph()
    G.add_edge("a", "b", w=1.0)
    G.add_edge("b", "c", w=1.0)
    G.add_edge("a", "c", w=5.0)
    G.add_edge("c", "d")  # no attribute: length 1
    hops = Machine.from_graph(G)
    wt = Machine.from_graph(G, weight="w")
    assert hops.labels == ("a", "b", "c", "d")
    assert hops.distances()[0].tolist() == [0, 1, 1, 2]
    assert wt.distances()[0].tolist() == [0, 1, 2, 3]
    assert cost_matrix(hops, "classic", nodes=[3, 0]).tolist() == [[0, 2], [2, 0]]
    assert cost_matrix(wt, "classic", nodes=[3, 0]).tolist() == [[0, 3], [3, 0]]
    assert hops.edges != wt.edges


def test_multigraph_keeps_shortest_parallel_edge():
    G = nx.MultiGraph()
    G.add_edge(0, 1, w=4.0)
    G.add_edge(0, 1, w=2.0)
    assert Machine.from_graph(G, weight="w").distances()[0, 1] == 2.0


def test_single_node_graph():
    G = nx.Graph()
    G.add_node("only")
    t = Machine.from_graph(G)
    assert t.n == 1 and cost_matrix(t).tolist() == [[0.0]] and len(t.links()) == 0


@pytest.mark.parametrize("G, rule", [
    (nx.Graph([(0, 1), (2, 3)]), "must be connected"),
    (nx.Graph([(0, 1), (1, 1)]), "self-loop at node 1"),
    (nx.DiGraph([(0, 1), (1, 0)]), "must be undirected"),
    (nx.Graph(), "no nodes"),
])
def test_graph_rejects(G, rule):
    with pytest.raises(ValueError, match=rule):
        Machine.from_graph(G)


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), float("inf"), "x"])
def test_graph_rejects_bad_lengths(value):
    G = nx.Graph()
    G.add_edge(0, 1, w=value)
    with pytest.raises(ValueError, match="'w' must be"):
        Machine.from_graph(G, weight="w")


def test_graph_link_lengths():
    G = nx.Graph()
    G.add_edge("a", "b", length=2.0)
    g = Machine.from_graph(G, weight="length")
    assert g.edges == ((0, 1, 2.0),) and cost_matrix(g)[0, 1] == 2.0


def test_graph_has_no_axes():
    g = Machine.from_graph(nx.cycle_graph(5))
    with pytest.raises(ValueError, match="'td' needs per-axis hop counts"):
        cost_matrix(g, "td")
    assert g.coords is None
    with pytest.raises(ValueError, match="needs a mesh or torus"):
        axis_distances(g)
    with pytest.raises(ValueError, match="needs a mesh or torus"):
        g.box_nodes((0,), (2,))
    assert sorted(map(tuple, g.links().tolist()))[:2] == [(0, 1), (0, 4)]
    assert len(g.links()) == 10
