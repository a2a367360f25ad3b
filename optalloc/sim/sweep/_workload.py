"""The workload axes of a sweep: work multiple, replication, runtime model
and fair-start times (the options of ``optalloc simulate`` of the same
names).

Each combination is a dict holding only the entries that differ from the
defaults (work multiple 1, replication 1, no runtime model, no fair-start
times), so that the configurations of sweeps written before these axes
keep their keys.
"""

from __future__ import annotations

import itertools

from ..engine import parse_runtime_model
from ..workload import check_replication, check_work_multiple, replicate, work_multiple

#: The keys of a [sweep] table that set the workload (besides traces).
WORKLOAD_KEYS = ("work_multiple", "replication", "replication_seed", "runtime_model", "fair_start")


def _values(value, where):
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if not values:
        raise ValueError(f"{where}: must not be empty")
    return values


def workload_grid(*, work_multiple=1.0, replication=1, replication_seed=0, runtime_model="none",
                  fair_start=False) -> list[dict]:
    """Every combination of the workload options, as canonical spec entries.

    Examples
    --------
    >>> workload_grid(work_multiple=[1.0, 1.5])
    [{}, {'work_multiple': 1.5}]
    """
    multiples = []
    for v in _values(work_multiple, "work_multiple"):
        try:
            multiples.append(check_work_multiple(v))
        except ValueError as exc:
            raise ValueError(f"work_multiple: {exc}") from None
    reps = []
    for v in _values(replication, "replication"):
        try:
            reps.append(check_replication(v))
        except ValueError as exc:
            raise ValueError(f"replication: {exc}") from None
    if isinstance(replication_seed, bool) or not isinstance(replication_seed, int) or replication_seed < 0:
        raise ValueError(f"replication_seed: must be a non-negative integer, got {replication_seed!r}")
    models = []
    for v in _values(runtime_model, "runtime_model"):
        try:
            m = parse_runtime_model(v)
        except ValueError as exc:
            raise ValueError(f"runtime_model: {exc}") from None
        models.append(None if m is None else m.name)
    if not isinstance(fair_start, bool):
        raise ValueError(f"fair_start: must be true or false, got {fair_start!r}")  # noqa: TRY004
    out = []
    for f, n, m in itertools.product(multiples, reps, models):
        entry = {}
        if f != 1.0:
            entry["work_multiple"] = int(f) if f.is_integer() else f
        if n != 1:
            entry["replication"] = n
            entry["replication_seed"] = replication_seed
        if m is not None:
            entry["runtime_model"] = m
        if fair_start:
            entry["fair_start"] = True
        if entry not in out:
            out.append(entry)
    return out


def apply_workload(trace, spec):
    """The trace of a configuration after its work multiple and replication."""
    trace = work_multiple(trace, spec.get("work_multiple", 1.0))
    return replicate(trace, spec.get("replication", 1), seed=spec.get("replication_seed", 0))


def simulate_options(spec) -> dict:
    """The keyword arguments of :func:`simulate` a configuration sets."""
    return {"fair_start": bool(spec.get("fair_start", False)),
            "runtime_model": parse_runtime_model(spec.get("runtime_model"), seed=spec.get("seed") or 0)}


def workload_label(spec) -> str:
    """Short text of a configuration's workload: ``x1.5 r2 tpd`` (empty for the defaults).

    Examples
    --------
    >>> workload_label({"work_multiple": 1.5, "replication": 2})
    'x1.5 r2'
    """
    parts = []
    if "work_multiple" in spec:
        parts.append(f"x{spec['work_multiple']:g}")
    if "replication" in spec:
        parts.append(f"r{spec['replication']}")
    if "runtime_model" in spec:
        parts.append(spec["runtime_model"])
    if spec.get("fair_start"):
        parts.append("fair-start")
    return " ".join(parts)
