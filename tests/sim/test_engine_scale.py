"""The event engine at scale: the same records as the straightforward loop,
per-job figures without k x k matrices, allocator and event time apart,
the free-list allocator, and certification of states too large to solve."""

import itertools
import json

import numpy as np
import pytest

from optalloc.bench.scale._sim import reference_simulate, synthetic_jobs
from optalloc.cli import main
from optalloc.ksubset import solve
from optalloc.machine import Machine, parse_machine
from optalloc.sim import (
    EXACT_MAX_FREE,
    FreeListAllocator,
    allocation_metrics,
    certify,
    job_locality,
    locality_context,
    make_sweep,
    read_sweep,
    read_swf,
    run_sweep,
    simulate,
    summarise,
)
from optalloc.sim.certification import large_state_bound
from optalloc.sim.metrics._record import JobMetrics

CASES = [
    ("16x8", "free-list", "easy"),
    ("8x8 torus", "random:seed=3", "easy"),
    ("6x5x4 torus", "free-list", "conservative"),
    ("16x8", "1d:gilbert:best-fit", "fcfs"),
    ("8x4x4", "random:seed=1", "easy"),
    ("7x5", "mc1x1", "easy"),
]


@pytest.mark.parametrize("spec, allocator, scheduler", CASES)
def test_same_records_as_the_straightforward_loop(spec, allocator, scheduler):
    machine = parse_machine(spec)
    jobs = synthetic_jobs(600, machine.size, seed=len(spec))
    ours = simulate(jobs, machine, allocator=allocator, scheduler=scheduler)
    ref = reference_simulate(jobs, machine, allocator=allocator, scheduler=scheduler)
    assert ours.records == ref.records
    assert ours.summary == ref.summary  # timings aside (not compared)


def test_summary_is_that_of_the_records_and_times_add_up():
    jobs = synthetic_jobs(2000, 64, seed=5)
    res = simulate(jobs, "8x8", allocator="free-list")
    assert summarise(res.records, 64) == res.summary
    s = res.summary
    assert s.allocator_time > 0 and s.event_time > 0
    assert s.allocator_time + s.event_time == pytest.approx(res.runtime, rel=1e-9)
    assert res.to_dict()["summary"]["event_time"] == s.event_time


def test_free_list_is_row_major_free_list():
    jobs = synthetic_jobs(800, 128, seed=2)
    a = simulate(jobs, "16x8", allocator="free-list")
    b = simulate(jobs, "16x8", allocator="1d:row-major:free-list")
    assert a.records == b.records
    m = Machine((4, 4))
    m.allocate(np.array([0, 2, 5]))
    assert FreeListAllocator().select(m, 4).tolist() == [1, 3, 4, 6]


@pytest.mark.parametrize("shape, wrap", [((5, 7), True), ((6, 6, 4), (True, False, True)), ((8, 4), False),
                                         ((9,), True), ((2, 5), True), ((4, 4, 4), True)])
def test_job_figures_against_brute_force(shape, wrap):
    rng = np.random.default_rng(sum(shape))
    m = Machine(shape, torus=wrap)
    ctx = locality_context(m)
    for ranks in (rng.permutation(m.size), None):
        figures = JobMetrics(m, ranks)
        for _ in range(150):
            k = int(rng.integers(1, m.size + 1))
            ids = np.sort(rng.choice(m.size, k, replace=False)).astype(np.int64)
            got = figures(ids)
            assert got["W"] == m.distances(ids).sum() / 2  # every pair, by the machine's metric
            old = allocation_metrics(m, ids, ranks)
            old.update(job_locality(ctx, ids, bbox=old["bbox"], ring_span=old["ring_span"]))
            assert got == old
            assert all(type(got[f]) is type(old[f]) for f in got)


def test_torus_weight_of_a_large_job_needs_no_matrix():
    m = Machine((24, 24, 24), torus=True)
    ids = np.arange(0, m.size, 2, dtype=np.int64)  # 6,912 nodes: a k x k matrix would be 380 MB
    # by axes: the pairs of nodes with coordinates a and b along an axis are counts[a] * counts[b]
    expected = 0
    for ax in range(3):
        counts = np.bincount(m.coords[ids, ax], minlength=24)
        expected += sum(int(counts[a]) * int(counts[b]) * min(b - a, 24 - b + a)
                        for a in range(24) for b in range(a + 1, 24))
    assert allocation_metrics(m, ids)["W"] == expected


def _swf(path, n):
    lines = [f"{i + 1} {10 * i} 0 {50 + i} {1 + i % 4} -1 -1 {1 + i % 4} {60 + i} -1 1 1 1 -1 1 -1 -1 -1"
             for i in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_cli_reports_allocator_and_event_time(tmp_path, capsys):
    trace = _swf(tmp_path / "t.swf", 30)
    assert main(["simulate", trace, "--machine", "4x4", "--allocator", "free-list"]) == 0
    out = capsys.readouterr().out
    assert "allocator time" in out and "event time" in out
    assert main(["simulate", trace, "--machine", "4x4", "--allocator", "free-list", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)["summary"]
    assert s["allocator_time"] >= 0 and s["event_time"] > 0


@pytest.mark.parametrize("shape, wrap", [((5, 5), True), ((4, 6), False), ((3, 4, 3), (True, False, True)),
                                         ((6, 1), False)])
def test_large_state_bound_is_below_the_optimum(shape, wrap):
    m = Machine(shape, torus=wrap)
    # the central node is nearest to its k nearest: no node has a smaller sum
    D = m.distances()
    near = np.sort(D, axis=1).cumsum(axis=1)
    centre = int(m.node_ids([[(s - 1) // 2 for s in shape]])[0])
    assert (near >= near[centre] - 1e-9).all()
    rng = np.random.default_rng(m.size)
    for _ in range(25):
        free = np.sort(rng.choice(m.size, int(rng.integers(2, min(m.size, 10) + 1)), replace=False))
        k = int(rng.integers(2, len(free) + 1))
        shadow = m.copy_empty()
        busy = np.setdiff1d(np.arange(m.size), free)
        if len(busy):
            shadow.allocate(busy)
        best = solve(shadow, k, method="brute").objective
        assert large_state_bound(m, free, k) <= best + 1e-9


@pytest.mark.parametrize("spec", ["dragonfly:3,2,2,1", "dragonfly:5,2,2,2,relative", "dragonfly:5,4,1,1",
                                  "dragonfly:5,2,2,2,circulant", "fattree:4"])
def test_large_state_bound_on_networks_is_below_the_optimum(spec):
    m = parse_machine(spec)
    D = m.distances()
    # one node per router stands for its router: the least prefix over every node is the same
    near = np.concatenate([np.zeros((m.size, 1)), np.sort(D, axis=1).cumsum(axis=1)], axis=1).min(axis=0)
    rng = np.random.default_rng(m.size)
    for k in range(2, m.size + 1):
        assert large_state_bound(m, np.arange(m.size), k) == pytest.approx(0.5 * k * near[k])
    for _ in range(40):
        free = np.sort(rng.choice(m.size, int(rng.integers(2, min(m.size, 11) + 1)), replace=False))
        k = int(rng.integers(2, len(free) + 1))
        best = min(D[np.ix_(s, s)].sum() / 2 for s in itertools.combinations(free, k))
        assert 0 < large_state_bound(m, free, k) <= best + 1e-9


def test_certify_brackets_large_states_without_exact_solves(capsys):
    side = int(np.ceil(np.sqrt(EXACT_MAX_FREE + 1)))
    spec = f"{side}x{side}"
    jobs = synthetic_jobs(12, side * side, seed=3)
    cert = certify(jobs, spec, driver="free-list", allocators=("random:seed=0", "1d:gilbert:best-fit"))
    large = [r for r in cert.rows if r.n_free > EXACT_MAX_FREE]
    assert large
    for r in large:  # no exact solve: the bracket of the O(n log n) bound (never a time limit)
        assert r.status in ("bracket", "optimal") and r.lower <= min(r.W) == r.upper
    assert not cert.check()


def test_certify_says_which_decisions_were_too_large(tmp_path, capsys):
    side = int(np.ceil(np.sqrt(EXACT_MAX_FREE + 1)))
    trace = _swf(tmp_path / "t.swf", 6)
    assert main(["certify", trace, "--machine", f"{side}x{side}", "--driver", "free-list", "--allocators",
                 "random:seed=0"]) == 0
    out = capsys.readouterr().out
    assert f"6 decisions with more than {EXACT_MAX_FREE} free nodes not solved exactly" in out


def test_sweep_runs_the_free_list_and_keeps_both_times(tmp_path):
    trace = _swf(tmp_path / "t.swf", 20)
    cfg = make_sweep(traces=[trace], machines=["4x4", "4x4 torus"], allocators=["free-list"])
    db = str(tmp_path / "s.sqlite")
    run_sweep(cfg, db, workers=1, progress=False)
    rows = read_sweep(db)
    assert [r["status"] for r in rows] == ["done", "done"]
    for r in rows:
        direct = simulate(read_swf(trace), r["machine"], allocator="free-list").summary
        assert r["summary"]["mean_W"] == direct.mean_W and r["summary"]["event_time"] > 0

