"""Certify what a machine's scheduler did: its job history, replayed.

A history (:func:`optalloc.sim.workload.read_history`) gives each job's
start, end and nodes.  :func:`certify_history` walks it in start order
and rebuilds the free set at every start from the jobs running then (a
job ends before another starts at the same second); nodes given as busy
(down, reserved) stay busy throughout.  A job whose nodes overlap a
running job's, or a busy node, is reported in
:attr:`HistoryCertification.conflicts` and neither certified nor placed:
its free set would be a guess.

Each placement is then certified as :func:`certify` certifies a
simulated decision: its W in the machine's metric, the optimum of its
state (free set, k) proven or bracketed by the same solver (a tree of
switches at any size by its dynamic program; repeated and symmetric
states solved once; here, in ``workers`` local processes or on Dask), and
its certified ratio.  The simulator's allocators run on the same free
set and k beside it: what they would have placed, job by job.
"""

from __future__ import annotations

import heapq
import time as _time
from dataclasses import dataclass, field

import numpy as np

from ..._progress import Progress, check_progress, library_progress
from ..._table import text_table
from ...machine import Machine, parse_machine
from ..allocators import Allocator
from ..engine import as_allocation
from ..workload import History, history_nodes, read_history
from ._canonical import canonical_key
from ._certify import _check_seconds, _check_workers, _prepare
from ._exact import EXACT_MAX_FREE, State, StateSolver, _integral
from ._machine import metric_name, metric_weight
from ._result import Certification
from ._rows import TOL, DecisionRow, _num
from ._run import _Budget, _row_bracket, quick_bracket

__all__ = ["HISTORY", "HistoryCertification", "certify_history"]

#: The name of the history's own placements among the allocators compared.
HISTORY = "history"


@dataclass(frozen=True)
class HistoryCertification(Certification):
    """The certified placements of a job history (a :class:`Certification`
    whose driver is :data:`HISTORY`; ``simulation`` is None).

    Attributes
    ----------
    conflicts : tuple of (str, str, int)
        Jobs not certified: (job id, what its nodes overlap: a running
        job's id or ``"busy"``, nodes in common).
    history_report : HistoryReport or None
        How the history was read.
    machine_text : str
        The machine.
    busy : int
        Nodes held busy throughout.
    """

    conflicts: tuple = ()
    history_report: object = field(default=None, repr=False)
    machine_text: str = ""
    busy: int = 0

    @property
    def trace_report(self):
        return None

    def table(self) -> str:
        """The gap table (one line per allocator, the history first), the
        solver's figures and what was skipped."""
        head = ("placements", "decisions", "mean ratio", "max ratio", "optimal", "best", "mean W")
        body = []
        for s in self.summary():
            if abs(s.mean_ratio - s.mean_ratio_low) > TOL:
                mean = f"{s.mean_ratio_low:.4f}-{s.mean_ratio:.4f}"
            else:
                mean = f"{s.mean_ratio:.4f}"
            body.append((s.name, str(s.decisions), mean, f"{s.max_ratio:.4f}", f"{100 * s.share_optimal:.1f}%",
                         f"{100 * s.share_best:.1f}%", f"{s.mean_W:.2f}"))
        lines = text_table(head, body).split("\n")
        lines.append("")
        size_head = ("job size", "jobs", "mean ratio", "max ratio", "optimal", "mean W")
        size_body = [(s.label, str(s.decisions), f"{s.mean_ratio:.4f}", f"{s.max_ratio:.4f}",
                      f"{100 * s.share_optimal:.1f}%", f"{s.mean_W:.2f}") for s in self.by_size() if s.name == HISTORY]
        lines += text_table(size_head, size_body).split("\n")
        n = len(self.rows)
        gap = f", mean gap {100 * self.mean_gap:.3f}%" if self.n_proven < n else ""
        lines.append(f"optimum: {self.n_proven}/{n} placements proven{gap}, {self.cache_hits} cache hits, "
                     f"{self.symmetry_hits} symmetric, {self.exact_seconds:.2f} s")
        if self.termination == "total_time_limit":
            lines.append(f"stopped at the total time limit of {self.total_time_limit:g} s: the states not solved "
                         "by then keep the neighbour bound")
        if self.conflicts:
            job, other, common = self.conflicts[0]
            lines.append(f"{len(self.conflicts)} jobs not certified: their nodes overlap a running job's or busy "
                         f"nodes (job {job}: {common} nodes of {other})")
        r = self.history_report
        if r is not None:
            lines.append(f"history: {r.lines} lines, {r.placements} placements; skipped {r.steps} job steps, "
                         f"{r.not_started} never started, {r.bad_lines} bad lines; {r.still_running} still running")
        lines.append(f"total time: {self.runtime:.2f} s on {self.machine_text}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Everything but the rows, JSON-ready."""
        clean = [{k: _num(v) if isinstance(v, float) else v for k, v in s.to_dict().items()} for s in self.summary()]
        sizes = [{k: _num(v) if isinstance(v, float) else v for k, v in s.to_dict().items()} for s in self.by_size()]
        return {"machine": self.machine_text, "metric": self.metric, "allocators": list(self.names),
                "placements": len(self.rows), "proven": self.n_proven, "mean_gap": self.mean_gap,
                "termination": self.termination, "time_limit": self.time_limit, "cache_hits": self.cache_hits,
                "symmetry_hits": self.symmetry_hits, "exact_seconds": self.exact_seconds,
                "compare_seconds": self.compare_seconds, "runtime": self.runtime, "busy": self.busy,
                "conflicts": [{"job_id": j, "overlaps": o, "nodes": c} for j, o, c in self.conflicts],
                "history_report": None if self.history_report is None else self.history_report.to_dict(),
                "summary": clean, "by_size": sizes, "violations": self.check()}


def _busy_mask(machine, busy) -> np.ndarray:
    mask = np.zeros(machine.size, dtype=bool)
    if busy is None:
        return mask
    if isinstance(busy, str):
        ids = history_nodes(machine, busy)
    else:
        try:
            ids = [int(v) for v in busy]
        except (TypeError, ValueError):
            raise ValueError(f"`busy` must be a node list or node ids, got {busy!r}") from None
        if any(not 0 <= v < machine.size for v in ids):
            raise ValueError(f"`busy` must name nodes 0 .. {machine.size - 1}")
    mask[list(ids)] = True
    return mask


def certify_history(history, machine, *, allocators=("gen-alg",), busy=None, exact=True, time_limit=60.0,
                    workers=1, cluster=None, progress=False, cache=True, strict=True,
                    total_time_limit=None) -> HistoryCertification:
    """Replay a machine's job history and certify every placement it made.

    Parameters
    ----------
    history : History, str or path
        Placements (:func:`~optalloc.sim.workload.read_history`), or a file
        to read (sacct ``--parsable2`` text, CSV or JSON).
    machine : Machine or str
        The machine the history ran on, all free (a ``topology.conf``, a
        network file, a mesh or torus).
    allocators : sequence of str or Allocator
        The simulator's allocators run on every free set beside the
        history (:func:`~optalloc.sim.parse_allocator`); ``()`` for none.
    busy : str or sequence of int, optional
        Nodes busy throughout (down, reserved, not in the history): a node
        list (``"cn[120-128]"``) or node ids.
    exact, time_limit, workers, cluster, progress, cache
        As in :func:`certify`.
    strict : bool
        When ``history`` is a file: as in :func:`~optalloc.sim.workload.read_history`.
    total_time_limit : float, optional
        Seconds for the whole run, as in :func:`certify`: each state's time
        limit is its share of the time left (at most ``time_limit``; not on
        Dask); the states not solved when it is spent keep the neighbour
        bound, and ``termination`` is ``"total_time_limit"``.

    Returns
    -------
    HistoryCertification
        One row per certified placement, in start order; the history's
        column is named :data:`HISTORY`.

    Raises
    ------
    ValueError
        Bad arguments, a history that cannot be read, a busy node outside
        the machine.

    Examples
    --------
    >>> from optalloc import instance_path
    >>> from optalloc.machine import read_topology
    >>> m = read_topology(instance_path("topology.conf"))
    >>> text = '''JobID|Start|End|NNodes|NodeList
    ... 1|0|100|4|cn[001-002,017-018]
    ... 2|10|50|2|cn[003,004]
    ... '''
    >>> cert = certify_history(text, m)
    >>> [(r.job_id, r.W[0], r.upper) for r in cert.rows]
    [('1', 20.0, 12.0), ('2', 2.0, 2.0)]
    >>> [round(r.ratios()[0][1], 2) for r in cert.rows]
    [1.67, 1.0]
    """
    wall0 = _time.perf_counter()
    machine = parse_machine(machine) if not isinstance(machine, Machine) else machine
    if machine.n_free != machine.size:
        raise ValueError(f"`machine` must start all free, {machine.size - machine.n_free} nodes are busy")
    if not isinstance(history, History):
        history = read_history(history, machine, strict=strict)
    if isinstance(allocators, (str, Allocator)):
        allocators = (allocators,)
    _check_seconds(time_limit, "time_limit")
    _check_seconds(total_time_limit, "total_time_limit")
    workers = _check_workers(workers)
    check_progress(progress)
    entries = []
    for spec in allocators:
        entry = _prepare(spec, cache, machine)
        if entry.name in [e.name for e in entries] or entry.name == HISTORY:
            raise ValueError(f"`allocators` lists {entry.name!r} twice")
        entries.append(entry)
    names = (HISTORY, *(e.name for e in entries))
    down = _busy_mask(machine, busy)

    # 1. the free set of every start, the history's W and the allocators'
    owner = np.where(down, -2, -1).astype(np.int64)
    shadow = machine.copy_empty()
    running: list = []
    decisions, conflicts = [], []
    compare_seconds = 0.0
    for i, p in enumerate(history):
        while running and running[0][0] <= p.start:
            _, j = heapq.heappop(running)
            owner[np.asarray(history[j].nodes)] = -1
        nodes = np.asarray(p.nodes, dtype=np.int64)
        if nodes.max() >= machine.size:
            raise ValueError(f"job {p.job_id}: node {int(nodes.max())} is not a node of the {machine.describe()}")
        taken = owner[nodes]
        if (taken != -1).any():
            hit = int(taken[taken != -1][0])
            conflicts.append((p.job_id, "busy" if hit == -2 else history[hit].job_id, int((taken != -1).sum())))
            continue
        free_ids = np.flatnonzero(owner == -1)
        t0 = _time.perf_counter()
        ws = [metric_weight(machine, nodes)]
        if entries:
            shadow.reset()
            if len(free_ids) < machine.size:
                shadow.allocate(np.flatnonzero(owner != -1), owner=-2)
            for name, alloc in entries:
                chosen, _ = as_allocation(alloc.select(shadow, len(nodes)))
                if len(set(chosen.tolist())) != len(nodes) or not shadow.free[chosen].all():
                    raise RuntimeError(f"allocator {name!r} gave an invalid choice for job {p.job_id}")
                ws.append(metric_weight(machine, chosen))
        compare_seconds += _time.perf_counter() - t0
        decisions.append((len(decisions), p, len(free_ids), tuple(ws), np.packbits(owner == -1).tobytes()))
        owner[nodes] = i
        heapq.heappush(running, (p.end, i))

    # 2. the optimum of every state, each solved once
    states, answer, seen_repeat, seen_sym = [], [], {}, {}
    hits = {"repeat": 0, "symmetric": 0}
    for index, p, n_free, _, packed in decisions:
        k = len(p.nodes)
        repeat, sym = (k, packed), None
        free_ids = None
        if cache and repeat in seen_repeat:
            answer.append((seen_repeat[repeat], "repeat"))
            continue
        free_ids = np.flatnonzero(np.unpackbits(np.frombuffer(packed, dtype=np.uint8), count=machine.size))
        if cache and machine.tree is None and n_free <= EXACT_MAX_FREE:
            sym = canonical_key(machine, free_ids, k)
        if sym is not None and sym in seen_sym:
            answer.append((seen_sym[sym], "symmetric"))
        else:
            states.append(State(len(states), free_ids, k))
            answer.append((len(states) - 1, None))
        pos = answer[-1][0]
        if cache:
            seen_repeat.setdefault(repeat, pos)
            if sym is not None:
                seen_sym.setdefault(sym, pos)
    solved = {}
    budget = _Budget(wall0, total_time_limit, paced=bool(exact) and cluster is None, workers=workers,
                     states=len(states), cap=time_limit)
    report, scope = library_progress(progress, label="history", unit="states", total=len(states))
    with scope:
        def handle(pos, s):
            solved[pos] = s
            if isinstance(report, Progress):
                report.track(len(solved), len(states))
            elif report is not None:
                report(len(solved), len(states))

        StateSolver(machine, exact=exact, time_limit=time_limit if exact else None, workers=workers,
                    scheduler=cluster, idle_seconds=budget.idle_seconds).run(states, handle, stop=budget.stop,
                                                                             pace=budget.pace)
    for s in states:  # the time is spent: the quickest bound for the states not solved
        if s.pos not in solved:
            solved[s.pos] = quick_bracket(machine, s)

    # 3. the rows
    integral = _integral(machine)
    rows, exact_seconds = [], 0.0
    for (index, p, n_free, ws, _), (pos, how) in zip(decisions, answer):
        s = solved[pos]
        lower, upper, status = _row_bracket(s, ws, integral)
        seconds = 0.0 if how else s.seconds
        exact_seconds += seconds
        if how:
            hits[how] += 1
        rows.append(DecisionRow(index, p.job_id, p.start, len(p.nodes), n_free, ws, (None,) * len(ws),
                                float(lower), float(upper), status, seconds, how is not None))
    termination = "optimal" if all(r.proven for r in rows) else (
        "time_limit" if any(r.status == "time_limit" for r in rows) else "bracket")
    if not exact and termination != "optimal":
        termination = "bounds"
    if budget.stopped and termination != "optimal":
        termination = "total_time_limit"
    return HistoryCertification(
        tuple(rows), names, HISTORY, None, exact=bool(exact), time_limit=time_limit if exact else None,
        cache_hits=hits["repeat"], exact_seconds=exact_seconds, compare_seconds=compare_seconds,
        runtime=_time.perf_counter() - wall0, symmetry_hits=hits["symmetric"], metric=metric_name(machine),
        termination=termination, total_time_limit=total_time_limit, conflicts=tuple(conflicts),
        history_report=history.report,
        machine_text=machine.describe(), busy=int(down.sum()))
