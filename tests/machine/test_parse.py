"""parse_machine: shapes, machine maps and network files."""

import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.machine import Machine, parse_machine

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
    assert parse_machine(path, weight="other").distances()[0].tolist() == [0, 1, 2, 1]  # hops


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
