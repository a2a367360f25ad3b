"""1D allocators over an ordering (Leung et al. 2002, sec. 2; SAND2003-3702, sec. 4.3).

Hand-built cases cover every branch; property tests compare with plain
reference implementations written from the papers' definitions (runs found
by scanning ranks, minimum span by enumerating all k-subsets).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.curves import (
    STRATEGIES,
    Allocation1D,
    Ordering1D,
    allocate_1d,
    allocate_ranks,
    best_fit,
    first_fit,
    free_list,
    span,
    sum_of_squares,
)

FUNCS = {
    "free-list": free_list,
    "first-fit": first_fit,
    "best-fit": best_fit,
    "sum-of-squares": sum_of_squares,
}
FITS = ["first-fit", "best-fit", "sum-of-squares"]


def line(n):
    """Order of n nodes on a line: node x has rank x."""
    return np.arange(n, dtype=float)[:, None]


def snake(w, h):
    """Boustrophedon order of a w x h mesh."""
    rows = []
    for y in range(h):
        xs = range(w) if y % 2 == 0 else range(w - 1, -1, -1)
        rows.extend([x, y] for x in xs)
    return np.array(rows, dtype=float)


def ranks_of(result):
    return result.extra["ranks"].tolist()


# ---------------------------------------------------------------------------
# Reference implementations (slow, written from the definitions)


def ref_span(ranks, n, ring):
    ranks = sorted(set(ranks))
    if not ring:
        return ranks[-1] - ranks[0] + 1
    # Shortest arc covering every rank, by trying every start and length.
    chosen = set(ranks)
    for length in range(1, n + 1):
        for s in range(n):
            if chosen <= {(s + i) % n for i in range(length)}:
                return length
    raise AssertionError


def ref_runs(free, n, ring):
    """(first rank, [ranks in run order]) of each maximal run, by first rank."""
    free = set(free)
    if len(free) == n:
        return [(0, list(range(n)))]
    runs = []
    if ring:
        # Start scanning just after a busy rank, so no run is cut.
        busy = min(set(range(n)) - free)
        seq = [(busy + 1 + i) % n for i in range(n)]
    else:
        seq = list(range(n))
    cur = []
    for r in seq:
        if r in free:
            cur.append(r)
        else:
            if cur:
                runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    return sorted((run[0], run) for run in runs)


def ref_sos(lengths):
    counts = {}
    for L in lengths:
        if L > 0:
            counts[L] = counts.get(L, 0) + 1
    return sum(c * c for c in counts.values())


def ref_fit(free, k, n, strategy, ring):
    """Ranks chosen by a fit strategy, or None if no run holds k."""
    runs = ref_runs(free, n, ring)
    cands = [(i, first, run) for i, (first, run) in enumerate(runs) if len(run) >= k]
    if not cands:
        return None
    lengths = [len(run) for _, run in runs]

    def key(c):
        i, first, run = c
        if strategy == "first-fit":
            return first
        if strategy == "best-fit":
            return (len(run), first)
        after = lengths.copy()
        after[i] -= k
        return (ref_sos(after), first)

    _, _, run = min(cands, key=key)
    return sorted(run[:k])


def ref_min_span(free, k, n, ring):
    """(min span, smallest start among optimal subsets) by enumeration.

    The start of a subset is its smallest rank on a line, and on a ring the
    first rank of its shortest covering arc (the smallest such rank if
    several arcs are shortest).
    """
    best = None
    for sub in itertools.combinations(sorted(free), k):
        s = ref_span(sub, n, ring)
        if ring:
            starts = [
                a
                for a in sub
                if set(sub) <= {(a + i) % n for i in range(s)}
            ]
            start = min(starts)
        else:
            start = sub[0]
        if best is None or (s, start) < best:
            best = (s, start)
    return best


# ---------------------------------------------------------------------------
# span


def test_span_linear_counts_both_ends():
    assert span([4], 10) == 1
    assert span([2, 3, 4], 10) == 3
    assert span([4, 2, 9], 10) == 8
    assert span([3, 3, 5], 10) == 3  # repeats ignored


def test_ring_span_vs_linear_span():
    assert span([0, 1, 9], 10) == 10
    assert span([0, 1, 9], 10, ring=True) == 3
    assert span([0, 5], 10, ring=True) == 6
    assert span([2, 3, 4], 10, ring=True) == 3
    assert span(range(10), 10, ring=True) == 10
    assert span([7], 10, ring=True) == 1


@given(st.integers(1, 9).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1), min_size=1))))
@settings(max_examples=60, deadline=None)
def test_span_matches_definition(case):
    n, ranks = case
    for ring in (False, True):
        assert span(sorted(ranks), n, ring=ring) == ref_span(ranks, n, ring)


@pytest.mark.parametrize(
    "ranks, n_ranks, match",
    [
        ([], 5, "`ranks` is empty"),
        ([1, 5], 5, r"`ranks` must lie in \[0, n_ranks - 1\]"),
        ([-1], 5, "must lie in"),
        ([1.5], 5, "`ranks` must hold integers"),
        ([[1, 2]], 5, "`ranks` must be a 1-D array"),
        ([1], 0, "`n_ranks` must be at least 1"),
        ([1], 2.5, "`n_ranks` must be an integer"),
    ],
)
def test_span_errors(ranks, n_ranks, match):
    with pytest.raises(ValueError, match=match):
        span(ranks, n_ranks)


# ---------------------------------------------------------------------------
# The three fit strategies disagree

# Runs of lengths 6, 3, 4, 1 at ranks 0-5, 7-9, 11-14, 16 of 20.
FREE_4RUNS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 14, 16]


@pytest.mark.parametrize(
    "strategy, expected",
    [
        ("free-list", [0, 1]),
        ("first-fit", [0, 1]),  # the first run
        ("best-fit", [7, 8]),  # the shortest run holding 2 (3 ranks)
        ("sum-of-squares", [11, 12]),  # leaves lengths 6, 3, 2, 1
    ],
)
def test_strategies_differ(strategy, expected):
    pts = line(20)[FREE_4RUNS]
    r = allocate_1d(pts, 2, order=line(20), strategy=strategy)
    assert ranks_of(r) == expected
    assert r.method == strategy
    assert r.extra["contiguous"] and r.extra["span"] == 2
    assert not r.extra["fallback"]
    assert r.extra["strategy"] == strategy
    assert FUNCS[strategy](pts, 2, order=line(20)).indices.tolist() == r.indices.tolist()


def test_sum_of_squares_is_of_counts_not_lengths():
    # Runs 6, 3, 4, 1; k = 2.  Counts after each choice: run 6 -> {4, 3, 4, 1}
    # gives 4 + 1 + 1 = 6; run 3 -> {6, 1, 4, 1} gives 1 + 4 + 1 = 6; run 4
    # -> {6, 3, 2, 1} gives 4.  (Maximising the squares of the lengths would
    # take the run of 3 or 4, minimising them the run of 6.)
    a = allocate_ranks(FREE_4RUNS, 2, 20, strategy="sum-of-squares")
    assert a.ranks.tolist() == [11, 12] and a.run_length == 4


def test_sum_of_squares_exact_fit_removes_a_run():
    # Runs 2, 2, 5 (ranks 0-1, 3-4, 6-10); k = 2.  Using a run of 2 leaves
    # {2, 5}: 1 + 1 = 2; the run of 5 leaves {2, 2, 3}: 4 + 1 = 5.
    a = allocate_ranks([0, 1, 3, 4, 6, 7, 8, 9, 10], 2, 12, strategy="sum-of-squares")
    assert a.ranks.tolist() == [0, 1]


def test_sum_of_squares_tie_goes_to_lowest_rank():
    # Runs 3 and 3: either choice leaves {3, 1}; the first run wins.
    a = allocate_ranks([0, 1, 2, 5, 6, 7], 2, 10, strategy="sum-of-squares")
    assert a.ranks.tolist() == [0, 1]


def test_best_fit_tie_goes_to_lowest_rank():
    a = allocate_ranks([0, 1, 2, 3, 5, 6, 8, 9], 2, 10, strategy="best-fit")
    assert a.ranks.tolist() == [5, 6]
    assert a.run_length == 2


def test_best_fit_prefers_exact_fit_later_in_order():
    a = allocate_ranks([0, 1, 2, 3, 6, 7, 8], 3, 10, strategy="best-fit")
    assert a.ranks.tolist() == [6, 7, 8]
    a = allocate_ranks([0, 1, 2, 3, 6, 7, 8], 3, 10, strategy="first-fit")
    assert a.ranks.tolist() == [0, 1, 2]


def test_fit_takes_first_ranks_of_run():
    a = allocate_ranks([3, 4, 5, 6, 7], 2, 10, strategy="first-fit")
    assert a.ranks.tolist() == [3, 4] and a.start == 3


def test_free_list_ignores_runs():
    r = free_list(line(10)[[0, 2, 3, 4, 9]], 3, order=line(10))
    assert ranks_of(r) == [0, 2, 3]
    assert not r.extra["contiguous"] and r.extra["span"] == 4
    assert r.extra["run_length"] is None and not r.extra["fallback"]


def test_k_equals_n_takes_everything():
    free = [1, 2, 5]
    for s in STRATEGIES:
        assert allocate_ranks(free, 3, 8, strategy=s).ranks.tolist() == free


# ---------------------------------------------------------------------------
# Minimum-span fallback


@pytest.mark.parametrize("strategy", FITS)
def test_fallback_minimum_span(strategy):
    # Free 0, 1, 4, 6, 7, 9; no run of 3.  Windows of 3: spans 5, 7, 4, 4 ->
    # 4, 6, 7 (start 4) wins the tie with 6, 7, 9.
    a = allocate_ranks([0, 1, 4, 6, 7, 9], 3, 10, strategy=strategy)
    assert a.fallback and a.run_length is None
    assert a.ranks.tolist() == [4, 6, 7] and a.span == 4 and not a.contiguous


def test_fallback_tie_to_smallest_rank():
    a = allocate_ranks([0, 2, 5, 7], 2, 10, strategy="best-fit")
    assert a.ranks.tolist() == [0, 2] and a.start == 0 and a.span == 3


def test_fallback_result_fields():
    r = first_fit(line(10)[[9, 0, 2, 5]], 3, order=line(10))
    assert ranks_of(r) == [0, 2, 5]
    assert r.indices.tolist() == [1, 2, 3]
    assert r.extra["fallback"] and r.extra["linear_span"] == 6
    assert "minimum-span" in r.message
    assert r.status == "feasible" and r.termination == "completed"
    assert r.guarantee is None and r.bound is None and r.gap is None and r.runtime >= 0


# ---------------------------------------------------------------------------
# Ring


def test_ring_run_wraps_around():
    free = [0, 1, 4, 7, 8, 9]
    # On a line, no run of 4: minimum span 4, 7, 8, 9.
    lin = allocate_ranks(free, 4, 10, strategy="first-fit")
    assert lin.fallback and lin.ranks.tolist() == [4, 7, 8, 9] and lin.span == 6
    # On a ring, 7, 8, 9, 0, 1 is one run of 5, starting at 7.
    a = allocate_ranks(free, 4, 10, strategy="first-fit", ring=True)
    assert not a.fallback and a.run_length == 5 and a.start == 7
    assert a.ranks.tolist() == [0, 7, 8, 9] and a.span == 4 and a.contiguous


def test_ring_wrapped_run_is_last_for_first_fit():
    # Ring runs: 2-4 (3) and 8, 9, 0 (3): first fit takes the run starting at 2.
    free = [0, 2, 3, 4, 8, 9]
    assert allocate_ranks(free, 3, 10, strategy="first-fit", ring=True).ranks.tolist() == [2, 3, 4]
    # Best fit of 2: runs 3 and 3 tie -> lowest first rank, 2.
    assert allocate_ranks(free, 2, 10, strategy="best-fit", ring=True).ranks.tolist() == [2, 3]


def test_ring_best_fit_picks_wrapped_run():
    a = allocate_ranks([0, 1, 4, 5, 6, 7, 9], 3, 10, strategy="best-fit", ring=True)
    assert a.ranks.tolist() == [0, 1, 9] and a.start == 9 and a.run_length == 3


def test_ring_full_machine_is_one_run():
    a = allocate_ranks(range(6), 4, 6, strategy="best-fit", ring=True)
    assert a.ranks.tolist() == [0, 1, 2, 3] and a.run_length == 6


def test_ring_fallback_window_wraps():
    # Free 1, 4, 8 of 10, k = 2: windows 1-4 (4), 4-8 (5), 8-1 (4, wraps).
    # Tie -> smallest starting rank: 1, 4.
    a = allocate_ranks([1, 4, 8], 2, 10, strategy="best-fit", ring=True)
    assert a.fallback and a.ranks.tolist() == [1, 4] and a.span == 4
    # Free 2, 5, 9: windows 2-5 (4), 5-9 (5), 9-2 (4): tie -> start 2.
    a = allocate_ranks([2, 5, 9], 2, 10, strategy="first-fit", ring=True)
    assert a.ranks.tolist() == [2, 5]
    # Free 1, 5, 8: 1-5 (5), 5-8 (4), 8-1 (4) -> start 5.
    a = allocate_ranks([1, 5, 8], 2, 10, strategy="first-fit", ring=True)
    assert a.ranks.tolist() == [5, 8]
    # Free 0, 3, 6, 8, k = 2 with a wrap window strictly best: 8-0 (3) vs
    # 0-3 (4), 3-6 (4), 6-8 (3) -> tie 6 and 8 -> 6.
    a = allocate_ranks([0, 3, 6, 8], 2, 10, strategy="first-fit", ring=True)
    assert a.ranks.tolist() == [6, 8]
    # Free 0, 4, 7, 9, k = 2: 9-0 is the only window of span 2 ... but that
    # is a ring run of 2, so no fallback.
    a = allocate_ranks([0, 4, 7, 9], 2, 10, strategy="best-fit", ring=True)
    assert not a.fallback and a.ranks.tolist() == [0, 9] and a.start == 9


def test_ring_fallback_strictly_best_window_wraps():
    # Free 0, 2, 5, 8, k = 3: 0-5 (6), 2-8 (7), 5-0 (6, wraps), 8-2 (5, wraps).
    a = allocate_ranks([0, 2, 5, 8], 3, 10, strategy="best-fit", ring=True)
    assert a.fallback and a.ranks.tolist() == [0, 2, 8] and a.start == 8 and a.span == 5


def test_ring_only_changes_span_for_free_list():
    r = free_list(line(10)[[0, 1, 9]], 3, order=line(10), ring=True)
    assert ranks_of(r) == [0, 1, 9]
    assert r.extra["span"] == 3 and r.extra["contiguous"]
    assert r.extra["linear_span"] == 10 and r.extra["ring_span"] == 3


# ---------------------------------------------------------------------------
# Coordinates, Ordering1D and the dispatcher


def test_snake_order_on_mesh():
    order = snake(4, 3)  # rank 4 is (3, 1), rank 7 is (0, 1)
    ordering = Ordering1D(order)
    free = np.array([[0, 1], [3, 1], [2, 1], [1, 1], [0, 0], [1, 2]], dtype=float)
    assert ordering.ranks_of(free).tolist() == [7, 4, 5, 6, 0, 9]
    r = ordering.allocate(free, 4, strategy="first-fit")
    assert ranks_of(r) == [4, 5, 6, 7]
    assert r.indices.tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(r.points, free[:4])
    assert r.objective == 10.0  # four in a row: W = 3 + 2 + 1 + 2 + 1 + 1


def test_ordering_reused_matches_array():
    order = snake(5, 4)
    rng = np.random.default_rng(1)
    ordering = Ordering1D(order)
    for _ in range(20):
        free = order[rng.permutation(20)[: rng.integers(1, 21)]]
        k = int(rng.integers(1, len(free) + 1))
        for s in STRATEGIES:
            a = allocate_1d(free, k, order=order, strategy=s, ring=True)
            b = ordering.allocate(free, k, strategy=s, ring=True)
            assert a.indices.tolist() == b.indices.tolist()
            assert a.extra["ranks"].tolist() == b.extra["ranks"].tolist()


def test_ordering_attributes():
    o = Ordering1D(snake(3, 2))
    assert o.n_ranks == 6 == len(o) and o.dim == 2
    assert repr(o) == "Ordering1D(n_ranks=6, dim=2)"
    assert not o.order.flags.writeable
    assert Ordering1D(o).n_ranks == 6


@pytest.mark.parametrize(
    "d, path",
    [(2, "table"), (3, "sorted"), (10, "bytes")],  # how Ordering1D indexes the cells
)
def test_index_paths(d, path):
    rng = np.random.default_rng(d)
    order = rng.normal(size=(100, d))
    ordering = Ordering1D(order)
    assert (ordering._table is not None) == (path == "table")
    assert (ordering._strides is None) == (path == "bytes")
    perm = rng.permutation(100)
    assert ordering.ranks_of(order[perm]).tolist() == perm.tolist()
    # A point sharing every coordinate value with nodes, but not a node.
    off = order[0].copy()
    off[-1] = order[1, -1]
    with pytest.raises(ValueError, match="`points` row 1, .* is not a node of `order`"):
        ordering.ranks_of([order[5], off])
    with pytest.raises(ValueError, match="`order` must have distinct rows; row 7 repeats row 3"):
        Ordering1D(np.concatenate([order[:7], order[3:4], order[7:]]))
    r = ordering.allocate(order[perm[:30]], 5, strategy="first-fit")
    a = allocate_ranks(perm[:30], 5, 100, strategy="first-fit")
    assert r.extra["ranks"].tolist() == a.ranks.tolist()
    assert sorted(perm[r.indices].tolist()) == a.ranks.tolist()


def test_sparse_machine_sorts_by_argsort():
    # N much larger than n: ranks are sorted with argsort, not an N-slot mark.
    order = line(70000)
    pts = order[[69990, 5, 6, 7, 40000]]
    r = best_fit(pts, 3, order=order)
    assert ranks_of(r) == [5, 6, 7] and r.indices.tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="`points` must be distinct; row 2 repeats row 0"):
        best_fit(order[[3, 9, 3]], 1, order=order)


def test_negative_zero_is_zero():
    order = np.array([[0.0, 1.0], [0.0, 0.0]])
    assert Ordering1D(order).ranks_of([[-0.0, -0.0]]).tolist() == [1]


def test_default_strategy_is_best_fit():
    order = line(10)
    pts = order[[0, 1, 2, 5, 6]]
    assert ranks_of(allocate_1d(pts, 2, order=order)) == [5, 6]


def test_result_extra_fields():
    r = best_fit(line(8)[[1, 2, 3, 6]], 2, order=line(8))
    assert set(r.extra) >= {
        "ranks",
        "start",
        "span",
        "linear_span",
        "ring_span",
        "contiguous",
        "fallback",
        "run_length",
        "strategy",
        "ring",
        "n_ranks",
    }
    assert r.extra["n_ranks"] == 8 and r.extra["ring"] is False
    assert r.to_dict()["extra"]["ranks"] == [1, 2]
    assert isinstance(allocate_ranks([1, 2], 1, 4), Allocation1D)


# ---------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"strategy": "worst-fit"}, r"`strategy` must be one of 'free-list', 'first-fit', 'best-fit', 'sum-of-squares'"),
        ({"order": [[0, 0], [1, 0], [0, 0]]}, r"`order` must have distinct rows; row 2 repeats row 0"),
        ({"order": np.zeros((2, 2, 2))}, r"`order` must have shape \(n, d\)"),
        ({"order": [[0, np.nan]]}, "`order` contains NaN"),
        ({"points": [[0, 0, 0]]}, r"`points` must have 2 coordinate\(s\) per point like `order`, got 3"),
        ({"points": [[0, 0], [5, 5]]}, r"`points` row 1, \[5.0, 5.0\], is not a node of `order`"),
        ({"points": [[0, 0], [1, 0], [0, 0]]}, "`points` must be distinct; row 2 repeats row 0"),
        ({"k": 0}, "`k` must be between 1 and the number of points"),
        ({"k": 4}, r"`k` must be between 1 and the number of points \(3\), got 4"),
        ({"k": 1.5}, "`k` must be an integer"),
    ],
)
def test_allocate_errors(kwargs, match):
    args = {"points": [[0, 0], [1, 0], [1, 1]], "k": 2, "order": snake(2, 2), "strategy": "best-fit"}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        allocate_1d(args.pop("points"), args.pop("k"), **args)


def test_allocate_ranks_errors():
    with pytest.raises(ValueError, match="`free_ranks` must be distinct; rank 2 is repeated"):
        allocate_ranks([2, 1, 2], 1, 5)
    with pytest.raises(ValueError, match=r"`free_ranks` must lie in \[0, n_ranks - 1\] = \[0, 4\], got 5"):
        allocate_ranks([5], 1, 5)
    with pytest.raises(ValueError, match="`strategy` must be one of"):
        allocate_ranks([1], 1, 5, strategy="next-fit")
    with pytest.raises(ValueError, match="`k` must be between"):
        allocate_ranks([1, 2], 3, 5)


def test_ordering_errors():
    with pytest.raises(ValueError, match="`order` is empty"):
        Ordering1D(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="`points` row 0"):
        Ordering1D(line(3)).ranks_of([[7]])


# ---------------------------------------------------------------------------
# Properties against the references


@st.composite
def instances(draw, max_n=9):
    n = draw(st.integers(1, max_n))
    free = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1)))
    k = draw(st.integers(1, len(free)))
    ring = draw(st.booleans())
    return n, free, k, ring


@given(instances(), st.sampled_from(STRATEGIES))
@settings(max_examples=100, deadline=None)
def test_valid_allocation(inst, strategy):
    n, free, k, ring = inst
    a = allocate_ranks(free, k, n, strategy=strategy, ring=ring)
    chosen = a.ranks.tolist()
    assert len(chosen) == k == len(set(chosen))
    assert set(chosen) <= set(free)
    assert chosen == sorted(chosen)
    assert a.span == ref_span(chosen, n, ring)
    assert a.contiguous == (a.span == k)
    assert np.asarray(free)[a.positions].tolist() == chosen
    assert a.start in chosen


@given(instances(), st.sampled_from(FITS))
@settings(max_examples=120, deadline=None)
def test_fit_matches_reference(inst, strategy):
    n, free, k, ring = inst
    a = allocate_ranks(free, k, n, strategy=strategy, ring=ring)
    expected = ref_fit(free, k, n, strategy, ring)
    if expected is None:
        assert a.fallback and a.run_length is None
        best_span, best_start = ref_min_span(free, k, n, ring)
        assert a.span == best_span
        assert a.start == best_start
    else:
        assert not a.fallback
        assert a.ranks.tolist() == expected
        assert a.contiguous and a.span == k


@given(instances(max_n=10))
@settings(max_examples=100, deadline=None)
def test_fallback_span_is_minimum_over_all_subsets(inst):
    # Force the fallback by asking for more than the longest run: compare the
    # min-span window with enumeration of all k-subsets.
    n, free, k, ring = inst
    longest = max(len(run) for _, run in ref_runs(free, n, ring))
    if k <= longest:
        k = min(len(free), longest + 1)
        if k <= longest:
            return
    a = allocate_ranks(free, k, n, strategy="best-fit", ring=ring)
    assert a.fallback
    assert (a.span, a.start) == ref_min_span(free, k, n, ring)


@given(instances())
@settings(max_examples=50, deadline=None)
def test_free_list_is_k_smallest_ranks(inst):
    n, free, k, ring = inst
    rng = np.random.default_rng(len(free) * 31 + k)
    order = line(n)
    pts = order[rng.permutation(free)]
    r = free_list(pts, k, order=order, ring=ring)
    assert ranks_of(r) == free[:k]
    assert sorted(pts[r.indices, 0].astype(int).tolist()) == free[:k]


@given(instances(max_n=12), st.sampled_from(STRATEGIES))
@settings(max_examples=60, deadline=None)
def test_coordinates_agree_with_ranks(inst, strategy):
    # Random order of a 4 x 3 mesh; the points are listed in random order.
    n, free, k, ring = inst
    rng = np.random.default_rng(n * 1000 + k)
    cells = np.array([[x, y] for x in range(4) for y in range(3)], dtype=float)
    order = cells[rng.permutation(12)][:n]
    pts_rows = rng.permutation(free)
    r = allocate_1d(order[pts_rows], k, order=order, strategy=strategy, ring=ring)
    a = allocate_ranks(free, k, n, strategy=strategy, ring=ring)
    assert r.extra["ranks"].tolist() == a.ranks.tolist()
    assert sorted(pts_rows[r.indices].tolist()) == a.ranks.tolist()
    np.testing.assert_array_equal(r.points, order[pts_rows[r.indices]])
    assert r.k == k


def test_large_machine_runs():
    # A 64 x 64 snake with a random half free: every strategy, both metrics.
    order = snake(64, 64)
    ordering = Ordering1D(order)
    rng = np.random.default_rng(0)
    free = order[rng.permutation(len(order))[:2048]]
    for s in STRATEGIES:
        for ring in (False, True):
            r = ordering.allocate(free, 100, strategy=s, ring=ring)
            assert r.k == 100
