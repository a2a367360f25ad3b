"""Simulating (or certifying) one configuration: what runs in a worker process or on a Dask worker.

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

from ...machine import Machine, parse_machine
from ..engine import simulate
from ..workload import decode_swf, parse_swf_text, scale_up
from ._workload import apply_workload, simulate_options


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
        up = tspec.get("scale_up", False)  # read on the trace's own machine, then scaled up to this one
        max_procs = tspec["max_procs"] if tspec["max_procs"] is not None or up else machine_size
        trace = parse_swf_text(decode_swf(data), source, tspec["processors"], tspec["missing_estimate_factor"],
                           max_procs, tspec["oversize"], tspec["scale"], True)
        if up:
            trace = scale_up(trace, machine_size)
    if tspec.get("limit") is not None:
        trace = trace.head(tspec["limit"])
    if len(_TRACE_CACHE) >= 8:
        _TRACE_CACHE.clear()
    _TRACE_CACHE[cache_key] = trace
    return trace


def network_spec(text: str) -> dict:
    """The canonical spec of a network machine text: a generator text
    (``"dragonfly:9,4,2"``, lower case, no spaces) or a network file (its
    absolute path and SHA-256)."""
    path = Path(text)
    if path.is_file():
        return {"network_file": str(path.resolve()), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    return {"network": "".join(text.lower().split())}


#: Network machines built by this process, by canonical spec.
_MACHINE_CACHE: dict = {}


def machine_of(spec: dict) -> Machine:
    """An empty machine from its canonical spec (a mesh or torus shape, or a network)."""
    if "shape" in spec:
        return Machine(tuple(spec["shape"]), torus=tuple(spec["torus"]))
    key = json.dumps(spec, sort_keys=True)
    cached = _MACHINE_CACHE.get(key)
    if cached is None:
        if "network_file" in spec:
            path = Path(spec["network_file"])
            if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != spec["sha256"]:
                raise RuntimeError(f"network file {str(path)!r} is missing or changed since the sweep started")
            cached = parse_machine(path)
        else:
            cached = parse_machine(spec["network"])
        if len(_MACHINE_CACHE) >= 8:
            _MACHINE_CACHE.clear()
        _MACHINE_CACHE[key] = cached
    return cached.copy_empty()


def _run_config(task, payload):
    """Simulate one configuration; never raises (errors come back as text).

    Runs in a worker process or on a Dask worker; returns plain data for
    the parent to write.
    """
    t0 = time.perf_counter()
    spec = task["spec"]
    try:
        if task.get("machine") is not None:  # a network, sent whole
            machine = task["machine"].copy_empty()
        else:
            machine = machine_of(spec["machine"])
        trace = apply_workload(_load_trace(spec, payload, machine.size), spec)
        if spec.get("kind") == "certify":
            return _run_certify(task, spec, trace, machine, t0)
        res = simulate(trace, machine, scheduler=spec["scheduler"], allocator=task["allocator"],
                       kill_at_estimate=spec["kill_at_estimate"], rng=spec["seed"], **simulate_options(spec))
    except Exception as exc:  # noqa: BLE001 - reported and stored as a failure
        msg = " ".join(str(exc).split()) or "(no message)"
        return {"key": task["key"], "error": f"{type(exc).__name__}: {msg}",
                "wall_time": time.perf_counter() - t0}
    return {"key": task["key"], "summary": res.summary.to_dict(), "trace_report": res.trace_report.to_dict(),
            "allocator_name": res.allocator,
            "records": [r.to_dict() for r in res.records] if task["job_records"] else None,
            "wall_time": time.perf_counter() - t0}


def _run_certify(task, spec, trace, machine, t0):
    """Certify one configuration of a sweep of kind ``"certify"``."""
    from ..certification import certify

    cert = certify(trace, machine, driver=spec["driver"], allocators=spec["allocators"], exact=spec["exact"],
                   time_limit=spec["time_limit"], total_time_limit=spec["total_time_limit"],
                   scheduler=spec["scheduler"], kill_at_estimate=spec["kill_at_estimate"])
    sim = cert.simulation
    return {"key": task["key"], "summary": sim.summary.to_dict(), "trace_report": sim.trace_report.to_dict(),
            "allocator_name": cert.driver, "records": None, "certification": cert.to_dict(),
            "wall_time": time.perf_counter() - t0}
