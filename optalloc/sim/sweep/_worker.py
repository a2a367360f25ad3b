"""Simulating one configuration: what runs in a worker process or on a Dask worker.

:func:`_run_config` never raises and returns plain data (a dict) for the
calling process to store; the local and the Dask executors both call it
through this module, so that replacing it here (tests) reaches both.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import NamedTuple

from ...machine import Machine
from .._simulate import simulate
from .._swf import _parse_swf, decode_swf


class _Payload(NamedTuple):
    """How a worker gets a trace: ``kind`` ``"trace"`` (a :class:`Trace`),
    ``"path"`` (a file to read) or ``"bytes"`` (the file's content, shipped
    to a remote worker)."""

    kind: str
    value: object


#: Traces parsed by this process, by canonical trace spec and machine size.
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
