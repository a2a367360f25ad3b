"""Subcommand ``optalloc history``: certify what a machine's scheduler did.

``optalloc history sacct.txt --machine topology.conf`` reads a job history
with node lists (``sacct --parsable2``, CSV or JSON), rebuilds the free
set at every job start, and prints the certified ratio of the history's
placements beside the simulator's allocators on the same free sets.
"""

from __future__ import annotations

import os

from optalloc.sim.certification import HISTORY, certify_history
from optalloc.sim.plots import plot_history
from optalloc.sim.workload import read_history

from ._common import (
    EXIT_OK,
    UsageError,
    add_input,
    add_machine,
    add_quiet,
    check_out,
    machine_option,
    print_json,
    progress_for,
)

#: the allocators run beside the history by default
HISTORY_ALLOCATORS = "gen-alg"


def _split(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _job(r, names) -> dict:
    ratios = r.ratios()
    return {"job_id": r.job_id, "start": r.time, "k": r.k, "n_free": r.n_free, "lower": r.lower, "upper": r.upper,
            "status": r.status, "W": dict(zip(names, r.W)),
            "ratio": {n: [lo if lo != float("inf") else None, hi if hi != float("inf") else None]
                      for n, (lo, hi) in zip(names, ratios)}}


def cmd_history(args) -> int:
    machine = machine_option(args)
    if machine.n_free != machine.size:
        raise UsageError(f"--machine {args.machine}: a machine map with busy nodes; give the busy nodes with --busy")
    ext = check_out(args.out, args.force, exts=(".csv", ".jsonl", ".json"))
    check_out(args.plot, args.force, option="--plot", exts=(".png", ".svg", ".pdf"))
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    names = [] if args.allocators.strip().lower() in ("", "none") else _split(args.allocators)
    history = read_history(args.history, machine, strict=not args.skip_bad_lines)
    with progress_for(args, "history") as progress:
        cert = certify_history(history, machine, allocators=names, busy=args.busy, exact=not args.no_exact,
                               time_limit=args.time_limit, total_time_limit=args.total_time_limit,
                               workers=args.workers, cluster=args.scheduler_address, progress=progress)
    if args.out:
        if ext == ".csv":
            cert.to_csv(args.out, overwrite=args.force)
        else:
            cert.to_jsonl(args.out, overwrite=args.force)
    if args.plot:
        plot_history(cert, args.plot, overwrite=args.force)
    if args.json:
        print_json({"history": args.history, **cert.to_dict(), "jobs": [_job(r, cert.names) for r in cert.rows]})
    else:
        shown = os.path.relpath(args.history)
        shown = args.history if shown.startswith("..") else shown
        print(f"history: {shown} on {cert.machine_text}; W of the placements ({HISTORY}) and of "
              f"{', '.join(cert.names[1:]) or 'no allocator'} on the same free nodes, over the optimum")
        print(cert.table())
        for f in (args.out, args.plot):
            if f:
                print(f"written: {f}")
    return EXIT_OK


def register(sub) -> None:
    p = sub.add_parser(
        "history", help="certify the placements of a machine's job history (sacct, CSV, JSON)",
        description="Replay a job history with node lists (Slurm's sacct --parsable2 output, or a CSV/JSON table "
                    "of job_id, start, end, nodes): the free nodes at every job start are rebuilt from the jobs "
                    "running then, and each placement's W is compared with the optimum of that free set "
                    "(proven, or a certified bracket), beside the simulator's allocators on the same free "
                    "nodes. A job whose nodes overlap a running job's is reported, not certified.")
    add_input(p, "history", metavar="FILE", example="history-sacct.txt",
              help="the history: sacct --parsable2 text (JobID, Start, End, NNodes, NodeList), .csv or .json")
    add_machine(p, required=True, example="topology.conf",
                help="the machine the history ran on: a Slurm topology.conf, a network file with host labels, a "
                "mesh or torus (node ids or nid numbers), ...")
    p.add_argument("--allocators", default=HISTORY_ALLOCATORS, metavar="LIST",
                   help=f"comma-separated allocators run on the same free nodes (default {HISTORY_ALLOCATORS}; "
                   "'none' for none)")
    p.add_argument("--busy", metavar="NODES", help="nodes busy throughout (down, reserved): a node list such as "
                   "cn[120-128]")
    p.add_argument("--time-limit", type=float, default=60.0, metavar="S",
                   help="seconds per exact solve where the optimum is not found by a tree's dynamic program "
                   "(default 60); a state that runs out keeps its certified bracket")
    p.add_argument("--total-time-limit", type=float, metavar="S",
                   help="seconds for the whole run, shared among the states as they are solved (at most "
                   "--time-limit each); states not solved by then keep cheap bounds")
    p.add_argument("--no-exact", action="store_true",
                   help="cheap lower bounds only where no dynamic program proves the optimum (ratio intervals)")
    p.add_argument("--workers", type=int, default=1, metavar="N", help="solve the optima in N local processes")
    p.add_argument("--scheduler-address", metavar="tcp://HOST:PORT",
                   help="solve the optima on this Dask scheduler's workers")
    p.add_argument("--skip-bad-lines", action="store_true",
                   help="skip (and count) malformed lines, unknown hosts and jobs ending before they start "
                   "instead of stopping at the first")
    p.add_argument("--json", action="store_true", help="JSON output: the summary and one entry per job")
    p.add_argument("--out", metavar="FILE", help="write one row per job (.csv, or JSON lines for .jsonl/.json)")
    p.add_argument("--plot", metavar="FILE", help="draw the history's certified ratio by job size and over time, "
                   "beside the allocators' means (.png, .svg or .pdf)")
    p.add_argument("--force", action="store_true", help="overwrite the --out and --plot files")
    add_quiet(p)
    p.set_defaults(func=cmd_history, flags={"busy": "--busy", "time_limit": "--time-limit",
                                            "total_time_limit": "--total-time-limit",
                                            "allocators": "--allocators"})
