"""The strip-enumeration PTAS: exact with m = k, within its factor otherwise,
in the plane and in space."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ksubset_truth import at_most, close, optimum

from optalloc.ksubset import mm_inc, ptas, solve
from optalloc.ksubset.heuristics._ptas import _tables, ptas_guarantee


def assert_exact_at_m_equal_k(pts, k):
    res = ptas(pts, k, m=k)
    assert res.status == "optimal" and res.guarantee == 1.0
    assert close(res.objective, optimum(pts, k))


@st.composite
def plane_sets(draw):
    n = draw(st.integers(1, 8))
    coord = st.integers(0, 4).map(float) if draw(st.booleans()) else st.floats(0, 10, allow_nan=False)
    pts = np.array(draw(st.lists(st.tuples(coord, coord), min_size=n, max_size=n)))
    return pts, draw(st.integers(1, min(n, 4)))


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(case=plane_sets())
def test_m_equal_k_is_exact(case):
    assert_exact_at_m_equal_k(*case)


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


@pytest.mark.parametrize("d, sizes", [(1, [2, 1, 1]), (2, [2, 1, 1]), (3, [2, 1])])
def test_tables_are_all_those_with_the_margins(d, sizes):
    sizes = np.array(sizes)
    rng = np.random.default_rng(d)
    cap = rng.integers(0, 3, size=(len(sizes),) * d)
    seen = {t.tobytes() for t in _tables(sizes, cap)}
    # every table with entries <= cap and the margins, by brute force
    want = set()
    for flat in itertools.product(*(range(c + 1) for c in cap.ravel())):
        t = np.array(flat, dtype=np.int64).reshape(cap.shape)
        axes = [tuple(b for b in range(d) if b != a) for a in range(d)]
        if all((t.sum(axis=ax) == sizes).all() for ax in axes):
            want.add(t.tobytes())
    assert seen == want


@st.composite
def space_sets(draw, most=5):
    n = draw(st.integers(1, most))
    coord = st.integers(0, 2).map(float)
    pts = np.array(draw(st.lists(st.tuples(coord, coord, coord), min_size=n, max_size=n)))
    return pts, draw(st.integers(1, min(n, 3)))


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(case=space_sets())
def test_m_equal_k_is_exact_in_space(case):
    assert_exact_at_m_equal_k(*case)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(case=space_sets(most=6), m=st.integers(1, 2))
def test_smaller_m_in_space_is_feasible(case, m):
    pts, k = case
    m = min(m, k)
    res = ptas(pts, k, m=m)
    assert at_most(optimum(pts, k), res.objective)
    assert len(set(res.indices.tolist())) == k
    assert res.guarantee == (1.0 if m == k else None)  # no factor is stated for d > 2


def test_space_square_against_spread_corner():
    # a unit square (W = 8) far from the corner of a cube (W = 9): with two
    # slices per axis the PTAS finds the square, as the optimum
    corner = [(10, 10, 10), (11, 10, 10), (10, 11, 10), (10, 10, 11)]
    square = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
    pts = np.array(corner + square, dtype=float)
    res = ptas(pts, 4, m=2)
    assert res.objective == optimum(pts, 4) == 8
    assert res.indices.tolist() == [4, 5, 6, 7]


@pytest.mark.parametrize(
    "kwargs, match",
    [({"m": 0}, "`m` must be between 1 and k"), ({"m": 5}, "`m` must be between 1 and k"),
     ({"m": 2.0}, "`m` must be an integer"), ({"time_limit": 0}, "`time_limit` must be positive")],
)
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ptas([[0, 0], [1, 1], [2, 2], [3, 3]], 4, **kwargs)


def test_factor_only_in_the_plane():
    assert ptas_guarantee(4, 8, d=3) is None and ptas_guarantee(4, 8, d=1) is None
    assert ptas_guarantee(3, 3, d=3) == 1.0


def test_refuses_what_could_not_be_listed_even_with_a_time_limit():
    pts = np.array([(x, y) for x in range(20) for y in range(20)], dtype=float)
    with pytest.raises(ValueError, match="would list .* boundary vectors per axis"):
        ptas(pts, 8, m=4, time_limit=1.0)


def test_time_limit_while_listing_boundaries_returns_the_starting_set():
    # 2.9 million boundary vectors per axis: listing them takes about a minute
    pts = np.array([(x, y, z) for x in range(5) for y in range(5) for z in range(4)], dtype=float)
    res = ptas(pts, 12, m=3, time_limit=0.2)
    assert res.termination == "time_limit" and res.guarantee is None
    assert res.extra["structures"] == 0 and res.objective == mm_inc(pts, 12).objective


def test_refuses_what_would_not_finish():
    # 32509 boundary vectors per axis: listed quickly, but 1.06e9 pairs
    pts = np.array([(x, y) for x in range(8) for y in range(8)], dtype=float)
    with pytest.raises(ValueError, match="would enumerate 1.06e[+]09 combinations of slice boundaries"):
        ptas(pts, 8, m=2)
