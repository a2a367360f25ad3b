"""The swap descent of MM+Inc on a grid against a dense descent over the
distance matrix, step by step.

The oracle below is the straightforward best-improvement descent: every
chosen i against every unchosen j, ``delta = s(j) - s(i) - d(i, j)`` from
the machine's own distance matrix (wrap distances on a torus), the least
delta, then the lowest i, then the lowest j, while delta < -tol.  The grid
version must give the same rows and the same number of swaps on random
meshes and tori of one to three axes, from random starts, with and
without a limit on the swaps, tol fixed at the first step or not, and
with the exact tol (max over every point) read at every size.
"""

from __future__ import annotations

import numpy as np
import pytest
from ksubset_states import occupy_at_random

from optalloc.ksubset.heuristics.centres import _centres, _descent
from optalloc.machine import Machine


def _dense_descent(D, chosen, max_swaps, tol_once):
    n = len(D)
    inside = np.zeros(n, dtype=bool)
    inside[chosen] = True
    swaps = 0
    tol = None
    while max_swaps < 0 or swaps < max_swaps:
        cin, cout = np.flatnonzero(inside), np.flatnonzero(~inside)
        if len(cout) == 0 or len(cin) == 0:
            break
        s = D[:, cin].sum(axis=1)
        if tol is None or not tol_once:
            tol = 1e-9 * max(1.0, float(s.max()))
        delta = s[cout][None, :] - s[cin][:, None] - D[np.ix_(cin, cout)]
        flat = int(np.argmin(delta))  # row-major: the lowest i, then the lowest j
        if delta.flat[flat] >= -tol:
            break
        inside[cin[flat // len(cout)]] = False
        inside[cout[flat % len(cout)]] = True
        swaps += 1
    return np.flatnonzero(inside), swaps


def _state(rng):
    d = int(rng.integers(1, 4))
    top = {1: 25, 2: 8, 3: 5}[d]
    shape = tuple(int(s) for s in rng.integers(1, top + 1, size=d))
    torus = tuple(bool(t) for t in rng.integers(0, 2, size=d))
    m = Machine(shape, torus=torus)
    occupy_at_random(m, rng, 0.8)
    return m


def _check(seed, states):
    rng = np.random.default_rng(seed)
    for _ in range(states):
        m = _state(rng)
        grid = _centres.torus_grid(m.free_points(), (m.shape, m.torus))
        D = np.asarray(m.distances(m.free_ids()), dtype=np.int64)
        k = int(rng.integers(1, grid.n + 1))
        start = np.sort(rng.choice(grid.n, k, replace=False))
        limit = int(rng.choice([-1, 1, 2, 5]))
        tol_once = bool(rng.integers(0, 2))
        want = _dense_descent(D, start, limit, tol_once)
        for exact_from in (10 ** 9, 0):  # tol from the bound, and from every point's s
            inside = np.zeros(grid.n, dtype=np.bool_)
            inside[start] = True
            swaps = _descent.grid_descent(grid.co, grid.L, grid.wrap, inside, limit, tol_once, exact_from)
            got = np.flatnonzero(inside)
            assert got.tolist() == want[0].tolist() and swaps == want[1], (m.shape, m.torus, k, limit)


def test_descent_matches_the_dense_one():
    _check(0, 400)


@pytest.mark.slow
def test_descent_matches_the_dense_one_on_thousands_of_states():
    _check(1, 4000)


def test_descent_from_an_mm_set_on_a_large_torus():
    """From MM's set on a 12x12x12 torus at half load: the same local
    minimum and swaps as the dense descent."""
    m = Machine((12, 12, 12), torus=True)
    rng = np.random.default_rng(3)
    m.allocate(np.sort(rng.choice(m.n, m.n // 2, replace=False)))
    grid = _centres.torus_grid(m.free_points(), (m.shape, m.torus))
    rows, _, _, _ = _centres._mm_torus_rows(grid, 120)
    D = np.asarray(m.distances(m.free_ids()), dtype=np.int64)
    want = _dense_descent(D, rows, -1, True)
    got = _centres.grid_swap(grid, rows, tol_once=True)
    assert got[0].tolist() == want[0].tolist() and got[1] == want[1]
    assert want[1] > 0
