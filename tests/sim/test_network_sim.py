"""Simulation on networks: dragonflies, fat trees, random graphs and graph files.

W of every job is checked against shortest paths computed here with
networkx; mesh-only metrics are None; outputs parse; the 1D allocators over
an ordering of a network reach the least span of any k free ranks (brute
force over all subsets) whenever they say so; sweeps store network machines.
"""

from __future__ import annotations

import csv
import itertools
import json

import networkx as nx
import numpy as np
import pytest

from optalloc import instance_path, ksubset
from optalloc.cli import main
from optalloc.curves import span
from optalloc.machine import Machine, dragonfly, fat_tree, parse_machine
from optalloc.sim import (
    NETWORK_METHODS,
    Job,
    NetworkOneDAllocator,
    fitting_allocators,
    make_sweep,
    parse_allocator,
    read_jobs,
    read_sweep,
    read_swf,
    run_sweep,
    simulate,
)


def random_graph(n, seed):
    G = nx.connected_watts_strogatz_graph(n, 4, 0.3, seed=seed)
    return nx.relabel_nodes(G, {v: f"v{v}" for v in G})


def jobs(n_nodes, count, seed):
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.exponential(20, count))
    return [Job(i + 1, float(t[i]), float(rng.integers(5, 200)), int(rng.integers(1, n_nodes // 2 + 1)))
            for i in range(count)]


def nx_distances(G, labels):
    index = {v: i for i, v in enumerate(labels)}
    D = np.zeros((len(labels), len(labels)))
    for u, lengths in nx.all_pairs_shortest_path_length(G):
        for v, d in lengths.items():
            D[index[u], index[v]] = d
    return D


@pytest.mark.parametrize("allocator", ["gen-alg", "random", "1d:graph-greedy:best-fit", "1d:graph-spectral:first-fit"])
def test_random_graph_W_is_the_shortest_path_sum(allocator):
    G = random_graph(24, 3)
    m = Machine.from_graph(G)
    D = nx_distances(G, list(G.nodes))
    res = simulate(jobs(24, 40, 1), m, allocator=allocator, rng=0)
    assert res.summary.jobs == 40
    for r in res.records:
        ids = list(r.nodes)
        w = D[np.ix_(ids, ids)].sum() / 2
        assert r.W == pytest.approx(w)
        pairs = len(ids) * (len(ids) - 1) / 2
        assert r.avg_l1 == pytest.approx(w / pairs if pairs else 0.0)
        assert r.bbox is None and r.bbox_volume is None
    assert res.summary.mean_bbox_volume is None
    assert res.summary.mean_W == pytest.approx(np.mean([r.W for r in res.records]))
    assert m.n_free == m.n


@pytest.mark.parametrize("machine, allocator", [(dragonfly(), "dfly:hybrid"), (dragonfly(), "dfly:random-group"),
                                                (dragonfly(3, 2, 2, 1), "exact"), (fat_tree(4), "gen-alg"),
                                                (fat_tree(4), "1d:graph-qap:sum-of-squares")])
def test_bundled_trace_end_to_end(machine, allocator):
    trace = read_swf(instance_path("small.swf"), max_procs=machine.n)
    trace = type(trace)(trace.jobs[:25], max_procs=trace.max_procs, report=trace.report)
    decisions = []
    res = simulate(trace, machine, allocator=allocator, rng=0, on_decision=decisions.append)
    D = machine.distances()
    assert [r.W for r in res.records] == [pytest.approx(D[np.ix_(r.nodes, r.nodes)].sum() / 2) for r in res.records]
    assert all(d.free_points is None for d in decisions)
    for d in decisions:  # the solver's result names machine node ids, W included
        if d.result is not None:
            assert sorted(d.result.indices.tolist()) == sorted(d.nodes.tolist())
            assert d.result.objective == pytest.approx(D[np.ix_(d.nodes, d.nodes)].sum() / 2)


def test_ksubset_allocator_on_a_network_is_solve_on_the_machine():
    m = Machine.from_graph(random_graph(16, 5))
    m.allocate([0, 3, 4, 9], owner=1)
    for method in NETWORK_METHODS:
        got = parse_allocator(method).select(m, 5)
        want = ksubset.solve(m, 5, method=method)
        assert got.result.objective == pytest.approx(want.objective)
        assert sorted(got.nodes.tolist()) == sorted(want.indices.tolist())


def test_network_methods_are_the_methods_solve_takes_on_a_network():
    m = Machine.from_graph(random_graph(10, 1))
    for method in ksubset.METHODS:
        try:
            ksubset.solve(m, 3, method=method)
        except ValueError as exc:
            assert "needs a mesh" in str(exc)
            assert method not in NETWORK_METHODS
        else:
            assert method in NETWORK_METHODS
    assert [a for a in fitting_allocators(m) if not a.startswith(("1d:", "random", "free-list"))] == list(NETWORK_METHODS)


def brute_min_span(free_ranks, k, n, ring):
    return min(span(list(c), n, ring=ring) for c in itertools.combinations(sorted(free_ranks), k))


@pytest.mark.parametrize("ring", [False, True])
def test_fit_strategies_reach_the_least_span(ring):
    """The fit strategies claim the least span of any k free ranks: brute force."""
    rng = np.random.default_rng(11)
    checked = 0
    for trial in range(12):
        G = random_graph(int(rng.integers(6, 12)), trial)
        base = Machine.from_graph(G)
        for strategy in ("first-fit", "best-fit", "sum-of-squares"):
            a = NetworkOneDAllocator("greedy", strategy=strategy, ring=ring)
            m = base.copy_empty()
            busy = np.flatnonzero(rng.random(m.n) < 0.4)
            if len(busy) == m.n:
                continue
            m.allocate(busy, owner=1)
            rank_of = np.empty(m.n, dtype=int)
            rank_of[a.ordering(m)] = np.arange(m.n)
            free_ranks = rank_of[m.free_ids()]
            for k in range(1, m.n_free + 1):
                alloc = a.select(m, k)
                assert alloc.result.extra["span"] == span(rank_of[alloc.nodes], m.n, ring=ring)
                assert alloc.result.extra["span"] == brute_min_span(free_ranks, k, m.n, ring)
                checked += 1
    assert checked > 100


def test_free_list_takes_the_smallest_free_ranks_and_orders_once():
    m = fat_tree(4)
    a = parse_allocator("1d:graph-spectral:free-list:seed=2")
    order = a.ordering(m)
    first = a.order_result
    m.allocate(order[[1, 4, 5]], owner=1)
    nodes = a.select(m, 4).nodes
    assert sorted(nodes.tolist()) == sorted(order[[0, 2, 3, 6]].tolist())
    a.select(m.copy_empty(), 3)
    assert a.order_result is first  # computed once per machine, copies included
    assert parse_allocator("1d:graph-spectral:free-list:seed=2").ordering(fat_tree(4)).tolist() == order.tolist()


def test_graph_orderings_run_on_meshes_too():
    res = simulate(jobs(16, 20, 4), "4x4", allocator="1d:graph-greedy:best-fit")
    assert res.summary.mean_span is not None
    assert all(r.bbox is not None for r in res.records)


def test_outputs_on_a_network(tmp_path):
    res = simulate(jobs(16, 12, 2), fat_tree(4), allocator="gen-alg")
    res.to_csv(tmp_path / "a.csv")
    res.to_jsonl(tmp_path / "a.jsonl")
    res.to_batsim_csv(tmp_path / "b.csv")
    with open(tmp_path / "a.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 12 and rows[0]["bbox"] == "" and rows[0]["bbox_volume"] == ""
    lines = [json.loads(x) for x in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert lines[0]["bbox"] is None and lines[-1]["summary"]["mean_bbox_volume"] is None
    json.dumps(res.to_dict())
    frame = res.to_pandas()
    assert frame["bbox"].isna().all() and len(frame) == 12


def test_graph_file_on_the_command_line(tmp_path, capsys):
    G = random_graph(20, 2)
    nx.write_graphml(G, tmp_path / "net.graphml")
    code = main(["simulate", str(instance_path("small.swf")), "--machine", str(tmp_path / "net.graphml"),
                 "--allocator", "gen-alg", "--jobs", "15", "--json", "-q"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["summary"]["jobs"] == 15 and out["summary"]["mean_bbox_volume"] is None
    code = main(["simulate", str(instance_path("small.swf")), "--machine", "dragonfly", "--allocator",
                 "dfly:random-router", "--jobs", "15", "-q"])
    text = capsys.readouterr().out
    assert code == 0 and "dfly:random-router:seed=0" in text and "mean avg distance" in text


def test_sweep_over_networks(tmp_path):
    G = random_graph(20, 2)
    nx.write_graphml(G, tmp_path / "net.graphml")
    cfg = make_sweep(traces=[{"path": str(instance_path("small.swf")), "limit": 12, "max_procs": 16}],
                     machines=["dragonfly", "fat-tree:4", "net.graphml"], base_dir=tmp_path,
                     allocators=["gen-alg", "1d:graph-greedy:best-fit"], job_records=True)
    with pytest.raises(ValueError, match=r"'dfly:slurm' cannot run on machine 'fat-tree:4'.*needs a dragonfly"):
        make_sweep(traces=[str(instance_path("small.swf"))], machines=["fat-tree:4"], allocators=["dfly:slurm"])
    specs = [c.spec["machine"] for c in cfg.configurations]
    assert {"network": "dragonfly"} in specs and {"network": "fat-tree:4"} in specs
    assert any("sha256" in s for s in specs)
    report = run_sweep(cfg, str(tmp_path / "s.sqlite"), workers=1, progress=False)
    assert report.failed == 0 and report.run == 6
    rows = read_sweep(str(tmp_path / "s.sqlite"), cfg)
    assert all(r["status"] == "done" and r["summary"]["mean_bbox_volume"] is None for r in rows)
    jobs_rows = read_jobs(str(tmp_path / "s.sqlite"), cfg.configurations[0].key)
    D = dragonfly().distances()
    assert len(jobs_rows) == 12 and all(j["bbox"] is None and j["bbox_volume"] is None for j in jobs_rows)
    assert [j["W"] for j in jobs_rows] == [pytest.approx(D[np.ix_(j["nodes"], j["nodes"])].sum() / 2)
                                         for j in jobs_rows]
    # the same configurations have the same keys: nothing runs again
    again = make_sweep(traces=[{"path": str(instance_path("small.swf")), "limit": 12, "max_procs": 16}],
                       machines=["dragonfly", "fat-tree:4", "net.graphml"], base_dir=tmp_path,
                       allocators=["gen-alg", "1d:graph-greedy:best-fit"], job_records=True)
    assert run_sweep(again, str(tmp_path / "s.sqlite"), workers=1, progress=False).skipped == 6


def test_parse_machine_reads_network_generators():
    assert parse_machine("dragonfly").n == 72
    assert parse_machine("dragonfly:5,2,1,2").distances().tolist() == dragonfly(5, 2, 1, 2).distances().tolist()
    assert parse_machine("fat-tree:4").distances().tolist() == fat_tree(4).distances().tolist()


def test_allocator_cache_tells_networks_apart():
    """Two networks with the same node count and free set share no cached
    allocation, however they were built (the cache keys them by their
    distances, not by object identity)."""
    from optalloc.sim.allocators._allocators import KSubsetAllocator

    a = KSubsetAllocator("gen-alg")
    near_01 = np.array([[0, 1, 4, 4], [1, 0, 4, 4], [4, 4, 0, 3], [4, 4, 3, 0]], dtype=float)
    near_23 = np.array([[0, 3, 4, 4], [3, 0, 4, 4], [4, 4, 0, 1], [4, 4, 1, 0]], dtype=float)
    for D, best in ((near_01, [0, 1]), (near_23, [2, 3]), (near_01, [0, 1])):
        m = Machine.from_distances("abcd", D)
        assert sorted(a.select(m, 2).nodes.tolist()) == best
        del m  # the next machine may be built where this one was
    assert a.hits == 1  # the third machine repeats the first's distances
