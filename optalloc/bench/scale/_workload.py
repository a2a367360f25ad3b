"""Workloads of any size: generating Lublin-Feitelson traces.

Two cases for a 10,000-job and a 1,000,000-job trace on a 24 x 24 x 24
torus (13,824 nodes), each a :class:`~optalloc.bench.BenchRow`:

(a) :func:`~optalloc.sim.lublin_workload` against the model computed one job
    at a time in plain Python on the same random numbers (the same numpy
    calls in the same order), as the model's reference code does it: the
    walk through the half-hour buckets, the merge of the batch and
    interactive arrivals, the size and the run time of each job; both
    build the same :class:`~optalloc.sim.Trace`.  ``agree``: the same jobs
    (ids, sizes, run times, classes), submit times within the rounding of
    a second.
(b) the same generation against reading the same trace from an SWF file
    (:func:`~optalloc.sim.read_swf`; writing it is not timed).  ``agree``:
    the trace read equals the one generated.
"""

from __future__ import annotations

import math
import os
import tempfile
import time

import numpy as np

from optalloc.sim import LUBLIN_CLASSES, Job, Trace, lublin_workload, read_swf, write_swf

from .._common import BenchRow

NODES = 13_824  # the 24 x 24 x 24 torus
SEED = 1


def _note(progress, text):
    if progress:
        progress(text)


def _gamma_below(rng, shape, scale, n, top):
    x = rng.gamma(shape, scale, n)
    bad = np.flatnonzero(x > top)
    while bad.size:
        x[bad] = rng.gamma(shape, scale, bad.size)
        bad = bad[x[bad] > top]
    return x


def _size(c, nodes, u_kind, u_stage, u_pos):
    low, med, hi = c.size_bounds(nodes)
    if u_kind <= c.serial:
        return 1
    x = low + u_pos * (med - low) if u_stage <= c.uprob else med + u_pos * (hi - med)
    if u_kind <= c.serial + c.pow2:
        x = min(int(x + 0.5), int(math.log2(nodes) + 1e-12))
    return min(int(2.0 ** x + 0.5), nodes)


def plain_lublin(nodes: int, jobs: int, seed: int) -> Trace:
    """The baseline: ``lublin_workload(nodes, jobs, seed=seed)`` (two job
    classes, midnight, the model's arrivals) one job at a time."""
    rng = np.random.default_rng(seed)
    streams = []
    for name in ("interactive", "batch"):
        c = LUBLIN_CLASSES[name]
        gap = _gamma_below(rng, c.aarr, c.barr, jobs, 13.0)
        u_kind, u_stage, u_pos = rng.random(jobs), rng.random(jobs), rng.random(jobs)
        u_mix, h1, h2 = rng.random(jobs), rng.gamma(c.a1, c.b1, jobs), rng.gamma(c.a2, c.b2, jobs)
        size = [_size(c, nodes, *u) for u in zip(u_kind.tolist(), u_stage.tolist(), u_pos.tolist())]
        p = [min(1.0, max(0.0, c.pa * s + c.pb)) for s in size]
        bad = [i for i in range(jobs) if (h1[i] if u_mix[i] <= p[i] else h2[i]) > 12.0]
        while bad:  # the hyper-gamma drawn again above 12, as lublin_workload draws it
            idx = np.array(bad)
            u_mix[idx], h1[idx], h2[idx] = rng.random(idx.size), rng.gamma(c.a1, c.b1, idx.size), \
                rng.gamma(c.a2, c.b2, idx.size)
            bad = [i for i in bad if (h1[i] if u_mix[i] <= p[i] else h2[i]) > 12.0]
        run = [math.floor(math.exp(a if u <= q else b)) for u, q, a, b in zip(u_mix.tolist(), p, h1.tolist(),
                                                                               h2.tolist())]
        w = c.bucket_weights().tolist()
        t, bucket, points, rem, times = 0.0, 0, 0.0, 0.0, []
        for g in gap.tolist():  # m_lublin99.c calc_next_arrive
            points += math.exp(g) / 1800.0
            more = 0.0
            while points > w[bucket]:
                points -= w[bucket]
                bucket = (bucket + 1) % 48
                more += 1800.0
            new = points / w[bucket]
            t += more + 1800.0 * (new - rem)
            rem = new
            times.append(t)
        template = [-1.0] * 18
        template[10], template[14] = 1.0, float(c.queue)
        streams.append((times, size, run, tuple(template)))
    out, at = [], [0, 0]
    ta, tb = streams[0][0], streams[1][0]
    for i in range(1, jobs + 1):  # m_lublin99.c arrive: the class whose next job comes first
        if tb[at[1]] < ta[at[0]]:
            k, (times, size, run, f) = 1, streams[1]
        else:
            k, (times, size, run, f) = 0, streams[0]
        j = at[k]
        at[k] += 1
        out.append(Job(i, math.floor(times[j]), run[j], size[j], fields=f))
    return Trace(tuple(out), nodes)


def _same_jobs(a: Trace, b: Trace) -> bool:
    return len(a) == len(b) and all(
        x.job_id == y.job_id and x.procs == y.procs and x.runtime == y.runtime and x.fields[14] == y.fields[14]
        and abs(x.submit - y.submit) <= 1.0 for x, y in zip(a, b))


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """Time generating Lublin-Feitelson traces (10,000 jobs; and 1,000,000
    unless ``quick``) against the plain-Python model and against reading
    the trace from SWF."""
    out = []
    for jobs in (10_000,) if quick else (10_000, 1_000_000):
        inst = f"Lublin-Feitelson, {jobs:,} jobs, {NODES:,} nodes (24x24x24), seed {SEED}"
        _note(progress, f"lublin_workload {jobs:,} jobs")
        t = time.perf_counter()
        ours = lublin_workload(NODES, jobs, seed=SEED)
        ours_s = time.perf_counter() - t
        _note(progress, f"plain-Python model {jobs:,} jobs")
        t = time.perf_counter()
        base = plain_lublin(NODES, jobs, SEED)
        base_s = time.perf_counter() - t
        out.append(BenchRow("lublin_workload", inst, ours_s, "plain-Python loop, same draws", base_s,
                            _same_jobs(ours, base)))
        del base
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lublin.swf")
            write_swf(ours, path)
            _note(progress, f"read_swf {jobs:,} jobs")
            t = time.perf_counter()
            back = read_swf(path)
            read_s = time.perf_counter() - t
        out.append(BenchRow("lublin_workload", inst, ours_s, "read_swf of the same trace", read_s, back == ours))
    return out
