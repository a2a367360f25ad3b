"""The centre loops of the grid heuristics on several threads and the
balls counted with rotated prefix tables, against the oracles.

The oracles are the straightforward versions kept in
:mod:`optalloc.bench.scale` (dense Gen-Alg, MM, MM+Inc; MC1x1 on a torus
over the distance matrix).  Every path is forced on small inputs: two
and three threads with pieces of a single centre, the rotated tables
from k = 1; and on states of medium size (radii past half a ring, where
a diamond would wrap onto itself and the runs take over).
"""

from __future__ import annotations

import numpy as np
import pytest
from ksubset_states import occupy_at_random

from optalloc import _threads
from optalloc.bench.scale._centres import gen_alg_dense, mm_dense, mm_inc_dense, torus_dense
from optalloc.bench.scale._mc import baseline_machine
from optalloc.ksubset import gen_alg, mm, mm_inc, solve
from optalloc.ksubset.heuristics.centres import _centres
from optalloc.ksubset.heuristics.mc import _mctorus
from optalloc.machine import Machine


@pytest.fixture
def forced(monkeypatch):
    """Every split and every table path taken, whatever the size."""
    monkeypatch.setattr(_threads, "THREADS", 3)
    monkeypatch.setattr(_centres, "SPLIT_MIN", 1)
    monkeypatch.setattr(_centres, "TABLE_K", 1)
    monkeypatch.setattr(_centres, "TABLE_SLICES", 1)
    monkeypatch.setattr(_centres, "BACK", -10 ** 6)
    monkeypatch.setattr(_mctorus, "SPLIT_MIN", 1)


def _state(rng, top):
    d = int(rng.integers(2, 4))
    shape = tuple(int(s) for s in rng.integers(2, top[d] + 1, size=d))
    torus = tuple(bool(t) for t in rng.integers(0, 2, size=d))
    m = Machine(shape, torus=torus)
    occupy_at_random(m, rng, 0.9)
    k = int(rng.integers(1, m.n_free + 1)) if rng.random() < 0.5 else int(rng.integers(1, min(m.n_free, 40) + 1))
    return m, k


def _same(m, k):
    if any(m.torus):
        for method in ("gen-alg", "mm", "mm-inc"):
            ours, dense = solve(m, k, method=method), torus_dense(m, k, method)
            assert ours.indices.tolist() == dense.indices.tolist(), (method, m.shape, m.torus, k)
            assert ours.objective == dense.objective and ours.extra == dense.extra
    else:
        pts = np.asarray(m.free_points(), dtype=float)
        for ours, dense in ((gen_alg(pts, k), gen_alg_dense(pts, k)), (mm(pts, k), mm_dense(pts, k)),
                            (mm_inc(pts, k), mm_inc_dense(pts, k))):
            assert ours.indices.tolist() == dense.indices.tolist(), (ours.method, m.shape, k)
            assert ours.objective == dense.objective and ours.extra == dense.extra


def test_centres_split_and_tables_forced_on_small_states(forced):
    rng = np.random.default_rng(11)
    for _ in range(80):
        _same(*_state(rng, {2: 9, 3: 5}))


def test_centres_split_and_tables_forced_on_medium_states(forced):
    rng = np.random.default_rng(12)
    for _ in range(25):
        _same(*_state(rng, {2: 24, 3: 10}))


def test_centres_with_the_default_settings_on_medium_states():
    rng = np.random.default_rng(13)
    for _ in range(5):
        _same(*_state(rng, {2: 24, 3: 10}))


@pytest.mark.slow
def test_centres_split_and_tables_on_thousands_of_states(forced):
    rng = np.random.default_rng(14)
    for _ in range(2000):
        _same(*_state(rng, {2: 20, 3: 9}))


def _brute_scores(m, grid, centres, k):
    """W and star of the k nearest free nodes (ties: the lower row) around
    every centre cell, from the distance matrix."""
    D = np.asarray(m.distances(m.free_ids()), dtype=np.int64)
    L = np.asarray(m.shape)
    co = np.asarray(m.free_points(), dtype=np.int64)
    ws, stars = [], []
    for c in centres:
        gap = np.abs(co - c[: len(L)])
        dist = np.where(np.asarray(m.torus), np.minimum(gap, L - gap), gap).sum(axis=1)
        take = np.lexsort((np.arange(len(co)), dist))[:k]
        ws.append(int(D[np.ix_(take, take)].sum()) // 2)
        stars.append(int(dist[take].sum()))
    return ws, stars


@pytest.mark.parametrize("back", [-10 ** 6, 0, 10 ** 6])
def test_every_centre_scores_as_the_brute_force(forced, monkeypatch, back):
    """W of every centre (the last shell walked from either end) against
    the k nearest points taken from the distance matrix."""
    _check_scores(monkeypatch, back, 16, 60, lambda rng: _state(rng, {2: 9, 3: 6}))


@pytest.mark.slow
@pytest.mark.parametrize("back", [-10 ** 6, 10 ** 6])
def test_every_centre_scores_as_the_brute_force_on_thousands_of_states(forced, monkeypatch, back):
    _check_scores(monkeypatch, back, 17, 1500, lambda rng: _state(rng, {2: 9, 3: 6}))


def _check_scores(monkeypatch, back, seed, states, draw):
    """Every centre's W and star on ``states`` states ``draw(rng)`` against :func:`_brute_scores`."""
    monkeypatch.setattr(_centres, "BACK", back)
    rng = np.random.default_rng(seed)
    for _ in range(states):
        m, k = draw(rng)
        grid = _centres.torus_grid(m.free_points(), (m.shape, m.torus))
        centres = _centres._padded(np.stack(np.meshgrid(*[np.arange(s) for s in m.shape], indexing="ij"),
                                            axis=-1).reshape(-1, m.ndim))
        ws, stars = grid.scores(centres, k)
        want = _brute_scores(m, grid, centres, k)
        assert ws.tolist() == want[0] and stars.tolist() == want[1], (m.shape, m.torus, k)


def test_tables_built_on_threads_equal_the_one_pass_tables(forced):
    """The rotated tables built slice by slice on three threads equal
    those built in one pass, axis by axis."""
    from optalloc.ksubset.heuristics.centres._grid import rotated_fill

    def one_pass(grid, a, M, like):
        T = np.full(like.shape, -7, dtype=like.dtype)  # rotated_fill clears what it writes
        rotated_fill(T, grid.occ, grid.L, grid.wrap, a, M, np.int64(0), grid.L[a])
        return T

    rng = np.random.default_rng(18)
    built = 0
    for _ in range(40):
        m, k = _state(rng, {2: 9, 3: 8})
        grid = _centres.torus_grid(m.free_points(), (m.shape, m.torus))
        *tables, M = grid.tables(k)
        if m.ndim < 3 or tables[0].size == 0:  # runs instead of tables
            continue
        built += 1
        for a, T in enumerate(tables):
            assert np.array_equal(T, one_pass(grid, a, M, T)), (m.shape, m.torus, a)
    assert built >= 5


def test_mc1x1_torus_split_forced(forced):
    rng = np.random.default_rng(15)
    for _ in range(25):
        m, k = _state(rng, {2: 12, 3: 6})
        if not any(m.torus):
            continue
        ours, theirs = solve(m, k, method="mc1x1"), baseline_machine(m, k)
        assert ours.indices.tolist() == theirs.indices.tolist(), (m.shape, m.torus, k)
        assert ours.objective == theirs.objective and ours.extra == theirs.extra


def test_one_thread_and_two_give_the_same_scores(monkeypatch):
    m = Machine((12, 12, 12), torus=(True, False, True))
    rng = np.random.default_rng(3)
    m.allocate(np.flatnonzero(rng.random(m.n) < 0.4))
    grid = _centres.torus_grid(m.free_points(), (m.shape, m.torus))
    centres = np.stack(np.meshgrid(*[np.arange(12)] * 3, indexing="ij"), axis=-1).reshape(-1, 3)
    monkeypatch.setattr(_centres, "SPLIT_MIN", 1)
    runs = []
    for threads in (1, 2, 3):
        monkeypatch.setattr(_threads, "THREADS", threads)
        runs.append(grid.scores(centres, 100))
    for w, s in runs[1:]:
        assert w.tolist() == runs[0][0].tolist() and s.tolist() == runs[0][1].tolist()


def test_run_split_cuts_in_order_and_reraises():
    def piece(lo, hi):
        return list(range(lo, hi))

    parts = _threads.run_split(piece, 10, min_items=3, threads=4)
    assert [i for part in parts for i in part] == list(range(10))
    assert len(parts) == 3  # at least 3 items a piece
    assert _threads.run_split(piece, 10, min_items=100, threads=4) == [list(range(10))]

    def bad(lo, hi):
        if lo > 0:
            raise ValueError("piece failed")
        return []

    with pytest.raises(ValueError, match="piece failed"):
        _threads.run_split(bad, 10, min_items=1, threads=2)


@pytest.mark.slow
def test_the_speed_rows_agree_with_the_oracles():
    from optalloc.bench.scale._speed import rows

    got = rows(quick=True)
    assert len(got) >= 16 and all(r.agree for r in got)


def _even_torus(rng):
    """A 3D torus of even sides (every plane counts a wide diamond around its antipode)."""
    shape = tuple(int(s) for s in 2 * rng.integers(1, 5, size=3))
    m = Machine(shape, torus=(True, True, True))
    occupy_at_random(m, rng, 0.9)
    return m, int(rng.integers(1, m.n_free + 1))


@pytest.mark.parametrize("back", [-10 ** 6, 10 ** 6])
def test_wide_balls_on_even_tori_score_as_the_brute_force(forced, monkeypatch, back):
    """Diamonds past the tables' margins counted around the antipode, on
    tori of even sides with k up to every free node, against the distance matrix."""
    _check_scores(monkeypatch, back, 18, 120, _even_torus)


def test_scores_refuse_more_points_than_the_grid_holds():
    """The radius search of a centre would not end: a one-line error instead."""
    m = Machine((4, 4, 4), torus=True)
    m.allocate(np.arange(40))
    grid = _centres.torus_grid(m.free_points(), (m.shape, m.torus))
    with pytest.raises(ValueError, match="between 1 and the number of points"):
        grid.scores(grid.co, m.n_free + 1)
    assert grid.scores(grid.co, m.n_free)[0].shape == (m.n_free,)


def test_scores_depend_neither_on_the_centres_order_nor_on_the_tables(forced, monkeypatch):
    """Centres in a shuffled order (a column's remembered slice counts
    met again after other columns) and grids whose planes are refused
    the 16-bit tables (runs instead) score as in lexicographic order
    with the tables."""
    rng = np.random.default_rng(21)
    cells = _centres.TABLE_CELLS
    shuffled = 0
    for _ in range(60):
        m, k = _state(rng, {2: 9, 3: 7})
        grid = _centres.torus_grid(m.free_points(), (m.shape, m.torus))
        centres = _centres._padded(np.stack(np.meshgrid(*[np.arange(s) for s in m.shape], indexing="ij"),
                                            axis=-1).reshape(-1, m.ndim))
        ws, stars = grid.scores(centres, k)
        order = rng.permutation(len(centres))
        w2, s2 = grid.scores(centres[order], k)
        assert w2.tolist() == ws[order].tolist() and s2.tolist() == stars[order].tolist(), (m.shape, m.torus, k)
        shuffled += m.ndim == 3
        monkeypatch.setattr(_centres, "TABLE_CELLS", 1)
        plain = _centres.torus_grid(m.free_points(), (m.shape, m.torus))
        assert plain.tables(k)[0].size == 0
        w3, s3 = plain.scores(centres, k)
        monkeypatch.setattr(_centres, "TABLE_CELLS", cells)
        assert w3.tolist() == ws.tolist() and s3.tolist() == stars.tolist(), (m.shape, m.torus, k)
    assert shuffled >= 10


def test_grid_arrays_equal_numpy_prefix_counts():
    """The occupancy, the prefix counts of the runs along the first two
    axes (each row twice) and the order flag, as numpy builds them, for
    points in cell order, shuffled, and repeated."""
    from optalloc.ksubset.heuristics.centres._centres import grid_arrays

    rng = np.random.default_rng(22)
    for trial in range(60):
        L = np.array([int(v) for v in rng.integers(1, 7, size=3)], dtype=np.int64)
        cells = np.flatnonzero(rng.random(int(np.prod(L))) < rng.random())
        if trial % 3 == 1:
            cells = rng.permutation(cells)
        elif trial % 3 == 2 and len(cells):
            cells = np.sort(np.concatenate([cells, cells[:1]]))
        co = np.stack([cells % L[0], cells // L[0] % L[1], cells // (L[0] * L[1])], axis=1).astype(np.int64)
        occ = np.full(int(np.prod(L)), -1, dtype=np.int64)
        occ[cells] = np.arange(len(cells))
        free = (occ >= 0).reshape(L[::-1])  # (z, y, x)

        def prefix(rows):
            return np.concatenate([np.zeros((len(rows), 1), dtype=np.int64),
                                   np.cumsum(np.concatenate([rows, rows], axis=1), axis=1)], axis=1)

        got = grid_arrays(co, L)
        assert np.array_equal(got[0], occ)
        assert np.array_equal(got[1], prefix(free.reshape(-1, L[0])))
        assert np.array_equal(got[2], prefix(free.transpose(0, 2, 1).reshape(-1, L[1])))
        assert got[3] == bool(np.all(np.diff(cells) > 0))
