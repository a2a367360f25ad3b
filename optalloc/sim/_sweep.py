"""Parameter sweeps of the trace simulator, stored in SQLite, resumable.

A *sweep* is a grid of simulations: trace x machine x scheduler x
allocator (x seed, for random allocators).  The allocator axis can itself
be a grid of options, e.g. the tie-breaking vectors (SR, AF, WF, BF) of
MC1x1 searched by Johnson, Bunde and Leung (sec. III, Figs. 8 and 15).

- :func:`load_sweep` reads a TOML file, :func:`make_sweep` builds the same
  from Python values; both check everything (keys, files, machines,
  schedulers, allocators) before anything runs.
- :func:`run_sweep` runs the configurations not yet in the database, in
  local processes (default), in this process (``workers=1``) or on a Dask
  cluster (``scheduler="tcp://HOST:PORT"``).  Only the calling process
  writes; each configuration's results go in one SQLite transaction.
- :func:`read_sweep` and :func:`read_jobs` read results back;
  :func:`format_sweep` prints them as a table.

Resuming.  Every configuration has a key: a hash of its canonical JSON,
which includes the SHA-256 of the trace file's content (a changed trace
gives new keys).  Its summary, optional per-job rows and the removal of an
earlier failure are committed together, in one transaction, when it ends;
the summary's PRIMARY KEY forbids a second copy.  A sweep killed at any
moment therefore leaves only whole configurations behind, and the same
sweep started again skips them and runs the rest.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime
import hashlib
import itertools
import json
import math
import operator
import os
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from .._table import text_table
from ._allocators import (
    KSubsetAllocator,
    OneDAllocator,
    RandomAllocator,
    parse_allocator,
)
from ._machine import Machine, parse_machine
from ._metrics import JobRecord, Summary
from ._schedulers import SCHEDULERS
from ._simulate import simulate
from ._swf import Trace, _parse_swf, decode_swf, read_swf

__all__ = [
    "Configuration",
    "SweepConfig",
    "SweepReport",
    "format_sweep",
    "load_sweep",
    "make_sweep",
    "read_jobs",
    "read_sweep",
    "run_sweep",
]

#: Version of the canonical configuration JSON; part of every key.
KEY_VERSION = 1
#: Version of the database layout.
SCHEMA_VERSION = 1

_SWEEP_KEYS = ("name", "traces", "machines", "schedulers", "allocators", "seeds", "kill_at_estimate",
               "job_records")
_TRACE_KEYS = ("path", "scale", "processors", "missing_estimate_factor", "max_procs", "oversize", "limit")
_TRACE_DEFAULTS = {"scale": 1, "processors": "auto", "missing_estimate_factor": 1.0, "max_procs": None,
                   "oversize": "skip", "limit": None}


# ---------------------------------------------------------------- configuration


@dataclass(frozen=True)
class Configuration:
    """One simulation of a sweep.

    Attributes
    ----------
    key : str
        Hash of ``spec`` (24 hex digits): the configuration's identity in
        the database.
    index : int
        Position in the sweep (the order of the config file).
    trace, machine, scheduler, allocator : str
        Labels as written in the configuration (trace path, machine text,
        scheduler name, allocator text).
    seed : int or None
        Seed of a random allocator, else None.
    spec : dict
        Canonical description (trace content hash and reading options,
        machine shape and wrap flags, scheduler, allocator and its
        options, seed, ``kill_at_estimate``); ``key`` hashes its JSON.
    """

    key: str
    index: int
    trace: str
    machine: str
    scheduler: str
    allocator: str
    seed: int | None
    spec: dict = field(repr=False, compare=False)


@dataclass(frozen=True)
class SweepConfig:
    """A validated sweep: its configurations in order.

    Attributes
    ----------
    name : str
        The sweep's name.
    configurations : tuple of Configuration
        In grid order: trace, then machine, scheduler, allocator, seed
        (the last varies fastest); duplicates (same key) dropped.
    job_records : bool
        Store one row per job as well as the summary.
    source : str
        The TOML file it came from, or ``""``.
    """

    name: str
    configurations: tuple
    job_records: bool = False
    source: str = ""
    _traces: dict = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.configurations)

    @property
    def keys(self) -> list:
        """The configuration keys, in order."""
        return [c.key for c in self.configurations]


def _fail(where, message):
    raise ValueError(f"{where}: {message}" if where else message)


def _check_keys(table, allowed, where):
    if not isinstance(table, dict):
        _fail(where, f"must be a table, got {type(table).__name__}")
    unknown = [k for k in table if k not in allowed]
    if unknown:
        _fail(where, f"unknown key {unknown[0]!r}; allowed: {', '.join(allowed)}")


def _as_list(value, where, *, allow_empty=False):
    if isinstance(value, (str, dict, Trace)):
        value = [value]
    if not isinstance(value, (list, tuple)):
        _fail(where, f"must be a list, got {type(value).__name__}")
    if not value and not allow_empty:
        _fail(where, "must not be empty")
    return list(value)


def _canon(value):
    """JSON-stable form: tuples become lists, whole floats become ints."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return [_canon(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _canon(v) for k, v in value.items()}
    if isinstance(value, int) or hasattr(value, "__index__"):
        return operator.index(value)
    if isinstance(value, float) or hasattr(value, "__float__"):
        v = float(value)
        if not math.isfinite(v):
            return repr(v)
        return int(v) if v.is_integer() else v
    return str(value)


def _key_of(spec) -> str:
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _trace_digest(trace: Trace) -> str:
    h = hashlib.sha256()
    h.update(json.dumps(trace.max_procs).encode())
    for j in trace.jobs:
        h.update(json.dumps([j.job_id, j.submit, j.runtime, j.procs, j.estimate]).encode())
    return h.hexdigest()


def _prepare_trace(entry, i, base_dir):
    """(label, canonical trace spec, payload) of one ``traces`` entry."""
    where = f"traces[{i}]"
    if isinstance(entry, Trace):
        label = entry.source or f"trace-{i}"
        spec = {"sha256": _trace_digest(entry), "kind": "jobs", "limit": None}
        return label, spec, ("trace", entry)
    if isinstance(entry, (str, os.PathLike)):
        entry = {"path": os.fspath(entry)}
    _check_keys(entry, _TRACE_KEYS, where)
    if "path" not in entry:
        _fail(where, "needs a `path`")
    if not isinstance(entry["path"], str):
        _fail(where, f"`path` must be a string, got {entry['path']!r}")
    opts = {**_TRACE_DEFAULTS, **{k: v for k, v in entry.items() if k != "path"}}
    for name in ("scale", "max_procs", "limit"):
        v = opts[name]
        if v is None and name != "scale":
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            _fail(where, f"`{name}` must be a positive integer, got {v!r}")
    path = Path(entry["path"])
    if not path.is_absolute() and base_dir is not None:
        path = Path(base_dir) / path
    if not path.is_file():
        _fail(where, f"no such trace file {str(path)!r}")
    data = path.read_bytes()
    read_opts = {k: opts[k] for k in ("scale", "processors", "missing_estimate_factor", "max_procs", "oversize")}
    try:  # read once now, so a malformed trace or option stops the sweep before it starts
        read_swf(path, **read_opts)
    except ValueError as exc:
        _fail(where, str(exc))
    spec = {"sha256": hashlib.sha256(data).hexdigest(), "kind": "swf", **_canon(opts)}
    return entry["path"], spec, ("path", str(path.resolve()))


def _allocator_spec(text, seed_list, where):
    """Canonical allocator description and the seeds it runs with."""
    if not isinstance(text, str):
        _fail(where, f"must be an allocator text such as 'mc1x1', got {text!r}")
    try:
        alloc = parse_allocator(text, rng=0)
    except (ValueError, TypeError) as exc:
        _fail(where, f"{text!r}: {exc}")
    if isinstance(alloc, RandomAllocator):
        parts = [p.strip() for p in text.split(":")[1:]]
        seeds = [int(p.split("=", 1)[1]) for p in parts if p.startswith("seed=")]
        return {"method": "random"}, (seeds or seed_list), alloc
    if isinstance(alloc, OneDAllocator):
        return ({"method": "1d", "order": alloc.order_name, "strategy": alloc.strategy, "ring": alloc.ring},
                [None], alloc)
    if isinstance(alloc, KSubsetAllocator):
        return {"method": alloc.method, "options": _canon(alloc.options)}, [None], alloc
    _fail(where, f"{text!r} is not an allocator a sweep can run")  # pragma: no cover
    return None


def _probe(alloc, machine, text, mtext, where):
    """Fail now if the allocator cannot run on the machine (bad options, shapes)."""
    try:
        alloc.ordering(machine)  # 1D orderings check the shape here
        if isinstance(alloc, KSubsetAllocator) and machine.size > 256:  # options (tie vectors) on a smaller mesh
            machine = Machine(tuple(min(n, 8) for n in machine.shape), torus=machine.torus)
        alloc.select(machine, 1)
    except Exception as exc:  # noqa: BLE001 - any failure here is a configuration error
        _fail(where, f"{text!r} cannot run on machine {mtext!r}: {exc}")


def _grid_allocators(grid, where):
    grids = grid if isinstance(grid, list) else [grid]
    out = []
    for g_i, g in enumerate(grids):
        w = where if len(grids) == 1 else f"{where}[{g_i}]"
        if not isinstance(g, dict):
            _fail(w, f"must be a table, got {type(g).__name__}")
        base = g.get("allocator", "mc1x1")
        if not isinstance(base, str) or not base.strip():
            _fail(w, f"`allocator` must be an allocator text such as 'mc1x1', got {base!r}")
        axes = [(k, v) for k, v in g.items() if k != "allocator"]
        if not axes:
            _fail(w, "needs at least one option list, e.g. tie = [[2, 13, 20, 6]]")
        for k, v in axes:
            if not isinstance(v, list) or not v:
                _fail(w, f"`{k}` must be a non-empty list of values, got {v!r}")
        for combo in itertools.product(*(v for _, v in axes)):
            opts = []
            for (k, _), v in zip(axes, combo):
                text = ",".join(map(str, v)) if isinstance(v, list) else str(v)
                opts.append(f"{k}={text}")
            out.append((base.strip() + ":" + ":".join(opts), w))
    return out


def make_sweep(*, traces, machines, schedulers=("easy",), allocators=("mc1x1",), grid=None, seeds=(0,),
               kill_at_estimate=True, job_records=False, name="sweep", base_dir=None,
               source="") -> SweepConfig:
    """Build and check a sweep from Python values.

    Parameters
    ----------
    traces : list
        Each a path, a table ``{path, scale, processors,
        missing_estimate_factor, max_procs, oversize, limit}`` (options of
        :func:`read_swf`; ``max_procs`` defaults to the machine's size,
        ``limit`` keeps the first jobs only), or a :class:`Trace`.
    machines : list of str
        Machine texts (``"8x4"``, ``"8x8 torus"``).
    schedulers : list of str
        ``"fcfs"``, ``"easy"``, ``"conservative"``.
    allocators : list of str
        Texts for :func:`parse_allocator` (``"mc1x1:tie=2,13,20,6"``).
    grid : dict or list of dict, optional
        ``{"allocator": "mc1x1", "tie": [[2, 13, 20, 6], ...]}``: one
        allocator per combination of the listed option values, added after
        ``allocators``.
    seeds : list of int
        Seeds for random allocators (others ignore them).
    kill_at_estimate : bool
        As in :func:`simulate`.
    job_records : bool
        Store per-job rows too.
    name : str
        The sweep's name.
    base_dir : path, optional
        Relative trace paths are taken from here (default: the current
        directory).
    source : str
        Where the description came from, for messages.

    Returns
    -------
    SweepConfig

    Raises
    ------
    ValueError
        Unknown keys, a missing or malformed trace, a bad machine, an
        unknown scheduler or allocator, an allocator that cannot run on a
        machine, or an empty grid; one line naming the entry.

    Examples
    --------
    >>> cfg = make_sweep(traces=["instances/small.swf"], machines=["8x4"],
    ...                  allocators=["mm"], grid={"tie": [[2, 13, 20, 6], "default"]})
    >>> [c.allocator for c in cfg.configurations]
    ['mm', 'mc1x1:tie=2,13,20,6', 'mc1x1:tie=default']
    >>> make_sweep(traces=["instances/small.swf"], machines=["8x4"], allocators=["nope"])
    Traceback (most recent call last):
    ...
    ValueError: allocators[0]: 'nope': unknown method 'nope'; choose one of: ...
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"`name` must be a non-empty string, got {name!r}")
    if not isinstance(kill_at_estimate, bool):
        raise ValueError(f"`kill_at_estimate` must be true or false, got {kill_at_estimate!r}")  # noqa: TRY004
    if not isinstance(job_records, bool):
        raise ValueError(f"`job_records` must be true or false, got {job_records!r}")  # noqa: TRY004
    seed_list = _as_list(seeds, "seeds")
    for s in seed_list:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            _fail("seeds", f"must be non-negative integers, got {s!r}")

    trace_items = [_prepare_trace(t, i, base_dir) for i, t in enumerate(_as_list(traces, "traces"))]
    machine_items = []
    for i, m in enumerate(_as_list(machines, "machines")):
        if not isinstance(m, str):
            _fail(f"machines[{i}]", f"must be a text such as '16x8' or '8x8 torus', got {m!r}")
        try:
            mach = parse_machine(m)
        except ValueError as exc:
            _fail(f"machines[{i}]", str(exc))
        machine_items.append((m, mach, {"shape": list(mach.shape), "torus": list(mach.torus)}))
    sched_items = []
    for i, s in enumerate(_as_list(schedulers, "schedulers")):
        if not isinstance(s, str) or s.lower() not in SCHEDULERS:
            _fail(f"schedulers[{i}]", f"must be one of {', '.join(map(repr, SCHEDULERS))}, got {s!r}")
        sched_items.append(s.lower())
    texts = [(a, f"allocators[{i}]") for i, a in enumerate(_as_list(allocators, "allocators", allow_empty=True))]
    if grid is not None:
        texts += _grid_allocators(grid, "grid")
    if not texts:
        _fail("allocators", "must not be empty (or give a [grid])")
    alloc_items = []
    for text, where in texts:
        spec, alloc_seeds, alloc = _allocator_spec(text, seed_list, where)
        for mtext, mach, _ in machine_items:
            _probe(alloc, mach, text, mtext, where)
        alloc_items.append((text, spec, alloc_seeds))

    configs, seen, payloads = [], set(), {}
    for tlabel, tspec, payload in trace_items:
        payloads[tspec["sha256"]] = payload
        for mtext, _, mspec in machine_items:
            for sched in sched_items:
                for atext, aspec, aseeds in alloc_items:
                    for seed in aseeds:
                        spec = {"v": KEY_VERSION, "trace": tspec, "machine": mspec, "scheduler": sched,
                                "allocator": aspec, "seed": seed, "kill_at_estimate": kill_at_estimate}
                        key = _key_of(spec)
                        if key in seen:
                            continue
                        seen.add(key)
                        configs.append(Configuration(key, len(configs), tlabel, mtext, sched, atext, seed, spec))
    return SweepConfig(name.strip(), tuple(configs), job_records, source, payloads)


def load_sweep(path) -> SweepConfig:
    """Read and check a sweep description (TOML).

    Parameters
    ----------
    path : str or path-like
        The file; trace paths in it are relative to its directory.

    Returns
    -------
    SweepConfig

    Raises
    ------
    ValueError
        Missing file, invalid TOML, or any error of :func:`make_sweep`;
        the message starts with the file name.

    Notes
    -----
    Format::

        [sweep]
        name = "tie-breaking"
        traces = [{path = "small.swf", scale = 1}]   # or ["small.swf"]
        machines = ["8x4"]
        schedulers = ["easy"]
        allocators = ["mc1x1", "mm"]
        seeds = [0]              # random allocators only
        kill_at_estimate = true
        job_records = false      # per-job rows

        [grid]                   # or [[grid]] tables, one per base
        allocator = "mc1x1"
        tie = [[2, 13, 20, 6], [3, 9, 3, 2]]

    Examples
    --------
    >>> cfg = load_sweep("instances/sweep-example.toml")
    >>> cfg.name, len(cfg)
    ('tie-breaking', 6)
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read file ({exc.strerror})") from None
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: invalid TOML ({exc})") from None
    unknown = [k for k in doc if k not in ("sweep", "grid")]
    if unknown:
        raise ValueError(f"{path}: unknown table or key {unknown[0]!r}; expected [sweep] and [grid]")
    if "sweep" not in doc:
        raise ValueError(f"{path}: needs a [sweep] table")
    sweep = doc["sweep"]
    try:
        _check_keys(sweep, _SWEEP_KEYS, "[sweep]")
        for req in ("traces", "machines"):
            if req not in sweep:
                _fail("[sweep]", f"needs `{req}`")
        return make_sweep(base_dir=path.parent, source=str(path), grid=doc.get("grid"),
                          **{"name": path.stem, **sweep})
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


# ---------------------------------------------------------------- the worker

_TRACE_CACHE: dict = {}


def _load_trace(spec, payload, machine_size):
    tspec = spec["trace"]
    kind, value = payload
    cache_key = (json.dumps(tspec, sort_keys=True), machine_size)
    cached = _TRACE_CACHE.get(cache_key)
    if cached is not None:
        return cached
    if kind == "trace":
        trace = value
    else:
        # a remote worker gets the file's bytes and parses them in memory (no
        # file left behind); a local one reads the path
        source = "" if kind == "bytes" else value
        data = value if kind == "bytes" else Path(value).read_bytes()
        if hashlib.sha256(data).hexdigest() != tspec["sha256"]:
            raise RuntimeError(f"trace file {source!r} changed since the sweep started")
        max_procs = tspec["max_procs"] if tspec["max_procs"] is not None else machine_size
        trace = _parse_swf(decode_swf(data), source, tspec["processors"], tspec["missing_estimate_factor"],
                           max_procs, tspec["oversize"], tspec["scale"], True)
    if tspec.get("limit") is not None:
        trace = trace.head(tspec["limit"])
    if len(_TRACE_CACHE) >= 8:
        _TRACE_CACHE.clear()
    _TRACE_CACHE[cache_key] = trace
    return trace


def _run_config(task, payload):
    """Simulate one configuration; never raises (errors come back as text).

    Runs in a worker process or on a Dask worker; returns plain data for
    the parent to write.
    """
    t0 = time.perf_counter()
    spec = task["spec"]
    try:
        machine = Machine(tuple(spec["machine"]["shape"]), torus=tuple(spec["machine"]["torus"]))
        trace = _load_trace(spec, payload, machine.size)
        res = simulate(trace, machine, scheduler=spec["scheduler"], allocator=task["allocator"],
                       kill_at_estimate=spec["kill_at_estimate"], rng=spec["seed"])
    except Exception as exc:  # noqa: BLE001 - reported and stored as a failure
        msg = " ".join(str(exc).split()) or "(no message)"
        return {"key": task["key"], "error": f"{type(exc).__name__}: {msg}",
                "wall_time": time.perf_counter() - t0}
    return {"key": task["key"], "summary": res.summary.to_dict(), "trace_report": res.trace_report.to_dict(),
            "allocator_name": res.allocator,
            "records": [r.to_dict() for r in res.records] if task["job_records"] else None,
            "wall_time": time.perf_counter() - t0}


# ---------------------------------------------------------------- the database

_SUMMARY_FIELDS = tuple(f.name for f in dataclasses.fields(Summary))
_JOB_FIELDS = tuple(f.name for f in dataclasses.fields(JobRecord))


def _sql_type(f) -> str:
    t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    return "INTEGER" if t.startswith(("int", "bool")) else ("TEXT" if t.startswith(("tuple", "str")) else "REAL")


def _q(name) -> str:
    return '"' + name.replace('"', '""') + '"'


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _connect(db, *, create):
    path = os.fspath(db)
    if not create and not os.path.isfile(path):
        raise ValueError(f"`db` {path!r}: no such file")
    if os.path.isdir(path):
        raise ValueError(f"`db` {path!r} is a directory")
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=60)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"`db` {path!r} is not an SQLite database ({exc})") from None
    if tables and "sweep_meta" not in tables:
        conn.close()
        raise ValueError(f"`db` {path!r} is an SQLite database of something else "
                         f"(tables: {', '.join(sorted(tables))}); choose another file")
    if "sweep_meta" in tables:
        row = conn.execute("SELECT value FROM sweep_meta WHERE name='schema_version'").fetchone()
        if row is None or int(row[0]) != SCHEMA_VERSION:
            conn.close()
            raise ValueError(f"`db` {path!r} has sweep schema version {row and row[0]}, "
                             f"this version of optalloc writes {SCHEMA_VERSION}")
    elif not create:
        conn.close()
        raise ValueError(f"`db` {path!r} holds no sweep results")
    if create:
        _init_schema(conn)
    return conn


def _init_schema(conn):
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    summary_cols = ", ".join(f"{_q(f.name)} {_sql_type(f)}" for f in dataclasses.fields(Summary))
    job_cols = ", ".join(f"{_q(f.name)} {_sql_type(f)}" for f in dataclasses.fields(JobRecord))
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS sweep_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT OR IGNORE INTO sweep_meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        conn.execute("CREATE TABLE IF NOT EXISTS configurations (key TEXT PRIMARY KEY, spec TEXT NOT NULL, "
                     "trace TEXT, machine TEXT, scheduler TEXT, allocator TEXT, seed INTEGER, sweep TEXT, "
                     "added_at TEXT)")
        conn.execute(f"CREATE TABLE IF NOT EXISTS summaries (key TEXT PRIMARY KEY REFERENCES configurations, "
                     f"{summary_cols}, allocator_name TEXT, trace_report TEXT, wall_time REAL, finished_at TEXT)")
        conn.execute(f"CREATE TABLE IF NOT EXISTS jobs (key TEXT NOT NULL REFERENCES configurations, {job_cols}, "
                     "PRIMARY KEY (key, job_id))")
        conn.execute("CREATE TABLE IF NOT EXISTS failures (key TEXT PRIMARY KEY REFERENCES configurations, "
                     "error TEXT NOT NULL, attempts INTEGER NOT NULL, failed_at TEXT)")
        have = {r[1] for r in conn.execute("PRAGMA table_info(summaries)")}
        for f in dataclasses.fields(Summary):  # a newer Summary field: add its column, old rows get NULL
            if f.name not in have:
                conn.execute(f"ALTER TABLE summaries ADD COLUMN {_q(f.name)} {_sql_type(f)}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _register_configs(conn, config):
    now = _now()
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany(
            "INSERT OR IGNORE INTO configurations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(c.key, json.dumps(c.spec, sort_keys=True), c.trace, c.machine, c.scheduler, c.allocator, c.seed,
              config.name, now) for c in config.configurations])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _job_rows(key, records):
    for r in records:
        yield (key, *(json.dumps(r[n]) if n in ("bbox", "nodes") else r[n] for n in _JOB_FIELDS))


def _write_result(conn, out) -> str:
    """Store one finished configuration in one transaction: 'ok', 'failed' or 'skipped'."""
    key = out["key"]
    conn.execute("BEGIN IMMEDIATE")
    try:
        if "error" in out:
            if conn.execute("SELECT 1 FROM summaries WHERE key=?", (key,)).fetchone():
                conn.execute("ROLLBACK")  # done meanwhile by another run: keep that
                return "skipped"
            conn.execute("INSERT INTO failures VALUES (?, ?, 1, ?) ON CONFLICT(key) DO UPDATE SET "
                         "error=excluded.error, attempts=attempts+1, failed_at=excluded.failed_at",
                         (key, out["error"], _now()))
            conn.execute("COMMIT")
            return "failed"
        s = out["summary"]
        cols = [*_SUMMARY_FIELDS, "allocator_name", "trace_report", "wall_time", "finished_at"]
        values = [s[n] for n in _SUMMARY_FIELDS] + [out["allocator_name"], json.dumps(out["trace_report"]),
                                                    out["wall_time"], _now()]
        conn.execute(f"INSERT INTO summaries (key, {', '.join(map(_q, cols))}) "
                     f"VALUES ({', '.join('?' * (len(cols) + 1))})", [key, *values])
        if out.get("records") is not None:
            conn.executemany(f"INSERT INTO jobs (key, {', '.join(map(_q, _JOB_FIELDS))}) "
                             f"VALUES ({', '.join('?' * (len(_JOB_FIELDS) + 1))})", _job_rows(key, out["records"]))
        conn.execute("DELETE FROM failures WHERE key=?", (key,))
        conn.execute("COMMIT")
        return "ok"
    except sqlite3.IntegrityError as exc:
        conn.execute("ROLLBACK")
        if conn.execute("SELECT 1 FROM summaries WHERE key=?", (key,)).fetchone():
            return "skipped"  # another run stored it first; the PRIMARY KEY kept one copy
        return _write_result(conn, {"key": key, "error": f"IntegrityError: {exc} (repeated job ids in the trace?)"})
    except BaseException:
        conn.execute("ROLLBACK")
        raise


# ---------------------------------------------------------------- running


@dataclass(frozen=True)
class SweepReport:
    """What :func:`run_sweep` did.

    ``total = skipped + run + failed``.

    Attributes
    ----------
    name : str
    db : str
        The database file.
    total : int
        Configurations in the sweep.
    skipped : int
        Already done (found in the database), not run again.
    run : int
        Run and stored now.
    failed : int
        Run now and failed; stored in the ``failures`` table, retried by
        the next run.
    failures : tuple of (str, str)
        Key and error message of each failure.
    wall_time : float
        Seconds.
    """

    name: str
    db: str
    total: int
    skipped: int
    run: int
    failed: int
    failures: tuple = ()
    wall_time: float = field(default=0.0, compare=False)

    def to_dict(self) -> dict:
        """Plain-Python view (JSON-ready)."""
        out = dataclasses.asdict(self)
        out["failures"] = [list(f) for f in self.failures]
        return out


class _Progress:
    def __init__(self, enabled, name, total, skipped, todo, where):
        self.enabled, self.total, self.done = enabled, total, skipped
        self.t0 = time.perf_counter()
        if enabled:
            plan = f"{todo} to run {where}" if todo else "nothing to run"
            self._say(f"sweep {name}: {total} configurations, {skipped} done before, {plan}")

    def _say(self, text):
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def step(self, cfg, status, out):
        self.done += 1
        if self.enabled:
            extra = f": {out['error']}" if status == "failed" else ""
            seed = "" if cfg.seed is None else f" seed={cfg.seed}"
            self._say(f"[{self.done}/{self.total}] {status} {cfg.trace} {cfg.machine} {cfg.scheduler} "
                      f"{cfg.allocator}{seed} ({out.get('wall_time', 0.0):.1f} s; "
                      f"{time.perf_counter() - self.t0:.1f} s elapsed){extra}")


def _check_workers(workers):
    if workers is None:
        return os.cpu_count() or 1
    try:
        workers = operator.index(workers)
    except TypeError:
        raise ValueError(f"`workers` must be a positive integer, got {workers!r}") from None
    if workers < 1:
        raise ValueError(f"`workers` must be at least 1, got {workers}")
    return workers


def _dask_client(scheduler):
    if not isinstance(scheduler, str):
        if hasattr(scheduler, "submit") and hasattr(scheduler, "scatter"):
            return scheduler, False
        raise ValueError(f"`scheduler` must be an address such as 'tcp://HOST:PORT' or a "
                         f"distributed.Client, got {scheduler!r}")
    if "://" not in scheduler:
        raise ValueError(f"`scheduler` must be an address such as 'tcp://HOST:PORT', got {scheduler!r}")
    try:
        from distributed import Client
    except ImportError as exc:
        raise ImportError(f"a Dask scheduler needs dask and distributed (pip install 'optalloc[cluster]'): {exc}") \
            from None
    try:
        return Client(scheduler, timeout=20), True
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"`scheduler` {scheduler!r}: cannot connect ({exc})") from None


def _execute_local(tasks, payloads, workers, handle):
    if workers == 1 or len(tasks) <= 1:
        for task in tasks:
            handle(task, _run_config(task, payloads[task["sha"]]))
        return
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
        futures = {pool.submit(_run_config, t, payloads[t["sha"]]): t for t in tasks}
        try:
            for fut in concurrent.futures.as_completed(futures):
                task = futures[fut]
                try:
                    out = fut.result()
                except Exception as exc:  # noqa: BLE001 - a worker process died
                    out = {"key": task["key"], "error": f"{type(exc).__name__}: {exc}"}
                handle(task, out)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _execute_dask(tasks, payloads, client, handle):
    futures = []
    try:
        from distributed import as_completed

        shipped = {}
        for sha in {t["sha"] for t in tasks}:
            kind, value = payloads[sha]
            data = ("bytes", Path(value).read_bytes()) if kind == "path" else (kind, value)
            shipped[sha] = client.scatter(data, hash=False)  # sent once, not with every task
        by_future = {}
        for t in tasks:
            fut = client.submit(_run_config, t, shipped[t["sha"]], pure=False)
            by_future[fut.key] = t
            futures.append(fut)
        for fut in as_completed(futures):
            task = by_future[fut.key]
            try:
                out = fut.result()
            except Exception as exc:  # noqa: BLE001 - a lost or killed worker
                out = {"key": task["key"], "error": f"{type(exc).__name__}: {exc}"}
            handle(task, out)
    finally:
        for fut in futures:
            if not fut.done():
                fut.cancel()


def run_sweep(config, db, *, workers=None, scheduler=None, progress=False) -> SweepReport:
    """Run the configurations of a sweep that the database does not hold yet.

    Parameters
    ----------
    config : SweepConfig or path
        A sweep, or a TOML file for :func:`load_sweep`.
    db : path
        SQLite file, created when missing and otherwise appended to (never
        cleared): results of earlier runs, of this or other sweeps, stay.
    workers : int, optional
        Local worker processes (default ``os.cpu_count()``); 1 runs
        everything in this process.  Ignored with ``scheduler``.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address (``"tcp://HOST:PORT"``) or client: the
        configurations run on its workers; traces are shipped to them.
    progress : bool
        A line on stderr per finished configuration.

    Returns
    -------
    SweepReport

    Raises
    ------
    ValueError
        Bad arguments, a database file that is not a sweep database, an
        unreachable scheduler.
    ImportError
        ``scheduler`` given without dask.distributed installed.

    Notes
    -----
    Tables: ``configurations`` (key, canonical JSON ``spec``, labels),
    ``summaries`` (key, one column per :class:`Summary` field, trace
    report, wall time, finish time), ``jobs`` (per-job rows, key and job
    id; with ``job_records``), ``failures`` (key, error, attempts).
    Workers only compute; this process writes each configuration's rows
    in one transaction (WAL journal, synchronous commits), so killing a
    sweep loses at most the configurations still running, and running it
    again skips the stored ones, retries failures, and never duplicates a
    row.

    Examples
    --------
    >>> import os, tempfile
    >>> cfg = make_sweep(traces=[{"path": "instances/small.swf", "limit": 20}], machines=["8x4"],
    ...                  allocators=["mc1x1", "mm"])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     db = os.path.join(d, "s.sqlite")
    ...     first = run_sweep(cfg, db, workers=1)
    ...     again = run_sweep(cfg, db, workers=1)
    >>> (first.run, first.skipped), (again.run, again.skipped)
    ((2, 0), (0, 2))
    """
    t0 = time.perf_counter()
    if not isinstance(config, SweepConfig):
        config = load_sweep(config)
    workers = _check_workers(workers)
    client, own = _dask_client(scheduler) if scheduler is not None else (None, False)  # fail before the db
    try:
        return _run(config, db, workers, scheduler, client, progress, t0)
    finally:
        if own:
            client.close()


def _run(config, db, workers, scheduler, client, progress, t0):
    conn = _connect(db, create=True)
    try:
        _register_configs(conn, config)
        done = {r[0] for r in conn.execute("SELECT key FROM summaries")}
        todo = [c for c in config.configurations if c.key not in done]
        skipped = len(config) - len(todo)
        by_key = {c.key: c for c in todo}
        tasks = [{"key": c.key, "spec": c.spec, "allocator": c.allocator, "sha": c.spec["trace"]["sha256"],
                  "job_records": config.job_records} for c in todo]
        where = ("on " + (scheduler if isinstance(scheduler, str) else "a Dask cluster")) if scheduler is not None \
            else ("in this process" if workers == 1 or len(todo) <= 1 else f"on {min(workers, len(todo))} processes")
        prog = _Progress(progress, config.name, len(config), skipped, len(todo), where)
        counts = {"ok": 0, "failed": 0, "skipped": 0}
        failures = []

        def handle(task, out):
            status = _write_result(conn, out)
            counts[status] += 1
            if status == "failed":
                failures.append((task["key"], out["error"]))
            prog.step(by_key[task["key"]], status, out)

        if tasks:
            if scheduler is not None:
                _execute_dask(tasks, config._traces, client, handle)
            else:
                _execute_local(tasks, config._traces, workers, handle)
    finally:
        conn.close()
    return SweepReport(config.name, os.fspath(db), len(config), skipped + counts["skipped"], counts["ok"],
                       counts["failed"], tuple(failures), time.perf_counter() - t0)


# ---------------------------------------------------------------- reading


def _row_dict(conn, key_rows):
    scols = [*_SUMMARY_FIELDS, "allocator_name", "trace_report", "wall_time", "finished_at"]
    summaries = {r[0]: r[1:] for r in conn.execute(f"SELECT key, {', '.join(map(_q, scols))} FROM summaries")}
    failures = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT key, error, attempts FROM failures")}
    out = []
    for index, key, spec, trace, machine, scheduler, allocator, seed, sweep in key_rows:
        row = {"index": index, "key": key, "sweep": sweep, "trace": trace, "machine": machine,
               "scheduler": scheduler, "allocator": allocator, "seed": seed, "spec": json.loads(spec),
               "status": "pending", "summary": None, "trace_report": None, "allocator_name": None,
               "wall_time": None, "finished_at": None, "error": None, "attempts": 0}
        if key in summaries:
            vals = summaries[key]
            n = len(_SUMMARY_FIELDS)
            row.update(status="done", summary=dict(zip(_SUMMARY_FIELDS, vals[:n])), allocator_name=vals[n],
                       trace_report=json.loads(vals[n + 1]), wall_time=vals[n + 2], finished_at=vals[n + 3])
        elif key in failures:
            row.update(status="failed", error=failures[key][0], attempts=failures[key][1])
        out.append(row)
    return out


def read_sweep(db, config=None) -> list:
    """Configurations and their results, from a sweep database.

    Parameters
    ----------
    db : path
        The SQLite file of :func:`run_sweep`.
    config : SweepConfig or path, optional
        Only this sweep's configurations, in its order (its labels);
        default: every configuration in the file, in the order stored.

    Returns
    -------
    list of dict
        Per configuration: ``index``, ``key``, ``sweep``, ``trace``,
        ``machine``, ``scheduler``, ``allocator``, ``seed``, ``spec``,
        ``status`` (``"done"``, ``"failed"`` or ``"pending"``),
        ``summary`` (dict of :class:`Summary` fields, or None),
        ``trace_report``, ``allocator_name``, ``wall_time``,
        ``finished_at``, ``error`` and ``attempts`` (failures).

    Examples
    --------
    >>> import os, tempfile
    >>> cfg = make_sweep(traces=[{"path": "instances/small.swf", "limit": 20}], machines=["8x4"],
    ...                  allocators=["mm"])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = run_sweep(cfg, os.path.join(d, "s.sqlite"), workers=1)
    ...     rows = read_sweep(os.path.join(d, "s.sqlite"))
    >>> rows[0]["allocator"], rows[0]["status"], rows[0]["summary"]["jobs"]
    ('mm', 'done', 20)
    """
    conn = _connect(db, create=False)
    try:
        cols = "key, spec, trace, machine, scheduler, allocator, seed, sweep"
        if config is None:
            rows = [(i, *r) for i, r in enumerate(conn.execute(f"SELECT {cols} FROM configurations ORDER BY rowid"))]
        else:
            if not isinstance(config, SweepConfig):
                config = load_sweep(config)
            rows = [(c.index, c.key, json.dumps(c.spec, sort_keys=True), c.trace, c.machine, c.scheduler,
                     c.allocator, c.seed, config.name) for c in config.configurations]
        return _row_dict(conn, rows)
    finally:
        conn.close()


def read_jobs(db, key) -> list:
    """Per-job rows of one configuration (stored with ``job_records``).

    Returns
    -------
    list of dict
        :class:`JobRecord` fields, in job id order; empty when none are
        stored.
    """
    conn = _connect(db, create=False)
    try:
        rows = conn.execute(f"SELECT {', '.join(map(_q, _JOB_FIELDS))} FROM jobs WHERE key=? ORDER BY job_id",
                            (key,)).fetchall()
    finally:
        conn.close()
    out = []
    for r in rows:
        d = dict(zip(_JOB_FIELDS, r))
        d["bbox"], d["nodes"] = json.loads(d["bbox"]), json.loads(d["nodes"])
        d["killed"] = bool(d["killed"])
        out.append(d)
    return out


def _cell(x, digits=4):
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if abs(x) < 1e5 else f"{x:.0f}"
    return str(x)


def format_sweep(rows) -> str:
    """A text table of :func:`read_sweep` rows: configuration and key results.

    Columns: index, trace, machine, scheduler, allocator, seed, status,
    mean wait, utilisation, mean average pairwise L1, tie share.

    Examples
    --------
    >>> print(format_sweep([{"index": 0, "trace": "t.swf", "machine": "8x4", "scheduler": "easy",
    ...     "allocator": "mm", "seed": None, "status": "pending", "summary": None}]))
    #  trace  machine  scheduler  allocator  seed  status   mean_wait  util  mean_avg_l1  tie_share
    0  t.swf  8x4      easy       mm         -     pending  -          -     -            -
    """
    head = ["#", "trace", "machine", "scheduler", "allocator", "seed", "status", "mean_wait", "util",
            "mean_avg_l1", "tie_share"]
    body = []
    for r in rows:
        s = r.get("summary") or {}
        body.append([str(r["index"]), r["trace"], r["machine"], r["scheduler"], r["allocator"], _cell(r["seed"]),
                      r["status"], _cell(s.get("mean_wait"), 6), _cell(s.get("utilisation")),
                      _cell(s.get("mean_avg_l1")), _cell(s.get("tie_share"))])
    return text_table(head, body, rule=False)


# ---------------------------------------------------------------- command line


def _cmd_sweep(args) -> int:
    config = load_sweep(args.config)
    db = args.db if args.db is not None else str(Path(args.config).with_suffix(".sqlite"))
    if args.dry_run:
        rows = read_sweep(db, config) if os.path.isfile(db) else [
            {"index": c.index, "key": c.key, "trace": c.trace, "machine": c.machine, "scheduler": c.scheduler,
             "allocator": c.allocator, "seed": c.seed, "status": "pending", "summary": None}
            for c in config.configurations]
        report = None
    else:
        try:
            report = run_sweep(config, db, workers=args.workers, scheduler=args.scheduler, progress=args.progress)
        except ImportError as exc:
            raise ValueError(str(exc)) from None
        rows = read_sweep(db, config)
    if args.json:
        out = {"sweep": config.name, "db": db, "report": report.to_dict() if report else None,
               "configurations": [{k: v for k, v in r.items() if k != "spec"} for r in rows]}
        print(json.dumps(out))
    else:
        print(format_sweep(rows))
        if report is not None:
            print(f"\n{report.total} configurations: {report.skipped} done before, {report.run} run, "
                  f"{report.failed} failed ({report.wall_time:.1f} s); results in {db}")
            for key, err in report.failures:
                print(f"failed {key}: {err}")
    return 1 if report is not None and report.failed else 0


def register_sweep(sub) -> None:
    """Add the ``sweep`` subcommand to the ``optalloc`` subparsers ``sub``."""
    p = sub.add_parser(
        "sweep", help="run a grid of trace simulations into an SQLite file (resumable)",
        description="Run every configuration (trace x machine x scheduler x allocator x seed) of a TOML sweep "
                    "description that the database does not hold yet, then print a table of results. "
                    "The database is appended to, never cleared; an interrupted sweep resumes where it stopped. "
                    "Exit code 1 when a configuration failed (rerunning retries it).")
    p.add_argument("config", metavar="CONFIG.toml", help="sweep description (see docs/sweeps.md)")
    p.add_argument("--db", metavar="FILE", help="SQLite results file (default: CONFIG with suffix .sqlite)")
    p.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: CPU count; 1: "
                                                            "in this process)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask scheduler's workers")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.add_argument("--progress", action="store_true", help="a line on stderr per finished configuration")
    p.add_argument("--dry-run", action="store_true", help="list the configurations and their status; run nothing")
    p.set_defaults(func=_cmd_sweep)

