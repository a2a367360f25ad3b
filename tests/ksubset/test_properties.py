"""Property tests: the guarantee chain and the bound chain on small instances.

For random instances with n <= 9 (so enumerating all subsets is cheap):

    bound <= OPT <= objective <= guarantee * OPT

for every heuristic, objective == OPT for every exact method, and for the
cheap lower bounds of ``optalloc.ksubset``:

    median-star bound (SAND2003 Lemma 4) <= neighbour bound <= OPT,
    axis bound <= OPT (with equality in one dimension).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ksubset_truth import as_rows, at_most, close, l1, naive_weight, optimum

from optalloc.ksubset import axis_bound, box_bound, gen_alg, lower_bound, neighbour_bound, solve, town_bound

# Derandomised (fixed examples, no example database written to disk) so the
# suite is reproducible; 60 examples of n <= 9 take about half a second.
PROPERTY = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def point_sets(draw, max_n=9, dims=(1, 2, 3)):
    """(points, k): small integer grids (many ties) or real coordinates."""
    d = draw(st.sampled_from(dims))
    n = draw(st.integers(1, max_n))
    if draw(st.booleans()):
        coord = st.integers(0, 3).map(float)
    else:
        coord = st.floats(-10, 10, allow_nan=False, allow_infinity=False, allow_subnormal=False)
    pts = np.array(draw(st.lists(st.lists(coord, min_size=d, max_size=d), min_size=n, max_size=n)))
    k = draw(st.integers(1, n))
    return pts, k


@st.composite
def mesh_sets(draw, max_n=9):
    """(cells, k, shape): distinct free cells of a small mesh in 1 to 3 dimensions."""
    d = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=d, max_size=d)))
    cells = math.prod(shape)
    flat = draw(st.lists(st.integers(0, cells - 1), min_size=1, max_size=min(max_n, cells), unique=True))
    pts = np.stack(np.unravel_index(np.array(flat), shape), axis=1)
    k = draw(st.integers(1, len(flat)))
    return pts, k, shape


def check_chain(res, opt):
    """bound <= OPT <= objective <= guarantee * OPT, and honest status."""
    assert at_most(opt, res.objective), (res.objective, opt)
    if res.guarantee is not None:
        assert at_most(res.objective, res.guarantee * opt), (res.objective, res.guarantee, opt)
    if res.bound is not None:
        assert at_most(res.bound, opt), (res.bound, opt)
    if res.status == "optimal":
        assert close(res.objective, opt)


@pytest.mark.parametrize("method", ["mm", "gen-alg", "mm-inc"])
@PROPERTY
@given(case=point_sets())
def test_heuristic_guarantee_chain(method, case):
    pts, k = case
    check_chain(solve(pts, k, method=method), optimum(pts, k))


@pytest.mark.parametrize("tie_break", [None, "default", (1, 1.0, -2.0, 0.5)], ids=["plain", "default", "vector"])
@PROPERTY
@given(case=mesh_sets())
def test_mc1x1_guarantee_chain(tie_break, case):
    pts, k, shape = case
    check_chain(solve(pts, k, method="mc1x1", shape=shape, tie_break=tie_break), optimum(pts, k))


@PROPERTY
@given(case=mesh_sets(), request=st.lists(st.integers(1, 3), min_size=3, max_size=3))
def test_mc_with_request_never_beats_optimum(case, request):
    pts, k, shape = case
    res = solve(pts, k, method="mc1x1", shape=shape, request=request[: len(shape)])
    assert res.guarantee is None
    check_chain(res, optimum(pts, k))


@PROPERTY
@given(case=point_sets())
def test_exact_methods_reach_optimum(case):
    pts, k = case
    opt = optimum(pts, k)
    methods = ["brute"] + (["line"] if pts.shape[1] == 1 else []) + (["k3"] if k == 3 else [])
    for method in methods:
        res = solve(pts, k, method=method)
        assert close(res.objective, opt), (method, res.objective, opt)
        assert res.status == "optimal" and res.guarantee == 1.0


@PROPERTY
@given(case=point_sets(max_n=9), ring=st.sampled_from([5.0, 8.0, 12.5]))
def test_ring_is_exact(case, ring):
    pts, k = case
    pos = np.mod(pts[:, 0], ring)
    pos[pos >= ring] = 0.0  # np.mod(-1e-300, L) rounds to L
    res = solve(pos, k, method="line", ring_length=ring)
    assert close(res.objective, optimum(pos, k, ring_length=ring))


def median_star_bound(pts: np.ndarray, k: int) -> float:
    """SAND2003 Lemma 4: W(OPT) >= k/2 * (length of the shortest k-star).

    The shortest star of k input points is centred at a coordinate-wise
    median, hence at a point of the coordinate grid; computed by loops.
    """
    axes = [sorted(set(pts[:, a].tolist())) for a in range(pts.shape[1])]
    best = math.inf
    for centre in np.array(np.meshgrid(*axes, indexing="ij")).reshape(len(axes), -1).T:
        dists = sorted(l1(centre, p) for p in pts)
        best = min(best, sum(dists[:k]))
    return k / 2 * best


@PROPERTY
@given(case=point_sets())
def test_bound_chain(case):
    pts, k = case
    pts = as_rows(pts)
    opt = optimum(pts, k)
    star, nb, ax = median_star_bound(pts, k), neighbour_bound(pts, k), axis_bound(pts, k)
    town, box = town_bound(pts, k), box_bound(pts, k)
    assert at_most(star, nb), (star, nb)  # "dominates the median-star bound"
    assert at_most(nb, opt), (nb, opt)
    assert at_most(ax, opt), (ax, opt)
    assert at_most(town, opt), (town, opt)
    assert at_most(box, opt), (box, opt)
    if box:  # the rectangle holds every town of its size
        assert at_most(town, box), (town, box)
    if pts.shape[1] == 1:
        assert close(ax, opt)  # one axis: the exact sliding window
    bounds = lower_bound(pts, k)
    assert at_most(bounds["profile"], opt)
    if pts.shape[1] == 2:  # the profile bound is 2D only (0 in 3D, where the box bound is the cuboid's)
        assert at_most(box, bounds["profile"])
    assert bounds == {"neighbour": nb, "axis": ax, "town": town, "box": box, "profile": bounds["profile"]}


@pytest.mark.parametrize("method", ["mm", "gen-alg", "mm-inc"])
@PROPERTY
@given(case=point_sets())
def test_reported_bound_uses_neighbour_bound_and_guarantee(method, case):
    # Documented: bound = max(neighbour bound, town bound, W / guarantee),
    # never above W.
    pts, k = case
    res = solve(pts, k, method=method)
    assert at_most(neighbour_bound(as_rows(pts), k), res.bound)
    assert at_most(town_bound(as_rows(pts), k), res.bound)
    assert at_most(res.objective / res.guarantee, res.bound)
    assert at_most(res.bound, res.objective)


@PROPERTY
@given(case=point_sets())
def test_mm_no_worse_than_gen_alg(case):
    # MM's centres (the coordinate grid) include every input point, Gen-Alg's
    # centres, and both take the same k nearest around a common centre.
    pts, k = case
    assert at_most(solve(pts, k, method="mm").objective, solve(pts, k, method="gen-alg").objective)


@PROPERTY
@given(case=point_sets(), descents=st.integers(1, 9))
def test_gen_alg_descents(case, descents):
    # the lightest set of the descents: within the guarantee, no heavier than
    # Gen-Alg's own set, and no single swap lowers its W
    pts, k = case
    plain = gen_alg(pts, k)
    res = gen_alg(pts, k, descents=descents)
    check_chain(res, optimum(pts, k))
    assert at_most(res.objective, plain.objective)
    assert close(res.extra["gen_alg_objective"], plain.objective)
    chosen = set(res.indices.tolist())
    for u in chosen:
        for v in set(range(len(pts))) - chosen:
            swapped = sorted(chosen - {u} | {v})
            assert at_most(res.objective, naive_weight(as_rows(pts)[swapped]))


@PROPERTY
@given(st.lists(st.integers(-50, 400), min_size=1, max_size=40), st.integers(0, 45),
       st.sampled_from(["int64", "int32", "uint16", "float64"]))
def test_half_least_counts_as_the_sort(values, k, dtype):
    """The k least values summed (counted by value for integers of a
    narrow range) equal the sorted sum, whatever k and the integer type."""
    from optalloc.ksubset._common import half_least

    v = np.array(values)
    if dtype == "uint16":
        v = v - v.min()
    v = v.astype(dtype)
    want = 0.5 * float(np.sort(v)[:k].sum()) if k else 0.0
    assert half_least(v, k) == want
