"""Closed curves (moore, closed_snake, closed_gilbert) on meshes and tori."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.curves import (
    BOX_ORDERS,
    CLOSED_ORDERS,
    box_order,
    closed_curve_exists,
    closed_gilbert,
    closed_snake,
    hilbert,
    moore,
    order_graph,
    order_ip,
    order_objective,
)
from optalloc.machine import Machine
from optalloc.sim import OneDAllocator, parse_allocator


def _steps(machine: Machine, coords: np.ndarray) -> np.ndarray:
    """Distances in the machine's metric of every step, the closing step last."""
    ids = machine.node_ids(coords)
    return machine.distances()[ids, np.roll(ids, -1)]


def _check_permutation(coords, dims):
    n = int(np.prod(dims))
    assert coords.shape == (n, len(dims))
    assert coords.dtype.kind == "i"
    ids = Machine(dims).node_ids(coords)
    assert sorted(ids.tolist()) == list(range(n))


def _check_closed(machine, coords):
    """Unit steps (closing step included) when a closed curve exists;
    otherwise the fewest non-unit steps parity allows."""
    steps = _steps(machine, coords)
    if machine.n <= 2:
        assert steps.max() <= 1
        return
    big = [s for s in machine.shape if s >= 2]
    if closed_curve_exists(machine):
        assert steps.max() == 1
    elif len(big) == 1:  # a line without wrap: steps of 2 at most
        assert steps.max() == 2
    else:  # an odd box without an odd wrap: exactly one diagonal step
        assert steps.max() == 2 and np.count_nonzero(steps > 1) == 1


wraps2 = st.tuples(st.booleans(), st.booleans())


@settings(max_examples=60, deadline=None)
@given(w=st.integers(1, 13), h=st.integers(1, 13), wrap=wraps2)
def test_closed_2d_curves_are_closed_permutations(w, h, wrap):
    m = Machine((w, h), torus=wrap)
    for fn in (closed_snake, closed_gilbert):
        c = fn(m)
        _check_permutation(c, (w, h))
        _check_closed(m, c)
        assert np.array_equal(c, fn((w, h), torus=wrap))


@settings(max_examples=40, deadline=None)
@given(dims=st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6)),
       wrap=st.tuples(st.booleans(), st.booleans(), st.booleans()))
def test_closed_snake_3d(dims, wrap):
    m = Machine(dims, torus=wrap)
    c = closed_snake(m)
    _check_permutation(c, dims)
    _check_closed(m, c)


@pytest.mark.parametrize("side", [1, 2, 4, 8, 16, 32])
def test_moore_is_a_closed_hilbert_curve(side):
    c = moore((side, side))
    _check_permutation(c, (side, side))
    _check_closed(Machine((side, side)), c)
    if side >= 2:
        # each quadrant is one quarter of the curve, a turned Hilbert curve
        q = side * side // 4
        half = side // 2
        ref = _steps(Machine((half, half)), hilbert((half, half)))[:-1]
        for k in range(4):
            part = c[k * q:(k + 1) * q]
            assert len({(x // half, y // half) for x, y in part.tolist()}) == 1
            assert np.array_equal(np.abs(np.diff(part, axis=0)).sum(axis=1), ref)


def _has_hamiltonian_cycle(machine: Machine) -> bool:
    """Depth-first search for a cycle through every node (small machines)."""
    n = machine.n
    if n <= 2:
        return True
    nbrs = [set() for _ in range(n)]
    for u, v in machine.links().tolist():
        nbrs[u].add(v)
    seen = [False] * n
    seen[0] = True

    def extend(v, depth):
        if depth == n:
            return 0 in nbrs[v]
        for u in nbrs[v]:
            if not seen[u]:
                seen[u] = True
                if extend(u, depth + 1):
                    return True
                seen[u] = False
        return False

    return extend(0, 1)


@pytest.mark.parametrize("dims", [d for d in itertools.product(range(1, 5), repeat=2)]
                         + [(2, 2, 3), (3, 3, 1), (1, 3, 3), (3, 1, 3), (2, 3, 3)])
def test_closed_curve_exists_agrees_with_search(dims):
    # ground truth: a Hamiltonian cycle found (or not) by exhaustive search
    for wrap in itertools.product([False, True], repeat=len(dims)):
        m = Machine(dims, torus=wrap)
        assert closed_curve_exists(m) == _has_hamiltonian_cycle(m), (dims, wrap)


def test_every_full_torus_has_a_closed_curve():
    for dims in itertools.product(range(1, 10), repeat=2):
        assert closed_curve_exists(dims, torus=True)
    assert not closed_curve_exists((5, 3)) and not closed_curve_exists((7, 1))
    assert closed_curve_exists((5, 3), torus=(False, True))


def test_box_order_knows_the_closed_curves():
    m = Machine((8, 8), torus=True)
    for name, fn in CLOSED_ORDERS.items():
        assert name in BOX_ORDERS
        assert np.array_equal(box_order(m, name), fn(m))
    # the wrap is read from the Machine: odd x odd needs it
    t, mesh = Machine((5, 3), torus=True), Machine((5, 3))
    assert _steps(t, box_order(t, "closed_snake")).max() == 1
    assert _steps(mesh, box_order(mesh, "closed_snake")).max() == 2


@pytest.mark.parametrize("call, match", [
    (lambda: moore((6, 6)), "power-of-two side for moore"),
    (lambda: moore((4, 4, 4)), "power-of-two side for moore"),
    (lambda: closed_gilbert((4, 4, 2)), "2D boxes"),
    (lambda: closed_snake((4, 4), torus=(True,)), "one bool per axis"),
    (lambda: closed_snake((4, 4), torus="yes"), "one bool per axis"),
    (lambda: closed_snake(Machine((4, 4)), torus=True), "taken from the Machine"),
    (lambda: closed_snake((4,)), "2 or 3 dimensions"),
    (lambda: closed_snake(Machine.from_graph(__import__("networkx").path_graph(3))), "network"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("shape", [(2, 2), (3, 2), (2, 3), (4, 2), (2, 4)])
def test_brute_force_optimum_is_at_most_every_curve(shape):
    # ground truth: every order enumerated, ring rank distance, torus distances
    m = Machine(shape, torus=True)
    D = m.distances()
    best = order_graph(m, method="brute", ring=True)
    assert best.status == "optimal"
    for name in BOX_ORDERS:
        try:
            coords = box_order(m, name)
        except ValueError:
            continue
        assert best.objective <= order_objective(D, m.node_ids(coords), ring=True) + 1e-9


@pytest.mark.slow
def test_ordering_ip_is_at_most_every_curve_on_small_tori():
    for shape, limit in (((3, 3), None), ((4, 3), 30.0)):
        m = Machine(shape, torus=True)
        D = m.distances()
        r = order_ip(D, ring=True, time_limit=limit)
        for name in BOX_ORDERS:
            try:
                v = order_objective(D, m.node_ids(box_order(m, name)), ring=True)
            except ValueError:
                continue
            assert r.bound <= v + 1e-6
            if r.status == "optimal":
                assert r.objective <= v + 1e-6


def test_one_d_allocator_runs_round_the_seam_of_a_closed_curve():
    m = Machine((4, 4), torus=True)
    a = parse_allocator("1d:closed-gilbert:first-fit:ring")
    assert isinstance(a, OneDAllocator) and a.ring
    ranked = a.ordering(m)
    assert np.array_equal(ranked, m.node_ids(closed_gilbert(m)))
    # only the two first and two last ranks free: one run of 4 across the seam
    busy = np.setdiff1d(np.arange(16), ranked[[0, 1, 14, 15]])
    m.allocate(busy, owner=1)
    got = a.select(m, 4)
    assert sorted(got.nodes.tolist()) == sorted(ranked[[0, 1, 14, 15]].tolist())
    assert got.result.extra["span"] == 4
    # the seam is a torus link, so the job's nodes form a path of unit steps
    D = m.distances()
    chain = ranked[[14, 15, 0, 1]]
    assert D[chain[:-1], chain[1:]].max() == 1


@pytest.mark.parametrize("method", ["moore", "closed-gilbert", "closed-snake"])
def test_order_graph_runs_the_closed_curves_with_the_wrap(method):
    m = Machine((4, 4), torus=True) if method == "moore" else Machine((5, 3), torus=True)
    r = order_graph(m, method=method, ring=True)
    D = m.distances()
    assert sorted(r.order.tolist()) == list(range(m.n))
    assert D[r.order, np.roll(r.order, -1)].max() == 1  # closed through the wrap
    assert r.objective == pytest.approx(order_objective(D, r.order, ring=True))
    # over a plain graph labelled by coordinates, the curve of the labels' box
    import networkx as nx

    g = order_graph(nx.grid_2d_graph(4, 4), method=method)
    assert sorted(g.order.tolist()) == list(range(16))


def _coordinate_steps(c, dims, wrap):
    d = np.abs(np.roll(c, -1, axis=0) - c)
    for a, (s, w) in enumerate(zip(dims, wrap)):
        if w:
            d[:, a] = np.minimum(d[:, a], s - d[:, a])
    return d.sum(axis=1)


@pytest.mark.slow
def test_every_2d_box_up_to_24():
    for dims in itertools.product(range(1, 25), repeat=2):
        n = dims[0] * dims[1]
        for wrap in itertools.product([False, True], repeat=2):
            for fn in (closed_snake, closed_gilbert):
                c = fn(dims, torus=wrap)
                assert len(np.unique(c, axis=0)) == n == len(c)
                steps = _coordinate_steps(c, dims, wrap)
                if n <= 2:
                    continue
                if closed_curve_exists(dims, torus=wrap):
                    assert steps.max() == 1, (fn.__name__, dims, wrap)
                elif min(dims) > 1:
                    assert steps.max() == 2 and np.count_nonzero(steps > 1) == 1, (fn.__name__, dims, wrap)
