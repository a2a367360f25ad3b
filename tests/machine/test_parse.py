"""parse_machine: shapes, machine maps and network files."""

import json
import re

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.machine import Machine, dragonfly, fat_tree, parse_machine, processors_per_node

T, F = True, False


@pytest.mark.parametrize("spec, shape, torus", [
    ("16x8", (16, 8), (F, F)),
    ("16x8 mesh", (16, 8), (F, F)),
    ("16x8mesh", (16, 8), (F, F)),
    ("16x8m", (16, 8), (F, F)),
    ("16 x 8", (16, 8), (F, F)),
    ("  16 x8  ", (16, 8), (F, F)),
    ("16X8", (16, 8), (F, F)),
    ("16x8 MESH", (16, 8), (F, F)),
    ("8x8x8 torus", (8, 8, 8), (T, T, T)),
    ("8x8x8 Torus", (8, 8, 8), (T, T, T)),
    ("8X8X8 TORUS", (8, 8, 8), (T, T, T)),
    ("8x8t", (8, 8), (T, T)),
    ("8x8 t", (8, 8), (T, T)),
    ("8x8T", (8, 8), (T, T)),
    ("torus:4x4", (4, 4), (T, T)),
    ("TORUS:4X4", (4, 4), (T, T)),
    (" torus : 4 x 4 ", (4, 4), (T, T)),
    ("mesh:8x8", (8, 8), (F, F)),
    ("Mesh:8x8x2", (8, 8, 2), (F, F, F)),
    ("8x4 torus(tm)", (8, 4), (T, F)),
    ("8x4 torus(mt)", (8, 4), (F, T)),
    ("8x4 TORUS(TM)", (8, 4), (T, F)),
    ("8x4torus(mm)", (8, 4), (F, F)),
    ("4x4x2 torus(ttm)", (4, 4, 2), (T, T, F)),
    ("2x3x4x5 torus(mtmt)", (2, 3, 4, 5), (F, T, F, T)),
    ("12", (12,), (F,)),
    ("12 torus", (12,), (T,)),
    ("12t", (12,), (T,)),
    ("torus:5", (5,), (T,)),
    ("2x2x2x2", (2, 2, 2, 2), (F, F, F, F)),
    ("2x2x2x2 torus", (2, 2, 2, 2), (T, T, T, T)),
    ("1x1", (1, 1), (F, F)),
])
def test_shape_specs(spec, shape, torus):
    m = parse_machine(spec)
    assert isinstance(m, Machine)
    assert (m.shape, m.torus) == (shape, torus)
    assert m.n == int(np.prod(shape)) and m.n_free == m.n
    assert m.kind == ("torus" if any(torus) else "mesh")


@settings(max_examples=60, deadline=None)
@given(axes=st.lists(st.tuples(st.integers(1, 9), st.booleans()), min_size=1, max_size=4))
def test_describe_round_trips(axes):
    shape = tuple(s for s, _ in axes)
    torus = tuple(w for _, w in axes)
    m = Machine(shape, torus=torus)
    text = m.describe()
    back = parse_machine(text)
    assert (back.shape, back.torus) == (shape, torus)
    assert back.describe() == text == str(m)
    assert parse_machine(text.upper()).torus == torus


def test_describe_forms():
    assert Machine((16, 8)).describe() == "16x8 mesh"
    assert Machine((8, 8, 8), torus=True).describe() == "8x8x8 torus"
    assert Machine((8, 4), torus=(True, False)).describe() == "8x4 torus(tm)"


def test_machine_passes_through():
    m = Machine((4, 4), torus=(False, True))
    m.allocate([3], owner=2)
    assert parse_machine(m) is m
    g = Machine.from_graph(nx.cycle_graph(3))
    assert parse_machine(g, weight="w") is g


def test_path_objects_are_read(tmp_path):
    path = tmp_path / "m.map"
    path.write_text(".#\n..\n")
    for spec in (path, str(path)):
        m = parse_machine(spec)
        assert m.shape == (2, 2) and m.free_ids().tolist() == [0, 2, 3]


# -- files ------------------------------------------------------------------------------


def test_map_file(tmp_path):
    path = tmp_path / "machine.txt"
    path.write_text("..#.\n#...\n##..\n")
    m = parse_machine(path)
    assert (m.shape, m.torus, m.kind) == ((4, 3), (F, F), "mesh")
    busy = [2, 4, 8, 9]
    assert np.flatnonzero(~m.free).tolist() == busy
    assert m.owner[busy].tolist() == [-2] * 4 and (m.owner[m.free] == -1).all()
    assert m.n_free == 8
    assert parse_machine(path).to_map() == path.read_text()


def test_map_file_3d_and_no_extension(tmp_path):
    path = tmp_path / "cube"
    path.write_text("..\n.#\n\n#.\n..\n")
    m = parse_machine(path)
    assert m.shape == (2, 2, 2) and np.flatnonzero(~m.free).tolist() == [3, 4]
    assert m.owner[3] == m.owner[4] == -2


def test_map_file_errors_are_one_line(tmp_path):
    path = tmp_path / "bad.map"
    path.write_text("...\n..\n")
    with pytest.raises(ValueError, match=r"bad\.map, line 2: row has 2 columns, expected 3") as err:
        parse_machine(path)
    assert "\n" not in str(err.value)


def test_graphml_file(tmp_path):
    G = nx.Graph()
    G.add_edge("a", "b", length=2.0, hops=1.0)
    G.add_edge("b", "c", length=3.0, hops=1.0)
    G.add_edge("a", "c", length=10.0, hops=1.0)
    path = tmp_path / "net.GraphML"  # the extension in any case
    nx.write_graphml(G, path)
    m = parse_machine(path)
    assert m.kind == "network" and m.labels == ("a", "b", "c") and m.n_free == 3
    assert m.distances()[0].tolist() == [0, 1, 1]  # hops by default
    assert parse_machine(path, weight="length").distances()[0].tolist() == [0, 2, 5]
    assert parse_machine(str(path), weight="length").distances()[0].tolist() == [0, 2, 5]


@pytest.mark.parametrize("edges_key", ["links", "edges"])
def test_node_link_json_file(tmp_path, edges_key):
    G = nx.cycle_graph(5)
    nx.set_edge_attributes(G, 2.0, "w")
    path = tmp_path / "net.json"
    path.write_text(json.dumps(nx.node_link_data(G, edges=edges_key)))
    m = parse_machine(path)
    assert m.labels == (0, 1, 2, 3, 4) and m.distances()[0].tolist() == [0, 1, 2, 2, 1]
    assert parse_machine(path, weight="w").distances()[0].tolist() == [0, 2, 4, 4, 2]


def test_edge_list_without_extension(tmp_path):
    path = tmp_path / "net"
    path.write_text("# a path and a chord\n0 1\n1 2\n2 3\n0 3\n")
    m = parse_machine(path)
    assert m.kind == "network" and m.labels == (0, 1, 2, 3)
    assert m.distances()[0].tolist() == [0, 1, 2, 1]


def test_edge_list_lengths_are_link_lengths(tmp_path):
    path = tmp_path / "net.txt"
    path.write_text("a b 1\nb c 1\nc d 1\na d 10\nd a 5\n")
    m = parse_machine(path)
    assert m.labels == ("a", "b", "c", "d")
    assert m.distances()[0].tolist() == [0, 1, 2, 3]  # "length" is used (a-d keeps its shortest, 5)
    assert dict(((u, v), w) for u, v, w in m.edges)[(0, 3)] == 5.0
    assert parse_machine(path, weight="length").distances()[0].tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match=r"net\.txt: no edge has the link length attribute 'other' \(`weight`\), "
                                         r"edge \('a', 'b'\) for one; the edges' attributes: 'length'$"):
        parse_machine(path, weight="other")


def test_edge_list_errors(tmp_path):
    path = tmp_path / "net.txt"
    for text, match in [
        ("0 1\n2 3\n", "must be connected"),
        ("0 1 0\n", r"'length' must be positive and finite, got 0\.0"),
        ("0 1\n1 1\n", "self-loop"),
        ("0 1\n1 2 3 4\n", r"net\.txt:2: expected 'u v' or 'u v length'"),
    ]:
        path.write_text(text)
        with pytest.raises(ValueError, match=match) as err:
            parse_machine(path)
        assert "\n" not in str(err.value)


def test_directed_graphml_is_refused(tmp_path):
    path = tmp_path / "d.graphml"
    nx.write_graphml(nx.DiGraph([(0, 1), (1, 0)]), path)
    with pytest.raises(ValueError, match="must be undirected"):
        parse_machine(path)


# -- refused ----------------------------------------------------------------------------


@pytest.mark.parametrize("spec, match", [
    ("16 by 8", "`machine` must be a shape such as '16x8'"),
    ("", "`machine` must be a shape"),
    ("   ", "`machine` must be a shape"),
    ("0x4", r"`shape` must give positive sizes, got \(0, 4\)"),
    ("4x0 torus", "`shape` must give positive sizes"),
    ("mesh:4x0", "`shape` must give positive sizes"),
    ("4x4 ring", "`machine` must be a shape"),
    ("ring:4x4", "`machine` must be a shape"),
    ("4x4 torus(tmm)", r"`machine`: torus\(tmm\) gives 3 wrap flags for 2 axes"),
    ("8x4 torus(t)", r"`machine`: torus\(t\) gives 1 wrap flags for 2 axes"),
    ("2x2x2 torus(tm)", r"gives 2 wrap flags for 3 axes"),
    ("torus(tmm):4x4", "`machine` must be a shape"),
    ("torus(tm):4x4", "`machine` must be a shape"),
    ("4x4 torus(tx)", "`machine` must be a shape"),
    ("4x4 torus()", "`machine` must be a shape"),
    ("4x4 torus (tm)", "`machine` must be a shape"),
    ("4xx4", "`machine` must be a shape"),
    ("x4", "`machine` must be a shape"),
    ("4x", "`machine` must be a shape"),
    ("-4x4", "`machine` must be a shape"),
    ("4.5x4", "`machine` must be a shape"),
    ("torus", "`machine` must be a shape"),
    ("torus:", "`machine` must be a shape"),
    ("100000x100000", "`shape` 100000x100000 has 10000000000 nodes; at most"),
    ("no/such/file.map", "got 'no/such/file.map'"),
    (None, "`machine` must be a shape .*; got NoneType"),
    (3.5, "got float"),
    (16, "got int"),
    ((16, 8), "got tuple"),
])
def test_bad_specs(spec, match):
    with pytest.raises(ValueError, match=match) as err:
        parse_machine(spec)
    assert "\n" not in str(err.value)


def test_missing_file_and_directory(tmp_path):
    for spec in (tmp_path / "missing.graphml", tmp_path):
        with pytest.raises(ValueError, match="`machine` must be a shape") as err:
            parse_machine(spec)
        assert "\n" not in str(err.value) and str(spec) in str(err.value)


def test_a_gzipped_one_line_network_is_a_network(tmp_path):
    import gzip
    import json

    import networkx as nx

    path = tmp_path / "g.json.gz"
    with gzip.open(path, "wt") as fh:
        fh.write(json.dumps(nx.node_link_data(nx.path_graph(4), edges="edges")))
    m = parse_machine(str(path))
    assert m.kind == "network" and m.n == 4 and m.distance(0, 3) == 3


# -- generated networks: dragonfly and fat tree --------------------------------------------


@pytest.mark.parametrize("spec, args", [
    ("dragonfly", {}),
    ("Dragonfly:", {}),
    ("dragonfly:9,4,2,2", {}),
    ("dragonfly: 5, 2, 1, 2", {"groups": 5, "routers": 2, "nodes": 1, "global_links": 2}),
    ("dragonfly:5,2,1,2,relative", {"groups": 5, "routers": 2, "nodes": 1, "global_links": 2, "arrangement": "relative"}),
    ("dragonfly:5,2,3,2,CIRCULANT", {"groups": 5, "routers": 2, "nodes": 3, "global_links": 2, "arrangement": "circulant"}),
    ("dragonfly:groups=9,routers=4,nodes=2,global=2,arrangement=absolute", {}),
    ("dragonfly:nodes=1", {"nodes": 1}),
    ("DRAGONFLY : groups = 3 , global_links = 1, routers=2", {"groups": 3, "routers": 2, "global_links": 1}),
])
def test_dragonfly_specs(spec, args):
    m = parse_machine(spec)
    ref = dragonfly(**args)
    assert m.kind == "network" and m.labels == ref.labels
    assert np.array_equal(m.distances(), ref.distances())
    assert m.describe() == ref.describe()


@pytest.mark.parametrize("spec, k", [("fattree:4", 4), ("fattree:k=2", 2), ("fat-tree:6", 6),
                                     ("FAT_TREE : K = 4", 4), ("fattree: 4 ", 4)])
def test_fat_tree_specs(spec, k):
    m = parse_machine(spec)
    ref = fat_tree(k)
    assert m.labels == ref.labels and np.array_equal(m.distances(), ref.distances())
    assert m.describe() == f"fattree:k={k}"


@settings(max_examples=25, deadline=None)
@given(routers=st.integers(1, 4), h=st.integers(1, 3), nodes=st.integers(1, 2),
       arrangement=st.sampled_from(["absolute", "relative"]), data=st.data())
def test_generated_descriptions_round_trip(routers, h, nodes, arrangement, data):
    ports = routers * h
    groups = data.draw(st.sampled_from([d + 1 for d in range(1, ports + 1) if ports % d == 0] + [1]))
    m = dragonfly(groups, routers, nodes, h, arrangement)
    back = parse_machine(m.describe())
    assert back.describe() == m.describe()
    assert back.labels == m.labels and np.array_equal(back.distances(), m.distances())
    assert parse_machine(m.describe().upper()).describe() == m.describe()
    # the description survives copies of the machine
    assert m.copy().describe() == m.copy_empty().describe() == m.describe()


def test_other_networks_keep_their_plain_description():
    assert Machine.from_graph(nx.path_graph(3)).describe() == "network of 3 nodes"
    assert processors_per_node(fat_tree(2), 2).describe() == "network of 4 nodes"


@pytest.mark.parametrize("spec, match", [
    ("dragonfly:9,4,2", None),  # three fields: the fourth at its default, valid
    ("dragonfly:9,4,2,2,absolute,7", "at most 5 fields"),
    ("dragonfly:9,4,x,2", "nodes must be an integer, got 'x'"),
    ("dragonfly:9,4,2,2,sideways", "`arrangement` must be one of"),
    ("dragonfly:8,4,2,2", r"`groups` - 1 \(7\) must divide"),
    ("dragonfly:0,4,2,2", "`groups` must be a positive integer, got 0"),
    ("dragonfly:9,-4,2,2", "`routers` must be a positive integer"),
    ("dragonfly:groups=9,4", "every field by position or every field by name"),
    ("dragonfly:groups=9,groups=9", "groups given twice"),
    ("dragonfly:size=9", "unknown field 'size'"),
    ("dragonfly:9,,2,2", "empty field"),
    ("fattree", "give the arity"),
    ("fattree:", "give the arity"),
    ("fattree:3", "`k` must be an even integer >= 2, got 3"),
    ("fattree:0", "`k` must be an even integer"),
    ("fattree:four", "k must be an integer, got 'four'"),
    ("fattree:n=4", "takes only k"),
    ("fattree:4,4", "k must be an integer"),
    ("dragonfly:9,4,2,2 torus", "global_links must be an integer, got .2 torus."),
])
def test_bad_generated_specs(spec, match):
    if match is None:
        assert parse_machine(spec).n == 72
        return
    with pytest.raises(ValueError, match=match) as err:
        parse_machine(spec)
    assert "\n" not in str(err.value) and "`machine`" in str(err.value)


# -- what wrap means on short axes ---------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 5), (1, 5), (2, 2), (1, 1), (2, 1, 3), (4, 2, 3)])
def test_wrap_on_axes_of_one_and_two_nodes(shape):
    """A wrapping axis of 2 nodes has one link between them (both neighbours
    coincide) and one of 1 node none: such axes measure as a mesh's."""
    import networkx as nx

    for wrap in (True, False):
        m = Machine(shape, torus=wrap)
        G = nx.Graph()
        G.add_nodes_from(range(m.n))
        G.add_edges_from(m.links().tolist())
        ref = nx.floyd_warshall_numpy(G, nodelist=range(m.n))
        assert np.array_equal(m.distances(), ref)
    short = [a for a, s in enumerate(shape) if s <= 2]
    wrap_short_only = tuple(a in short for a in range(len(shape)))
    assert np.array_equal(Machine(shape, torus=wrap_short_only).distances(), Machine(shape).distances())
    assert len(Machine(shape, torus=wrap_short_only).links()) == len(Machine(shape).links())


# ---------------------------------------------------------------- weight: link lengths of network files


@pytest.mark.parametrize("spec, what", [
    ("8x8", "a mesh or torus"), ("torus:4x4", "a mesh or torus"), ("dragonfly", "a generated network"),
    ("fattree:4", "a generated network"), ("4x4 * 2", "a mesh or torus with processors per node"),
])
def test_weight_is_refused_without_a_network_file(spec, what):
    with pytest.raises(ValueError, match=rf"^`weight` names the link lengths of a network file; {re.escape(repr(spec))} "
                                         rf"is {what}, whose links all have length 1$"):
        parse_machine(spec, weight="w")


def test_weight_is_refused_for_a_machine_map(tmp_path):
    path = tmp_path / "m.map"
    path.write_text("..\n.#\n")
    with pytest.raises(ValueError, match="is a machine map, whose links all have length 1"):
        parse_machine(path, weight="w")


@pytest.mark.parametrize("weight", ["", 3, ["w"]])
def test_weight_must_name_an_attribute(weight):
    with pytest.raises(ValueError, match="`weight` must be the name of an edge attribute"):
        parse_machine("net.graphml", weight=weight)


@pytest.mark.parametrize("suffix", [".graphml", ".json"])
def test_an_edge_without_the_weight_is_an_error(tmp_path, suffix):
    G = nx.path_graph(["a", "b", "c", "d"])
    G.edges["a", "b"]["w"] = 2.0
    G.edges["c", "d"]["w"] = 1.0
    path = tmp_path / f"net{suffix}"
    if suffix == ".graphml":
        nx.write_graphml(G, path)
    else:
        path.write_text(json.dumps(nx.node_link_data(G, edges="links")))
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}: edge \('b', 'c'\) has no link length attribute "
                                         r"'w' \(`weight`\); 1 of the 3 edges lack it$"):
        parse_machine(path, weight="w")
    with pytest.raises(ValueError, match=r": no edge has the link length attribute 'x' \(`weight`\), edge \('a', 'b'\) "
                                         r"for one; the edges' attributes: 'w'$"):
        parse_machine(path, weight="x")
    G.edges["b", "c"]["w"] = 4.0
    if suffix == ".graphml":
        nx.write_graphml(G, path)
    else:
        path.write_text(json.dumps(nx.node_link_data(G, edges="links")))
    assert parse_machine(path, weight="w").distances()[0].tolist() == [0, 2, 6, 7]


def test_an_edge_list_with_lengths_on_some_lines_only(tmp_path):
    path = tmp_path / "net.txt"
    path.write_text("a b 2\nb c\nc d\nd a 1\n")
    with pytest.raises(ValueError, match=r"net\.txt: edge \(b, c\) has no length, while other lines give one; give a "
                                         r"length on every line or on none \(2 of the 4 edges have none\)$"):
        parse_machine(path)
    with pytest.raises(ValueError, match=r"edge \(b, c\) has no length"):
        parse_machine(path, weight="length")
