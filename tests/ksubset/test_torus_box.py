"""The optimum of an idle 3D torus (plane partitions scored on rings), against brute force.

:func:`torus_cuboid_optimum` must equal the least W over every k-subset of
the idle machine (small rings, each axis wrapped or not) and return a set
of that W; as a lower bound it must never exceed the optimum of a random
state of that machine; and the exact solver that reads it must match
brute force on small 3D tori, including states whose optimum wraps.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from ksubset_truth import matrix_optimum

from optalloc.ksubset import solve
from optalloc.ksubset._metric import machine_problem
from optalloc.ksubset.search._cuboid import torus_cuboid_optimum
from optalloc.machine import Machine


def _torus_distances(sides, wrap):
    """Every node of the box and the machine distance between them, written out."""
    cells = np.array(list(itertools.product(*(range(s) for s in sides))))
    dist = np.zeros((len(cells), len(cells)))
    for a, (side, w) in enumerate(zip(sides, wrap, strict=True)):
        gap = np.abs(cells[:, a][:, None] - cells[:, a][None, :])
        dist += np.minimum(gap, side - gap) if w else gap
    return cells, dist


SIDES = [(3, 3, 3), (4, 3, 3), (4, 4, 2), (5, 3, 2), (4, 4, 3), (6, 3, 2), (5, 5, 2)]
WRAPS = [(True, True, True), (True, False, True), (False, True, False)]
CASES = [(sides, wrap, k) for sides in SIDES for wrap in WRAPS for k in range(1, 7)
         if math.comb(math.prod(sides), k) <= 120_000]


@pytest.mark.parametrize(("sides", "wrap", "k"), CASES)
def test_idle_torus_optimum_equals_enumeration(sides, wrap, k):
    cells, dist = _torus_distances(sides, wrap)
    value, best = torus_cuboid_optimum(sides, wrap, k)
    assert value == matrix_optimum(dist, k)
    # the set returned: k distinct nodes of the machine costing the value
    rows = [int(np.flatnonzero((cells == c).all(axis=1))[0]) for c in best.tolist()]
    assert len(set(rows)) == k
    assert dist[np.ix_(rows, rows)].sum() / 2 == value


@pytest.mark.parametrize("seed", range(4))
def test_idle_optimum_bounds_every_state(seed):
    # the free nodes are among all nodes: the idle optimum is at most the optimum of any state
    rng = np.random.default_rng(seed)
    for _ in range(60):
        sides = SIDES[int(rng.integers(len(SIDES)))]
        wrap = WRAPS[int(rng.integers(len(WRAPS)))]
        cells, dist = _torus_distances(sides, wrap)
        n_free = int(rng.integers(4, min(16, len(cells)) + 1))
        free = np.sort(rng.choice(len(cells), n_free, replace=False))
        k = int(rng.integers(2, min(5, n_free) + 1))
        value, _ = torus_cuboid_optimum(sides, wrap, k)
        assert value <= matrix_optimum(dist[np.ix_(free, free)], k)


def test_exact_on_small_3d_tori_matches_brute_force():
    # the solver reads the idle optimum as a bound and moves its set into the free nodes
    rng = np.random.default_rng(7)
    wrapped = 0
    for trial in range(40):
        sides = [(3, 3, 3), (4, 4, 3), (4, 3, 3)][trial % 3]
        m = Machine(sides, torus=True)
        n_free = int(rng.integers(16, m.n + 1))
        busy = np.sort(rng.choice(m.n, m.n - n_free, replace=False))
        if len(busy):
            m.allocate(busy)
        k = int(rng.integers(4, 7))
        r = solve(m, k, method="exact")
        inst = machine_problem(m, k)
        truth = matrix_optimum(inst.D, k)
        assert r.status == "optimal"
        assert r.objective == truth and r.bound <= truth
        # does the optimal set use the wrap (a pair whose ring distance is shorter than the line's)?
        pts = np.asarray(m.coords)[r.indices]
        gap = np.abs(pts[:, None, :] - pts[None, :, :])
        wrapped += bool((gap > np.array(sides) - gap).any())
    assert wrapped > 0


def test_eight_cube_torus_matches_the_mesh_when_sets_fit_in_half_rings():
    # at k = 16 an optimal set fits in 5 consecutive positions of each 8-ring: the torus and mesh optima agree
    value, cells = torus_cuboid_optimum((8, 8, 8), (True, True, True), 16, nodes=100_000)
    assert value == 278.0 and len(np.unique(cells, axis=0)) == 16


def test_exact_on_a_3d_machine_with_one_line_axis_matches_brute_force():
    # the idle optimum's set moves along the line axis inside the box, around the rings elsewhere
    rng = np.random.default_rng(3)
    by_bounds = 0
    for trial in range(12):
        m = Machine((4, 3, 3), torus=(True, False, True))
        if trial % 3:
            m.allocate(np.sort(rng.choice(m.n, int(rng.integers(1, 12)), replace=False)))
        k = int(rng.integers(4, 7))
        r = solve(m, k, method="exact")
        truth = matrix_optimum(machine_problem(m, k).D, k)
        assert r.status == "optimal" and r.objective == truth and r.bound <= truth
        by_bounds += r.extra["phase"] == "bounds"
    assert by_bounds > 0  # some are proven by the idle optimum's set found free


def test_metric_lower_bound_reports_the_idle_optimum_on_3d_tori():
    from optalloc.ksubset import metric_lower_bound

    rng = np.random.default_rng(11)
    for trial in range(10):
        m = Machine((4, 3, 3), torus=(True, bool(trial % 2), True))
        m.allocate(np.sort(rng.choice(m.n, int(rng.integers(0, 14)), replace=False)))
        k = int(rng.integers(3, 6))
        bounds = metric_lower_bound(m, k)
        assert bounds["box"] <= matrix_optimum(machine_problem(m, k).D, k)
    assert "box" not in metric_lower_bound(Machine((4, 4), torus=True), 5)  # 2D: the partition bound instead
