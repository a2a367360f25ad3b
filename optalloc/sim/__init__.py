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
"""

from ._allocators import (
    Allocation,
    Allocator,
    KSubsetAllocator,
    OneDAllocator,
    RandomAllocator,
    parse_allocator,
)
from ._events import ARRIVAL, DISPATCH, FINISH, Event, EventQueue
from ._machine import Machine, parse_machine
from ._metrics import (
    SLOWDOWN_THRESHOLD,
    JobRecord,
    Summary,
    allocation_metrics,
    summarise,
)
from ._schedulers import EASY, FCFS, SCHEDULERS, Conservative, Scheduler, make_scheduler
from ._simulate import Decision, SimulationResult, simulate
from ._swf import Job, Trace, TraceReport, read_swf, write_swf

__all__ = [
    "ARRIVAL",
    "DISPATCH",
    "EASY",
    "FCFS",
    "FINISH",
    "SCHEDULERS",
    "SLOWDOWN_THRESHOLD",
    "Allocation",
    "Allocator",
    "Conservative",
    "Decision",
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
    "Summary",
    "Trace",
    "TraceReport",
    "allocation_metrics",
    "make_scheduler",
    "parse_allocator",
    "parse_machine",
    "read_swf",
    "simulate",
    "summarise",
    "write_swf",
]
