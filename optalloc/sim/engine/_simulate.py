"""The event loop: jobs arrive, the scheduler picks, the allocator places.

Run times are held constant, whatever the allocation (Leung et al. 2002,
sec. 3): locality is measured, not turned into speed.  A job runs its trace
run time, or ``min(runtime, estimate)`` when jobs are killed at their
estimate as on Cplant (Johnson, Bunde and Leung, sec. I).
"""

from __future__ import annotations

import bisect
import gc
import heapq
import math
import time as _time
from dataclasses import dataclass, field, replace

import numpy as np

from ..._progress import Progress, library_progress
from ..._result import Result
from ...machine import Machine, parse_machine
from ..allocators import Allocation, Allocator, check_allocator, parse_allocator
from ..metrics import (
    DEFAULT_HALF_LIFE,
    SLOWDOWN_THRESHOLD,
    FairStart,
    JobMetrics,
    JobRecord,
    RecordColumns,
    Summary,
    check_users,
    records_frame,
    summarise,
    write_batsim_csv,
    write_csv,
    write_jsonl,
)
from ..schedulers import make_scheduler
from ..workload import Job, Trace, TraceReport, cap_runtime
from ._events import ARRIVAL, DISPATCH, FINISH
from ._runtime import parse_runtime_model

__all__ = ["Decision", "SimulationResult", "simulate"]


@dataclass(frozen=True)
class Decision:
    """One allocation decision, as the ``on_decision`` hook sees it.

    The free set is the state *before* the job is placed; arrays are
    read-only and stay valid after the hook returns.

    Attributes
    ----------
    index : int
        Decision number (0, 1, ...), in start order.
    time : float
        Simulated time of the start.
    job : Job
        The job placed; ``k`` its processor count.
    free_ids : numpy.ndarray
        Free node ids, ascending.
    free_points : numpy.ndarray or None
        Their coordinates (rows match ``free_ids``): the input a k-subset
        method sees; None on a network.
    nodes : numpy.ndarray
        The node ids chosen.
    result : Result or None
        The allocator's solver result, when it has one (``indices`` index
        ``free_points``; node ids on a network).
    allocator : str
        Name of the allocator that decided.
    shape, torus : tuple
        The machine's shape and wrap flags (None and () on a network).
    """

    index: int
    time: float
    job: Job
    k: int
    free_ids: np.ndarray = field(repr=False)
    free_points: np.ndarray = field(repr=False)
    nodes: np.ndarray = field(repr=False)
    result: Result | None = field(repr=False)
    allocator: str
    shape: tuple
    torus: tuple

    @property
    def indices(self) -> np.ndarray:
        """Rows of ``free_points`` that were chosen, ascending."""
        return np.searchsorted(self.free_ids, np.sort(self.nodes))


@dataclass(frozen=True)
class SimulationResult:
    """Per-job records and summary of one simulation.

    Attributes
    ----------
    records : tuple of JobRecord
        One per job, in trace order (by submit time).
    summary : Summary
    machine : str
        E.g. ``"16x8 mesh"``.
    scheduler, allocator : str
        Their names.
    kill_at_estimate : bool
    trace_report : TraceReport
        How the trace was read.
    runtime : float
        Seconds the simulation took.
    """

    records: tuple
    summary: Summary
    machine: str
    scheduler: str
    allocator: str
    kill_at_estimate: bool
    trace_report: TraceReport = field(compare=False, repr=False)
    runtime: float = field(default=0.0, compare=False)

    def column(self, name: str) -> np.ndarray:
        """One record field for every job, as an array (None becomes NaN)."""
        if name not in JobRecord.__dataclass_fields__:
            raise ValueError(f"`name` must be a JobRecord field, got {name!r}")
        values = [getattr(r, name) for r in self.records]
        if name in ("bbox", "nodes"):
            return np.array(values, dtype=object)
        return np.array([np.nan if v is None else v for v in values])

    def to_dict(self) -> dict:
        """Plain-Python view of everything but the records."""
        return {"machine": self.machine, "scheduler": self.scheduler, "allocator": self.allocator,
                "kill_at_estimate": self.kill_at_estimate, "summary": self.summary.to_dict(),
                "trace_report": self.trace_report.to_dict(), "runtime": self.runtime}

    def to_csv(self, path, *, overwrite=False) -> None:
        """Write the records as CSV (never replaces a file without ``overwrite``)."""
        write_csv(self.records, path, overwrite=overwrite)

    def to_jsonl(self, path, *, overwrite=False) -> None:
        """Write the records as JSON lines, then ``{"summary": ...}``."""
        write_jsonl(self.records, path, overwrite=overwrite, summary=self.summary)

    def to_batsim_csv(self, path, *, overwrite=False, workload_name="w0") -> None:
        """Write the jobs as CSV in the layout of Batsim's ``_jobs.csv``, which
        evalys reads (``evalys.jobset.JobSet.from_csv``).

        Columns, in Batsim's order: ``job_id``, ``workload_name``,
        ``profile`` (empty), ``submission_time``,
        ``requested_number_of_resources`` (k), ``requested_time`` (the
        estimate), ``success`` (0 for a job killed at its estimate, else 1),
        ``final_state`` (``COMPLETED_WALLTIME_REACHED`` or
        ``COMPLETED_SUCCESSFULLY``), ``starting_time``, ``execution_time``,
        ``finish_time``, ``waiting_time``, ``turnaround_time``, ``stretch``
        (turnaround / execution time, not bounded), ``consumed_energy``
        (-1: not simulated), ``allocated_resources`` (the node ids as an
        interval set, ``0-3 8 10-11``), ``metadata`` (empty).  One row per
        job, in trace order; times in seconds.

        Never replaces a file unless ``overwrite`` is True.

        Examples
        --------
        >>> import csv, os, tempfile
        >>> from optalloc.sim import Job, simulate
        >>> res = simulate([Job(1, 0, 10, 3), Job(2, 0, 10, 2)], "2x2", allocator="mc1x1")
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, "jobs.csv")
        ...     res.to_batsim_csv(path)
        ...     with open(path, newline="") as fh:
        ...         rows = list(csv.DictReader(fh))
        >>> [(r["job_id"], r["starting_time"], r["allocated_resources"], r["final_state"]) for r in rows]
        [('1', '0.0', '0-2', 'COMPLETED_SUCCESSFULLY'), ('2', '10.0', '0-1', 'COMPLETED_SUCCESSFULLY')]
        """
        write_batsim_csv(self.records, path, overwrite=overwrite, workload_name=workload_name)

    def to_pandas(self):
        """The records as a pandas DataFrame: one row per job (trace order),
        one column per :class:`JobRecord` field.

        ``bbox`` and ``nodes`` hold tuples; ``span``, ``ring_span``,
        ``n_tied``, ``bbox_half_perimeter``, ``bbox_cube``, ``components``
        and ``user`` are nullable integers (``<NA>`` where the record has
        None).  pandas is optional: without it this raises ImportError.
        """
        return records_frame(self.records, "SimulationResult.to_pandas()")


#: objects made between two collections of the youngest generation while a simulation runs
_GC_YOUNG = 100_000

#: the fields of a record the engine hands to the summary as columns, in the order of its rows
_COLUMNS = ("start", "end", "submit", "procs", "run", "wait", "flow", "slowdown", "W", "avg_l1", "bbox_volume", "span",
            "ring_span", "killed", "n_tied", "stretch_span", "bbox_half_perimeter", "bbox_cube", "bbox_cube_ratio",
            "components", "fair_start")


def as_allocation(choice) -> tuple[np.ndarray, Result | None]:
    if isinstance(choice, Allocation):
        return np.asarray(choice.nodes), choice.result
    if isinstance(choice, Result):
        raise RuntimeError(  # noqa: TRY004 (a faulty allocator, not bad input)
            "an allocator must return node ids or an Allocation, not a bare Result "
                           "(its indices index the free points, not the machine)")
    return np.asarray(choice), None


def _ranks_of(ordering, machine):
    ids = np.asarray(ordering)
    if ids.ndim == 2:
        ids = machine.node_ids(ids)
    ids = ids.astype(np.int64)
    if sorted(ids.tolist()) != list(range(machine.size)):
        raise ValueError("`ordering` must list every node of the machine once (ids or coordinates)")
    ranks = np.empty(machine.size, dtype=np.int64)
    ranks[ids] = np.arange(machine.size)
    return ranks


def simulate(trace, machine, *, scheduler="easy", allocator="mc1x1", kill_at_estimate=True,
             ordering=None, on_decision=None, record=None, progress=False, rng=None, fair_start=False,
             runtime_model=None) -> SimulationResult:
    """Simulate a trace on a machine with a scheduler and an allocator.

    Parameters
    ----------
    trace : Trace or sequence of Job
        The jobs (see :func:`read_swf`).
    machine : Machine or str
        The machine (``"16x8"``, ``"8x8x8 torus"``, a network such as
        :func:`optalloc.machine.dragonfly` or a graph file); it must be all
        free and is all free again afterwards.
    scheduler : str or Scheduler
        ``"fcfs"``, ``"easy"`` (default), ``"conservative"`` or an instance.
    allocator : str or Allocator
        An :class:`Allocator` or a text for :func:`parse_allocator`
        (``"mc1x1"``, ``"mc1x1:tie=default"``, ``"mm-inc"``, ``"random"``,
        ``"1d:hilbert:best-fit"``).
    kill_at_estimate : bool
        A job runs ``min(runtime, estimate)`` (killed at its estimate);
        False: it runs its full run time.
    ordering : array_like, optional
        Node ids (or coordinates) in rank order, for the span metrics.
        Default: the allocator's ordering (1D allocators), else no spans.
    on_decision : callable, optional
        ``on_decision(decision)`` with a :class:`Decision` at every
        allocation, after the machine accepted it: the free set, k, the
        choice and the solver result.  Situation/decision comparisons and
        certification plug in here.
    record : callable, optional
        ``record(job_record)`` with each :class:`JobRecord` as its job ends
        (streaming output).
    progress : bool or callable
        True: progress on stderr (a bar on a terminal, a line every few
        seconds and one at the end elsewhere); a callable gets
        ``(done, total)`` as each job ends.  Default: silent.
    rng : None, int or numpy.random.Generator
        Seed for ``allocator="random"``.
    fair_start : bool
        Compute every job's fair-start time (SAND2003-3702, ch. 7; see
        :class:`FairStart`) into the records and the summary's
        ``fair_start_*`` fields.  Needs user ids in the trace.
    runtime_model : None, str or RuntimeModel
        None (default): run times as in the trace.  A model (or its text,
        ``"time-per-distance:A,B,C"``, see :class:`TimePerDistance`)
        stretches each job's run time by the distance of its allocation.

    Returns
    -------
    SimulationResult

    Raises
    ------
    ValueError
        Bad arguments, a job larger than the machine, a busy machine, an
        allocator that does not fit the machine (the message names those
        that do).
    RuntimeError
        A scheduler that overcommits processors or an allocator that gives
        a busy node, a node twice, or the wrong number of nodes.

    Notes
    -----
    Events are keyed ``(time, priority, sequence)``: finishes, then
    arrivals, then one dispatch per time instant; the run is deterministic
    for deterministic policies.  Cost per dispatch: the scheduler's
    (O(queue) for FCFS and EASY) plus one allocator call per started job.

    Examples
    --------
    >>> from optalloc.sim import Job, simulate
    >>> jobs = [Job(1, 0, 10, 3), Job(2, 0, 10, 2), Job(3, 1, 4, 1)]
    >>> res = simulate(jobs, "2x2", scheduler="easy", allocator="mc1x1")
    >>> [(r.job_id, r.start) for r in res.records]
    [(1, 0.0), (2, 10.0), (3, 1.0)]
    """
    progress, scope = library_progress(progress, label="simulate", unit="jobs")
    threshold = gc.get_threshold()
    # a record per job and none of them garbage: the collector's youngest generation is looked at
    # every 100,000 new objects rather than 700 while the loop runs
    gc.set_threshold(max(threshold[0], _GC_YOUNG), *threshold[1:])
    try:
        with scope:
            return _simulate(trace, machine, scheduler, allocator, kill_at_estimate, ordering, on_decision, record,
                             progress, rng, fair_start, runtime_model)
    finally:
        gc.set_threshold(*threshold)


def _simulate(trace, machine, scheduler, allocator, kill_at_estimate, ordering, on_decision, record, progress,
              rng, fair_start=False, runtime_model=None) -> SimulationResult:
    """:func:`simulate` with ``progress`` None, a callable or a Progress."""
    wall0 = _time.perf_counter()
    if isinstance(trace, Trace):
        jobs, report = trace.jobs, trace.report
    else:
        try:
            jobs = Trace(tuple(trace)).jobs
        except TypeError:
            raise ValueError(f"`trace` must be a Trace or a sequence of Job, got {type(trace).__name__}") from None
        report = TraceReport(lines=len(jobs), jobs=len(jobs))
    machine = parse_machine(machine) if not isinstance(machine, Machine) else machine
    if machine.n_free != machine.size:
        raise ValueError(f"`machine` must start all free, {machine.size - machine.n_free} nodes are busy")
    for j in jobs:
        if j.procs > machine.size:
            raise ValueError(f"job {j.job_id} needs {j.procs} processors, the machine has {machine.size}; "
                             "read the trace with max_procs and oversize='skip' or 'clip'")
    if len({id(j) for j in jobs}) != len(jobs):  # one object per job, so identities tell them apart
        jobs = tuple(replace(j) for j in jobs)
    sched = make_scheduler(scheduler)
    if getattr(sched, "fair_share", None) is not None:
        check_users(jobs, f"scheduler {sched.name!r}")
    if fair_start:
        check_users(jobs, "fair_start=True")
    fair = FairStart(getattr(sched, "half_life", DEFAULT_HALF_LIFE)) if fair_start else None
    limit = sched.runtime_limit
    if limit is not None:
        jobs = cap_runtime(jobs, limit)
    model = parse_runtime_model(runtime_model)
    if model is not None:
        model.reset()
    alloc = parse_allocator(allocator, rng=rng)
    check_allocator(alloc, machine)  # a mesh allocator on a network and the like: one line naming those that fit
    if ordering is None:
        ordering = alloc.ordering(machine)
    ranks = None if ordering is None else _ranks_of(ordering, machine)
    step = 1  # a callable hears of every job; a progress report of every 1/2000th of them, and of the last
    if isinstance(progress, Progress):
        progress.setdefaults(total=len(jobs))
        progress = progress.track
        step = max(1, len(jobs) // 2000)
    for name, hook in (("on_decision", on_decision), ("record", record)):
        if hook is not None and not callable(hook):
            raise ValueError(f"`{name}` must be callable or None, got {hook!r}")
    kill = bool(kill_at_estimate)

    # arrivals come from the trace in order (jobs are sorted by submit time), the rest from a heap of
    # (time, kind, sequence, payload): the order of the keys (time, priority, sequence) of EventQueue
    submits = [j.submit for j in jobs]
    position = {id(j): pos for pos, j in enumerate(jobs)}
    heap: list = []
    seq = len(jobs)  # arrivals take the sequence numbers 1 .. n, as when they were pushed first
    next_arrival = 0
    now = -math.inf
    waiting: list[Job] = []
    running: dict[int, tuple[float, int]] = {}  # pos -> (estimated end, procs)
    run_view: list[tuple[float, int]] = []  # the same, sorted
    started: dict[int, tuple] = {}
    records: list = [None] * len(jobs)
    rows: list = [None] * len(jobs)  # the summary's fields of each record, read as columns at the end
    dispatch_at = None
    decisions, done = 0, 0
    alloc_time = 0.0
    total = len(jobs)
    name = getattr(alloc, "name", None)
    if not name or name == Allocator.name:
        name = type(alloc).__name__
    measure = JobMetrics(machine, ranks)
    inf = math.inf
    push, pop = heapq.heappush, heapq.heappop
    clock = _time.perf_counter

    while heap or next_arrival < total:
        if next_arrival < total and (not heap or (submits[next_arrival], ARRIVAL) < heap[0][:2]):
            pos = next_arrival
            now, kind = submits[pos], ARRIVAL
            next_arrival += 1
        else:
            now, kind, _, pos = pop(heap)
        if kind == FINISH:
            start, nodes, metrics, n_tied, run = started.pop(pos)
            machine.release(nodes, owner=pos)
            del run_view[bisect.bisect_left(run_view, running.pop(pos))]
            j = jobs[pos]
            sched.job_ended(j, now)
            if fair is not None:
                fair.ended(j, now)
            flow = now - j.submit
            row = (start, now, j.submit, j.procs, run, start - j.submit, flow,
                   max(1.0, flow / max(run, SLOWDOWN_THRESHOLD)), metrics["W"], metrics["avg_l1"],
                   metrics["bbox_volume"], metrics["span"], metrics["ring_span"], metrics["killed"], n_tied,
                   metrics["stretch_span"], metrics["bbox_half_perimeter"], metrics["bbox_cube"],
                   metrics["bbox_cube_ratio"], metrics["components"], None if fair is None else fair.times[id(j)])
            rec = JobRecord(
                j.job_id, j.submit, start, now, row[5], flow, row[7], run, j.estimate, j.procs, row[13], row[8],
                row[9], metrics["bbox"], row[10], row[11], row[12], n_tied, tuple(nodes.tolist()), *row[15:20],
                j.user, row[20])
            records[pos] = rec
            rows[pos] = row
            done += 1
            if record is not None:
                record(rec)
            if progress is not None and (done % step == 0 or done == total):
                progress(done, total)
        elif kind == ARRIVAL:
            waiting.append(jobs[pos])
            if fair is not None:
                after = math.nextafter(now, inf)
                fair.arrived(jobs[pos], now, waiting, machine.n_free,
                             [(e if e > now else after, p) for e, p in running.values()])
        else:  # DISPATCH
            if not waiting:
                continue
            # a job past its estimate still runs: it frees its processors at
            # some later time, never "now" (FINISH events come first at a time)
            after = math.nextafter(now, inf)
            cut = bisect.bisect_right(run_view, (after, inf))  # those ending by `after` all end at `after`
            if cut and run_view[0][0] < after:
                view = sorted([(after, p) for _, p in run_view[:cut]]) + run_view[cut:]
            else:
                view = run_view[:]
            free = machine.n_free
            picks = sched.select(now, waiting, free, view)
            if not picks:
                continue
            chosen = set()
            for j in picks:
                p = position.get(id(j))
                if p is None or p in chosen or p in started or records[p] is not None:
                    raise RuntimeError(f"scheduler {sched!r} picked job {j.job_id}, which is not waiting")
                chosen.add(p)
            need = sum(j.procs for j in picks)
            if need > free:
                raise RuntimeError(f"scheduler {sched!r} started jobs needing {need} processors "
                                   f"with {free} free at time {now}")
            for j in picks:
                p = position[id(j)]
                k = j.procs
                t0 = clock()
                choice = alloc.select(machine, k)
                nodes, result = (choice, None) if type(choice) is np.ndarray else as_allocation(choice)
                alloc_time += clock() - t0
                if nodes.ndim != 1 or len(nodes) != k:
                    raise RuntimeError(f"allocator {name!r} gave {nodes.size} nodes for job {j.job_id} "
                                       f"of {k} processors")
                if on_decision is not None:
                    free_ids = machine.free_ids()
                    free_points = machine.free_points() if machine.is_grid else None
                nodes = machine.allocate(nodes, owner=p)
                nodes.setflags(write=False)
                if on_decision is not None:
                    on_decision(Decision(decisions, now, j, k, free_ids, free_points, nodes, result, name,
                                         machine.shape, machine.torus))
                decisions += 1
                metrics = measure(nodes if nodes.dtype == np.int64 else nodes.astype(np.int64))
                full = j.runtime if model is None else model.run_time(machine, j, nodes, metrics["avg_l1"])
                run = min(full, j.estimate) if kill else (full if limit is None else min(full, limit))
                metrics["killed"] = run < full
                sched.job_started(j, now)
                if fair is not None:
                    fair.started(j, now)
                n_tied = None
                if result is not None and "n_tied" in result.extra:
                    n_tied = int(result.extra["n_tied"])
                started[p] = (now, nodes, metrics, n_tied, run)
                entry = running[p] = (now + j.estimate, k)
                bisect.insort(run_view, entry)
                seq += 1
                push(heap, (now + run, FINISH, seq, p))
            if len(picks) <= len(waiting) and all(a is b for a, b in zip(picks, waiting)):
                del waiting[:len(picks)]  # the head of the queue started (FCFS order)
            else:
                waiting = [j for j in waiting if position[id(j)] not in chosen]
            continue
        if dispatch_at != now:
            dispatch_at = now
            seq += 1
            push(heap, (now, DISPATCH, seq, None))

    if waiting or started:
        raise RuntimeError(f"simulation ended with {len(waiting)} jobs waiting and {len(started)} running")
    summary = summarise(RecordColumns(dict(zip(_COLUMNS, zip(*rows))) if rows else {}, records), machine.size,
                        alloc_time)
    runtime = _time.perf_counter() - wall0
    summary = replace(summary, event_time=runtime - alloc_time)  # the rest of the run, the summary included
    return SimulationResult(tuple(records), summary, machine.describe(), sched.name, name, kill, report, runtime)
