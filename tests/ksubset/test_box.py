"""The optimum of a full rectangle (box_optimum) and the box bound."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ksubset_truth import arrangement_costs

from optalloc.ksubset import box_bound, box_bracket, box_optimum, brute, exact, town_bound, weight
from optalloc.ksubset.search import _box
from optalloc.ksubset.search._box import (
    LIMIT,
    _ascending_parts,
    _conjugate_ascending,
    _partition_counts,
    _scores,
    arrangement,
    fit_in,
    partition_count,
)
from optalloc.ksubset.search._boxsearch import search_box


def box(width, height):
    return np.array(list(itertools.product(range(width), range(height))))


def cut_sum(order, k):
    prefix = np.cumsum(order)[:-1]
    return int((prefix * (k - prefix)).sum())


BOXES = [(1, 5), (5, 1), (2, 7), (3, 3), (4, 3), (3, 4), (4, 4), (5, 3), (5, 4), (6, 3)]


@pytest.mark.parametrize("width, height", BOXES)
def test_box_optimum_equals_enumeration(width, height):
    pts = box(width, height)
    for k in range(1, width * height + 1):
        w, cells = box_optimum(width, height, k)
        # the set realises the value and lies in the box
        assert len({tuple(c) for c in cells.tolist()}) == k
        assert cells.min() >= 0 and cells[:, 0].max() < width and cells[:, 1].max() < height
        assert weight(cells) == w
        if math.comb(width * height, k) <= 300_000:
            assert w == brute(pts, k, limit=10**6).objective, (width, height, k)


def test_box_optimum_is_symmetric_in_the_sides():
    for width, height, k in [(7, 3, 10), (9, 2, 11), (6, 5, 17)]:
        assert box_optimum(width, height, k)[0] == box_optimum(height, width, k)[0]


def test_box_optimum_reaches_the_town_where_the_town_fits():
    for k in range(1, 50):  # every town of the table fits in 9 x 9
        assert box_optimum(9, 9, k)[0] == town_bound(box(9, 9), k)


def test_tall_box_beats_the_town():
    # the NASA Ames machine: 64 nodes of a 16 x 8 mesh
    w, cells = box_optimum(16, 8, 64)
    assert w == 10592 and weight(cells) == 10592
    assert cells[:, 1].max() == 7  # uses all eight rows


@pytest.mark.parametrize("k, height, width", [(7, 3, 4), (12, 4, 6), (20, 5, 8), (30, 8, 16), (1, 1, 1)])
def test_partitions_are_enumerated_once_each(k, height, width):
    counts = _partition_counts(k, height, width)
    assert len(counts) == partition_count(k, height, width)
    assert (counts @ np.arange(1, height + 1) == k).all() and (counts.sum(axis=1) <= width).all()
    assert len({tuple(c) for c in counts.tolist()}) == len(counts)


def test_partition_count_known_values():
    # unrestricted partition numbers p(n), and a Gaussian binomial coefficient
    assert [partition_count(n, n, n) for n in range(1, 11)] == [1, 2, 3, 5, 7, 11, 15, 22, 30, 42]
    assert sum(partition_count(k, 3, 2) for k in range(7)) == math.comb(5, 2)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 7), min_size=1, max_size=7))
def test_arrangement_is_the_best_ordering(parts):
    k = sum(parts)
    order = arrangement(parts, k)
    assert sorted(order) == sorted(parts)
    best = min(cut_sum(p, k) for p in set(itertools.permutations(parts)))
    assert cut_sum(order, k) == best
    assert arrangement_costs(np.array([sorted(parts)]), k)[0] == best  # the oracle of the scoring
    # unimodal: ascending to the peak, then descending
    peak = int(np.argmax(order))
    assert order[: peak + 1] == sorted(order[: peak + 1])
    assert order[peak:] == sorted(order[peak:], reverse=True)


@pytest.mark.parametrize("k, height, width", [(1, 1, 1), (7, 3, 4), (20, 5, 8), (30, 8, 16), (40, 16, 16)])
def test_compiled_scores_equal_the_array_dp(k, height, width):
    counts = _partition_counts(k, height, width)
    score, score_y = _scores(counts, k)
    y = arrangement_costs(_conjugate_ascending(counts), k)
    x = arrangement_costs(_ascending_parts(counts, width), k)
    assert np.array_equal(score_y, y) and np.array_equal(score, x + y)


@pytest.mark.parametrize("width", range(1, 8))
def test_box_search_equals_enumeration(width):
    for height in range(1, 8):
        for k in range(1, width * height + 1):
            value, counts, _ = search_box(width, height, k)
            assert value == box_optimum(width, height, k)[0], (width, height, k)
            # the partition found fits the box and scores the value
            assert counts @ np.arange(1, height + 1) == k and counts.sum() <= width
            assert _scores(counts[None], k)[0][0] == value


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 16), st.integers(1, 16), st.data())
def test_box_search_equals_the_tables_on_larger_boxes(width, height, data):
    k = data.draw(st.integers(1, width * height))
    assume(partition_count(k, height, width) <= LIMIT)  # the table is the reference
    assert search_box(width, height, k)[0] == box_optimum(width, height, k)[0]


def test_box_search_upper_and_node_limit(fresh_box_cache):
    value = box_optimum(13, 13, 56, limit=10**6)[0]  # 75,482 partitions, enumerated
    assert search_box(13, 13, 56)[0] == value
    assert search_box(13, 13, 56, upper=value)[0] is None  # nothing below the optimum
    assert search_box(13, 13, 56, upper=value + 1)[0] == value
    assert search_box(13, 13, 56, upper=value + 0.5)[0] == value  # W is an integer below it
    assert search_box(13, 13, 56, upper=float("inf"))[0] == value
    assert search_box(16, 16, 128, node_limit=100)[0] is None
    assert box_optimum(16, 16, 128, nodes=0) is None  # over LIMIT and no search allowed


@pytest.mark.slow  # a branch-and-bound over 5.2 million partitions: a minute and more on 2 cores
def test_exact_proves_a_full_machine_beyond_the_tables(fresh_box_cache):
    # 5.2 million partitions of 100 fit a 16 x 16 box: the branch-and-bound
    # settles it (the LP stalls on the symmetric optima of an empty machine)
    assert partition_count(100, 16, 16) > LIMIT
    pts = box(16, 16)
    exact(pts, 10)  # the kernels compiled (the first call of a fresh install compiles them), not timed
    # a time limit caps the nodes (40,000 a second): 0.5 s is too little here
    assert exact(pts, 100, time_limit=0.5).extra["phase"] != "box"
    assert 0 < _box._FAILED[(16, 16, 100)] <= 20_000  # given up on, and noted
    res = exact(pts, 100)
    assert res.status == "optimal" and res.extra["phase"] == "box"
    assert res.objective == box_optimum(16, 16, 100)[0] == weight(res.points)
    # once found, the optimum is kept: the short solve now closes by it
    assert exact(pts, 100, time_limit=0.5).extra["phase"] == "box"
    assert exact(pts, 64, time_limit=2).extra["phase"] == "box"  # a few thousand nodes


def test_a_search_given_up_on_is_not_repeated_with_fewer_nodes(fresh_box_cache, monkeypatch):
    calls = []
    real = _box.search_box
    monkeypatch.setattr(_box, "search_box", lambda *a, **kw: calls.append(kw["node_limit"]) or real(*a, **kw))
    assert box_optimum(16, 16, 128, nodes=100) is None
    assert box_optimum(16, 16, 128, nodes=50) is None  # fewer nodes than tried: not searched again
    assert calls == [100]
    found = box_optimum(16, 16, 128, nodes=10**6)  # more: searched (a short search, then with the dual), and kept
    assert found is not None and found[0] == 60002.0
    assert calls[1] == _box._PLAIN and len(calls) <= 3 and sum(calls[1:]) <= 10**6
    searched = list(calls)
    assert box_optimum(16, 16, 128, nodes=0)[0] == 60002.0 and calls == searched


def test_exact_runs_the_box_search_on_a_sparser_machine():
    # a quarter of the machine busy (the rectangle 77 % full): the search still
    # runs, with the cheap bound's nodes, and an optimal set of the empty box
    # fits (a 16 x 16 trace meets such states again and again at k = 64)
    machine = box(16, 16)
    pts = machine[(machine[:, 1] < 12) | (machine[:, 0] == 0)]
    assert len(pts) < 0.9 * 256 and partition_count(64, 16, 16) > LIMIT
    res = exact(pts, 64, time_limit=120)  # a fresh install compiles the kernels within this limit
    assert res.status == "optimal" and res.extra["phase"] == "box"
    assert res.objective == box_optimum(16, 16, 64)[0] == weight(res.points) == 10556


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(2, 4), st.data())
def test_box_bound_holds_for_any_free_set(width, height, data):
    cells = box(width, height)
    keep = data.draw(st.lists(st.booleans(), min_size=len(cells), max_size=len(cells)))
    pts = cells[np.array(keep, dtype=bool)]
    if len(pts) < 2:
        return
    k = data.draw(st.integers(2, len(pts)))
    opt = brute(pts, k, limit=10**6).objective
    bound = box_bound(pts, k)
    assert bound <= opt
    span = pts.max(axis=0) - pts.min(axis=0) + 1
    assert bound == box_optimum(*span, k)[0]  # the bounding rectangle, wherever it lies
    if len(pts) == span.prod():  # a full rectangle: the optimum itself
        assert bound == opt


def test_box_bound_does_not_apply():
    assert box_bound([[0, 0], [0, 0], [1, 0], [1, 1]], 3) == 0.0  # repeated points
    assert box_bound([[0, 0.5], [1, 0], [1, 1], [2, 2]], 3) == 0.0  # not a lattice
    assert box_bound([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 1, 0]], 2) == 0.0  # 4D
    # 487,842 partitions: beyond the tables; the compiled search finds the
    # value that scoring all of them gives (about 4,600 nodes, within the
    # cheap bound's 50,000)
    assert box_bound(box(16, 16), 64) == 10556.0
    assert box_optimum(16, 16, 100, nodes=0) is None
    # 202,142 nodes: too many for the cheap bound (60002 is also what
    # scoring all 8.9 million partitions gives)
    assert box_bound(box(16, 16), 128) == 0.0 and box_optimum(16, 16, 128)[0] == 60002.0


def test_box_optimum_errors():
    with pytest.raises(ValueError, match="positive sides"):
        box_optimum(0, 4, 1)
    with pytest.raises(ValueError, match="k must be between 1 and 12"):
        box_optimum(3, 4, 13)


def test_fit_in_finds_mirrored_and_transposed_shapes():
    shape = np.array([[0, 0], [1, 0], [2, 0], [2, 1]])  # an L
    free = np.array([[5, 5], [5, 6], [5, 7], [6, 5], [9, 9]])  # the L turned a quarter
    found = fit_in(free, shape)
    assert found is not None and sorted(found.tolist()) == [0, 1, 2, 3]
    assert fit_in(free[1:], shape) is None


def test_exact_uses_the_box_bound_on_a_busy_corner():
    machine = box(10, 6)
    busy = (machine[:, 0] >= 7) & (machine[:, 1] >= 2)  # the optimum no longer fits
    pts = machine[~busy]
    res = exact(pts, 30, time_limit=60)
    assert res.status == "optimal"
    assert res.objective >= box_optimum(10, 6, 30)[0]


def test_points_spread_over_a_huge_rectangle():
    # a far outlier makes the bounding rectangle huge: the bound works on k x k,
    # and the fit is looked up point by point, not on a grid of the rectangle
    pts = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [10**9, 10**9]])
    assert box_bound(pts, 4) == 8.0
    res = exact(pts, 4)
    assert res.status == "optimal" and res.objective == 8.0 and sorted(res.indices.tolist()) == [0, 1, 2, 3]
    assert box_optimum(10**9, 10**9, 5)[0] == box_optimum(5, 5, 5)[0]


@pytest.mark.parametrize("width, height, k", [(7, 7, 20), (6, 9, 25), (9, 6, 25), (12, 12, 50), (10, 14, 70)])
def test_the_search_equals_the_tables_with_any_cut_table(width, height, k):
    # the cut bounds by parts allowed are kept for few parts on large boxes
    # (n_max small; beyond it the bound for any number of parts): the
    # optimum is the same however far the table goes
    from optalloc.ksubset.search._boxsearch import _run

    want = box_optimum(width, height, k, limit=10**6)[0]
    for n_max in (0, 1, 3, min(width, k)):
        value, _, complete, _ = _run(width, height, k, 1 << 50, 10**7, n_max=n_max)
        assert complete and value == want, n_max


def test_the_box_optima_kept_are_the_least_recently_used_dropped(fresh_box_cache, monkeypatch):
    # a certification reads its idle machine's optimum at every state while
    # the shape search asks for many small boxes: the optimum it reads stays
    monkeypatch.setattr(_box, "_KEEP", 3)
    box_optimum(6, 6, 10)
    for k in range(2, 8):
        box_optimum(4, 4, k)
        assert box_optimum(6, 6, 10) is not None  # used again: kept
    assert list(_box._SOLVED) == [(4, 4, 6), (4, 4, 7), (6, 6, 10)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.integers(9, 13), st.integers(9, 13), st.data())
def test_box_brackets_hold_the_optimum_under_any_budget(width, height, data):
    # the lower end is proven (no partition below it), never above the optimum
    k = data.draw(st.integers(width * height // 4, width * height * 3 // 4))
    assume(partition_count(k, height, width) > LIMIT)  # else the tables answer
    opt = search_box(width, height, k, node_limit=10**8)[0]
    nodes = data.draw(st.sampled_from([1, 30, 300, 3000, 30_000]))
    _box._BRACKETS.clear()
    lower, upper = box_bracket(width, height, k, nodes=nodes)
    assert lower <= opt <= upper


def test_box_bracket_closes_with_nodes_and_is_kept(fresh_box_cache):
    # nodes for a short search and the Lagrangian bound (its cost counted in
    # nodes), then the rungs from 99 %
    lower, upper = box_bracket(24, 24, 144, nodes=100_000)
    assert 0.99 * upper <= lower < upper == 80619.0  # the round set's W
    assert box_bracket(24, 24, 144, nodes=0) == (lower, upper)  # kept, not searched again
    # with more nodes the search goes on from there to the optimum, which lower did not exceed
    assert box_bracket(24, 24, 144, nodes=400_000) == (80595.0, 80595.0)
    assert lower <= 80595.0
    assert box_bracket(16, 16, 128, nodes=10**6) == (60002.0, 60002.0)
    assert box_bracket(16, 8, 64, nodes=0) == (10592.0, 10592.0)  # the tables
    assert box_bracket(40, 40, 100, nodes=0) == (0.0, math.inf)  # not searched
    with pytest.raises(ValueError, match="k must be between"):
        box_bracket(4, 4, 17)


@pytest.mark.slow
def test_box_bracket_of_the_32_box_closes_to_one_percent(fresh_box_cache):
    # the same steps on 32 x 32, k = 256 (the default run has them on 24 x 24)
    lower, upper = box_bracket(32, 32, 256, nodes=400_000)
    assert 0.99 * upper <= lower < upper == 340016.0  # the round set's W
    assert box_bracket(32, 32, 256, nodes=0) == (lower, upper)  # kept, not searched again


def test_exact_starts_from_a_bracket_proven_before(fresh_box_cache, monkeypatch):
    # a certification bounds its idle machine first; exact then starts every
    # state whose bounding rectangle is that machine from the bracket's lower end
    from optalloc.ksubset.engine import _exact

    monkeypatch.setattr(_exact, "box_start", lambda *a, **kw: None)  # not the rectangle's own search
    corners = {(0, 0), (15, 15), (0, 15), (15, 0), (1, 1)}
    pts = np.array([(x, y) for x in range(16) for y in range(16) if (x, y) not in corners])
    before = exact(pts, 128, time_limit=1)
    assert box_bracket(16, 16, 128, nodes=10**6) == (60002.0, 60002.0)
    after = exact(pts, 128, time_limit=1)
    assert before.bound < 60002.0 <= after.bound <= after.objective


def test_box_search_available_is_deprecated_and_true():
    from optalloc import ksubset

    with pytest.warns(DeprecationWarning, match="BOX_SEARCH_AVAILABLE is deprecated"):
        assert ksubset.BOX_SEARCH_AVAILABLE is True
    assert "BOX_SEARCH_AVAILABLE" not in ksubset.__all__
    with pytest.raises(AttributeError, match="no attribute 'BOX_SEARCH'"):
        ksubset.BOX_SEARCH  # noqa: B018
