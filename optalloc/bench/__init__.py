"""Performance figures, each against a baseline run in the same process.

``optalloc bench`` prints them.  Absolute times depend on the machine; the
ratios (and the check that both sides agree) are what the docs quote.  The
benchmarks are a layer above the library: they call its public names only.

Suites (:data:`SUITES`), one module each:

``heuristics``
    the k-subset heuristics against plain-Python baselines
    (:func:`run`; the baselines are straightforward loops kept in this
    package);
``exact``
    the exact solver against the plain pairwise MIP, the profile search,
    the box search and the PTAS (:func:`run_exact`, :func:`run_profiles`,
    :func:`run_box`, :func:`run_ptas`), and the proven gaps on 16 x 16,
    32 x 32 and 8 x 8 x 8 meshes (:func:`run_goals`);
``ptas``
    the strip-enumeration PTAS: exact with m = k against brute force,
    m = 3 and 4 and the default m on 40 to 100 points against the exact
    solver (:func:`run_ptas_suite`);
``qap``
    GRASP and tabu search on QAPLIB and mapping instances against scipy
    (:func:`run_qap`);
``sim``
    the simulator and the certification on the NASA trace
    (:func:`run_sim_bench`);
``curves``
    orderings against reference values and the curves (:func:`run_curves`);
``topologies``
    the exact solver on a torus against the mesh with the same free nodes
    and against the pairwise MIP (:func:`run_topologies`);
``scale``
    machines of today's size, 8,000 to 33,000 nodes: one decision of each
    per-decision method, the structured networks, workloads, the event
    engine, orderings and whole simulations against their targets
    (:mod:`optalloc.bench.scale`);
``mapping``
    the multilevel task mapper on stencils of 1,024 to 16,384 tasks and
    irregular patterns, side by side with the consecutive mapping,
    Scotch and Mt-KaHyPar when they are installed (``optalloc[peers]``);
    hop-bytes as a multiple of the proven traffic bound, and seconds
    (:mod:`optalloc.bench._mapping_scale`);
``networks``
    exact on trees of switches and tori, and Slurm's topologies and
    allocators (:mod:`optalloc.bench.networks`);
``startup``
    the wall time of ``optalloc --help`` and ``import optalloc`` in a fresh
    interpreter against ``python -c pass``, and the check that they load
    no package of :data:`HEAVY` (:func:`run_startup`).

:func:`run_bench` runs one suite or all of them and returns one
:class:`BenchTable` per suite; :class:`BenchRow` and :func:`format_table`
are the row and the table of the ratio suites.  :func:`half_free_mesh`,
:func:`random_free_mesh` and :func:`nearly_empty_mesh` generate the
instances.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._common import BenchRow, format_table, half_free_mesh, nearly_empty_mesh, random_free_mesh
from ._curves import OrderBenchRow, format_curves_table, run_curves
from ._exact import BOX_CASES, PROFILE_CASES, run_box, run_exact, run_exact_suite, run_profiles, run_ptas
from ._goals import GOAL_CASES, run_goals
from ._heuristics import run
from ._ptas import run_ptas_suite
from ._qap import QAPBenchRow, format_qap_table, qaplib_dir, run_qap
from ._sim import NASA_TRACE, nasa_trace_path, run_sim_bench
from ._startup import HEAVY, StartupRow, format_startup_table, run_startup
from ._topologies import run_topologies

__all__ = [
    "BOX_CASES",
    "GOAL_CASES",
    "HEAVY",
    "NASA_TRACE",
    "PROFILE_CASES",
    "SUITES",
    "BenchRow",
    "BenchTable",
    "OrderBenchRow",
    "QAPBenchRow",
    "StartupRow",
    "format_curves_table",
    "format_qap_table",
    "format_startup_table",
    "format_table",
    "half_free_mesh",
    "nasa_trace_path",
    "nearly_empty_mesh",
    "qaplib_dir",
    "random_free_mesh",
    "run",
    "run_bench",
    "run_box",
    "run_curves",
    "run_exact",
    "run_exact_suite",
    "run_goals",
    "run_profiles",
    "run_ptas",
    "run_ptas_suite",
    "run_qap",
    "run_sim_bench",
    "run_startup",
    "run_topologies",
]

#: The suites, in the order ``run_bench("all")`` runs them.
SUITES = ("heuristics", "exact", "ptas", "qap", "sim", "curves", "topologies", "startup", "scale", "networks", "mapping")

#: default time limit (seconds) per solve of the suites that take one
DEFAULT_LIMITS = {"exact": 60.0, "ptas": 60.0, "qap": 2.0, "curves": 30.0, "topologies": 60.0}


@dataclass
class BenchTable:
    """The rows of one suite, their text table, and whether every check passed."""

    suite: str
    rows: list
    text: str
    ok: bool


def run_bench(suite: str = "heuristics", *, quick: bool = False, repeat: int = 5, limit: float | None = None,
              progress=None, parts=None) -> list[BenchTable]:
    """Run one suite (or ``"all"``): one :class:`BenchTable` per suite that
    produced rows (the ``sim`` suite has none without the NASA trace).

    Parameters
    ----------
    suite : str
        One of :data:`SUITES`, or ``"all"``.
    quick : bool
        Small instances (seconds per suite).
    repeat : int
        heuristics: runs of each side of a case, the best time kept;
        startup: runs of each command and of the baseline, the medians
        kept (at most 3 with ``quick``).
    limit : float, optional
        Seconds per exact solve (default 60; also in the ptas and
        topologies suites),
        per QAP run (2) or per ordering search (30); not for the
        heuristics and startup suites.
    progress : callable, optional
        Called with a short text before each case.
    parts : sequence of str, optional
        scale and networks: the parts to run
        (:data:`optalloc.bench.scale.PARTS`,
        :data:`optalloc.bench.networks.PARTS`; default all).

    Raises
    ------
    ValueError
        Unknown suite, ``repeat < 1``, a limit that is not positive or
        given to the heuristics suite alone.
    """
    if suite != "all" and suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; choose one of {', '.join(SUITES)} or all")
    if repeat < 1:
        raise ValueError(f"`repeat` must be at least 1, got {repeat}")
    if limit is not None and suite in ("heuristics", "startup"):
        raise ValueError("`limit` applies to the exact, ptas, qap, curves and all suites")
    if limit is not None and not limit > 0:
        raise ValueError(f"`limit` must be positive, got {limit}")
    if parts is not None and suite not in ("scale", "networks"):
        raise ValueError("`parts` applies to the scale and networks suites")
    tables = []
    for name in SUITES if suite == "all" else (suite,):
        lim = limit if limit is not None else DEFAULT_LIMITS.get(name)
        if name == "heuristics":
            rows, text = run(quick=quick, repeat=repeat, progress=progress), format_table
            ok = all(r.agree for r in rows)
        elif name == "exact":
            rows, text = run_exact_suite(quick=quick, limit=lim, progress=progress), format_table
            ok = all(r.agree for r in rows)
        elif name == "ptas":
            rows, text = run_ptas_suite(quick=quick, limit=lim, progress=progress), format_table
            ok = all(r.agree for r in rows)
        elif name == "qap":
            rows, text, ok = run_qap(quick=quick, limit=lim, progress=progress), format_qap_table, True
        elif name == "sim":
            rows, text = run_sim_bench(quick=quick, progress=progress), format_table
            ok = all(r.agree for r in rows)
        elif name == "topologies":
            rows, text = run_topologies(quick=quick, limit=lim, progress=progress), format_table
            ok = all(r.agree for r in rows)
        elif name == "scale":
            from .scale import run_scale

            rows, text = run_scale(quick=quick, parts=parts, progress=progress), format_table
            ok = all(r.agree for r in rows)
        elif name == "mapping":
            from ._mapping_scale import format_scale, measure
            rows, text = measure(quick=quick, progress=progress), format_scale
            ok = all(_mapping_ok(r) for r in rows)
        elif name == "networks":
            from .networks import run_networks
            rows, text = run_networks(quick=quick, parts=parts, progress=progress), format_table
            ok = all(r.agree for r in rows)
        elif name == "startup":
            rows, text = run_startup(quick=quick, repeat=repeat, progress=progress), format_startup_table
            ok = all(r.ok for r in rows)
        else:
            rows, text = run_curves(quick=quick, limit=lim, progress=progress), format_curves_table
            ok = all(r.ok for r in rows)
        if rows:
            tables.append(BenchTable(name, rows, text(rows), ok))
    return tables


def _mapping_ok(row) -> bool:
    """The multilevel mapping is no worse than any other mapper that finished."""
    ours = row.results["multilevel"]["hop_bytes"]
    return all(x["hop_bytes"] is None or ours <= x["hop_bytes"] + 1e-9 for x in row.results.values())
