"""Box orderings: every node once, step lengths, and input checks."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.curves import box_order, gilbert, hilbert, row_major, snake


def visits_every_node_once(coords, shape):
    coords = np.asarray(coords)
    assert coords.shape == (int(np.prod(shape)), len(shape))
    assert coords.dtype.kind == "i"
    assert (coords >= 0).all() and (coords < np.array(shape)).all()
    flat = np.ravel_multi_index(coords.T, shape)
    assert len(np.unique(flat)) == len(flat)


def steps(coords):
    return np.abs(np.diff(coords, axis=0)).sum(axis=1)


shapes = st.one_of(
    st.tuples(st.integers(1, 20), st.integers(1, 20)),
    st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9)),
)


@settings(max_examples=60, deadline=None)
@given(shapes)
def test_row_major_snake_gilbert_visit_every_node_once(shape):
    for fn in (row_major, snake, gilbert):
        visits_every_node_once(fn(shape), shape)


def test_row_major_has_x_fastest():
    c = row_major((2, 3, 2))
    assert c[:3].tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert c[-1].tolist() == [1, 2, 1]


@settings(max_examples=60, deadline=None)
@given(shapes)
def test_snake_has_unit_steps(shape):
    assert np.all(steps(snake(shape)) == 1)


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (4, 4), (8, 8), (32, 32), (2, 2, 2), (4, 4, 4), (8, 8, 8)])
def test_hilbert_has_unit_steps(shape):
    c = hilbert(shape)
    visits_every_node_once(c, shape)
    assert np.all(steps(c) == 1)
    assert c[0].tolist() == [0] * len(shape)


def test_hilbert_2d_is_self_similar():
    # the first quarter of a Hilbert curve fills one quadrant
    c = hilbert((16, 16))
    q = c[:64]
    assert (q.max(axis=0) - q.min(axis=0)).tolist() == [7, 7]


def parity_allows_unit_steps(shape):
    """A corner-to-corner unit-step path along the longest side exists."""
    major = max(range(len(shape)), key=lambda i: (shape[i], -i))
    others = [s for i, s in enumerate(shape) if i != major]
    return shape[major] % 2 == 0 or all(s % 2 for s in others)


@pytest.mark.parametrize("w", range(1, 13))
def test_gilbert_2d_steps(w):
    for h in range(1, 13):
        c = gilbert((w, h))
        visits_every_node_once(c, (w, h))
        s = steps(c)
        non_unit = s[s != 1]
        # at most one diagonal step, and only where parity forces it
        assert len(non_unit) <= 1 and np.all(non_unit == 2)
        if parity_allows_unit_steps((w, h)):
            assert len(non_unit) == 0, (w, h)
        # no diagonal step ever changes more than one unit per axis
        assert np.abs(np.diff(c, axis=0)).max(initial=0) <= 1


def test_gilbert_2d_takes_a_diagonal_step_where_documented():
    assert np.sum(steps(gilbert((15, 12))) != 1) == 1
    assert np.sum(steps(gilbert((12, 15))) != 1) == 1


@pytest.mark.parametrize("shape", [s for s in itertools.product([2, 4, 6, 8, 10], repeat=3)][::3])
def test_gilbert_3d_even_boxes_have_unit_steps(shape):
    c = gilbert(shape)
    visits_every_node_once(c, shape)
    assert np.all(steps(c) == 1)


@pytest.mark.parametrize("shape", [(3, 3, 3), (5, 4, 3), (7, 6, 4), (8, 8, 5), (9, 5, 2), (12, 3, 7), (1, 6, 5),
                                   (11, 11, 11), (16, 15, 3)])
def test_gilbert_3d_odd_boxes(shape):
    c = gilbert(shape)
    visits_every_node_once(c, shape)
    s = steps(c)
    # documented: a few non-unit steps, each of L1 length at most 4
    assert s.max() <= 4
    assert np.sum(s != 1) <= 66


def test_gilbert_8x8x5_non_unit_steps():
    assert np.sum(steps(gilbert((8, 8, 5))) != 1) == 4


def test_gilbert_on_power_of_two_is_a_hilbert_curve():
    for shape in [(8, 8), (4, 4, 4)]:
        assert np.all(steps(gilbert(shape)) == 1)
        q = gilbert(shape)[: len(gilbert(shape)) // 2 ** len(shape)]
        assert np.all(q.max(axis=0) - q.min(axis=0) == shape[0] // 2 - 1)


def test_gilbert_major_axis_is_the_longest_side():
    for shape in [(3, 9), (4, 2, 9), (2, 7, 3)]:
        c = gilbert(shape)
        major = int(np.argmax(shape))
        assert c[0].tolist() == [0] * len(shape)
        assert c[-1][major] == shape[major] - 1


def test_box_order_dispatches():
    for name, fn in [("row_major", row_major), ("snake", snake), ("gilbert", gilbert), ("hilbert", hilbert)]:
        assert np.array_equal(box_order((4, 4), name), fn((4, 4)))


@pytest.mark.parametrize("fn", [row_major, snake, hilbert, gilbert])
@pytest.mark.parametrize("shape, match", [
    ((4,), "2 or 3 dimensions"),
    ((2, 2, 2, 2), "2 or 3 dimensions"),
    ((4, 0), "positive"),
    ((4, -2), "positive"),
    ((4, 2.5), "positive integers"),
    ("ab", "positive integers"),
    (5, "positive integers"),
])
def test_bad_shapes(fn, shape, match):
    with pytest.raises(ValueError, match=match):
        fn(shape)


@pytest.mark.parametrize("shape", [(6, 6), (8, 4), (4, 4, 2), (3, 3)])
def test_hilbert_refuses_other_boxes(shape):
    with pytest.raises(ValueError, match="use gilbert"):
        hilbert(shape)


def test_box_order_bad_method():
    with pytest.raises(ValueError, match="`method` must be one of"):
        box_order((4, 4), "peano")


def test_numpy_integer_sides():
    assert np.array_equal(gilbert((np.int64(5), np.int32(3))), gilbert((5, 3)))
