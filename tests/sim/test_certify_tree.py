"""Certification and gap on trees of switches: every state proven by the
dynamic program over the tree, at any size, and equal to brute force where
that finishes."""

import itertools

import networkx as nx
import numpy as np
import pytest

from optalloc.bench.scale._sim import synthetic_jobs
from optalloc.cli import main
from optalloc.ksubset import gap, solve
from optalloc.machine import Machine, fat_tree, parse_machine
from optalloc.sim import EXACT_MAX_FREE, certify
from optalloc.sim.certification._exact import solve_state


def _brute(D, free, k):
    return min(D[np.ix_(S, S)].sum() / 2 for S in itertools.combinations(free, k))


@pytest.mark.parametrize("seed", range(8))
def test_solve_state_is_the_optimum_on_small_fat_trees(seed):
    rng = np.random.default_rng(seed)
    m = fat_tree(4)
    D = m.distances()
    free = np.sort(rng.choice(m.size, int(rng.integers(2, 11)), replace=False))
    for k in range(1, len(free) + 1):
        best = _brute(D, free.tolist(), k)
        for exact in (True, False):
            s = solve_state(m, free, k, exact=exact)
            assert s.status == "optimal" and s.lower == s.upper == best


def test_solve_state_on_a_tree_machine_against_brute_force():
    rng = np.random.default_rng(4)
    G = nx.random_labeled_tree(12, seed=4)
    for u, v in G.edges:
        G[u][v]["w"] = float(rng.integers(1, 4))
    hosts = [v for v in G if G.degree(v) == 1] + [v for v in G if G.degree(v) > 1][:2]
    m = Machine.from_tree(G, hosts, weight="w")
    D = m.distances()
    free = np.arange(m.size)
    for k in range(1, m.size + 1):
        assert solve_state(m, free, k).lower == _brute(D, free.tolist(), k)


def test_large_states_are_proven_on_a_fat_tree(capsys):
    m = parse_machine("fattree:20")  # 2,000 hosts: every state has more than EXACT_MAX_FREE free
    jobs = synthetic_jobs(10, m.size, seed=2)
    cert = certify(jobs, m, driver="gen-alg", allocators=["gen-alg"])
    assert all(r.n_free > EXACT_MAX_FREE for r in cert.rows)
    assert cert.n_proven == len(cert) and not cert.check()
    for r in cert.rows:
        assert r.status == "optimal" and r.lower == r.upper <= min(r.W)


def test_certify_command_does_not_call_tree_states_too_large(tmp_path, capsys):
    lines = [f"{i + 1} {10 * i} 0 {50 + i} {1 + i % 4} -1 -1 {1 + i % 4} {60 + i} -1 1 1 1 -1 1 -1 -1 -1"
             for i in range(6)]
    (tmp_path / "t.swf").write_text("\n".join(lines) + "\n")
    assert main(["certify", str(tmp_path / "t.swf"), "--machine", "fattree:20", "--allocators", "gen-alg"]) == 0
    out = capsys.readouterr().out
    assert "6/6 decisions proven" in out and "not solved exactly" not in out


@pytest.mark.parametrize("seed", range(4))
def test_gap_on_a_fat_tree_is_exact(seed):
    rng = np.random.default_rng(seed)
    m = fat_tree(4)
    m.allocate(rng.choice(m.size, 6, replace=False), owner=1)
    free = m.free_ids()
    chosen = rng.choice(free, 4, replace=False)
    rep = gap(m, chosen)
    best = _brute(m.distances(), free.tolist(), 4)
    assert rep.optimal and rep.lower == rep.upper == best
    assert rep.objective == m.distances(chosen).sum() / 2


def test_gap_on_a_large_fat_tree_needs_no_matrix():
    m = parse_machine("fattree:32")
    spread = np.arange(0, m.size, 512)  # one host per pod
    rep = gap(m, spread)
    assert rep.optimal and rep.upper == solve(m, 16, method="exact").objective == 240
    assert rep.objective == 16 * 15 / 2 * 6 and m._dist is None
