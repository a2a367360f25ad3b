"""Standard Workload Format (SWF v2.2) traces: reading, cleaning, writing.

An SWF file (Parallel Workloads Archive, Feitelson et al.) has header
comments starting with ``;`` (``; MaxProcs: 128``) and one job per line of 18
whitespace-separated fields, ``-1`` meaning unknown:

====  ===================  ====  ======================
1     job number           10    requested memory
2     submit time (s)      11    status
3     wait time            12    user id
4     run time             13    group id
5     allocated procs      14    executable
6     average CPU time     15    queue
7     used memory          16    partition
8     requested procs      17    preceding job
9     requested time       18    think time
====  ===================  ====  ======================
"""

from __future__ import annotations

import math
import operator
import os
import re
from dataclasses import dataclass, field, fields

from ..._files import output_file
from ..._text import gunzip, read_data
from ..._validate import validate_positive

__all__ = ["Job", "Trace", "TraceReport", "read_swf", "write_swf"]

_N_FIELDS = 18
# "Key: value" or "Key:value"; "http://..." is not a key (a URL continues a field)
_HEADER_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_ ]*?)\s*:(?!//)\s*(.*)$")
_PROCESSORS = ("requested", "allocated", "auto")
_OVERSIZE = ("skip", "clip", "error")
#: The command-line flag that reads a trace with ``strict=False`` (named in messages).
SKIP_BAD_LINES_FLAG = "--skip-bad-lines"


@dataclass(frozen=True)
class Job:
    """One job of a trace, as the simulator sees it.

    Attributes
    ----------
    job_id : int
        Job number (SWF field 1).
    submit : float
        Submit (arrival) time in seconds.
    runtime : float
        Actual run time in seconds, > 0.
    procs : int
        Number of processors the job needs, >= 1.
    estimate : float
        Requested (estimated) run time in seconds, > 0; schedulers plan with
        it, and the job is killed at it when the simulation says so.
        Defaults to ``runtime``.
    fields : tuple of float
        The 18 SWF fields of the source line (``()`` for a hand-built job);
        :func:`write_swf` keeps the fields the simulator does not use.
    user : int or None
        User id (SWF field 12), for fair-share scheduling; None when
        unknown.  Default: field 12 of ``fields`` when it is known.

    Examples
    --------
    >>> Job(1, 0.0, 100.0, 4)
    Job(job_id=1, submit=0.0, runtime=100.0, procs=4, estimate=100.0)
    """

    job_id: int
    submit: float
    runtime: float
    procs: int
    estimate: float | None = None
    fields: tuple = field(default=(), repr=False, compare=False)
    user: int | None = field(default=None, repr=False)

    def __post_init__(self):
        set_ = object.__setattr__
        if self.user is None and len(self.fields) == _N_FIELDS and self.fields[11] >= 0:
            set_(self, "user", int(self.fields[11]))
        if self.user is not None:
            set_(self, "user", operator.index(self.user))
            if self.user < 0:
                raise ValueError(f"job {self.job_id}: `user` must be a non-negative id or None, got {self.user}")
        set_(self, "job_id", operator.index(self.job_id))
        set_(self, "procs", operator.index(self.procs))
        set_(self, "submit", float(self.submit))
        set_(self, "runtime", float(self.runtime))
        if self.estimate is None:
            set_(self, "estimate", self.runtime)
        set_(self, "estimate", float(self.estimate))
        if not math.isfinite(self.submit):
            raise ValueError(f"job {self.job_id}: `submit` must be finite, got {self.submit}")
        if not (self.runtime > 0 and math.isfinite(self.runtime)):
            raise ValueError(f"job {self.job_id}: `runtime` must be positive, got {self.runtime}")
        if not (self.estimate > 0 and math.isfinite(self.estimate)):
            raise ValueError(f"job {self.job_id}: `estimate` must be positive, got {self.estimate}")
        if self.procs < 1:
            raise ValueError(f"job {self.job_id}: `procs` must be at least 1, got {self.procs}")


@dataclass(frozen=True)
class TraceReport:
    """What reading a trace skipped or changed, one count per reason.

    Nothing is skipped or changed without a count here.

    Attributes
    ----------
    lines : int
        Job lines read (comments and blank lines excluded).
    jobs : int
        Jobs kept.
    bad_lines : int
        Malformed lines skipped (only with ``strict=False``).
    no_submit : int
        Skipped: submit time unknown (-1) or negative.
    no_processors : int
        Skipped: no usable processor count.
    runtime_unknown : int
        Skipped: run time unknown (-1).
    runtime_nonpositive : int
        Skipped: run time 0 or negative (other than -1).
    oversize_skipped : int
        Skipped: more processors than ``max_procs`` (``oversize="skip"``).
    oversize_clipped : int
        Changed: processor count lowered to ``max_procs`` (``oversize="clip"``).
    scaled : int
        Changed: processor count divided by ``scale`` (rounded up, at least 1).
    estimate_filled : int
        Changed: requested time unknown, set to ``missing_estimate_factor``
        times the run time.
    runtime_over_estimate : int
        Kept unchanged, noted: run time longer than the requested time (such
        jobs are cut at their estimate when the simulation kills at it).
    out_of_order : int
        Lines whose submit time is earlier than that of some line above them
        (skipped lines included); the jobs are sorted by submit time
        (stable), so this counts a change of order.
    bad_line_numbers : tuple of int
        Line numbers of the malformed lines (first 100).
    """

    lines: int = 0
    jobs: int = 0
    bad_lines: int = 0
    no_submit: int = 0
    no_processors: int = 0
    runtime_unknown: int = 0
    runtime_nonpositive: int = 0
    oversize_skipped: int = 0
    oversize_clipped: int = 0
    scaled: int = 0
    estimate_filled: int = 0
    runtime_over_estimate: int = 0
    out_of_order: int = 0
    bad_line_numbers: tuple = ()

    #: Reasons a job is dropped.
    SKIP_REASONS = ("bad_lines", "no_submit", "no_processors", "runtime_unknown",
                    "runtime_nonpositive", "oversize_skipped")
    #: Reasons a kept job differs from its line.
    CHANGE_REASONS = ("oversize_clipped", "scaled", "estimate_filled", "out_of_order")

    @property
    def skipped(self) -> int:
        """Lines that gave no job."""
        return sum(getattr(self, r) for r in self.SKIP_REASONS)

    def to_dict(self) -> dict:
        """Plain-Python view (JSON-ready)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["bad_line_numbers"] = list(self.bad_line_numbers)
        return out

    def why_no_jobs(self, max_procs=None) -> str:
        """What removed the jobs, in words: for the message of a trace with no job left.

        Parameters
        ----------
        max_procs : int, optional
            The machine size the trace was read for (named in the count of
            jobs larger than the machine).

        Examples
        --------
        >>> TraceReport().why_no_jobs()
        'the file has no job lines'
        >>> TraceReport(lines=1, runtime_nonpositive=1).why_no_jobs()
        '1 job line, none kept: 1 with a bad run time (unknown, zero or negative)'
        >>> TraceReport(lines=2, oversize_skipped=2).why_no_jobs(32)
        '2 job lines, none kept: 2 larger than the machine (32 processors)'
        """
        if self.lines == 0:
            return "the file has no job lines"
        size = f" ({max_procs} processors)" if max_procs is not None else ""
        parts = [
            (self.runtime_unknown + self.runtime_nonpositive, "with a bad run time (unknown, zero or negative)"),
            (self.oversize_skipped, f"larger than the machine{size}"),
            (self.no_submit, "with no submit time (unknown or negative)"),
            (self.no_processors, "with no processor count"),
            (self.bad_lines, "malformed (skipped, not 18 numbers)"),
        ]
        out = f"{self.lines} job line{'s' if self.lines != 1 else ''}, "
        out += "none kept" if self.jobs == 0 else f"{self.jobs} kept"
        reasons = ", ".join(f"{n} {what}" for n, what in parts if n)
        return f"{out}: {reasons}" if reasons else out

    def summary(self) -> str:
        """One line per non-zero count.

        Examples
        --------
        >>> print(TraceReport(lines=3, jobs=2, runtime_unknown=1).summary())
        3 lines, 2 jobs kept, 1 skipped
          runtime_unknown: 1
        """
        out = [f"{self.lines} lines, {self.jobs} jobs kept, {self.skipped} skipped"]
        for name in self.SKIP_REASONS + self.CHANGE_REASONS + ("runtime_over_estimate",):
            if getattr(self, name):
                out.append(f"  {name}: {getattr(self, name)}")
        return "\n".join(out)


@dataclass(frozen=True)
class Trace:
    """A cleaned job trace, sorted by submit time.

    Attributes
    ----------
    jobs : tuple of Job
        The jobs, sorted by submit time (stable: ties keep file order).
    max_procs : int or None
        Machine size the trace was cleaned for (after scaling), or None.
    header : dict
        Header fields, ``key -> value``; repeated keys (``Note``, ``Queue``)
        and continuation lines are joined with newlines.
    header_lines : tuple of str
        The raw header comment lines without the leading ``;``.
    report : TraceReport
        What reading skipped or changed.
    source : str
        Where the trace came from (a path, or ``""``).

    Examples
    --------
    >>> t = Trace([Job(2, 5, 10, 1), Job(1, 0, 10, 2)], max_procs=4)
    >>> [j.job_id for j in t.jobs], len(t)
    ([1, 2], 2)
    >>> [j.job_id for j in t], t[-1].job_id
    ([1, 2], 2)
    """

    jobs: tuple
    max_procs: int | None = None
    header: dict = field(default_factory=dict, compare=False)
    header_lines: tuple = field(default=(), compare=False)
    report: TraceReport = field(default_factory=TraceReport, compare=False)
    source: str = field(default="", compare=False)

    def __post_init__(self):
        jobs = tuple(self.jobs)
        for j in jobs:
            if not isinstance(j, Job):
                raise ValueError(f"`jobs` must hold Job records, got {type(j).__name__}")  # noqa: TRY004
        object.__setattr__(self, "jobs", tuple(sorted(jobs, key=lambda j: j.submit)))
        if self.max_procs is not None:
            mp = operator.index(self.max_procs)
            if mp < 1:
                raise ValueError(f"`max_procs` must be at least 1, got {mp}")
            object.__setattr__(self, "max_procs", mp)
        if not self.report.jobs and jobs:
            object.__setattr__(self, "report", TraceReport(lines=len(jobs), jobs=len(jobs)))

    def __len__(self) -> int:
        return len(self.jobs)

    def __iter__(self):
        return iter(self.jobs)

    def __getitem__(self, i):
        """A job by position; a slice gives a tuple of jobs (``head`` keeps the header)."""
        return self.jobs[i]

    def head(self, n: int) -> Trace:
        """The first ``n`` jobs (by submit time), same header."""
        n = operator.index(n)
        if n < 0:
            raise ValueError(f"`n` must be at least 0, got {n}")
        return Trace(self.jobs[:n], self.max_procs, self.header, self.header_lines,
                     self.report, self.source)


def _parse_header(lines):
    header: dict[str, str] = {}
    last = None
    for raw in lines:
        m = _HEADER_KEY.match(raw)
        if m:
            last = m.group(1).strip()
            value = m.group(2).strip()
            header[last] = f"{header[last]}\n{value}" if last in header else value
        elif last is not None and raw.strip():
            header[last] = f"{header[last]}\n{raw.strip()}"
    return header


def _header_int(header, key):
    value = header.get(key, "").split("\n")[0].split()
    if not value:
        return None
    try:
        v = int(float(value[0]))
    except ValueError:
        return None
    return v if v > 0 else None


def _choice(value, allowed, name):
    if value not in allowed:
        raise ValueError(f"`{name}` must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def read_swf(path, *, processors="auto", missing_estimate_factor=1.0, max_procs=None,
             oversize="skip", scale=1, strict=True) -> Trace:
    """Read and clean a Standard Workload Format trace.

    Parameters
    ----------
    path : str or path-like
        The ``.swf`` file, or a gzipped one (``NAME.swf.gz``, as the
        Parallel Workloads Archive ships them): a file starting with the
        gzip magic bytes is decompressed, whatever its name.
    processors : {"auto", "requested", "allocated"}
        Which processor count to use: field 8 (requested), field 5
        (allocated), or ``"auto"``: requested when known, else allocated.
    missing_estimate_factor : float
        When the requested time (field 9) is unknown, the estimate is this
        factor times the run time (1: perfect estimates).
    max_procs : int, optional
        Machine size, in processors after scaling.  Default: the header's
        ``MaxProcs`` (else ``MaxNodes``) divided by ``scale``, rounded up;
        no limit when the header has neither.
    oversize : {"skip", "clip", "error"}
        What to do with a job needing more than ``max_procs`` processors:
        drop it, lower its count to ``max_procs``, or raise ValueError.
    scale : int
        Divide every processor count by ``scale``, rounding up, at least 1
        (the NASA iPSC trace scaled by 4 fits 32 processors, as in Bender
        et al. 2005, sec. 6).
    strict : bool
        True: a malformed line (not 18 numbers) raises ValueError with its
        line number.  False: it is skipped and counted in ``bad_lines``
        (on the command line: ``--skip-bad-lines``).

    Returns
    -------
    Trace
        Jobs sorted by submit time (stable) with a :class:`TraceReport`.

    Raises
    ------
    ValueError
        Missing or unreadable file, a corrupt gzip file, a malformed line
        (``strict=True``), an oversize job (``oversize="error"``), or a bad argument.

    Notes
    -----
    Skipped: unknown or negative submit time, no processor count, run time
    unknown (-1) or <= 0, oversize jobs (with ``oversize="skip"``).  Each is
    counted in the report; so is every change.  One pass, O(n log n) for the
    sort.

    Examples
    --------
    >>> import tempfile, os
    >>> text = "; MaxProcs: 8\\n1 0 -1 10 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\\n"
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "t.swf")
    ...     _ = open(p, "w").write(text)
    ...     t = read_swf(p)
    >>> t.max_procs, t.jobs[0].procs, t.report.estimate_filled
    (8, 4, 1)
    """
    _choice(processors, _PROCESSORS, "processors")
    _choice(oversize, _OVERSIZE, "oversize")
    factor = validate_positive(missing_estimate_factor, "missing_estimate_factor", allow_none=False)
    scale = validate_positive(scale, "scale", allow_none=False, integer=True)
    if max_procs is not None:
        try:
            max_procs = operator.index(max_procs)
        except TypeError:
            raise ValueError(f"`max_procs` must be a positive integer, got {max_procs!r}") from None
        if max_procs < 1:
            raise ValueError(f"`max_procs` must be a positive integer, got {max_procs}")
    text = decode_swf(read_data(path), path)
    return parse_swf_text(text, os.fspath(path), processors, factor, max_procs, oversize, scale, strict)


def decode_swf(data: bytes, source="trace") -> str:
    """The text of SWF file contents, as :func:`read_swf` reads them (gzip
    data is decompressed, a byte order mark is not data, undecodable bytes
    are replaced); ``source`` names the file in the error of a corrupt
    gzip stream."""
    return gunzip(data, source).decode("utf-8-sig", errors="replace")


def parse_swf_text(text, path, processors, factor, max_procs, oversize, scale, strict) -> Trace:
    """read_swf on the text of a file (arguments already checked); ``path``
    names it in messages and becomes the trace's ``source``."""
    header_lines, rows = [], []
    count = dict.fromkeys(f.name for f in fields(TraceReport) if f.name != "bad_line_numbers")
    count = {k: 0 for k in count}
    bad_numbers = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            header_lines.append(stripped[1:])
            continue
        count["lines"] += 1
        parts = stripped.split()
        try:
            if len(parts) != _N_FIELDS:
                raise ValueError(f"expected {_N_FIELDS} fields, got {len(parts)}")
            values = tuple(float(v) for v in parts)
            if not all(math.isfinite(v) for v in values):
                raise ValueError("a field is not a finite number")
        except ValueError as exc:
            if strict:
                raise ValueError(f"{path}:{lineno}: malformed SWF line ({exc}); pass strict=False "
                                 f"(command line: {SKIP_BAD_LINES_FLAG}) to skip such lines") from None
            count["bad_lines"] += 1
            if len(bad_numbers) < 100:
                bad_numbers.append(lineno)
            continue
        rows.append(values)

    header = _parse_header(header_lines)
    if max_procs is None:
        raw_max = _header_int(header, "MaxProcs") or _header_int(header, "MaxNodes")
        if raw_max is not None:
            max_procs = max(1, -(-raw_max // scale))

    jobs, last_submit = [], -math.inf
    for values in rows:
        job_id, submit, _wait, runtime, alloc, *_ = values
        req, req_time = values[7], values[8]
        if submit < last_submit:
            count["out_of_order"] += 1
        last_submit = max(last_submit, submit)
        if submit < 0:
            count["no_submit"] += 1
            continue
        if processors == "requested":
            procs = req
        elif processors == "allocated":
            procs = alloc
        else:
            procs = req if req > 0 else alloc
        if procs <= 0:
            count["no_processors"] += 1
            continue
        if runtime == -1:
            count["runtime_unknown"] += 1
            continue
        if runtime <= 0:
            count["runtime_nonpositive"] += 1
            continue
        procs = math.ceil(procs)
        if scale > 1:
            new = max(1, -(-procs // scale))
            if new != procs:
                count["scaled"] += 1
            procs = new
        if max_procs is not None and procs > max_procs:
            if oversize == "skip":
                count["oversize_skipped"] += 1
                continue
            if oversize == "error":
                raise ValueError(f"{path}: job {int(job_id)} needs {procs} processors, more than "
                                 f"max_procs={max_procs}; pass oversize='skip' or 'clip'")
            count["oversize_clipped"] += 1
            procs = max_procs
        if req_time > 0:
            estimate = req_time
            if runtime > estimate:
                count["runtime_over_estimate"] += 1
        else:
            estimate = factor * runtime
            count["estimate_filled"] += 1
        jobs.append(Job(int(job_id), submit, runtime, procs, estimate, fields=values))
    count["jobs"] = len(jobs)
    report = TraceReport(**count, bad_line_numbers=tuple(bad_numbers))
    return Trace(tuple(jobs), max_procs, header, tuple(header_lines), report, path)


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def write_swf(trace: Trace, path, *, overwrite=False) -> None:
    """Write a trace as SWF v2.2; :func:`read_swf` reads it back unchanged.

    The header lines are kept (``MaxProcs`` and ``MaxNodes`` set to the
    trace's ``max_procs``); each job writes its processor count in fields 5
    and 8, its estimate in field 9, and the other fields of its source line
    (-1 for hand-built jobs).

    Parameters
    ----------
    trace : Trace
    path : str, path-like or text file
        Where to write; a file object open for writing text (such as
        ``sys.stdout``) is written to as it is.
    overwrite : bool
        Replace an existing file; without it an existing file raises.

    Raises
    ------
    FileExistsError
        ``path`` exists and ``overwrite`` is False.

    Examples
    --------
    >>> import tempfile, os
    >>> t = Trace([Job(1, 0, 10, 2, 20), Job(2, 1.5, 3, 1)], max_procs=4)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     write_swf(t, os.path.join(d, "t.swf"))
    ...     read_swf(os.path.join(d, "t.swf")) == t
    True
    """
    if not isinstance(trace, Trace):
        raise ValueError(f"`trace` must be a Trace, got {type(trace).__name__}")  # noqa: TRY004
    to_file = hasattr(path, "write")
    if not to_file and os.path.exists(path) and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
    lines, seen = [], set()
    for raw in trace.header_lines:
        m = _HEADER_KEY.match(raw)
        key = m.group(1).strip() if m else None
        if key in ("MaxProcs", "MaxNodes") and trace.max_procs is not None:
            raw = f" {key}: {trace.max_procs}"
        if key:
            seen.add(key)
        lines.append(";" + raw)
    if not lines:
        lines.append("; Version: 2.2")
    if trace.max_procs is not None:
        for key in ("MaxNodes", "MaxProcs"):
            if key not in seen:
                lines.append(f"; {key}: {trace.max_procs}")
    for j in trace.jobs:
        f = list(j.fields) if len(j.fields) == _N_FIELDS else [-1.0] * _N_FIELDS
        f[0], f[1], f[3], f[4], f[7], f[8] = j.job_id, j.submit, j.runtime, j.procs, j.procs, j.estimate
        f[11] = -1 if j.user is None else j.user
        lines.append(" ".join(_fmt(v) for v in f))
    if to_file:
        path.write("\n".join(lines) + "\n")
        return
    with output_file(path, overwrite=overwrite) as fh:  # whole or not at all
        fh.write("\n".join(lines) + "\n")
