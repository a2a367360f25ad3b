"""Figures of the simulator at scale: the event engine alone on a million
jobs, and simulations on the 24 x 24 x 24 torus and the 64 x 64 mesh with
cheap allocators, against the loop of today's simulator
(:func:`reference_simulate`) in the same process.

The workload is synthetic, made here from a seed (:func:`synthetic_jobs`):
a quarter serial jobs, half powers of two, the rest log-uniform, up to
about the 0.6th power of the machine's size; log-normal run times;
estimates longer than the run time by an exponential factor; Poisson
arrivals at the rate that loads the machine to 85%.

Rows:

- ``free-list, first N jobs``: the engine with the free-list allocator
  under EASY on a 32 x 32 mesh, ours against today's loop on the same
  jobs; ``agree``: the same records.
- ``free-list, 1,000,000 jobs``: ours on all of them; today's time is
  estimated from its rate on the first N jobs (the row says so); ``agree``:
  the first row agreed and the summary is that of the records.
- ``random, 10,000 jobs`` on the 24 x 24 x 24 torus and on the 64 x 64
  mesh: both loops on the same jobs; ``agree``: the same records.
"""

from __future__ import annotations

import time

import numpy as np

from optalloc.machine import parse_machine
from optalloc.sim import Job, simulate, summarise

from .._common import BenchRow
from ._sim_reference import reference_simulate

__all__ = ["reference_simulate", "rows", "synthetic_jobs"]


def synthetic_jobs(n: int, nodes: int, *, seed: int = 0, load: float = 0.85) -> tuple:
    """``n`` seeded jobs for a machine of ``nodes`` nodes (see the module notes).

    Examples
    --------
    >>> jobs = synthetic_jobs(1000, 1024, seed=1)
    >>> len(jobs), max(j.procs for j in jobs) <= 1024, jobs == synthetic_jobs(1000, 1024, seed=1)
    (1000, True, True)
    """
    rng = np.random.default_rng(seed)
    top = 0.6 * np.log2(nodes)
    u = rng.random(n)
    sizes = np.ones(n, dtype=np.int64)
    two = (u >= 0.25) & (u < 0.75)
    sizes[two] = 2 ** rng.integers(1, max(1, int(top)) + 1, int(two.sum()))
    rest = u >= 0.75
    sizes[rest] = np.ceil(2 ** (rng.random(int(rest.sum())) * top)).astype(np.int64)
    sizes = np.clip(sizes, 1, nodes)
    run = np.exp(rng.normal(6.0, 1.5, n)).clip(1.0, 86400.0)
    estimate = run * (1.0 + rng.exponential(1.0, n))
    rate = load * nodes / float((sizes * run).mean())
    submit = np.cumsum(rng.exponential(1.0 / rate, n))
    users = rng.integers(0, 20, n)
    return tuple(Job(i + 1, s, r, k, e, user=w) for i, (s, r, k, e, w) in
                 enumerate(zip(submit.tolist(), run.tolist(), sizes.tolist(), estimate.tolist(), users.tolist())))


def _note(progress, text):
    if progress:
        progress(text)


def _warm(jobs, machine, allocator):
    """Both loops once on a few jobs: the compiled kernels are loaded before any timing."""
    reference_simulate(jobs[:50], machine, allocator=allocator)
    simulate(jobs[:50], machine, allocator=allocator)


def _timed(func):
    t = time.perf_counter()
    out = func()
    return time.perf_counter() - t, out


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """The rows of the module notes; ``quick``: a tenth of the jobs (100,000
    for the long run, 2,000 on the large machines)."""
    out = []
    total, prefix, large = (100_000, 5_000, 2_000) if quick else (1_000_000, 20_000, 10_000)

    mesh = parse_machine("32x32")
    jobs = synthetic_jobs(total, mesh.size, seed=0)
    _warm(jobs, mesh, "free-list")
    _note(progress, f"free-list, first {prefix} jobs (today's loop)")
    t_ref, ref = _timed(lambda: reference_simulate(jobs[:prefix], mesh, allocator="free-list"))
    _note(progress, f"free-list, first {prefix} jobs")
    t_ours, ours = _timed(lambda: simulate(jobs[:prefix], mesh, allocator="free-list"))
    same = ours.records == ref.records
    inst = "synthetic, 32x32 mesh, EASY"
    out.append(BenchRow(f"simulate free-list, first {prefix:,} jobs", inst, t_ours, "today's loop", t_ref, same))
    _note(progress, f"free-list, {total} jobs")
    t_all, res = _timed(lambda: simulate(jobs, mesh, allocator="free-list"))
    whole = same and len(res.records) == total and summarise(res.records, mesh.size) == res.summary
    s = res.summary
    out.append(BenchRow(f"simulate free-list, {total:,} jobs (allocator {s.allocator_time:.1f} s, events "
                        f"{s.event_time:.1f} s)", inst, t_all,
                        f"today's loop, estimated (x{total // prefix} its first {prefix:,} jobs)",
                        t_ref * total / prefix, whole))

    for spec in ("24x24x24 torus", "64x64"):
        machine = parse_machine(spec)
        jobs = synthetic_jobs(large, machine.size, seed=1)
        _warm(jobs, machine, "random:seed=0")
        _note(progress, f"random, {large} jobs, {spec} (today's loop)")
        t_ref, ref = _timed(lambda: reference_simulate(jobs, machine, allocator="random:seed=0"))
        _note(progress, f"random, {large} jobs, {spec}")
        t_ours, ours = _timed(lambda: simulate(jobs, machine, allocator="random:seed=0"))
        s = ours.summary
        out.append(BenchRow(f"simulate random, {large:,} jobs (allocator {s.allocator_time:.1f} s, events "
                            f"{s.event_time:.1f} s)", f"synthetic, {spec}, EASY", t_ours, "today's loop", t_ref,
                            ours.records == ref.records))
    return out
