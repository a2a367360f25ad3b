"""The exact solver in any metric and the bounds it uses, against brute force.

Every bound is checked against the brute-force optimum on random small
machines of each kind it claims to hold for: the neighbour bound on tori,
random graphs (hops, integer and real lengths), dragonflies, fat trees and
machines with several processors per node; the axis bound on meshes and
tori (2D and 3D) only.  The exact solver is checked on instances large
enough for its cut loop and branch-and-bound to run, and under a time
limit its bracket must hold the optimum.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ksubset_truth import connected_gnp, matrix_optimum

from optalloc.ksubset import solve
from optalloc.ksubset._metric import machine_problem
from optalloc.ksubset.bounds._metric import axis_metric, neighbour_metric
from optalloc.ksubset.heuristics.centres._metric import metric_descent
from optalloc.machine import Machine, dragonfly, fat_tree, processors_per_node

TOL = 1e-9


def _busy(m, rng, keep):
    """Mark all but ``keep`` random nodes of ``m`` busy."""
    busy = np.sort(rng.choice(m.n, size=m.n - keep, replace=False))
    if len(busy):
        m.allocate(busy)
    return m


def _grid(rng):
    d = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(1, 6, size=d))
    torus = tuple(bool(t) for t in rng.integers(0, 2, size=d))
    m = Machine(shape, torus=torus)
    return _busy(m, rng, int(rng.integers(1, min(11, m.n) + 1)))


def _graph(rng):
    n = int(rng.integers(3, 11))
    G = connected_gnp(rng, n, (0.2, 0.7))
    kind = rng.integers(3)
    if kind:
        for u, v in G.edges:
            G.edges[u, v]["w"] = int(rng.integers(1, 5)) if kind == 1 else float(rng.uniform(0.1, 3.0))
    m = Machine.from_graph(G, weight="w" if kind else None)
    return _busy(m, rng, int(rng.integers(1, m.n + 1)))


def _other(rng):
    """A dragonfly, a fat tree or a machine with several processors per node."""
    kind = rng.integers(3)
    if kind == 0:
        m = dragonfly(groups=int(rng.integers(2, 4)), routers=2, nodes=int(rng.integers(1, 3)), global_links=1)
    elif kind == 1:
        m = fat_tree(4)
    else:
        base = Machine((int(rng.integers(2, 4)), int(rng.integers(1, 4))), torus=bool(rng.integers(2)))
        m = processors_per_node(base, rng.integers(1, 4, size=base.n))
    return _busy(m, rng, int(rng.integers(1, min(10, m.n) + 1)))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([_grid, _graph, _other]))
def test_neighbour_bound_holds_in_any_metric(seed, make):
    rng = np.random.default_rng(seed)
    m = make(rng)
    inst = machine_problem(m, int(rng.integers(1, m.n_free + 1)))
    assert neighbour_metric(inst.D, inst.k) <= matrix_optimum(inst.D, inst.k) + TOL


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_axis_bound_holds_on_meshes_and_tori(seed):
    rng = np.random.default_rng(seed)
    m = _grid(rng)
    inst = machine_problem(m, int(rng.integers(1, m.n_free + 1)))
    assert axis_metric(inst.coords, inst.k, *inst.axes) <= matrix_optimum(inst.D, inst.k) + TOL


def test_axis_bound_is_the_optimum_of_a_ring():
    # one wrapped axis: the bound is the ring optimum itself
    m = Machine((9,), torus=True)
    inst = machine_problem(m, 4)
    assert axis_metric(inst.coords, 4, *inst.axes) == matrix_optimum(inst.D, 4) == 10


def test_metric_descent_reaches_a_swap_local_optimum():
    rng = np.random.default_rng(7)
    for _ in range(40):
        m = _graph(rng)
        inst = machine_problem(m, int(rng.integers(1, m.n_free + 1)))
        D, k = inst.D, inst.k
        rows = metric_descent(D, np.sort(rng.choice(len(D), k, replace=False)))
        assert len(rows) == k == len(set(rows.tolist()))
        w = D[np.ix_(rows, rows)].sum() / 2
        out = np.setdiff1d(np.arange(len(D)), rows)
        for u in rows:
            for v in out:
                swap = np.sort(np.append(rows[rows != u], v))
                assert D[np.ix_(swap, swap)].sum() / 2 >= w - 1e-9


def _cut_loop_cases():
    """Tori and networks with 20-22 free nodes and k of 6-7 (over 20,000
    subsets, so not enumerated), where the cut loop (and often
    branch-and-bound) runs."""
    rng = np.random.default_rng(2026)
    cases = []
    for i in range(12):
        if i % 3 == 0:
            m = Machine((int(rng.integers(5, 7)), int(rng.integers(5, 7))), torus=True)
        elif i % 3 == 1:
            m = Machine((3, 3, 3), torus=(True, True, False))
        else:
            G = nx.connected_watts_strogatz_graph(24, 4, 0.3, seed=int(rng.integers(1 << 30)))
            m = Machine.from_graph(G)
        cases.append((_busy(m, rng, int(rng.integers(20, 23))), int(rng.integers(6, 8))))
    return cases


@pytest.mark.parametrize("case", range(12))
def test_exact_cut_loop_equals_brute(case):
    m, k = _cut_loop_cases()[case]
    opt = solve(m, k, method="brute").objective  # enumeration, checked against plain loops in test_metric.py
    r = solve(m, k, method="exact", profiles=False)
    assert r.extra["phase"] in ("bounds", "cuts", "stalled", "branch")
    assert r.status == "optimal" and r.termination == "optimal"
    assert r.objective == pytest.approx(opt, abs=1e-9)
    assert r.bound <= opt + TOL
    assert set(r.indices.tolist()) <= set(m.free_ids().tolist())
    assert r.objective == pytest.approx(sum(m.distance(a, b) for a, b in itertools.combinations(r.indices, 2)))


def test_exact_under_a_time_limit_brackets_the_optimum():
    rng = np.random.default_rng(11)
    m = _busy(Machine((7, 6), torus=True), rng, 30)
    k = 10
    r = solve(m, k, method="exact", time_limit=0.05)
    ref = solve(m, k, method="exact")
    assert ref.status == "optimal"
    assert r.bound <= ref.objective + TOL <= r.objective + 2 * TOL
    assert r.termination in ("optimal", "time_limit")


def test_exact_and_pairwise_agree():
    rng = np.random.default_rng(5)
    m = _busy(Machine((5, 5), torus=True), rng, 16)
    a = solve(m, 6, method="exact")
    b = solve(m, 6, method="exact", formulation="pairwise")
    assert a.objective == b.objective == matrix_optimum(machine_problem(m, 6).D, 6)


def test_exact_rejects_a_bad_formulation_and_gap():
    m = Machine((4, 4), torus=True)
    with pytest.raises(ValueError, match="formulation"):
        solve(m, 3, method="exact", formulation="glover")
    with pytest.raises(ValueError, match="rel_gap"):
        solve(m, 3, method="exact", rel_gap=1.5)


def test_exact_with_the_star_beside_equals_brute(monkeypatch):
    """The star bound beside the searches and the LP (from 100 candidates
    on; here on every instance) keeps every answer optimal, and closes
    some of them first."""
    from optalloc.ksubset.engine import _metric as _metricexact
    from optalloc.ksubset.engine._star import star_bound

    monkeypatch.setattr(_metricexact, "_STAR_FROM", 0)
    closes = 0
    for m, k in _cut_loop_cases():
        opt = solve(m, k, method="brute").objective
        r = solve(m, k, method="exact")
        assert r.status == "optimal" and r.objective == pytest.approx(opt, abs=1e-9)
        assert r.bound <= opt + TOL
        # which of the racing bounds proves first depends on the machine's load; the star alone, unraced:
        ids = np.flatnonzero(m.free)
        star = star_bound(m.distances(ids), k, upper=opt, integral=True).value  # integer distances here
        assert star <= opt + TOL
        closes += star > opt - 1  # above opt - 1: proves an integer optimum
    assert closes >= 2
