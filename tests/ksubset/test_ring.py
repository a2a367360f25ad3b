"""Arrangements of counts on a ring and the partition bound, against brute force.

The organ pipe must be the least cost over every placement of the counts
on rings of up to 9 positions; the conjugate (Gale-Ryser) step must hold
on the ring (no row vector majorised by lambda' costs less than
arr(lambda')); the partition bound must be at most the optimum of random
small meshes, tori and cylinders with busy nodes, and on idle machines
equal to it, attained by the staircase.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ksubset_truth import arrangement_costs, matrix_optimum

from optalloc.ksubset import solve
from optalloc.ksubset._metric import machine_problem
from optalloc.ksubset.search._box import _ascending_parts, _partition_counts
from optalloc.ksubset.search._ring import axis_costs, organ_distances, partition_bound, scored_partitions, staircase
from optalloc.ksubset.search._torustables import _axis_distance
from optalloc.machine import Machine


@functools.cache
def _positions(side: int, m: int) -> np.ndarray:
    """Every placement of ``m`` counts on distinct positions of ``side``, one per row."""
    return np.array(list(itertools.permutations(range(side), m)), dtype=np.int64).reshape(-1, m)


def _placements_min(counts, side, wrap=True):
    """Least cost of ``counts`` over every placement on distinct positions (all of them at once)."""
    D = _axis_distance(side, wrap)
    pos = _positions(side, len(counts))
    c = np.zeros((len(pos), side))
    c[np.arange(len(pos))[:, None], pos] = np.asarray(counts, dtype=float)
    return ((c @ D) * c).sum(axis=1).min() / 2



def test_organ_pipe_places():
    # places 0, 1, -1, 2, -2, 3, -3 on a ring of 7 and on a line
    assert organ_distances(7, True)[0].tolist() == [0, 1, 1, 2, 2, 3, 3]
    assert organ_distances(7, True)[4].tolist() == [2, 3, 1, 3, 0, 2, 1]  # from -2
    assert organ_distances(7, False)[4].tolist() == [2, 3, 1, 4, 0, 5, 1]


def test_organ_pipe_is_the_line_optimum():
    """Against the line's dynamic programme, every partition of k <= 20."""
    for k in range(1, 21):
        asc = _ascending_parts(_partition_counts(k, k, k), k)
        np.testing.assert_array_equal(axis_costs(asc[:, ::-1], k, False), arrangement_costs(asc, k))


@pytest.mark.parametrize("side", range(1, 8))
def test_organ_pipe_is_least_exhaustive(side):
    """Every multiset of up to ``side`` counts of at most 4 on rings of 1..7."""
    for m in range(1, side + 1):
        for counts in itertools.combinations_with_replacement(range(4, 0, -1), m):
            desc = np.array([counts], dtype=np.int64)
            assert axis_costs(desc, side, True)[0] == _placements_min(counts, side), (side, counts)


@settings(max_examples=60, deadline=None)
@given(side=st.integers(8, 9), counts=st.lists(st.integers(1, 9), min_size=1, max_size=6))
def test_organ_pipe_is_least_random(side, counts):
    desc = np.array([sorted(counts, reverse=True)], dtype=np.int64)
    assert axis_costs(desc, side, True)[0] == _placements_min(desc[0], side)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_rows_majorised_by_the_conjugate_cost_more(data):
    """For a 0/1 matrix with column sums lambda on a ring of rows, its row
    counts cost at least arr(lambda') (the step the partition score uses)."""
    q = data.draw(st.integers(2, 8))
    p = data.draw(st.integers(1, 6))
    X = np.array(data.draw(st.lists(st.lists(st.integers(0, 1), min_size=q, max_size=q), min_size=p, max_size=p)))
    k = int(X.sum())
    if k == 0:
        return
    lam = np.sort(X.sum(axis=1))[::-1]
    conj = np.array([[(lam >= j).sum() for j in range(1, lam[0] + 1)]], dtype=np.int64)
    r = X.sum(axis=0)
    D = _axis_distance(q, True)
    assert r @ D @ r / 2 >= axis_costs(conj, q, True)[0]


def _small_machine(rng, idle):
    shape = tuple(int(s) for s in rng.integers(1, 6, size=2))
    torus = tuple(bool(t) for t in rng.integers(0, 2, size=2))
    m = Machine(shape, torus=torus)
    if not idle:
        keep = int(rng.integers(1, min(12, m.n) + 1))
        busy = np.sort(rng.choice(m.n, size=m.n - keep, replace=False))
        if len(busy):
            m.allocate(busy)
    return m


def _free(m, inst):
    free = np.zeros(m.shape, dtype=bool)
    cells = inst.coords.astype(np.int64)
    free[cells[:, 0], cells[:, 1]] = True
    return free


@pytest.mark.parametrize("seed", range(4))
def test_partition_bound_at_most_the_optimum(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(60):
        m = _small_machine(rng, idle=False)
        k = int(rng.integers(1, min(m.n_free, 8) + 1))
        inst = machine_problem(m, k)
        opt = matrix_optimum(inst.D, k)
        assert partition_bound(_free(m, inst), k, m.torus) <= opt + 1e-9, (m.shape, m.torus, k)


@pytest.mark.parametrize("seed", range(2))
def test_partition_bound_is_the_idle_optimum(seed):
    rng = np.random.default_rng(200 + seed)
    for _ in range(25):
        m = _small_machine(rng, idle=True)
        if m.n > 16:
            continue
        k = int(rng.integers(1, min(m.n, 7) + 1))
        inst = machine_problem(m, k)
        opt = matrix_optimum(inst.D, k)
        assert partition_bound(_free(m, inst), k, m.torus) == opt
        counts, score, _ = scored_partitions(k, np.full(m.shape[0], m.shape[1]), m.shape[1], m.torus)
        cells = staircase(counts[0], m.shape, m.torus)
        assert len({tuple(c) for c in cells.tolist()}) == k
        DX, DY = (_axis_distance(s, w) for s, w in zip(m.shape, m.torus, strict=True))
        w = sum(DX[a[0], b[0]] + DY[a[1], b[1]] for a, b in itertools.combinations(cells.tolist(), 2))
        assert w == score[0] == opt


def test_idle_torus_solved_by_the_bound():
    m = Machine((16, 16), torus=True)
    r = solve(m, 32, method="exact")
    assert r.status == "optimal" and r.objective == r.bound == 1840
    assert r.extra["phase"] == "bounds"
    cells = m.coords[r.indices]
    assert len({tuple(c) for c in cells.tolist()}) == 32


def test_scored_partitions_fit_the_columns():
    counts, score, score_y = scored_partitions(5, np.array([2, 0, 3]), 3, (True, True))
    parts = [sorted((v + 1 for v in range(c.shape[0]) for _ in range(c[v])), reverse=True) for c in counts]
    assert sorted(map(tuple, parts)) == [(3, 2)]
    assert np.all(np.diff(score) >= 0) and np.all(score_y <= score)
