"""``weight`` against the naive O(k^2) double loop."""

import numpy as np
import pytest
from ksubset_truth import close, naive_weight

from optalloc.ksubset import weight


def _random_sets(seed, kind, d, count=25):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        k = int(rng.integers(1, 30))
        if kind == "int":
            yield rng.integers(-20, 21, size=(k, d))
        else:
            yield rng.normal(scale=5.0, size=(k, d))


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("kind", ["int", "float"])
def test_weight_matches_double_loop(kind, d):
    for pts in _random_sets(seed=100 * d + len(kind), kind=kind, d=d):
        assert close(weight(pts), naive_weight(pts)), pts


def test_weight_of_integer_points_is_exact():
    rng = np.random.default_rng(7)
    pts = rng.integers(-1000, 1000, size=(200, 3))
    w = weight(pts)
    assert w == naive_weight(pts)
    assert w == int(w)


def test_weight_returns_python_float():
    assert type(weight(np.array([[0, 0], [1, 2]]))) is float


def test_docstring_example():
    # (0,0)-(1,0): 1, (0,0)-(0,1): 1, (1,0)-(0,1): 2.
    assert weight(np.array([[0, 0], [1, 0], [0, 1]])) == 4.0


def test_one_dimensional_input_is_points_on_a_line():
    x = np.array([3.0, -1.0, 7.5, 0.0])
    expected = naive_weight(x[:, None])
    assert close(weight(x), expected)
    assert weight(x) == weight(x[:, None])


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 2), (1, 3)])
def test_single_point_weighs_nothing(shape):
    assert weight(np.full(shape, 4.5)) == 0.0


def test_duplicates_add_no_distance_between_themselves():
    rng = np.random.default_rng(11)
    base = rng.integers(0, 5, size=(6, 2))
    pts = np.concatenate([base, base[[0, 0, 3]]])
    assert close(weight(pts), naive_weight(pts))
    # k copies of one point weigh nothing.
    assert weight(np.tile([[2.0, -3.0, 1.0]], (9, 1))) == 0.0
    # A point and m copies of another at distance t weigh m * t.
    pts = np.array([[0.0, 0.0]] + [[1.0, 2.0]] * 5)
    assert weight(pts) == 15.0


def test_weight_is_invariant_under_permutation_and_translation():
    rng = np.random.default_rng(3)
    pts = rng.normal(size=(15, 3))
    w = weight(pts)
    assert close(weight(pts[rng.permutation(15)]), w)
    assert close(weight(pts + np.array([10.0, -4.0, 0.5])), w)
