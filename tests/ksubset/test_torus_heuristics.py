"""MM, MM+Inc and MC1x1 on tori: their guarantees against brute force.

The guarantees that survive the wrap (see :mod:`optalloc.ksubset`): MM and
MM+Inc 2 - 2/k, MC1x1 d (2 - 2/k); checked on random 2D and 3D tori (some
axes wrapped) with random busy nodes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.ksubset import solve
from optalloc.machine import Machine, parse_machine

TOL = 1e-9


def _opt(m, k):
    D = m.distances(m.free_ids())
    return min(D[np.ix_(s, s)].sum() / 2 for s in map(list, itertools.combinations(range(len(D)), k)))


def _torus(rng):
    d = int(rng.integers(2, 4))
    shape = tuple(int(s) for s in rng.integers(3 if d == 2 else 2, 7 if d == 2 else 4, size=d))
    torus = tuple(bool(t) for t in rng.integers(0, 2, size=d))
    if not any(torus):
        torus = (True,) + torus[1:]
    m = Machine(shape, torus=torus)
    keep = int(rng.integers(2, min(12, m.n) + 1))
    busy = np.sort(rng.choice(m.n, size=m.n - keep, replace=False))
    if len(busy):
        m.allocate(busy)
    return m


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_guarantees_hold_on_random_tori(seed):
    rng = np.random.default_rng(seed)
    m = _torus(rng)
    k = int(rng.integers(1, min(7, m.n_free) + 1))
    opt = _opt(m, k)
    d = len(m.shape)
    free = set(m.free_ids().tolist())
    g = 1.0 if k <= 2 else 2 - 2 / k
    for method, guarantee in (("mm", g), ("mm-inc", g), ("mc1x1", d * g if k > 1 else 1.0)):
        r = solve(m, k, method=method)
        assert len(set(r.indices.tolist())) == k and set(r.indices.tolist()) <= free
        w = sum(m.distance(a, b) for a, b in itertools.combinations(r.indices.tolist(), 2))
        assert r.objective == pytest.approx(w)
        assert r.guarantee == pytest.approx(guarantee)
        assert opt - TOL <= r.objective <= guarantee * opt + TOL
        assert r.bound <= opt + TOL


def test_mm_inc_never_worse_than_mm():
    rng = np.random.default_rng(3)
    for _ in range(30):
        m = _torus(rng)
        k = int(rng.integers(2, m.n_free + 1))
        assert solve(m, k, method="mm-inc").objective <= solve(m, k, method="mm").objective + TOL


def test_mc1x1_takes_a_wrapped_cube_on_an_empty_torus():
    # 9 nodes of an empty 6x6 torus: a 3x3 block (W 36 per axis; optimal, see the slow test below)
    m = parse_machine("6x6 torus")
    r = solve(m, 9, method="mc1x1")
    assert r.objective == 72
    m.allocate(m.box_nodes((1, 1), (4, 4)))  # only the wrap rows/columns 0 and 5 stay free
    assert solve(m, 4, method="exact").objective == 8  # the 2x2 block {0, 5} x {0, 5}, across both wraps
    r = solve(m, 4, method="mc1x1")
    xy = m.coords[r.indices]
    assert r.objective == 9  # a T around a corner: its shell of L-inf radius 1 crosses the wrap
    assert {0, 5} <= set(xy[:, 0].tolist()) or {0, 5} <= set(xy[:, 1].tolist())
    assert solve(m, 4, method="mm-inc").objective == 8


def test_options_and_networks_are_refused_in_one_line():
    m = parse_machine("6x6 torus")
    with pytest.raises(ValueError, match="mesh only"):
        solve(m, 4, method="mc1x1", tie_break="default")
    net = Machine.from_graph(__import__("networkx").cycle_graph(6))
    with pytest.raises(ValueError, match="brute, exact, gen-alg"):
        solve(net, 3, method="mm")


@pytest.mark.slow
def test_a_block_is_optimal_on_an_idle_torus():
    m = parse_machine("6x6 torus")
    assert solve(m, 9, method="exact").objective == 72


def test_topologies_bench_quick_agrees():
    from optalloc.bench import run_bench

    (table,) = run_bench("topologies", quick=True)
    assert table.ok and len(table.rows) == 4
    assert [r.case.split(" (")[0] for r in table.rows] == ["exact, torus"] * 2 + ["exact, dragonfly"] * 2
    assert all(r.case.endswith("(optimal)") for r in table.rows)
