"""Narrow and wide sets of 2D tori (:mod:`optalloc.ksubset.search._torusnarrow`), against brute force.

On hundreds of random small machines (rings and lines of 2 to 7
positions, random free cells) every k-subset is enumerated and sorted
into narrow sets (coordinates on each wrapped axis inside an arc of half
the ring) and wide ones: the shape search on the cut meshes must return
the least W of the narrow sets and prove it, the wide partition bound
must not exceed the W of any wide set, and ``arr_wide`` must equal the
least cost over every wide placement of the parts.  The exact solver,
which runs them first on a 2D torus (of 64 free nodes or more), is
checked against brute force on 8 x 8, 6 x 7 and 9 x 5 tori and cylinders.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ksubset_truth import matrix_optimum, subset_weights

from optalloc.ksubset import solve
from optalloc.ksubset._metric import machine_problem
from optalloc.ksubset.search._torusnarrow import (
    _wide_of,
    narrow_search,
    torus_narrow,
    wide_arrangement,
    wide_bound,
)
from optalloc.machine import Machine


def _narrow_on(values: np.ndarray, side: int) -> np.ndarray:
    """Per row of ``values`` (positions on a ring of ``side``): whether
    they fit in an arc of ``side // 2`` steps."""
    ok = np.zeros(len(values), dtype=bool)
    span = side // 2
    for start in range(side):
        ok |= ((values - start) % side <= span).all(axis=1)
    return ok


def _classes(pts, subsets, shape, wrap):
    """Per subset: narrow on every wrapped axis, and wide on some."""
    narrow = np.ones(len(subsets), dtype=bool)
    for a, (side, w) in enumerate(zip(shape, wrap, strict=True)):
        if w:
            narrow &= _narrow_on(pts[subsets, a], side)
    return narrow, ~narrow


def _state(rng, max_free=12):
    shape = tuple(int(s) for s in rng.integers(2, 8, size=2))
    wrap = tuple(bool(t) for t in rng.integers(0, 2, size=2))
    if not any(wrap):
        wrap = (True, wrap[1])
    m = Machine(shape, torus=wrap)
    keep = int(rng.integers(3, min(max_free, m.n) + 1))
    busy = np.sort(rng.choice(m.n, size=m.n - keep, replace=False))
    if len(busy):
        m.allocate(busy)
    return m


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=300, deadline=None)
def test_narrow_and_wide_against_brute(seed):
    rng = np.random.default_rng(seed)
    m = _state(rng)
    k = int(rng.integers(2, min(m.n_free, 7) + 1))
    inst = machine_problem(m, k)
    pts = np.asarray(inst.coords).astype(np.int64)
    subsets, w = subset_weights(inst.D, k)
    narrow, wide = _classes(pts, subsets, m.shape, m.torus)
    free = np.zeros(m.shape, dtype=bool)
    free[pts[:, 0], pts[:, 1]] = True
    # the wide bound never exceeds a wide set's W, in the idle tables and the state's
    bound = wide_bound(free, k, m.torus)
    state_bound = _wide_of(free, k, m.torus, math.inf, -math.inf)
    if wide.any():
        assert bound <= w[wide].min() + 1e-9
        assert state_bound <= w[wide].min() + 1e-9
    # the cut meshes find a set at least as light as every narrow set (a
    # set of a cut mesh may be wide on the torus, and lighter), and bound
    # the narrow sets
    least = w[narrow].min() if narrow.any() else math.inf
    for upper in (least + 1, least):
        value, idx, lower = narrow_search(pts, k, m.shape, m.torus, upper)
        assert lower is not None and lower <= least
        if value is not None:
            assert value < upper and value >= w.min()
            assert inst.D[np.ix_(idx, idx)].sum() / 2 == pytest.approx(value)
            assert len(set(idx.tolist())) == k
        elif narrow.any():
            assert upper == least and lower == least
    # the whole: its bound is at most the optimum, its set's W is what it says
    opt = float(w.min())
    for upper in (opt + 1, opt + 5):
        value, idx, lower = torus_narrow(pts, k, m.shape, m.torus, upper)
        if lower is not None:
            assert lower <= opt + 1e-9
        if value is not None:
            assert inst.D[np.ix_(idx, idx)].sum() / 2 == pytest.approx(value)


def _wide_placements(parts, side):
    """The least cost of a wide placement of ``parts``, by every placement."""
    g = side - side // 2 - 1
    best = math.inf
    for pos in itertools.permutations(range(side), len(parts)):
        occ = np.zeros(side, dtype=bool)
        occ[list(pos)] = True
        runs = "".join("1" if o else "0" for o in np.concatenate([occ, occ]))
        if g < 1 or "0" * g in runs:
            continue
        cost = sum(
            parts[a] * parts[b] * min(abs(pos[a] - pos[b]), side - abs(pos[a] - pos[b]))
            for a in range(len(parts))
            for b in range(a + 1, len(parts))
        )
        best = min(best, cost)
    return best


@given(parts=st.lists(st.integers(1, 5), min_size=1, max_size=6), side=st.integers(2, 8), target=st.integers(0, 80))
@settings(max_examples=300, deadline=None)
def test_wide_arrangement_against_placements(parts, side, target):
    truth = _wide_placements(parts, side) if len(parts) <= side else math.inf
    assert wide_arrangement(parts, side) == truth
    assert wide_arrangement(parts, side, target) == min(target, truth)


def test_wide_bound_on_the_idle_torus():
    # every set of 4 nodes of an idle 8 x 8 torus wide on an axis weighs at least 14, and one does
    m = Machine((8, 8), torus=True)
    inst = machine_problem(m, 4)
    pts = np.asarray(inst.coords).astype(np.int64)
    subsets, w = subset_weights(inst.D, 4)
    _, wide = _classes(pts, subsets, m.shape, m.torus)
    assert wide_bound(np.ones((8, 8), dtype=bool), 4, (True, True)) == w[wide].min() == 14


def test_wide_bound_stops_below_the_floor():
    free = np.ones((16, 16), dtype=bool)
    assert wide_bound(free, 16, (True, True)) == 384
    assert wide_bound(free, 16, (True, True), target=300.0) == 300
    assert wide_bound(free, 16, (True, True), floor=400.0) == -math.inf
    assert wide_bound(free, 16, (False, False)) == math.inf


@pytest.mark.parametrize("seed", range(3))
def test_exact_solver_on_tori_against_brute(seed, monkeypatch):
    """The solver with the narrow and wide sets first (from 64 candidates
    on; here on every 2D torus) against brute force."""
    from optalloc.ksubset.engine import _metric as _metricexact

    monkeypatch.setattr(_metricexact, "_NARROW_FROM", 0)
    rng = np.random.default_rng(100 + seed)
    phases = []
    for shape in ((8, 8), (6, 7), (9, 5)):
        m = Machine(shape, torus=(True, True) if seed < 2 else (True, False))
        m.allocate(np.sort(rng.choice(m.n, size=m.n - 25, replace=False)))
        for k in (5, 6):
            r = solve(m, k, method="exact")
            inst = machine_problem(m, k)
            assert r.status == "optimal" and r.bound <= r.objective
            assert r.objective == matrix_optimum(inst.D, k)
            phases.append(r.extra["phase"])
    assert "narrow" in phases, phases


def test_exact_solver_proves_half_free_16x16_by_narrow_sets():
    # compile the searches first: the phase has 2 s
    torus_narrow(np.array([(x, y) for x in range(6) for y in range(6)]), 5, (6, 6), (True, True), 100.0)
    rng = np.random.default_rng(0)
    m = Machine((16, 16), torus=True)
    m.allocate(np.sort(rng.choice(256, size=128, replace=False)))
    r = solve(m, 16, method="exact", time_limit=60)
    assert r.status == "optimal"
    assert r.extra.get("phase") == "narrow"
    assert r.bound == r.objective
