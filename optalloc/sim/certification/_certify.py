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
  bounds of :func:`optalloc.ksubset.lower_bound` (on a mesh) or
  :func:`optalloc.ksubset.metric_lower_bound` (on a torus or network).

On a torus or a network every distance is the machine's own and the
optimum comes from ``ksubset.solve(machine, k, method="exact")``.

On proven decisions every method must stay within its guarantee (MM
min(2 - 1/(2d), 2 - 2/k), Gen-Alg 2 - 2/k, MC1x1 d (2 - 2/k), ...; on a
torus or network only the guarantees ksubset reports for that metric):
:meth:`Certification.check` lists any breach, which would be a bug.

States (free set, k) that recur, exactly or as a symmetric image, are
solved once (``_canonical``); in one process one
:class:`~optalloc.ksubset.ExactSession` carries the triangle cuts of one
decision to the next.

The result types (:class:`Certification`, :class:`DecisionRow` and the
summaries) are in ``_result``, the row files (CSV, JSON lines,
resuming) in ``_files``, the run (allocators, then optima here or
in parallel) in ``_run`` and ``_exact``, the machine's
metric and allocators in ``_machine``; this module checks the
arguments.
"""

from __future__ import annotations

import math
import os
import time as _time
from dataclasses import dataclass, replace
from typing import NamedTuple

from ..._progress import check_progress, library_progress
from ..._validate import int_at_least
from ...machine import Machine, parse_machine
from ..allocators import Allocator, KSubsetAllocator, check_allocator, parse_allocator
from ..workload import Trace
from ._files import _RowFile
from ._machine import default_allocators, default_driver, metric_name
from ._result import AllocatorSummary, Certification, SizeSummary
from ._rows import DecisionRow
from ._run import _Certifier

__all__ = [
    "DEFAULT_ALLOCATORS",
    "AllocatorSummary",
    "Certification",
    "DecisionRow",
    "SizeSummary",
    "certify",
    "default_allocators",
    "default_driver",
]

#: Allocators compared by default on a mesh: the k-subset heuristics of
#: Bender et al. (2005) and Johnson, Bunde and Leung, and best fit along a
#: generalised Hilbert curve (HilbertBF of Leung et al. 2002, on any box);
#: see :func:`default_allocators` for other machines.
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
    workers: int = 1
    cluster: object = None
    total_time_limit: float | None = None

    @property
    def names(self) -> tuple:
        """The allocators compared, in column order."""
        return tuple(e.name for e in self.entries)


def _prepare(spec, cache, machine) -> _Entry:
    alloc = parse_allocator(spec)
    if not cache and isinstance(alloc, KSubsetAllocator):
        alloc.cache = 0
    name = getattr(alloc, "name", None)
    if not name or name == Allocator.name:
        name = type(alloc).__name__
    check_allocator(alloc, machine)
    return _Entry(name, alloc)


def _check_seconds(value, name):
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                              or not 0 < value < math.inf):
        raise ValueError(f"`{name}` must be a positive number of seconds (or None), got {value!r}")


def _check_workers(workers) -> int:
    return int_at_least(workers, 1, "`workers` must be a positive integer", below="`workers` must be at least 1")


def certify(trace, machine, *, driver=None, allocators=None, exact=True, time_limit=_TIME_LIMIT,
            scheduler="easy", kill_at_estimate=True, progress=False, cache=True, out=None, overwrite=False,
            resume=False, workers=1, cluster=None, total_time_limit=None) -> Certification:
    """Run a trace with one allocator and certify every allocator on its decisions.

    Situation/decision mode of Bender et al. (2005, sec. 5, Table 1): the
    ``driver`` places the jobs; at each decision every allocator of
    ``allocators`` is run on the same free set and k, and its W compared
    with the exact optimum (or a certified bracket).

    Parameters
    ----------
    trace : Trace or sequence of Job
    machine : Machine or str
        A mesh (``"8x4"``: L1 distance), a torus (``"8x8 torus"``: wrap
        distance) or a network (a graph file, :func:`~optalloc.machine.dragonfly`,
        ...: shortest paths); all free.  W, the optimum and the bounds are
        in the machine's own metric (:attr:`Certification.metric`).
    driver : str or Allocator, optional
        The allocator that places the jobs; default
        :func:`default_driver` (MC1x1 on a mesh, Gen-Alg where MC1x1 does
        not run).
    allocators : sequence of str or Allocator, optional
        Allocators evaluated on every decision (see :func:`parse_allocator`);
        the driver is added when missing.  Default
        :func:`default_allocators` of the machine.  On a torus or a
        network the k-subset methods run in the machine's metric; one that
        has no meaning there is a ValueError naming those that run.
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
    workers : int
        Solve the decisions' optima in this many local processes (default
        1: in this process).  The driver runs once and fixes the free sets;
        the decisions are then independent, and the rows are the same as
        in one process (merged in decision order).
    cluster : str or distributed.Client, optional
        A Dask scheduler address (``"tcp://HOST:PORT"``) or client: the
        optima are solved on its workers instead (``workers`` is ignored).
    total_time_limit : float, optional
        Seconds for the whole run: when they are spent, the decisions not
        solved yet get the cheap bounds (status ``"bracket"``) and
        :attr:`Certification.termination` is ``"total_time_limit"``.

    Returns
    -------
    Certification

    Raises
    ------
    ValueError
        Bad arguments (unknown allocator, an allocator that does not run on
        the machine, duplicate names, bad time limit), a resumed file of
        another run, as well as those of :func:`simulate`.
    FileExistsError
        ``out`` exists and neither ``overwrite`` nor ``resume`` is given.

    Notes
    -----
    Cost per decision: one call of each allocator plus one exact solve;
    a state seen before, exactly (``cache_hits``) or as its image under a
    symmetry of the metric (a translate or reflection of a mesh's free set,
    a rotation around a torus; ``symmetry_hits``), costs a dictionary
    look-up.  The exact
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
    if machine.n_free != machine.size:
        raise ValueError(f"`machine` must start all free, {machine.size - machine.n_free} nodes are busy")
    if allocators is None:
        allocators = default_allocators(machine)
    if driver is None:
        driver = default_driver(machine)
    if isinstance(allocators, (str, Allocator)):
        allocators = (allocators,)
    try:
        specs = list(allocators)
    except TypeError:
        raise ValueError(f"`allocators` must be a sequence of allocator names, got {allocators!r}") from None
    _check_seconds(time_limit, "time_limit")
    _check_seconds(total_time_limit, "total_time_limit")
    if not exact and time_limit is not None and time_limit != _TIME_LIMIT:
        raise ValueError("`time_limit` applies only with exact=True")
    if not exact:
        time_limit = None
    workers = _check_workers(workers)
    check_progress(progress)

    drv = _prepare(driver, cache, machine)
    entries = []
    for spec in specs:
        entry = _prepare(spec, cache, machine)
        if entry.name in [e.name for e in entries]:
            raise ValueError(f"`allocators` lists {entry.name!r} twice")
        entries.append(_Entry(entry.name, None if entry.name == drv.name else entry.alloc))
    if drv.name not in [e.name for e in entries]:
        entries.insert(0, _Entry(drv.name, None))
    plan = _Plan(trace, machine, drv, tuple(entries), bool(exact), time_limit, scheduler, kill_at_estimate,
                 progress, cache, workers, cluster, total_time_limit)

    if resume and out is None:
        raise ValueError("`resume` needs the file to continue: pass `out`")
    if out is not None:
        if os.path.splitext(os.fspath(out))[1].lower() not in (".csv", ".jsonl", ".json"):
            raise ValueError(f"`out` must end in .csv, .jsonl or .json, got {os.fspath(out)!r}")
        writer = _RowFile(out, plan.names, overwrite=overwrite, resume=resume, metric=metric_name(machine))
    else:
        writer = None
    try:
        report, scope = library_progress(progress, label="certify", unit="decisions", total=len(trace))
        with scope:
            return _Certifier(replace(plan, progress=report), writer).run(wall0)
    finally:
        if writer is not None:
            writer.close()


