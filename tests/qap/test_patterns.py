"""Communication-pattern generators and their text forms."""

import itertools

import networkx as nx
import numpy as np
import pytest

from optalloc.machine import Machine
from optalloc.qap import (
    PATTERNS,
    all_to_all,
    parse_pattern,
    random_sparse,
    ring,
    stencil,
    transpose,
)


def check_basic(W, n):
    assert W.shape == (n, n) and W.dtype == np.float64
    assert np.all(np.diag(W) == 0) and np.all(W >= 0)


def neighbours(W, i):
    return sorted(np.flatnonzero(W[i]).tolist())


def test_stencil_2d_hand_neighbours():
    W = stencil((4, 3))  # task id = x + 4 y
    check_basic(W, 12)
    assert neighbours(W, 0) == [1, 3, 4, 8]  # (1,0), (3,0) wrap, (0,1), (0,2) wrap
    assert neighbours(W, 5) == [1, 4, 6, 9]
    assert neighbours(stencil((4, 3), periodic=False), 0) == [1, 4]
    assert neighbours(stencil((4, 3), periodic=False), 5) == [1, 4, 6, 9]
    np.testing.assert_array_equal(W, W.T)


def test_stencil_3d_seven_point():
    W = stencil((3, 3, 3), weight=2.5)
    check_basic(W, 27)
    assert np.all(W.sum(axis=1) == 6 * 2.5)
    open_ = stencil((3, 3, 3), periodic=False)
    assert open_[0].sum() == 3 and open_[13].sum() == 6  # corner and centre
    np.testing.assert_array_equal(W, W.T)


@pytest.mark.parametrize("shape", [(4, 4), (2, 5), (3, 1, 4), (2, 2, 2), (6,)])
@pytest.mark.parametrize("periodic", [True, False])
def test_stencil_is_the_grid_adjacency(shape, periodic):
    # the stencil's pairs are exactly the links of the matching mesh / torus
    t = Machine(shape, torus=periodic)
    W = stencil(shape, periodic=periodic)
    expected = np.zeros_like(W)
    links = t.links()
    if len(links):
        expected[links[:, 0], links[:, 1]] = 1.0
    np.testing.assert_array_equal(W, expected)


def test_stencil_small_sides():
    assert neighbours(stencil((2, 1)), 0) == [1]  # side 2 wraps onto the same neighbour
    assert stencil((1, 1)).tolist() == [[0.0]]


def test_ring_and_all_to_all():
    assert ring(1).tolist() == [[0.0]]
    assert ring(2).tolist() == [[0.0, 1.0], [1.0, 0.0]]
    W = ring(7, weight=4)
    check_basic(W, 7)
    assert nx.is_isomorphic(nx.from_numpy_array(W), nx.cycle_graph(7))
    assert np.all(W.sum(axis=1) == 8)
    A = all_to_all(5, weight=3)
    check_basic(A, 5)
    assert A.sum() == 3 * 20


def test_transpose_hand():
    W = transpose((3, 3))  # task (x, y) = x + 3 y
    check_basic(W, 9)
    pairs = {tuple(p) for p in np.argwhere(W).tolist()}
    assert pairs == {(1, 3), (3, 1), (2, 6), (6, 2), (5, 7), (7, 5)}
    for x, y in itertools.product(range(3), repeat=2):
        if x != y:
            assert W[x + 3 * y, y + 3 * x] == 1
    assert all(W[d].sum() == 0 for d in (0, 4, 8))
    np.testing.assert_array_equal(transpose(3), W)
    assert transpose(1).tolist() == [[0.0]]


def test_random_sparse():
    W = random_sparse(40, 0.2, rng=5, low=3, high=9)
    check_basic(W, 40)
    np.testing.assert_array_equal(W, W.T)
    vals = W[W > 0]
    assert vals.min() >= 3 and vals.max() <= 9 and np.all(vals == np.round(vals))
    assert 0.1 < (W > 0).sum() / (40 * 39) < 0.3
    np.testing.assert_array_equal(W, random_sparse(40, 0.2, rng=5, low=3, high=9))
    assert not np.array_equal(W, random_sparse(40, 0.2, rng=6, low=3, high=9))
    g = np.random.default_rng(5)
    np.testing.assert_array_equal(random_sparse(40, 0.2, rng=g, low=3, high=9), W)
    assert random_sparse(6, 0.0, rng=0).sum() == 0
    assert np.all(random_sparse(6, 1.0, rng=0)[~np.eye(6, dtype=bool)] > 0)
    assert set(np.unique(random_sparse(10, 1.0, rng=0, low=7, high=7))) == {0.0, 7.0}


@pytest.mark.parametrize("call, rule", [
    (lambda: stencil((4, 0)), "`shape` sides must be positive integers"),
    (lambda: stencil((4, 4), weight=-1), "`weight` must be finite and non-negative"),
    (lambda: stencil((4, 4), weight=float("nan")), "`weight`"),
    (lambda: ring(0), "`n` must be a positive integer"),
    (lambda: ring(2.5), "`n` must be a positive integer"),
    (lambda: all_to_all(-3), "`n` must be a positive integer"),
    (lambda: transpose((3, 4)), "`shape` must be a square 2-D grid"),
    (lambda: transpose((2, 2, 2)), "`shape` must be a square 2-D grid"),
    (lambda: random_sparse(5, 1.5), "`density` must be between 0 and 1"),
    (lambda: random_sparse(5, "x"), "`density` must be a number"),
    (lambda: random_sparse(5, 0.5, low=5, high=2), "0 <= low <= high"),
    (lambda: random_sparse(5, 0.5, low=-1), "0 <= low <= high"),
    (lambda: random_sparse(5, 0.5, low=1.5), "`low` and `high` must be integers"),
])
def test_validation(call, rule):
    with pytest.raises(ValueError, match=rule):
        call()


def test_parse_pattern_forms():
    np.testing.assert_array_equal(parse_pattern("stencil:8x8"), stencil((8, 8)))
    np.testing.assert_array_equal(parse_pattern("stencil:4x4x2:open"), stencil((4, 4, 2), periodic=False))
    np.testing.assert_array_equal(parse_pattern("Stencil:4x4:periodic"), stencil((4, 4)))
    np.testing.assert_array_equal(parse_pattern("ring:64"), ring(64))
    np.testing.assert_array_equal(parse_pattern("all-to-all:16"), all_to_all(16))
    np.testing.assert_array_equal(parse_pattern("transpose:8x8"), transpose(8))
    np.testing.assert_array_equal(parse_pattern("transpose:8"), transpose(8))
    np.testing.assert_array_equal(parse_pattern("random:64:0.1", rng=2), random_sparse(64, 0.1, rng=2))
    assert set(PATTERNS) == {"stencil", "ring", "all-to-all", "transpose", "random"}


@pytest.mark.parametrize("spec", ["", "stencil", "stencil:8y8", "stencil:8x8:closed", "ring:x", "ring:4:5",
                                  "random:64", "random:64:abc", "mesh:4x4", "all-to-all"])
def test_parse_pattern_rejects(spec):
    with pytest.raises(ValueError, match="`spec` must be one of"):
        parse_pattern(spec)


def test_parse_pattern_keeps_generator_messages():
    with pytest.raises(ValueError, match="`density` must be between 0 and 1"):
        parse_pattern("random:10:2")
    with pytest.raises(ValueError, match="`shape` sides must be positive integers"):
        parse_pattern("stencil:0x4")
