"""The result of a certification: per-decision rows, summaries, tables.

:class:`DecisionRow` holds one decision of the driver (the W of every
allocator and the bracket [lower, upper] of the optimum);
:class:`Certification` holds them all, with per-allocator
(:class:`AllocatorSummary`) and per-size (:class:`SizeSummary`)
summaries, the breach check, the gap table, and CSV / JSON-lines output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..._files import output_path
from ..._table import text_table
from ..engine import SimulationResult
from ..metrics import require_pandas
from ._files import _RowFile
from ._rows import TOL, DecisionRow, DecisionRows, _num

__all__ = ["AllocatorSummary", "Certification", "DecisionRow", "SizeSummary"]

@dataclass(frozen=True)
class AllocatorSummary:
    """Ratios of one allocator over all decisions.

    ``mean_ratio`` and ``max_ratio`` use the certified worst case (W / LB)
    where only a bracket is known; ``mean_ratio_low`` the best case
    (W / UB); the two agree when every decision is proven.
    """

    name: str
    decisions: int
    mean_ratio: float
    mean_ratio_low: float
    max_ratio: float
    share_optimal: float
    share_best: float
    mean_W: float

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class SizeSummary:
    """Ratios and W of one allocator for the jobs of sizes ``k_min..k_max``."""

    name: str
    k_min: int
    k_max: int
    decisions: int
    mean_ratio: float
    max_ratio: float
    share_optimal: float
    mean_W: float

    @property
    def label(self) -> str:
        return str(self.k_min) if self.k_min == self.k_max else f"{self.k_min}-{self.k_max}"

    def to_dict(self) -> dict:
        return {**{k: getattr(self, k) for k in self.__dataclass_fields__}, "label": self.label}


def size_buckets(ks, buckets):
    """(lo, hi) job-size ranges holding the values ``ks``."""
    present = sorted({int(k) for k in ks})
    if buckets == "each":
        return [(k, k) for k in present]
    if buckets == "pow2":  # 1, 2, 3-4, 5-8, 9-16, ...
        out = []
        for k in present:
            hi = 1 << max(0, (k - 1).bit_length())
            lo = hi // 2 + 1 if hi > 1 else 1
            if not out or out[-1] != (lo, hi):
                out.append((lo, hi))
        return out
    try:
        if isinstance(buckets, str):
            raise TypeError
        edges = sorted(int(e) for e in buckets)
    except (TypeError, ValueError):
        raise ValueError(f"`buckets` must be 'pow2', 'each' or a list of upper sizes, got {buckets!r}") from None
    if not edges or edges[0] < 1:
        raise ValueError(f"`buckets` upper sizes must be positive, got {buckets!r}")
    if present and edges[-1] < present[-1]:
        edges.append(present[-1])
    out, lo = [], 1
    for hi in edges:
        if hi >= lo and any(lo <= k <= hi for k in present):
            out.append((lo, hi))
        lo = max(lo, hi + 1)
    return out



@dataclass(frozen=True)
class Certification(DecisionRows):
    """Per-decision comparison of allocators against certified optima.

    Attributes
    ----------
    rows : tuple of DecisionRow
        One per decision of the driver.
    names : tuple of str
        The allocators compared; the driver is among them.
    driver : str
        The allocator that placed the jobs (the situation algorithm).
    simulation : SimulationResult
        The driver's simulation (per-job records).
    exact : bool
        Whether the exact solver certified the decisions.
    time_limit : float or None
        Seconds per exact solve.
    cache_hits : int
        Decisions answered from the exact solver's cache.
    exact_seconds, compare_seconds, runtime : float
        Time in the exact solver, in the other allocators, and in all
        (this run only: decisions read back from a resumed file add none).
    resumed : int
        Decisions whose bounds were read back from the file of an earlier
        run (``certify(..., resume=True)``) instead of being solved.
    symmetry_hits : int
        Decisions answered by an earlier one whose free set is its image
        under a symmetry of the metric (translate, reflection, rotation
        around a torus).
    metric : str
        ``"l1"`` (mesh), ``"torus"`` or ``"network"``: the distance of W.
    termination : str
        Why the run stopped where it did: ``"optimal"`` (every decision
        proven), ``"time_limit"`` (some exact solves stopped at
        ``time_limit``; their rows hold the bracket they proved),
        ``"total_time_limit"`` (the run's ``total_time_limit`` was spent;
        the decisions not solved by then hold cheap bounds), ``"bounds"``
        (``exact=False``) or ``"bracket"`` (a solver stopped otherwise).
    total_time_limit : float or None
        Seconds for the whole run.
    """

    rows: tuple
    names: tuple
    driver: str
    simulation: SimulationResult = field(repr=False)
    exact: bool = True
    time_limit: float | None = None
    cache_hits: int = 0
    exact_seconds: float = 0.0
    compare_seconds: float = 0.0
    runtime: float = field(default=0.0, compare=False)
    resumed: int = 0
    symmetry_hits: int = 0
    metric: str = "l1"
    termination: str = "optimal"
    total_time_limit: float | None = None

    @property
    def trace_report(self):
        """How the trace was read (:class:`TraceReport`): the jobs kept, and
        those skipped (larger than the machine, bad lines, ...) with a count
        per reason, as :attr:`SimulationResult.trace_report`.

        Examples
        --------
        >>> from optalloc.sim import Job, Trace, TraceReport, certify
        >>> trace = Trace([Job(1, 0, 10, 3)], max_procs=16, report=TraceReport(lines=2, jobs=1, oversize_skipped=1))
        >>> cert = certify(trace, "4x4", allocators=("mm",))
        >>> cert.trace_report.skipped, cert.to_dict()["trace_report"]["oversize_skipped"]
        (1, 1)
        >>> cert.table().splitlines()[-2]
        'trace: 2 job lines, 1 kept: 1 larger than the machine'
        """
        return self.simulation.trace_report

    @property
    def mean_gap(self) -> float:
        """Mean over the decisions of the certified gap (upper - lower) / upper
        (0 where proven)."""
        gaps = [(r.upper - r.lower) / r.upper if r.upper > 0 else 0.0 for r in self.rows]
        return float(np.mean(gaps)) if gaps else 0.0


    # ------------------------------------------------------------ summaries

    def _stats(self, j, rows):
        ratios = np.array([r.ratios()[j] for r in rows], dtype=float).reshape(-1, 2)
        opt = [r.proven and r.W[j] <= r.upper + TOL * max(1.0, r.upper) for r in rows]
        n = len(rows)
        return ratios, (sum(opt) / n if n else math.nan)

    def summary(self) -> list[AllocatorSummary]:
        """Per allocator: decisions, mean and max ratio, share optimal, share best, mean W.

        Examples
        --------
        >>> from optalloc.sim import Job, certify
        >>> cert = certify([Job(1, 0, 10, 3), Job(2, 1, 10, 5)], "4x4", allocators=("mm", "mc1x1"))
        >>> [(s.name, s.decisions, s.share_optimal) for s in cert.summary()]
        [('mm', 2, 1.0), ('mc1x1', 2, 1.0)]
        """
        out = []
        for j, name in enumerate(self.names):
            ratios, share = self._stats(j, self.rows)
            n = len(self.rows)
            best = sum(name in r.best(self.names) for r in self.rows)
            w = [r.W[j] for r in self.rows]
            out.append(AllocatorSummary(
                name, n,
                mean_ratio=float(ratios[:, 1].mean()) if n else math.nan,
                mean_ratio_low=float(ratios[:, 0].mean()) if n else math.nan,
                max_ratio=float(ratios[:, 1].max()) if n else math.nan,
                share_optimal=share, share_best=best / n if n else math.nan,
                mean_W=float(np.mean(w)) if n else math.nan))
        return out

    def by_size(self, buckets="pow2") -> list[SizeSummary]:
        """Per allocator and job-size bucket (Johnson, Bunde and Leung, Fig. 9).

        Parameters
        ----------
        buckets : "pow2", "each" or sequence of int
            ``"pow2"``: 1, 2, 3-4, 5-8, ...; ``"each"``: every size that
            occurs; a list: upper sizes of consecutive buckets.
        """
        ks = [r.k for r in self.rows]
        out = []
        for lo, hi in size_buckets(ks, buckets):
            rows = [r for r in self.rows if lo <= r.k <= hi]
            for j, name in enumerate(self.names):
                ratios, share = self._stats(j, rows)
                out.append(SizeSummary(name, lo, hi, len(rows), float(ratios[:, 1].mean()),
                                       float(ratios[:, 1].max()), share,
                                       float(np.mean([r.W[j] for r in rows]))))
        return out

    def check(self, tol=TOL) -> list[str]:
        """Breaches of the certificates; an empty list when all is well.

        Every W must be at least the proven lower bound (ratio >= 1 - tol),
        and on proven decisions at most the method's guarantee times the
        optimum.
        """
        bad = []
        for r in self.rows:
            slack = tol * max(1.0, r.upper)
            for name, w, g in zip(self.names, r.W, r.guarantee):
                if w < r.lower - slack:
                    bad.append(f"decision {r.index} (job {r.job_id}, k={r.k}): {name} W={w:g} "
                               f"below the proven bound {r.lower:g}")
                if r.proven and g is not None and w > g * r.upper + slack:
                    bad.append(f"decision {r.index} (job {r.job_id}, k={r.k}): {name} W={w:g} "
                               f"exceeds its guarantee {g:g} x OPT {r.upper:g}")
        return bad

    # ------------------------------------------------------------ output

    def table(self) -> str:
        """The gap table: one line per allocator, then the solver's figures
        (and the jobs of the trace skipped on reading, if any)."""
        head = ("allocator", "decisions", "mean ratio", "max ratio", "optimal", "best", "mean W")
        body = []
        for s in self.summary():
            name = s.name + (" (driver)" if s.name == self.driver else "")
            if abs(s.mean_ratio - s.mean_ratio_low) > TOL:
                mean = f"{s.mean_ratio_low:.4f}-{s.mean_ratio:.4f}"
            else:
                mean = f"{s.mean_ratio:.4f}"
            body.append((name, str(s.decisions), mean, f"{s.max_ratio:.4f}", f"{100 * s.share_optimal:.1f}%",
                         f"{100 * s.share_best:.1f}%", f"{s.mean_W:.2f}"))
        lines = text_table(head, body).split("\n")
        n = len(self.rows)
        sym = f", {self.symmetry_hits} symmetric" if self.symmetry_hits else ""
        gap = f", mean gap {100 * self.mean_gap:.3f}%" if self.n_proven < n else ""
        if self.exact:
            lines.append(f"exact optimum: {self.n_proven}/{n} decisions proven{gap}, {self.cache_hits} cache hits"
                         f"{sym}, {self.exact_seconds:.2f} s" + (f" ({self.resumed} read back from the resumed file)"
                                                                 if self.resumed else ""))
        else:
            lines.append(f"cheap bounds only: {self.n_proven}/{n} decisions proven{gap}")
        if self.termination == "total_time_limit":
            lines.append(f"stopped at the total time limit of {self.total_time_limit:g} s: the decisions not "
                         "solved by then hold cheap bounds")
        if self.trace_report.skipped:  # jobs of the trace that were never run, so never certified
            lines.append(f"trace: {self.trace_report.why_no_jobs()}")
        lines.append(f"total time: {self.runtime:.2f} s on {self.simulation.machine}, "
                     f"scheduler {self.simulation.scheduler}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Everything but the rows, JSON-ready."""
        return {"driver": self.driver, "allocators": list(self.names), "machine": self.simulation.machine,
                "metric": self.metric, "termination": self.termination, "mean_gap": self.mean_gap,
                "symmetry_hits": self.symmetry_hits, "total_time_limit": self.total_time_limit,
                "scheduler": self.simulation.scheduler, "decisions": len(self.rows),
                "proven": self.n_proven, "exact": self.exact, "time_limit": self.time_limit,
                "cache_hits": self.cache_hits, "resumed": self.resumed, "exact_seconds": self.exact_seconds,
                "compare_seconds": self.compare_seconds, "runtime": self.runtime,
                "trace_report": self.trace_report.to_dict(),
                "summary": [{k: _num(v) if isinstance(v, float) else v for k, v in s.to_dict().items()}
                            for s in self.summary()],
                "by_size": [{k: _num(v) if isinstance(v, float) else v for k, v in s.to_dict().items()}
                            for s in self.by_size()],
                "violations": self.check()}

    #: Columns of :meth:`to_pandas`, in order.
    FRAME_COLUMNS = ("decision", "job_id", "time", "k", "n_free", "lower", "upper", "status", "proven", "cached",
                     "exact_seconds", "allocator", "driver", "W", "guarantee", "ratio_low", "ratio_high",
                     "optimal", "best")

    def to_pandas(self):
        """The rows as a pandas DataFrame in long form: one row per decision
        and allocator.

        Columns: ``decision`` (the decision index), ``job_id``, ``time``,
        ``k``, ``n_free``, ``lower`` and ``upper`` (the bracket of the
        optimum), ``status``, ``proven``, ``cached``, ``exact_seconds``
        (of the decision); then, for the allocator, ``allocator`` (its
        name), ``driver`` (True for the allocator that placed the jobs),
        ``W``, ``guarantee`` (NaN when the method has none), ``ratio_low``
        and ``ratio_high`` (the certified interval of W / OPT; inf when the
        lower bound is 0), ``optimal`` (proven optimal on this decision) and
        ``best`` (least W among the allocators).  Rows are ordered by
        decision, then allocator in the order of :attr:`names`; a table
        with one column per allocator is ``frame.pivot(index="decision",
        columns="allocator", values="ratio_high")``.

        pandas is optional: without it this raises ImportError.

        Examples
        --------
        >>> from optalloc.sim import Job, certify
        >>> cert = certify([Job(1, 0, 10, 3), Job(2, 1, 10, 5)], "4x4", allocators=("mm", "mc1x1"))
        >>> df = cert.to_pandas()
        >>> df[["decision", "k", "allocator", "W", "ratio_high"]].values.tolist()
        [[0, 3, 'mm', 4.0, 1.0], [0, 3, 'mc1x1', 4.0, 1.0], [1, 5, 'mm', 16.0, 1.0], [1, 5, 'mc1x1', 16.0, 1.0]]
        """
        pd = require_pandas("Certification.to_pandas()")
        out = []
        for r in self.rows:
            best = r.best(self.names)
            slack = TOL * max(1.0, r.upper)
            for name, w, g, (lo, hi) in zip(self.names, r.W, r.guarantee, r.ratios()):
                out.append((r.index, r.job_id, r.time, r.k, r.n_free, r.lower, r.upper, r.status, r.proven,
                            r.cached, r.exact_seconds, name, name == self.driver, float(w),
                            math.nan if g is None else float(g), lo, hi, r.proven and w <= r.upper + slack,
                            name in best))
        return pd.DataFrame.from_records(out, columns=list(self.FRAME_COLUMNS))

    def to_csv(self, path, *, overwrite=False) -> None:
        """One row per decision; W, ratio_low and ratio_high of each allocator.

        Never replaces a file unless ``overwrite`` is True.
        """
        with output_path(path, overwrite=overwrite) as tmp, \
                _RowFile(tmp, self.names, kind="csv", metric=self.metric) as out:
            for r in self.rows:
                out.write(r)

    def to_jsonl(self, path, *, overwrite=False) -> None:
        """One JSON object per decision, then ``{"summary": ...}``.

        Never replaces a file unless ``overwrite`` is True.
        """
        with output_path(path, overwrite=overwrite) as tmp, \
                _RowFile(tmp, self.names, kind="jsonl", metric=self.metric) as out:
            for r in self.rows:
                out.write(r)
            out.finish(self.to_dict())
