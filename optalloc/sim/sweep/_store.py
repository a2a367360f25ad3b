"""The SQLite store of a sweep: schema, one transaction per result, reading back.

Tables: ``sweep_meta`` (schema version), ``configurations`` (key,
canonical JSON ``spec``, labels), ``summaries`` (key, one column per
:class:`Summary` field, trace report, wall time, finish time), ``jobs``
(per-job rows, key and job id), ``failures`` (key, error, attempts) and
``certifications`` (key, metric, decisions, proven, mean gap,
termination, exact seconds, and the certification's summary as JSON;
sweeps of kind ``"certify"``), ``claims`` (the configurations running
now: key, the run holding it, its pid, host and heartbeat; ``_claims``).
Only the calling process writes; each finished configuration is stored
in one transaction with the release of its claim, and the PRIMARY KEYs
forbid a second copy.  A write SQLite refuses (a full disk) rolls back
and stops the run with a one-line OSError naming the file.  An existing
file is checked (``PRAGMA quick_check``, on a read-only connection)
before it is resumed or read: a damaged store is refused, untouched,
and ``_recover`` copies what can still be read into a new one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import NamedTuple

from ..metrics import JobRecord, Summary, require_pandas
from ._spec import SweepConfig
from ._toml import load_sweep

__all__ = ["read_jobs", "read_sweep"]

#: Version of the database layout.
SCHEMA_VERSION = 1

_SUMMARY_FIELDS = tuple(f.name for f in dataclasses.fields(Summary))
_JOB_FIELDS = tuple(f.name for f in dataclasses.fields(JobRecord))
#: Keys of a read_sweep row other than ``summary``: the first columns of its DataFrame.
_FRAME_LABELS = ("index", "key", "sweep", "trace", "machine", "scheduler", "allocator", "seed", "spec", "status",
                 "trace_report", "allocator_name", "wall_time", "finished_at", "error", "attempts", "certification")
#: Columns of ``summaries`` after the key.
_RESULT_COLUMNS = (*_SUMMARY_FIELDS, "allocator_name", "trace_report", "wall_time", "finished_at")


def _sql_type(f) -> str:
    t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    return "INTEGER" if t.startswith(("int", "bool")) else ("TEXT" if t.startswith(("tuple", "str")) else "REAL")


def _q(name) -> str:
    return '"' + name.replace('"', '""') + '"'


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


class _Store(sqlite3.Connection):
    """A connection to a sweep store that knows its file (for messages)."""

    path = ""


#: Stores found intact by this process: path -> (state of the file and its WAL) when checked.
_VERIFIED: dict = {}


def _file_state(path):
    out = []
    for p in (path, path + "-wal"):
        try:
            st = os.stat(p)
        except OSError:
            out.append(None)
        else:
            out.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


def _damaged(path, detail) -> ValueError:
    """The one-line error for a damaged store: what is wrong, and how to save what can be read."""
    detail = " ".join(str(detail).split())
    detail = detail if len(detail) <= 120 else detail[:117] + "..."
    return ValueError(f"`db` {path!r} is damaged ({detail}) and was left as it is; copy what can still be read "
                      f"into a new store, then run the rest, with `optalloc sweep CONFIG --recover-from {path} "
                      f"--db NEW.sqlite` (Python: recover_sweep({path!r}, 'NEW.sqlite', config))")


def _write_error(path, exc) -> OSError:
    """The one-line error for a write the store refused (full disk, I/O error, a lock held too long)."""
    return OSError(f"cannot write the sweep store {path!r} ({exc}); every configuration stored before is kept: "
                   "make room (or wait for the lock) and run the sweep again to compute the rest")


@contextlib.contextmanager
def _transaction(conn):
    """``BEGIN IMMEDIATE ... COMMIT``, rolled back on any error; a write SQLite
    refuses (``database or disk is full``, ``disk I/O error``, ``database is
    locked``) becomes a one-line OSError naming the file, damage found on the
    way the one-line ValueError of a damaged store."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite may have rolled back already (SQLITE_FULL)
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise
    except sqlite3.IntegrityError:
        raise
    except sqlite3.OperationalError as exc:
        raise _write_error(conn.path, exc) from None
    except sqlite3.DatabaseError as exc:  # SQLITE_CORRUPT, SQLITE_NOTADB: damaged while in use
        raise _damaged(conn.path, exc) from None


def _inspect(path, *, create):
    """Check an existing file before it is used, on a read-only connection (nothing written):
    an SQLite file of sweep results in this schema version, whole (``PRAGMA quick_check``)."""
    state = _file_state(path)
    if _VERIFIED.get(path) == state:
        return
    try:
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True, timeout=60)
    except sqlite3.Error as exc:
        raise ValueError(f"`db` {path!r}: cannot open ({exc})") from None
    try:
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            if exc.sqlite_errorname == "SQLITE_CORRUPT":
                raise _damaged(path, exc) from None
            raise ValueError(f"`db` {path!r} is not an SQLite database ({exc})") from None
        if tables and "sweep_meta" not in tables:
            raise ValueError(f"`db` {path!r} is an SQLite database of something else "
                             f"(tables: {', '.join(sorted(tables))}); choose another file")
        if not tables:
            if not create:
                raise ValueError(f"`db` {path!r} holds no sweep results")
            return
        try:
            problems = [r[0] for r in conn.execute("PRAGMA quick_check")]
            row = conn.execute("SELECT value FROM sweep_meta WHERE name='schema_version'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise _damaged(path, exc) from None
        if problems != ["ok"]:
            more = f" and {len(problems) - 1} more problems" if len(problems) > 1 else ""
            raise _damaged(path, f"quick_check: {problems[0]}{more}")
        if row is None or int(row[0]) != SCHEMA_VERSION:
            raise ValueError(f"`db` {path!r} has sweep schema version {row and row[0]}, "
                             f"this version of optalloc writes {SCHEMA_VERSION}")
    finally:
        conn.close()
    _VERIFIED[path] = state


def _connect(db, *, create):
    """A connection to the store ``db``, checked first when the file exists
    (:func:`_inspect`); ``create``: make the file and tables when missing."""
    path = os.fspath(db)
    if os.path.isdir(path):
        raise ValueError(f"`db` {path!r} is a directory")
    if os.path.isfile(path):
        _inspect(path, create=create)
    elif not create:
        raise ValueError(f"`db` {path!r}: no such file")
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=60, factory=_Store)
    except sqlite3.Error as exc:
        raise ValueError(f"`db` {path!r}: cannot open ({exc})") from None
    conn.path = path
    if create:
        try:
            _init_schema(conn)
        except BaseException:
            conn.close()
            raise
    return conn


def _wal(conn, wait: float = 60.0) -> None:
    """Put the store in WAL mode.  Switching needs the file to itself, and
    SQLite answers "locked" at once, without its busy wait, while another
    process opens the same new store: retry until ``wait`` seconds pass."""
    deadline = time.monotonic() + wait
    pause = 0.01
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(0.5, 2 * pause)


def _init_schema(conn):
    try:
        _wal(conn)
        conn.execute("PRAGMA synchronous=FULL")
    except sqlite3.OperationalError as exc:
        raise _write_error(conn.path, exc) from None
    summary_cols = ", ".join(f"{_q(f.name)} {_sql_type(f)}" for f in dataclasses.fields(Summary))
    job_cols = ", ".join(f"{_q(f.name)} {_sql_type(f)}" for f in dataclasses.fields(JobRecord))
    with _transaction(conn):
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
        conn.execute("CREATE TABLE IF NOT EXISTS certifications (key TEXT PRIMARY KEY REFERENCES configurations, "
                     "metric TEXT, decisions INTEGER, proven INTEGER, mean_gap REAL, termination TEXT, "
                     "exact_seconds REAL, result TEXT NOT NULL)")
        conn.execute("CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, pid INTEGER, "
                     "host TEXT, claimed_at TEXT, heartbeat REAL)")
        have = {r[1] for r in conn.execute("PRAGMA table_info(summaries)")}
        for f in dataclasses.fields(Summary):  # a newer Summary field: add its column, old rows get NULL
            if f.name not in have:
                conn.execute(f"ALTER TABLE summaries ADD COLUMN {_q(f.name)} {_sql_type(f)}")
        have = {r[1] for r in conn.execute("PRAGMA table_info(jobs)")}
        for f in dataclasses.fields(JobRecord):  # the same for the per-job rows
            if f.name not in have:
                conn.execute(f"ALTER TABLE jobs ADD COLUMN {_q(f.name)} {_sql_type(f)}")


def _register_configs(conn, config):
    now = _now()
    with _transaction(conn):
        conn.executemany(
            "INSERT OR IGNORE INTO configurations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(c.key, json.dumps(c.spec, sort_keys=True), c.trace, c.machine, c.scheduler, c.allocator, c.seed,
              config.name, now) for c in config.configurations])


def _job_rows(key, records):
    for r in records:
        yield (key, *(json.dumps(r[n]) if n in ("bbox", "nodes") else r[n] for n in _JOB_FIELDS))


def _write_result(conn, out, owner=None) -> str:
    """Store one finished configuration in one transaction, with the release
    of ``owner``'s claim on it: 'ok', 'failed' or 'skipped'."""
    key = out["key"]
    try:
        with _transaction(conn):
            conn.execute("DELETE FROM claims WHERE key=? AND owner=?", (key, owner))
            if conn.execute("SELECT 1 FROM summaries WHERE key=?", (key,)).fetchone():
                return "skipped"  # done meanwhile by another run: keep that
            if "error" in out:
                conn.execute("INSERT INTO failures VALUES (?, ?, 1, ?) ON CONFLICT(key) DO UPDATE SET "
                             "error=excluded.error, attempts=attempts+1, failed_at=excluded.failed_at",
                             (key, out["error"], _now()))
                return "failed"
            s = out["summary"]
            values = [s[n] for n in _SUMMARY_FIELDS] + [out["allocator_name"], json.dumps(out["trace_report"]),
                                                        out["wall_time"], _now()]
            conn.execute(f"INSERT INTO summaries (key, {', '.join(map(_q, _RESULT_COLUMNS))}) "
                         f"VALUES ({', '.join('?' * (len(_RESULT_COLUMNS) + 1))})", [key, *values])
            cert = out.get("certification")
            if cert is not None:
                conn.execute("INSERT INTO certifications VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             (key, cert["metric"], cert["decisions"], cert["proven"], cert["mean_gap"],
                              cert["termination"], cert["exact_seconds"], json.dumps(cert)))
            if out.get("records") is not None:
                conn.executemany(f"INSERT INTO jobs (key, {', '.join(map(_q, _JOB_FIELDS))}) "
                                 f"VALUES ({', '.join('?' * (len(_JOB_FIELDS) + 1))})",
                                 _job_rows(key, out["records"]))
            conn.execute("DELETE FROM failures WHERE key=?", (key,))
            return "ok"
    except sqlite3.IntegrityError as exc:  # rolled back
        msg = f"IntegrityError: {exc} (repeated job ids in the trace?)"
        return _write_result(conn, {"key": key, "error": msg}, owner)


# ---------------------------------------------------------------- reading


class _ConfigRow(NamedTuple):
    """A configuration to report on: its position, key, canonical JSON spec and labels."""

    index: int
    key: str
    spec: str
    trace: str
    machine: str
    scheduler: str
    allocator: str
    seed: int | None
    sweep: str


def _row_dicts(conn, config_rows) -> list:
    """The :func:`read_sweep` dict of each configuration, with its result or failure."""
    summaries = {key: dict(zip(_RESULT_COLUMNS, rest)) for key, *rest in
                 conn.execute(f"SELECT key, {', '.join(map(_q, _RESULT_COLUMNS))} FROM summaries")}
    failures = {key: (error, attempts) for key, error, attempts in
                conn.execute("SELECT key, error, attempts FROM failures")}
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    certs = ({key: json.loads(result) for key, result in conn.execute("SELECT key, result FROM certifications")}
             if "certifications" in have else {})
    out = []
    for c in config_rows:
        row = {"index": c.index, "key": c.key, "sweep": c.sweep, "trace": c.trace, "machine": c.machine,
               "scheduler": c.scheduler, "allocator": c.allocator, "seed": c.seed, "spec": json.loads(c.spec),
               "status": "pending", "summary": None, "trace_report": None, "allocator_name": None,
               "wall_time": None, "finished_at": None, "error": None, "attempts": 0,
               "certification": certs.get(c.key)}
        if c.key in summaries:
            stored = summaries[c.key]
            row.update(status="done", summary={n: stored[n] for n in _SUMMARY_FIELDS},
                       allocator_name=stored["allocator_name"], trace_report=json.loads(stored["trace_report"]),
                       wall_time=stored["wall_time"], finished_at=stored["finished_at"])
        elif c.key in failures:
            error, attempts = failures[c.key]
            row.update(status="failed", error=error, attempts=attempts)
        out.append(row)
    return out


def read_sweep(db, config=None, *, as_frame=False):
    """Configurations and their results, from a sweep database.

    Parameters
    ----------
    db : path
        The SQLite file of :func:`run_sweep`.
    config : SweepConfig or path, optional
        Only this sweep's configurations, in its order (its labels);
        default: every configuration in the file, in the order stored.
    as_frame : bool
        Return a pandas DataFrame instead of a list: one row per
        configuration, the keys of the dicts below as columns except
        ``summary``, whose :class:`Summary` fields become columns of their
        own (``jobs``, ``makespan``, ``mean_wait``, ...; NaN or None
        where the configuration is not done).  ``spec`` and
        ``trace_report`` hold dicts.  pandas is optional: without it this
        raises ImportError.

    Returns
    -------
    list of dict, or pandas.DataFrame with ``as_frame``
        Per configuration: ``index``, ``key``, ``sweep``, ``trace``,
        ``machine``, ``scheduler``, ``allocator``, ``seed``, ``spec``,
        ``status`` (``"done"``, ``"failed"`` or ``"pending"``),
        ``summary`` (dict of :class:`Summary` fields, or None),
        ``trace_report``, ``allocator_name``, ``wall_time``,
        ``finished_at``, ``error`` and ``attempts`` (failures), and
        ``certification`` (the summary of a certify configuration, as
        ``Certification.to_dict()`` gives it; None otherwise).

    Examples
    --------
    >>> import os, tempfile
    >>> from optalloc.sim import make_sweep, run_sweep
    >>> cfg = make_sweep(traces=[{"path": "instances/small.swf", "limit": 20}], machines=["8x4"],
    ...                  allocators=["mm"])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = run_sweep(cfg, os.path.join(d, "s.sqlite"), workers=1)
    ...     rows = read_sweep(os.path.join(d, "s.sqlite"))
    ...     frame = read_sweep(os.path.join(d, "s.sqlite"), as_frame=True)
    >>> rows[0]["allocator"], rows[0]["status"], rows[0]["summary"]["jobs"]
    ('mm', 'done', 20)
    >>> frame[["allocator", "status", "jobs"]].values.tolist()
    [['mm', 'done', 20]]
    """
    pd = require_pandas("read_sweep(..., as_frame=True)") if as_frame else None
    if config is not None and not isinstance(config, SweepConfig):
        config = load_sweep(config)
    conn = _connect(db, create=False)
    try:
        cols = "key, spec, trace, machine, scheduler, allocator, seed, sweep"
        if config is None:
            rows = [_ConfigRow(i, *r)
                    for i, r in enumerate(conn.execute(f"SELECT {cols} FROM configurations ORDER BY rowid"))]
        else:
            rows = [_ConfigRow(c.index, c.key, json.dumps(c.spec, sort_keys=True), c.trace, c.machine, c.scheduler,
                               c.allocator, c.seed, config.name) for c in config.configurations]
        out = _row_dicts(conn, rows)
    except sqlite3.DatabaseError as exc:  # damage that quick_check does not see, or done since
        raise _damaged(conn.path, exc) from None
    finally:
        conn.close()
    return out if pd is None else _sweep_frame(pd, out)


def _sweep_frame(pd, rows):
    """read_sweep rows as a DataFrame, the summary fields as columns."""
    flat = []
    for row in rows:
        summary = row["summary"] or {}
        flat.append({**{k: row[k] for k in _FRAME_LABELS}, **{n: summary.get(n) for n in _SUMMARY_FIELDS}})
    return pd.DataFrame(flat, columns=[*_FRAME_LABELS, *_SUMMARY_FIELDS])


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
    except sqlite3.DatabaseError as exc:
        raise _damaged(conn.path, exc) from None
    finally:
        conn.close()
    out = []
    for r in rows:
        d = dict(zip(_JOB_FIELDS, r))
        d["bbox"], d["nodes"] = json.loads(d["bbox"]), json.loads(d["nodes"])
        d["killed"] = bool(d["killed"])
        out.append(d)
    return out
