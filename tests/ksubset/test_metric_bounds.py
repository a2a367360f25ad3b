"""metric_lower_bound and gap on tori and networks, against brute force.

Ground truth: every bound of ``metric_lower_bound`` is at most the brute
force optimum on random small tori (2D and 3D, random free sets), random
connected graphs (hop and weighted lengths), and machines with several
processors per node (distance 0 within a node); ``gap`` on a Machine
brackets the brute-force optimum.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ksubset_truth import connected_gnp

from optalloc.ksubset import gap, metric_lower_bound, solve
from optalloc.machine import Machine, processors_per_node


def _random_free(machine, rng, share=0.6):
    busy = rng.random(machine.size) > share
    if machine.size - busy.sum() < 2:
        busy[:] = False
    if busy.any():
        machine.allocate(np.flatnonzero(busy), owner=-2)
    return machine


def _random_graph(rng, n, weighted):
    G = connected_gnp(rng, n, 0.35)
    if weighted:
        for u, v in G.edges:
            G.edges[u, v]["length"] = float(rng.integers(1, 5))
    return Machine.from_graph(G, weight="length" if weighted else None)


def _machines(seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(12):
        shape = tuple(int(s) for s in rng.integers(2, 6, size=int(rng.integers(2, 4))))
        if math.prod(shape) > 40:
            shape = shape[:2]
        out.append(_random_free(Machine(shape, torus=True), rng))
    for _ in range(10):
        out.append(_random_free(_random_graph(rng, int(rng.integers(5, 12)), bool(rng.integers(2))), rng))
    for _ in range(6):
        base = Machine((int(rng.integers(2, 5)), 2), torus=bool(rng.integers(2)))
        out.append(_random_free(processors_per_node(base, rng.integers(1, 4, size=base.size).tolist()), rng))
    return rng, out


@pytest.mark.parametrize("seed", [0, 1])
def test_every_metric_bound_is_at_most_brute_force(seed):
    rng, machines = _machines(seed)
    checked = 0
    for m in machines:
        n = m.n_free
        for k in sorted({2, 3, int(rng.integers(2, n + 1)), n}):
            if k > n or math.comb(n, k) > 20000:
                continue
            opt = solve(m, k, method="brute").objective
            bounds = metric_lower_bound(m, k)
            for name, b in bounds.items():
                assert b <= opt + 1e-9, (m.describe(), k, name, b, opt)
            assert metric_lower_bound(m, k, quick=True) == {"neighbour": bounds["neighbour"]}
            checked += 1
    assert checked > 40


def test_zero_distances_give_a_zero_aware_bound():
    m = processors_per_node(Machine(3), [4, 1, 1])  # four processors at distance 0
    b = metric_lower_bound(m, 4)
    assert solve(m, 4, method="brute").objective == 0.0
    assert max(b.values()) == 0.0


def test_the_town_bound_would_be_wrong_on_a_torus():
    """Why the L1 bounds are not used on tori: a full 3x3 torus has W below
    the optimal town of 9 lattice points (72)."""
    m = Machine((3, 3), torus=True)
    opt = solve(m, 9, method="brute").objective
    assert opt < 72
    assert max(metric_lower_bound(m, 9).values()) <= opt


def test_gap_on_a_torus_and_a_network_brackets_brute_force():
    rng, machines = _machines(5)
    for m in machines[::3]:
        n = m.n_free
        k = min(n, 4)
        chosen = rng.choice(m.free_ids(), size=k, replace=False)
        opt = solve(m, k, method="brute").objective
        for limit in (10**9, 1):  # brute force, then the exact solver and the metric bounds
            rep = gap(m, chosen, brute_limit=limit, time_limit=20)
            assert rep.lower <= opt + 1e-9 <= rep.upper + 2e-9
            assert rep.objective == pytest.approx(m.distances(chosen).sum() / 2)
            assert rep.ratio_max >= 1 - 1e-9
            assert rep.metric == m.kind and rep.machine == m.describe()


def test_gap_on_a_mesh_machine_is_the_point_gap():
    m = Machine((4, 4))
    rep = gap(m, [0, 1, 15])
    pts = m.free_points()
    assert rep.metric == "l1" and rep.objective == gap(pts, [0, 1, 15]).objective


def test_gap_on_a_machine_refuses_busy_nodes():
    m = Machine((4, 4), torus=True)
    m.allocate([3], owner=1)
    with pytest.raises(ValueError, match="node 3, which is not free"):
        gap(m, [0, 3])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_property_bounds_at_most_the_optimum_and_gen_alg_within_its_factor(data):
    """Random small tori (wrap per axis) and machines with several processors
    per node: every bound <= OPT <= Gen-Alg's W <= (2 - 2/k) OPT."""
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    assume(2 <= math.prod(shape) <= 30)
    torus = tuple(data.draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape))))
    m = Machine(shape, torus=torus)
    if data.draw(st.booleans()):
        m = processors_per_node(m, data.draw(st.lists(st.integers(1, 3), min_size=m.size, max_size=m.size)))
        assume(m.size <= 30)
    busy = data.draw(st.lists(st.booleans(), min_size=m.size, max_size=m.size))
    if 0 < sum(busy) < m.size - 1:
        m.allocate(np.flatnonzero(busy), owner=-2)
    n = m.n_free
    k = data.draw(st.integers(1, n))
    assume(math.comb(n, k) <= 20000)
    opt = solve(m, k, method="brute").objective
    for name, b in metric_lower_bound(m, k).items():
        assert b <= opt + 1e-9, (m.describe(), k, name, b, opt)
    ga = solve(m, k, method="gen-alg").objective
    assert opt - 1e-9 <= ga <= (2 - 2 / k if k > 2 else 1) * opt + 1e-9
