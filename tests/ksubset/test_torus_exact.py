"""The search over column and row counts on 2D tori and meshes, against brute force.

:func:`torus_profile_search` is checked on hundreds of random small 2D
machines (each axis wrapped or not, random busy nodes, idle tori): with an
upper bound above the optimum it must return an optimal set and prove it;
with the optimum as upper bound it must find nothing and prove the
optimum.  Its 1D tables (:func:`_capped`) are checked against enumeration
of every count vector, and the exact solver that runs it against brute
force.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from ksubset_truth import matrix_optimum

from optalloc.ksubset import solve
from optalloc.ksubset._metric import machine_problem
from optalloc.ksubset.search._torusprofile import _capped, torus_profile_search
from optalloc.ksubset.search._torustables import _axis_distance, _one_d, _pair_table
from optalloc.machine import Machine


def _machine(rng, idle=False):
    shape = tuple(int(s) for s in rng.integers(1, 7, size=2))
    torus = tuple(bool(t) for t in rng.integers(0, 2, size=2))
    if idle:
        shape, torus = tuple(int(s) for s in rng.integers(2, 5, size=2)), (True, True)
    m = Machine(shape, torus=torus)
    keep = m.n if idle else int(rng.integers(1, min(12, m.n) + 1))
    busy = np.sort(rng.choice(m.n, size=m.n - keep, replace=False))
    if len(busy):
        m.allocate(busy)
    return m


@pytest.mark.parametrize("seed", range(3))
def test_search_equals_brute(seed):
    rng = np.random.default_rng(seed)
    for case in range(70):
        m = _machine(rng, idle=case % 7 == 0)
        k = int(rng.integers(1, min(m.n_free, 9) + 1))
        inst = machine_problem(m, k)
        opt = matrix_optimum(inst.D, k)
        for upper in (opt + 1, opt + 3):
            value, rows, lower = torus_profile_search(inst.coords, k, m.shape, m.torus, upper)
            assert value == opt and lower == opt
            assert inst.D[np.ix_(rows, rows)].sum() / 2 == pytest.approx(opt)
            assert len(set(rows.tolist())) == k
        value, rows, lower = torus_profile_search(inst.coords, k, m.shape, m.torus, opt)
        assert value is None and rows is None and lower == opt


def test_search_stopped_proves_nothing():
    m = Machine((8, 8), torus=True)
    m.allocate(list(range(0, 64, 3)))
    k = 10
    inst = machine_problem(m, k)
    value, rows, lower = torus_profile_search(inst.coords, k, m.shape, m.torus, 10**6, node_limit=5)
    assert lower is None


@pytest.mark.parametrize("wrap", [True, False])
def test_capped_equals_enumeration(wrap):
    rng = np.random.default_rng(7)
    for _ in range(60):
        q = int(rng.integers(1, 7))
        a = rng.integers(0, 4, size=q).astype(np.int64)
        k = int(rng.integers(1, 9))
        D = _axis_distance(q, wrap)
        best = np.inf
        for r in itertools.product(*[range(int(x) + 1) for x in a]):
            if sum(r) == k:
                r = np.array(r, dtype=float)
                best = min(best, r @ D @ r / 2)
        assert _capped(a, D, k) == best


@pytest.mark.parametrize("wrap", [True, False])
def test_one_d_equals_enumeration(wrap):
    # the least W of m of the positions (with repeats), for every m <= k
    rng = np.random.default_rng(8)
    for _ in range(80):
        side = int(rng.integers(1, 12))
        pos = rng.integers(0, side, size=int(rng.integers(0, 9)))
        k = int(rng.integers(1, 9))
        D = _axis_distance(side, wrap)
        want = np.full(k + 1, np.inf)
        want[0] = 0.0
        for m in range(1, min(k, len(pos)) + 1):
            want[m] = min(D[np.ix_(s, s)].sum() / 2 for s in map(list, itertools.combinations(pos, m)))
        assert np.array_equal(_one_d(pos, k, side, wrap), want)


def test_pair_table_is_at_most_every_pair_of_cell_sets():
    # pair[j, l, a, b] <= the y-distance sum of any a free cells of column j
    # and b of column l, with equality for some sets when a or b is 1 on one side
    rng = np.random.default_rng(9)
    for _ in range(40):
        p, q, k = int(rng.integers(2, 4)), int(rng.integers(1, 6)), int(rng.integers(1, 4))
        free = rng.random((p, q)) < 0.7
        DY = _axis_distance(q, bool(rng.integers(2)))
        table = _pair_table(free, DY, k)
        for j, l in itertools.combinations(range(p), 2):
            cj, cl = np.flatnonzero(free[j]), np.flatnonzero(free[l])
            for a in range(1, min(k, len(cj)) + 1):
                for b in range(1, min(k, len(cl)) + 1):
                    least = min(DY[np.ix_(sa, sb)].sum() for sa in itertools.combinations(cj, a)
                                for sb in itertools.combinations(cl, b))
                    assert table[j, l, a, b] <= least + 1e-9
                    if a == 1 or b == 1:
                        assert table[j, l, a, b] == least


def test_exact_with_search_equals_brute():
    rng = np.random.default_rng(11)
    phases = []
    for i in range(8):
        side = (int(rng.integers(5, 7)), int(rng.integers(5, 7)))
        m = Machine(side, torus=(True, bool(i % 2)))
        keep = int(rng.integers(20, 24))
        m.allocate(np.sort(rng.choice(m.n, size=m.n - keep, replace=False)))
        k = int(rng.integers(6, 8))
        opt = solve(m, k, method="brute").objective
        r = solve(m, k, method="exact")
        assert r.status == "optimal" and r.objective == pytest.approx(opt) and r.bound <= opt + 1e-9
        phases.append(r.extra["phase"])
    assert {"profiles", "narrow"} & set(phases)  # a search, not only the cheap bounds, proved some


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_search_agrees_with_the_cut_loop(seed):
    """On 8 x 8 tori with half the nodes free, the search's proven optimum
    equals the cut loop's (without the search)."""
    rng = np.random.default_rng(100 + seed)
    m = Machine((8, 8), torus=True)
    m.allocate(np.sort(rng.choice(64, size=32, replace=False)))
    k = 10
    inst = machine_problem(m, k)
    lp = solve(m, k, method="exact", profiles=False)
    value, rows, lower = torus_profile_search(inst.coords, k, m.shape, m.torus, lp.objective + 1)
    assert lp.status == "optimal" and value == lp.objective and lower == lp.objective


def test_search_equals_brute_on_larger_machines():
    """Machines of 5 to 7 a side with up to 18 free nodes: more partitions
    of k and column vectors per partition than the cases above."""
    rng = np.random.default_rng(41)
    for _ in range(40):
        shape = tuple(int(s) for s in rng.integers(5, 8, size=2))
        m = Machine(shape, torus=tuple(bool(t) for t in rng.integers(0, 2, size=2)))
        keep = int(rng.integers(13, 19))
        m.allocate(np.sort(rng.choice(m.n, size=m.n - keep, replace=False)))
        k = int(rng.integers(4, 8))
        inst = machine_problem(m, k)
        opt = matrix_optimum(inst.D, k)
        value, rows, lower = torus_profile_search(inst.coords, k, m.shape, m.torus, opt + 2)
        assert value == opt and lower == opt
        assert inst.D[np.ix_(rows, rows)].sum() / 2 == pytest.approx(opt)
        assert torus_profile_search(inst.coords, k, m.shape, m.torus, opt) == (None, None, opt)
