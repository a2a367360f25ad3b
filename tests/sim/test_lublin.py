"""The Lublin-Feitelson workload generator against the model's figures.

Ground truth: the parameters of the paper's model as m_lublin99.c gives
them for its 128-node machine (written out here, not read from the
generator), the distributions they define worked out with scipy, and a
plain-Python transcription of the reference code's per-job loop run on the
same random numbers.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from optalloc.sim import Trace, lublin_workload, read_swf, write_swf
from optalloc.sim.workload._lublin import draw_model, model_arrays

# m_lublin99.c, INCLUDE_JOBS_TYPE 1, a 128-node machine (UHI 7)
PAPER = {
    0: dict(serial=0.1541, pow2=0.625, low=1.0, med=3.0, hi=5.5, uprob=0.705, a1=3.8351, b1=0.6605, a2=7.073,
            b2=0.6856, pa=-0.0118, pb=0.9156, aarr=6.5510 * 0.9797, barr=0.6621, anum=8.9186, bnum=3.6680),
    1: dict(serial=0.2927, pow2=0.6686, low=1.2, med=5.0, hi=7.0, uprob=0.875, a1=6.57, b1=0.823, a2=639.1,
            b2=0.0156, pa=-0.003, pb=0.6986, aarr=6.0415 * 1.0519, barr=0.8531, anum=6.1271, bnum=5.2740),
}
N_JOBS = 100_000


@pytest.fixture(scope="module")
def trace128():
    return lublin_workload(128, N_JOBS, seed=11)


def columns(trace):
    a = np.array([(j.submit, j.procs, j.runtime, j.fields[14]) for j in trace.jobs])
    return a[:, 0], a[:, 1].astype(int), a[:, 2], a[:, 3].astype(int)


def within(sample, expected, se, z=4.0):
    assert abs(sample - expected) <= z * se, (sample, expected, se)


# ---------------------------------------------------------------- sizes


def round_to_power_of_two(par):
    """P(round(2^x) is a power of two) for x of the class's two-stage uniform."""
    lo, md, hi, up = par["low"], par["med"], par["hi"], par["uprob"]

    def mass(a, b):  # the two-stage uniform's mass on [a, b)
        first = max(0.0, min(b, md) - max(a, lo)) * up / (md - lo)
        second = max(0.0, min(b, hi) - max(a, md)) * (1 - up) / (hi - md)
        return first + second

    return sum(mass(math.log2(2 ** k - 0.5), math.log2(2 ** k + 0.5)) for k in range(1, 12))


@pytest.mark.parametrize("queue", [0, 1])
def test_serial_share(trace128, queue):
    _, size, _, q = columns(trace128)
    s = size[q == queue]
    p = PAPER[queue]["serial"]
    within(np.mean(s == 1), p, math.sqrt(p * (1 - p) / s.size))


@pytest.mark.parametrize("queue", [0, 1])
def test_power_of_two_share_among_parallel_jobs(trace128, queue):
    _, size, _, q = columns(trace128)
    s = size[(q == queue) & (size > 1)]
    par = PAPER[queue]
    other = 1 - par["serial"] - par["pow2"]
    p = (par["pow2"] + other * round_to_power_of_two(par)) / (1 - par["serial"])
    within(np.mean((s & (s - 1)) == 0), p, math.sqrt(p * (1 - p) / s.size))
    assert s.max() <= round(2 ** par["hi"]) if queue == 1 else s.max() <= 2 ** math.ceil(par["hi"])


@pytest.mark.parametrize("queue", [0, 1])
def test_log_size_distribution(trace128, queue):
    """The parallel jobs that are not powers of two follow round(2^x), x the
    two-stage uniform: their share below each cut-off size."""
    _, size, _, q = columns(trace128)
    par = PAPER[queue]
    s = size[(q == queue) & (size > 1)]
    for cut in (4, 8, 16):  # P(size <= cut) among parallel jobs
        x = math.log2(cut + 0.5)
        lo, md, hi, up = par["low"], par["med"], par["hi"], par["uprob"]
        cdf = up * min(1.0, max(0.0, (x - lo) / (md - lo))) + (1 - up) * min(1.0, max(0.0, (x - md) / (hi - md)))
        # power-of-two jobs: round(x) <= log2(cut) for cut a power of two
        xr = math.log2(cut) + 0.5
        cdf2 = up * min(1.0, max(0.0, (xr - lo) / (md - lo))) + (1 - up) * min(1.0, max(0.0, (xr - md) / (hi - md)))
        other = 1 - par["serial"] - par["pow2"]
        p = (par["pow2"] * cdf2 + other * cdf) / (1 - par["serial"])
        within(np.mean(s <= cut), p, math.sqrt(p * (1 - p) / s.size))


@pytest.mark.parametrize("nodes", [1, 2, 3, 5, 100, 1000, 13_824])
def test_size_never_above_the_machine(nodes):
    _, size, _, q = columns(lublin_workload(nodes, 20_000, seed=2))
    assert size.min() >= 1 and size.max() <= nodes
    if nodes >= 8:
        assert size.max() > nodes // 4  # the largest jobs reach the machine's size
    pow2 = size[(size & (size - 1)) == 0]
    assert pow2.max() <= 2 ** int(math.log2(nodes))


def test_job_types_false_one_class():
    t = lublin_workload(128, 20_000, seed=4, job_types=False)
    _, size, _, q = columns(t)
    assert set(q.tolist()) == {1}
    within(np.mean(size == 1), 0.244, math.sqrt(0.244 * 0.756 / size.size))


# ---------------------------------------------------------------- run times


def mean_runtime(par):
    """``size -> E[floor(exp(H))]``, H the hyper-gamma of a job of that size
    drawn again above 12: the sum over k >= 1 of P(exp(H) >= k), linear in
    the mixing probability."""
    g1, g2 = stats.gamma(par["a1"], scale=par["b1"]), stats.gamma(par["a2"], scale=par["b2"])
    top = 12.0
    logk = np.log(np.arange(1, math.floor(math.exp(top)) + 1))
    s1, s2 = (float(np.sum(np.clip(g.cdf(top) - g.cdf(logk), 0, None))) for g in (g1, g2))
    f1, f2 = g1.cdf(top), g2.cdf(top)

    def mean(size):
        p = min(1.0, max(0.0, par["pa"] * size + par["pb"]))
        return (p * s1 + (1 - p) * s2) / (p * f1 + (1 - p) * f2)

    return mean


def test_mean_runtime(trace128):
    _, size, run, q = columns(trace128)
    means = {qq: mean_runtime(PAPER[qq]) for qq in (0, 1)}
    expected = {(qq, s): means[qq](s) for qq, s in set(zip(q.tolist(), size.tolist()))}
    want = np.mean([expected[k] for k in zip(q.tolist(), size.tolist())])
    within(run.mean(), want, run.std() / math.sqrt(run.size))
    for queue in (0, 1):  # serial jobs alone: one hyper-gamma each
        r = run[(q == queue) & (size == 1)]
        within(r.mean(), expected[(queue, 1)], r.std() / math.sqrt(r.size))
    assert run.min() >= 1 and run.max() <= math.exp(12)


def test_runtime_grows_with_size(trace128):
    _, size, run, _ = columns(trace128)
    assert np.median(run[size >= 32]) > 2 * np.median(run[size == 1])


# ---------------------------------------------------------------- arrivals


def interarrival_moments(par):
    g = stats.gamma(par["aarr"], scale=par["barr"])
    m1 = integrate.quad(lambda h: math.exp(h) * g.pdf(h), 0, 13, limit=200)[0] / g.cdf(13)
    m2 = integrate.quad(lambda h: math.exp(2 * h) * g.pdf(h), 0, 13, limit=200)[0] / g.cdf(13)
    return m1, math.sqrt(m2 - m1 * m1)


@pytest.mark.parametrize("queue", [0, 1])
def test_arrival_rate(trace128, queue):
    sub, _, _, q = columns(trace128)
    s = sub[q == queue]
    mean, sd = interarrival_moments(PAPER[queue])
    within(s[-1] / s.size, mean, sd / math.sqrt(s.size))


def hourly_weights(par):
    """The daily cycle of the paper: bucket i (11..58, wrapped to 0..47) has
    the mass of gamma(anum, bnum) on [i - 0.5, i + 0.5]; hour h holds
    buckets 2h and 2h + 1."""
    g = stats.gamma(par["anum"], scale=par["bnum"])
    w = np.zeros(48)
    for i in range(11, 59):
        w[(i - 1) % 48] = g.cdf(i + 0.5) - g.cdf(i - 0.5)
    w /= w.sum()
    return w[0::2] + w[1::2]


@pytest.mark.parametrize("queue", [0, 1])
def test_daily_cycle(trace128, queue):
    sub, _, _, q = columns(trace128)
    s = sub[q == queue]
    share = np.bincount((s // 3600 % 24).astype(int), minlength=24) / s.size
    want = hourly_weights(PAPER[queue])
    assert 0.5 * np.abs(share - want).sum() < 0.04  # total variation
    assert 0.5 * np.abs(share - np.roll(want, 2)).sum() > 0.06  # two hours off would fail
    assert share[13:16].sum() > 2.5 * share[2:5].sum()  # afternoon against night


def test_start_hour_shifts_the_cycle(trace128):
    b = lublin_workload(128, N_JOBS, seed=11, start_hour=12)  # time 0 is noon
    for t, shift in ((trace128, 0), (b, 12 * 3600)):
        sub, _, _, q = columns(t)
        s = sub[q == 0] + shift
        share = np.bincount((s // 3600 % 24).astype(int), minlength=24) / s.size
        assert 0.5 * np.abs(share - hourly_weights(PAPER[0])).sum() < 0.04


def test_load_sets_the_offered_load():
    for load in (0.5, 0.9):
        sub, size, run, _ = columns(lublin_workload(1024, 50_000, seed=6, load=load))
        assert abs((size * run).sum() / (1024 * sub[-1]) - load) < 0.1 * load


# ---------------------------------------------------------------- the reference loop


def reference_loop(m):
    """m_lublin99.c's per-job loop on the drawn numbers: the bucket walk
    (calc_next_arrive), the merge of the classes (arrive), the size
    (calc_number_of_nodes) and the run time (time_from_nodes)."""
    streams = []
    for d in m.streams:
        c = d.cls
        w = c.bucket_weights()
        t, bucket, points, rem, times = 0.0, m.start_bucket, 0.0, 0.0, []
        for gap in d.gap.tolist():
            points += math.exp(gap) * m.stretch / 1800.0
            more = 0.0
            while points > w[bucket]:
                points -= w[bucket]
                bucket = (bucket + 1) % 48
                more += 1800.0
            new = points / w[bucket]
            t += more + 1800.0 * (new - rem)
            rem = new
            times.append(t)
        streams.append((d, times))
    out, at = [], [0] * len(streams)
    for _ in range(m.jobs):
        k = 1 if len(streams) == 2 and streams[1][1][at[1]] < streams[0][1][at[0]] else 0
        d, times = streams[k]
        i = at[k]
        at[k] += 1
        c = d.cls
        low, med, hi = c.size_bounds(m.nodes)
        u = d.u_kind[i]
        if u <= c.serial:
            size = 1
        else:
            x = low + d.u_pos[i] * (med - low) if d.u_stage[i] <= c.uprob else med + d.u_pos[i] * (hi - med)
            if u <= c.serial + c.pow2:
                x = min(int(x + 0.5), int(math.log2(m.nodes) + 1e-12))
            size = min(int(2.0 ** x + 0.5), m.nodes)
        p = min(1.0, max(0.0, c.pa * size + c.pb))
        h = d.h1[i] if d.u_mix[i] <= p else d.h2[i]
        out.append((times[i], size, math.floor(math.exp(h)), c.queue))
    return out


@pytest.mark.parametrize(("nodes", "seed", "start", "types"),
                         [(128, 0, 0, True), (1000, 1, 7, True), (13_824, 2, 23, True), (3, 3, 0, True),
                          (512, 4, 5, False)])
def test_vectorised_model_is_the_reference_loop(nodes, seed, start, types):
    m = draw_model(nodes, 3000, np.random.default_rng(seed), job_types=types, start_hour=start)
    m.stretch = 1.3
    sub, size, run, q = model_arrays(m)
    ref = reference_loop(m)
    np.testing.assert_allclose(sub, [r[0] for r in ref], rtol=1e-9, atol=1e-6)
    assert size.tolist() == [r[1] for r in ref]
    assert run.tolist() == [r[2] for r in ref]
    assert q.tolist() == [r[3] for r in ref]


# ---------------------------------------------------------------- the trace


def test_same_seed_same_trace():
    a, b = lublin_workload(256, 5000, seed=9), lublin_workload(256, 5000, seed=9)
    assert a == b and [j.fields for j in a] == [j.fields for j in b]
    assert a != lublin_workload(256, 5000, seed=10)
    g = lublin_workload(256, 5000, seed=np.random.default_rng(9))
    assert g == a


def test_trace_shape():
    t = lublin_workload(64, 2000, seed=1)
    assert isinstance(t, Trace) and len(t) == 2000 and t.max_procs == 64
    assert [j.job_id for j in t] == list(range(1, 2001))
    sub = [j.submit for j in t]
    assert sub == sorted(sub) and sub[0] >= 0 and all(float(s).is_integer() for s in sub)
    assert all(j.estimate == j.runtime for j in t)
    assert t.header["MaxNodes"] == "64" and t.header["MaxProcs"] == "64"


def test_swf_round_trip(tmp_path):
    t = lublin_workload(100, 3000, seed=3)
    path = tmp_path / "l.swf"
    write_swf(t, path)
    back = read_swf(path)
    assert back == t and back.max_procs == 100
    assert [j.fields[14] for j in back] == [j.fields[14] for j in t]


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(nodes=0, jobs=10), "`nodes` must be a positive integer"),
    (dict(nodes=2.5, jobs=10), "`nodes` must be a positive integer"),
    (dict(nodes=8, jobs=0), "`jobs` must be a positive integer"),
    (dict(nodes=8, jobs=True), "`jobs` must be a positive integer"),
    (dict(nodes=8, jobs=10, start_hour=24), "`start_hour` must be an integer hour 0..23"),
    (dict(nodes=8, jobs=10, start_hour=-1), "`start_hour` must be an integer hour 0..23"),
    (dict(nodes=8, jobs=10, load=0), "`load` must be a positive finite number"),
    (dict(nodes=8, jobs=10, load=float("inf")), "`load` must be a positive finite number"),
    (dict(nodes=8, jobs=10, seed=-1), "`seed` must be a non-negative integer"),
    (dict(nodes=8, jobs=10, seed="x"), "`seed` must be a non-negative integer"),
    (dict(nodes=8, jobs=10, job_types="yes"), "`job_types` must be True or False"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match) as exc:
        lublin_workload(**kwargs)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize(("nodes", "seed"), [(128, 0), (13_824, 1), (6, 2)])
def test_the_benchmark_baseline_is_the_generator(nodes, seed):
    """The benchmark's plain-Python model on the same draws gives the trace
    of lublin_workload (submit times within the rounding of a second)."""
    from optalloc.bench.scale._workload import _same_jobs, plain_lublin

    assert _same_jobs(lublin_workload(nodes, 2000, seed=seed), plain_lublin(nodes, 2000, seed))


def test_the_benchmark_rows():
    from optalloc.bench.scale._workload import rows

    out = rows(quick=True)
    assert len(out) == 2 and all(r.agree and r.seconds > 0 for r in out)
