"""The optimum of a full 3D box: branch-and-bound over plane partitions."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.ksubset import box_bound, box_optimum, cuboid_optimum, exact, weight
from optalloc.ksubset.search._box import fit_in


def cuboid(a, b, c):
    return np.array(list(itertools.product(range(a), range(b), range(c))))


def brute_box(sides, k):
    """Least W over every k-subset of the box, by enumeration."""
    pts = cuboid(*sides)
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
    best = math.inf
    combos = itertools.combinations(range(len(pts)), k)
    while chunk := list(itertools.islice(combos, 20_000)):
        idx = np.array(chunk)
        best = min(best, int(dist[idx[:, :, None], idx[:, None, :]].sum(axis=(1, 2)).min()) // 2)
    return best


CASES = [(sides, k) for sides in [(2, 2, 2), (3, 2, 2), (2, 3, 2), (2, 2, 3), (3, 3, 2), (4, 3, 2), (2, 4, 3)]
         for k in range(1, math.prod(sides) + 1) if math.comb(math.prod(sides), k) <= 60_000]


@pytest.mark.parametrize(("sides", "k"), CASES)
def test_cuboid_optimum_equals_enumeration(sides, k):
    value, cells = cuboid_optimum(*sides, k)
    assert value == brute_box(sides, k)
    # the set returned lies in the box, has k distinct cells and costs the value
    assert cells.shape == (k, 3) and len(np.unique(cells, axis=0)) == k
    assert (cells >= 0).all() and (cells < np.array(sides)).all()
    assert weight(cells) == value


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.data())
def test_flat_box_is_the_rectangle(a, b, data):
    # one layer: the 3D search must give the 2D box optimum, whichever axis is flat
    k = data.draw(st.integers(1, a * b))
    flat = data.draw(st.sampled_from([(a, b, 1), (a, 1, b), (1, a, b)]))
    assert cuboid_optimum(*flat, k)[0] == box_optimum(a, b, k)[0]


def test_cube_and_node_limit():
    value, cells = cuboid_optimum(8, 8, 5, 27)
    assert value == 972  # the 3 x 3 x 3 cube (the LP stalls at 745 on it)
    assert sorted((cells.max(axis=0) - cells.min(axis=0) + 1).tolist()) == [3, 3, 3]
    assert cuboid_optimum(8, 8, 5, 40, nodes=100) is None  # about 27,000 nodes needed
    assert cuboid_optimum(8, 8, 5, 40, nodes=0) is None
    # an 8 x 8 cross-section has ten times the diagrams of 8 x 5, so a tenth of the nodes
    assert cuboid_optimum(8, 8, 8, 27)[0] == 972
    assert cuboid_optimum(8, 8, 8, 27, nodes=2_000) is None


def test_exact_proves_empty_and_nearly_empty_3d_machines():
    machine = cuboid(8, 8, 5)
    res = exact(machine, 27, time_limit=20)
    assert res.status == "optimal" and res.objective == 972 and res.extra["phase"] == "box"
    busy = (machine[:, 0] >= 6) & (machine[:, 1] >= 6)  # a corner busy: the cube still fits
    res = exact(machine[~busy], 27, time_limit=20)
    assert res.status == "optimal" and res.objective == 972 and res.extra["phase"] == "box"
    assert box_bound(machine, 27) == 972.0


def test_fit_in_three_dimensions():
    shape = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]])  # a twisted chain
    # the same chain with its axes permuted and mirrored, moved, among other points
    turned = shape[:, [2, 0, 1]] * np.array([1, -1, 1]) + np.array([5, 7, 2])
    free = np.vstack([[[0, 0, 0], [9, 9, 9]], turned])
    found = fit_in(free, shape)
    assert found is not None and sorted(found.tolist()) == [2, 3, 4, 5]
    assert fit_in(free[:-1], shape) is None
    # points spread too far for integer codes of the whole box
    far = np.vstack([free, [[-(10**9), 10**9, 10**9]]])
    assert sorted(fit_in(far, shape).tolist()) == [2, 3, 4, 5]
    assert fit_in(np.vstack([free[:-1], far[-1:]]), shape) is None


@pytest.mark.parametrize(("args", "match"), [
    ((0, 2, 2, 1), "positive sides"),
    ((2, 2, 2, 9), "k must be between 1 and 8"),
    ((2, 2, 2, 0), "k must be between"),
])
def test_cuboid_optimum_errors(args, match):
    with pytest.raises(ValueError, match=match):
        cuboid_optimum(*args)
