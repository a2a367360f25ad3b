"""MC1x1 on a torus, every centre's W against brute force: the set of each
free centre by its definition (the k free nodes nearest by torus
L-infinity distance, then torus L1, then node id) and its W in the torus
metric, whichever way the kernel walks the last shell (from its near end,
adding the cells taken, or from its far end, removing those left out)."""

from __future__ import annotations

import numpy as np
import pytest

from optalloc.ksubset.heuristics import _mctorus
from optalloc.machine import Machine


def centre_sets(m, k):
    """Per free centre (ascending id): its set by the definition and its W."""
    coords = m.coords.astype(np.int64)
    shape = np.array(m.shape)
    ids = m.free_ids()
    diff = np.abs(coords[ids][:, None, :] - coords[ids][None, :, :])
    wrap = np.array(m.torus)
    diff = np.where(wrap, np.minimum(diff, shape - diff), diff)
    linf, l1 = diff.max(axis=2), diff.sum(axis=2)
    sets, weights = [], []
    for i in range(len(ids)):
        order = np.lexsort((ids, l1[i], linf[i]))[:k]
        sets.append(np.sort(ids[order]))
        weights.append(int(l1[np.ix_(order, order)].sum()) // 2)
    return sets, np.array(weights)


def random_state(rng):
    d = int(rng.integers(1, 4))
    top = {1: 30, 2: 12, 3: 7}[d]
    shape = tuple(int(s) for s in rng.integers(1, top + 1, size=d))
    wrap = tuple(bool(b) for b in rng.integers(0, 2, size=d))
    if not any(wrap):
        wrap = (True,) + wrap[1:]
    m = Machine(shape, torus=wrap)
    busy = np.flatnonzero(rng.random(m.n) > rng.uniform(0.1, 1.0))
    if len(busy) == m.n:
        busy = busy[1:]
    if len(busy):
        m.allocate(busy)
    return m, int(rng.integers(1, m.n_free + 1))


@pytest.mark.parametrize("seed", range(4))
def test_every_centre_either_way_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        m, k = random_state(rng)
        grid = np.asarray(m.free).reshape(m.shape, order="F")
        sets, weights = centre_sets(m, k)
        for far in (None, False, True):
            node, W, _, make_set = _mctorus.centre_weights(grid, m.torus, k, far=far)
            assert node.tolist() == m.free_ids().tolist()
            assert W.tolist() == weights.tolist(), (m, k, far)
        for i in {0, len(node) - 1, int(np.argmin(W)), int(rng.integers(len(node)))}:
            assert make_set(i).tolist() == sets[i].tolist(), (m, k, i)


def test_a_seam_inside_the_last_group_either_way():
    """Even rings of 8 to 12 on three axes, k chosen so that the last group
    is cut and the windows wrap: the smallest ids are kept (from the near
    end) or the largest left out (from the far end)."""
    rng = np.random.default_rng(5)
    for side in (8, 9, 10, 12):
        m = Machine((side, side, side), torus=True)
        m.allocate(np.flatnonzero(rng.random(m.n) < 0.3))
        grid = np.asarray(m.free).reshape(m.shape, order="F")
        for k in (5, 17, 40, 111):
            _, weights = centre_sets(m, k)
            for far in (False, True):
                assert _mctorus.centre_weights(grid, m.torus, k, far=far)[1].tolist() == weights.tolist()
