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
"""

from __future__ import annotations

import csv
import json
import math
import os
import time as _time
from dataclasses import dataclass, field

import numpy as np

from .. import ksubset
from .._table import text_table
from ._allocators import Allocator, KSubsetAllocator, parse_allocator
from ._machine import Machine, parse_machine
from ._simulate import SimulationResult, _as_allocation, progress_printer, simulate
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

#: Relative tolerance of the ratio checks and of "optimal" in the summaries.
TOL = 1e-9


def _ratio(w: float, lower: float, upper: float) -> tuple[float, float]:
    """Certified interval of W / OPT for OPT in [lower, upper]."""
    if upper <= 0:  # OPT = 0 (k = 1): every allocator is optimal
        return (1.0, 1.0) if w <= 0 else (math.inf, math.inf)
    hi = w / lower if lower > 0 else math.inf
    return w / upper, hi


@dataclass(frozen=True)
class DecisionRow:
    """One allocation decision of the driver and what every allocator made of it.

    Attributes
    ----------
    index : int
        Decision number, in start order.
    job_id : int
    time : float
        Simulated start time.
    k, n_free : int
        Processors requested; free nodes before the placement.
    W : tuple of float
        W of each allocator, in the order of :attr:`Certification.names`.
    guarantee : tuple of float or None
        Worst-case factor each allocator's method reports for this k.
    lower, upper : float
        The optimum lies in ``[lower, upper]``; equal when proven.
    status : str
        ``"optimal"`` (proven), ``"time_limit"`` (bracket from a stopped
        exact solve) or ``"bracket"`` (cheap bounds only).
    exact_seconds : float
        Time of the exact solve (0 without one).
    cached : bool
        The exact optimum came from the session's cache.
    """

    index: int
    job_id: int
    time: float
    k: int
    n_free: int
    W: tuple
    guarantee: tuple
    lower: float
    upper: float
    status: str
    exact_seconds: float = 0.0
    cached: bool = False

    @property
    def proven(self) -> bool:
        """The optimum of this decision is proven."""
        return self.status == "optimal"

    @property
    def optimum(self) -> float | None:
        """The proven optimum, or None when only a bracket is known."""
        return self.upper if self.proven else None

    def ratios(self) -> list[tuple[float, float]]:
        """Certified interval of W / OPT of each allocator."""
        return [_ratio(w, self.lower, self.upper) for w in self.W]

    def best(self, names) -> tuple[str, ...]:
        """Names of the allocators with the least W on this decision."""
        low = min(self.W)
        return tuple(n for n, w in zip(names, self.W) if w <= low + TOL * max(1.0, low))


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


def _size_buckets(ks, buckets):
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


def _open_new(path, overwrite):
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
    return open(path, "w", encoding="utf-8", newline="")


def _num(x):
    """JSON-safe number (inf becomes None)."""
    return None if x is None or not math.isfinite(x) else x


@dataclass(frozen=True)
class Certification:
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
    exact_seconds, compare_seconds, wall_time : float
        Time in the exact solver, in the other allocators, and in all
        (this run only: decisions read back from a resumed file add none).
    resumed : int
        Decisions whose bounds were read back from the file of an earlier
        run (``certify(..., resume=True)``) instead of being solved.
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
    wall_time: float = field(default=0.0, compare=False)
    resumed: int = 0

    # ------------------------------------------------------------ access

    def __len__(self) -> int:
        return len(self.rows)

    def _col(self, name) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"`name` must be one of {', '.join(self.names)}, got {name!r}") from None

    def W(self, name) -> np.ndarray:
        """W of allocator ``name`` on every decision."""
        j = self._col(name)
        return np.array([r.W[j] for r in self.rows], dtype=float)

    def ratios(self, name) -> np.ndarray:
        """Certified ratio intervals of ``name``, shape (decisions, 2): [W/UB, W/LB]."""
        j = self._col(name)
        return np.array([r.ratios()[j] for r in self.rows], dtype=float).reshape(-1, 2)

    @property
    def n_proven(self) -> int:
        """Decisions whose optimum is proven."""
        return sum(r.proven for r in self.rows)

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
        for lo, hi in _size_buckets(ks, buckets):
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
        """The gap table: one line per allocator, then the solver's figures."""
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
        if self.exact:
            lines.append(f"exact optimum: {self.n_proven}/{n} decisions proven, {self.cache_hits} cache hits, "
                         f"{self.exact_seconds:.2f} s" + (f" ({self.resumed} read back from the resumed file)"
                                                         if self.resumed else ""))
        else:
            lines.append(f"cheap bounds only: {self.n_proven}/{n} decisions proven")
        lines.append(f"total time: {self.wall_time:.2f} s on {self.simulation.machine}, "
                     f"scheduler {self.simulation.scheduler}")
        return "\n".join(lines)

    def row_dict(self, r: DecisionRow) -> dict:
        """Plain-Python view of one decision."""
        return _row_dict(r, self.names)

    def to_dict(self) -> dict:
        """Everything but the rows, JSON-ready."""
        return {"driver": self.driver, "allocators": list(self.names), "machine": self.simulation.machine,
                "scheduler": self.simulation.scheduler, "decisions": len(self.rows),
                "proven": self.n_proven, "exact": self.exact, "time_limit": self.time_limit,
                "cache_hits": self.cache_hits, "resumed": self.resumed, "exact_seconds": self.exact_seconds,
                "compare_seconds": self.compare_seconds, "wall_time": self.wall_time,
                "summary": [{k: _num(v) if isinstance(v, float) else v for k, v in s.to_dict().items()}
                            for s in self.summary()],
                "by_size": [{k: _num(v) if isinstance(v, float) else v for k, v in s.to_dict().items()}
                            for s in self.by_size()],
                "violations": self.check()}

    def to_csv(self, path, *, overwrite=False) -> None:
        """One row per decision; W, ratio_low and ratio_high of each allocator.

        Never replaces a file unless ``overwrite`` is True.
        """
        with _RowFile(path, self.names, overwrite=overwrite, kind="csv") as out:
            for r in self.rows:
                out.write(r)

    def to_jsonl(self, path, *, overwrite=False) -> None:
        """One JSON object per decision, then ``{"summary": ...}``.

        Never replaces a file unless ``overwrite`` is True.
        """
        with _RowFile(path, self.names, overwrite=overwrite, kind="jsonl") as out:
            for r in self.rows:
                out.write(r)
            out.finish(self)


def _csv_head(names) -> list[str]:
    head = ["index", "job_id", "time", "k", "n_free", "lower", "upper", "status", "best", "cached",
            "exact_seconds"]
    for n in names:
        head += [f"W[{n}]", f"ratio_low[{n}]", f"ratio_high[{n}]"]
    return head


def _row_dict(r: DecisionRow, names) -> dict:
    return {"index": r.index, "job_id": r.job_id, "time": r.time, "k": r.k, "n_free": r.n_free,
            "lower": r.lower, "upper": r.upper, "status": r.status, "best": list(r.best(names)),
            "cached": r.cached, "exact_seconds": r.exact_seconds, "W": dict(zip(names, r.W)),
            "ratio": {n: [_num(lo), _num(hi)] for n, (lo, hi) in zip(names, r.ratios())}}


@dataclass(frozen=True)
class _Stored:
    """What a decision row written earlier says (read back to resume a run)."""

    k: int
    n_free: int
    W: tuple
    lower: float
    upper: float
    status: str
    exact_seconds: float
    cached: bool


class _RowFile:
    """Decision rows written one by one (``.csv``, or ``.jsonl``/``.json``) and
    flushed, so that a run cut short keeps what it certified.

    With ``resume`` an existing file is read back (:attr:`stored`, by
    decision index) and continued: anything after its last complete row
    (a line cut by the interruption, the summary of a finished run) is
    dropped, and new rows are appended.
    """

    def __init__(self, path, names, *, overwrite=False, resume=False, kind=None):
        self.path, self.names = os.fspath(path), tuple(names)
        if kind is None:
            kind = "csv" if self.path.lower().endswith(".csv") else "jsonl"
        self.kind = kind
        self.stored: dict[int, _Stored] = {}
        if resume and overwrite:
            raise ValueError("`resume` continues the file and `overwrite` replaces it: pass one of them")
        if resume and os.path.exists(self.path):
            keep = self._read_back()
            self.fh = open(self.path, "r+", encoding="utf-8", newline="")  # noqa: SIM115 - closed by close()
            self.fh.truncate(keep)
            self.fh.seek(keep)
        else:
            self.fh = _open_new(self.path, overwrite)
        self.csv = csv.writer(self.fh) if kind == "csv" else None
        if self.csv is not None and not self.stored and self.fh.tell() == 0:
            self.csv.writerow(_csv_head(self.names))
            self.fh.flush()

    def _read_back(self) -> int:
        """Parse the rows of the file; return the byte length of the part to keep."""
        with open(self.path, "rb") as fh:
            data = fh.read()
        keep, lines = 0, []
        for line in data.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break  # cut by the interruption
            lines.append(line.decode("utf-8"))
            keep += len(line)
        what = f"cannot resume {self.path}"
        if self.kind == "csv":
            if not lines:
                return 0
            rows = list(csv.reader(lines))
            if rows[0] != _csv_head(self.names):
                raise ValueError(f"{what}: its columns are not those of this run (other allocators?)")
            for cells in rows[1:]:
                rec = dict(zip(rows[0], cells))
                try:
                    self.stored[int(rec["index"])] = _Stored(
                        int(rec["k"]), int(rec["n_free"]), tuple(float(rec[f"W[{n}]"]) for n in self.names),
                        float(rec["lower"]), float(rec["upper"]), rec["status"], float(rec["exact_seconds"]),
                        bool(int(rec["cached"])))
                except (KeyError, ValueError):
                    raise ValueError(f"{what}: a row is not a decision row: {cells!r}") from None
            return keep
        keep = 0
        for line in lines:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise ValueError(f"{what}: not a JSON line: {line[:60]!r}") from None
            if "summary" in rec:
                break  # a finished run: its summary is written again at the end
            try:
                if list(rec["W"]) != list(self.names):
                    raise ValueError(f"{what}: its allocators are not those of this run")
                self.stored[int(rec["index"])] = _Stored(
                    int(rec["k"]), int(rec["n_free"]), tuple(float(rec["W"][n]) for n in self.names),
                    float(rec["lower"]), float(rec["upper"]), rec["status"], float(rec["exact_seconds"]),
                    bool(rec["cached"]))
            except (KeyError, TypeError):
                raise ValueError(f"{what}: a line is not a decision row: {line[:60]!r}") from None
            keep += len(line.encode("utf-8"))
        return keep

    def write(self, r: DecisionRow) -> None:
        if r.index in self.stored:
            return
        if self.csv is not None:
            row = [r.index, r.job_id, r.time, r.k, r.n_free, r.lower, r.upper, r.status,
                   " ".join(r.best(self.names)), int(r.cached), f"{r.exact_seconds:.6f}"]
            for wv, (lo, hi) in zip(r.W, r.ratios()):
                row += [wv, lo, hi]
            self.csv.writerow(row)
        else:
            self.fh.write(json.dumps(_row_dict(r, self.names)) + "\n")
        self.fh.flush()

    def finish(self, cert) -> None:
        if self.csv is None:
            self.fh.write(json.dumps({"summary": cert.to_dict()}) + "\n")

    def close(self) -> None:
        self.fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _prepare(spec, cache):
    alloc = parse_allocator(spec)
    if not cache and isinstance(alloc, KSubsetAllocator):
        alloc.cache = 0
    name = getattr(alloc, "name", None)
    if not name or name == Allocator.name:
        name = type(alloc).__name__
    return name, alloc


def certify(trace, machine, *, driver="mc1x1", allocators=DEFAULT_ALLOCATORS, exact=True, time_limit=None,
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
    time_limit : float, optional
        Seconds per exact solve; a decision that runs out keeps the proven
        bracket.
    scheduler : str or Scheduler
    kill_at_estimate : bool
        As in :func:`simulate`.
    progress : bool or callable
        True: a line on stderr (decisions done / total, elapsed); a callable
        gets ``(done, total)``.
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
    solve is NP-hard in general: on machines beyond a few hundred nodes
    give a ``time_limit``.

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
    if any(machine.torus):
        raise ValueError("`machine` must be a mesh: certification uses plain L1 distance, "
                         f"got {machine.describe()}")
    if isinstance(allocators, (str, Allocator)):
        allocators = (allocators,)
    try:
        specs = list(allocators)
    except TypeError:
        raise ValueError(f"`allocators` must be a sequence of allocator names, got {allocators!r}") from None
    if time_limit is not None:
        if not isinstance(time_limit, (int, float)) or not time_limit > 0:
            raise ValueError(f"`time_limit` must be a positive number of seconds, got {time_limit!r}")
        if not exact:
            raise ValueError("`time_limit` applies only with exact=True")
    if progress is True:
        progress = progress_printer("certify", "decisions")
    elif progress is False or progress is None:
        progress = None
    elif not callable(progress):
        raise ValueError(f"`progress` must be a bool or a callable, got {progress!r}")

    drv_name, drv = _prepare(driver, cache)
    others = []
    for spec in specs:
        name, alloc = _prepare(spec, cache)
        if name in [n for n, _ in others]:
            raise ValueError(f"`allocators` lists {name!r} twice")
        others.append((name, None if name == drv_name else alloc))
    if drv_name not in [n for n, _ in others]:
        others.insert(0, (drv_name, None))
    names = tuple(n for n, _ in others)

    if resume and out is None:
        raise ValueError("`resume` needs the file to continue: pass `out`")
    if out is not None:
        if os.path.splitext(os.fspath(out))[1].lower() not in (".csv", ".jsonl", ".json"):
            raise ValueError(f"`out` must end in .csv, .jsonl or .json, got {os.fspath(out)!r}")
        writer = _RowFile(out, names, overwrite=overwrite, resume=resume)
    else:
        writer = None
    try:
        return _certify(trace, machine, drv, drv_name, others, names, exact, time_limit, scheduler,
                        kill_at_estimate, progress, cache, writer, wall0)
    finally:
        if writer is not None:
            writer.close()


def _certify(trace, machine, drv, drv_name, others, names, exact, time_limit, scheduler, kill_at_estimate,
             progress, cache, writer, wall0):
    stored = writer.stored if writer is not None else {}
    session = ksubset.ExactSession() if cache and exact else None
    shadow = machine.copy_empty()
    rows: list[DecisionRow] = []
    clock = {"exact": 0.0, "compare": 0.0}
    total = len(trace)

    def on_decision(d):
        pts, k = d.free_points, d.k
        t0 = _time.perf_counter()
        busy = np.ones(shadow.size, dtype=bool)
        busy[d.free_ids] = False
        shadow.reset()
        if busy.any():
            shadow.allocate(np.flatnonzero(busy), owner=-2)
        ws, gs = [], []
        for name, alloc in others:
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
        t1 = _time.perf_counter()
        clock["compare"] += t1 - t0
        upper = min(ws)
        cached = False
        old = stored.get(d.index)
        if old is not None:
            if (old.k, old.n_free) != (k, len(pts)) or not np.allclose(old.W, ws, rtol=TOL, atol=0):
                raise ValueError(f"cannot resume {writer.path}: decision {d.index} differs from this run "
                                 f"(k {old.k} vs {k}, W {list(old.W)} vs {ws}); another trace, machine or "
                                 "allocator options?")
            lower, upper, status, cached = old.lower, old.upper, old.status, old.cached
        elif exact:
            res = ksubset.exact(pts, k, time_limit=time_limit, warm_start=session)
            cached = res.extra.get("phase") == "cache"
            if res.status == "optimal":
                lower = upper = float(res.objective)
            else:
                upper = min(upper, float(res.objective))
                lower = float(res.bound) if res.bound is not None else 0.0
            status = res.status if res.status in ("optimal", "time_limit") else "bracket"
        else:
            lower = max(ksubset.lower_bound(pts, k).values())
            status = "bracket"
        if status != "optimal":
            lower = min(float(math.ceil(lower - 1e-6)), upper)  # W is an integer on a mesh
            if lower >= upper:
                status = "optimal"
        t2 = _time.perf_counter()
        clock["exact"] += t2 - t1
        seconds = old.exact_seconds if old is not None else t2 - t1 if exact else 0.0
        rows.append(DecisionRow(d.index, d.job.job_id, float(d.time), k, len(pts), tuple(ws), tuple(gs),
                                float(lower), float(upper), status, seconds, cached))
        if writer is not None:
            writer.write(rows[-1])
        if progress is not None:
            progress(len(rows), total)

    sim = simulate(trace, machine, scheduler=scheduler, allocator=drv, kill_at_estimate=kill_at_estimate,
                   on_decision=on_decision)
    cert = Certification(tuple(rows), names, drv_name, sim, bool(exact), time_limit,
                         session.hits if session is not None else 0, clock["exact"], clock["compare"],
                         _time.perf_counter() - wall0, sum(r.index in stored for r in rows))
    if writer is not None:
        writer.finish(cert)
    return cert
