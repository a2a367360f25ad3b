"""The strip-enumeration PTAS: exact with m = k, within its factor otherwise."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.ksubset import ptas, solve
from optalloc.ksubset._ptas import _tables, ptas_guarantee

from ksubset_truth import at_most, close, optimum


@st.composite
def plane_sets(draw):
    n = draw(st.integers(1, 8))
    coord = st.integers(0, 4).map(float) if draw(st.booleans()) else st.floats(0, 10, allow_nan=False)
    pts = np.array(draw(st.lists(st.tuples(coord, coord), min_size=n, max_size=n)))
    return pts, draw(st.integers(1, min(n, 4)))


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(case=plane_sets())
def test_m_equal_k_is_exact(case):
    pts, k = case
    res = ptas(pts, k, m=k)
    assert res.status == "optimal" and res.guarantee == 1.0
    assert close(res.objective, optimum(pts, k))


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(case=plane_sets(), m=st.integers(1, 4))
def test_smaller_m_is_feasible_and_within_its_factor(case, m):
    pts, k = case
    m = min(m, k)
    res = ptas(pts, k, m=m)
    opt = optimum(pts, k)
    assert at_most(opt, res.objective)
    if res.guarantee is not None:
        assert at_most(res.objective, res.guarantee * opt)


def test_mesh_with_shared_coordinates():
    # a full 3 x 2 mesh: every column and row is a tie group
    pts = np.array([(x, y) for x in range(3) for y in range(2)], dtype=float)
    for k in (2, 3, 4):
        assert solve(pts, k, method="ptas", m=k).objective == optimum(pts, k)


def test_factor():
    assert ptas_guarantee(8, 8) == 1.0
    assert ptas_guarantee(3, 6) is None  # the factor is negative for m = 3
    assert ptas_guarantee(4, 6) is None  # k not a multiple of m
    assert ptas_guarantee(4, 8) == pytest.approx(1 / (1 - 1 / 4 - 2 / 3))
    assert ptas_guarantee(10, 20) == pytest.approx(1 / (1 - 1 / 16 - 2 / 9))


def test_tables_have_the_margins():
    rows = np.array([2, 1, 1])
    cap = np.full((3, 3), 2)
    seen = [t.copy() for t in _tables(rows.copy(), rows.copy(), cap)]
    assert len({t.tobytes() for t in seen}) == len(seen) > 0
    for t in seen:
        assert (t.sum(axis=1) == rows).all() and (t.sum(axis=0) == rows).all() and (t <= cap).all()


@pytest.mark.parametrize(
    "kwargs, match",
    [({"m": 0}, "`m` must be between 1 and k"), ({"m": 5}, "`m` must be between 1 and k"),
     ({"m": 2.0}, "`m` must be an integer"), ({"time_limit": 0}, "`time_limit` must be positive")],
)
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ptas([[0, 0], [1, 1], [2, 2], [3, 3]], 4, **kwargs)


def test_plane_only():
    with pytest.raises(ValueError, match="in the plane"):
        ptas([[0, 0, 0], [1, 1, 1]], 2)


def test_refuses_what_would_not_finish():
    pts = np.array([(x, y) for x in range(12) for y in range(12)], dtype=float)
    with pytest.raises(ValueError, match="would enumerate .* pairs of strip boundaries"):
        ptas(pts, 8, m=4)
