"""Situation/decision comparison and certified optimality gaps along a trace.

One allocator, the *driver* (Bender et al. 2005, sec. 5: the "situation
algorithm"), places every job of the trace.  At each of its decisions the
other allocators (the "decision algorithms" of Table 1) are run on the same
free set and the same k, without touching the machine, and the exact
optimum of that decision is computed with :func:`optalloc.ksubset.exact`.
Each allocator's W is then divided by the optimum: its ratio on that
decision.

Certificates:

- with the exact optimum proven, a ratio is one number, W / OPT >= 1;
- with a time limit that stops the exact solver, the optimum is only known
  to lie in a bracket [LB, UB] (LB the solver's proven bound, rounded up
  since W is an integer on a mesh; UB the best W any method found), and the
  ratio is the certified interval [W / UB, W / LB];
- without the exact solver (``exact=False``), LB is the best of the cheap
  bounds of :func:`optalloc.ksubset.lower_bound`.

On proven decisions every method must stay within its guarantee (MM
min(2 - 1/(2d), 2 - 2/k), Gen-Alg 2 - 2/k, MC1x1 d (2 - 2/k), ...):
:meth:`Certification.check` lists any breach, which would be a bug.

One :class:`~optalloc.ksubset.ExactSession` serves the whole run: states
(free set, k) that recur, an idle machine above all, are answered from its
cache, and the triangle cuts found binding in one decision seed the next.

The result types (:class:`Certification`, :class:`DecisionRow` and the
summaries) are in ``_certify_result``, the row files (CSV, JSON lines,
resuming) in ``_certify_files``; this module runs the comparison.
"""

from __future__ import annotations

import math
import os
import time as _time
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from .. import ksubset
from .._progress import Progress, check_progress, library_progress
from ..machine import Machine, parse_machine
from ._allocators import Allocator, KSubsetAllocator, parse_allocator
from ._certify_files import _RowFile
from ._certify_result import AllocatorSummary, Certification, SizeSummary
from ._rows import TOL, DecisionRow
from ._simulate import _as_allocation, simulate
from ._swf import Trace

__all__ = [
    "DEFAULT_ALLOCATORS",
    "AllocatorSummary",
    "Certification",
    "DecisionRow",
    "SizeSummary",
    "certify",
]

#: Allocators compared by default: the k-subset heuristics of Bender et al.
#: (2005) and Johnson, Bunde and Leung, and best fit along a generalised
#: Hilbert curve (HilbertBF of Leung et al. 2002, on any box).
DEFAULT_ALLOCATORS = ("mm", "gen-alg", "mc1x1", "mm-inc", "1d:gilbert:best-fit")

#: Seconds per exact solve by default (``time_limit=None`` lifts the limit).
_TIME_LIMIT = 60.0


class _Entry(NamedTuple):
    """An allocator of the comparison: its name, and the allocator (None for
    the driver in the list of compared allocators: its own decision is read)."""

    name: str
    alloc: Allocator | None


@dataclass(frozen=True)
class _Plan:
    """A checked certification run: the options of :func:`certify`."""

    trace: object
    machine: Machine
    driver: _Entry
    entries: tuple
    exact: bool
    time_limit: float | None
    scheduler: object
    kill_at_estimate: bool
    progress: object
    cache: bool

    @property
    def names(self) -> tuple:
        """The allocators compared, in column order."""
        return tuple(e.name for e in self.entries)


class _Bracket(NamedTuple):
    """What is known of the optimum of one decision."""

    lower: float
    upper: float
    status: str
    cached: bool


def _prepare(spec, cache) -> _Entry:
    alloc = parse_allocator(spec)
    if not cache and isinstance(alloc, KSubsetAllocator):
        alloc.cache = 0
    name = getattr(alloc, "name", None)
    if not name or name == Allocator.name:
        name = type(alloc).__name__
    return _Entry(name, alloc)


def certify(trace, machine, *, driver="mc1x1", allocators=DEFAULT_ALLOCATORS, exact=True, time_limit=_TIME_LIMIT,
            scheduler="easy", kill_at_estimate=True, progress=False, cache=True, out=None, overwrite=False,
            resume=False) -> Certification:
    """Run a trace with one allocator and certify every allocator on its decisions.

    Situation/decision mode of Bender et al. (2005, sec. 5, Table 1): the
    ``driver`` places the jobs; at each decision every allocator of
    ``allocators`` is run on the same free set and k, and its W compared
    with the exact optimum (or a certified bracket).

    Parameters
    ----------
    trace : Trace or sequence of Job
    machine : Machine or str
        A mesh (``"8x4"``); tori are refused, since the k-subset problem
        and its exact solver use plain L1 distance.
    driver : str or Allocator
        The allocator that places the jobs (``"mc1x1"``).
    allocators : sequence of str or Allocator
        Allocators evaluated on every decision (see :func:`parse_allocator`);
        the driver is added when missing.
    exact : bool
        Certify each decision with :func:`optalloc.ksubset.exact`; False:
        cheap lower bounds only (ratios are then intervals).
    time_limit : float or None
        Seconds per exact solve (default 60); a decision that runs out
        keeps the bracket [lower, upper] it proved, with status
        ``"time_limit"``.  None: no limit (a hard decision may then take
        hours).  Ignored at its default with ``exact=False``.
    scheduler : str or Scheduler
    kill_at_estimate : bool
        As in :func:`simulate`.
    progress : bool or callable
        True: progress on stderr (decisions done / total, elapsed: a bar on
        a terminal, a line every few seconds and one at the end elsewhere);
        a callable gets ``(done, total)`` after each decision.  Default: silent.
    cache : bool
        Share one :class:`~optalloc.ksubset.ExactSession` (cached optima of
        repeated states, carried cuts) and let the k-subset allocators reuse
        their decisions on repeated states.  False solves everything afresh
        (same W and optima, more time).
    out : str or path, optional
        Write each decision row to this file as soon as it is certified
        (``.csv``, or JSON lines for ``.jsonl``/``.json``, the latter
        followed by the summary), so a long run that is stopped keeps what
        it did.  An existing file is never replaced unless ``overwrite``.
    overwrite : bool
        Replace an existing ``out``.
    resume : bool
        Continue an existing ``out`` written by an earlier run of the same
        trace, machine and allocators: its decisions are not solved again
        (their bounds are read back; the allocators are rerun, cheaply,
        and must give the W the file holds) and the new rows are appended.
        A missing file is started afresh.

    Returns
    -------
    Certification

    Raises
    ------
    ValueError
        Bad arguments (unknown allocator, torus, duplicate names, bad time
        limit), a resumed file of another run, as well as those of
        :func:`simulate`.
    FileExistsError
        ``out`` exists and neither ``overwrite`` nor ``resume`` is given.

    Notes
    -----
    Cost per decision: one call of each allocator plus one exact solve;
    exact solves of repeated states cost a dictionary look-up.  The exact
    solve is NP-hard in general, hence the default ``time_limit``: a run
    ends, with certified brackets where the optimum was not proven.

    Examples
    --------
    >>> from optalloc.sim import Job, certify
    >>> jobs = [Job(1, 0, 100, 6), Job(2, 5, 100, 5), Job(3, 10, 50, 4)]
    >>> cert = certify(jobs, "4x4", driver="mc1x1", allocators=("mm", "mc1x1"))
    >>> cert.names, len(cert), cert.n_proven
    (('mm', 'mc1x1'), 3, 3)
    >>> [r.upper for r in cert.rows]
    [25.0, 16.0, 10.0]
    >>> cert.check()
    []
    """
    wall0 = _time.perf_counter()
    if not isinstance(trace, Trace):
        try:
            trace = tuple(trace)
        except TypeError:
            raise ValueError(f"`trace` must be a Trace or a sequence of Job, got {type(trace).__name__}") from None
    machine = parse_machine(machine) if not isinstance(machine, Machine) else machine
    if not machine.is_grid or any(machine.torus):
        raise ValueError("`machine` must be a mesh: certification uses plain L1 distance, "
                         f"got {machine.describe()}")
    if isinstance(allocators, (str, Allocator)):
        allocators = (allocators,)
    try:
        specs = list(allocators)
    except TypeError:
        raise ValueError(f"`allocators` must be a sequence of allocator names, got {allocators!r}") from None
    if time_limit is not None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not 0 < time_limit < math.inf:
            raise ValueError(f"`time_limit` must be a positive number of seconds (or None), got {time_limit!r}")
        if not exact and time_limit != _TIME_LIMIT:
            raise ValueError("`time_limit` applies only with exact=True")
    if not exact:
        time_limit = None
    check_progress(progress)

    drv = _prepare(driver, cache)
    entries = []
    for spec in specs:
        entry = _prepare(spec, cache)
        if entry.name in [e.name for e in entries]:
            raise ValueError(f"`allocators` lists {entry.name!r} twice")
        entries.append(_Entry(entry.name, None if entry.name == drv.name else entry.alloc))
    if drv.name not in [e.name for e in entries]:
        entries.insert(0, _Entry(drv.name, None))
    plan = _Plan(trace, machine, drv, tuple(entries), bool(exact), time_limit, scheduler, kill_at_estimate,
                 progress, cache)

    if resume and out is None:
        raise ValueError("`resume` needs the file to continue: pass `out`")
    if out is not None:
        if os.path.splitext(os.fspath(out))[1].lower() not in (".csv", ".jsonl", ".json"):
            raise ValueError(f"`out` must end in .csv, .jsonl or .json, got {os.fspath(out)!r}")
        writer = _RowFile(out, plan.names, overwrite=overwrite, resume=resume)
    else:
        writer = None
    try:
        report, scope = library_progress(progress, label="certify", unit="decisions", total=len(trace))
        with scope:
            if isinstance(report, Progress):
                report = report.track
            return _Certifier(replace(plan, progress=report), writer).run(wall0)
    finally:
        if writer is not None:
            writer.close()


class _Certifier:
    """One certification run: the hook that compares the allocators and
    certifies the optimum at each decision of the driver's simulation."""

    def __init__(self, plan: _Plan, writer: _RowFile | None):
        self.plan, self.writer = plan, writer
        self.stored = writer.stored if writer is not None else {}
        self.session = ksubset.ExactSession() if plan.cache and plan.exact else None
        self.shadow = plan.machine.copy_empty()
        self.rows: list[DecisionRow] = []
        self.exact_seconds = self.compare_seconds = 0.0
        self.total = len(plan.trace)

    def run(self, wall0) -> Certification:
        """Simulate the trace with the driver, certifying every decision."""
        p = self.plan
        sim = simulate(p.trace, p.machine, scheduler=p.scheduler, allocator=p.driver.alloc,
                       kill_at_estimate=p.kill_at_estimate, on_decision=self.on_decision)
        cert = Certification(
            tuple(self.rows), p.names, p.driver.name, sim, exact=p.exact, time_limit=p.time_limit,
            cache_hits=self.session.hits if self.session is not None else 0, exact_seconds=self.exact_seconds,
            compare_seconds=self.compare_seconds, runtime=_time.perf_counter() - wall0,
            resumed=sum(r.index in self.stored for r in self.rows))
        if self.writer is not None:
            self.writer.finish(cert.to_dict())
        return cert

    def on_decision(self, d) -> None:
        t0 = _time.perf_counter()
        ws, gs = self._compare(d)
        t1 = _time.perf_counter()
        self.compare_seconds += t1 - t0
        old = self.stored.get(d.index)
        b = self._bracket(d, ws, old)
        t2 = _time.perf_counter()
        self.exact_seconds += t2 - t1
        seconds = old.exact_seconds if old is not None else t2 - t1 if self.plan.exact else 0.0
        row = DecisionRow(d.index, d.job.job_id, float(d.time), d.k, len(d.free_points), tuple(ws), tuple(gs),
                          float(b.lower), float(b.upper), b.status, seconds, b.cached)
        self.rows.append(row)
        if self.writer is not None:
            self.writer.write(row)
        if self.plan.progress is not None:
            self.plan.progress(len(self.rows), self.total)

    def _compare(self, d):
        """W and guarantee of every allocator on the free set and k of decision ``d``."""
        pts, k, shadow = d.free_points, d.k, self.shadow
        busy = np.ones(shadow.size, dtype=bool)
        busy[d.free_ids] = False
        shadow.reset()
        if busy.any():
            shadow.allocate(np.flatnonzero(busy), owner=-2)
        ws, gs = [], []
        for name, alloc in self.plan.entries:
            if alloc is None:  # the driver: its own decision
                ws.append(float(ksubset.weight(pts[d.indices])))
                gs.append(d.result.guarantee if d.result is not None else None)
                continue
            nodes, result = _as_allocation(alloc.select(shadow, k))
            if nodes.ndim != 1 or len(set(nodes.tolist())) != k or not shadow.free[nodes].all():
                raise RuntimeError(f"allocator {name!r} gave an invalid choice for job {d.job.job_id} "
                                   f"({k} free nodes needed)")
            ws.append(float(ksubset.weight(shadow.coords[nodes])))
            gs.append(result.guarantee if result is not None else None)
        return ws, gs

    def _bracket(self, d, ws, old) -> _Bracket:
        """The optimum of decision ``d``: read back from the resumed file (``old``),
        solved exactly, or bracketed by cheap bounds."""
        pts, k = d.free_points, d.k
        upper = min(ws)
        cached = False
        if old is not None:
            if (old.k, old.n_free) != (k, len(pts)) or not np.allclose(old.W, ws, rtol=TOL, atol=0):
                raise ValueError(f"cannot resume {self.writer.path}: decision {d.index} differs from this run "
                                 f"(k {old.k} vs {k}, W {list(old.W)} vs {ws}); another trace, machine or "
                                 "allocator options?")
            lower, upper, status, cached = old.lower, old.upper, old.status, old.cached
        elif self.plan.exact:
            res = ksubset.exact(pts, k, time_limit=self.plan.time_limit, warm_start=self.session)
            cached = res.extra.get("phase") == "cache"
            if res.status == "optimal":
                lower = upper = float(res.objective)
            else:
                upper = min(upper, float(res.objective))
                lower = float(res.bound) if res.bound is not None else 0.0
            status = "optimal" if res.status == "optimal" else (
                "time_limit" if res.termination == "time_limit" else "bracket")
        else:
            lower = max(ksubset.lower_bound(pts, k).values())
            status = "bracket"
        if status != "optimal":
            lower = min(float(math.ceil(lower - 1e-6)), upper)  # W is an integer on a mesh
            if lower >= upper:
                status = "optimal"
        return _Bracket(lower, upper, status, cached)
