"""The grid of a sweep: configuration types, validation and expansion.

:func:`make_sweep` checks every entry (traces, machines, schedulers,
allocators and their option grid, seeds) and expands the grid into
:class:`Configuration` objects, each keyed by the hash of its canonical
JSON (which holds the SHA-256 of the trace's content).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import operator
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ...machine import Machine, parse_machine
from ..allocators import (
    DragonflyAllocator,
    FreeListAllocator,
    KSubsetAllocator,
    NetworkOneDAllocator,
    OneDAllocator,
    RandomAllocator,
    SlurmBlockAllocator,
    SlurmTreeAllocator,
    misfit,
    parse_allocator,
)
from ..schedulers import SCHEDULERS
from ..workload import Trace, read_swf
from ._worker import _Payload, network_spec
from ._workload import workload_grid

__all__ = ["Configuration", "SweepConfig", "make_sweep"]

#: Version of the canonical configuration JSON; part of every key.
KEY_VERSION = 1

_TRACE_KEYS = ("path", "scale", "processors", "missing_estimate_factor", "max_procs", "oversize", "limit",
               "scale_up")
_TRACE_DEFAULTS = {"scale": 1, "processors": "auto", "missing_estimate_factor": 1.0, "max_procs": None,
                   "oversize": "skip", "limit": None}


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
        In grid order: trace, then machine, scheduler, workload (work
        multiple, replication, runtime model), allocator, seed (the last
        varies fastest); duplicates (same key) dropped.
    job_records : bool
        Store one row per job as well as the summary.
    source : str
        The TOML file it came from, or ``""``.
    worker_timeout : float or None
        Seconds a run on Dask waits for workers when the cluster has none
        (the TOML key ``worker_timeout``); None: :func:`run_sweep`'s
        default.  Not part of any configuration's key.
    """

    name: str
    configurations: tuple
    job_records: bool = False
    source: str = ""
    _traces: dict = field(default_factory=dict, repr=False, compare=False)
    _machines: dict = field(default_factory=dict, repr=False, compare=False)  # network machines, by key
    worker_timeout: float | None = None

    def __len__(self) -> int:
        return len(self.configurations)

    @property
    def keys(self) -> list:
        """The configuration keys, in order."""
        return [c.key for c in self.configurations]


class _TraceItem(NamedTuple):
    """A checked ``traces`` entry: its label, canonical spec and payload."""

    label: str
    spec: dict
    payload: _Payload


class _MachineItem(NamedTuple):
    """A checked ``machines`` entry: its text, the machine and its canonical spec."""

    text: str
    machine: Machine
    spec: dict


class _AllocatorItem(NamedTuple):
    """A checked allocator: its text, canonical spec and the seeds it runs with."""

    text: str
    spec: dict
    seeds: list


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


def _prepare_trace(entry, i, base_dir) -> _TraceItem:
    """Label, canonical trace spec and payload of one ``traces`` entry."""
    where = f"traces[{i}]"
    if isinstance(entry, Trace):
        label = entry.source or f"trace-{i}"
        spec = {"sha256": _trace_digest(entry), "kind": "jobs", "limit": None}
        return _TraceItem(label, spec, _Payload("trace", entry))
    if isinstance(entry, (str, os.PathLike)):
        entry = {"path": os.fspath(entry)}
    _check_keys(entry, _TRACE_KEYS, where)
    if "path" not in entry:
        _fail(where, "needs a `path`")
    if not isinstance(entry["path"], str):
        _fail(where, f"`path` must be a string, got {entry['path']!r}")
    opts = {**_TRACE_DEFAULTS, **{k: v for k, v in entry.items() if k not in ("path", "scale_up")}}
    scale_up = entry.get("scale_up", False)  # in the key only when set, so older sweeps keep theirs
    if not isinstance(scale_up, bool):
        _fail(where, f"`scale_up` must be true or false, got {scale_up!r}")
    if scale_up and (opts["scale"] != 1 or opts["max_procs"] is not None):
        _fail(where, "`scale_up` multiplies processor counts up to each machine: not with `scale` or `max_procs`")
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
    if scale_up:
        spec["scale_up"] = True
    return _TraceItem(entry["path"], spec, _Payload("path", str(path.resolve())))


def _allocator_spec(text, seed_list, where):
    """Canonical allocator description, the seeds it runs with, and the allocator."""
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
    if isinstance(alloc, NetworkOneDAllocator):
        return ({"method": "1d", "order": alloc.order_name, "strategy": alloc.strategy, "ring": alloc.ring,
                 "options": _canon({"seed": alloc.seed, "iterations": alloc.iterations,
                                    "time_limit": alloc.time_limit})}, [None], alloc)
    if isinstance(alloc, FreeListAllocator):
        return {"method": "free-list"}, [None], alloc
    if isinstance(alloc, DragonflyAllocator):
        spec = {"method": f"dfly:{alloc.rule}"}
        if not alloc.random:
            return spec, [None], alloc
        parts = [p.strip() for p in text.split(":")[2:]]
        seeds = [int(p.split("=", 1)[1]) for p in parts if p.startswith("seed=")]
        return spec, (seeds or seed_list), alloc
    if isinstance(alloc, (SlurmTreeAllocator, SlurmBlockAllocator)):
        return {"method": alloc.name}, [None], alloc
    raise ValueError(f"{where}: {text!r} is not an allocator a sweep can run")  # pragma: no cover


def _probe(alloc, machine, text, mtext, where):
    """Fail now if the allocator cannot run on the machine (bad options, shapes)."""
    why = misfit(alloc, machine)  # the registry's reason (a 1D curve checks the shape here)
    if why is not None:
        _fail(where, f"{text!r} cannot run on machine {mtext!r}: {why}")
    try:
        if isinstance(alloc, KSubsetAllocator) and machine.is_grid and machine.size > 256:
            # options (tie vectors) on a smaller mesh
            machine = Machine(tuple(min(n, 8) for n in machine.shape), torus=machine.torus)
        alloc.select(machine, 1)
    except Exception as exc:  # noqa: BLE001 - any failure here is a configuration error
        _fail(where, f"{text!r} cannot run on machine {mtext!r}: {exc}")


def _grid_allocators(grid, where):
    """(allocator text, where) of every combination of a ``grid``'s option lists."""
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


def _check_seeds(seeds) -> list:
    seed_list = _as_list(seeds, "seeds")
    for s in seed_list:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            _fail("seeds", f"must be non-negative integers, got {s!r}")
    return seed_list


def _check_machines(machines, base_dir=None) -> list[_MachineItem]:
    items = []
    for i, m in enumerate(_as_list(machines, "machines")):
        if not isinstance(m, str):
            _fail(f"machines[{i}]", f"must be a text such as '16x8' or '8x8 torus', got {m!r}")
        text = m
        if base_dir is not None and not Path(m).is_absolute() and (Path(base_dir) / m).is_file():
            text = str(Path(base_dir) / m)
        try:
            mach = parse_machine(text)
        except ValueError as exc:
            _fail(f"machines[{i}]", str(exc))
        if mach.is_grid:
            spec = {"shape": list(mach.shape), "torus": list(mach.torus)}
        else:
            spec = network_spec(text)
        items.append(_MachineItem(m, mach, spec))
    return items


def _check_schedulers(schedulers) -> list[str]:
    items = []
    for i, s in enumerate(_as_list(schedulers, "schedulers")):
        if not isinstance(s, str) or s.lower() not in SCHEDULERS:
            _fail(f"schedulers[{i}]", f"must be one of {', '.join(map(repr, SCHEDULERS))}, got {s!r}")
        items.append(s.lower())
    return items


def _check_allocators(allocators, grid, seed_list, machine_items) -> list[_AllocatorItem]:
    texts = [(a, f"allocators[{i}]") for i, a in enumerate(_as_list(allocators, "allocators", allow_empty=True))]
    if grid is not None:
        texts += _grid_allocators(grid, "grid")
    if not texts:
        _fail("allocators", "must not be empty (or give a [grid])")
    items = []
    for text, where in texts:
        spec, alloc_seeds, alloc = _allocator_spec(text, seed_list, where)
        for m in machine_items:
            _probe(alloc, m.machine, text, m.text, where)
        items.append(_AllocatorItem(text, spec, alloc_seeds))
    return items


def make_sweep(*, traces, machines, schedulers=("easy",), allocators=("mc1x1",), grid=None, seeds=(0,),
               kill_at_estimate=True, job_records=False, name="sweep", base_dir=None,
               source="", work_multiple=1.0, replication=1, replication_seed=0, runtime_model="none",
               fair_start=False) -> SweepConfig:
    """Build and check a sweep from Python values.

    Parameters
    ----------
    traces : list
        Each a path, a table ``{path, scale, processors,
        missing_estimate_factor, max_procs, oversize, limit, scale_up}``
        (options of :func:`read_swf`; ``max_procs`` defaults to the
        machine's size, ``limit`` keeps the first jobs only, ``scale_up``
        true scales the trace up to each machine with :func:`scale_up`),
        or a :class:`Trace`.
    machines : list of str
        Machine texts (``"8x4"``, ``"8x8 torus"``, ``"dragonfly"``,
        ``"fat-tree:4"``) or network files (relative paths from
        ``base_dir``; the key holds the file's SHA-256, and a worker reads
        the file from its path).
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
    work_multiple, replication, runtime_model : value or list of values
        The workload options of ``optalloc simulate`` (:func:`work_multiple`,
        :func:`replicate`, :func:`parse_runtime_model`); a list is an axis
        of the grid (after the scheduler, before the allocator).
    replication_seed : int
        Seed of the copies' arrival delays.
    fair_start : bool
        Compute fair-start times (:func:`simulate` with ``fair_start``).
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
    seed_list = _check_seeds(seeds)
    trace_items = [_prepare_trace(t, i, base_dir) for i, t in enumerate(_as_list(traces, "traces"))]
    machine_items = _check_machines(machines, base_dir)
    sched_items = _check_schedulers(schedulers)
    alloc_items = _check_allocators(allocators, grid, seed_list, machine_items)
    workloads = workload_grid(work_multiple=work_multiple, replication=replication,
                              replication_seed=replication_seed, runtime_model=runtime_model, fair_start=fair_start)

    configs, seen = [], set()
    for t in trace_items:
        for m in machine_items:
            combos = itertools.product(sched_items, workloads, alloc_items)
            for sched, load, a, seed in ((s_, w, al, sd) for s_, w, al in combos for sd in al.seeds):
                spec = {"v": KEY_VERSION, "trace": t.spec, "machine": m.spec, "scheduler": sched,
                        "allocator": a.spec, "seed": seed, "kill_at_estimate": kill_at_estimate, **load}
                key = _key_of(spec)
                if key in seen:
                    continue
                seen.add(key)
                configs.append(Configuration(key, len(configs), t.label, m.text, sched, a.text, seed, spec))
    payloads = {t.spec["sha256"]: t.payload for t in trace_items}
    return SweepConfig(name.strip(), tuple(configs), job_records, source, payloads)
