"""The Machine: free/busy state, distances against networkx, networks, size guards.

Node ids, boxes, links and hand-checked grid distances are covered by
tests/qap/test_cost_matrix.py.
"""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import optalloc.machine._machine as machine_module
from optalloc.machine import Machine, parse_map

SETTINGS = settings(max_examples=60, deadline=None)

# -- free and busy nodes ---------------------------------------------------------------


def test_new_machine_is_free():
    m = Machine((4, 2))
    assert m.n == m.size == m.n_free == 8
    assert m.free.all() and m.owner.tolist() == [-1] * 8
    assert m.free_ids().tolist() == list(range(8))
    np.testing.assert_array_equal(m.free_points(), m.coords)
    assert all(m.is_free(i) for i in range(8))


def test_allocate_and_release():
    m = Machine((4, 2))
    got = m.allocate([1, 2, 5], owner=7)
    assert isinstance(got, np.ndarray) and got.tolist() == [1, 2, 5]
    assert m.n_free == 5 and m.free_ids().tolist() == [0, 3, 4, 6, 7]
    assert m.owner.tolist() == [-1, 7, 7, -1, -1, 7, -1, -1]
    assert not m.is_free(5) and m.is_free(4)
    assert m.free_points().tolist() == [[0, 0], [3, 0], [0, 1], [2, 1], [3, 1]]
    m.allocate(np.array([0], dtype=np.int32), owner=8)
    m.allocate(3)  # one id, default owner 0
    assert m.owner[[0, 3]].tolist() == [8, 0] and m.n_free == 3
    assert m.allocate([]).tolist() == [] and m.n_free == 3
    m.release([5, 1], owner=7)
    assert m.n_free == 5 and m.is_free(1) and not m.is_free(2) and m.owner[1] == -1
    m.release([2], owner=7)
    m.release(3)
    m.release([0], owner=8)
    assert m.n_free == 8 and m.free.all() and (m.owner == -1).all()


def test_free_and_owner_are_read_only():
    m = Machine(3)
    for arr in (m.free, m.owner, m.free_ids(), m.free_points()):
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = arr[0]
    m.allocate([1])
    assert not m.free[1]  # a view: it follows the state


@pytest.mark.parametrize("ids, message", [
    ([1, 2], "node 1 is busy (job 7)"),
    ([8], "node 8 does not exist (machine has 8 nodes)"),
    ([0, -1], "node -1 does not exist (machine has 8 nodes)"),
    ([3, 4, 3], "node 3 given twice in one allocation"),
    ([0.0, 2.0], "node ids must be integers"),
    ([True], "node ids must be integers"),
])
def test_allocate_errors(ids, message):
    m = Machine((4, 2))
    m.allocate([1], owner=7)
    with pytest.raises(RuntimeError) as err:
        m.allocate(ids, owner=3)
    assert message in str(err.value)
    # nothing changed
    assert m.n_free == 7 and m.free_ids().tolist() == [0, 2, 3, 4, 5, 6, 7]
    assert m.owner.tolist() == [-1, 7, -1, -1, -1, -1, -1, -1]


@pytest.mark.parametrize("ids, owner, message", [
    ([1, 3], 7, "node 3 is free, not by job 7"),
    ([1, 2], 7, "node 2 is held by job 8, not by job 7"),
    ([1], 8, "node 1 is held by job 7, not by job 8"),
    ([9], 7, "node 9 does not exist (machine has 8 nodes)"),
    ([1, 1], 7, "node 1 given twice in one allocation"),
    ([3], -1, "node 3 is free, not by job -1"),  # -1 marks free nodes: not an owner to release
    ([0], -2, "node 0 is free, not by job -2"),
])
def test_release_errors(ids, owner, message):
    m = Machine((4, 2))
    m.allocate([1], owner=7)
    m.allocate([2], owner=8)
    with pytest.raises(RuntimeError) as err:
        m.release(ids, owner=owner)
    assert message in str(err.value)
    assert m.n_free == 6 and m.owner.tolist() == [-1, 7, 8, -1, -1, -1, -1, -1]


def test_map_nodes_release_only_by_their_owner():
    m = parse_map("#.\n..\n")
    with pytest.raises(RuntimeError, match="node 0 is held by job -2, not by job 0"):
        m.release([0])
    m.release([0], owner=-2)
    assert m.n_free == 4


def test_free_arrays_are_cached_until_a_change():
    m = Machine((3, 3))
    ids, pts = m.free_ids(), m.free_points()
    assert m.free_ids() is ids and m.free_points() is pts
    steps = [
        lambda: m.allocate([4, 0], owner=1),
        lambda: m.allocate([8], owner=2),
        lambda: m.release([0, 4], owner=1),
        m.reset,
    ]
    for step in steps:
        step()
        new_ids, new_pts = m.free_ids(), m.free_points()
        assert new_ids is not ids and new_pts is not pts
        assert new_ids.tolist() == np.flatnonzero(m.free).tolist()
        np.testing.assert_array_equal(new_pts, m.coords[new_ids])
        assert len(new_ids) == m.n_free == int(m.free.sum())
        assert all(m.is_free(i) == (i in set(new_ids.tolist())) for i in range(m.n))
        ids, pts = new_ids, new_pts
    # a failed call changes nothing and keeps the cache
    with pytest.raises(RuntimeError):
        m.release([1])
    assert m.free_ids() is ids


def test_copy_keeps_state_and_is_independent():
    m = Machine((3, 2), torus=(True, False))
    m.allocate([0, 4], owner=5)
    m.allocate([1], owner=-2)
    c = m.copy()
    assert (c.shape, c.torus) == (m.shape, m.torus)
    assert c.free.tolist() == m.free.tolist() and c.owner.tolist() == m.owner.tolist()
    assert c.n_free == m.n_free == 3 and c.free_ids().tolist() == m.free_ids().tolist()
    np.testing.assert_array_equal(c.distances(), m.distances())
    c.release([0], owner=5)
    c.allocate([5], owner=6)
    assert m.owner.tolist() == [5, -2, -1, -1, 5, -1] and m.n_free == 3
    assert m.free_ids().tolist() == [2, 3, 5]
    m.release([4], owner=5)
    assert c.owner.tolist() == [-1, -2, -1, -1, 5, 6] and c.free_ids().tolist() == [0, 2, 3]


def test_copy_of_a_network():
    g = Machine.from_graph(nx.path_graph(["a", "b", "c"]))
    g.allocate([2], owner=1)
    c = g.copy()
    assert c.labels == g.labels and c.edges == g.edges and c.kind == "network"
    assert c.free_ids().tolist() == [0, 1]
    c.release([2], owner=1)
    assert g.free_ids().tolist() == [0, 1] and c.n_free == 3


def test_copy_empty_and_reset():
    m = Machine((4, 4), torus=True)
    m.allocate([1, 2, 3], owner=1)
    e = m.copy_empty()
    assert (e.shape, e.torus, e.n) == (m.shape, m.torus, m.n)
    assert e.n_free == 16 and e.free.all() and (e.owner == -1).all()
    assert m.n_free == 13  # the original keeps its state
    e.allocate([1])  # and e is independent
    assert m.owner[1] == 1
    np.testing.assert_array_equal(e.distances(), m.distances())
    m.reset()
    assert m.n_free == 16 and m.free.all() and (m.owner == -1).all()
    assert m.free_ids().tolist() == list(range(16))
    m.allocate([1, 2, 3], owner=2)  # usable again after a reset
    assert m.n_free == 13


# -- distances against networkx -------------------------------------------------------

axes = st.lists(st.tuples(st.integers(1, 5), st.booleans()), min_size=1, max_size=3)


def grid_reference(shape, wrap):
    """All-pairs hop counts of networkx's grid graph, indexed by our node ids.

    networkx takes one size and one wrap flag per dimension and labels nodes
    by tuples listing the dimensions in reverse order: (z, y, x).
    """
    G = nx.grid_graph(dim=list(shape), periodic=list(wrap))
    m = Machine(shape, torus=wrap)
    labels = list(G.nodes)
    coords = [tuple(reversed(v)) if isinstance(v, tuple) else (v,) for v in labels]
    ids = dict(zip(labels, m.node_ids(np.array(coords, dtype=np.int64)).tolist()))
    assert sorted(ids.values()) == list(range(m.n))
    D = np.full((m.n, m.n), -1.0)
    for u, row in nx.all_pairs_shortest_path_length(G):
        for v, hops in row.items():
            D[ids[u], ids[v]] = hops
    return D


@SETTINGS
@given(axes=axes)
def test_grid_distances_match_networkx(axes):
    shape = tuple(s for s, _ in axes)
    wrap = tuple(w for _, w in axes)
    m = Machine(shape, torus=wrap)
    assert m.torus == wrap
    np.testing.assert_array_equal(m.distances(), grid_reference(shape, wrap))


@SETTINGS
@given(axes=axes, data=st.data())
def test_distance_agrees_with_distances(axes, data):
    m = Machine(tuple(s for s, _ in axes), torus=tuple(w for _, w in axes))
    D = m.distances()
    pairs = data.draw(st.lists(st.tuples(st.integers(0, m.n - 1), st.integers(0, m.n - 1)), min_size=1, max_size=10))
    for i, j in pairs:
        assert m.distance(i, j) == D[i, j] == m.distance(j, i)
    nodes = data.draw(st.lists(st.integers(0, m.n - 1), min_size=1, max_size=m.n, unique=True))
    sub = m.distances(nodes)
    np.testing.assert_array_equal(sub, D[np.ix_(nodes, nodes)])
    assert sub.flags.writeable and not np.shares_memory(sub, D)


def test_torus_flag_forms():
    assert Machine((3, 4), torus=True).torus == (True, True)
    assert Machine((3, 4)).torus == (False, False)
    assert Machine((3, 4), torus=np.array([True, False])).torus == (True, False)
    assert Machine((3, 4), torus=np.bool_(True)).torus == (True, True)


@pytest.mark.parametrize("m", [
    Machine((4, 3), torus=(False, True)),
    Machine.from_graph(nx.cycle_graph(5)),
], ids=["grid", "network"])
def test_distance_matrices_cached_and_copied(m):
    D = m.distances()
    assert m.distances() is D  # built once
    assert not D.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        D[0, 1] = 99
    sub = m.distances([2, 0, 1])
    np.testing.assert_array_equal(sub, D[np.ix_([2, 0, 1], [2, 0, 1])])
    assert sub.flags.writeable and not np.shares_memory(sub, D)
    sub[:] = 99
    assert m.distances([2, 0, 1]).max() < 99 and D.max() < 99
    assert m.distances() is D
    for i in range(m.n):
        for j in range(m.n):
            assert m.distance(i, j) == D[i, j]


def test_distances_nodes_first_then_all():
    g = Machine.from_graph(nx.path_graph(4))
    assert g.distances([3, 0]).tolist() == [[0, 3], [3, 0]]
    D = g.distances()
    assert D.shape == (4, 4) and not D.flags.writeable and g.distances() is D


# -- networks ------------------------------------------------------------------------


@st.composite
def connected_graphs(draw, multigraph=False):
    n = draw(st.integers(1, 12))
    labels = draw(st.permutations([f"n{k}" for k in range(n)] if draw(st.booleans()) else list(range(n))))
    G = nx.MultiGraph() if multigraph else nx.Graph()
    G.add_nodes_from(labels)
    weights = st.one_of(st.none(), st.integers(1, 9), st.floats(0.01, 100, allow_nan=False))
    edges = [(labels[k], labels[draw(st.integers(0, k - 1))]) for k in range(1, n)]  # a spanning tree
    if n > 1:
        node = st.sampled_from(labels)
        edges += [e for e in draw(st.lists(st.tuples(node, node), max_size=2 * n)) if e[0] != e[1]]
    for u, v in edges:
        w = draw(weights)
        if w is None:
            G.add_edge(u, v)  # no attribute: length 1
        else:
            G.add_edge(u, v, w=w)
    return G


def assert_network_matches(G, weight):
    m = Machine.from_graph(G, weight=weight)
    assert m.labels == tuple(G.nodes) and m.n == G.number_of_nodes() and m.kind == "network"
    ref = np.full((m.n, m.n), -1.0)
    index = {v: i for i, v in enumerate(m.labels)}
    for u, row in nx.shortest_path_length(G, weight=weight):
        for v, d in row.items():
            ref[index[u], index[v]] = d
    np.testing.assert_allclose(m.distances(), ref, rtol=1e-12, atol=0)


@SETTINGS
@given(G=connected_graphs())
def test_network_distances_match_networkx(G):
    assert_network_matches(G, "w")
    assert_network_matches(G, None)


@SETTINGS
@given(G=connected_graphs(multigraph=True))
def test_multigraph_distances_match_networkx(G):
    assert_network_matches(G, "w")


def test_multigraph_keeps_the_shortest_parallel_edge():
    G = nx.MultiGraph()
    G.add_edge("a", "b", w=4.0)
    G.add_edge("b", "a", w=2.5)
    G.add_edge("a", "b")  # no attribute: length 1
    G.add_edge("b", "c", w=3.0)
    G.add_edge("b", "c", w=7.0)
    m = Machine.from_graph(G, weight="w")
    assert m.edges == ((0, 1, 1.0), (1, 2, 3.0))
    G.remove_edge("a", "b", key=2)
    assert Machine.from_graph(G, weight="w").edges == ((0, 1, 2.5), (1, 2, 3.0))
    assert Machine.from_graph(G).edges == ((0, 1, 1.0), (1, 2, 1.0))


def test_network_unknown_weight_counts_hops():
    G = nx.path_graph(3)
    nx.set_edge_attributes(G, 5.0, "w")
    assert Machine.from_graph(G, weight="other").distances()[0].tolist() == [0, 1, 2]
    assert Machine.from_graph(G, weight="w").distances()[0].tolist() == [0, 5, 10]


@pytest.mark.parametrize("G, rule", [
    (nx.DiGraph([(0, 1), (1, 0)]), "`G` must be undirected"),
    (nx.MultiDiGraph([(0, 1)]), "`G` must be undirected"),
    (nx.Graph(), "`G` has no nodes"),
    (nx.Graph([(0, 1), (2, 3)]), "`G` must be connected: no path from node id 0 to node id 2"),
    (nx.empty_graph(2), "`G` must be connected"),
    (nx.Graph([(0, 1), (1, 1)]), "`G` has a self-loop at node 1"),
])
def test_network_rejects(G, rule):
    with pytest.raises(ValueError, match=rule.replace("(", r"\(")):
        Machine.from_graph(G)


@pytest.mark.parametrize("value, rule", [
    (0, "must be positive and finite, got 0.0"),
    (-1.5, "must be positive and finite, got -1.5"),
    (float("nan"), "must be positive and finite, got nan"),
    (float("inf"), "must be positive and finite, got inf"),
    ("x", "must be a number, got 'x'"),
    (None, "must be a number, got None"),
    ([1], "must be a number, got [1]"),
])
def test_network_rejects_bad_lengths(value, rule):
    G = nx.Graph()
    G.add_edge("a", "b", w=1.0)
    G.add_edge("b", "c", w=value)
    with pytest.raises(ValueError) as err:
        Machine.from_graph(G, weight="w")
    assert str(err.value) == f"`G` edge ('b', 'c'): 'w' {rule}"
    assert Machine.from_graph(G).distances()[0, 2] == 2  # hops ignore the attribute


def test_network_has_no_coordinates():
    g = Machine.from_graph(nx.cycle_graph(4))
    assert g.coords is None and g.shape is None and g.ndim is None and not g.is_grid
    assert g.describe() == "network of 4 nodes"
    for call in (g.free_points, lambda: g.node_ids([[0]]), lambda: g.box_nodes((0,), (1,)),
                 lambda: list(g.axis_hops()), lambda: g.axis_distances([0], [1])):
        with pytest.raises(ValueError, match="needs a mesh or torus, not a network"):
            call()
    assert g.free_ids().tolist() == [0, 1, 2, 3]  # ids work on every machine
    g.allocate([1, 3], owner=2)
    assert g.free_ids().tolist() == [0, 2] and g.n_free == 2


# -- size guards -----------------------------------------------------------------------


def test_nodes_max_guard(monkeypatch):
    monkeypatch.setattr(machine_module, "NODES_MAX", 12)
    assert Machine((3, 4)).n == 12
    with pytest.raises(ValueError) as err:
        Machine((4, 4))
    assert str(err.value) == "`shape` 4x4 has 16 nodes; at most 12"


def test_dense_max_guard(monkeypatch):
    monkeypatch.setattr(machine_module, "DENSE_MAX", 10)
    m = Machine((4, 4))
    with pytest.raises(ValueError, match=r"16 nodes: distance matrices are dense, at most 10 nodes"):
        m.distances()
    with pytest.raises(ValueError, match="at most 10 nodes"):
        m.distances(list(range(11)))
    with pytest.raises(ValueError, match="at most 10 nodes"):
        list(m.axis_hops())
    assert m.distances(list(range(10))).shape == (10, 10)  # a subset is fine
    assert m.distance(0, 15) == 6  # one distance needs no matrix
    assert Machine.from_graph(nx.path_graph(10)).n == 10
    with pytest.raises(ValueError) as err:
        Machine.from_graph(nx.path_graph(11))
    assert str(err.value) == "`G` has 11 nodes; a network machine holds at most 10"


@pytest.mark.parametrize("torus", ["tm", 0, (1, 0), (True,), None])
def test_torus_flags_must_be_bools(torus):
    with pytest.raises(ValueError, match="`torus` must be a bool or one bool per axis"):
        Machine((4, 4), torus=torus)


@pytest.mark.parametrize("node", [-1, 4, 1.5])
def test_is_free_refuses_unknown_nodes(node):
    with pytest.raises(ValueError):
        Machine(4).is_free(node)
