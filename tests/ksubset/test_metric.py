"""k-subset on a Machine: tori and networks in their own metric, meshes through the point path.

Ground truth is brute force over the free nodes' distance matrix, checked
on seeded random tori (2D and 3D, sides 2-5, random busy nodes) and random
connected networks (hops, integer and real link lengths).
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from ksubset_truth import connected_gnp

from optalloc.ksubset import solve
from optalloc.machine import Machine

TOL = 1e-9


def _random_torus(rng):
    d = int(rng.integers(2, 4))
    shape = tuple(int(s) for s in rng.integers(2, 6, size=d))
    m = Machine(shape, torus=True)
    n_free = int(rng.integers(2, min(12, m.n) + 1))
    busy = rng.choice(m.n, size=m.n - n_free, replace=False)
    if len(busy):
        m.allocate(np.sort(busy))
    return m


def _random_network(rng, lengths):
    n = int(rng.integers(3, 12))
    G = connected_gnp(rng, n, (0.2, 0.6))
    if lengths == "int":
        for u, v in G.edges:
            G.edges[u, v]["w"] = int(rng.integers(1, 6))
    elif lengths == "real":
        for u, v in G.edges:
            G.edges[u, v]["w"] = float(rng.uniform(0.1, 3.0))
    m = Machine.from_graph(G, weight=None if lengths is None else "w")
    busy = rng.choice(m.n, size=int(rng.integers(0, m.n - 1)), replace=False)
    if len(busy):
        m.allocate(np.sort(busy))
    return m


def _instances():
    rng = np.random.default_rng(20261124)
    out = [_random_torus(rng) for _ in range(70)]
    for lengths in (None, "int", "real"):
        out += [_random_network(rng, lengths) for _ in range(20)]
    return out, rng


def _brute_opt(m, k):
    ids = m.free_ids()
    D = m.distances(ids)
    return min(sum(D[a, b] for a, b in itertools.combinations(s, 2)) for s in itertools.combinations(range(len(ids)), k))


def _w(m, ids):
    return float(sum(m.distance(a, b) for a, b in itertools.combinations(ids, 2)))


def test_exact_equals_brute_and_gen_alg_within_its_guarantee():
    machines, rng = _instances()
    assert len(machines) >= 100
    checked = 0
    for m in machines:
        k = int(rng.integers(1, min(6, m.n_free) + 1))
        opt = _brute_opt(m, k)
        rb = solve(m, k, method="brute")
        re = solve(m, k, method="exact")
        rg = solve(m, k, method="gen-alg")
        ctx = (m.describe(), m.free_ids().tolist(), k)
        assert rb.status == "optimal" and rb.objective == pytest.approx(opt, abs=TOL), ctx
        assert re.status == "optimal" and re.termination == "optimal" and re.guarantee == 1.0, ctx
        assert re.objective == pytest.approx(opt, abs=1e-6), ctx
        g = max(1.0, 2 - 2 / k)
        assert rg.guarantee == pytest.approx(g)
        assert rg.objective <= g * opt + 1e-6, ctx
        for r in (rb, re, rg):
            assert r.k == k and r.bound is not None and r.bound <= opt + 1e-6, ctx
            idx = r.indices.tolist()
            assert idx == sorted(idx) and set(idx) <= set(m.free_ids().tolist())
            assert r.objective == pytest.approx(_w(m, idx), abs=1e-9)
            if m.kind == "network":
                assert r.points.shape == (k, 0)
            else:
                assert np.array_equal(r.points, m.coords[r.indices])
        checked += 1
    assert checked == len(machines)


def test_torus_metric_is_networkx_periodic_grid():
    rng = np.random.default_rng(7)
    for _ in range(20):
        m = _random_torus(rng)
        k = int(rng.integers(2, min(5, m.n_free) + 1))
        r = solve(m, k, method="exact")
        G = nx.grid_graph(dim=list(m.shape[::-1]), periodic=True)  # node tuples are (x, y, ...)
        nodes = [tuple(int(c) for c in m.coords[i]) for i in r.indices]
        w = sum(nx.shortest_path_length(G, a, b) for a, b in itertools.combinations(nodes, 2))
        assert r.objective == w


def test_time_limited_exact_reports_a_proven_bound():
    rng = np.random.default_rng(3)
    m = Machine((4, 4, 4), torus=True)
    m.allocate(np.sort(rng.choice(64, size=44, replace=False)))
    opt = _brute_opt(m, 5)
    r = solve(m, 5, method="exact", time_limit=0.05)
    assert r.termination in ("optimal", "time_limit")
    assert r.bound is not None and r.bound <= opt + 1e-9 <= r.objective + 1e-9
    if r.termination == "time_limit":
        assert r.status == "feasible" and r.guarantee is None


def test_brute_limit_and_time_limit_on_a_torus():
    m = Machine((8, 8), torus=True)
    with pytest.raises(ValueError, match="exceeds the limit"):
        solve(m, 5, method="brute")
    r = solve(m, 3, method="brute", time_limit=1e-6)
    assert r.termination in ("time_limit", "optimal")
    assert r.extra["subsets"] <= math.comb(64, 3)


@pytest.mark.parametrize("method", ["mm", "gen-alg", "mc1x1", "mm-inc", "brute", "exact", "ptas"])
def test_mesh_machine_is_the_point_path(method):
    rng = np.random.default_rng(11)
    for _ in range(4):
        m = Machine((5, 4))
        m.allocate(np.sort(rng.choice(20, size=8, replace=False)))
        k = int(rng.integers(2, 7))
        opts = {"shape": m.shape} if method == "mc1x1" else {}
        rp = solve(m.free_points(), k, method=method, **opts)
        rm = solve(m, k, method=method)
        assert rm.objective == rp.objective and rm.bound == rp.bound and rm.status == rp.status
        assert rm.indices.tolist() == m.free_ids()[rp.indices].tolist()
        assert np.array_equal(rm.points, rp.points)
        assert rm.objective == _w(m, rm.indices.tolist())


def test_bad_inputs_are_one_line_value_errors():
    torus = Machine((8, 8), torus=True)
    net = Machine.from_graph(nx.cycle_graph(6))
    mesh = Machine((3, 3))
    cases = [
        (lambda: solve(torus, 3, method="ptas"),
         "method 'ptas' needs a mesh; on a 8x8 torus use one of: brute, exact, gen-alg, mc1x1, mm, mm-inc"),
        (lambda: solve(net, 3, method="mm"),
         "method 'mm' needs a mesh or torus; on a network of 6 nodes use one of: brute, exact, gen-alg"),
        (lambda: solve(Machine((4, 4), torus=(True, False)), 2, method="ptas"), "needs a mesh"),
        (lambda: solve(torus, 0, method="exact"), "`k` must be between 1 and the number of free nodes (64)"),
        (lambda: solve(net, 7, method="gen-alg"), "`k` must be between 1"),
        (lambda: solve(mesh, 10, method="mm"), "`k` must be between 1 and the number of free nodes (9)"),
        (lambda: solve(mesh, 0, method="brute"), "`k` must be between 1"),
        (lambda: solve(torus, 2, method="nope"), "unknown method 'nope'"),
        (lambda: solve(torus, 2, method="exact", solver="gurobi"), "does not take option 'solver'"),
    ]
    for call, text in cases:
        with pytest.raises(ValueError) as info:
            call()
        msg = str(info.value)
        assert text in msg and "\n" not in msg
