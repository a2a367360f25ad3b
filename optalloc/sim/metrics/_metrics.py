"""Per-job records and summary metrics of a simulation.

Locality of an allocation (Leung et al. 2002, sec. 2.3 and 3; Bender et
al. 2005, sec. 5):

- W, the sum of pairwise hop distances of the job's nodes, and the average
  pairwise distance W / C(k, 2) (0 for one node); on a torus axis the
  distance is the wrap distance min(|d|, n - |d|);
- bounding box: extent per axis (on a torus axis the shortest arc of the
  ring holding the job's coordinates) and its volume;
- span, when an ordering ranks the nodes: linear span max r - min r + 1 and
  ring span N - (largest run of ranks between two of the job's, around
  the ring) (Leung et al. 2002, sec. 2.3).

Scheduling metrics: wait = start - submit; flow (response) time = end -
submit; bounded slowdown = max(1, flow / max(run, 10 s)), the usual guard
against very short jobs (Feitelson et al. 1997).

Output: CSV and JSON lines of the records, the job layout of Batsim's
``_jobs.csv`` (which evalys' ``JobSet.from_csv`` reads), and pandas
DataFrames (pandas is optional, imported when asked for).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import operator
from dataclasses import dataclass, field

import numpy as np

from ..._files import output_file
from ..._gridweight import axis_pair_sum
from ._columns import columns_of
from ._fairness import fair_start_summary
from ._locality import locality_summary
from ._record import network_weight

__all__ = ["SLOWDOWN_THRESHOLD", "JobRecord", "Summary", "allocation_metrics", "summarise"]

#: Run time floor (seconds) of the bounded slowdown.
SLOWDOWN_THRESHOLD = 10.0


def _axis_extent(c: np.ndarray, n: int, wrap: bool) -> int:
    lo, hi = int(c.min()), int(c.max())
    if not wrap:
        return hi - lo + 1
    u = np.unique(c)
    gaps = np.diff(np.append(u, u[0] + n))  # steps between used coordinates, around the ring
    return int(n - gaps.max() + 1)


def _spans(r: np.ndarray, n: int) -> tuple[int, int]:
    r = np.sort(r)
    linear = int(r[-1] - r[0] + 1)
    inner = int((np.diff(r) - 1).max()) if len(r) > 1 else 0
    ring = int(n - max(inner, n - 1 - int(r[-1]) + int(r[0])))  # Leung et al. 2002, sec. 2.3
    return linear, ring


def allocation_metrics(machine, nodes, ranks=None) -> dict:
    """Locality of one allocation on a machine.

    Parameters
    ----------
    machine : Machine
    nodes : array_like of int
        The job's node ids.
    ranks : numpy.ndarray, optional
        Rank of every node id along an ordering; gives the spans.

    Returns
    -------
    dict
        ``W``, ``avg_l1``, ``bbox`` (extent per axis; None on a network,
        whose nodes have no coordinates), ``bbox_volume`` (None on a network),
        ``span`` and ``ring_span`` (None without ``ranks``).

    Examples
    --------
    >>> from optalloc.sim import Machine
    >>> m = allocation_metrics(Machine((4, 4)), [0, 1, 4, 5])
    >>> m["W"], m["avg_l1"], m["bbox"]
    (8.0, 1.3333333333333333, (2, 2))
    >>> allocation_metrics(Machine((4, 4), torus=True), [0, 12])["W"]
    1.0
    """
    ids = np.asarray(nodes, dtype=np.int64)
    k = len(ids)
    if not machine.is_grid:
        return _network_metrics(machine, ids, ranks)
    s = np.sort(machine.coords[ids], axis=0)
    if k == 1:
        w, bbox = 0.0, [1] * machine.ndim
    else:
        # a sorted axis: the i-th smallest value counts + in i pairs, - in k - 1 - i
        w = float((s * (2 * np.arange(k) - k + 1)[:, None]).sum())
        bbox = (s[-1] - s[0] + 1).tolist()
        if machine.is_torus:
            for ax, (n, wrap) in enumerate(zip(machine.shape, machine.torus)):
                if wrap:
                    c = s[:, ax]
                    w += axis_pair_sum(c, n, True) - axis_pair_sum(c, n, False)
                    bbox[ax] = _axis_extent(c, n, True)
    pairs = k * (k - 1) / 2
    span = ring_span = None
    if ranks is not None:
        span, ring_span = _spans(ranks[ids], machine.size)
    return {"W": w, "avg_l1": w / pairs if pairs else 0.0, "bbox": tuple(bbox),
            "bbox_volume": int(math.prod(bbox)), "span": span, "ring_span": ring_span}


def _network_metrics(machine, ids: np.ndarray, ranks) -> dict:
    """:func:`allocation_metrics` on a network: W over the machine's distances
    (shortest paths; in blocks of rows for a large job); no bounding box (None), nodes have no coordinates."""
    k = len(ids)
    w = network_weight(machine, ids)
    pairs = k * (k - 1) / 2
    span = ring_span = None
    if ranks is not None:
        span, ring_span = _spans(ranks[ids], machine.size)
    return {"W": w, "avg_l1": w / pairs if pairs else 0.0, "bbox": None, "bbox_volume": None, "span": span,
            "ring_span": ring_span}


@dataclass(frozen=True, slots=True)
class JobRecord:
    """What happened to one job.

    Attributes
    ----------
    job_id, submit, start, end : int, float, float, float
        Job number and times (seconds).
    wait, flow, slowdown : float
        ``start - submit``, ``end - submit``, bounded slowdown
        ``max(1, flow / max(run, 10))``.
    run, estimate : float
        Time the job ran, and its estimate.
    procs : int
        Processors (k).
    killed : bool
        Cut at its estimate (run time longer than the estimate, killing on).
    W, avg_l1 : float
        Sum and average of pairwise distances of its nodes, in the
        machine's metric (hops, wrap hops on a torus, shortest paths on a
        network).
    bbox : tuple of int or None
        Bounding box extent per axis; ``bbox_volume`` its product (both
        None on a network).
    span, ring_span : int or None
        Spans along the ordering, when there is one.
    n_tied : int or None
        Candidates tied for the best score (MC1x1), else None.
    nodes : tuple of int
        The node ids the job ran on.
    stretch_span, bbox_half_perimeter, bbox_cube, bbox_cube_ratio, components
        Locality of Leung et al. (2002, sec. 3): ring span over k, sum of
        the bounding box's extents, smallest cube holding the job, that
        cube over the smallest possible one, connected components (see
        :func:`optalloc.sim.job_locality`); None where undefined.
    user : int or None
        The job's user id (SWF field 12).
    fair_start : float or None
        Fair-start time (SAND2003-3702, ch. 7), when the simulation
        computes it (``fair_start=True``).
    """

    job_id: int
    submit: float
    start: float
    end: float
    wait: float
    flow: float
    slowdown: float
    run: float
    estimate: float
    procs: int
    killed: bool
    W: float
    avg_l1: float
    bbox: tuple
    bbox_volume: int
    span: int | None
    ring_span: int | None
    n_tied: int | None
    nodes: tuple = field(repr=False)
    stretch_span: float | None = None
    bbox_half_perimeter: int | None = None
    bbox_cube: int | None = None
    bbox_cube_ratio: float | None = None
    components: int | None = None
    user: int | None = None
    fair_start: float | None = None

    def to_dict(self) -> dict:
        """Plain-Python view (JSON-ready)."""
        out = dataclasses.asdict(self)
        out["bbox"] = None if self.bbox is None else list(self.bbox)
        out["nodes"] = list(self.nodes)
        return out


def _mean(values):
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


@dataclass(frozen=True)
class Summary:
    """Summary of a simulation.

    Attributes
    ----------
    jobs : int
        Jobs simulated.
    makespan : float
        Last end minus first submit.
    utilisation : float
        Busy node-seconds over ``nodes * makespan``.
    mean_wait, max_wait, mean_flow, mean_slowdown, max_slowdown : float
        Scheduling metrics over all jobs.
    mean_W, mean_avg_l1, mean_bbox_volume : float
        Locality means over all jobs (one-node jobs count with 0);
        ``mean_bbox_volume`` is None on a network.
    mean_avg_l1_multi : float or None
        Mean average pairwise distance over jobs of two or more nodes.
    mean_span, mean_ring_span : float or None
        Span means, when an ordering is present.
    killed : int
        Jobs cut at their estimate.
    decisions : int
        Allocation decisions (one per job).
    tie_decisions : int or None
        Decisions where more than one candidate had the best score (MC1x1;
        None when the allocator reports no ties).
    tie_share : float or None
        ``tie_decisions / decisions``.
    mean_tied : float or None
        Mean number of tied candidates over the decisions with a tie
        (Johnson, Bunde and Leung, Fig. 4).
    allocator_time : float
        Seconds spent in the allocator's ``select``.
    event_time : float
        Seconds of the simulation outside the allocator: events, the
        scheduler, the machine's state, the records and the summary.
    mean_stretch_span, mean_bbox_half_perimeter, mean_bbox_cube, mean_bbox_cube_ratio, mean_components
        Means of the locality metrics of Leung et al. (2002, sec. 3);
        ``max_M``, ``sum_sq_M``, ``run_weighted_M`` and ``per_proc_M``:
        maximum, sum of squares, run-time-weighted average and average of
        M / k, for M in ring_span, stretch_span, bbox_volume,
        bbox_half_perimeter, bbox_cube and components (None where no job
        has M; see :func:`optalloc.sim.locality_summary`).
    fair_start_missed_share, fair_start_mean_miss, fair_start_max_miss
        Share of the jobs that started after their fair-start time, and the
        mean and largest lateness (seconds) of those jobs; None when fair
        starts were not computed.
    """

    jobs: int
    makespan: float
    utilisation: float
    mean_wait: float
    max_wait: float
    mean_flow: float
    mean_slowdown: float
    max_slowdown: float
    mean_W: float
    mean_avg_l1: float
    mean_avg_l1_multi: float | None
    mean_bbox_volume: float | None
    mean_span: float | None
    mean_ring_span: float | None
    killed: int
    decisions: int
    tie_decisions: int | None
    tie_share: float | None
    mean_tied: float | None
    allocator_time: float = field(default=0.0, compare=False)
    mean_stretch_span: float | None = None
    mean_bbox_half_perimeter: float | None = None
    mean_bbox_cube: float | None = None
    mean_bbox_cube_ratio: float | None = None
    mean_components: float | None = None
    max_ring_span: float | None = None
    sum_sq_ring_span: float | None = None
    run_weighted_ring_span: float | None = None
    per_proc_ring_span: float | None = None
    max_stretch_span: float | None = None
    sum_sq_stretch_span: float | None = None
    run_weighted_stretch_span: float | None = None
    per_proc_stretch_span: float | None = None
    max_bbox_volume: float | None = None
    sum_sq_bbox_volume: float | None = None
    run_weighted_bbox_volume: float | None = None
    per_proc_bbox_volume: float | None = None
    max_bbox_half_perimeter: float | None = None
    sum_sq_bbox_half_perimeter: float | None = None
    run_weighted_bbox_half_perimeter: float | None = None
    per_proc_bbox_half_perimeter: float | None = None
    max_bbox_cube: float | None = None
    sum_sq_bbox_cube: float | None = None
    run_weighted_bbox_cube: float | None = None
    per_proc_bbox_cube: float | None = None
    max_components: float | None = None
    sum_sq_components: float | None = None
    run_weighted_components: float | None = None
    per_proc_components: float | None = None
    fair_start_missed_share: float | None = None
    fair_start_mean_miss: float | None = None
    fair_start_max_miss: float | None = None
    event_time: float = field(default=0.0, compare=False)

    def to_dict(self) -> dict:
        """Plain-Python view (JSON-ready)."""
        return dataclasses.asdict(self)


def summarise(records, n_nodes: int, allocator_time: float = 0.0, event_time: float = 0.0) -> Summary:
    """Summary of job records on a machine of ``n_nodes`` nodes.

    Examples
    --------
    >>> summarise([], 4).jobs
    0
    """
    recs = columns_of(records)
    if not len(recs):
        return Summary(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, None, 0.0, None, None, 0, 0,
                       None, None, None, allocator_time, event_time=event_time)
    col = {name: recs.column(name) for name in ("end", "submit", "procs", "run", "wait", "flow", "slowdown", "W",
                                                "avg_l1", "bbox_volume", "span", "ring_span", "killed", "n_tied")}
    makespan = max(col["end"]) - min(col["submit"])
    busy = sum(map(operator.mul, col["procs"], col["run"]))
    tied = [t for t in col["n_tied"] if t is not None]
    if tied:
        with_tie = [t for t in tied if t > 1]
        tie_decisions = len(with_tie)
        tie_share = tie_decisions / len(tied)
        mean_tied = float(np.mean(with_tie)) if with_tie else None
    else:
        tie_decisions = tie_share = mean_tied = None
    multi = [a for a, k in zip(col["avg_l1"], col["procs"]) if k > 1]
    return Summary(
        jobs=len(recs),
        makespan=float(makespan),
        utilisation=float(busy / (n_nodes * makespan)) if makespan > 0 else 0.0,
        mean_wait=_mean(col["wait"]),
        max_wait=float(max(col["wait"])),
        mean_flow=_mean(col["flow"]),
        mean_slowdown=_mean(col["slowdown"]),
        max_slowdown=float(max(col["slowdown"])),
        mean_W=_mean(col["W"]),
        mean_avg_l1=_mean(col["avg_l1"]),
        mean_avg_l1_multi=_mean(multi),
        mean_bbox_volume=_mean(col["bbox_volume"]),
        mean_span=_mean(col["span"]),
        mean_ring_span=_mean(col["ring_span"]),
        killed=sum(col["killed"]),
        decisions=len(recs),
        tie_decisions=tie_decisions,
        tie_share=tie_share,
        mean_tied=mean_tied,
        allocator_time=float(allocator_time),
        event_time=float(event_time),
        **locality_summary(recs),
        **fair_start_summary(recs),
    )


CSV_COLUMNS = tuple(f.name for f in dataclasses.fields(JobRecord))


def _open_new(path, overwrite):
    """The file to write ``path`` through: written whole or not at all
    (``optalloc._files``; an existing file refused without ``overwrite``)."""
    return output_file(path, overwrite=overwrite, newline="")


def write_csv(records, path, *, overwrite=False) -> None:
    """Records as CSV: one row per job; ``bbox`` and ``nodes`` space-separated."""
    with _open_new(path, overwrite) as fh:
        w = csv.writer(fh)
        w.writerow(CSV_COLUMNS)
        for r in records:
            row = []
            for name in CSV_COLUMNS:
                v = getattr(r, name)
                if isinstance(v, tuple):
                    v = " ".join(map(str, v))
                elif v is None:
                    v = ""
                row.append(v)
            w.writerow(row)


def write_jsonl(records, path, *, overwrite=False, summary=None) -> None:
    """Records as JSON lines; the summary, when given, is the last line
    (``{"summary": {...}}``)."""
    with _open_new(path, overwrite) as fh:
        for r in records:
            fh.write(json.dumps(r.to_dict()) + "\n")
        if summary is not None:
            fh.write(json.dumps({"summary": summary.to_dict()}) + "\n")


# ---------------------------------------------------------------- DataFrames


def require_pandas(what: str):
    """The pandas module, or a one-line ImportError saying how to install it."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(f"{what} needs pandas: pip install pandas (or pip install 'optalloc[data]')") from None
    return pd


#: JobRecord fields that may be None: nullable integer columns in a DataFrame.
_NULLABLE_INT = ("span", "ring_span", "n_tied", "bbox_half_perimeter", "bbox_cube", "components", "user")


def records_frame(records, what="to_pandas()"):
    """A DataFrame of job records: one row per job, one column per
    :class:`JobRecord` field (``bbox`` and ``nodes`` hold tuples; the integer
    fields that may be None (``span``, ``ring_span``, ``n_tied``, the
    bounding-box and component counts, ``user``) are nullable integers,
    ``<NA>`` for None)."""
    pd = require_pandas(what)
    recs = list(records)
    data = {name: [getattr(r, name) for r in recs] for name in CSV_COLUMNS}
    frame = pd.DataFrame(data, columns=list(CSV_COLUMNS))
    for name in _NULLABLE_INT:
        frame[name] = pd.array(data[name], dtype="Int64")
    for name in ("bbox", "nodes"):
        frame[name] = pd.Series(data[name], dtype=object)
    return frame


# ---------------------------------------------------------------- Batsim / evalys

#: Columns of Batsim's ``_jobs.csv``, in Batsim's order (docs/output-jobs.rst of
#: Batsim); evalys' ``JobSet.from_csv`` reads them.
BATSIM_COLUMNS = ("job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
                  "requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time",
                  "waiting_time", "turnaround_time", "stretch", "consumed_energy", "allocated_resources",
                  "metadata")


def interval_set(ids) -> str:
    """Node ids as a canonical Batsim interval set: ascending, disjoint
    ``a-b`` ranges (a lone id as ``a``) separated by spaces.

    Examples
    --------
    >>> interval_set([8, 0, 1, 2, 3, 10, 11])
    '0-3 8 10-11'
    >>> interval_set([])
    ''
    """
    out, run = [], None
    for v in sorted({int(i) for i in ids}):
        if run is not None and v == run[1] + 1:
            run[1] = v
            continue
        if run is not None:
            out.append(run)
        run = [v, v]
    if run is not None:
        out.append(run)
    return " ".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


def batsim_row(r: JobRecord, workload_name: str) -> dict:
    """One job in the columns of Batsim's ``_jobs.csv``."""
    return {"job_id": r.job_id, "workload_name": workload_name, "profile": "", "submission_time": r.submit,
            "requested_number_of_resources": r.procs, "requested_time": r.estimate, "success": int(not r.killed),
            "final_state": "COMPLETED_WALLTIME_REACHED" if r.killed else "COMPLETED_SUCCESSFULLY",
            "starting_time": r.start, "execution_time": r.end - r.start, "finish_time": r.end,
            "waiting_time": r.wait, "turnaround_time": r.flow, "stretch": r.flow / (r.end - r.start),
            "consumed_energy": -1, "allocated_resources": interval_set(r.nodes), "metadata": ""}


def write_batsim_csv(records, path, *, overwrite=False, workload_name="w0") -> None:
    """Records as CSV in the job layout of Batsim's ``_jobs.csv`` (see
    :meth:`SimulationResult.to_batsim_csv`)."""
    if not isinstance(workload_name, str) or not workload_name or any(c in workload_name for c in ",\n\r"):
        raise ValueError(f"`workload_name` must be a non-empty name without commas or line ends, "
                         f"got {workload_name!r}")
    with _open_new(path, overwrite) as fh:
        w = csv.DictWriter(fh, fieldnames=BATSIM_COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in records:
            w.writerow(batsim_row(r, workload_name))

