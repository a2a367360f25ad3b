"""Certification as a sweep kind: certify jobs over a grid, in the same store.

A sweep of kind ``"certify"`` runs :func:`optalloc.sim.certify` for every
combination trace x machine x scheduler x driver, each comparing the same
list of allocators (default: those of :func:`default_allocators` for the
machine).  A configuration's key hashes its canonical JSON (trace content,
machine, scheduler, driver, compared allocators, ``exact``,
``time_limit``, ``total_time_limit``, kind), so certify and simulate
configurations never share a key.  When a configuration ends, the
driver's simulation summary goes to ``summaries`` (so the sweep table and
resuming work as for simulations) and the certification's summary (its
``to_dict()``: metric, decisions proven, mean gap, termination, ratios per
allocator) to ``certifications``, in one transaction.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from ...machine import parse_machine
from ..allocators import check_allocator, parse_allocator
from ..certification import default_allocators, default_driver
from ._spec import (
    KEY_VERSION,
    Configuration,
    SweepConfig,
    _as_list,
    _canon,
    _check_schedulers,
    _check_seeds,
    _fail,
    _key_of,
    _prepare_trace,
)

__all__ = ["make_certify_sweep"]

#: Seconds per exact solve when a certify sweep does not say.
TIME_LIMIT = 60.0


def _machine_spec(text, i, base_dir):
    where = f"machines[{i}]"
    if not isinstance(text, str):
        _fail(where, f"must be a text such as '16x8', '8x8 torus' or a network file, got {text!r}")
    from pathlib import Path

    path = Path(text)
    spec_text = text
    if not path.is_absolute() and base_dir is not None and (Path(base_dir) / path).is_file():
        spec_text = str(Path(base_dir) / path)
    try:
        machine = parse_machine(spec_text)
    except ValueError as exc:
        _fail(where, str(exc))
    if machine.n_free != machine.size:
        _fail(where, f"{machine.size - machine.n_free} busy nodes; a trace starts on an empty machine")
    if machine.is_grid:
        spec = {"shape": list(machine.shape), "torus": list(machine.torus)}
    else:
        try:
            digest = np.ascontiguousarray(machine.distances(), dtype=float).tobytes()
        except ValueError:  # too large for the whole matrix: its structure or links
            digest = repr(machine.metric_key).encode()
        spec = {"network": hashlib.sha256(digest).hexdigest(), "nodes": machine.size}
    return machine, spec


def _allocator_text(text, where, machine, mtext):
    if not isinstance(text, str):
        _fail(where, f"must be an allocator text such as 'gen-alg', got {text!r}")
    try:
        alloc = parse_allocator(text, rng=0)
        check_allocator(alloc, machine)
    except (ValueError, TypeError) as exc:
        _fail(where, f"{text!r} on machine {mtext!r}: {exc}")
    return alloc


def _seconds(value, name, *, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        _fail(name, f"must be a positive number of seconds, got {value!r}")
    return float(value)


def make_certify_sweep(*, traces, machines, schedulers=("easy",), drivers=None, allocators=None, seeds=(0,),
                       exact=True, time_limit=TIME_LIMIT, total_time_limit=None, kill_at_estimate=True,
                       name="certify", base_dir=None, source="") -> SweepConfig:
    """Build and check a sweep of certifications.

    Parameters
    ----------
    traces, schedulers, kill_at_estimate, name, base_dir, source
        As in :func:`make_sweep`.
    machines : list of str
        Machine texts (``"8x4"``, ``"8x8 torus"``) or machine files (a map
        without busy nodes, GraphML, node-link JSON; relative to
        ``base_dir``).
    drivers : list of str, optional
        One configuration per driver (default: :func:`default_driver` of
        each machine).
    allocators : list of str, optional
        The allocators every configuration compares (default:
        :func:`default_allocators` of each machine).
    seeds : list of int
        Seed of ``"random"`` drivers and allocators given without one.
    exact, time_limit, total_time_limit
        As in :func:`certify`.

    Returns
    -------
    SweepConfig

    Raises
    ------
    ValueError
        As :func:`make_sweep`, and an allocator or driver that has no
        meaning on a machine (the message names the entry).

    Examples
    --------
    >>> cfg = make_certify_sweep(traces=[{"path": "instances/small.swf", "limit": 10}],
    ...                          machines=["8x4", "4x4 torus"], drivers=["gen-alg"])
    >>> [(c.machine, c.allocator) for c in cfg.configurations]
    [('8x4', 'gen-alg'), ('4x4 torus', 'gen-alg')]
    >>> cfg.configurations[1].spec["allocators"]
    ['mm', 'gen-alg', 'mc1x1', 'mm-inc', '1d:gilbert:best-fit']
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"`name` must be a non-empty string, got {name!r}")
    for flag, value in (("exact", exact), ("kill_at_estimate", kill_at_estimate)):
        if not isinstance(value, bool):
            raise ValueError(f"`{flag}` must be true or false, got {value!r}")  # noqa: TRY004
    time_limit = _seconds(time_limit, "time_limit") if exact else None
    total_time_limit = _seconds(total_time_limit, "total_time_limit")
    seed = _check_seeds(seeds)[0]
    trace_items = [_prepare_trace(t, i, base_dir) for i, t in enumerate(_as_list(traces, "traces"))]
    machine_items = [(m, *_machine_spec(m, i, base_dir)) for i, m in enumerate(_as_list(machines, "machines"))]
    sched_items = _check_schedulers(schedulers)

    def seeded(text):
        return f"random:seed={seed}" if isinstance(text, str) and text.strip().lower() == "random" else text

    configs, seen, machines_by_key = [], set(), {}
    for t in trace_items:
        for mtext, machine, mspec in machine_items:
            names = [seeded(a) for a in (_as_list(allocators, "allocators") if allocators is not None
                                         else default_allocators(machine))]
            for i, a in enumerate(names):
                _allocator_text(a, f"allocators[{i}]", machine, mtext)
            drv = [seeded(d) for d in (_as_list(drivers, "drivers") if drivers is not None
                                       else [default_driver(machine)])]
            for i, d in enumerate(drv):
                _allocator_text(d, f"drivers[{i}]", machine, mtext)
            for sched in sched_items:
                for d in drv:
                    spec = {"v": KEY_VERSION, "kind": "certify", "trace": t.spec, "machine": mspec,
                            "scheduler": sched, "driver": d, "allocators": list(names), "exact": exact,
                            "time_limit": _canon(time_limit), "total_time_limit": _canon(total_time_limit),
                            "kill_at_estimate": kill_at_estimate}
                    key = _key_of(spec)
                    if key in seen:
                        continue
                    seen.add(key)
                    if not machine.is_grid:
                        machines_by_key[key] = machine
                    configs.append(Configuration(key, len(configs), t.label, mtext, sched, d, None, spec))
    payloads = {t.spec["sha256"]: t.payload for t in trace_items}
    return SweepConfig(name.strip(), tuple(configs), False, source, payloads, machines_by_key)
