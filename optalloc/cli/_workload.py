"""Subcommand ``optalloc workload`` (optalloc.sim workloads).

- ``optalloc workload lublin --nodes N --jobs J --seed S [--out FILE]``: a
  synthetic trace of the Lublin-Feitelson model (2003) for a machine of N
  nodes, as Standard Workload Format on standard output or in FILE.
"""

from __future__ import annotations

import sys

from optalloc.sim import lublin_workload, write_swf

from ._common import EXIT_OK, Parser, check_out, seed

#: parameters of lublin_workload -> the options that give them (for the library's messages)
LUBLIN_FLAGS = {"nodes": "--nodes", "jobs": "--jobs", "seed": "--seed", "start_hour": "--start-hour",
                "load": "--load"}


def cmd_lublin(args) -> int:
    check_out(args.out, args.force)
    # parameters out of range: a ValueError naming the option (LUBLIN_FLAGS), exit 2
    trace = lublin_workload(args.nodes, args.jobs, seed=args.seed, job_types=not args.one_class,
                            start_hour=args.start_hour, load=args.load)
    if args.out is None:
        write_swf(trace, sys.stdout)
    else:
        write_swf(trace, args.out, overwrite=args.force)
        print(f"{len(trace)} jobs for {args.nodes} nodes written to {args.out}", file=sys.stderr)
    return EXIT_OK


def register(sub) -> None:
    """Add ``workload`` (with ``lublin``) to the ``optalloc`` subparsers ``sub``."""
    p = sub.add_parser("workload", help="synthetic job traces (Standard Workload Format)",
                       description="Generate job traces that simulate, certify and sweep read.")
    models = p.add_subparsers(dest="model", metavar="MODEL", parser_class=Parser)
    models.required = True
    q = models.add_parser(
        "lublin", help="the Lublin-Feitelson model (2003) for a machine of any size",
        description="A trace of the Lublin-Feitelson workload model (J. Parallel Distrib. Comput. 63(11), 2003): "
                    "serial and power-of-two shares of the job sizes, hyper-gamma run times that grow with the "
                    "size, gamma inter-arrival times with a daily cycle, batch and interactive jobs; sizes fitted "
                    "to a machine of N nodes. Written as Standard Workload Format on standard output, or in --out.")
    q.add_argument("--nodes", type=int, required=True, metavar="N", help="machine size: no job is larger")
    q.add_argument("--jobs", type=int, required=True, metavar="J", help="number of jobs")
    q.add_argument("--seed", type=seed, default=0, help="the same seed gives the same trace (default 0)")
    q.add_argument("--start-hour", type=int, default=0, metavar="H", help="hour of the day at time 0 (default 0)")
    q.add_argument("--load", type=float, metavar="X",
                   help="stretch the inter-arrival times so the offered load is X (default: the model's arrivals)")
    q.add_argument("--one-class", action="store_true",
                   help="one class of jobs with the whole sample's parameters (default: batch and interactive)")
    q.add_argument("--out", metavar="FILE", help="write the trace to FILE (default: standard output)")
    q.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    q.set_defaults(func=cmd_lublin, flags=LUBLIN_FLAGS)
