"""The exact search over group and router counts of a dragonfly: every bound
it prunes with against brute force over all router count vectors, and its
optimum against brute force over node sets, on random states of small
dragonflies of every arrangement."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from optalloc import ksubset
from optalloc.ksubset.dragonfly import dragonfly_exact
from optalloc.ksubset.dragonfly._search import NEG, count_bound, vector_bound
from optalloc.ksubset.dragonfly._tables import dragonfly_tables
from optalloc.machine import Machine, dragonfly, fat_tree

SMALL = [
    (3, 2, 2, 1, "absolute"),
    (3, 2, 2, 1, "relative"),
    (3, 2, 3, 2, "relative"),  # two global links between each pair of groups
    (4, 3, 1, 1, "absolute"),
    (4, 3, 1, 1, "relative"),
    (5, 2, 2, 2, "absolute"),
    (5, 2, 2, 2, "relative"),
    (5, 2, 2, 2, "circulant"),
    (3, 1, 3, 2, "circulant"),
    (5, 4, 1, 1, "absolute"),
    (1, 3, 2, 1, "absolute"),  # one group
]
IDS = [",".join(map(str, p)) for p in SMALL]
#: the bound checks of these enumerate many vectors: slow
_SLOW = {(5, 2, 2, 2, "absolute"), (5, 2, 2, 2, "relative"), (5, 2, 2, 2, "circulant"), (5, 4, 1, 1, "absolute")}
BOUND_CASES = [pytest.param(p, marks=pytest.mark.slow) if p in _SLOW else p for p in SMALL]


def _state(base, rng, busy_share=None):
    m = base.copy_empty()
    share = rng.random() if busy_share is None else busy_share
    busy = np.flatnonzero(rng.random(m.n) < share)
    m.allocate(busy[: m.n - 1])
    return m


def _q_of_w(w, k):
    return 3 * k * k - 2 * (w - k * (k - 1))


def _all_counts(t, k):
    """Every router count vector with k nodes (in the tables' router order),
    its Q from the machine's own distances, and its number of partly chosen routers."""
    return [c for c in itertools.product(*[range(int(f) + 1) for f in t.free]) if sum(c) == k]


def _truth(m, t, c):
    """Q of the router counts c from the machine's distance matrix (the lowest free nodes of each router)."""
    p = t.unit_size
    free = np.asarray(m.free).reshape(-1, p)
    nodes = np.concatenate([r * p + np.flatnonzero(free[r])[:x] for r, x in zip(t.routers, c, strict=True)])
    k = len(nodes)
    return _q_of_w(m.distances(nodes).sum() / 2, k)


def _group_counts(t, c):
    c = np.asarray(c)
    return np.array([c[t.gptr[b]:t.gptr[b + 1]].sum() for b in range(len(t.cap))])


def _vector_id(t, b, cb):
    lo, hi = t.vstart[b, 0], t.vstart[b, t.cap[b] + 1]
    n = t.gptr[b + 1] - t.gptr[b]
    hit = np.flatnonzero((t.vec[lo:hi, :n] == np.asarray(cb)).all(axis=1))
    return int(lo + hit[0]) if len(hit) else None


@pytest.mark.parametrize("params", SMALL, ids=IDS)
def test_the_exact_optimum_is_brute_forces_on_random_states(params):
    base = dragonfly(*params)
    rng = np.random.default_rng(sum(p for p in params if isinstance(p, int)) + len(params[-1]))
    for _ in range(150):
        m = _state(base, rng)
        k = int(rng.integers(1, m.n_free + 1))
        if math.comb(m.n_free, k) > 20_000:
            k = min(k, 4)
        r = dragonfly_exact(m, k)
        ref = ksubset.solve(m, k, method="brute")
        assert r.status == "optimal" and r.objective == ref.objective, (params, np.flatnonzero(m.free).tolist(), k)
        assert r.objective == m.distances(r.indices).sum() / 2 and len(r.indices) == k
        assert np.asarray(m.free)[r.indices].all()


@pytest.mark.parametrize("params", BOUND_CASES, ids=IDS)
def test_every_bound_holds_over_all_router_count_vectors(params):
    base = dragonfly(*params)
    rng = np.random.default_rng(7 + sum(p for p in params if isinstance(p, int)))
    checked = 0
    for _ in range(100):
        m = _state(base, rng, busy_share=rng.random() * 0.6 if base.n > 16 else None)
        t = dragonfly_tables(m.hierarchy, m.free)
        if np.prod(t.free + 1.0) > 40_000:
            continue
        k = int(rng.integers(1, m.n_free + 1))
        counts = _all_counts(t, k)
        B = len(t.cap)
        for c in counts:
            c = np.asarray(c)
            q = _truth(m, t, c)
            x = _group_counts(t, c)
            # the savings table meets every pair of groups' savings at their counts
            for b, b2 in itertools.combinations(range(B), 2):
                cb, cb2 = c[t.gptr[b]:t.gptr[b + 1]], c[t.gptr[b2]:t.gptr[b2 + 1]]
                saving = cb @ t.M[t.gptr[b]:t.gptr[b + 1], t.gptr[b2]:t.gptr[b2 + 1]] @ cb2
                assert t.sig[b, b2, x[b], x[b2]] >= saving
            partial = int(((c > 0) & (c < t.free)).sum())
            if partial > 1:
                continue  # the searches skip these: some optimum has at most one
            for j in range(B + 1):
                assert count_bound(t, k, x[:j]) >= q, (params, c.tolist(), j)
            ids = [_vector_id(t, b, c[t.gptr[b]:t.gptr[b + 1]]) for b in np.flatnonzero(x)]
            assert None not in ids  # a vertex vector of its group
            for i in range(len(ids) + 1):
                assert vector_bound(t, x, ids[:i]) >= q, (params, c.tolist(), i)
            checked += 1
        best = max((_truth(m, t, c) for c in counts), default=None)
        assert best is None or count_bound(t, k, []) >= best
    assert checked > 0


@pytest.mark.parametrize("params", SMALL[:9], ids=IDS[:9])
def test_the_savings_kept_pair_by_pair_are_the_whole_tables(params, monkeypatch):
    # a large machine reads sig pair by pair, kept between states: the same tables, the same optimum
    from optalloc.ksubset.dragonfly import _tables

    base = dragonfly(*params)
    rng = np.random.default_rng(3)
    for _ in range(30):
        m = _state(base, rng)
        whole = dragonfly_tables(m.hierarchy, m.free)
        monkeypatch.setattr(_tables, "_RESP_MAX", 0)
        pairs = dragonfly_tables(m.hierarchy, m.free)
        k = int(rng.integers(1, m.n_free + 1))
        r = dragonfly_exact(m, k)
        monkeypatch.undo()
        assert not pairs.with_resp and np.array_equal(whole.sig, pairs.sig)
        assert r.objective == dragonfly_exact(m, k).objective


@pytest.mark.parametrize("params", SMALL[:9], ids=IDS[:9])
def test_the_turn_of_the_block_search_keeps_the_optimum(params, monkeypatch):
    # after a node or two of the count search, the search over block and class counts, then the count search
    from optalloc.ksubset.dragonfly import _solve

    monkeypatch.setattr(_solve, "_FIRST_NODES", 2)
    base = dragonfly(*params)
    rng = np.random.default_rng(5)
    phases = set()
    for _ in range(40):
        m = _state(base, rng)
        k = int(rng.integers(1, m.n_free + 1))
        if math.comb(m.n_free, k) > 20_000:
            k = 4
        r = dragonfly_exact(m, k)
        phases.add(r.extra["phase"] == "blocks" or r.extra["nodes"] > 2)  # past the first turn
        assert r.status == "optimal" and r.objective == ksubset.solve(m, k, method="brute").objective
        assert r.objective == m.distances(r.indices).sum() / 2 and np.asarray(m.free)[r.indices].all()
    assert True in phases


def test_counts_that_no_router_set_holds_are_refused():
    t = dragonfly_tables(dragonfly().hierarchy, np.ones(72, dtype=bool))
    # two groups of odd counts need two routers partly chosen
    assert count_bound(t, 8, [3, 5]) == NEG
    assert count_bound(t, 8, [2, 6]) > NEG


def test_the_idle_default_dragonfly_at_k_16_is_proven_at_424():
    r = dragonfly_exact(dragonfly(), 16)
    assert r.objective == 424.0 and r.status == "optimal" and r.bound == 424.0


def test_solve_exact_on_a_dragonfly_runs_the_count_search():
    m = dragonfly(5, 2, 2, 2, "circulant")
    m.allocate([0, 3, 7])
    r = ksubset.solve(m, 5, method="exact")
    assert r.extra["phase"] == "counts" and r.status == "optimal"
    assert r.objective == ksubset.solve(m, 5, method="brute").objective


def test_a_limit_returns_the_bracket():
    m = dragonfly()
    r = dragonfly_exact(m, 32, node_limit=50)
    assert r.termination == "node_limit" and r.status == "feasible"
    assert r.bound <= r.objective and r.bound > 0
    assert r.objective == m.distances(r.indices).sum() / 2


@pytest.mark.parametrize("params", SMALL[:9], ids=IDS[:9])
def test_the_bracket_of_a_stopped_search_holds_the_optimum(params):
    # stopped after a few nodes, the bound (the greatest over the nodes left open) is below the optimum
    base = dragonfly(*params)
    rng = np.random.default_rng(11)
    stopped = 0
    for _ in range(40):
        m = _state(base, rng, busy_share=rng.random() * 0.5)
        k = int(rng.integers(3, m.n_free + 1)) if m.n_free >= 3 else m.n_free
        if math.comb(m.n_free, k) > 20_000:
            k = 4
        best = ksubset.solve(m, k, method="brute").objective
        for limit in (1, 3, 10, 40):
            r = dragonfly_exact(m, k, node_limit=limit)
            assert r.bound <= best <= r.objective, (params, limit)
            stopped += r.termination == "node_limit"
    assert stopped > 0


def test_bad_input_is_refused_in_one_line():
    with pytest.raises(ValueError, match=r"^`machine` must be a dragonfly"):
        dragonfly_exact(fat_tree(4), 3)
    with pytest.raises(ValueError, match=r"^`machine` must be a dragonfly"):
        dragonfly_exact(Machine((4, 4)), 3)
    m = dragonfly()
    m.allocate(range(70))
    with pytest.raises(ValueError, match=r"^`k` must be between 1 and the number of free nodes \(2\)"):
        dragonfly_exact(m, 3)


@pytest.mark.parametrize("params", SMALL[:9], ids=IDS[:9])
def test_the_tables_for_k_are_the_whole_tables_up_to_k(params):
    # the solver builds its tables only up to k nodes a group: every entry it can read equals the whole table's,
    # so the search (and its bracket on a stop) is the same
    from optalloc.ksubset.dragonfly._search import count_search

    base = dragonfly(*params)
    rng = np.random.default_rng(11)
    for _ in range(30):
        m = _state(base, rng)
        k = int(rng.integers(1, m.n_free + 1))
        whole = dragonfly_tables(m.hierarchy, m.free)
        part = dragonfly_tables(m.hierarchy, m.free, k)
        C = part.top.shape[1] - 1
        assert C == min(k, int(whole.cap.max())) and part.with_resp == whole.with_resp
        assert np.array_equal(part.top, whole.top[:, :C + 1]) and np.array_equal(part.whole, whole.whole[:, :C + 1])
        assert np.array_equal(part.sig, whole.sig[:, :, :C + 1, :C + 1])
        assert np.array_equal(part.reach, whole.reach[:, :C + 1])
        for b in range(len(whole.cap)):
            for x in range(min(C, int(whole.cap[b])) + 1):
                a, e = whole.vstart[b, x], whole.vstart[b, x + 1]
                pa, pe = part.vstart[b, x], part.vstart[b, x + 1]
                assert np.array_equal(part.vec[pa:pe], whole.vec[a:e]) and np.array_equal(part.vsq[pa:pe], whole.vsq[a:e])
                if whole.with_resp:
                    assert np.array_equal(part.resp[pa:pe, :, :C + 1], whole.resp[a:e, :, :C + 1])
        deadline = np.array([np.inf])
        a = count_search(whole, k, 0, deadline=deadline)
        b = count_search(part, k, 0, deadline=deadline)
        assert a[0] == b[0] and a[2:] == b[2:]


def test_a_dragonfly_of_large_groups_is_refused_by_the_count_search():
    from optalloc.ksubset.dragonfly import MAX_ROUTERS, count_form_fits

    m = dragonfly(MAX_ROUTERS + 3, MAX_ROUTERS + 2, 1, 1)  # one global link between each pair of groups
    assert not count_form_fits(m.hierarchy)
    m.allocate(np.arange(m.n - 12))
    with pytest.raises(ValueError, match="routers per group"):
        dragonfly_exact(m, 3)
    r = ksubset.solve(m, 3, method="exact")  # the solver falls back to the free nodes' matrix
    assert r.status == "optimal" and r.objective == ksubset.solve(m, 3, method="brute").objective


@pytest.mark.parametrize("params", SMALL[:9], ids=IDS[:9])
def test_the_first_target_is_gen_alg_improved_to_a_swap_optimum(params):
    # Gen-Alg's set, then moves of one node between routers: no swap of a chosen and a free node lowers W after
    from optalloc.ksubset.dragonfly._solve import _improved
    from optalloc.ksubset.heuristics.centres._network import hierarchy_gen_alg

    base = dragonfly(*params)
    rng = np.random.default_rng(23)
    for _ in range(30):
        m = _state(base, rng)
        k = int(rng.integers(1, m.n_free + 1))
        free = np.asarray(m.free)
        nodes, _, w = hierarchy_gen_alg(m.hierarchy, free, k)
        t = dragonfly_tables(m.hierarchy, free, k)
        better, w2 = _improved(t, nodes, free, m.hierarchy, float(w))
        D = np.asarray(m.distances())
        assert w2 <= w and len(set(better.tolist())) == k and free[better].all()
        assert D[np.ix_(better, better)].sum() / 2 == pytest.approx(w2)
        s = D[:, better].sum(axis=1)
        out = np.setdiff1d(np.flatnonzero(free), better)
        if len(out):  # a swap optimum (router moves are node swaps; a set not moved has no improving move)
            delta = s[out][None, :] - D[np.ix_(better, out)] - s[better][:, None]
            assert delta.min() >= -1e-9
