"""From the command line: a Slurm topology.conf and a node list in, a certified gap out; the
Slurm allocators in simulate and certify."""

from __future__ import annotations

import itertools
import json

import hostlist
import networkx as nx
import pytest

from optalloc.cli import main

#: 3 levels: 4 leaf switches of 8 nodes, 2 middle switches, 1 top
TOPOLOGY = """# a small cluster
SwitchName=leaf0 Nodes=cn[001-008]
SwitchName=leaf1 Nodes=cn[009-016]
SwitchName=leaf2 Nodes=cn[017-024]
SwitchName=leaf3 Nodes=cn[025-032]
SwitchName=mid0 Switches=leaf[0-1]
SwitchName=mid1 Switches=leaf[2-3]
SwitchName=top Switches=mid[0-1]
"""


def _hops():
    G = nx.Graph()
    leaves = {}
    for line in TOPOLOGY.splitlines():
        if line.startswith("SwitchName"):
            f = dict(w.split("=") for w in line.split())
            for c in hostlist.expand_hostlist(f.get("Switches", "")):
                G.add_edge(f["SwitchName"], c)
            for h in hostlist.expand_hostlist(f.get("Nodes", "")):
                G.add_edge(f["SwitchName"], h)
                leaves.setdefault(f["SwitchName"], []).append(h)
    return dict(nx.all_pairs_shortest_path_length(G)), leaves


def _w(hops, names):
    return sum(hops[a][b] for a, b in itertools.combinations(names, 2))


def _optimum(hops, leaves, k):
    """The least W of k hosts: W depends only on how many sit under each leaf switch (the hosts of a
    leaf are alike), so every count vector is tried, with hops from the graph."""
    best = None
    lists = list(leaves.values())
    for counts in itertools.product(*(range(len(h) + 1) for h in lists)):
        if sum(counts) == k:
            w = _w(hops, [h for c, hs in zip(counts, lists) for h in hs[:c]])
            best = w if best is None else min(best, w)
    return best


@pytest.fixture
def topology(tmp_path):
    path = tmp_path / "topology.conf"
    path.write_text(TOPOLOGY)
    return str(path)


@pytest.mark.parametrize("nodelist", ["cn[001-016]", "cn[001-004,009-012,017-020,025-028]", "cn[001-003,032]"])
def test_gap_of_a_node_list_on_a_topology(topology, nodelist, capsys):
    assert main(["gap", "--machine", topology, "--chosen", nodelist, "--json", "-q"]) == 0
    rep = json.loads(capsys.readouterr().out)
    hops, leaves = _hops()
    names = hostlist.expand_hostlist(nodelist)
    assert rep["k"] == len(names) and rep["objective"] == _w(hops, names)
    assert rep["optimal"] and rep["upper"] == _optimum(hops, leaves, len(names))


def test_gap_prints_a_table(topology, capsys):
    assert main(["gap", "--machine", topology, "--chosen", "cn[001-004,017-020]", "-q"]) == 0
    out = capsys.readouterr().out
    assert "W = 120" in out and "optimum    56" in out and "Slurm tree topology of 32 nodes" in out


def test_a_chosen_file_may_hold_node_lists(topology, tmp_path, capsys):
    chosen = tmp_path / "job.txt"
    chosen.write_text("cn[001-002]  # two\ncn017\n")
    assert main(["gap", "--machine", topology, "--chosen", str(chosen), "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["objective"] == 2 + 6 + 6


@pytest.mark.parametrize("nodelist, message", [
    ("cn[001-004,099]", "'cn099' is not a node of the Slurm tree topology"),
    ("cn[001-002],cn002", "names 'cn002' twice"),
    ("cn[001-", "bad hostlist expression"),
])
def test_bad_node_lists_exit_2_in_one_line(topology, nodelist, message, capsys):
    assert main(["gap", "--machine", topology, "--chosen", nodelist, "-q"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_bad_topology_exits_2_naming_the_line(tmp_path, capsys):
    path = tmp_path / "topology.conf"
    path.write_text(TOPOLOGY + "SwitchName=extra Switches=leaf1\n")
    assert main(["gap", "--machine", str(path), "--chosen", "cn001", "-q"]) == 2
    err = capsys.readouterr().err
    assert "line 9: switch 'leaf1' has two parents, 'mid0' (line 6) and 'extra'" in err and err.count("\n") == 1


def test_simulate_and_certify_with_slurm_tree(topology, capsys):
    assert main(["simulate", "small.swf", "--machine", topology, "--allocator", "slurm:tree", "--jobs", "40", "--json",
                 "-q"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["allocator"] == "slurm:tree" and data["summary"]["jobs"] == 40
    assert main(["certify", "small.swf", "--machine", topology, "--driver", "slurm:tree", "--allocators",
                 "slurm:tree,slurm:block,gen-alg", "--jobs", "40", "--json", "-q"]) == 0
    cert = json.loads(capsys.readouterr().out)
    assert cert["decisions"] == cert["proven"] == 40 and cert["driver"] == "slurm:tree"
    rows = {row["name"]: row for row in cert["summary"]}
    assert set(rows) == {"slurm:tree", "slurm:block", "gen-alg"}
    assert all(row["decisions"] == 40 and row["mean_ratio"] >= 1.0 for row in rows.values())


def test_slurm_allocators_are_refused_on_a_mesh(capsys):
    assert main(["simulate", "small.swf", "--machine", "8x4", "--allocator", "slurm:tree", "--jobs", "5", "-q"]) == 2
    err = capsys.readouterr().err
    assert "does not fit" in err and "tree of switches" in err and err.count("\n") == 1


def test_a_sweep_runs_the_slurm_allocators_on_a_topology(tmp_path, capsys):
    from optalloc import instance_path

    (tmp_path / "topology.conf").write_text(TOPOLOGY)
    (tmp_path / "small.swf").write_bytes(instance_path("small.swf").read_bytes())
    (tmp_path / "s.toml").write_text('[sweep]\nname = "slurm"\ntraces = [{path = "small.swf", limit = 20}]\n'
                                     'machines = ["topology.conf"]\nschedulers = ["easy"]\n'
                                     'allocators = ["slurm:tree", "slurm:block:sizes=8,16"]\n')
    assert main(["sweep", str(tmp_path / "s.toml"), "--db", str(tmp_path / "s.sqlite"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "slurm:tree" in out and "slurm:block:sizes=8,16" in out and "2 run, 0 failed" in out
