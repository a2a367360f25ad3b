"""The Cplant queue and schedulers on hand-made traces whose schedule is
worked out in each test (four processors: a 2x2 mesh)."""

import pytest

from optalloc.sim import Conservative, Job, make_scheduler, simulate

H = 3600.0


def run(jobs, scheduler, **kw):
    res = simulate(jobs, "2x2", scheduler=scheduler, allocator="gen-alg", **kw)
    return {r.job_id: r for r in res.records}


def starts(jobs, scheduler):
    return {i: r.start for i, r in run(jobs, scheduler).items()}


def test_leung_queue_orders_by_processors_then_requested_time():
    # J1 holds the machine until 10; at 10 the queue is J4 (2, 4 s), J3 (2, 9 s),
    # J2 (3, 5 s): J4 and J3 start, J2 (3 processors) waits for J3 to end at 19.
    jobs = [Job(1, 0, 10, 4), Job(2, 1, 5, 3), Job(3, 1, 9, 2), Job(4, 1, 4, 2)]
    assert starts(jobs, "cplant-queue") == {1: 0, 2: 19, 3: 10, 4: 10}


def test_fair_share_order():
    # user 0 used the whole machine for 100 s; at 100 J2 (user 0, earlier)
    # and J3 (user 1, no usage) wait: fair share starts J3 first, FCFS J2.
    jobs = [Job(1, 0, 100, 4, user=0), Job(2, 1, 10, 4, user=0), Job(3, 2, 10, 4, user=1)]
    assert starts(jobs, "cplant") == {1: 0, 2: 110, 3: 100}
    assert starts(jobs, "fcfs") == {1: 0, 2: 100, 3: 110}


STARVE = [Job(1, 0, 90_000, 2, user=0), Job(2, 10, 100, 4, user=1), Job(3, 20, 200_000, 2, user=2),
          Job(4, 86_420, 300_000, 2, user=3)]


def test_no_guarantee_backfilling_then_starvation_after_24_hours():
    # No guarantee: J3 passes the waiting J2 at 20.  At 90000 J1 ends; J2 has
    # waited 89990 s > 24 h: it is starving, heads the queue and holds a
    # reservation at J3's end (200020); J4 (ends long after, no extra
    # processors) may not pass it.  J2 runs 200020-200120, then J4.
    assert starts(STARVE, "cplant") == {1: 0, 2: 200_020, 3: 20, 4: 200_120}


def test_longer_starvation_limit_lets_jobs_pass():
    # 72-hour limit: at 90000 J2 is not starving; no guarantee lets J4 start
    # on the two free processors, and J2 waits for J4's end (390000).
    assert starts(STARVE, "cplant-starve72") == {1: 0, 2: 390_000, 3: 20, 4: 90_000}


def test_runtime_cap_kills_jobs_at_72_hours():
    jobs = [Job(1, 0, 100 * H, 4, 120 * H, user=0), Job(2, 5, 10, 4, user=1)]
    recs = run(jobs, "cplant-cap72")
    assert recs[1].run == 72 * H and recs[1].killed and recs[1].estimate == 72 * H
    assert recs[2].start == 72 * H
    base = run(jobs, "cplant")
    assert base[1].run == 100 * H and not base[1].killed and base[2].start == 100 * H
    # the cap holds with jobs run to their full time as well
    full = simulate(jobs, "2x2", scheduler="cplant-cap72", allocator="gen-alg", kill_at_estimate=False)
    assert full.records[0].run == 72 * H


def test_no_starvation_reservation_for_a_hog():
    # user 0 used the machine for 100000 s; J2 (user 0) is starving at
    # 100000, J3 (user 1) is not.  Baseline: the starving J2 first.  No-hog:
    # user 0's usage is above the mean of the active users, so J2 stays in
    # fair-share order, behind J3.
    jobs = [Job(1, 0, 100_000, 4, user=0), Job(2, 10, 100, 4, user=0), Job(3, 50_000, 100, 4, user=1)]
    assert starts(jobs, "cplant") == {1: 0, 2: 100_000, 3: 100_100}
    assert starts(jobs, "cplant-nohog") == {1: 0, 2: 100_100, 3: 100_000}
    assert starts(jobs, "cplant-tweaks") == starts(jobs, "cplant-nohog")


def test_conservative_keeps_promises_dynamic_reorders_by_fair_share():
    # J2 (user 0, who used the machine) is promised 100 when it arrives;
    # J3 (user 1) arrives later.  Conservative by fair share keeps J2's
    # promise; dynamic reservations put the fairer J3 first.
    jobs = [Job(1, 0, 100, 4, user=0), Job(2, 1, 10, 4, user=0), Job(3, 2, 10, 4, user=1)]
    assert starts(jobs, "cplant-conservative") == {1: 0, 2: 100, 3: 110}
    assert starts(jobs, "cplant-dynamic") == {1: 0, 2: 110, 3: 100}


def test_one_user_conservative_by_fair_share_is_conservative():
    jobs = [Job(i, 3 * i, 5 + (7 * i) % 13, 1 + i % 4, 10 + (5 * i) % 17, user=0) for i in range(1, 25)]
    a = starts(jobs, "cplant-conservative")
    b = {r.job_id: r.start for r in simulate(jobs, "2x2", scheduler=Conservative(), allocator="gen-alg").records}
    assert a == b


def test_names_and_bad_options():
    assert make_scheduler("cplant").name == "cplant"
    assert make_scheduler("CPLANT-TWEAKS").runtime_limit == 72 * H
    from optalloc.sim import Cplant

    with pytest.raises(ValueError, match="`starvation_limit` must be a positive number"):
        Cplant(starvation_limit=-1)
    with pytest.raises(ValueError, match="`half_life` must be a positive number"):
        Cplant(half_life=0)


def test_trace_without_user_ids_is_refused():
    with pytest.raises(ValueError, match="scheduler 'cplant' needs user ids"):
        simulate([Job(1, 0, 10, 2)], "2x2", scheduler="cplant")
