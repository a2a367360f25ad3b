"""The narrow and wide sets of a 2D torus, against brute force.

On hundreds of random small tori (rings of 3 to 7, random busy nodes),
:func:`narrow_search` must never prove a bound above the optimum, return
sets of the W it reports, and prove the optimum on most states (on small
rings a set of the unrolled cells that holds one node twice can tie with
the optimum and hide it; its W still bounds the narrow sets); the search
over counts restricted to the sets wide on x (``wide=True``) must return
the least W over exactly those sets, found here by enumeration, among
them states whose optimum wraps.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from optalloc.ksubset.search._narrow import narrow_search, unrolled
from optalloc.ksubset.search._torusprofile import torus_profile_search


def _state(rng):
    shape = tuple(int(s) for s in rng.integers(3, 8, size=2))
    torus = (True, bool(rng.integers(0, 2)))
    cells = np.array([(x, y) for x in range(shape[0]) for y in range(shape[1])])
    n_free = int(rng.integers(4, min(14, len(cells)) + 1))
    free = cells[np.sort(rng.choice(len(cells), n_free, replace=False))]
    k = int(rng.integers(3, min(6, n_free) + 1))
    return free, k, shape, torus


def _enumerate(free, k, shape, torus):
    """(W, wide on x) of every k-subset, written out."""
    out = []
    for sub in itertools.combinations(range(len(free)), k):
        pts = free[list(sub)]
        w = 0
        for a in range(2):
            gap = np.abs(pts[:, a][:, None] - pts[:, a][None, :])
            w += int((np.minimum(gap, shape[a] - gap) if torus[a] else gap).sum()) // 2
        used = sorted(set(pts[:, 0].tolist()))
        steps = [b - a for a, b in itertools.pairwise(used)] + [used[0] + shape[0] - used[-1]]
        out.append((w, max(steps) <= shape[0] - (shape[0] // 2 + 1)))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_narrow_search_is_exact(seed):
    rng = np.random.default_rng(seed)
    wrapped = proven = 0
    for _ in range(60):
        free, k, shape, torus = _state(rng)
        subsets = _enumerate(free, k, shape, torus)
        best = min(w for w, _ in subsets)
        value, rows, lower = narrow_search(free, k, shape, torus, best + 5)
        assert lower is not None and lower <= best <= value  # the bound never passes the optimum
        assert len(set(rows.tolist())) == k
        pts = free[rows]
        gap = np.abs(pts[:, None, :] - pts[None, :, :])
        ring = np.where(np.array(torus), np.minimum(gap, np.array(shape) - gap), gap)
        assert ring.sum() / 2 == value  # the set has the W reported
        proven += lower == value
        # with the optimum as the bound no set lies below it
        value, rows, lower = narrow_search(free, k, shape, torus, best)
        assert value is None and lower is not None and lower <= best
        wrapped += any(w == best and wide for w, wide in subsets)
    assert wrapped > 0  # some optima are wide: the second search is exercised
    assert proven >= 50


@pytest.mark.parametrize("seed", range(4))
def test_wide_search_finds_the_least_wide_set(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(60):
        free, k, shape, torus = _state(rng)
        wide = [w for w, is_wide in _enumerate(free, k, shape, torus) if is_wide]
        value, rows, lower = torus_profile_search(free, k, shape, torus, 10**6, wide=True)
        if not wide:
            assert value is None and lower == 10**6
            continue
        assert value == min(wide) and lower == min(wide)


def test_unrolled_cells_copy_the_first_half_of_each_ring():
    free = np.array([(0, 0), (3, 1), (1, 2)])
    cells, origin = unrolled(free, (4, 3), (True, False))
    # x: a 4-ring, its first 4 // 2 = 2 positions copied after it; y not wrapped
    assert sorted(map(tuple, cells.tolist())) == [(0, 0), (1, 2), (3, 1), (4, 0), (5, 2)]
    assert all((cells[i] % [4, 3] == free[origin[i]]).all() for i in range(len(cells)))
