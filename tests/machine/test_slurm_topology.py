"""Slurm's topology.conf (tree and block) and node lists in hostlist expressions."""

from __future__ import annotations

import itertools

import hostlist
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc import instance_path
from optalloc.machine import format_nodelist, parse_machine, parse_nodelist, parse_topology, read_topology

THREE_LEVELS = """
# three levels: 4 leaf switches of 4 nodes, 2 middle switches, 1 top
SwitchName=l0 Nodes=cn[01-04]
SwitchName=l1 Nodes=cn[05-08]   LinkSpeed=900
switchname=l2 nodes=cn[09-12]
SwitchName=l3 \\
    Nodes=cn[13-16]
SwitchName=m0 Switches=l[0-1]
SwitchName=m1 Switches=l[2-3]
SwitchName=top Switches=m[0-1]   # the core
"""


def _graph(text):
    """The tree of a topology/tree text, built here from its lines (ground truth for the distances)."""
    G = nx.Graph()
    hosts = []
    for line in text.replace("\\\n", " ").splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        f = {k.lower(): v for k, v in (w.split("=", 1) for w in line.split())}
        for child in hostlist.expand_hostlist(f.get("switches", "")):
            G.add_edge(f["switchname"], child)
        for h in hostlist.expand_hostlist(f.get("nodes", "")):
            G.add_edge(f["switchname"], h)
            hosts.append(h)
    return G, hosts


def test_a_tree_topology_gives_the_hops_between_hosts():
    m = parse_topology(THREE_LEVELS)
    G, hosts = _graph(THREE_LEVELS)
    assert m.labels == tuple(hosts) == tuple(f"cn{i:02d}" for i in range(1, 17))
    assert m.tree.switch_labels == ("l0", "l1", "l2", "l3", "m0", "m1", "top")
    hops = dict(nx.all_pairs_shortest_path_length(G))
    want = np.array([[hops[a][b] for b in hosts] for a in hosts], dtype=float)
    assert np.array_equal(m.distances(np.arange(16)), want)
    assert sorted(set(want[0].tolist())) == [0.0, 2.0, 4.0, 6.0]


def test_several_top_switches_hang_from_an_added_root():
    text = "SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n[3-4]\nSwitchName=c Nodes=n5\nSwitchName=t Switches=a,b"
    m = parse_topology(text)
    assert m.tree.switch_labels[-1] == "(root)"
    G, hosts = _graph(text)
    G.add_edges_from([("(root)", "t"), ("(root)", "c")])
    hops = dict(nx.all_pairs_shortest_path_length(G))
    want = np.array([[hops[a][b] for b in hosts] for a in hosts], dtype=float)
    assert np.array_equal(m.distances(np.arange(5)), want)
    assert m.pair_distances([0], [4]).tolist() == [5.0]  # n1 - a - t - (root) - c - n5


def test_a_block_topology_is_a_tree_of_two_levels():
    m = read_topology(instance_path("topology-block.conf"))
    assert m.n == 64 and m.tree.block_sizes == (8, 16, 32)
    assert m.labels[:3] == ("gpu01", "gpu02", "gpu03")
    D = m.distances(np.arange(64))
    block = np.arange(64) // 8
    want = np.where(block[:, None] == block[None, :], 2.0, 4.0)
    np.fill_diagonal(want, 0.0)
    assert np.array_equal(D, want)
    assert parse_topology("BlockName=x Nodes=a[1-3]\nBlockName=y Nodes=b[1-3]").tree.block_sizes is None


def test_the_bundled_topology_and_parse_machine():
    path = instance_path("topology.conf")
    m = parse_machine(str(path))
    assert m.n == 128 and m.metric_key == read_topology(path).metric_key
    assert sorted(set(m.distances(np.arange(0, 128, 8))[0].tolist())) == [0.0, 2.0, 4.0, 6.0]
    with pytest.raises(ValueError, match="weight"):
        parse_machine(str(path), weight="length")


def test_a_topology_is_read_by_its_content_whatever_its_name(tmp_path):
    p = tmp_path / "cluster.txt"
    p.write_text("SwitchName=s0 Nodes=tux[0-3]\nSwitchName=s1 Nodes=tux[4-7]\nSwitchName=s2 Switches=s[0-1]\n")
    assert parse_machine(str(p)).labels[-1] == "tux7"


BAD = [
    ("SwitchName=s0 Nodes=a[1-2]\nSwitchName=s0 Nodes=a[3-4]", r"line 2: switch 's0' is named twice \(first on line 1\)"),
    ("SwitchName=s0 Nodes=a[1-2]\nSwitchName=s1 Nodes=a[2-3]", r"line 2: node 'a2' is under two switches"),
    ("SwitchName=s0 Nodes=a1\nSwitchName=t Switches=s0\nSwitchName=u Switches=s0",
     r"line 3: switch 's0' has two parents, 't' \(line 2\) and 'u'"),
    ("SwitchName=s0 Nodes=a1\nSwitchName=t Switches=s[0-1]", r"line 2: switch 's1' is listed under 't' and never defined"),
    ("SwitchName=s0 Nodes=a1\nSwitchName=x Switches=y\nSwitchName=y Switches=x", r"line \d: switch '[xy]' is in a cycle"),
    ("SwitchName=s0 Nodes=a[1-2", r"line 1: bad hostlist expression 'a\[1-2'"),
    ("SwitchName=s0 Nodes=a[3-1]", r"line 1: bad hostlist expression"),
    ("SwitchName=s0 Node=a1", r"line 1: unknown parameter 'Node'"),
    ("SwitchName=s0", r"line 1: switch 's0' has no Switches= or Nodes="),
    ("SwitchName=s0 Nodes=a1 LinkSpeed=fast", r"line 1: LinkSpeed must be a number"),
    ("SwitchName=s0 Nodes=a1\n\nBlockName=b Nodes=c1", r"both SwitchName= .* and BlockName="),
    ("SwitchName=s0 Nodes=s0", r"line 1: 's0' names a node and a switch"),
    ("BlockName=b1 Nodes=a[1-4]\nBlockName=b1 Nodes=a[5-8]", r"line 2: block 'b1' is named twice"),
    ("BlockName=b1 Nodes=a[1-4]\nBlockName=b2 Nodes=a[4-8]", r"line 2: node 'a4' is in two blocks"),
    ("BlockName=b1 Nodes=a[1-4]\nBlockSizes=4,12", r"line 2: each of BlockSizes must be a power of two"),
    ("BlockName=b1 Nodes=a[1-4]\nBlockSizes=4,x", r"line 2: BlockSizes must be positive integers"),
    ("BlockName=b1 Nodes=a[1-3]\nBlockSizes=4", r"line 1: block 'b1' has 3 nodes, fewer than the base block size 4"),
    ("BlockName=b1", r"line 1: block 'b1' has no Nodes="),
    ("# nothing\n", r"no SwitchName= or BlockName= line"),
]


@pytest.mark.parametrize("text, message", BAD)
def test_bad_topologies_get_one_line_naming_the_line(text, message):
    with pytest.raises(ValueError, match=message) as err:
        parse_topology(text, source="t.conf")
    assert "\n" not in str(err.value) and str(err.value).startswith("t.conf")


def test_read_topology_names_a_missing_file(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        read_topology(tmp_path / "nope.conf")


# ---- node lists ------------------------------------------------------------------------------

def test_node_lists_name_nodes_by_label():
    m = read_topology(instance_path("topology.conf"))
    assert parse_nodelist(m, "cn[001-004,017]").tolist() == [0, 1, 2, 3, 16]
    assert parse_nodelist(m, "cn128,cn001").tolist() == [127, 0]
    for text, message in (("cn[001-004,999]", "'cn999' is not a node of the Slurm tree topology"),
                          ("cn[001-002],cn001", "names 'cn001' twice"),
                          ("cn[001-", "bad hostlist expression"), ("", "names no node")):
        with pytest.raises(ValueError, match=message) as err:
            parse_nodelist(m, text)
        assert "\n" not in str(err.value)


def test_node_lists_on_numbered_machines_are_ids():
    m = parse_machine("dragonfly:3,2,1,1")
    with pytest.raises(ValueError, match="is not a node"):
        parse_nodelist(m, "[0-2]")  # a dragonfly's labels are (group, router, node)
    with pytest.raises(ValueError, match="not host names a node list can hold"):
        format_nodelist(m, [0, 1])
    g = parse_machine(str(instance_path("network.txt")))
    ids = parse_nodelist(g, format_nodelist(g, [0, 2]))
    assert ids.tolist() == [0, 2]
    assert parse_nodelist(parse_machine("4x4 torus"), "[3-5]").tolist() == [3, 4, 5]


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(0, 127), min_size=1, max_size=40))
def test_node_lists_round_trip(ids):
    m = read_topology(instance_path("topology.conf"))
    text = format_nodelist(m, sorted(ids))
    assert parse_nodelist(m, text).tolist() == sorted(ids)
    assert hostlist.expand_hostlist(text) == [m.labels[i] for i in sorted(ids)]


def test_every_two_level_choice_of_a_small_tree_matches_the_graph():
    """W of every 3-subset of a small tree topology equals the sum of graph hops (ground truth)."""
    m = parse_topology(THREE_LEVELS)
    G, hosts = _graph(THREE_LEVELS)
    hops = dict(nx.all_pairs_shortest_path_length(G))
    for s in itertools.combinations(range(16), 3):
        want = sum(hops[hosts[a]][hosts[b]] for a, b in itertools.combinations(s, 2))
        assert m.tree.weight(list(s)) == want
