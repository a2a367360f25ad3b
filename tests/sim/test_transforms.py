"""Workload transforms: the work multiple scales every run time and leaves
releases alone; replication keeps every job and adds its copies."""

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.sim import Job, Trace, copy_stride, replicate, work_multiple

jobs_st = st.lists(
    st.tuples(st.integers(0, 10_000), st.integers(1, 5_000), st.integers(1, 8), st.integers(1, 3),
              st.one_of(st.none(), st.integers(0, 4))),
    min_size=1, max_size=15,
).map(lambda rows: Trace([Job(i + 1, s, r, p, r * e, user=u) for i, (s, r, p, e, u) in enumerate(rows)],
                         max_procs=8))


@settings(max_examples=20, deadline=None)
@given(jobs_st, st.floats(0.05, 20))
def test_work_multiple_scales_run_times_only(trace, f):
    out = work_multiple(trace, f)
    assert len(out) == len(trace) and out.max_procs == trace.max_procs
    by_id = {j.job_id: j for j in out}
    for j in trace:
        k = by_id[j.job_id]
        assert k.submit == j.submit and k.procs == j.procs and k.user == j.user
        assert math.isclose(k.runtime, j.runtime * f) and math.isclose(k.estimate, j.estimate * f)


def test_work_multiple_one_is_the_trace():
    t = Trace([Job(1, 0, 10, 2)])
    assert work_multiple(t, 1) is t


@settings(max_examples=20, deadline=None)
@given(jobs_st, st.integers(1, 4), st.integers(0, 2**31))
def test_replication_keeps_every_job_and_its_copies(trace, n, seed):
    out = replicate(trace, n, seed=seed)
    assert len(out) == n * len(trace)
    stride = copy_stride(trace)
    originals = {j.job_id: j for j in trace}
    assert all(out.jobs[i].submit <= out.jobs[i + 1].submit for i in range(len(out) - 1))
    copies = Counter()
    span = (trace.jobs[-1].submit - trace.jobs[0].submit) / (len(trace) - 1) if len(trace) > 1 else 0.0
    for j in out:
        c, base = divmod(j.job_id, stride)
        o = originals[base]
        copies[base] += 1
        assert (j.runtime, j.estimate, j.procs, j.user) == (o.runtime, o.estimate, o.procs, o.user)
        if c == 0:
            assert j.submit == o.submit
        else:
            assert o.submit <= j.submit <= o.submit + span
    assert copies == Counter({i: n for i in originals})
    assert replicate(trace, n, seed=seed) == out  # seeded: the same trace again


def test_replication_seed_changes_the_arrivals():
    t = Trace([Job(i, 100 * i, 10, 1) for i in range(1, 20)])
    a, b = replicate(t, 2, seed=1), replicate(t, 2, seed=2)
    assert [j.submit for j in a] != [j.submit for j in b]
    assert replicate(t, 3, spread=0).jobs[1].submit == 100.0  # no spread: copies arrive with the job


@pytest.mark.parametrize("bad, msg", [(0, "positive"), (-1.5, "positive"), (math.nan, "nan"),
                                      (math.inf, "inf"), (True, "positive number"), ("2", "positive number")])
def test_bad_work_multiple(bad, msg):
    with pytest.raises(ValueError, match=msg):
        work_multiple([Job(1, 0, 10, 1)], bad)


@pytest.mark.parametrize("bad", [0, -2, 1.5, None])
def test_bad_replication(bad):
    with pytest.raises(ValueError, match="`replication` must be an integer of at least 1"):
        replicate([Job(1, 0, 10, 1)], bad)


def test_bad_spread():
    with pytest.raises(ValueError, match="`spread`"):
        replicate([Job(1, 0, 10, 1)], 2, spread=-1)
