"""Whole simulations at the size of today's machines: a 10,000-job
Lublin-Feitelson trace with EASY on each reference machine, per allocator.

Today's straightforward allocators do not finish these runs (2,000 NASA
jobs on the 24 x 24 x 24 torus with MC1x1 took over 600 s), so each row
sets the run against its target instead: the baseline column holds the
target time (60 s), ``baseline/ours`` is the headroom, and ``agree`` says
that every job ran and the target was met.  The case names the part of
the time spent in the allocator's ``select`` and the rest (events,
scheduling, metrics), as the simulation's summary reports them.  The
per-decision figures against today's implementations are in the rows of
the other parts of this suite.  The first 50 jobs run once before the
timed run, so that compiled code is loaded (a fresh install compiles it
first, tens of seconds once).
"""

from __future__ import annotations

import time

from optalloc.machine import parse_machine
from optalloc.sim import lublin_workload, simulate

from .._common import BenchRow

#: seconds a 10,000-job trace may take per allocator
TARGET = 60.0

#: (machine, allocators): the reference machines and the allocators the targets name
CASES = (
    ("24x24x24 torus", ("mc1x1", "gen-alg")),
    ("64x64", ("mc1x1", "gen-alg")),
    ("32x32x32 torus", ("mc1x1", "gen-alg")),
    ("dragonfly:65,32,4,2", ("gen-alg", "dfly:hybrid")),
    ("fattree:32", ("gen-alg",)),
)


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """One row per machine and allocator; ``quick``: 500 jobs on the
    24 x 24 x 24 torus only."""
    jobs = 500 if quick else 10_000
    out = []
    for spec, allocators in CASES[:1] if quick else CASES:
        machine = parse_machine(spec)
        trace = lublin_workload(machine.n, jobs, seed=1)
        for allocator in allocators:
            if progress:
                progress(f"simulate {jobs:,} Lublin jobs on {spec}, {allocator}")
            simulate(trace.jobs[:50], machine, scheduler="easy", allocator=allocator)  # compiled code loaded
            t = time.perf_counter()
            res = simulate(trace, machine, scheduler="easy", allocator=allocator)
            took = time.perf_counter() - t
            s = res.summary
            done = len(res.records) == jobs
            out.append(BenchRow(
                f"simulate {allocator} (allocator {s.allocator_time:.1f} s, events {s.event_time:.1f} s)",
                f"{jobs:,} Lublin jobs, {spec}, EASY", took, "target", TARGET, done and took <= TARGET))
    return out
