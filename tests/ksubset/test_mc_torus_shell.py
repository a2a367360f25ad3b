"""MC1x1 on a torus, every centre's W against brute force: the set of each
free centre by its definition (the k free nodes nearest by torus
L-infinity distance, then torus L1, then node id) and its W in the torus
metric, whichever way the kernel walks the last shell (from its near end,
adding the cells taken, or from its far end, removing those left out);
and whole simulations against today's dense version."""

from __future__ import annotations

import numpy as np
import pytest
from ksubset_states import random_wrapped

from optalloc.bench.scale._mc import baseline_machine
from optalloc.ksubset.heuristics.mc import _mctorus
from optalloc.ksubset.heuristics.mc._mcshell import _axis_weight, section_piece
from optalloc.machine import Machine
from optalloc.sim import Allocator, KSubsetAllocator, lublin_workload, simulate


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
    return random_wrapped(rng, {1: 30, 2: 12, 3: 7})


@pytest.mark.parametrize("sections", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_every_centre_either_way_matches_brute_force(seed, sections, monkeypatch):
    """Slabs read from cross-sections (forced on these small machines) or
    counted with the prefix table."""
    monkeypatch.setattr(_mctorus, "SECTIONS_MIN", 0 if sections else 10**12)
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


def test_a_seam_inside_the_last_group_either_way(monkeypatch):
    """Rings of 8 to 12 on three axes, k chosen so that the last group
    is cut and the windows wrap: the smallest ids are kept (from the near
    end) or the largest left out (from the far end)."""
    monkeypatch.setattr(_mctorus, "SECTIONS_MIN", 0)
    rng = np.random.default_rng(5)
    for side in (8, 9, 10, 12):
        m = Machine((side, side, side), torus=True)
        m.allocate(np.flatnonzero(rng.random(m.n) < 0.3))
        grid = np.asarray(m.free).reshape(m.shape, order="F")
        for k in (5, 17, 40, 111):
            _, weights = centre_sets(m, k)
            for far in (False, True):
                assert _mctorus.centre_weights(grid, m.torus, k, far=far)[1].tolist() == weights.tolist()


def test_axis_weight_on_a_ring_against_all_pairs():
    """The pairs of a ring's histogram farther apart than half the ring are
    taken off with prefix sums: the same total as summing every pair."""
    rng = np.random.default_rng(3)
    for _ in range(3000):
        side, R = int(rng.integers(1, 30)), int(rng.integers(0, 16))
        lo, hi = int(rng.integers(-R, 1)), int(rng.integers(0, R + 1))
        if hi - lo >= side:
            continue
        h = np.zeros(2 * R + 1, dtype=np.int64)
        h[lo + R:hi + R + 1] = rng.integers(0, 4, size=hi - lo + 1)
        pos = np.arange(lo, hi + 1)
        gap = np.abs(pos[:, None] - pos[None, :])
        counts = h[lo + R:hi + R + 1]
        expected = int((np.outer(counts, counts) * np.minimum(gap, side - gap)).sum()) // 2
        assert _axis_weight(h, lo, hi, side, True, R) == expected, (side, lo, hi)


def test_one_node_is_the_first_free_node():
    """k = 1 skips the centres' sets: the same answer as the general path."""
    rng = np.random.default_rng(8)
    for _ in range(40):
        m, _ = random_state(rng)
        grid = np.asarray(m.free).reshape(m.shape, order="F")
        chosen, w, centre, node, score = _mctorus.grid_mc1x1(grid, m.torus, 1)
        nodes, W, scores, make_set = _mctorus.centre_weights(grid, m.torus, 1)
        c = int(np.argmin(W))
        assert (chosen.tolist(), w, centre) == (make_set(c).tolist(), int(W[c]), int(nodes[c]))
        assert node.tolist() == nodes.tolist() and score.tolist() == scores.tolist()


class _Dense(Allocator):
    """MC1x1 on a torus by today's dense implementation (the oracle)."""

    name = "mc1x1-dense"

    def select(self, machine, k):
        return np.asarray(baseline_machine(machine, k).indices, dtype=np.int64)


@pytest.mark.parametrize("shape", [(6, 6, 6), (10, 8)])
def test_a_simulation_places_every_job_as_the_dense_version(shape):
    """A Lublin trace with EASY on small tori: every job gets the same
    nodes at the same time as with the dense MC1x1 (the states of a real
    schedule: fragmented, the last shell walked both ways)."""
    m = Machine(shape, torus=True)
    trace = lublin_workload(m.n, 300, seed=2)
    ours = simulate(trace, m, scheduler="easy", allocator=KSubsetAllocator("mc1x1", cache=0))
    theirs = simulate(trace, m, scheduler="easy", allocator=_Dense())
    assert [(r.job_id, r.start, r.nodes) for r in ours.records] == [(r.job_id, r.start, r.nodes)
                                                                     for r in theirs.records]


def _cross_sections(occupied: np.ndarray, radius: int) -> np.ndarray:
    """Every axis's cross-section grid written at once, shape (d,) + occupied.shape."""
    out = np.zeros((occupied.ndim,) + occupied.shape, dtype=np.int32)
    for a in range(occupied.ndim):
        section_piece(occupied, radius, a, 0, occupied.shape[a], out[a])
    return out


def test_cross_sections_count_the_windows_and_pieces_compose():
    """Every cell whose window fits holds the occupied cells of its
    cross-section window; the others 0; an axis's grid written in pieces
    is the grid written at once."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        d = int(rng.integers(1, 4))
        shape = tuple(int(s) for s in rng.integers(1, 9, size=d))
        occ = (rng.random(shape) < 0.5).astype(np.int32)
        radius = int(rng.integers(0, 4))
        got = _cross_sections(occ, radius)
        for a in range(d):
            for x in np.ndindex(*shape):
                fits = all(radius <= x[b] < shape[b] - radius for b in range(d) if b != a)
                want = 0
                if fits:
                    window = tuple(slice(x[b], x[b] + 1) if b == a else slice(x[b] - radius, x[b] + radius + 1)
                                   for b in range(d))
                    want = int(occ[window].sum())
                assert got[a][x] == want, (shape, radius, a, x)
            cuts = np.unique(np.concatenate(([0, shape[a]], rng.integers(0, shape[a] + 1, size=2))))
            pieces = np.zeros(shape, dtype=np.int32)
            for lo, hi in zip(cuts[:-1], cuts[1:]):
                section_piece(occ, radius, a, int(lo), int(hi), pieces)
            assert np.array_equal(pieces, got[a])
