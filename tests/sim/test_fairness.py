"""Fair share and fair-start times (SAND2003-3702, ch. 7) against direct
computations and schedules worked out by hand."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.sim import FairShare, Job, fair_start_time, simulate


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1000), st.floats(0.5, 500), st.integers(1, 4)), min_size=1, max_size=6),
       st.floats(0, 3000), st.one_of(st.none(), st.floats(10, 5000)))
def test_usage_is_the_integral_of_decayed_processors(runs, t, half_life):
    """Incremental usage equals the closed-form integral of p * 2^(-(t - u) / h) over each run."""
    fs = FairShare(half_life)
    events = []
    for i, (s, d, p) in enumerate(runs):
        job = Job(i + 1, 0, 1, p, user=7)
        events += [(s, 1, job), (s + d, 0, job)]
    for when, kind, job in sorted(events, key=lambda e: (e[0], e[1])):
        if when > t:
            break
        (fs.start if kind else fs.end)(job, when)
    expected = 0.0
    for s, d, p in runs:
        if s >= t:
            continue
        e = min(s + d, t)
        if half_life is None:
            expected += p * (e - s)
        else:
            lam = math.log(2) / half_life
            expected += p * (math.exp(-lam * (t - e)) - math.exp(-lam * (t - s))) / lam
    assert math.isclose(fs.usage(7, t), expected, rel_tol=1e-9, abs_tol=1e-6)


def test_fair_start_times_worked_out():
    # J1 (user 0) holds the machine until 100.  J2 (user 0) arrives at 1:
    # fair start 100.  J3 (user 1, no usage) arrives at 2 and comes first in
    # fairness order: fair start 100.  FCFS starts J2 at 100 and J3 at 110:
    # J3 misses its fair start by 10 s.
    jobs = [Job(1, 0, 100, 4, user=0), Job(2, 1, 10, 4, user=0), Job(3, 2, 10, 4, user=1)]
    res = simulate(jobs, "2x2", scheduler="fcfs", allocator="gen-alg", fair_start=True)
    assert [r.fair_start for r in res.records] == [0.0, 100.0, 100.0]
    s = res.summary
    assert (s.fair_start_missed_share, s.fair_start_mean_miss, s.fair_start_max_miss) == (1 / 3, 10.0, 10.0)
    # dynamic reservations start J3 first: now J2 (fair start 100) is late by 10 s
    res = simulate(jobs, "2x2", scheduler="cplant-dynamic", allocator="gen-alg", fair_start=True)
    assert [r.start for r in res.records] == [0.0, 110.0, 100.0]
    assert res.summary.fair_start_missed_share == 1 / 3


one_user = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 60), st.integers(1, 4)), min_size=1, max_size=12)


@settings(max_examples=25, deadline=None)
@given(one_user)
def test_one_user_exact_estimates_fcfs_meets_every_fair_start(rows):
    """With one user and exact estimates the fair-start schedule is FCFS itself."""
    jobs = [Job(i + 1, s, r, p, user=0) for i, (s, r, p) in enumerate(rows)]
    res = simulate(jobs, "2x2", scheduler="fcfs", allocator="gen-alg", fair_start=True)
    for r in res.records:
        assert r.fair_start == pytest.approx(r.start)
    assert res.summary.fair_start_missed_share == 0.0


def test_fair_start_time_blocks_behind_the_head():
    a, b = Job(1, 0, 10, 3), Job(2, 0, 5, 1)
    assert fair_start_time(0.0, b, [a, b], 2, [(4.0, 2)]) == 4.0  # b could run now, but not before a
    assert fair_start_time(0.0, b, [b, a], 2, [(4.0, 2)]) == 0.0


def test_off_by_default_and_refused_without_users():
    res = simulate([Job(1, 0, 10, 2, user=1)], "2x2", allocator="gen-alg")
    assert res.records[0].fair_start is None and res.summary.fair_start_missed_share is None
    with pytest.raises(ValueError, match="fair_start=True needs user ids"):
        simulate([Job(1, 0, 10, 2)], "2x2", fair_start=True)


def test_partial_user_ids_count_each_unknown_job_alone():
    jobs = [Job(1, 0, 10, 4, user=3), Job(2, 1, 10, 4), Job(3, 2, 10, 4)]
    res = simulate(jobs, "2x2", scheduler="cplant", allocator="gen-alg", fair_start=True)
    assert [r.user for r in res.records] == [3, None, None]
    assert [r.start for r in res.records] == [0.0, 10.0, 20.0]
