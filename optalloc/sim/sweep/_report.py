"""What a sweep run did, and the results as a text table."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..._table import text_table
from ._workload import workload_label

__all__ = ["SweepReport", "format_sweep"]


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
        Already done (found in the database, or stored meanwhile by
        another run sharing it), not run again.
    run : int
        Run and stored now, by this run.
    failed : int
        Failed during this run (here, or in another run sharing the
        database); stored in the ``failures`` table, retried by the next
        run.
    failures : tuple of (str, str)
        Key and error message of each failure.
    runtime : float
        Seconds.
    """

    name: str
    db: str
    total: int
    skipped: int
    run: int
    failed: int
    failures: tuple = ()
    runtime: float = field(default=0.0, compare=False)

    def to_dict(self) -> dict:
        """Plain-Python view (JSON-ready)."""
        out = dataclasses.asdict(self)
        out["failures"] = [list(f) for f in self.failures]
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
    mean wait, utilisation, mean average pairwise L1, tie share; for a
    sweep of certifications: index, trace, machine, scheduler, driver,
    status, metric, decisions proven, mean gap, termination, mean W of the
    driver.

    Examples
    --------
    >>> print(format_sweep([{"index": 0, "trace": "t.swf", "machine": "8x4", "scheduler": "easy",
    ...     "allocator": "mm", "seed": None, "status": "pending", "summary": None}]))
    #  trace  machine  scheduler  allocator  seed  status   mean_wait  util  mean_avg_l1  tie_share
    0  t.swf  8x4      easy       mm         -     pending  -          -     -            -
    """
    certify = any(r.get("certification") or (r.get("spec") or {}).get("kind") == "certify" for r in rows)
    head = ["#", "trace", "machine", "scheduler", "allocator", "seed", "status", "mean_wait", "util",
            "mean_avg_l1", "tie_share"]
    if certify:  # a sweep of certifications: the driver, then what was proven
        head = ["#", "trace", "machine", "scheduler", "driver", "status", "metric", "proven", "mean_gap",
                "termination", "mean_W"]
    body = []
    for r in rows:
        s = r.get("summary") or {}
        if certify:
            c = r.get("certification") or {}
            proven = f"{c['proven']}/{c['decisions']}" if c else "-"
            gap = f"{100 * c['mean_gap']:.3f}%" if c else "-"
            body.append([str(r["index"]), r["trace"], r["machine"], r["scheduler"], r["allocator"], r["status"],
                         c.get("metric", "-"), proven, gap, c.get("termination", "-"), _cell(s.get("mean_W"))])
            continue
        body.append([str(r["index"]), r["trace"], r["machine"], r["scheduler"], r["allocator"], _cell(r["seed"]),
                      r["status"], _cell(s.get("mean_wait"), 6), _cell(s.get("utilisation")),
                      _cell(s.get("mean_avg_l1")), _cell(s.get("tie_share"))])
    loads = [workload_label(r.get("spec") or {}) for r in rows]
    if any(loads):  # a sweep with workload axes: say which workload each row ran
        head.insert(4, "workload")
        for line, load in zip(body, loads):
            line.insert(4, load or "-")
    return text_table(head, body, rule=False)
