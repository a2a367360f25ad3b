"""Trace simulation of job scheduling and processor allocation.

Jobs of a Standard Workload Format trace arrive over time; a *scheduler*
decides when each starts, counting processors only, and an *allocator*
decides which nodes of a mesh, torus or network it gets (Johnson, Bunde and Leung,
sec. I; Leung et al. 2002, sec. 3).  Run times are held constant; the
simulation measures the locality of every allocation (W, average pairwise
hops, bounding box, span) and the schedule (wait, flow, slowdown,
utilisation).

Schedulers: ``FCFS``; ``EASY`` (aggressive backfilling: only the queue head
holds a reservation, no job delays it); ``Conservative`` (every waiting
job holds one); the Cplant queue of Leung et al. (``CplantQueue``) and the
Cplant schedulers of SAND2003-3702 ch. 7 (``Cplant``: fair share,
no-guarantee backfilling, a starvation queue; its variants).

Workloads: ``work_multiple`` and ``replicate`` (Leung et al. 2002, sec.
3), ``scale_up`` (a trace on a larger machine), ``lublin_workload`` (the
Lublin-Feitelson model, 2003, for a machine of any size).  Locality (``job_locality``, ``locality_summary``: span, stretch-span,
bounding box, half perimeter, bounding cube, connected components) and
fairness (``FairShare``, ``FairStart``: fair-start times) go into the
records and summaries; ``TimePerDistance`` is a runtime model in which the
allocation changes run times.

Allocators: ``KSubsetAllocator`` (any :func:`optalloc.ksubset.solve`
method: MC1x1 with or without tie-breaking, MM (7/4 in 2D), Gen-Alg, MM+Inc,
exact), ``OneDAllocator`` (1D strategies over a curve ordering),
``RandomAllocator``; ``parse_allocator`` reads them from text.  On networks
(``Machine.from_graph``, dragonflies, fat trees): Gen-Alg, exact and brute
force in the machine's metric, ``NetworkOneDAllocator`` (1D strategies over
an ``order_graph`` ordering, ``"1d:graph-qap:best-fit"``), and on a
dragonfly the nine allocators of SST's scheduler (``DragonflyAllocator``,
``"dfly:simple-spread"``, ...; ``DRAGONFLY_ALLOCATORS``); on a tree of
switches (a Slurm ``topology.conf``, a fat tree) Slurm's own placement
(``SlurmTreeAllocator``, ``"slurm:tree"``; ``SlurmBlockAllocator``,
``"slurm:block"``).
``fitting_allocators`` lists the allocators that run on a machine and
``check_allocator`` refuses one that does not, naming them.

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
improvement by job size and a sweep metric per allocator, and
``plot_network`` the links of any machine (torus wrap links, dragonfly
groups, fat-tree layers) with its jobs coloured (matplotlib: each takes
``ax=`` and returns the Axes; the backend is never changed).

Sweeps: ``load_sweep`` reads a TOML grid of configurations (allocator x
parameters x trace x machine x scheduler), ``run_sweep`` runs it in local
processes or on a Dask cluster and stores every finished configuration in
one SQLite transaction, so a killed sweep resumes without loss or
duplicates; ``read_sweep`` and ``format_sweep`` read the results back.

The code sits in rooms by role, each importing only those below it:
``plots`` and ``sweep``; ``certification``; ``engine`` (the event loop);
``allocators`` (with the one registry of their names and fits) and
``schedulers``; ``metrics`` and ``workload`` (SWF traces).
"""

from ..machine import Machine, parse_machine
from .allocators import (
    DRAGONFLY_ALLOCATORS,
    GRAPH_ORDERS,
    NETWORK_METHODS,
    Allocation,
    Allocator,
    DragonflyAllocator,
    DragonflyLayout,
    FreeListAllocator,
    KSubsetAllocator,
    NetworkOneDAllocator,
    OneDAllocator,
    RandomAllocator,
    SlurmBlockAllocator,
    SlurmTreeAllocator,
    check_allocator,
    dragonfly_layout,
    fitting_allocators,
    parse_allocator,
)
from .certification import (
    DEFAULT_ALLOCATORS,
    EXACT_MAX_FREE,
    AllocatorSummary,
    Certification,
    CertificationFile,
    DecisionRow,
    SizeSummary,
    canonical_key,
    certify,
    default_allocators,
    default_driver,
    read_certification,
)
from .engine import (
    ARRIVAL,
    DISPATCH,
    FINISH,
    Decision,
    Event,
    EventQueue,
    RuntimeModel,
    SimulationResult,
    TimePerDistance,
    parse_runtime_model,
    simulate,
)
from .metrics import (
    DEFAULT_HALF_LIFE,
    LOCALITY_METRICS,
    SLOWDOWN_THRESHOLD,
    FairShare,
    FairStart,
    JobRecord,
    LocalityContext,
    Summary,
    allocation_metrics,
    bounding_cube,
    components,
    fair_start_summary,
    fair_start_time,
    job_locality,
    locality_context,
    locality_summary,
    min_bounding_cube,
    summarise,
)
from .plots import (
    plot_gap_histogram,
    plot_improvement_by_size,
    plot_machine,
    plot_network,
    plot_sweep,
    plot_sweep_lines,
)
from .schedulers import (
    EASY,
    FCFS,
    SCHEDULERS,
    Conservative,
    Cplant,
    CplantCap72,
    CplantConservative,
    CplantDynamic,
    CplantNoHog,
    CplantQueue,
    CplantStarve72,
    CplantTweaks,
    Scheduler,
    make_scheduler,
)
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
    recover_sweep,
    run_sweep,
)
from .workload import (
    LUBLIN_CLASSES,
    Job,
    LublinClass,
    Trace,
    TraceReport,
    copy_stride,
    lublin_workload,
    read_swf,
    replicate,
    scale_up,
    work_multiple,
    write_swf,
)

__all__ = [
    "ARRIVAL",
    "DEFAULT_ALLOCATORS",
    "DEFAULT_HALF_LIFE",
    "DISPATCH",
    "DRAGONFLY_ALLOCATORS",
    "EXACT_MAX_FREE",
    "EASY",
    "FCFS",
    "FINISH",
    "GRAPH_ORDERS",
    "LOCALITY_METRICS",
    "LUBLIN_CLASSES",
    "NETWORK_METHODS",
    "SCHEDULERS",
    "SLOWDOWN_THRESHOLD",
    "Allocation",
    "Allocator",
    "AllocatorSummary",
    "Certification",
    "CertificationFile",
    "Configuration",
    "Conservative",
    "Cplant",
    "CplantCap72",
    "CplantConservative",
    "CplantDynamic",
    "CplantNoHog",
    "CplantQueue",
    "CplantStarve72",
    "CplantTweaks",
    "Decision",
    "DecisionRow",
    "DragonflyAllocator",
    "DragonflyLayout",
    "Event",
    "EventQueue",
    "FairShare",
    "FairStart",
    "FreeListAllocator",
    "Job",
    "JobRecord",
    "KSubsetAllocator",
    "LocalityContext",
    "LublinClass",
    "Machine",
    "NetworkOneDAllocator",
    "OneDAllocator",
    "RandomAllocator",
    "RuntimeModel",
    "SlurmBlockAllocator",
    "SlurmTreeAllocator",
    "Scheduler",
    "SimulationResult",
    "SizeSummary",
    "Summary",
    "SweepConfig",
    "SweepReport",
    "TimePerDistance",
    "Trace",
    "TraceReport",
    "allocation_metrics",
    "bounding_cube",
    "canonical_key",
    "certify",
    "check_allocator",
    "components",
    "copy_stride",
    "default_allocators",
    "default_driver",
    "dragonfly_layout",
    "fair_start_summary",
    "fair_start_time",
    "fitting_allocators",
    "format_sweep",
    "job_locality",
    "load_sweep",
    "locality_context",
    "locality_summary",
    "lublin_workload",
    "make_certify_sweep",
    "make_scheduler",
    "make_sweep",
    "min_bounding_cube",
    "parse_allocator",
    "parse_machine",
    "parse_runtime_model",
    "plot_gap_histogram",
    "plot_improvement_by_size",
    "plot_machine",
    "plot_network",
    "plot_sweep",
    "plot_sweep_lines",
    "read_certification",
    "read_jobs",
    "read_sweep",
    "read_swf",
    "recover_sweep",
    "replicate",
    "run_sweep",
    "scale_up",
    "simulate",
    "summarise",
    "work_multiple",
    "write_swf",
]
