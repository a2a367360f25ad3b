"""The strip-enumeration PTAS: exact with m = k, within its factor otherwise,
in the plane and in space; its pruned search against every structure, and
its bounds against brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ksubset_truth import at_most, close, naive_weight, optimum

from optalloc.ksubset import mm_inc, ptas, solve
from optalloc.ksubset.heuristics.strips._ptas import _enumerate, _Instance, _sizes, ptas_guarantee
from optalloc.ksubset.heuristics.strips._ptasaxis import axis_tables, axis_vectors


def assert_exact_at_m_equal_k(pts, k):
    res = ptas(pts, k, m=k)
    assert res.status == "optimal" and res.guarantee == 1.0
    assert close(res.objective, optimum(pts, k))


@st.composite
def plane_sets(draw, most=8):
    n = draw(st.integers(1, most))
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


# ---------------------------------------------------------------- the method, written out


def orders_of(pts):
    """Per axis, the points by (that coordinate, the others, index)."""
    n, d = pts.shape
    return [sorted(range(n), key=lambda p: (pts[p, a], *[pts[p, b] for b in range(d) if b != a], p))
            for a in range(d)]


def pin_vectors(n, sizes):
    """Every b_1 < ... < b_{m-1} leaving slice i at least s_i ranks (slice 0 from rank 0, the last to n)."""
    m = len(sizes)
    for pins in itertools.combinations(range(n), m - 1):
        bounds = (0, *pins, n)
        if all(bounds[i + 1] - bounds[i] >= sizes[i] for i in range(m)):
            yield pins


def every_structure(pts, k, m):
    """W of the lightest set over every structure, by plain enumeration:
    pins per axis, then every table; each cell keeps its pins and takes its
    other points least in direction g (ties by index)."""
    n, d = pts.shape
    sizes = [k // m + (i < k % m) for i in range(m)]
    before = [sum(sizes[:i]) for i in range(m)]
    g = [before[i] - (k - before[i] - sizes[i]) for i in range(m)]
    orders = orders_of(pts)
    rank = [{p: r for r, p in enumerate(orders[a])} for a in range(d)]
    best = np.inf
    for vecs in itertools.product(*[list(pin_vectors(n, sizes)) for _ in range(d)]):
        sl = [[sum(b <= rank[a][p] for b in vecs[a]) for p in range(n)] for a in range(d)]
        pins = {orders[a][b] for a in range(d) for b in vecs[a]}
        cells = {}
        for p in range(n):
            cells.setdefault(tuple(sl[a][p] for a in range(d)), []).append(p)
        free = {c: sorted((p for p in ps if p not in pins),
                          key=lambda p: (sum(g[sl[a][p]] * pts[p, a] for a in range(d)), p)) for c, ps in cells.items()}
        keys = list(free)
        for counts in itertools.product(*[range(len(free[c]) + 1) for c in keys]):
            chosen = list(pins) + [p for c, t in zip(keys, counts) for p in free[c][:t]]
            if all(sum(sl[a][p] == i for p in chosen) == sizes[i] for a in range(d) for i in range(m)):
                best = min(best, naive_weight(pts[chosen]))
    return best


@st.composite
def tiny_sets(draw):
    d = draw(st.integers(1, 3))
    n = draw(st.integers(2, 6 if d < 3 else 5))
    coord = st.integers(0, 3).map(float) if draw(st.booleans()) else st.floats(0, 10, allow_nan=False)
    pts = np.array(draw(st.lists(st.tuples(*[coord] * d), min_size=n, max_size=n)))
    k = draw(st.integers(1, min(n, 4)))
    return pts, k, draw(st.integers(1, k if d < 3 else min(k, 2)))


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(case=tiny_sets())
def test_pruned_search_finds_the_lightest_set_of_every_structure(case):
    pts, k, m = case
    full = every_structure(pts, k, m)
    assert close(_enumerate(pts, k, m, prune=False)[0], full)
    w, chosen = _enumerate(pts, k, m)
    assert close(w, full) and close(naive_weight(pts[chosen]), w)
    assert close(ptas(pts, k, m=m).objective, min(full, mm_inc(pts, k).objective))


@pytest.mark.parametrize("seed", range(6))
def test_axis_bounds_never_exceed_the_lightest_fitting_set(seed):
    # every k-set fits one pin vector per axis (its points at positions
    # before_i); each listed bound is at most the least W of those sets
    rng = np.random.default_rng(seed)
    n, d = 7, 2 + seed % 2
    pts = rng.integers(0, 4, size=(n, d)).astype(float) if seed < 3 else rng.random((n, d)) * 5
    k, m = 4, 2 + seed % 3
    inst = _Instance(pts, k, incumbent=False)
    sizes = _sizes(k, m)
    before = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    g = (before - (k - before - sizes)).astype(float)
    tables = [axis_tables(inst.coord[a], sizes, k) for a in range(d)]
    least = np.array([t[2][0, 0] for t in tables])
    orders = orders_of(pts)
    for a in range(d):
        V, B, _, X, Z, _ = axis_vectors(inst.coord[a], tables[a], sizes, k, g, inst.pts, inst.order, inst.coord, a,
                                        inst.alive, least, inst.opt1, np.inf, 10**6, 0, n)
        listed = {tuple(v): (b, x, z) for v, b, x, z in zip(V.tolist(), B, X, Z)}
        lightest = {}
        for chosen in itertools.combinations(range(n), k):
            ranks = sorted(orders[a].index(p) for p in chosen)
            key = tuple(ranks[i] for i in before[1:])
            w = [naive_weight(pts[list(chosen)][:, [e]]) for e in range(d)]
            old = lightest.get(key, [np.inf] * (d + 1))
            lightest[key] = [min(o, v) for o, v in zip(old, [*w, sum(w)])]
        assert set(lightest) <= set(listed)  # nothing that holds a set is missing
        for key, least_w in lightest.items():
            b, x, z = listed[key]
            assert at_most(b, least_w[a]) and at_most(z, least_w[d])
            assert all(at_most(x[e], least_w[e]) for e in range(d) if e != a)
    assert least.sum() <= optimum(pts, k) + 1e-9


def test_mesh_with_shared_coordinates():
    # a full 3 x 2 mesh: every column and row is a tie group
    pts = np.array([(x, y) for x in range(3) for y in range(2)], dtype=float)
    for k in (2, 3, 4):
        assert solve(pts, k, method="ptas", m=k).objective == optimum(pts, k)


def test_m_equal_k_on_sixteen_mesh_points_is_exact_and_quick():
    from optalloc.bench import half_free_mesh

    pts = half_free_mesh(6, 6, seed=1)[:16]
    for k in (4, 6):
        res = ptas(pts, k, m=k)
        assert res.status == "optimal" and close(res.objective, optimum(pts, k))


def test_factor():
    assert ptas_guarantee(8, 8) == 1.0
    assert ptas_guarantee(3, 6) is None  # the factor is negative for m = 3
    assert ptas_guarantee(4, 6) is None  # k not a multiple of m
    assert ptas_guarantee(4, 8) == pytest.approx(1 / (1 - 1 / 4 - 2 / 3))
    assert ptas_guarantee(10, 20) == pytest.approx(1 / (1 - 1 / 16 - 2 / 9))


def test_factor_only_in_the_plane():
    assert ptas_guarantee(4, 8, d=3) is None and ptas_guarantee(4, 8, d=1) is None
    assert ptas_guarantee(3, 3, d=3) == 1.0


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
     ({"m": 2.0}, "`m` must be an integer"), ({"time_limit": 0}, "`time_limit` must be positive"),
     ({"budget": -1.0}, "`budget` must be positive"), ({"limit": 0}, "`limit` must be positive")],
)
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ptas([[0, 0], [1, 1], [2, 2], [3, 3]], 4, **kwargs)


def sixty_mesh_points():
    from optalloc.bench import half_free_mesh

    return half_free_mesh(16, 16, seed=0)[:60]


def test_refuses_to_list_more_vectors_than_the_limit():
    with pytest.raises(ValueError, match=r"^the PTAS would list more than 3 boundary vectors on axis 0 \(n = 60"):
        ptas(sixty_mesh_points(), 12, m=4, limit=3)


def test_time_limit_returns_the_best_set_so_far():
    pts = np.array([(x, y) for x in range(11) for y in range(11)], dtype=float)
    res = ptas(pts, 18, m=5, time_limit=0.05)  # listing the boundaries alone takes longer
    assert res.termination == "time_limit" and res.guarantee is None
    assert res.objective <= mm_inc(pts, 18).objective


def test_progress_is_called_with_the_structures_examined():
    calls = []
    res = ptas(sixty_mesh_points(), 12, m=4, progress=lambda done, total: calls.append((done, total)))
    assert calls and all(total is None or 0 <= done <= total for done, total in calls)
    assert calls[-1][0] == res.extra["combinations"] and calls[-1][1] == res.extra["structures_max"]
