"""Gen-Alg, MM and MM+Inc on grids against the dense versions they replaced.

The oracle is :mod:`optalloc.bench.scale._centres` (the straightforward
dense implementations, kept as they were): on random meshes and tori of
1 to 3 axes with random free sets and random k, the grid versions choose
the same indices with the same W and ``extra`` (the tie rules included),
and their bounds never exceed the optimum (brute force).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ksubset_states import occupy_at_random

from optalloc.bench.scale._centres import gen_alg_dense, mm_dense, mm_inc_dense, swap_descent_dense, torus_dense
from optalloc.ksubset import gen_alg, mm, mm_inc, solve
from optalloc.ksubset.heuristics.centres._median import swap_descent
from optalloc.machine import Machine


def _state(rng, *, small=False):
    d = int(rng.integers(1, 4))
    top = {1: 30, 2: 9, 3: 5}[d] if not small else {1: 10, 2: 4, 3: 3}[d]
    shape = tuple(int(s) for s in rng.integers(1, top + 1, size=d))
    torus = tuple(bool(t) for t in rng.integers(0, 2, size=d))
    m = Machine(shape, torus=torus)
    occupy_at_random(m, rng, 1.0)
    return m, int(rng.integers(1, m.n_free + 1))


def _same_mesh(pts, k, descents=0):
    for ours, dense in ((gen_alg(pts, k, descents=descents), gen_alg_dense(pts, k, descents=descents)),
                        (mm(pts, k), mm_dense(pts, k)), (mm_inc(pts, k), mm_inc_dense(pts, k))):
        assert ours.indices.tolist() == dense.indices.tolist(), (ours.method, pts.tolist(), k)
        assert ours.objective == dense.objective
        assert ours.extra == dense.extra
        assert dense.bound - 1e-9 <= ours.bound <= ours.objective


def _same_torus(m, k):
    for method in ("gen-alg", "mm", "mm-inc"):
        ours, dense = solve(m, k, method=method), torus_dense(m, k, method)
        assert ours.indices.tolist() == dense.indices.tolist(), (method, m.shape, m.torus, k)
        assert ours.objective == dense.objective
        assert ours.extra == dense.extra
        assert dense.bound - 1e-9 <= ours.bound <= ours.objective


def _run(seed, states):
    rng = np.random.default_rng(seed)
    for _ in range(states):
        m, k = _state(rng)
        if any(m.torus):
            _same_torus(m, k)
        else:
            _same_mesh(np.asarray(m.free_points(), dtype=float), k, descents=int(rng.integers(0, 3)))


def test_grid_versions_choose_the_dense_sets():
    _run(0, 300)


def test_one_node_sets_are_the_dense_ones():
    # k = 1 is answered without scoring the centres: the dense versions' set, W, bound and extra all the same
    rng = np.random.default_rng(5)
    for _ in range(60):
        m, _ = _state(rng)
        if any(m.torus):
            _same_torus(m, 1)
        else:
            _same_mesh(np.asarray(m.free_points(), dtype=float), 1, descents=int(rng.integers(0, 3)))


@pytest.mark.slow
def test_grid_versions_choose_the_dense_sets_on_thousands_of_states():
    _run(1, 3000)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(-4, 4), st.integers(-3, 3)), min_size=1, max_size=30, unique=True),
       st.randoms(use_true_random=False), st.integers(0, 2))
def test_points_in_any_order_and_place(cells, rnd, descents):
    """Points in any input order (the ties go by input row), off the origin."""
    pts = np.array(cells, dtype=float)
    k = rnd.randint(1, len(pts))
    _same_mesh(pts, k, descents)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=25, unique=True), st.randoms(use_true_random=False))
def test_points_on_a_line(values, rnd):
    pts = np.array(values, dtype=float)[:, None]
    _same_mesh(pts, rnd.randint(1, len(pts)))


def test_swap_descent_matches_the_dense_one_step_by_step():
    rng = np.random.default_rng(5)
    for _ in range(40):
        m, k = _state(rng)
        pts = np.asarray(m.free_points(), dtype=float)
        start = np.sort(rng.choice(len(pts), k, replace=False))
        for limit in (1, 2, None):
            ours = swap_descent(pts, start, max_swaps=limit)
            dense = swap_descent_dense(pts, start, limit)
            assert ours[0].tolist() == dense[0].tolist() and ours[1] == dense[1]


def _opt_mesh(pts, k):
    return min(sum(np.abs(pts[i] - pts[j]).sum() for i, j in itertools.combinations(s, 2))
               for s in itertools.combinations(range(len(pts)), k))


def test_bounds_never_exceed_the_optimum():
    rng = np.random.default_rng(7)
    for _ in range(60):
        m, k = _state(rng, small=True)
        if m.n_free > 10:
            continue
        if any(m.torus):
            D = m.distances(m.free_ids())
            opt = min(D[np.ix_(s, s)].sum() / 2 for s in map(list, itertools.combinations(range(len(D)), k)))
            results = [solve(m, k, method=x) for x in ("gen-alg", "mm", "mm-inc")]
        else:
            pts = np.asarray(m.free_points(), dtype=float)
            opt = _opt_mesh(pts, k)
            results = [gen_alg(pts, k), mm(pts, k), mm_inc(pts, k)]
        for r in results:
            assert r.bound <= opt + 1e-9 <= r.objective + 1e-9, (r.method, m.shape, m.torus, k)


def test_no_distance_matrix_on_a_torus(monkeypatch):
    """solve on a torus never asks the machine for its distances."""
    m = Machine((12, 12, 12), torus=True)
    m.allocate(np.arange(0, m.n, 2))

    def refuse(*args, **kwargs):
        raise AssertionError("a distance matrix was built")

    monkeypatch.setattr(Machine, "distances", refuse)
    for method in ("gen-alg", "mm", "mm-inc"):
        assert len(solve(m, 40, method=method).indices) == 40


@pytest.mark.parametrize("pts", [
    [[0.5, 0], [1, 0], [0, 2], [3, 3], [1, 1]],  # not integers
    [[0, 0], [0, 0], [1, 0], [2, 2], [0, 1]],  # a point repeated
    [[0, 0], [1000, 0], [0, 1000], [3, 7], [1, 1]],  # a box of a million cells for five points
    [[0, 0, 0, 0], [1, 0, 0, 1], [0, 1, 1, 0], [2, 2, 2, 2], [1, 1, 0, 0]],  # four axes
])
def test_points_off_the_grid_take_the_dense_path(pts):
    pts = np.array(pts, dtype=float)
    for k in (2, 3, 5):
        _same_mesh(pts, k, descents=1)
