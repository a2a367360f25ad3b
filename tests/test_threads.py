"""The split loops' helper threads (:mod:`optalloc._threads`)."""

from __future__ import annotations

import multiprocessing
import threading

import numpy as np
import pytest

from optalloc import _threads
from optalloc._threads import run_split


def _helper_threads():
    return [t for t in threading.enumerate() if t.name == "optalloc-split"]


def test_pieces_cover_the_items_in_order():
    for items in (1, 2, 7, 100):
        for threads in (1, 2, 3, 5):
            parts = run_split(lambda lo, hi: list(range(lo, hi)), items, min_items=1, threads=threads)
            assert len(parts) == min(threads, items)
            assert [i for p in parts for i in p] == list(range(items))


def test_pieces_run_on_other_threads_that_are_kept():
    run_split(lambda lo, hi: None, 4, min_items=1, threads=3)
    before = {t.ident for t in _helper_threads()}
    assert len(before) >= 2
    for _ in range(20):
        names = run_split(lambda lo, hi: threading.current_thread().name, 4, min_items=1, threads=3)
        assert names[0] == threading.current_thread().name
        assert names[1:] == ["optalloc-split"] * 2
    assert {t.ident for t in _helper_threads()} == before  # none started again


@pytest.mark.parametrize("failing", [2, 0], ids=["a helper's piece", "the caller's piece"])
def test_an_error_of_a_piece_is_raised_once_every_piece_has_ended(failing):
    ended = []

    def piece(lo, hi):
        if lo == failing:
            raise ValueError(f"piece {lo} failed")
        ended.append(lo)
        return lo

    with pytest.raises(ValueError, match=f"piece {failing} failed"):
        run_split(piece, 4, min_items=1, threads=4)
    assert sorted(ended) == [i for i in range(4) if i != failing]
    # the helpers still serve later calls
    assert run_split(lambda lo, hi: lo, 4, min_items=1, threads=4) == [0, 1, 2, 3]


def test_a_piece_that_splits_again_runs_in_one_thread():
    def inner(lo, hi):
        return len(run_split(lambda a, b: None, 100, min_items=1, threads=4))

    counts = run_split(inner, 4, min_items=1, threads=4)
    assert counts[0] == 4  # the caller's own piece may split
    assert counts[1:] == [1, 1, 1]  # a helper's may not: its cores are taken


def test_callers_on_several_threads_get_their_own_results():
    results = {}

    def caller(c):
        got = []
        for _ in range(30):
            got.append(run_split(lambda lo, hi, c=c: (c, lo, hi), 6, min_items=1, threads=3))
        results[c] = got

    callers = [threading.Thread(target=caller, args=(c,)) for c in range(4)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    for c in range(4):
        assert all(g == [(c, 0, 2), (c, 2, 4), (c, 4, 6)] for g in results[c])


def _split_in_child(conn):
    conn.send(run_split(lambda lo, hi: int(np.arange(lo, hi).sum()), 10, min_items=1, threads=3))
    conn.close()


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork() on this platform")
def test_a_forked_child_starts_its_own_helpers():
    run_split(lambda lo, hi: None, 4, min_items=1, threads=3)  # the parent's helpers exist
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_split_in_child, args=(child,))
    p.start()
    assert parent.poll(60), "the forked child did not answer"
    assert parent.recv() == [sum(range(3)), sum(range(3, 6)), sum(range(6, 10))]
    p.join(60)
    assert p.exitcode == 0


def test_set_threads_refuses_what_is_not_a_positive_integer():
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="positive integer"):
            _threads.set_threads(bad)


def test_weights_cut_at_equal_shares_of_the_work():
    rng = np.random.default_rng(3)
    for _ in range(200):
        items = int(rng.integers(2, 60))
        threads = int(rng.integers(2, 5))
        w = rng.exponential(size=items) * (rng.random(items) < 0.8)
        parts = run_split(lambda lo, hi: (lo, hi), items, min_items=1, threads=threads, weights=w)
        assert parts[0][0] == 0 and parts[-1][1] == items
        assert all(a[1] == b[0] and a[0] <= a[1] for a, b in zip(parts, parts[1:]))
        if w.sum() > 0:  # each piece holds at most a share plus one item of the work
            share = w.sum() / len(parts)
            assert all(w[lo:hi].sum() <= share + w.max() + 1e-9 for lo, hi in parts)


def test_unusable_weights_cut_by_count():
    for w in ([0.0] * 6, [1.0] * 5, [1, -1, 1, 1, 1, 1], [1, float("nan"), 1, 1, 1, 1]):
        assert run_split(lambda lo, hi: (lo, hi), 6, min_items=1, threads=2, weights=w) == [(0, 3), (3, 6)]
