"""Trace simulation of job scheduling and processor allocation.

Jobs of a Standard Workload Format trace arrive over time; a *scheduler*
decides when each starts, counting processors only, and an *allocator*
decides which nodes of a mesh or torus it gets (Johnson, Bunde and Leung,
sec. I; Leung et al. 2002, sec. 3).  Run times are held constant; the
simulation measures the locality of every allocation (W, average pairwise
hops, bounding box, span) and the schedule (wait, flow, slowdown,
utilisation).

Schedulers: ``FCFS``; ``EASY`` (aggressive backfilling: only the queue head
holds a reservation, no job delays it); ``Conservative`` (every waiting
job holds one).

Allocators: ``KSubsetAllocator`` (any :func:`optalloc.ksubset.solve`
method: MC1x1 with or without tie-breaking, MM (7/4 in 2D), Gen-Alg, MM+Inc,
exact), ``OneDAllocator`` (1D strategies over a curve ordering),
``RandomAllocator``; ``parse_allocator`` reads them from text.

``simulate`` runs the event loop and calls ``on_decision`` with every
allocation decision (free set, k, choice, solver result), the hook for
situation/decision comparisons and gap certification.

``certify`` runs that comparison (Bender et al. 2005, Table 1): one
allocator drives, the others are evaluated on the same free sets, and the
exact optimum of every decision (in the machine's metric: a mesh, a
torus or a network; each state solved once up to symmetry, here, in local
processes or on Dask) certifies each allocator's ratio; ``Certification``
holds the per-decision rows and summaries, and ``read_certification``
reads its CSV or JSON-lines file back.  ``plot_machine``,
``plot_gap_histogram``, ``plot_improvement_by_size`` and ``plot_sweep``
draw the machine at a time, the certified ratios of every allocator, the
improvement by job size and a sweep metric per allocator (matplotlib: each
takes ``ax=`` and returns the Axes; the backend is never changed).

Sweeps: ``load_sweep`` reads a TOML grid of configurations (allocator x
parameters x trace x machine x scheduler), ``run_sweep`` runs it in local
processes or on a Dask cluster and stores every finished configuration in
one SQLite transaction, so a killed sweep resumes without loss or
duplicates; ``read_sweep`` and ``format_sweep`` read the results back.
"""

from ..machine import Machine, parse_machine
from ._allocators import (
    Allocation,
    Allocator,
    KSubsetAllocator,
    OneDAllocator,
    RandomAllocator,
    parse_allocator,
)
from ._canonical import canonical_key
from ._certify import DEFAULT_ALLOCATORS, certify, default_allocators, default_driver
from ._certify_read import CertificationFile, read_certification
from ._certify_result import AllocatorSummary, Certification, SizeSummary
from ._events import ARRIVAL, DISPATCH, FINISH, Event, EventQueue
from ._metrics import (
    SLOWDOWN_THRESHOLD,
    JobRecord,
    Summary,
    allocation_metrics,
    summarise,
)
from ._plots import plot_gap_histogram, plot_improvement_by_size, plot_machine, plot_sweep
from ._rows import DecisionRow
from ._schedulers import EASY, FCFS, SCHEDULERS, Conservative, Scheduler, make_scheduler
from ._simulate import Decision, SimulationResult, simulate
from ._swf import Job, Trace, TraceReport, read_swf, write_swf
from .sweep import (
    Configuration,
    SweepConfig,
    SweepReport,
    format_sweep,
    load_sweep,
    make_certify_sweep,
    make_sweep,
    read_jobs,
    read_sweep,
    run_sweep,
)

__all__ = [
    "ARRIVAL",
    "DEFAULT_ALLOCATORS",
    "DISPATCH",
    "EASY",
    "FCFS",
    "FINISH",
    "SCHEDULERS",
    "SLOWDOWN_THRESHOLD",
    "Allocation",
    "Allocator",
    "AllocatorSummary",
    "Certification",
    "CertificationFile",
    "Configuration",
    "Conservative",
    "Decision",
    "DecisionRow",
    "Event",
    "EventQueue",
    "Job",
    "JobRecord",
    "KSubsetAllocator",
    "Machine",
    "OneDAllocator",
    "RandomAllocator",
    "Scheduler",
    "SimulationResult",
    "SizeSummary",
    "Summary",
    "SweepConfig",
    "SweepReport",
    "Trace",
    "TraceReport",
    "allocation_metrics",
    "certify",
    "canonical_key",
    "default_allocators",
    "default_driver",
    "format_sweep",
    "load_sweep",
    "make_scheduler",
    "make_sweep",
    "make_certify_sweep",
    "parse_allocator",
    "parse_machine",
    "plot_gap_histogram",
    "plot_improvement_by_size",
    "plot_machine",
    "plot_sweep",
    "read_certification",
    "read_jobs",
    "read_sweep",
    "read_swf",
    "run_sweep",
    "simulate",
    "summarise",
    "write_swf",
]
