"""The command line and the library give the same figures for the same
input: orderings and mappings of weighted networks, read from each file
format, with and without ``--weight``."""

from __future__ import annotations

import json
import math

import networkx as nx
import numpy as np
import pytest

from optalloc.cli import main
from optalloc.curves import order_graph
from optalloc.machine import Machine, parse_machine
from optalloc.qap import map_tasks, ring


def weighted_graph(seed: int) -> nx.Graph:
    """A connected graph of 9 nodes whose links have lengths 0.5 to 3."""
    rng = np.random.default_rng(seed)
    G = nx.connected_watts_strogatz_graph(9, 4, 0.4, seed=seed)
    for u, v in G.edges:
        G.edges[u, v]["length"] = float(rng.choice([0.5, 1.0, 2.0, 3.0]))
    return G


def write(G: nx.Graph, path, kind: str) -> None:
    if kind == "edges":
        path.write_text("".join(f"{u} {v} {d['length']}\n" for u, v, d in G.edges(data=True)))
    elif kind == "graphml":
        nx.write_graphml(G, path)
    else:
        path.write_text(json.dumps(nx.node_link_data(G, edges="links")))


def cli_json(capsys, *argv) -> dict:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


# an edge list's third column is the link length; GraphML and JSON name it with --weight
CASES = [("edges", "g.edges", None), ("graphml", "g.graphml", "length"), ("json", "g.json", "length"),
         ("graphml", "g.graphml", None)]


@pytest.mark.parametrize("kind, name, weight", CASES)
@pytest.mark.parametrize("method", ["greedy", "spectral", "qap"])
def test_order_on_the_command_line_equals_the_library(tmp_path, capsys, kind, name, weight, method):
    G = weighted_graph(3)
    path = tmp_path / name
    write(G, path, kind)
    argv = ["order", "--machine", path, "--method", method, "--seed", 0, "--iterations", 300, "--json"]
    if weight:
        argv += ["--weight", weight]
    cli = cli_json(capsys, *argv)
    lib = order_graph(parse_machine(str(path), weight=weight), method=method, rng=0, iterations=300)
    assert math.isclose(cli["objective"], lib.objective, rel_tol=1e-12)
    assert cli["order"] == lib.order.tolist()
    assert (cli["bound"] is None) == (lib.bound is None)
    if lib.bound is not None:
        assert math.isclose(cli["bound"], lib.bound, rel_tol=1e-12)


def test_the_weight_counts_the_same_way_everywhere(tmp_path):
    """Lengths change the distances the same way whichever file carries them."""
    G = weighted_graph(5)
    hops = Machine.from_graph(G).distances()
    lengths = Machine.from_graph(G, weight="length").distances()
    expected = dict(nx.all_pairs_dijkstra_path_length(G, weight="length"))
    for kind, name, weight in CASES:
        path = tmp_path / name
        write(G, path, kind)
        m = parse_machine(str(path), weight=weight)
        index = {label: i for i, label in enumerate(m.labels)}
        D = m.distances()
        want = lengths if weight or kind == "edges" else hops
        for u in G.nodes:
            for v in G.nodes:
                got = D[index[u] if u in index else index[str(u)], index[v] if v in index else index[str(v)]]
                assert math.isclose(got, want[u, v]), (kind, u, v)
                if weight or kind == "edges":
                    assert math.isclose(got, expected[u][v])


def test_map_on_the_command_line_equals_the_library(tmp_path, capsys):
    G = weighted_graph(7)
    path = tmp_path / "g.edges"
    write(G, path, "edges")
    cli = cli_json(capsys, "map", "--pattern", "ring:9", "--machine", path, "--criterion", "classic",
                   "--method", "tabu", "--iterations", 500, "--seed", 0, "--json")
    lib = map_tasks(ring(9), parse_machine(str(path)), criterion="classic", method="tabu", iterations=500, rng=0)
    assert math.isclose(cli["result"]["objective"], lib.objective, rel_tol=1e-12)
    assert cli["result"]["permutation"] == lib.permutation.tolist()
