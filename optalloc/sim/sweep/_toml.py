"""Reading a sweep description from a TOML file."""

from __future__ import annotations

import dataclasses
import math
import tomllib
from pathlib import Path

from ._certify_kind import make_certify_sweep
from ._spec import SweepConfig, _check_keys, _fail, make_sweep
from ._workload import WORKLOAD_KEYS

__all__ = ["load_sweep"]

_SWEEP_KEYS = ("name", "kind", "traces", "machines", "schedulers", "allocators", "seeds", "kill_at_estimate",
               "job_records", *WORKLOAD_KEYS, "worker_timeout")
#: keys of a sweep of kind "certify" (``drivers`` is its grid axis; ``allocators`` the compared list)
_CERTIFY_KEYS = ("name", "kind", "traces", "machines", "schedulers", "drivers", "allocators", "seeds",
                 "kill_at_estimate", "exact", "time_limit", "total_time_limit", "worker_timeout")


def load_sweep(path) -> SweepConfig:
    """Read and check a sweep description (TOML).

    Parameters
    ----------
    path : str or path-like
        The file; the paths in it (traces, network files) are relative to
        its directory.  It names no output: the store is the argument of
        :func:`run_sweep` (``optalloc sweep`` puts it in the working
        directory unless ``--db`` is given).

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
        work_multiple = [1.0, 1.5]   # optional workload axes, as in simulate
        replication = [1]
        replication_seed = 0
        runtime_model = ["none"]
        fair_start = false
        worker_timeout = 600     # seconds a Dask run waits for workers (inf: for ever)

        [grid]                   # or [[grid]] tables, one per base
        allocator = "mc1x1"
        tie = [[2, 13, 20, 6], [3, 9, 3, 2]]

    A sweep of certifications (:func:`make_certify_sweep`) says
    ``kind = "certify"`` and lists ``drivers`` (its grid axis), the compared
    ``allocators``, ``exact``, ``time_limit`` and ``total_time_limit``
    instead of a grid.

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
        kind = sweep.get("kind", "simulate") if isinstance(sweep, dict) else "simulate"
        if kind not in ("simulate", "certify"):
            _fail("[sweep]", f"`kind` must be 'simulate' or 'certify', got {kind!r}")
        _check_keys(sweep, _CERTIFY_KEYS if kind == "certify" else _SWEEP_KEYS, "[sweep]")
        for req in ("traces", "machines"):
            if req not in sweep:
                _fail("[sweep]", f"needs `{req}`")
        timeout = _worker_timeout(sweep.get("worker_timeout"))
        args = {"name": path.stem, **{k: v for k, v in sweep.items() if k not in ("kind", "worker_timeout")}}
        if kind == "certify":
            if "grid" in doc:
                _fail("[grid]", "applies to simulate sweeps; a certify sweep lists its `drivers`")
            config = make_certify_sweep(base_dir=path.parent, source=str(path), **args)
        else:
            config = make_sweep(base_dir=path.parent, source=str(path), grid=doc.get("grid"), **args)
        return dataclasses.replace(config, worker_timeout=timeout)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _worker_timeout(value):
    """The ``worker_timeout`` key: None (absent) or a positive number of seconds (``inf``: no limit)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value <= 0:
        _fail("[sweep]", f"`worker_timeout` must be a positive number of seconds (inf: no limit), got {value!r}")
    return float(value)
