"""Certification in parallel and with the symmetry cache: the same rows as one plain run.

Ground truth: a serial run without any cache (every decision solved
afresh); a run in two local processes, one on a Dask cluster and one with
the repeat and symmetry caches give the same W, brackets and statuses.
Symmetric states: ``canonical_key`` is the same for a free set and its
images under translations, reflections, axis swaps (mesh) and rotations
around the wrap (torus), and states with one key have one brute-force
optimum.
"""

from __future__ import annotations

import io
import itertools
import os

import numpy as np
import pytest

from optalloc._progress import Progress
from optalloc.ksubset import solve
from optalloc.machine import Machine
from optalloc.sim import Trace, canonical_key, certify, read_swf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _key(c):
    return [(r.index, r.job_id, r.k, r.n_free, r.W, r.lower, r.upper, r.status) for r in c.rows]


@pytest.fixture(scope="module")
def trace():
    return Trace(read_swf(os.path.join(ROOT, "instances", "small.swf")).jobs[:25], max_procs=32)


@pytest.fixture(scope="module")
def plain(trace):
    return certify(trace, "8x4", cache=False)


def test_two_processes_equal_the_serial_run(trace, plain, tmp_path):
    out = tmp_path / "rows.jsonl"
    par = certify(trace, "8x4", workers=2, out=out)
    assert _key(par) == _key(plain)
    assert par.cache_hits + par.symmetry_hits > 0
    lines = out.read_text().splitlines()
    assert [int(line.split('"index": ')[1].split(",")[0]) for line in lines[:-1]] == list(range(len(par)))


@pytest.mark.slow
def test_dask_equals_the_serial_run(trace, plain):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=":0") as cluster:
        c = certify(trace, "8x4", cluster=cluster.scheduler_address)
    assert _key(c) == _key(plain)


def test_torus_symmetry_cache_equals_solving_afresh():
    jobs = read_swf(os.path.join(ROOT, "instances", "small.swf"), max_procs=16).head(30)
    a = certify(jobs, "4x4 torus", allocators=("gen-alg",))
    b = certify(jobs, "4x4 torus", allocators=("gen-alg",), cache=False)
    assert _key(a) == _key(b)
    assert a.symmetry_hits > 0 and b.symmetry_hits == b.cache_hits == 0


def test_progress_shows_proven_decisions_and_the_mean_gap(trace):
    log = io.StringIO()
    with Progress(unit="decisions", label="certify", stream=log) as p:
        certify(trace, "8x4", progress=p, time_limit=30)
    assert "proven=25" in log.getvalue() and "mean_gap=0.000%" in log.getvalue()


def _isometries(shape, torus):
    """Maps of coordinate arrays that preserve the metric: axis swaps (equal
    classes), reflections, translations or rotations."""
    d = len(shape)
    rng = np.random.default_rng(0)
    for perm in itertools.permutations(range(d)):
        if torus and any(shape[a] != shape[b] for a, b in zip(perm, range(d))):
            continue
        for flips in itertools.product((False, True), repeat=d):
            shift = [int(rng.integers(0, s)) for s in shape]

            def f(c, perm=perm, flips=flips, shift=shift):
                c = c[:, list(perm)]
                out = np.where(flips, -c, c) + shift
                return out % np.asarray(shape) if torus else out - out.min(axis=0)

            yield f


@pytest.mark.parametrize(("shape", "torus"), [((5, 4), False), ((4, 4), True), ((3, 3, 3), True), ((4, 3, 2), False)])
def test_canonical_key_is_shared_by_symmetric_states_with_one_optimum(shape, torus):
    rng = np.random.default_rng(len(shape) + torus)
    m = Machine(shape, torus=torus)
    keys_optima = {}
    for _ in range(6):
        free = np.sort(rng.choice(m.size, size=int(rng.integers(4, m.size)), replace=False))
        k = int(rng.integers(2, min(5, len(free)) + 1))
        key = canonical_key(m, free, k)
        for f in _isometries(shape, torus):
            img = f(m.coords[free])
            if (img >= np.asarray(shape)).any():
                continue  # a mesh translate that leaves the box
            ids = np.sort(m.node_ids(img))
            assert canonical_key(m, ids, k) == key
        machine = m.copy_empty()
        machine.allocate(np.setdiff1d(np.arange(m.size), free), owner=-2)
        opt = solve(machine, k, method="brute").objective
        assert keys_optima.setdefault(key, opt) == opt


def test_states_of_one_key_have_one_optimum_at_random():
    """Over many random small states, equal keys never join different optima."""
    rng = np.random.default_rng(9)
    for shape, torus in (((3, 3), True), ((4, 2), False)):
        m = Machine(shape, torus=torus)
        seen = {}
        for _ in range(120):
            free = np.sort(rng.choice(m.size, size=int(rng.integers(3, m.size + 1)), replace=False))
            k = int(rng.integers(2, min(4, len(free)) + 1))
            machine = m.copy_empty()
            busy = np.setdiff1d(np.arange(m.size), free)
            if len(busy):
                machine.allocate(busy, owner=-2)
            opt = solve(machine, k, method="brute").objective
            assert seen.setdefault(canonical_key(m, free, k), opt) == opt
        assert len(seen) < 120  # some states met again up to symmetry


def test_limits_report_their_brackets_and_which_limit(trace, plain):
    """A run stopped by its total time limit keeps a bracket for every decision."""
    c = certify(trace, "8x4", total_time_limit=1e-9)
    assert c.termination == "total_time_limit" and len(c) == len(plain)
    for r, p in zip(c.rows, plain.rows):
        assert r.lower <= p.upper <= r.upper and r.status in ("optimal", "bracket")
    assert "stopped at the total time limit" in c.table()
    assert c.to_dict()["termination"] == "total_time_limit"
    torus = read_swf(os.path.join(ROOT, "instances", "small.swf"), max_procs=20).head(12)
    full = certify(torus, "5x4 torus", allocators=("gen-alg",))
    short = certify(torus, "5x4 torus", allocators=("gen-alg",), time_limit=0.01)
    assert full.termination == "optimal"
    assert short.termination in ("optimal", "time_limit")  # "time_limit" unless every solve is quicker
    assert (short.termination == "time_limit") == any(r.status == "time_limit" for r in short.rows)
    for r, p in zip(short.rows, full.rows):
        assert r.lower <= p.upper + 1e-9 <= r.upper + 2e-9


def test_a_total_time_limit_paces_the_states(trace, plain, monkeypatch):
    """Under a total time limit each state's limit is its share of the time
    left, at most the per-state limit, and the brackets still hold."""
    from optalloc.sim.certification import _exact as _certify_exact

    limits = []
    real = _certify_exact.solve_state

    def record(machine, free_ids, k, **kw):
        limits.append(kw["time_limit"])
        return real(machine, free_ids, k, **kw)

    monkeypatch.setattr(_certify_exact, "solve_state", record)
    c = certify(trace, "8x4", total_time_limit=30.0, time_limit=60.0, cache=False)
    assert len(limits) == len(plain) and c.termination in ("optimal", "bracket", "time_limit")
    assert all(0 < t <= 30.0 for t in limits)  # never the per-state 60 s: a share of the 30 s
    assert limits[0] == pytest.approx(30.0 / len(plain), rel=0.05)
    for r, p in zip(c.rows, plain.rows):
        assert r.lower <= p.upper + 1e-9 <= r.upper + 2e-9


def test_the_pacer_shares_the_time_left():
    import time

    from optalloc.sim.certification._exact import State
    from optalloc.sim.certification._run import _MIN_SHARE, _Pacer

    s = State(0, np.arange(3), 2)
    pace = _Pacer(time.perf_counter() + 100.0, 2, 4, 30.0)
    first = pace(s).time_limit
    assert 30.0 >= first > 29.0  # 100 s x 2 workers / 4 states = 50, capped at 30
    assert pace(s).time_limit <= 30.0 and pace.left == 2
    late = _Pacer(time.perf_counter() - 1.0, 1, 3, None)
    assert late(s).time_limit == _MIN_SHARE  # the time is spent: the least limit
    assert _Pacer(time.perf_counter() + 10.0, 1, 5, None)(s).time_limit == pytest.approx(2.0, rel=0.01)


def test_the_idle_machine_bounds_every_state_of_its_k(fresh_box_cache):
    from optalloc.sim.certification._exact import idle_bound, solve_state, warm_idle

    machine = Machine((16, 16))
    busy = machine.node_ids([[0, 0], [15, 15], [0, 15], [15, 0], [1, 1]])
    free = np.setdiff1d(np.arange(machine.size), busy)  # spans the whole machine still
    # the bounding rectangle's search within the cheap bound's nodes does not
    # finish at k = 128 (about 100,000 nodes), so the state's bounds are weaker
    assert idle_bound(machine, 128) == 0.0
    before = solve_state(machine, free, 128, exact=False)
    assert before.lower < 60002
    warm_idle(machine, [128, 300])  # k beyond the machine: skipped
    assert idle_bound(machine, 128) == 60002.0 == solve(machine.copy_empty(), 128, method="exact").objective
    after = solve_state(machine, free, 128, exact=False)
    assert after.lower == 60002.0 and after.status == "bracket"
    # an optimal set of the idle machine fits among the free nodes (away
    # from the corners): the bound is met, and a short solve proves it
    res = solve_state(machine, free, 128, exact=True, time_limit=1)
    assert res.status == "optimal" and res.lower == res.upper == 60002.0


def test_the_idle_bound_is_for_2d_meshes_only():
    from optalloc.sim.certification._exact import idle_bound, warm_idle

    for machine in (Machine((8, 8), torus=True), Machine((4, 4, 4)), Machine((64,))):
        warm_idle(machine, [10])
        assert idle_bound(machine, 10) == 0.0


def test_the_idle_bounds_keep_to_their_time(fresh_box_cache, monkeypatch):
    from optalloc.ksubset.search import _box
    from optalloc.sim.certification import _exact as _certify_exact
    from optalloc.sim.certification._exact import idle_bound, warm_idle

    budgets = []
    real = _certify_exact.ksubset.box_bracket
    monkeypatch.setattr(_certify_exact.ksubset, "box_bracket",
                        lambda *a, nodes, **kw: budgets.append(nodes) or real(*a, nodes=nodes, **kw))
    machine = Machine((32, 32))
    warm_idle(machine, [256, 16], seconds=0.0)  # no time: no search beyond the tables
    assert budgets == [0, 0] and idle_bound(machine, 256) == 0.0 and (32, 32, 256) not in _box._BRACKETS
    assert idle_bound(machine, 16) == 318.0  # the tables need no nodes
    budgets.clear()
    warm_idle(machine, [256], seconds=0.5)  # nodes counted at 40,000 a second
    assert 0 < budgets[0] <= 20_000 and 0.0 < idle_bound(machine, 256) < 340016.0


def test_the_idle_bounds_are_worked_out_on_the_workers_and_handed_to_all(fresh_box_cache, monkeypatch):
    from optalloc.ksubset.search import _box
    from optalloc.sim.certification import _exact as _certify_exact
    from optalloc.sim.certification._exact import State, StateSolver, idle_bound, know_idle

    machine = Machine((16, 16))
    busy = machine.node_ids([[0, 0], [15, 15], [0, 15], [15, 0], [1, 1]])
    free = np.setdiff1d(np.arange(machine.size), busy)
    calls = []
    real = _certify_exact.ksubset.box_bracket
    monkeypatch.setattr(_certify_exact.ksubset, "box_bracket",
                        lambda *a, nodes, **kw: (nodes > 0 and calls.append(a)) or real(*a, nodes=nodes, **kw))
    got = {}
    solver = StateSolver(machine, exact=False, time_limit=None, workers=2)
    solver.run([State(0, free, 128), State(1, free, 128), State(2, free, 20)], lambda pos, s: got.update({pos: s}))
    # no search in this process: the workers (fresh processes, whose cheap
    # bounds stay below 60002 at k = 128) did it and handed the bound over
    assert calls == [] and (16, 16, 128) not in _box._BRACKETS
    assert got[0].lower == got[1].lower == 60002.0 == idle_bound(machine, 128)
    # handed-over bounds only raise what a process knows
    know_idle(machine, {128: 100.0, 20: 5.0})
    assert idle_bound(machine, 128) == 60002.0 and idle_bound(machine, 20) >= 5.0


def test_the_workers_bound_each_k_once_largest_first(fresh_box_cache):
    import concurrent.futures

    from optalloc.sim.certification._exact import StateSolver, _warm_one, idle_bound

    machine = Machine((16, 16))
    sent, seen = [], []

    def submit(k, end):  # the task run at once, as a worker would
        sent.append(k)
        fut = concurrent.futures.Future()
        fut.set_result(_warm_one(machine.copy_empty(), k, 10**6, end))
        return fut

    solver = StateSolver(machine, exact=False, time_limit=None, workers=2, announce=seen.append)
    bounds = solver._warm_on(submit, concurrent.futures.as_completed, [20, 128, 20, 300, 8])  # 300: too large
    assert sent == [128, 20, 8] and bounds == {128: 60002.0, 20: idle_bound(machine, 20), 8: idle_bound(machine, 8)}
    assert seen[0] == (8, 20, 128) and seen[-1] is None and len(seen) == 4
    # a torus has no idle bound: nothing is sent
    assert StateSolver(Machine((8, 8), torus=True), exact=False, time_limit=None)._warm_on(
        submit, concurrent.futures.as_completed, [8]) == {} and sent == [128, 20, 8]


def test_the_idle_bounds_announce_each_k(fresh_box_cache):
    # the progress of a certification names the k being bounded (the
    # warm-up can take minutes at k = 512 on 32 x 32), then returns to "optima"
    from optalloc.sim.certification._exact import warm_idle

    seen = []
    bounds = warm_idle(Machine((16, 16)), [20, 8, 20, 300], announce=seen.append)  # 300: beyond the machine
    assert seen == [(8,), (20,), None] and sorted(bounds) == [8, 20]
    assert warm_idle(Machine((8, 8), torus=True), [8], announce=seen.append) == {} and seen[-1] is None
    log = io.StringIO()
    with Progress(unit="decisions", label="certify", stream=log) as p:
        certify(read_swf(os.path.join(ROOT, "instances", "small.swf"), max_procs=16).head(5), "8x4", progress=p)
    assert "stage=optima" in log.getvalue() and "idle machine" not in log.getvalue().splitlines()[-1]
