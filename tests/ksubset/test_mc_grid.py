"""MC1x1 from prefix sums over the occupancy grid against today's dense
implementations (``optalloc.bench.scale._mc``, the oracle): the same set,
W, score, tie count, centre and tie-breaking parts on random meshes and
tori of one to three axes; the bounds against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ksubset_states import random_wrapped

from optalloc.bench.scale._mc import baseline_machine, baseline_mc1x1
from optalloc.ksubset import brute, mc1x1, solve
from optalloc.ksubset.heuristics.mc import _mc, _mctorus
from optalloc.machine import Machine


def random_mesh(rng, *, big=False):
    """Free cells (in random input order), the shape, k and options."""
    d = int(rng.integers(1, 4))
    top = {1: 40, 2: 30, 3: 12} if big else {1: 25, 2: 9, 3: 6}
    shape = tuple(int(s) for s in rng.integers(1, top[d] + 1, size=d))
    n = int(np.prod(shape))
    cells = np.stack(np.unravel_index(np.arange(n), shape), axis=1)
    keep = rng.random(n) < rng.uniform(0.1, 1.0)
    if not keep.any():
        keep[rng.integers(n)] = True
    pts = cells[keep][rng.permutation(int(keep.sum()))]
    k = int(rng.integers(1, len(pts) + 1))
    opts = {}
    u = rng.random()
    if u < 0.3:
        opts["tie_break"] = "default"
    elif u < 0.45:
        opts["tie_break"] = (int(rng.integers(0, 4)), float(rng.integers(-5, 20)), float(rng.integers(-5, 25)),
                             float(rng.integers(-5, 10)))
    if rng.random() < 0.3:
        opts["request"] = tuple(int(x) for x in rng.integers(1, 4, size=d))
    return pts, shape, k, opts


def same_mesh(pts, shape, k, opts, *, bound=True):
    ours = mc1x1(pts, k, shape=shape, **opts)
    theirs = baseline_mc1x1(pts, k, shape=shape, **opts)
    assert ours.indices.tolist() == theirs.indices.tolist(), (shape, k, opts)
    assert ours.objective == theirs.objective
    assert ours.extra == theirs.extra
    assert ours.guarantee == theirs.guarantee
    if bound:
        assert ours.bound == theirs.bound
    return ours


def random_torus(rng, *, big=False):
    return random_wrapped(rng, {1: 40, 2: 20, 3: 9} if big else {1: 20, 2: 8, 3: 5})


def same_torus(m, k):
    ours = solve(m, k, method="mc1x1")
    theirs = baseline_machine(m, k)
    assert ours.indices.tolist() == theirs.indices.tolist(), (m, k)
    assert ours.objective == theirs.objective
    assert ours.guarantee == theirs.guarantee
    assert ours.extra == theirs.extra
    return ours, theirs


@pytest.mark.parametrize("seed", range(3))
def test_mesh_matches_the_dense_version(seed):
    rng = np.random.default_rng(seed)
    for _ in range(100):
        same_mesh(*random_mesh(rng))


@pytest.mark.parametrize("seed", range(2))
def test_sparse_mesh_path_matches_the_dense_version(seed, monkeypatch):
    """The path for a few points on a large mesh (every pair, no grid)."""
    monkeypatch.setattr(_mc, "_GRID_MAX", 0.0)
    rng = np.random.default_rng(50 + seed)
    for _ in range(60):
        same_mesh(*random_mesh(rng))


def test_few_points_on_a_huge_mesh():
    """A few points spread over a mesh of 3e11 cells: the pairs, no grid."""
    pts = np.array([[0, 0, 0], [1, 0, 0], [5000, 7000, 9000], [5000, 7001, 9000], [0, 1, 0]])
    shape = (5001, 7002, 9001)
    same_mesh(pts, shape, 3, {})
    r = mc1x1(pts, 3, shape=shape, tie_break="default")
    assert r.indices.tolist() == [0, 1, 4] and r.extra["n_tied"] == 3


@pytest.mark.parametrize("seed", range(2))
def test_torus_matches_the_dense_version(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(60):
        ours, theirs = same_torus(*random_torus(rng))
        assert ours.bound == theirs.bound  # at most SMALL free nodes: the bound of before


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_many_states_match_the_dense_version(seed):
    rng = np.random.default_rng(1000 + seed)
    for _ in range(200):
        same_mesh(*random_mesh(rng))
        same_torus(*random_torus(rng))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_mc, "_GRID_MAX", 0.0)
        for _ in range(100):
            same_mesh(*random_mesh(rng))
    for _ in range(20):  # beyond SMALL free nodes: the near-linear bounds
        pts, shape, k, opts = random_mesh(rng, big=True)
        same_mesh(pts, shape, k, opts, bound=len(pts) <= _mctorus.SMALL)
        same_torus(*random_torus(rng, big=True))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), torus=st.booleans())
def test_random_states(seed, torus):
    rng = np.random.default_rng(seed)
    if torus:
        same_torus(*random_torus(rng))
    else:
        same_mesh(*random_mesh(rng))


@pytest.mark.parametrize("shape", [(34, 34), (10, 10, 12)])
def test_half_free_machines_beyond_small(shape):
    """Half free with more than SMALL free nodes: the same set as before,
    and a bound between W / guarantee and W."""
    rng = np.random.default_rng(7)
    for torus in (False, True):
        m = Machine(shape, torus=torus)
        m.allocate(np.sort(rng.choice(m.n, m.n // 2, replace=False)))
        assert m.n_free > _mctorus.SMALL
        k = 64
        if torus:
            ours, _ = same_torus(m, k)
        else:
            ours = same_mesh(m.free_points(), shape, k, {}, bound=False)
        assert ours.objective / ours.guarantee <= ours.bound <= ours.objective


@pytest.mark.parametrize("torus", [False, True])
def test_bounds_hold_against_brute_force(torus, monkeypatch):
    """The near-linear bounds (half the k least MC scores, the town value,
    W / guarantee), forced on small instances, never exceed the optimum:
    L1 on a mesh, the torus distance on a torus."""
    monkeypatch.setattr(_mc, "SMALL", 0)
    monkeypatch.setattr(_mctorus, "SMALL", 0)
    rng = np.random.default_rng(11)
    for _ in range(40):
        shape = tuple(int(s) for s in rng.integers(2, 5, size=int(rng.integers(1, 4))))
        m = Machine(shape, torus=torus)
        free = rng.random(m.n) < 0.6
        if free.sum() < 2:
            continue
        m.allocate(np.flatnonzero(~free))
        k = int(rng.integers(2, min(6, m.n_free) + 1))
        if torus:
            r, best = solve(m, k, method="mc1x1"), solve(m, k, method="brute").objective
        else:
            r = mc1x1(m.free_points(), k, shape=shape, request=(2,) * len(shape) if rng.random() < 0.3 else None)
            best = brute(m.free_points(), k).objective
        assert r.bound <= best + 1e-9


def test_torus_decision_builds_no_distance_matrix(monkeypatch):
    m = Machine((12, 12, 12), torus=True)
    m.allocate(np.arange(0, m.n, 2))

    def refuse(*args, **kwargs):
        raise AssertionError("a distance matrix was built")

    monkeypatch.setattr(Machine, "distances", refuse)
    r = solve(m, 100, method="mc1x1")
    assert len(r.indices) == 100 and r.extra["centres"] == m.n_free


def test_torus_k_out_of_range_is_one_line():
    m = Machine((4, 4), torus=True)
    with pytest.raises(ValueError, match="between 1 and the number of free nodes"):
        solve(m, 17, method="mc1x1")
