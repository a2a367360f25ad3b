"""certify on tori and networks: every certified ratio >= 1, equal to brute force where proven.

Ground truth: at every decision the free set is rebuilt on a copy of the
machine and ``ksubset.solve(machine, k, method="brute")`` gives the optimum
in the machine's own metric (wrap distance, shortest paths, 0 between
processors of one node).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from optalloc.ksubset import solve
from optalloc.machine import Machine, processors_per_node
from optalloc.sim import Job, certify, default_allocators, default_driver, simulate


def _jobs(seed, n_nodes, count=14):
    rng = np.random.default_rng(seed)
    jobs, t = [], 0.0
    for i in range(count):
        t += float(rng.integers(0, 4))
        jobs.append(Job(i + 1, t, float(rng.integers(3, 12)), int(rng.integers(1, max(2, n_nodes // 2)))))
    return jobs


def _graph(seed, n=10):
    rng = np.random.default_rng(seed)
    while True:
        G = nx.gnp_random_graph(n, 0.3, seed=int(rng.integers(1 << 30)))
        if nx.is_connected(G):
            return Machine.from_graph(G)


def _states(jobs, machine, driver):
    """(free ids, k) of every decision of the driver's simulation."""
    seen = []
    simulate(jobs, machine, allocator=driver, on_decision=lambda d: seen.append((np.array(d.free_ids), d.k)))
    return seen


def _brute(machine, free_ids, k):
    m = machine.copy_empty()
    busy = np.setdiff1d(np.arange(m.size), free_ids)
    if len(busy):
        m.allocate(busy, owner=-2)
    return solve(m, k, method="brute").objective


def _check_against_brute(c, jobs, machine):
    assert c.check() == []
    for r in c.rows:
        lo, hi = np.array(r.ratios()).T
        assert (hi >= 1 - 1e-9).all() and (lo >= 1 - 1e-9).all() or r.upper == 0
    checked = 0
    states = [(f, k) for f, k in _states(jobs, machine, _driver_for(c, machine))]
    assert len(states) == len(c.rows)
    for (free, k), r in zip(states, c.rows):
        assert r.k == k and r.n_free == len(free)
        if math.comb(len(free), k) <= 5000:
            opt = _brute(machine, free, k)
            assert r.lower <= opt + 1e-9 <= r.upper + 2e-9
            if r.proven:
                assert r.upper == pytest.approx(opt)
                checked += 1
    return checked


def _driver_for(c, machine):
    """The driver as certify runs it: in the machine's metric."""
    from optalloc.sim import check_allocator, parse_allocator

    alloc = parse_allocator(c.driver)
    check_allocator(alloc, machine)
    return alloc


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_torus_certificates_match_brute_force(seed):
    machine = Machine((4, 3), torus=True)
    jobs = _jobs(seed, machine.size)
    c = certify(jobs, machine, allocators=("gen-alg", "mm", "1d:gilbert:best-fit", "random:seed=1"))
    assert c.metric == "torus" and c.driver == "mc1x1"
    assert _check_against_brute(c, jobs, machine) >= 8
    assert c.to_dict()["metric"] == "torus" and "4x3 torus" in c.to_dict()["machine"]


@pytest.mark.parametrize("seed", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_network_certificates_match_brute_force(seed):
    machine = _graph(seed)
    jobs = _jobs(seed, machine.size)
    c = certify(jobs, machine)
    assert c.metric == "network" and c.names[0] == "gen-alg"
    assert _check_against_brute(c, jobs, machine) >= 8
    gs = [r.guarantee[0] for r in c.rows if r.k >= 2]
    assert all(g == pytest.approx(2 - 2 / r.k) for g, r in zip(gs, [r for r in c.rows if r.k >= 2]))


def test_processors_per_node_and_cheap_bounds():
    machine = processors_per_node(Machine((3, 2)), [2, 1, 3, 1, 2, 1])
    jobs = _jobs(7, machine.size)
    exact = certify(jobs, machine)
    cheap = certify(jobs, machine, exact=False)
    assert cheap.termination == "bounds" and exact.termination == "optimal"
    for a, b in zip(exact.rows, cheap.rows):
        assert b.lower <= a.upper + 1e-9 <= b.upper + 2e-9  # the cheap bracket holds the optimum
    assert _check_against_brute(exact, jobs, machine) >= 8


def test_guarantees_only_where_they_hold():
    machine = Machine((4, 4), torus=True)
    c = certify(_jobs(4, 16), machine, driver="gen-alg", allocators=("gen-alg", "1d:gilbert:best-fit", "mc1x1",
                                                                      "mc1x1:tie_break=default"))
    for r in c.rows:
        assert r.guarantee[1] is None  # a curve: no guarantee
        assert r.guarantee[3] is None  # tie-breaking keeps the mesh rules: its L1 figure does not hold here
        if r.k >= 2:
            assert r.guarantee[0] == pytest.approx(2 - 2 / r.k)
            assert r.guarantee[2] == pytest.approx(2 * (2 - 2 / r.k))  # MC1x1 with wrap: d (2 - 2/k)


def test_defaults_adapt_to_the_machine():
    assert default_driver(Machine((4, 4))) == "mc1x1"
    assert default_driver(Machine((4, 4), torus=True)) == "mc1x1"
    assert default_driver(_graph(0)) == "gen-alg"
    torus = default_allocators(Machine((4, 4), torus=True))
    assert torus == default_allocators(Machine((4, 4)))  # every default runs with wrap distances
    net = default_allocators(_graph(0))
    assert net[0] == "gen-alg" and len(net) >= 2


def test_mesh_only_allocators_are_refused_with_those_that_run():
    with pytest.raises(ValueError, match=r"'mc1x1' does not fit a network of 10 nodes.*gen-alg"):
        certify(_jobs(0, 10), _graph(0), allocators=("mc1x1",))
    with pytest.raises(ValueError, match=r"'1d:gilbert:best-fit' does not fit a network"):
        certify(_jobs(0, 10), _graph(0), allocators=("1d:gilbert:best-fit",))


@pytest.mark.parametrize("ext", ["csv", "jsonl"])
def test_files_of_a_torus_record_the_metric_and_resume(tmp_path, ext):
    from optalloc.sim import read_certification

    machine = Machine((4, 3), torus=True)
    jobs = _jobs(5, machine.size, count=8)
    path = tmp_path / f"rows.{ext}"
    c = certify(jobs, machine, out=path)
    back = read_certification(path)
    assert back.metric == "torus" and len(back) == len(c)
    again = certify(jobs, machine, out=path, resume=True)
    assert again.resumed == len(c) and [r.upper for r in again.rows] == [r.upper for r in c.rows]
    with pytest.raises(ValueError, match="cannot resume"):
        certify(jobs, Machine((4, 3)), allocators=c.names, driver=c.driver, out=path, resume=True)
    mesh = tmp_path / f"mesh.{ext}"
    certify(jobs, Machine((4, 3)), out=mesh)
    assert read_certification(mesh).metric == "l1" and "metric" not in mesh.read_text().splitlines()[1]


def test_command_line_on_a_network_file_and_a_torus(tmp_path, capsys):
    import json

    from optalloc.cli import main

    path = tmp_path / "ring.json"
    path.write_text(json.dumps(nx.node_link_data(nx.cycle_graph(12), edges="links")))
    assert main(["certify", "--machine", str(path), "--jobs", "15", "--json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metric"] == "network" and out["machine"] == "network of 12 nodes" and out["violations"] == []
    assert out["termination"] == "optimal" and out["allocators"][0] == "gen-alg"
    assert main(["certify", "--machine", "4x4 torus", "--jobs", "10", "--workers", "2", "-q"]) == 0
    text = capsys.readouterr().out
    assert "mc1x1 (driver)" in text and "on 4x4 torus" in text
