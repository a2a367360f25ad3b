"""Schedules worked out by hand for FCFS, EASY and conservative backfilling."""

import numpy as np
import pytest

from optalloc.sim import (
    ARRIVAL,
    DISPATCH,
    FINISH,
    EventQueue,
    Job,
    Scheduler,
    make_scheduler,
    simulate,
)


def starts(jobs, scheduler, machine="2x2", **kw):
    res = simulate(jobs, machine, scheduler=scheduler, allocator="gen-alg", **kw)
    return {r.job_id: r.start for r in res.records}


# Four nodes throughout.  J(id, submit, runtime, procs[, estimate]).

def test_fcfs_head_blocks_and_easy_backfills_a_short_job():
    jobs = [Job(1, 0, 10, 2), Job(2, 0, 5, 3), Job(3, 1, 2, 1)]
    # FCFS: J2 waits for J1 (t=10); J3 is behind J2 and starts with it.
    assert starts(jobs, "fcfs") == {1: 0, 2: 10, 3: 10}
    # EASY: shadow time 10; J3 ends at 3 <= 10, so it backfills at t=1.
    assert starts(jobs, "easy") == {1: 0, 2: 10, 3: 1}


def test_easy_refuses_a_backfill_that_would_delay_the_head():
    jobs = [Job(1, 0, 10, 2), Job(2, 0, 5, 4), Job(3, 1, 20, 2)]
    # J3 fits now (2 free) but would end at 21 > shadow 10 and there are no
    # extra nodes (J2 needs all 4): it must wait until J2 is done (t=15).
    assert starts(jobs, "easy") == {1: 0, 2: 10, 3: 15}


def test_easy_long_job_on_extra_nodes_only():
    jobs = [Job(1, 0, 10, 2), Job(2, 0, 5, 3), Job(3, 1, 100, 1), Job(4, 2, 100, 1)]
    # Extra nodes at the shadow time: 4 - 3 = 1.  J3 takes it (long but
    # harmless); J4 also fits now but the extra node is gone: it waits for J2.
    assert starts(jobs, "easy") == {1: 0, 2: 10, 3: 1, 4: 15}


def test_easy_plans_with_estimates_not_run_times():
    # J3 really runs 2 s but says 20: ends by estimate at 21 > shadow 10.
    jobs = [Job(1, 0, 10, 2), Job(2, 0, 5, 4), Job(3, 1, 2, 2, 20)]
    assert starts(jobs, "easy") == {1: 0, 2: 10, 3: 15}
    # J1 says 30, so the shadow time is 30 and J3 (ends by 21) backfills.
    jobs = [Job(1, 0, 10, 2, 30), Job(2, 0, 5, 4), Job(3, 1, 2, 2, 20)]
    assert starts(jobs, "easy") == {1: 0, 2: 10, 3: 1}


def test_easy_and_conservative_differ_on_the_second_job():
    jobs = [Job(1, 0, 10, 3), Job(2, 0, 10, 2), Job(3, 0, 10, 4), Job(4, 1, 30, 1)]
    # EASY protects only the head J2 (shadow 10, 2 extra nodes): J4 takes an
    # extra node at t=1 and so delays J3 until J4 ends (31).
    assert starts(jobs, "easy") == {1: 0, 2: 10, 3: 31, 4: 1}
    # Conservative: J3 holds [20, 30), so J4 (30 s) fits only from 30.
    assert starts(jobs, "conservative") == {1: 0, 2: 10, 3: 20, 4: 30}
    assert starts(jobs, "fcfs") == {1: 0, 2: 10, 3: 20, 4: 30}


def test_conservative_backfills_when_no_reservation_is_delayed():
    jobs = [Job(1, 0, 10, 2), Job(2, 0, 5, 3), Job(3, 1, 100, 1), Job(4, 2, 3, 1)]
    # J3 fits beside J2's reservation; J4 ends (t=5) before anything is due.
    assert starts(jobs, "conservative") == {1: 0, 2: 10, 3: 1, 4: 2}


def test_finish_before_arrival_at_equal_time():
    jobs = [Job(1, 0, 10, 4), Job(2, 10, 5, 4)]
    assert starts(jobs, "fcfs") == {1: 0, 2: 10}


def test_equal_submit_times_keep_trace_order():
    jobs = [Job(1, 0, 10, 4), Job(2, 5, 5, 3), Job(3, 5, 5, 2)]
    assert starts(jobs, "fcfs") == {1: 0, 2: 10, 3: 15}


def test_kill_at_estimate():
    jobs = [Job(1, 0, 10, 4, 5), Job(2, 0, 1, 4)]
    assert starts(jobs, "fcfs") == {1: 0, 2: 5}
    res = simulate(jobs, "2x2", scheduler="fcfs", allocator="mm", kill_at_estimate=False)
    assert [r.start for r in res.records] == [0, 10]
    assert [r.killed for r in res.records] == [False, False]
    res = simulate(jobs, "2x2", scheduler="fcfs", allocator="mm")
    assert [r.killed for r in res.records] == [True, False] and res.records[0].run == 5


def test_event_queue_order():
    q = EventQueue()
    q.push(5.0, DISPATCH, "d")
    q.push(5.0, ARRIVAL, "a1")
    q.push(5.0, FINISH, "f")
    q.push(5.0, ARRIVAL, "a2")
    q.push(1.0, DISPATCH, "early")
    assert [q.pop().payload for _ in range(5)] == ["early", "f", "a1", "a2", "d"]
    with pytest.raises(RuntimeError, match="in the past"):
        q.push(2.0, ARRIVAL, "late")


def test_make_scheduler_names_and_errors():
    assert make_scheduler("FCFS").name == "fcfs"
    with pytest.raises(ValueError, match="`scheduler` must be one of"):
        make_scheduler("sjf")


def test_overcommitting_scheduler_is_caught():
    class Greedy(Scheduler):
        def select(self, now, waiting, free, running):
            return list(waiting)

    with pytest.raises(RuntimeError, match="needing 6 processors with 4 free"):
        simulate([Job(1, 0, 5, 3), Job(2, 0, 5, 3)], "2x2", scheduler=Greedy(), allocator="mm")


def random_jobs(seed, n=60, size=16):
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.exponential(5.0, n))
    run = rng.integers(1, 60, n)
    est = run * rng.uniform(1.0, 2.0, n)
    procs = rng.integers(1, size + 1, n)
    return [Job(i + 1, float(submit[i]), float(run[i]), int(procs[i]), float(est[i])) for i in range(n)]


def check_capacity_and_nodes(res, size):
    events = sorted([(r.start, 1, r) for r in res.records] + [(r.end, 0, r) for r in res.records],
                    key=lambda e: (e[0], e[1]))
    busy = set()
    for _, kind, r in events:
        if kind == 0:
            busy -= set(r.nodes)
        else:
            assert not busy & set(r.nodes), "two running jobs share a node"
            busy |= set(r.nodes)
            assert len(busy) <= size


@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "conservative"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_schedules_are_valid(scheduler, seed):
    jobs = random_jobs(seed)
    res = simulate(jobs, "4x4", scheduler=scheduler, allocator="random", rng=seed)
    for r in res.records:
        assert r.start >= r.submit and r.end == r.start + r.run
    check_capacity_and_nodes(res, 16)
    if scheduler == "fcfs":
        s = [r.start for r in res.records]
        assert s == sorted(s)  # strict arrival order


class _Promises(Scheduler):
    """Conservative backfilling that records the first reservation of every job."""

    name = "conservative"

    def __init__(self):
        from optalloc.sim import Conservative

        self.inner = Conservative()
        self.first = {}

    def select(self, now, waiting, free, running):
        picks = self.inner.select(now, waiting, free, running)
        for j in picks:
            self.first.setdefault(j.job_id, now)
        for j in waiting:
            start = self.inner._promised.get(id(j))
            if start is not None:
                self.first.setdefault(j.job_id, start)
        return picks


def test_conservative_never_starts_a_job_after_its_first_reservation():
    # jobs end early (runtime < estimate): compression may only move starts earlier
    jobs = [Job(2, 1, 7, 3, 7), Job(4, 3, 5, 1, 6), Job(1, 4, 1, 4, 1), Job(3, 4, 1, 3, 1)]
    sched = _Promises()
    res = simulate(jobs, "2x2", scheduler=sched, allocator="gen-alg")
    for r in res.records:
        assert r.start <= sched.first[r.job_id] + 1e-9
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(3, 9))
        trial = []
        for i in range(n):
            est = float(rng.integers(1, 20))
            trial.append(Job(i + 1, float(rng.integers(0, 10)), float(rng.integers(1, int(est) + 1)),
                             int(rng.integers(1, 5)), est))
        sched = _Promises()
        res = simulate(trial, "2x2", scheduler=sched, allocator="gen-alg")
        for r in res.records:
            assert r.start <= sched.first[r.job_id] + 1e-9


@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "conservative"])
def test_jobs_running_past_their_estimate_are_not_counted_free(scheduler):
    # job 1 runs 100 s on an estimate of 10 (not killed): its nodes stay busy
    jobs = [Job(1, 0, 100, 2, 10), Job(2, 0, 5, 4, 5), Job(3, 20, 5, 2, 5)]
    got = starts(jobs, scheduler, kill_at_estimate=False)
    assert got[1] == 0 and got[2] == 100


def test_easy_counts_every_job_ending_at_the_shadow_time():
    from optalloc.sim import EASY

    waiting = [Job(3, 0, 10, 3), Job(4, 0, 100, 1)]
    # two jobs of one node each end at 10: the head needs 3 of the 4, so one is spare
    assert [j.job_id for j in EASY().select(0.0, waiting, 2, [(10.0, 1), (10.0, 1)])] == [4]
    assert [j.job_id for j in EASY().select(0.0, waiting, 2, [(10.0, 2)])] == [4]
