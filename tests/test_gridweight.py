"""W of grid points from sorted axes against every pair, on meshes and tori."""

import itertools

import numpy as np

from optalloc._gridweight import axis_pair_sum, grid_weight


def _pairs(c, L, wrap):
    total = 0
    for i, j in itertools.combinations(range(len(c)), 2):
        g = np.abs(c[i] - c[j])
        total += int(np.where(wrap, np.minimum(g, L - g), g).sum())
    return total


def test_grid_weight_is_the_sum_over_pairs():
    rng = np.random.default_rng(0)
    for _ in range(1000):
        d = int(rng.integers(1, 4))
        L = rng.integers(1, 9, size=d)
        wrap = rng.random(d) < 0.6
        n = int(np.prod(L))
        k = int(rng.integers(1, min(n, 12) + 1))
        c = np.stack(np.unravel_index(rng.choice(n, k, replace=False), tuple(L)), axis=1)
        assert grid_weight(c, L, wrap) == _pairs(c, L, wrap)


def test_half_way_round_counts_either_way():
    assert axis_pair_sum([0, 4], 8, True) == 4 == axis_pair_sum([0, 4], 8, False)
    assert axis_pair_sum([0, 5], 8, True) == 3
