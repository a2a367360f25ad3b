"""The search over column and row profiles (profile_search, profile_bound)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optalloc.ksubset import (
    box_bound,
    brute,
    exact,
    profile_bound,
    profile_search,
    weight,
)
from optalloc.ksubset.search import _box, _profile, _profilesearch


def optimum(pts, k):
    return min(weight(pts[list(c)]) for c in itertools.combinations(range(len(pts)), k))


@st.composite
def free_sets(draw, max_side=5, max_cells=14):
    """A random free set of a small box, with gaps between the coordinates
    now and then (columns 0, 1, 3, ... rather than 0, 1, 2, ..., rows
    likewise)."""
    width = draw(st.integers(1, max_side))
    height = draw(st.integers(1, max_side))
    cells = list(itertools.product(range(width), range(height)))
    keep = draw(st.lists(st.booleans(), min_size=len(cells), max_size=len(cells)))
    pts = np.array([c for c, f in zip(cells, keep) if f], dtype=np.int64).reshape(-1, 2)
    if len(pts) < 2 or len(pts) > max_cells:
        pts = np.array(cells[:max_cells], dtype=np.int64)
    for axis, side in ((0, width), (1, height)):
        if draw(st.booleans()):
            stretch = np.cumsum(draw(st.lists(st.integers(1, 3), min_size=side, max_size=side)))
            pts[:, axis] = stretch[pts[:, axis]]
    k = draw(st.integers(1, len(pts)))
    return pts, k


@settings(max_examples=150, deadline=None)
@given(free_sets())
def test_profile_search_equals_enumeration(case):
    pts, k = case
    opt = optimum(pts, k)
    value, idx, lower = profile_search(pts, k, opt + 1)
    assert value == opt and lower >= opt
    assert len(set(idx.tolist())) == k and weight(pts[idx]) == opt
    # nothing below the optimum: the search says so and proves it
    value, idx, lower = profile_search(pts, k, opt)
    assert value is None and idx is None and lower >= opt


@settings(max_examples=80, deadline=None)
@given(free_sets(), st.integers(0, 6))
def test_search_from_a_known_bound_finds_the_same_optimum(case, below):
    # a deepening that starts from a proven bound (up to the optimum)
    # still finds an optimal set and proves it
    pts, k = case
    opt = optimum(pts, k)
    setup = _profile.profile_grid(pts, k)
    value, idx, lower = _profile.profile_search_grid(setup, k, opt + 1, 10**9, None, None, opt - below)
    assert value == opt and lower >= opt and weight(pts[idx]) == opt


def test_spread_tables_against_enumeration():
    # own[j, v]: least W of v free cells of column j; later: its minimum over
    # the columns from j on; cross[a, b]: least sum of |s - t| over a and b
    # distinct integers (checked among 0..8)
    rng = np.random.default_rng(5)
    ys = np.array([0, 1, 3, 4, 5, 8, 9])
    free = rng.random((4, len(ys))) < 0.6
    own, later, cross = _profile._spread_tables(ys, free, 5, 4)
    for j in range(4):
        col = ys[free[j]]
        for v in range(6):
            want = min((weight(np.array(c, dtype=float)[:, None]) for c in itertools.combinations(col, v)),
                       default=np.inf) if v else 0.0
            assert own[j, v] == want
            assert later[j, v] == own[j:, v].min()
    for a, b in itertools.product(range(1, 5), repeat=2):
        want = min(np.abs(np.subtract.outer(s, t)).sum()
                   for s in itertools.combinations(range(9), a) for t in itertools.combinations(range(9), b))
        assert cross[a, b] == want


def test_pair_windows_against_enumeration():
    # pair[j, j2, a, b]: least sum of |y_s - y_t| over a window of a
    # consecutive free cells of column j and one of b of column j2, rows at
    # uneven spacing (a column with fewer free cells than a keeps the entry
    # it had)
    rng = np.random.default_rng(7)
    ys = np.array([0, 1, 3, 4, 7, 8, 10])
    free = rng.random((4, len(ys))) < 0.6
    pair = np.zeros((4, 4, 5, 5))
    _profilesearch._pair_windows(free, ys.astype(float), 4, pair)
    checked = 0
    for j, j2 in itertools.permutations(range(4), 2):
        col, col2 = ys[free[j]], ys[free[j2]]
        for a, b in itertools.product(range(1, 5), repeat=2):
            if a > len(col) or b > len(col2):
                assert pair[j, j2, a, b] == 0  # left alone: no such sets
                continue
            want = min(np.abs(np.subtract.outer(col[s : s + a], col2[t : t + b])).sum()
                       for s in range(len(col) - a + 1) for t in range(len(col2) - b + 1))
            assert pair[j, j2, a, b] == want
            checked += 1
    assert checked > 20


def windows_everywhere(pts, chosen):
    """Whether the chosen points take consecutive free points in every
    column and every row."""
    mask = np.zeros(len(pts), dtype=bool)
    mask[list(chosen)] = True
    for axis in (0, 1):
        for line in np.unique(pts[:, axis]):
            on = np.flatnonzero(pts[:, axis] == line)
            picked = mask[on[np.argsort(pts[on, 1 - axis])]]
            where = np.flatnonzero(picked)
            if len(where) and not picked[where[0] : where[-1] + 1].all():
                return False
    return True


@settings(max_examples=150, deadline=None)
@given(free_sets(max_side=5, max_cells=13))
def test_every_optimal_set_takes_windows_in_rows_and_columns(case):
    # the fact the search's pair bound rests on, against enumeration: no
    # optimal set leaves out a free point between two chosen ones of its
    # column or row (the spacing of the rows and columns may be uneven)
    pts, k = case
    sets = list(itertools.combinations(range(len(pts)), k))
    w = np.array([weight(pts[list(c)]) for c in sets])
    optimal = [c for c, v in zip(sets, w) if v == w.min()]
    assert all(windows_everywhere(pts, c) for c in optimal)


def test_the_window_check_sees_a_gap():
    # the check above can fail: a column with a free point skipped
    pts = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]])
    assert not windows_everywhere(pts, [0, 2, 3])
    assert windows_everywhere(pts, [0, 1, 3])


def prefix_fits(free, c, r):
    """Brute force: a 0/1 matrix on the free cells with row sums r (rows
    0..len(r)-1) and column sums at most c."""
    rows = [[s for s in itertools.combinations(np.flatnonzero(free[:, i]), v)] for i, v in enumerate(r)]
    for choice in itertools.product(*rows):
        used = np.zeros(len(c), dtype=int)
        for cols in choice:
            used[list(cols)] += 1
        if (used <= c).all():
            return True
    return False


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_add_row_keeps_the_rows_filled_exactly_when_they_fit(seed):
    # rows added one at a time fit (moving the earlier rows along
    # augmenting paths) exactly when some 0/1 matrix realises them
    rng = np.random.default_rng(seed)
    p, q = rng.integers(2, 5), rng.integers(2, 6)
    free = rng.random((p, q)) < 0.6
    c = rng.integers(0, free.sum(axis=1) + 1)
    X = np.zeros((p, q), dtype=np.int8)
    fc = np.zeros(p, dtype=np.int64)
    aug = _profilesearch.AugmentScratch(np.zeros(p, dtype=bool), np.zeros(p, dtype=np.int64),
                                        np.zeros(p, dtype=np.int64), np.zeros(p, dtype=np.int64))
    r = []
    for i in range(q):
        v = int(rng.integers(0, free[:, i].sum() + 1))
        before = X.copy(), fc.copy()
        fits = _profilesearch._add_row(free, c, X, fc, i, v, aug)
        assert fits == prefix_fits(free, c, [*r, v])
        if not fits:
            X, fc = before  # a row that does not fit is left empty
            v = 0
        r.append(v)
        assert not (X.astype(bool) & ~free).any()
        assert (X[:, : i + 1].sum(axis=0) == r).all() and (X[:, i + 1 :] == 0).all()
        assert (X.sum(axis=1) == fc).all() and (fc <= c).all()


@settings(max_examples=60, deadline=None)
@given(free_sets())
def test_profile_bound_lies_between_the_box_bound_and_the_optimum(case):
    pts, k = case
    bound = profile_bound(pts, k)
    assert box_bound(pts, k) <= bound <= optimum(pts, k)


@settings(max_examples=40, deadline=None)
@given(free_sets(max_side=6, max_cells=16), st.integers(1, 40))
def test_a_stopped_search_keeps_a_valid_bound_and_set(case, nodes):
    pts, k = case
    opt = optimum(pts, k)
    upper = weight(pts[:k]) + 1
    value, idx, lower = profile_search(pts, k, upper, node_limit=nodes)
    assert lower <= opt
    if value is not None:
        assert value <= upper - 1 and weight(pts[idx]) == value and len(set(idx.tolist())) == k


@pytest.fixture
def tables_cut(monkeypatch):
    """Every partition table counts as too large to keep (LIMIT = 0), so the
    profile search lists the partitions below its incumbent instead."""
    monkeypatch.setattr(_box, "LIMIT", 0)
    _box._scored_partitions.cache_clear()
    _box._large_table.cache_clear()
    yield
    _box._scored_partitions.cache_clear()
    _box._large_table.cache_clear()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(free_sets())
def test_search_beyond_the_tables_equals_enumeration(tables_cut, case):
    pts, k = case
    opt = optimum(pts, k)
    assert profile_bound(pts, k) is None  # no incumbent: no table
    value, idx, lower = profile_search(pts, k, opt + 1)
    assert value == opt and lower >= opt and weight(pts[idx]) == opt
    value, idx, lower = profile_search(pts, k, opt)
    assert value is None and lower >= opt
    # the bound of a table cut at the optimum: the least score below it, or the cut
    setup = _profile.profile_grid(pts, k, opt)
    assert setup.rest == opt and _profile.profile_bound_grid(setup) <= opt
    assert (setup.score < opt).all()
    # a search above the cut is complete only up to it: it proves the cut, no more
    value, idx, lower = _profile.profile_search_grid(setup, k, opt + 5, 10**6, None)
    assert value is None and lower == opt


def test_full_box_matches_the_box_bound_and_a_found_set():
    pts = np.array(list(itertools.product(range(5), range(4))))
    for k in (5, 9, 14):
        opt = brute(pts, k, limit=10**6).objective
        assert profile_bound(pts, k) == box_bound(pts, k) == opt
        assert profile_search(pts, k, opt + 1)[0] == opt


def test_not_applicable():
    rng = np.random.default_rng(0)
    cube = np.array(list(itertools.product(range(3), range(3), range(2))))
    real = rng.uniform(0, 5, size=(10, 2))
    dups = np.array([[0, 0], [0, 0], [1, 0], [2, 1]])
    for pts in (cube, real, dups):
        assert profile_bound(pts, 3) is None
        assert profile_search(pts, 3, 100) is None


def test_exact_closes_a_nearly_empty_mesh_by_profiles():
    # an 8 x 8 machine with four busy nodes: no optimal set of the empty box
    # fits, the LP stalls on symmetric optima, the profile search proves it
    rng = np.random.default_rng(0)
    cells = np.array(list(itertools.product(range(8), range(8))))
    busy = rng.choice(len(cells), 4, replace=False)
    pts = np.delete(cells, busy, axis=0)
    res = exact(pts, 32)
    assert res.status == "optimal" and res.extra["phase"] == "profiles"
    assert res.extra["profile_seconds"] > 0
    lp = exact(pts, 32, profiles=False)
    assert lp.status == "optimal" and lp.extra["phase"] != "profiles"
    assert res.objective == lp.objective == weight(pts[res.indices])


def test_exact_lists_partitions_beyond_the_tables():
    # decision 807 of the NASA Ames trace on a 16 x 16 mesh (MC1x1 placing the
    # jobs): a 64-node job meets a machine whose only busy nodes are another
    # 64-node job in the lower middle.  No optimal set of the empty box fits
    # (10556); 487,842 partitions of 64 fit a 16 x 16 box, beyond the tables,
    # so the search lists the 13 scoring below the incumbent and proves it
    busy_rows = [(4, 10), (4, 11), (4, 11), (4, 11), (3, 11), (3, 11), (4, 11), (4, 10)]  # y = 0..7
    busy = {(x, y) for y, (lo, hi) in enumerate(busy_rows) for x in range(lo, hi + 1)}
    pts = np.array([(x, y) for x in range(16) for y in range(16) if (x, y) not in busy])
    assert len(busy) == 64 and _box.partition_count(64, 16, 16) > _box.LIMIT
    res = exact(pts, 64, time_limit=30)
    assert res.status == "optimal" and res.extra["phase"] == "profiles"
    assert res.objective == weight(pts[res.indices]) == 10567 > box_bound(pts, 64) == 10556


def test_bad_input():
    pts = np.array(list(itertools.product(range(3), range(3))))
    for call, match in ((lambda: profile_bound(pts, 0), "`k` must be between 1"),
                        (lambda: profile_search(pts, 10, 50), "`k` must be between 1"),
                        (lambda: profile_search([[0, 0], [np.nan, 1]], 1, 5), "points"),
                        (lambda: profile_search(pts, 3, float("nan")), "`upper` must be a number"),
                        (lambda: profile_search(pts, 3, 50, node_limit=0), "`node_limit` must be at least 1"),
                        (lambda: profile_search(pts, 3, 50, time_limit=-1), "time_limit")):
        with pytest.raises(ValueError, match=match):
            call()


def test_profiles_option_is_checked():
    with pytest.raises(ValueError, match="`profiles` must be True or False"):
        exact(np.array(list(itertools.product(range(4), range(4)))), 6, profiles="yes")
