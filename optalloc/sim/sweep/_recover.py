"""Saving what can still be read of a damaged sweep store, into a new one.

A damaged store (a disk fault, a file overwritten in part) is refused by
every other function of the package and left as it is.  :func:`recover_sweep`
reads it on a read-only connection, configuration by configuration (each
read through the keys' indexes, so a damaged page costs only the rows on
it), and copies into another store every configuration whose rows are all
readable and whole: its summary, with every per-job row the summary
counts (``jobs``) when it has any or the sweep stores them, and the
certification of a certify configuration.  A configuration with a part
missing is registered without its result, so the next run computes it
again; one whose failure is readable keeps it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from ._spec import SweepConfig
from ._store import _connect, _now, _q, _transaction
from ._toml import load_sweep

__all__ = ["recover_sweep"]

_TABLES = ("configurations", "summaries", "certifications", "failures")


def _open_readonly(path):
    try:
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True, timeout=60)
        conn.execute("SELECT name FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"`db` {path!r}: nothing can be read ({exc}); sqlite3's .recover may still find rows: "
                         f"sqlite3 {path} .recover | sqlite3 NEW.sqlite") from None
    return conn


def _scan_keys(src, table) -> list:
    """The keys of ``table`` that can be read: by rowid and by key, each both ways (a
    damaged page stops a scan; the one from the other end reads past it)."""
    keys = []
    for order in ("rowid ASC", "rowid DESC", "key ASC", "key DESC"):
        try:
            for (key,) in src.execute(f"SELECT key FROM {table} ORDER BY {order}"):
                keys.append(key)
        except sqlite3.DatabaseError:
            pass
    return keys


def _read(src, tables, table, key):
    """(column names, rows) of ``table`` for ``key``; None when they cannot be read
    (no rows when the store predates the table: ``tables`` are those it has)."""
    if table not in tables:
        return [], []
    try:
        cur = src.execute(f"SELECT * FROM {_q(table)} WHERE key=?", (key,))
        return [d[0] for d in cur.description], cur.fetchall()
    except sqlite3.DatabaseError:
        return None


def _copy(dst, table, names, rows, columns) -> None:
    keep = [i for i, n in enumerate(names) if n in columns[table]]
    if not rows or not keep:
        return
    cols = ", ".join(_q(names[i]) for i in keep)
    dst.executemany(f"INSERT OR IGNORE INTO {table} ({cols}) VALUES ({', '.join('?' * len(keep))})",
                    [tuple(r[i] for i in keep) for r in rows])


def recover_sweep(db, into, config=None) -> dict:
    """Copy every whole configuration that can still be read from a damaged store into another.

    Parameters
    ----------
    db : path
        The damaged store (read only, never changed).
    into : path
        The store to copy into: a new file, or a sweep store appended to
        (what it holds already is kept).
    config : SweepConfig or path, optional
        The sweep: its configurations are looked for (and registered in
        ``into`` even when their rows are lost, so that the next
        :func:`run_sweep` computes them), and with ``job_records`` a
        summary without its per-job rows is not kept.  Default: the
        configurations that can be found in ``db``.

    Returns
    -------
    dict
        Counts of configurations: ``done`` (summary and rows copied),
        ``failed`` (failure copied), ``pending`` (registered, to run
        again: never run, or rows lost) and ``lost`` (found in ``db`` but
        its description unreadable: not copied).

    Raises
    ------
    ValueError
        ``db`` missing or unreadable as SQLite, ``into`` the same file or
        not a sweep store.

    Examples
    --------
    >>> import os, tempfile
    >>> from optalloc.sim import make_sweep, run_sweep
    >>> cfg = make_sweep(traces=[{"path": "instances/small.swf", "limit": 20}], machines=["8x4"],
    ...                  allocators=["mc1x1", "mm"])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = run_sweep(cfg, os.path.join(d, "old.sqlite"), workers=1)
    ...     counts = recover_sweep(os.path.join(d, "old.sqlite"), os.path.join(d, "new.sqlite"), cfg)
    ...     again = run_sweep(cfg, os.path.join(d, "new.sqlite"), workers=1)
    >>> counts, again.skipped
    ({'done': 2, 'failed': 0, 'pending': 0, 'lost': 0}, 2)
    """
    src_path, dst_path = os.fspath(db), os.fspath(into)
    if not os.path.isfile(src_path):
        raise ValueError(f"`db` {src_path!r}: no such file")
    if os.path.exists(dst_path) and os.path.samefile(src_path, dst_path):
        raise ValueError(f"`into` {dst_path!r} is the damaged store itself: give a new file")
    if config is not None and not isinstance(config, SweepConfig):
        config = load_sweep(config)
    src = _open_readonly(src_path)
    try:
        dst = _connect(dst_path, create=True)
        try:
            return _recover(src, dst, config)
        finally:
            dst.close()
    finally:
        src.close()


def _recover(src, dst, config) -> dict:
    tables = {r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type='table'")}  # page 1: read
    columns = {t: {r[1] for r in dst.execute(f"PRAGMA table_info({t})")} for t in (*_TABLES, "jobs")}
    if config is not None:
        known = {c.key: ["key", "spec", "trace", "machine", "scheduler", "allocator", "seed", "sweep", "added_at"]
                 for c in config.configurations}
        rows = {c.key: (c.key, json.dumps(c.spec, sort_keys=True), c.trace, c.machine, c.scheduler, c.allocator,
                        c.seed, config.name, _now()) for c in config.configurations}
        keys = list(rows)
    else:
        keys = list(dict.fromkeys(k for t in _TABLES for k in _scan_keys(src, t)))
        known, rows = {}, {}
    counts = {"done": 0, "failed": 0, "pending": 0, "lost": 0}
    for key in keys:
        if key in rows:
            conf = (known[key], [rows[key]])
        else:
            conf = _read(src, tables, "configurations", key)
            if conf is None or not conf[1]:
                counts["lost"] += 1
                continue
        status = "pending"
        parts = {t: _read(src, tables, t, key) for t in ("summaries", "certifications", "failures", "jobs")}
        summary = parts["summaries"]
        if summary is not None and summary[1] and _whole(conf, parts, config):
            status = "done"
        elif parts["failures"] is not None and parts["failures"][1] and summary is not None and not summary[1]:
            status = "failed"
        with _transaction(dst):
            _copy(dst, "configurations", *conf, columns)
            if status == "done":
                for table in ("summaries", "certifications", "jobs"):
                    _copy(dst, table, *parts[table], columns)
            elif status == "failed":
                _copy(dst, "failures", *parts["failures"], columns)
        counts[status] += 1
    return counts


def _whole(conf, parts, config) -> bool:
    """Whether a configuration's summary comes with all its rows: the certification of a
    certify configuration, and the per-job rows the summary counts."""
    names, (row,) = conf[0], conf[1]
    spec = json.loads(row[names.index("spec")])
    if any(parts[t] is None for t in ("certifications", "jobs")):
        return False
    if spec.get("kind") == "certify" and not parts["certifications"][1]:
        return False
    s_names, (s_row,) = parts["summaries"]
    jobs = parts["jobs"][1]
    expected = s_row[s_names.index("jobs")] if "jobs" in s_names else None
    if jobs or (config is not None and config.job_records):
        return expected is not None and len(jobs) == expected
    return True
