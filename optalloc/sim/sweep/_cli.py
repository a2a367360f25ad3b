"""The ``optalloc sweep`` subcommand."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ._report import format_sweep
from ._run import run_sweep
from ._store import read_sweep
from ._toml import load_sweep

__all__ = ["register_sweep"]


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
