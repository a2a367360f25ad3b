"""The ordering objective, distances and locality measures against direct loops."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.curves import (
    curve_objective,
    gilbert,
    hilbert,
    locality,
    mesh_distances,
    order_objective,
    rank_weights,
    row_major,
    snake,
)


def brute_objective(D, order, w=lambda d: 2.0 ** -(d - 1), ring=False):
    n = len(order)
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = min(j - i, n - (j - i)) if ring else j - i
            total += w(r) * D[order[i]][order[j]]
    return total


def brute_mesh(points, torus=None):
    n = len(points)
    D = np.zeros((n, n))
    for a in range(n):
        for b in range(n):
            for ax, (x, y) in enumerate(zip(points[a], points[b])):
                d = abs(x - y)
                if torus is not None and torus[ax]:
                    d = min(d, torus[ax] - d)
                D[a, b] += d
    return D


@st.composite
def instances(draw):
    n = draw(st.integers(1, 12))
    D = np.array(draw(st.lists(st.lists(st.integers(0, 9), min_size=n, max_size=n), min_size=n, max_size=n)))
    order = draw(st.permutations(range(n)))
    return D, list(order)


@settings(max_examples=80, deadline=None)
@given(instances(), st.booleans())
def test_objective_equals_double_loop(inst, ring):
    D, order = inst
    assert order_objective(D, order, ring=ring) == pytest.approx(brute_objective(D, order, ring=ring))


@settings(max_examples=40, deadline=None)
@given(instances(), st.booleans())
def test_weights_callable_and_array_agree(inst, ring):
    D, order = inst
    n = len(D)

    def w(d):
        return 1.0 / d**2

    table = np.array([123.0] + [w(d) for d in range(1, n)])  # entry 0 is ignored
    a = order_objective(D, order, weights=w, ring=ring)
    b = order_objective(D, order, weights=table, ring=ring)
    assert a == pytest.approx(b)
    assert a == pytest.approx(brute_objective(D, order, w=w, ring=ring))


def test_ring_weights_need_only_half():
    D = np.ones((6, 6)) - np.eye(6)
    assert order_objective(D, range(6), weights=[0, 1, 1, 1], ring=True) == 15.0
    with pytest.raises(ValueError, match="entry for every rank distance"):
        order_objective(D, range(6), weights=[0, 1, 1, 1])


def test_rank_weights():
    assert rank_weights(5, ring=True).tolist() == [0.0, 1.0, 0.5, 0.5, 1.0]
    assert rank_weights(1).tolist() == [0.0]


# Reference values measured with independent code (w = 2**-(d-1), linear rank
# distance, L1 mesh distance), rounded to 0.1.
REFERENCE = [
    (hilbert, (8, 8), 201.4),
    (snake, (8, 8), 225.4),
    (hilbert, (16, 16), 832.4),
    (snake, (16, 16), 972.0),
    (gilbert, (8, 8, 5), 1001.1),
    (snake, (8, 8, 5), 1164.1),
]


@pytest.mark.parametrize("fn, shape, value", REFERENCE)
def test_reference_values(fn, shape, value):
    assert abs(curve_objective(fn(shape)) - value) <= 0.05


def test_gilbert_matches_hilbert_on_squares():
    for side in (4, 8, 16):
        assert curve_objective(gilbert((side, side))) == pytest.approx(curve_objective(hilbert((side, side))))


def test_hilbert_beats_snake_beats_row_major():
    for shape in [(8, 8), (16, 16)]:
        h, s, r = (curve_objective(f(shape)) for f in (hilbert, snake, row_major))
        assert h < s < r


def test_curve_objective_is_order_objective_of_mesh_distances():
    c = gilbert((5, 3))
    rng = np.random.default_rng(3)
    perm = rng.permutation(len(c))
    D = mesh_distances(c[perm])
    order = np.argsort(perm)  # rows of c[perm] in the visiting order of c
    assert order_objective(D, order) == pytest.approx(curve_objective(c))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 4), st.integers(0, 3)), min_size=1, max_size=10),
       st.sampled_from([None, (6, 5, 4), (6, None, 4), (6, 0, None)]))
def test_mesh_distances_equal_loops(points, torus):
    assert np.allclose(mesh_distances(points, torus=torus), brute_mesh(points, torus))


def test_torus_objective_of_snake_ring():
    # on a 4x4 torus, the snake order plus its wrap is a cycle of unit steps
    c = snake((4, 4))
    D = mesh_distances(c, torus=(4, 4))
    assert np.all(D[np.arange(16), (np.arange(16) + 1) % 16] == 1)
    assert curve_objective(c, torus=(4, 4)) < curve_objective(c)


def brute_compactness(D, order, w):
    n = len(order)
    means = [np.mean([D[order[a], order[b]] for a, b in itertools.combinations(range(s, s + w), 2)])
             for s in range(n - w + 1)]
    return float(np.mean(means))


def brute_stretch(D, order):
    n = len(order)
    return float(np.mean([D[order[i], order[j]] / (j - i) for i, j in itertools.combinations(range(n), 2)]))


@settings(max_examples=40, deadline=None)
@given(instances(), st.data())
def test_locality_against_loops(inst, data):
    D, order = inst
    n = len(D)
    window = data.draw(st.integers(2, n)) if n >= 2 else None
    loc = locality(D, order, window=window)
    if n == 1:
        assert loc.max_step == loc.mean_step == loc.stretch == 0.0
        return
    st_ = [D[order[i]][order[i + 1]] for i in range(n - 1)]
    assert loc.max_step == max(st_)
    assert loc.mean_step == pytest.approx(np.mean(st_))
    assert loc.stretch == pytest.approx(brute_stretch(D, order))
    assert loc.window == window
    assert loc.compactness == pytest.approx(brute_compactness(D, order, window))


def test_locality_of_curves():
    for fn in (snake, hilbert):
        c = fn((8, 8))
        loc = locality(mesh_distances(c), np.arange(64), window=4)
        assert loc.max_step == loc.mean_step == 1.0
    lr = locality(mesh_distances(row_major((8, 8))), np.arange(64))
    assert lr.max_step == 8.0 and lr.compactness is None
    # Hilbert windows of 4 are 2x2 squares or nearly
    h = locality(mesh_distances(hilbert((8, 8))), np.arange(64), window=4).compactness
    s = locality(mesh_distances(snake((8, 8))), np.arange(64), window=4).compactness
    assert h < s


def test_locality_is_frozen():
    loc = locality(np.zeros((2, 2)), [0, 1])
    with pytest.raises(AttributeError):
        loc.max_step = 3.0


@pytest.mark.parametrize("D, order, match", [
    (np.zeros((2, 3)), [0, 1], "square"),
    (np.zeros((0, 0)), [], "non-empty"),
    (np.array([[0, np.nan], [1, 0]]), [0, 1], "finite"),
    (np.zeros((3, 3)), [0, 1], "permutation of 0..2"),
    (np.zeros((3, 3)), [0, 1, 1], "permutation of 0..2"),
    (np.zeros((3, 3)), [0, 1, 3], "permutation of 0..2"),
    (np.zeros((3, 3)), [0.5, 1, 2], "integers"),
    (np.zeros((3, 3)), [[0, 1, 2]], "permutation"),
])
def test_bad_objective_inputs(D, order, match):
    with pytest.raises(ValueError, match=match):
        order_objective(D, order)
    with pytest.raises(ValueError, match=match):
        locality(D, order)


def test_bad_weights_and_window():
    D = np.ones((4, 4))
    with pytest.raises(ValueError, match="`weights` must be finite"):
        order_objective(D, range(4), weights=lambda d: np.inf)
    with pytest.raises(ValueError, match="`weights` must be a 1D array"):
        order_objective(D, range(4), weights=[0, 1])
    with pytest.raises(ValueError, match="`window` must be between 2"):
        locality(D, range(4), window=5)
    with pytest.raises(ValueError, match="`window` must be between 2"):
        locality(D, range(4), window=1)


def test_bad_points_and_torus():
    with pytest.raises(ValueError, match="`torus` must have one side per coordinate"):
        mesh_distances([[0, 0]], torus=(3,))
    with pytest.raises(ValueError, match="`torus` sides must be positive"):
        mesh_distances([[0, 0]], torus=(3, -1))
    with pytest.raises(ValueError, match="`points` must be a non-empty"):
        mesh_distances(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="finite numbers"):
        curve_objective([["a", "b"]])
