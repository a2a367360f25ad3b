"""Points files, machine maps and network files."""

import json

import networkx as nx
import numpy as np
import pytest

from optalloc.machine import Machine, parse_map, parse_points, read_graph, read_map, read_points

# -- points files --------------------------------------------------------------------


def test_points_separators_and_comments():
    pts = parse_points("# header\n0 0\n1,2\n 3 , 4 # trailing\n\n5\t6\n")
    np.testing.assert_array_equal(pts, [[0, 0], [1, 2], [3, 4], [5, 6]])


def test_points_one_dimensional():
    assert parse_points("1\n2\n").shape == (2, 1)


@pytest.mark.parametrize(
    "text, match",
    [
        ("0 0\n1\n", "line 2: 1 coordinates, expected 2"),
        ("0 0\nx 1\n", "line 2: not a number"),
        ("0 nan\n", "line 1: NaN or infinite"),
        ("0 inf\n", "NaN or infinite"),
        ("# only comments\n\n", "no points"),
    ],
)
def test_points_errors(text, match):
    with pytest.raises(ValueError, match=match):
        parse_points(text)


def test_read_points_file(tmp_path):
    path = tmp_path / "pts.txt"
    path.write_text("0 1\n2 3\n")
    np.testing.assert_array_equal(read_points(path), [[0, 1], [2, 3]])
    path.write_text("0 1\n2\n")
    with pytest.raises(ValueError, match=r"pts\.txt, line 2: 1 coordinates"):
        read_points(path)


# -- machine maps --------------------------------------------------------------------


def grid_free(m):
    """The free mask indexed by coordinates: ``grid_free(m)[x, y(, z)]``."""
    return m.free.reshape(m.shape, order="F")  # node ids run x fastest


def test_map_axes_and_order():
    m = parse_map("..#\n#..\n")
    assert isinstance(m, Machine) and m.kind == "mesh"
    assert m.shape == (3, 2)
    f = grid_free(m)
    assert f[0, 0] and not f[2, 0] and not f[0, 1] and f[2, 1]
    # ids run x fastest: the order of the characters in the file
    assert m.free.tolist() == [True, True, False, False, True, True]
    # file order: row by row, left to right
    assert m.free_points().tolist() == [[0, 0], [1, 0], [1, 1], [2, 1]]
    assert m.free_ids().tolist() == [0, 1, 4, 5]


def test_map_busy_nodes_are_allocated():
    m = parse_map("..#\n#x.\n")
    assert m.n_free == 3
    assert m.owner.tolist() == [-1, -1, -2, -2, -2, -1]  # any visible character but '.' is busy
    m.release([2, 3, 4], owner=-2)
    assert m.n_free == m.n == 6


def test_map_three_dimensional_layers():
    m = parse_map("..\n.#\n\n#.\n..\n")
    assert m.shape == (2, 2, 2)
    f = grid_free(m)
    assert not f[1, 1, 0] and not f[0, 0, 1] and f.sum() == 6
    assert m.free_points()[:3].tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert np.flatnonzero(~m.free).tolist() == [3, 4]


def test_map_several_blank_lines_between_layers():
    m = parse_map("\n..\n\n\n  \n#.\n\n")
    assert m.shape == (2, 1, 2) and np.flatnonzero(~m.free).tolist() == [2]


def test_map_one_row():
    m = parse_map(".#..\n")
    assert m.shape == (4, 1) and m.to_map() == ".#..\n"


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2), (1, 1), (7, 1, 3), (1, 6)])
def test_map_round_trip(shape):
    rng = np.random.default_rng(3)
    for _ in range(5):
        free = rng.random(int(np.prod(shape))) < 0.5  # over node ids, x fastest
        m = Machine(shape)
        m.allocate(np.flatnonzero(~free), owner=4)
        text = m.to_map()
        back = parse_map(text)
        assert back.shape == shape
        np.testing.assert_array_equal(back.free, free)
        assert back.to_map() == text
        assert parse_map(m.to_map(busy="@")).free.tolist() == free.tolist()
        # the map is the free mask drawn row by row (y), layer by layer (z)
        layers = text.rstrip("\n").split("\n\n")
        assert len(layers) == (shape[2] if len(shape) == 3 else 1)
        drawn = "".join(text.split())
        assert drawn == "".join("." if f else "#" for f in free)


def test_to_map_needs_one_to_three_axes():
    assert Machine(3).to_map() == "...\n"
    with pytest.raises(ValueError, match="1 to 3 axes"):
        Machine((2, 2, 2, 2)).to_map()
    with pytest.raises(ValueError, match="needs a mesh or torus"):
        Machine.from_graph(nx.path_graph(3)).to_map()


def test_map_trailing_whitespace_and_crlf():
    m = parse_map(".#  \r\n..\r\n")
    assert m.shape == (2, 2)
    assert m.free.tolist() == [True, False, True, True]
    assert parse_map("..\r\n\r\n.#\r\n").shape == (2, 1, 2)


@pytest.mark.parametrize(
    "text, match",
    [
        ("...\n..\n", "map, line 2: row has 2 columns, expected 3"),
        (". .\n", "map, line 1: whitespace inside a map row"),
        (" ..\n", "whitespace inside a map row"),
        ("..\n..\n\n..\n", "map: layer 1 has 1 rows, expected 2 like layer 0"),
        ("\n\n", "map: no map rows"),
        ("", "no map rows"),
    ],
)
def test_map_errors(text, match):
    with pytest.raises(ValueError, match=match):
        parse_map(text)


def test_read_map(tmp_path):
    path = tmp_path / "m.map"
    path.write_text("#.\n..\n")
    m = read_map(path)
    assert m.shape == (2, 2) and m.free_ids().tolist() == [1, 2, 3] and m.owner[0] == -2
    path.write_text("..\n.\n")
    with pytest.raises(ValueError, match=r"m\.map, line 2: row has 1 columns"):
        read_map(path)


def test_read_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        read_points(tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="no such file"):
        read_map(tmp_path / "missing.map")
    with pytest.raises(ValueError, match="no such file"):
        read_graph(tmp_path / "missing.graphml")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError, match="file is empty"):
        read_map(empty)
    with pytest.raises(ValueError, match="file is empty"):
        read_graph(empty)
    with pytest.raises(ValueError, match="is a directory"):
        read_points(tmp_path)
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    with pytest.raises(ValueError, match="cannot read"):
        read_points(binary)
    with pytest.raises(ValueError, match="cannot read"):
        read_map(binary)


# -- network files -------------------------------------------------------------------


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_edge_list_hops(tmp_path):
    G = read_graph(write(tmp_path, "g.txt", "# a ring\n0 1\n1 2  # trailing comment\n\n2,0\n"))
    assert isinstance(G, nx.Graph) and not G.is_directed()
    assert list(G.nodes) == [0, 1, 2]
    assert sorted(map(sorted, G.edges)) == [[0, 1], [0, 2], [1, 2]]
    assert all("length" not in d for _, _, d in G.edges(data=True))


def test_edge_list_lengths(tmp_path):
    G = read_graph(write(tmp_path, "g.edges", "a b 2.5\nb c 1\nc d\n"))
    assert G.edges["a", "b"]["length"] == 2.5 and G.edges["b", "c"]["length"] == 1.0
    assert "length" not in G.edges["c", "d"]
    m = Machine.from_graph(G, weight="length")
    assert m.labels == ("a", "b", "c", "d")
    assert m.distances()[0].tolist() == [0.0, 2.5, 3.5, 4.5]


def test_edge_list_repeated_links_keep_the_shortest(tmp_path):
    G = read_graph(write(tmp_path, "g", "0 1 5\n1 0 2\n0 1 3\n1 2 1\n2 1 0.5\n2 1 4\n"))
    assert G.number_of_edges() == 2
    assert G.edges[0, 1]["length"] == 2.0 and G.edges[1, 2]["length"] == 0.5


def test_edge_list_labels(tmp_path):
    G = read_graph(write(tmp_path, "g.txt", "7 07\n07 n7\n-3 7\n"))
    assert set(G.nodes) == {7, "07", "n7", -3}
    assert G.has_edge(7, "07") and G.has_edge("07", "n7") and G.has_edge(-3, 7)
    assert not G.has_edge(7, "n7")


@pytest.mark.parametrize("text, match", [
    ("0 1\n1 2 3 4\n", r"g\.txt:2: expected 'u v' or 'u v length', got '1 2 3 4'"),
    ("0\n", r"g\.txt:1: expected 'u v' or 'u v length'"),
    ("0 1 far\n", r"g\.txt:1: length must be a number, got 'far'"),
    ("# nothing but comments\n", "the graph has no node"),
])
def test_edge_list_errors(tmp_path, text, match):
    with pytest.raises(ValueError, match=match) as err:
        read_graph(write(tmp_path, "g.txt", text))
    assert "\n" not in str(err.value)


def weighted_graph():
    G = nx.Graph()
    G.add_edge(0, 1, length=2.0)
    G.add_edge(1, 2, length=0.5)
    G.add_edge(0, 2, length=4.0)
    G.add_edge(2, 3, length=1.0)
    return G


def test_graphml_written_by_networkx(tmp_path):
    path = tmp_path / "g.graphml"
    nx.write_graphml(weighted_graph(), path)
    G = read_graph(path)
    assert not G.is_directed() and G.number_of_nodes() == 4 and G.number_of_edges() == 4
    assert G.edges["0", "2"]["length"] == 4.0  # GraphML node ids are text
    m = Machine.from_graph(G, weight="length")
    assert m.labels == ("0", "1", "2", "3")
    assert m.distances()[0].tolist() == [0.0, 2.0, 2.5, 3.5]


@pytest.mark.parametrize("edges_key", [None, "links", "edges"])
def test_node_link_json_written_by_networkx(tmp_path, edges_key):
    H = weighted_graph()
    H.add_edge("a", 3, length=3.0)
    data = nx.node_link_data(H) if edges_key is None else nx.node_link_data(H, edges=edges_key)
    path = write(tmp_path, "g.json", json.dumps(data))
    G = read_graph(path)
    assert not G.is_directed() and list(G.nodes) == [0, 1, 2, 3, "a"]
    assert G.edges[0, 2]["length"] == 4.0 and G.edges["a", 3]["length"] == 3.0
    m = Machine.from_graph(G, weight="length")
    assert m.distances()[0].tolist() == [0.0, 2.0, 2.5, 3.5, 6.5]


@pytest.mark.parametrize("name, text, match", [
    ("g.json", "{not json", r"g\.json: not a \.json file networkx can read"),
    ("g.json", "[1, 2]", r"not a \.json file networkx can read"),
    ("g.json", "{}", r"not a \.json file networkx can read"),
    ("g.json", '{"nodes": [], "links": []}', "the graph has no node"),
    ("g.graphml", "<graphml", r"g\.graphml: not a \.graphml file networkx can read"),
    ("g.graphml", "<a/>", r"not a \.graphml file networkx can read"),
    ("g.graphml",
     "<graphml xmlns='http://graphml.graphdrawing.org/xmlns'><graph edgedefault='undirected'/></graphml>",
     "the graph has no node"),
])
def test_graph_file_errors(tmp_path, name, text, match):
    with pytest.raises(ValueError, match=match) as err:
        read_graph(write(tmp_path, name, text))
    assert "\n" not in str(err.value)
