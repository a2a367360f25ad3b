"""The search over shapes (optalloc.ksubset.search._shapesearch) against enumeration.

Its premises are checked on every optimal set of small instances (each is
the set of free cells below a level of its own potential A(x) + B(y), with
a margin; its rows, taken in the order of B, take nested intervals), its
bound on the points still to place against the optimal sets it must not
cut, and its answers against enumeration.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ksubset_truth import brute_k, naive_weight, optimal_subsets, optimum

from optalloc.bench import half_free_mesh
from optalloc.ksubset import exact, shape_search
from optalloc.ksubset.engine._star import star_bound
from optalloc.ksubset.search import _shapesearch as shapesearch
from optalloc.ksubset.search._shapebounds import _balance, _box_table, _rest, _spread_ok
from optalloc.ksubset.search._shapesearch import shape_grid, shape_search_grid


def random_cells(rng, rows, cols, share, spread=1):
    """Free cells of a rows x cols grid (x, y), columns ``spread`` apart in x."""
    cells = np.array([(spread * x, y) for y in range(rows) for x in range(cols)], dtype=float)
    keep = rng.random(len(cells)) < share
    return cells[keep] if keep.sum() >= 2 else cells


def potentials(points, chosen):
    """grad(z) = sum over the chosen of |z - s|_1, for every point z."""
    s = points[list(chosen)]
    return np.abs(points[:, None, :] - s[None, :, :]).sum(axis=(1, 2))


def test_every_optimal_set_is_a_level_set_of_its_potential():
    # grad(v) - grad(u) >= |u - v|_1 for u in S and v outside, on every optimal set
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(150):
        pts = random_cells(rng, int(rng.integers(2, 5)), int(rng.integers(2, 5)), rng.uniform(0.4, 1.0))
        k = int(rng.integers(2, len(pts) + 1))
        for sub in optimal_subsets(pts, k):
            grad = potentials(pts, sub)
            out = [v for v in range(len(pts)) if v not in sub]
            for u, v in itertools.product(sub, out):
                assert grad[v] - grad[u] >= np.abs(pts[u] - pts[v]).sum() - 1e-9
            checked += 1
    assert checked > 150


def test_rows_of_every_optimal_set_take_nested_intervals_in_potential_order():
    rng = np.random.default_rng(1)
    for _ in range(120):
        pts = random_cells(rng, int(rng.integers(2, 5)), int(rng.integers(2, 5)), rng.uniform(0.4, 1.0))
        k = int(rng.integers(2, len(pts) + 1))
        for sub in optimal_subsets(pts, k):
            chosen = pts[list(sub)]
            ys = np.unique(pts[:, 1])
            B = np.array([np.abs(y - chosen[:, 1]).sum() for y in ys])
            order = ys[np.argsort(B, kind="stable")]
            # the rows in B order grow an interval of rows (B is convex) ...
            seen = []
            for y in order:
                seen.append(y)
                idx = np.searchsorted(ys, sorted(seen))
                assert idx[-1] - idx[0] == len(seen) - 1
            # ... and each row's cells lie in the largest interval of every
            # row before it that avoids that row's free cells left out
            for a, b in itertools.combinations(order, 2):
                row_b = chosen[chosen[:, 1] == b][:, 0]
                if len(row_b) == 0:
                    continue
                left_out = [x for x in pts[pts[:, 1] == a][:, 0] if not ((chosen[:, 1] == a) & (chosen[:, 0] == x)).any()]
                taken = chosen[chosen[:, 1] == a][:, 0]
                if len(taken) == 0:  # a gap: no cell left out between b's cells
                    assert not any(row_b.min() <= x <= row_b.max() for x in left_out)
                else:
                    lo, hi = min(taken.min(), row_b.min()), max(taken.max(), row_b.max())
                    assert not any(lo <= x <= hi for x in left_out)


def test_box_table_bounds_every_free_set():
    rng = np.random.default_rng(2)
    for _ in range(60):
        rows, cols = int(rng.integers(2, 5)), int(rng.integers(2, 5))
        pts = random_cells(rng, rows, cols, rng.uniform(0.3, 1.0))
        table = _box_table(cols, rows, len(pts))
        for m in range(2, len(pts) + 1):
            assert table[m] <= optimum(pts, m) + 1e-9
    full = np.array([(x, y) for y in range(4) for x in range(5)], dtype=float)
    table = _box_table(5, 4, 20)
    assert all(table[m] == optimum(full, m) for m in range(2, 12))  # equal on the full box


def test_box_table_past_its_deadline_stays_below_the_box_optima():
    """A table cut short by its deadline takes the recurrence from there:
    never above the full table (so still a bound), and it is not kept."""
    from optalloc.ksubset.search import _shapebounds

    full = _box_table(6, 5, 24)
    short = _box_table(6, 5, 23, np.array([-np.inf]))  # the deadline has passed after m = 2
    assert short[2] == full[2] == 1
    assert np.all(short <= full[:24] + 1e-9) and np.any(short < full[:24])
    assert (6, 5, 23) not in _shapebounds._TABLES and (6, 5, 24) in _shapebounds._TABLES
    assert _box_table(6, 5, 24) is full  # kept, not built again


def _state_after(pts, sub, rows_placed):
    """The search's state after the rows ``rows_placed`` (indices into the
    distinct y values, in the order placed) of the optimal set ``sub``."""
    grid = shape_grid(pts)
    chosen = np.zeros(grid.free.shape, dtype=bool)
    for i in sub:
        chosen[np.searchsorted(grid.ys, pts[i, 1]), np.searchsorted(grid.xs, pts[i, 0])] = True
    l, u = 0, len(grid.xs) - 1
    placed = []
    for y in rows_placed:
        free_x = np.flatnonzero(grid.free[y])
        taken = np.flatnonzero(chosen[y])
        if len(taken):
            left = free_x[(free_x < taken[0]) & ~chosen[y, free_x]]
            right = free_x[(free_x > taken[-1]) & ~chosen[y, free_x]]
            l, u = max(l, left.max() + 1 if len(left) else l), min(u, right.min() - 1 if len(right) else u)
        else:  # the gap between the row's free cells that holds the later rows
            later = [x for r in range(len(grid.ys)) if r not in rows_placed for x in np.flatnonzero(chosen[r])]
            if later:
                left = free_x[free_x < min(later)]
                right = free_x[free_x > max(later)]
                l, u = max(l, left.max() + 1 if len(left) else l), min(u, right.min() - 1 if len(right) else u)
        placed += [(grid.xs[x], grid.ys[y]) for x in taken]
    return grid, np.array(placed), l, u


def test_bound_on_the_rest_never_cuts_an_optimal_set():
    # for every optimal set, after each prefix of its rows in potential order,
    # the balance of the points left above and below is within the bounds
    # of _balance, their spread in x passes _spread_ok, and W(placed) + the
    # bound on the rest (told how many lie above) is at most the optimum
    rng = np.random.default_rng(3)
    for _ in range(120):
        pts = random_cells(rng, int(rng.integers(2, 6)), int(rng.integers(2, 6)), rng.uniform(0.4, 1.0))
        k = int(rng.integers(2, max(2, brute_k(len(pts), 8)) + 1))
        opt = optimum(pts, k)
        for sub in optimal_subsets(pts, k):
            grid = shape_grid(pts)
            B = np.array([np.abs(y - pts[list(sub), 1]).sum() for y in grid.ys])
            order = list(np.argsort(B, kind="stable"))
            for depth in range(1, len(order)):
                rows_placed = order[:depth]
                g, placed, l, u = _state_after(pts, sub, rows_placed)
                m = k - len(placed)
                if m == 0 or l > u:
                    break
                A = np.array([np.abs(x - placed[:, 0]).sum() for x in g.xs]) if len(placed) else np.zeros(len(g.xs))
                Bp = np.array([np.abs(y - placed[:, 1]).sum() for y in g.ys]) if len(placed) else np.zeros(len(g.ys))
                q, p = g.free.shape
                rowpref = np.zeros((q, p + 1), dtype=np.int64)
                rowpref[:, 1:] = np.cumsum(g.free, axis=1)
                colpref = np.zeros((p, q + 1), dtype=np.int64)
                colpref[:, 1:] = np.cumsum(g.free.T, axis=1)
                plane = _box_table(p, q, k)
                w = naive_weight(placed) if len(placed) > 1 else 0.0
                lo, hi = min(rows_placed), max(rows_placed)
                rest_y = pts[list(sub), 1]
                above = int((rest_y < g.ys[lo]).sum())
                d_true = above - int((rest_y > g.ys[hi]).sum())
                chosen = np.zeros(g.free.shape, dtype=np.int8)
                for x, y in placed:
                    chosen[np.searchsorted(g.ys, y), np.searchsorted(g.xs, x)] = 1
                dlo, dhi = _balance(g.free.astype(np.int8), chosen, Bp, g.ys, lo, hi)
                assert dlo <= d_true <= dhi, (pts.tolist(), k, sub, depth)
                A_full = np.array([np.abs(x - placed[:, 0]).sum() for x in g.xs])
                assert _spread_ok(g.free.astype(np.int8), chosen, A_full, g.xs, lo, hi, m), (pts.tolist(), k, sub, depth)
                bound = _rest(g.free.astype(np.int8), g.xs, g.ys, A, Bp, lo, hi, l, u, m,
                              rowpref, colpref, plane, math.inf, np.zeros(p, np.int64), np.zeros(q, np.int64),
                              np.zeros(p * q + 1), np.zeros(k + 1), np.zeros(k + 1), above, above)
                assert w + bound <= opt + 1e-9, (pts.tolist(), k, sub, depth)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), rows=st.integers(1, 5), cols=st.integers(2, 6), share=st.floats(0.3, 1.0),
       spread=st.sampled_from([1, 2]))
def test_shape_search_equals_enumeration(seed, rows, cols, share, spread):
    rng = np.random.default_rng(seed)
    pts = random_cells(rng, rows, cols, share, spread)
    k = int(rng.integers(2, max(2, brute_k(len(pts), 8)) + 1))
    opt = optimum(pts, k)
    value, idx, complete = shape_search_grid(shape_grid(pts), k, math.inf)
    assert complete and value == opt
    assert len(set(idx.tolist())) == k and naive_weight(pts[idx]) == value
    # searched just below the optimum: nothing, and the search ends (a proof)
    value, idx, complete = shape_search_grid(shape_grid(pts), k, opt - 1)
    assert complete and value == math.inf and idx is None


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), rows=st.integers(1, 6), cols=st.integers(2, 7), share=st.floats(0.3, 1.0),
       spread=st.sampled_from([1, 2]), steps=st.sampled_from([1, 30, 300]))
def test_shape_search_with_star_values_equals_enumeration(seed, rows, cols, share, spread, steps):
    # the stars' values bound every set below a node: searched at the
    # optimum the search still finds it, just below it finds nothing and ends
    rng = np.random.default_rng(seed)
    pts = random_cells(rng, rows, cols, share, spread)
    k = int(rng.integers(2, max(2, brute_k(len(pts), 9)) + 1))
    opt = optimum(pts, k)
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
    values = star_bound(dist, k, upper=opt, steps=steps).values
    value, idx, complete = shape_search_grid(shape_grid(pts), k, opt, values=values)
    assert complete and value == opt and naive_weight(pts[idx]) == opt
    value, idx, complete = shape_search_grid(shape_grid(pts), k, opt - 1, values=values)
    assert complete and value == math.inf and idx is None


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_value_tables_past_their_depth_keep_the_optimum(monkeypatch, depth):
    # tables shallower than k: each further point costs the last value tabled
    monkeypatch.setattr(shapesearch, "_VALUE_DEPTH", depth)
    rng = np.random.default_rng(depth)
    for _ in range(40):
        pts = random_cells(rng, int(rng.integers(2, 6)), int(rng.integers(2, 7)), 0.7)
        k = int(rng.integers(depth + 1, max(depth + 1, brute_k(len(pts), 9)) + 1)) if len(pts) > depth else len(pts)
        if k < 2:
            continue
        opt = optimum(pts, k)
        dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
        values = star_bound(dist, k, upper=opt, steps=200).values
        value, idx, complete = shape_search_grid(shape_grid(pts), k, opt, values=values)
        assert complete and value == opt, (pts.tolist(), k)
        assert shape_search_grid(shape_grid(pts), k, opt - 1, values=values)[::2] == (math.inf, True)


def test_star_values_cut_the_shape_search():
    # near the optimum the values prune nodes the search's own bounds keep
    pts = half_free_mesh(16, 16, seed=3)
    k = 40
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2).astype(float)
    opt = exact(pts, k).objective
    values = star_bound(dist, k, upper=opt, steps=2000).values
    grid = shape_grid(pts)
    # (the plain search takes about 20,000 nodes here, the fed one none)
    assert shape_search_grid(grid, k, opt - 1, node_limit=5000)[2] is False
    assert shape_search_grid(grid, k, opt - 1, node_limit=5000, values=values)[::2] == (math.inf, True)


@pytest.mark.parametrize(("k", "seed"), [(16, 0), (20, 1), (24, 2)])
def test_shape_search_agrees_with_the_lp_on_half_free_meshes(k, seed):
    pts = half_free_mesh(16, 16, seed=seed)
    lp = exact(pts, k, profiles=False)
    assert lp.status == "optimal"
    value, idx, complete = shape_search_grid(shape_grid(pts), k, lp.objective)
    assert complete and value == lp.objective and naive_weight(pts[idx]) == value
    assert shape_search_grid(shape_grid(pts), k, lp.objective - 1)[::2] == (math.inf, True)


def test_shape_search_stops_at_its_limits():
    pts = half_free_mesh(16, 16, seed=0)
    value, idx, complete = shape_search_grid(shape_grid(pts), 64, math.inf, node_limit=1000)
    assert not complete
    if idx is not None:  # a set found on the way is a set of k points of that W
        assert len(idx) == 64 and naive_weight(pts[idx]) == value
    assert not shape_search_grid(shape_grid(pts), 64, 14000.0, time_limit=0.05)[2]


def test_shape_grid_takes_distinct_2d_lattice_points_only():
    assert shape_grid([[0.5, 0], [1, 0], [2, 0]]) is None
    assert shape_grid([[0, 0], [0, 0], [1, 0]]) is None
    assert shape_grid([[0, 0, 0], [1, 0, 0]]) is None
    grid = shape_grid([[3, 1], [0, 0], [3, 0]])
    assert grid.free.tolist() == [[True, True], [False, True]]
    assert grid.index.tolist() == [[1, 2], [-1, 0]]


def test_public_shape_search_returns_the_set_and_the_proven_bound():
    pts = half_free_mesh(6, 6, seed=4)
    opt = optimum(pts, 6)
    value, idx, lower = shape_search(pts, 6, math.inf)
    assert value == lower == opt and naive_weight(pts[idx]) == opt
    assert shape_search(pts, 6, opt + 0.5)[::2] == (opt, opt)  # W is an integer: below opt + 0.5 means at most opt
    assert shape_search(pts, 6, opt) == (None, None, opt)  # nothing below the optimum: a proof
    assert shape_search(pts, 6, math.inf, node_limit=1)[2] is None  # stopped: no bound


def test_public_shape_search_input():
    assert shape_search([[0.5, 1], [1, 1]], 2, 10) is None  # not lattice points
    pts = half_free_mesh(4, 4, seed=0)
    with pytest.raises(ValueError, match="`k` must be between"):
        shape_search(pts, 0, 10)
    with pytest.raises(ValueError, match="`upper` must be a number"):
        shape_search(pts, 2, math.nan)
    with pytest.raises(ValueError, match="`node_limit` must be at least 1"):
        shape_search(pts, 2, 10, node_limit=0)
    with pytest.raises(ValueError, match="time_limit"):
        shape_search(pts, 2, 10, time_limit=-1)


@pytest.mark.slow
def test_the_search_stays_in_bounds(tmp_path):
    """Compiled with numba's bounds checks, the search without values (a
    1 x 1 placeholder) and with them reads no array out of bounds (an
    unguarded read of the placeholder crashed a long certification)."""
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from optalloc.bench import half_free_mesh\n"
        "from optalloc.ksubset.search._shapesearch import shape_grid, shape_search_grid\n"
        "g = shape_grid(half_free_mesh(14, 14, seed=3))\n"
        "for values in (None, np.ones(int(g.free.sum()))):\n"
        "    shape_search_grid(g, 40, 1e12, time_limit=5, values=values)\n"
        "print('ok')\n")
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
