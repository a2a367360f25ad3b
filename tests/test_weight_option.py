"""``--weight ATTR``: every command that reads a network file takes the
link lengths of an edge attribute, and an edge without it is an error.

Ground truth: brute force over networkx's weighted shortest paths (solve,
gap), and scaling (every link of length 3: every distance, W and
objective is three times the one in hops, the decisions unchanged).
"""

from __future__ import annotations

import itertools
import json

import networkx as nx
import pytest

from optalloc import instance_path
from optalloc.cli import build_parser, main

TRACE = str(instance_path("small.swf"))


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    """A 24-node network: GraphML with lengths ``w`` (non-uniform) and
    ``three`` (every link 3), an edge list with lengths in its third column."""
    folder = tmp_path_factory.mktemp("net")
    G = nx.connected_watts_strogatz_graph(24, 4, 0.3, seed=1)
    for i, (u, v) in enumerate(sorted(G.edges)):
        G.edges[u, v]["w"] = float(1 + (7 * i) % 5)
        G.edges[u, v]["three"] = 3.0
    nx.write_graphml(G, folder / "net.graphml")
    (folder / "net.txt").write_text("".join(f"{u} {v} {d['w']:g}\n" for u, v, d in G.edges(data=True)))
    return folder, G


def _json(capsys, args):
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _error(capsys, args):
    code = main(args)
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and len(err) == 1, err
    return err[0]


def test_every_command_with_a_machine_takes_weight():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    with_machine = []
    for name, parser in sub.choices.items():
        flags = {f for a in parser._actions for f in a.option_strings}
        if "--machine" in flags:
            with_machine.append(name)
            assert "--weight" in flags, f"{name} reads --machine but has no --weight"
    assert set(with_machine) == {"solve", "gap", "order", "map", "simulate", "certify", "history"}


def _distances(G, weight):
    return {u: d for u, d in nx.shortest_path_length(G, weight=weight)}


@pytest.mark.parametrize("spec", ["net.graphml", "net.txt"])
def test_solve_uses_the_lengths(network, spec, capsys):
    folder, G = network
    weight = "w" if spec.endswith(".graphml") else "length"
    got = _json(capsys, ["solve", "--machine", str(folder / spec), "--weight", weight, "--k", "3",
                         "--method", "brute", "--json"])
    best = {w: min(sum(D[a][b] for a, b in itertools.combinations(s, 2)) for s in itertools.combinations(G, 3))
            for w, D in (("w", _distances(G, "w")), (None, _distances(G, None)))}
    assert best["w"] != best[None]  # the lengths change the optimum
    assert got["objective"] == pytest.approx(best["w"])


def test_gap_uses_the_lengths(network, capsys, tmp_path):
    folder, G = network
    chosen = [0, 5, 11, 17]
    (tmp_path / "chosen.txt").write_text("".join(f"{v}\n" for v in chosen))
    got = _json(capsys, ["gap", "--machine", str(folder / "net.graphml"), "--weight", "w", "--chosen",
                         str(tmp_path / "chosen.txt"), "--json", "-q"])
    D = _distances(G, "w")
    assert got["objective"] == pytest.approx(sum(D[a][b] for a, b in itertools.combinations(chosen, 2)))


#: commands whose figures scale with the link length: (args, the figures of the JSON output)
SCALED = {
    "order": (["order", "--method", "greedy", "--json", "-q"], lambda d: [d["objective"]]),
    "map": (["map", "--pattern", "ring:24", "--criterion", "classic", "--method", "consecutive", "--json", "-q"],
            lambda d: [d["result"]["objective"], d["report"]["hop_bytes"]]),
    "simulate": (["simulate", TRACE, "--allocator", "gen-alg", "--jobs", "40", "--json", "-q"],
                 lambda d: [d["summary"]["mean_W"], d["summary"]["mean_avg_l1"]]),
    "certify": (["certify", TRACE, "--driver", "gen-alg", "--allocators", "gen-alg,random", "--jobs", "12",
                 "--json", "-q"], lambda d: [a["mean_W"] for a in d["summary"]]),
}


@pytest.mark.parametrize("name", sorted(SCALED))
def test_links_of_length_three_triple_every_figure(network, name, capsys):
    folder, _ = network
    args, figures = SCALED[name]
    machine = ["--machine", str(folder / "net.graphml")]
    hops = figures(_json(capsys, args + machine))
    three = figures(_json(capsys, args + machine + ["--weight", "three"]))
    assert all(h > 0 for h in hops)
    assert three == pytest.approx([3 * h for h in hops])


@pytest.mark.parametrize("command", [
    ["solve", "--k", "3"], ["gap", "--chosen", "chosen.txt"], ["order"], ["map", "--pattern", "ring:4"],
    ["simulate", TRACE], ["certify"],
])
def test_a_missing_attribute_is_an_error_naming_it(network, command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, G = network
    G = G.copy()
    u, v = sorted(G.edges)[3]
    del G.edges[u, v]["w"]
    path = tmp_path / "holes.graphml"
    nx.write_graphml(G, path)
    (tmp_path / "chosen.txt").write_text("0\n1\n")
    line = _error(capsys, [*command, "--machine", str(path), "--weight", "w"])
    assert line == (f"optalloc: error: --machine: {path}: edge ('{u}', '{v}') has no link length attribute 'w' "
                    f"(--weight); 1 of the {G.number_of_edges()} edges lack it")
    line = _error(capsys, [*command, "--machine", str(path), "--weight", "length"])
    assert line.startswith(f"optalloc: error: --machine: {path}: no edge has the link length attribute 'length' "
                           "(--weight), edge (")
    assert line.endswith("the edges' attributes: 'three', 'w'")


def test_an_edge_list_with_a_length_on_some_lines_only(tmp_path, capsys):
    path = tmp_path / "net.txt"
    path.write_text("a b 2\nb c\nc a 1\n")
    line = _error(capsys, ["order", "--machine", str(path)])
    assert line == (f"optalloc: error: --machine: {path}: edge (b, c) has no length, while other lines give one; "
                    "give a length on every line or on none (1 of the 3 edges has none)")


@pytest.mark.parametrize("args, what", [
    (["order", "--machine", "4x4"], "--machine 4x4 is a mesh or torus"),
    (["certify"], "--machine 8x4 is a mesh or torus"),
    (["simulate", TRACE, "--machine", "fattree:4"], "--machine fattree:4 is a generated network"),
    (["map", "--pattern", "ring:4", "--machine", "4x4 * 2"], "--machine 4x4 * 2 is a mesh or torus with processors"),
])
def test_weight_is_refused_where_links_have_no_lengths(args, what, capsys):
    line = _error(capsys, [*args, "--weight", "w"])
    assert line.startswith("optalloc: error: --weight names the link lengths of a network file; " + what)


@pytest.mark.parametrize("source", [["--points", "POINTS"], ["--map", "MAP"]])
def test_weight_is_refused_beside_points_or_a_map(source, capsys):
    files = {"POINTS": str(instance_path("points-plane.txt")), "MAP": str(instance_path("mesh16x16.txt"))}
    line = _error(capsys, ["solve", source[0], files[source[1]], "--k", "3", "--weight", "w"])
    assert line == f"optalloc: error: --weight names the link lengths of a network file given by --machine, not {source[0]}"
