"""Absurd machines are refused at once: every way from a spec to a machine
(shapes, processors per node, dragonfly, fat tree, network files) checks
its size before it builds anything, against the documented limits."""

from __future__ import annotations

import json
import time

import networkx as nx
import pytest

import optalloc.machine._generators as generators
import optalloc.machine._machine as machine_module
import optalloc.machine._parse as parse_module
from optalloc.machine import Machine, dragonfly, fat_tree, parse_machine, processors_per_node, read_graph


@pytest.fixture
def nothing_built(monkeypatch):
    """Fail the test if a generated network or a distance matrix gets built."""

    def built(*args, **kwargs):
        raise AssertionError("built before the size was checked")

    monkeypatch.setattr(Machine, "_generated", built)
    monkeypatch.setattr(Machine, "from_distances", built)
    monkeypatch.setattr(Machine, "distances", built)


#: specs far beyond the limits, each with the start of its message
ABSURD = [
    ("4x4x4x4x4x4x4 torus", "`shape` has 7 axes; a mesh or torus has at most 6"),
    ("x".join(["1"] * 5000), "`shape` has 5000 axes"),
    ("100000x100000", "`shape` 100000x100000 has 10000000000 nodes; at most 10000000"),
    ("fattree:400", "`machine` 'fattree:400': a fat tree of k = 400 has 16000000 compute nodes; at most 10000000"),
    ("fattree:k=100000", "`machine` 'fattree:k=100000': a fat tree of k = 100000 has 250000000000000 compute nodes"),
    ("dragonfly:1001,500,40,2",
     "`machine` 'dragonfly:1001,500,40,2': a dragonfly of 1001 groups x 500 routers x 40 nodes has 20020000 "
     "compute nodes"),
    ("dragonfly:groups=1000000001,routers=1000000000",
     "`machine` 'dragonfly:groups=1000000001,routers=1000000000': a dragonfly of 1000000001 groups"),
    ("100x100x100 * 64", "`machine` '100x100x100 * 64': 64000000 processors; at most 4096"),
    ("3000x3000 * 2 rows 0-1", "`machine` '3000x3000 * 2 rows 0-1': 12000 processors; at most 4096"),
    ("8x8 * 4 rows 0-99999999999999", "`machine` '8x8 * 4 rows 0-99999999999999': rows must lie in 0..7"),
]


@pytest.mark.parametrize("spec, message", ABSURD, ids=[s[:30] for s, _ in ABSURD])
def test_absurd_specs_are_refused_before_anything_is_built(spec, message, nothing_built):
    t0 = time.perf_counter()
    with pytest.raises(ValueError) as info:
        parse_machine(spec)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
    assert time.perf_counter() - t0 < 2.0  # a fat tree of k = 400 would take seconds to build before it was refused


def test_the_limits_hold_at_their_edges(monkeypatch):
    assert Machine((2,) * 6, torus=True).ndim == 6  # the 6-D tori of Tofu
    monkeypatch.setattr(generators, "PAIRS_MAX", 72)
    monkeypatch.setattr(generators, "NODES_MAX", 72)
    monkeypatch.setattr(parse_module, "PAIRS_MAX", 72)
    monkeypatch.setattr(machine_module, "PAIRS_MAX", 72)
    assert dragonfly().n == 72 and parse_machine("6x6 * 2").n == 72 and parse_machine("9x8 * 2 rows 0-3").n == 72
    with pytest.raises(ValueError, match="a dragonfly of 9 groups x 4 routers x 3 nodes has 108 compute nodes; "
                                         "at most 72"):
        dragonfly(nodes=3)
    assert fat_tree(4).n == 16
    assert fat_tree(6).n == 54
    with pytest.raises(ValueError, match="a fat tree of k = 8 has 128 compute nodes; at most 72"):
        fat_tree(8)
    with pytest.raises(ValueError, match="73 processors; at most 72"):
        processors_per_node(Machine((73,)), 1)
    with pytest.raises(ValueError, match="73 nodes given by their distances alone; at most 72"):
        Machine.from_distances(range(73), [[float(i != j) for j in range(73)] for i in range(73)])
    # with its links given, a network given by its distances may be larger
    D = [[float(abs(i - j)) for j in range(73)] for i in range(73)]
    assert Machine.from_distances(range(73), D, edges=[(i, i + 1) for i in range(72)]).n == 73


@pytest.mark.parametrize("fmt", ["txt", "graphml", "json"])
def test_network_files_are_refused_before_their_graph_is_built(tmp_path, monkeypatch, fmt):
    monkeypatch.setattr(parse_module, "DENSE_MAX", 10)
    for n, ok in ((10, True), (11, False)):
        G = nx.path_graph(n)
        path = tmp_path / f"net{n}.{fmt}"
        if fmt == "txt":
            path.write_text("# a path\n" + "".join(f"{u} {v}\n" for u, v in G.edges))
        elif fmt == "graphml":
            nx.write_graphml(G, path)
        else:
            path.write_text(json.dumps(nx.node_link_data(G, edges="edges")))
        if ok:
            assert parse_machine(path).n == n
            continue
        where = f"{path}:11: more than 10 nodes" if fmt == "txt" else f"{path}: 11 nodes"
        with pytest.raises(ValueError, match=f"^{where}; a network machine holds at most 10"):
            parse_machine(path)
    assert len(read_graph(tmp_path / f"net11.{fmt}")) == 11  # read_graph alone has no limit
