"""Job histories with node lists: what a machine's scheduler placed, and where.

Two layouts are read:

- Slurm's accounting, ``sacct --parsable2`` (``-P``): a header line of
  field names separated by ``|``, then one line per allocation or job
  step.  The fields ``JobID``, ``Start``, ``End`` and ``NodeList`` are
  needed; ``NNodes`` and ``State`` are used when present.  A job step
  (``123.batch``, ``123.extern``, ``123.0``) shares its allocation's nodes
  and is counted, not placed; an array task (``123_4``) or a
  heterogeneous component (``123+1``) is an allocation of its own.  A job
  that never started (``Start`` ``Unknown`` or ``None``, no node
  assigned: pending, cancelled before it started) is counted and skipped;
  one still running (``End`` ``Unknown``) holds its nodes to the end of
  the history.  Times are ISO dates (``2024-05-01T12:00:00``, read as
  UTC) or seconds.
- A plain table for other systems: CSV with the columns ``job_id``,
  ``start``, ``end``, ``nodes``, or JSON (a list of objects, or one object
  per line) with those keys; ``nodes`` is a hostlist expression, node ids
  separated by spaces, or (JSON) a list of ids or names.

Host names resolve through the machine's labels (a ``topology.conf``, a
network file with labels); on a machine without labels (a mesh or torus)
names are node ids, plain (``17``) or Cray ``nid`` numbers (``nid00017``);
on a machine whose labels are not host names (a generated fat tree's or
dragonfly's tuples) node ids as well.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from dataclasses import dataclass, fields
from datetime import UTC, datetime

import hostlist
import numpy as np

from ..._text import read_data

__all__ = ["History", "HistoryReport", "Placement", "history_nodes", "read_history", "read_sacct"]

_NEEDED = ("JobID", "Start", "End", "NodeList")
_NEVER = {"", "unknown", "none", "n/a"}
_NO_NODES = {"", "none assigned", "(null)", "none"}
_NID = re.compile(r"^(?:nid)?0*(\d+)$")
_STEP = re.compile(r"^[^.]+\.")


@dataclass(frozen=True)
class Placement:
    """One allocation of the history: a job, its start and end (seconds), its nodes (ids).

    ``end`` is ``inf`` for a job still running when the history was taken.
    """

    job_id: str
    start: float
    end: float
    nodes: tuple

    @property
    def k(self) -> int:
        """Number of nodes."""
        return len(self.nodes)


@dataclass
class HistoryReport:
    """What reading a history skipped, one count per reason.

    Attributes
    ----------
    lines : int
        Data lines read (header and blank lines excluded).
    placements : int
        Allocations kept.
    steps : int
        Job steps (``123.batch``, ``123.0``): counted, not placed.
    not_started : int
        Skipped: never started (Start unknown, no node assigned).
    still_running : int
        Kept with ``end = inf``: End unknown.
    bad_lines : int
        Malformed lines, unknown hosts, an end before the start (skipped
        only with ``strict=False``).
    """

    lines: int = 0
    placements: int = 0
    steps: int = 0
    not_started: int = 0
    still_running: int = 0
    bad_lines: int = 0

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


class History(tuple):
    """The placements of a history in start order (a tuple of
    :class:`Placement`; jobs starting at one time in the order given),
    with the :class:`HistoryReport` of its reading."""

    report: HistoryReport

    def __new__(cls, placements, report=None):
        self = super().__new__(cls, sorted(placements, key=lambda p: p.start))  # ties: in file order
        self.report = report if report is not None else HistoryReport(placements=len(self))
        return self


class _Resolver:
    """Node names or ids to node ids of one machine, the index built once."""

    def __init__(self, machine):
        self.machine = machine
        self.index = None if machine.labels is None else {str(v): i for i, v in enumerate(machine.labels)}
        # labels a hostlist cannot hold (a fat tree's or dragonfly's tuples): node ids name the nodes too
        self.ids_too = machine.labels is not None and not all(isinstance(v, str) for v in machine.labels)

    def one(self, name) -> int:
        n = self.machine.n
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            if not 0 <= name < n:
                raise ValueError(f"node id {name} is not a node of the {self.machine.describe()} (0 .. {n - 1})")
            return int(name)
        name = str(name).strip()
        if self.index is not None:
            i = self.index.get(name)
            if i is None and self.ids_too and name.isdigit() and int(name) < n:
                i = int(name)
            if i is None:
                raise ValueError(f"{name!r} is not a node of the {self.machine.describe()}")
            return i
        m = _NID.match(name)
        if m is None or not 0 <= int(m.group(1)) < n:
            raise ValueError(f"{name!r} is not a node of the {self.machine.describe()} (ids or nid numbers 0 .. "
                             f"{n - 1})")
        return int(m.group(1))

    def nodes(self, value) -> tuple:
        if isinstance(value, (list, tuple)):
            names = list(value)
        else:
            text = str(value).strip()
            if " " in text or ";" in text:
                names = [t for t in re.split(r"[\s;]+", text) if t]
            else:
                try:
                    names = hostlist.expand_hostlist(text, allow_duplicates=True)
                except hostlist.BadHostlist as err:
                    raise ValueError(f"bad node list {text!r}: {err}") from None
        if not names:
            raise ValueError(f"node list {value!r} names no node")
        ids = tuple(self.one(v) for v in names)
        if len(set(ids)) != len(ids):
            raise ValueError(f"node list {value!r} names a node twice")
        return ids


def history_nodes(machine, nodes) -> tuple:
    """The node ids of ``nodes`` on ``machine``, named as a history names them.

    ``nodes`` is a hostlist expression, names or ids separated by spaces,
    or a list; names resolve through the machine's labels, or are ids or
    ``nid`` numbers on a machine without labels.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> history_nodes(Machine((4, 4)), "nid[00014-00015]")
    (14, 15)
    """
    return _Resolver(machine).nodes(nodes)


def _time(text, what) -> float | None:
    """Seconds from an ISO date (UTC when no zone is given) or a number; None when unknown."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        s = str(text).strip()
        if s.lower() in _NEVER:
            return None
        try:
            value = float(s)
        except ValueError:
            try:
                d = datetime.fromisoformat(s)
            except ValueError:
                raise ValueError(f"{what} must be a date such as 2024-05-01T12:00:00 or seconds, got {s!r}") from None
            if d.tzinfo is None:
                d = d.replace(tzinfo=UTC)
            return d.timestamp()
    if not math.isfinite(value):
        raise ValueError(f"{what} must be a finite time, got {text!r}")
    return value


class _Reader:
    def __init__(self, machine, strict, where):
        self.res, self.strict, self.where = _Resolver(machine), strict, where
        self.report, self.out = HistoryReport(), []

    def bad(self, line_no, message):
        if self.strict:
            raise ValueError(f"{self.where} line {line_no}: {message}")
        self.report.bad_lines += 1

    def add(self, line_no, job_id, start, end, nodes, nnodes=None):
        """One allocation; returns nothing, counts or raises."""
        try:
            t0 = _time(start, "Start")
            t1 = _time(end, "End")
        except ValueError as err:
            return self.bad(line_no, str(err))
        no_nodes = isinstance(nodes, str) and nodes.strip().lower() in _NO_NODES
        if t0 is None or no_nodes or (isinstance(nodes, (list, tuple)) and not nodes):
            self.report.not_started += 1
            return None
        if t1 is None:
            t1 = math.inf
            self.report.still_running += 1
        if t1 < t0:
            return self.bad(line_no, f"job {job_id} ends before it starts")
        try:
            ids = self.res.nodes(nodes)
        except ValueError as err:
            return self.bad(line_no, f"job {job_id}: {err}")
        if nnodes is not None and str(nnodes).strip() != "":
            try:
                count = int(str(nnodes).strip())
            except ValueError:
                return self.bad(line_no, f"NNodes must be an integer, got {nnodes!r}")
            if count != len(ids):
                return self.bad(line_no, f"job {job_id}: NNodes {count} but its node list names {len(ids)} nodes")
        self.out.append(Placement(str(job_id), t0, t1, ids))
        return None

    def history(self) -> History:
        self.report.placements = len(self.out)
        return History(self.out, self.report)


def _text_of(source) -> tuple[str, str]:
    if isinstance(source, (str, os.PathLike)) and ("\n" not in str(source)) and os.path.exists(source):
        data = read_data(source)
        try:
            return data.decode("utf-8"), os.fspath(source)
        except UnicodeDecodeError:
            raise ValueError(f"{os.fspath(source)}: not a text file") from None
    if isinstance(source, str) and "\n" in source:
        return source, "history"
    raise ValueError(f"{os.fspath(source)}: no such file")


def read_sacct(source, machine, *, strict=True) -> History:
    """Read Slurm's ``sacct --parsable2`` output: the allocations and their nodes.

    Parameters
    ----------
    source : str or path
        A file (``.gz`` read as gzip), or the text itself (with a newline).
    machine : Machine
        The machine the node names resolve on (its labels).
    strict : bool
        True: a malformed line, an unknown host, an end before the start
        or a count that disagrees with the node list is a one-line
        ValueError; False: skipped and counted (``report.bad_lines``).

    Returns
    -------
    History

    Examples
    --------
    >>> from optalloc import instance_path
    >>> from optalloc.machine import read_topology
    >>> m = read_topology(instance_path("topology.conf"))
    >>> text = '''JobID|Start|End|NNodes|NodeList
    ... 7|2024-05-01T10:00:00|2024-05-01T11:00:00|2|cn[001-002]
    ... 7.batch|2024-05-01T10:00:00|2024-05-01T11:00:00|1|cn001
    ... 8_1|Unknown|Unknown|1|None assigned
    ... '''
    >>> h = read_sacct(text, m)
    >>> [(p.job_id, p.nodes) for p in h], h.report.steps, h.report.not_started
    ([('7', (0, 1))], 1, 1)
    """
    text, where = _text_of(source)
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if line.strip()), None)
    if at is None:
        raise ValueError(f"{where}: empty history")
    header = [h.strip() for h in lines[at].split("|")]
    missing = [f for f in _NEEDED if f not in header]
    if missing:
        raise ValueError(f"{where}: the header must name the sacct fields {', '.join(_NEEDED)} "
                         f"(sacct --parsable2 --format=JobID,Start,End,NNodes,NodeList), missing {', '.join(missing)}")
    col = {h: j for j, h in enumerate(header)}
    reader = _Reader(machine, strict, where)
    for no, line in enumerate(lines[at + 1:], start=at + 2):
        if not line.strip():
            continue
        reader.report.lines += 1
        parts = line.split("|")
        if parts and parts[-1] == "" and len(parts) == len(header) + 1:  # --parsable (not 2) ends lines in '|'
            parts.pop()
        if len(parts) != len(header):
            reader.bad(no, f"{len(parts)} fields where the header names {len(header)}")
            continue
        job_id = parts[col["JobID"]].strip()
        if not job_id:
            reader.bad(no, "empty JobID")
            continue
        if _STEP.match(job_id):
            reader.report.steps += 1
            continue
        nnodes = parts[col["NNodes"]] if "NNodes" in col else None
        reader.add(no, job_id, parts[col["Start"]], parts[col["End"]], parts[col["NodeList"]], nnodes)
    return reader.history()


def read_history(source, machine, *, strict=True) -> History:
    """Read a job history: ``sacct --parsable2`` text, CSV or JSON (see the module notes).

    The layout is told from the file: ``.csv`` (columns ``job_id``,
    ``start``, ``end``, ``nodes``), ``.json``/``.jsonl`` (objects with
    those keys), anything else :func:`read_sacct`.  ``strict`` as there.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> h = read_history('job_id,start,end,nodes\\n1,0,10,"nid[00000-00003]"\\n2,5,9,4 5\\n', Machine((4, 4)))
    >>> [(p.job_id, p.start, p.nodes) for p in h]
    [('1', 0.0, (0, 1, 2, 3)), ('2', 5.0, (4, 5))]
    """
    text, where = _text_of(source)
    kind = os.path.splitext(where.removesuffix(".gz"))[1].lower() if where != "history" else ""
    stripped = text.lstrip()
    if kind in (".json", ".jsonl") or (not kind and stripped[:1] in "[{"):
        return _read_json(text, machine, strict, where)
    first = stripped.splitlines()[0] if stripped else ""
    if kind == ".csv" or (not kind and "|" not in first):
        return _read_csv(text, machine, strict, where)
    return read_sacct(text if where == "history" else source, machine, strict=strict)


_KEYS = ("job_id", "start", "end", "nodes")


def _read_csv(text, machine, strict, where) -> History:
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if header is None:
        raise ValueError(f"{where}: empty history")
    header = [h.strip().lower() for h in header]
    missing = [k for k in _KEYS if k not in header]
    if missing:
        raise ValueError(f"{where}: the header must name the columns {', '.join(_KEYS)}, missing {', '.join(missing)}")
    col = {h: j for j, h in enumerate(header)}
    reader = _Reader(machine, strict, where)
    for no, row in enumerate(rows, start=2):
        if not any(c.strip() for c in row):
            continue
        reader.report.lines += 1
        if len(row) != len(header):
            reader.bad(no, f"{len(row)} columns where the header names {len(header)}")
            continue
        reader.add(no, row[col["job_id"]].strip(), row[col["start"]], row[col["end"]], row[col["nodes"]])
    return reader.history()


def _read_json(text, machine, strict, where) -> History:
    stripped = text.strip()
    try:
        if stripped.startswith("["):
            items = [(i + 1, obj) for i, obj in enumerate(json.loads(stripped))]
        else:
            items = [(no, json.loads(line)) for no, line in enumerate(text.splitlines(), start=1) if line.strip()]
    except json.JSONDecodeError as err:
        raise ValueError(f"{where}: not JSON ({err.msg}, line {err.lineno})") from None
    reader = _Reader(machine, strict, where)
    for no, obj in items:
        reader.report.lines += 1
        if not isinstance(obj, dict) or any(k not in obj for k in _KEYS):
            reader.bad(no, f"a job must be an object with the keys {', '.join(_KEYS)}")
            continue
        end = obj["end"] if obj["end"] is not None else "Unknown"
        start = obj["start"] if obj["start"] is not None else "Unknown"
        reader.add(no, obj["job_id"], start, end, obj["nodes"] if obj["nodes"] is not None else "")
    return reader.history()
