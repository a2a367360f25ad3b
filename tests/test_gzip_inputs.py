"""Gzipped input files read the same as plain ones (every reader of the toolkit)."""

import gzip
import json
import shutil
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from optalloc.machine import Machine, parse_machine, read_graph, read_map, read_points
from optalloc.qap import read_matrix, read_qaplib, write_qaplib
from optalloc.sim import read_swf, simulate

INSTANCES = Path(__file__).resolve().parents[1] / "instances"


def gz_copy(src: Path, dst: Path) -> Path:
    """A gzipped copy of ``src`` at ``dst``."""
    with open(src, "rb") as fi, gzip.open(dst, "wb") as fo:
        shutil.copyfileobj(fi, fo)
    return dst


def test_gzipped_trace_gives_the_same_trace_and_simulation(tmp_path):
    plain = INSTANCES / "small.swf"
    packed = gz_copy(plain, tmp_path / "small.swf.gz")
    a, b = read_swf(plain), read_swf(packed)
    assert a == b and len(b) == 120
    assert a.header == b.header and a.report == b.report and b.source == str(packed)
    ra, rb = simulate(a, "8x4"), simulate(b, "8x4")
    assert ra.summary == rb.summary and ra.records == rb.records


def test_gzip_is_told_by_magic_bytes_not_name(tmp_path):
    plain = INSTANCES / "small.swf"
    packed = gz_copy(plain, tmp_path / "small.swf")  # gzipped, named as plain
    assert read_swf(packed) == read_swf(plain)
    pts = gz_copy(INSTANCES / "points-plane.txt", tmp_path / "points.txt")
    np.testing.assert_array_equal(read_points(pts), read_points(INSTANCES / "points-plane.txt"))


def test_gzipped_machine_map_and_points(tmp_path):
    for name in ("mesh16x16.txt", "mesh6x6x4.txt"):
        plain, packed = INSTANCES / name, gz_copy(INSTANCES / name, tmp_path / f"{name}.gz")
        a, b = read_map(plain), read_map(packed)
        assert a.shape == b.shape
        np.testing.assert_array_equal(a.free_ids(), b.free_ids())
        m = parse_machine(str(packed))
        assert m.shape == a.shape and m.n_free == a.n_free
    plain = INSTANCES / "points-plane.txt"
    np.testing.assert_array_equal(read_points(gz_copy(plain, tmp_path / "p.txt.gz")), read_points(plain))


def _same_graph(G, H):
    assert sorted(G.nodes) == sorted(H.nodes)
    assert {frozenset(e) for e in G.edges} == {frozenset(e) for e in H.edges}


def test_gzipped_networks(tmp_path):
    G = nx.grid_2d_graph(3, 2)
    G = nx.convert_node_labels_to_integers(G)
    # edge list with lengths
    edges = tmp_path / "net.txt"
    edges.write_text("# u v length\n" + "".join(f"{u} {v} {1 + (u + v) % 3}\n" for u, v in G.edges))
    a, b = read_graph(edges), read_graph(gz_copy(edges, tmp_path / "net.txt.gz"))
    _same_graph(a, b)
    assert nx.get_edge_attributes(a, "length") == nx.get_edge_attributes(b, "length")
    # GraphML: the format is told by the suffix before .gz
    gml = tmp_path / "net.graphml"
    nx.write_graphml(G, gml)
    _same_graph(read_graph(gml), read_graph(gz_copy(gml, tmp_path / "net.graphml.gz")))
    # node-link JSON, with either key for the links
    for key in ("links", "edges"):
        data = {"directed": False, "multigraph": False, "graph": {}, "nodes": [{"id": n} for n in G.nodes],
                key: [{"source": u, "target": v} for u, v in G.edges]}
        js = tmp_path / f"net-{key}.json"
        js.write_text(json.dumps(data, indent=1))
        _same_graph(read_graph(js), G)
        packed = gz_copy(js, tmp_path / f"net-{key}.json.gz")
        _same_graph(read_graph(packed), G)
        assert parse_machine(str(packed)).size == G.number_of_nodes()
    m = parse_machine(str(tmp_path / "net.graphml.gz"))
    assert isinstance(m, Machine) and m.size == 6


def test_gzipped_qaplib_and_matrix(tmp_path):
    A = np.array([[0, 2, 1], [2, 0, 3], [1, 3, 0]], dtype=float)
    B = np.array([[0, 1, 4], [1, 0, 1], [4, 1, 0]], dtype=float)
    dat = tmp_path / "tiny3.dat"
    write_qaplib(dat, A, B)
    for got, want in zip(read_qaplib(gz_copy(dat, tmp_path / "tiny3.dat.gz")), read_qaplib(dat)):
        np.testing.assert_array_equal(got, want)
    w = tmp_path / "w.csv"
    w.write_text("0,2,0\n2,0,1\n0,1,0\n")
    np.testing.assert_array_equal(read_matrix(gz_copy(w, tmp_path / "w.csv.gz")), read_matrix(w))


@pytest.mark.parametrize("reader", [read_swf, read_points, read_map, read_graph, read_qaplib, read_matrix])
def test_corrupt_gzip_is_a_one_line_value_error(tmp_path, reader):
    good = gzip.compress((INSTANCES / "small.swf").read_bytes())
    for name, data in (("cut.gz", good[: len(good) // 2]),        # truncated stream
                       ("garbled.gz", good[:10] + b"\x00" * 40),  # bad deflate data
                       ("notgzip.gz", b"plain text, named .gz\n")):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ValueError, match="corrupt gzip file") as info:
            reader(path)
        assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_empty_gzip_is_an_empty_file(tmp_path):
    path = tmp_path / "empty.txt.gz"
    path.write_bytes(gzip.compress(b""))
    with pytest.raises(ValueError, match="file is empty"):
        read_points(path)
    assert len(read_swf(path)) == 0
