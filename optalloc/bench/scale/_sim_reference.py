"""The simulator's event loop as it was before it was made for a million
jobs: every event through :class:`~optalloc.sim.EventQueue`, the running
jobs sorted anew at each dispatch, the waiting list rebuilt after each
start, the free ids and points worked out for each decision, and each
job's figures by :func:`~optalloc.sim.allocation_metrics` and
:func:`~optalloc.sim.job_locality`, each a dozen numpy calls, the summary
read record by record.

It runs the schedulers and allocators of :func:`~optalloc.sim.simulate`
without its options (no fair-start times, no runtime model, no decision
hook, no schedulers with a run-time limit), and gives the same records:
the baseline of the scale figures, and the straightforward version the
tests check the engine against.
"""

from __future__ import annotations

import math
import time

import numpy as np

from optalloc.sim import (
    ARRIVAL,
    DISPATCH,
    FINISH,
    Allocation,
    JobRecord,
    SimulationResult,
    Trace,
    TraceReport,
    allocation_metrics,
    job_locality,
    locality_context,
    make_scheduler,
    parse_allocator,
    summarise,
)
from optalloc.sim import EventQueue as _Queue

__all__ = ["reference_simulate"]

#: the job fields of :func:`~optalloc.sim.job_locality`
_LOCALITY = ("stretch_span", "bbox_half_perimeter", "bbox_cube", "bbox_cube_ratio", "components")


def reference_simulate(trace, machine, *, scheduler="easy", allocator="free-list", kill_at_estimate=True,
                       rng=None) -> SimulationResult:
    """Today's loop of :func:`~optalloc.sim.simulate` (see the module notes).

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> from optalloc.sim import Job, simulate
    >>> jobs = [Job(1, 0, 10, 3), Job(2, 0, 10, 2), Job(3, 1, 4, 1)]
    >>> reference_simulate(jobs, Machine((2, 2))).records == simulate(jobs, "2x2", allocator="free-list").records
    True
    """
    wall0 = time.perf_counter()
    jobs = trace.jobs if isinstance(trace, Trace) else Trace(tuple(trace)).jobs
    sched = make_scheduler(scheduler)
    if sched.runtime_limit is not None or getattr(sched, "fair_share", None) is not None:
        raise ValueError(f"the reference loop runs no scheduler with a run-time limit or fair share, got {sched.name!r}")
    alloc = parse_allocator(allocator, rng=rng)
    ordering = alloc.ordering(machine)
    ranks = None
    if ordering is not None:
        ranks = np.empty(machine.size, dtype=np.int64)
        ranks[np.asarray(ordering, dtype=np.int64)] = np.arange(machine.size)
    local = locality_context(machine)
    kill = bool(kill_at_estimate)
    events = _Queue()
    for pos, j in enumerate(jobs):
        events.push(j.submit, ARRIVAL, pos)
    position = {id(j): pos for pos, j in enumerate(jobs)}
    waiting, running, started = [], {}, {}
    records = [None] * len(jobs)
    dispatch_at = None
    alloc_time = 0.0
    while events:
        ev = events.pop()
        now, kind, pos = ev.time, ev.kind, ev.payload
        if kind == FINISH:
            start, nodes, metrics, n_tied, run = started.pop(pos)
            machine.release(nodes, owner=pos)
            del running[pos]
            j = jobs[pos]
            sched.job_ended(j, now)
            flow = now - j.submit
            records[pos] = JobRecord(
                job_id=j.job_id, submit=j.submit, start=start, end=now, wait=start - j.submit, flow=flow,
                slowdown=max(1.0, flow / max(run, 10.0)), run=run, estimate=j.estimate, procs=j.procs,
                killed=metrics["killed"], W=metrics["W"], avg_l1=metrics["avg_l1"], bbox=metrics["bbox"],
                bbox_volume=metrics["bbox_volume"], span=metrics["span"], ring_span=metrics["ring_span"],
                n_tied=n_tied, nodes=tuple(nodes.tolist()), **{f: metrics[f] for f in _LOCALITY}, user=j.user)
        elif kind == ARRIVAL:
            waiting.append(jobs[pos])
        else:
            if not waiting:
                continue
            after = math.nextafter(now, math.inf)
            view = sorted((e if e > now else after, p) for e, p in running.values())
            picks = sched.select(now, waiting, machine.n_free, view)
            chosen = set()
            for j in picks:
                p = position[id(j)]
                chosen.add(p)
                t0 = time.perf_counter()
                choice = alloc.select(machine, j.procs)
                alloc_time += time.perf_counter() - t0
                nodes, result = (choice.nodes, choice.result) if isinstance(choice, Allocation) else (choice, None)
                machine.free_ids()
                if machine.is_grid:
                    machine.free_points()
                nodes = machine.allocate(np.asarray(nodes), owner=p)
                metrics = allocation_metrics(machine, nodes, ranks)
                run = min(j.runtime, j.estimate) if kill else j.runtime
                metrics["killed"] = run < j.runtime
                metrics.update(job_locality(local, nodes, bbox=metrics["bbox"], ring_span=metrics["ring_span"]))
                sched.job_started(j, now)
                n_tied = None
                if result is not None and "n_tied" in result.extra:
                    n_tied = int(result.extra["n_tied"])
                started[p] = (now, nodes, metrics, n_tied, run)
                running[p] = (now + j.estimate, j.procs)
                events.push(now + run, FINISH, p)
            waiting = [j for j in waiting if position[id(j)] not in chosen]
            continue
        if dispatch_at != now:
            dispatch_at = now
            events.push(now, DISPATCH, None)
    summary = summarise(list(records), machine.size, alloc_time)
    return SimulationResult(tuple(records), summary, machine.describe(), sched.name, alloc.name, kill,
                            TraceReport(lines=len(jobs), jobs=len(jobs)), time.perf_counter() - wall0)
