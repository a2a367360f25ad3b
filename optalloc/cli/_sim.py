"""Subcommands ``optalloc simulate``, ``certify`` and ``sweep`` (optalloc.sim).

- ``optalloc simulate TRACE --machine 16x16``: replay a trace, print the summary;
- ``optalloc certify [TRACE]``: situation/decision comparison of allocators
  with the exact optimum of every decision (Bender et al. 2005, Table 1);
  without a trace, the bundled ``instances/small.swf`` on an 8x4 mesh;
- ``optalloc sweep CONFIG.toml``: a grid of simulations into SQLite (by
  default ``CONFIG.sqlite`` in the working directory, never next to the
  configuration, which may be a bundled one inside the installed package).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path

from optalloc import instance_path
from optalloc.sim import (
    DEFAULT_ALLOCATORS,
    EXACT_MAX_FREE,
    SCHEDULERS,
    Trace,
    certify,
    check_allocator,
    default_allocators,
    default_driver,
    format_sweep,
    load_sweep,
    parse_allocator,
    parse_runtime_model,
    plot_gap_histogram,
    plot_sweep_lines,
    read_sweep,
    read_swf,
    replicate,
    run_sweep,
    scale_up,
    simulate,
    work_multiple,
)
from optalloc.sim.sweep import recover_sweep

from ._common import (
    EXIT_NO_SOLUTION,
    EXIT_OK,
    PROGRESS_HELP,
    UsageError,
    about,
    add_input,
    add_machine,
    add_quiet,
    check_out,
    fmt,
    machine_option,
    print_json,
    print_rows,
    progress_for,
    say_why,
    seed,
)
from ._ksubset import parse_time_limit

#: ``certify --time-limit`` when not given: seconds per exact solve
CERTIFY_TIME_LIMIT = 60.0

SCHEDULER_NAMES = tuple(SCHEDULERS)
#: parameters of simulate and certify -> the options that give them (for the library's messages)
RUN_FLAGS = {"machine": "--machine", "scale": "--scale", "jobs": "--jobs", "oversize": "--oversize",
             "work_multiple": "--work-multiple", "replication": "--replication", "runtime_model": "--runtime-model",
             "allocator": "--allocator", "allocators": "--allocators", "driver": "--driver", "workers": "--workers",
             "scheduler": "--scheduler-address", "cluster": "--scheduler-address", "out": "--out",
             # an allocator's options, found wrong when it first runs
             "tie_break": "the allocator's tie", "request": "the allocator's request"}
#: names inside an allocator spec (``mc1x1:tie=...``) that differ from the Python parameter
SPEC_FLAGS = {"tie_break": "tie"}
OUT_EXTS = (".csv", ".jsonl", ".json")


#: a piece of an allocator list that continues the spec before it (a tie-break vector's next value)
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def bundled_trace() -> Path:
    """Path of the bundled example trace ``small.swf``, inside the installed package."""
    return instance_path("small.swf")


def split_allocators(text: str) -> list[str]:
    """Comma-separated allocator specs; a piece that is a number continues
    the previous one (``mc1x1:tie=2,13,20,6``), while ``1d:...`` starts one."""
    out: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if out and (not piece or _NUMBER.match(piece)):
            out[-1] += "," + piece
        elif piece:
            out.append(piece)
    if not out:
        raise UsageError(f"--allocators must list at least one allocator, got {text!r}")
    return out


def empty_machine(args):
    """The machine of ``--machine``; a trace starts on an empty machine, so
    a machine map with busy nodes is refused."""
    machine = machine_option(args)
    busy = machine.size - machine.n_free
    if busy:
        raise UsageError(f"--machine {args.machine}: {busy} busy nodes; {args.command} starts from an empty "
                         f"machine (give a shape, or a map without busy nodes)")
    return machine


def load_trace(path, machine, args):
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such trace file")
    if args.scale < 1:
        raise UsageError(f"--scale must be a positive integer, got {args.scale}")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be positive, got {args.jobs}")
    if args.scale_up:
        trace = scaled_up(path, machine, args)
    else:
        trace = read_swf(path, scale=args.scale, max_procs=machine.size, oversize=args.oversize,
                         strict=not args.skip_bad_lines)
    if args.jobs is not None:
        trace = Trace(trace.jobs[: args.jobs], max_procs=trace.max_procs, report=trace.report)
    if len(trace) == 0:
        raise UsageError(f"{path}: no job left to simulate: {trace.report.why_no_jobs(trace.max_procs)}")
    return trace


def scaled_up(path, machine, args):
    """The trace of ``--scale-up``: read on its own machine (its header's
    MaxProcs), then every job's processors times the machine's size over it."""
    if args.scale != 1:
        raise UsageError("--scale divides the trace's processor counts and --scale-up multiplies them: give one")
    trace = read_swf(path, oversize=args.oversize, strict=not args.skip_bad_lines)
    if trace.max_procs is None:
        raise UsageError(f"--scale-up: {path} gives no MaxProcs or MaxNodes in its header, so the size of its "
                         "machine is unknown")
    if machine.size < trace.max_procs:
        raise UsageError(f"--scale-up: the machine ({machine.size} nodes) is smaller than the trace's "
                         f"({trace.max_procs}); scale down with --scale N")
    with about("--scale-up"):
        return scale_up(trace, machine.size)


def workload_name(path: str) -> str:
    """The trace's file name without ``.gz`` and ``.swf``: the Batsim ``workload_name``."""
    name = os.path.basename(path)
    for suffix in (".gz", ".swf"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return "".join(c if c not in ",\r\n" else "_" for c in name) or "w0"


def seeded(spec: str, seed: int) -> str:
    """'random' without a seed becomes 'random:seed=SEED', so runs repeat;
    so do the random dragonfly allocators ('dfly:random-group', ...)."""
    text = spec.strip().lower()
    if text == "random":
        return f"random:seed={seed}"
    if text.startswith("dfly:random-") and "seed=" not in text:
        return f"{spec.strip()}:seed={seed}"
    return spec


# ---------------------------------------------------------------- simulate


def transformed(trace, args):
    """The trace after ``--work-multiple`` and ``--replication`` (seeded by ``--seed``)."""
    trace = work_multiple(trace, args.work_multiple)
    return replicate(trace, args.replication, seed=args.seed)


def cmd_simulate(args) -> int:
    machine = empty_machine(args)
    ext = check_out(args.out, args.force, exts=(".csv",) if args.format == "batsim" else OUT_EXTS)
    with about("--allocator", {**SPEC_FLAGS, "allocator": "--allocator"}):  # bad names: exit 2
        allocator = parse_allocator(seeded(args.allocator, args.seed))
        check_allocator(allocator, machine)  # an allocator that does not fit the machine: exit 2, before any work
    model = parse_runtime_model(args.runtime_model, seed=args.seed)
    trace = transformed(load_trace(args.trace, machine, args), args)
    with progress_for(args, "simulate") as progress:
        res = simulate(trace, machine, scheduler=args.scheduler, allocator=allocator,
                       kill_at_estimate=not args.full_runtime, progress=progress, fair_start=args.fair_start,
                       runtime_model=model)
    if args.format == "batsim" and ext is not None:
        res.to_batsim_csv(args.out, overwrite=args.force, workload_name=workload_name(args.trace))
    elif ext == ".csv":
        res.to_csv(args.out, overwrite=args.force)
    elif ext is not None:
        res.to_jsonl(args.out, overwrite=args.force)
    if args.json:
        print_json(res.to_dict())
        return EXIT_OK
    s = res.summary
    rows = [
        ("trace", f"{args.trace} ({trace.report.summary().splitlines()[0]})"),
        ("machine", res.machine),
        ("scheduler", res.scheduler),
        ("allocator", res.allocator),
        ("jobs", s.jobs),
        ("utilisation", f"{100 * s.utilisation:.2f}%"),
        ("makespan", f"{fmt(s.makespan)} s"),
        ("mean wait", f"{fmt(s.mean_wait)} s"),
        ("mean flow", f"{fmt(s.mean_flow)} s"),
        ("mean slowdown", fmt(s.mean_slowdown)),
        ("mean W", fmt(s.mean_W)),
        ("mean avg L1" if machine.is_grid else "mean avg distance", fmt(s.mean_avg_l1)),
        ("mean bbox cube", fmt(s.mean_bbox_cube)),
        ("mean components", fmt(s.mean_components)),
    ]
    if s.mean_stretch_span is not None:
        rows.append(("mean stretch-span", fmt(s.mean_stretch_span)))
    if s.fair_start_missed_share is not None:
        late = f"{100 * s.fair_start_missed_share:.1f}% of jobs, {fmt(s.fair_start_mean_miss)} s late on average"
        rows.append(("fair start missed", late))
    if s.tie_decisions is not None:
        rows.append(("ties", f"{s.tie_decisions} decisions ({100 * s.tie_share:.1f}%), "
                             f"{fmt(s.mean_tied)} tied per tie"))
    rows.append(("time", f"{res.runtime:.2f} s"))
    rows.append(("allocator time", f"{s.allocator_time:.2f} s"))  # inside the allocator's select
    rows.append(("event time", f"{s.event_time:.2f} s"))  # the rest: events, scheduler, records, summary
    if args.out:
        rows.append(("written", args.out))
    print_rows(rows)
    return EXIT_OK


# ---------------------------------------------------------------- certify


def cmd_certify(args) -> int:
    path = args.trace
    if path is None:
        path = str(bundled_trace())
        if not os.path.isfile(path):
            raise UsageError(f"the bundled trace {path} is missing; give a TRACE file")
    machine = empty_machine(args)
    if args.resume and args.out is None:
        raise UsageError("--resume continues the file of --out: give --out")
    if args.resume and args.force:
        raise UsageError("--resume continues the --out file and --force replaces it: give one of them")
    check_out(args.out, args.force, exts=OUT_EXTS, resume=args.resume)
    check_out(args.plot, args.force, option="--plot", exts=(".png", ".svg", ".pdf"))
    names = split_allocators(args.allocators) if args.allocators else list(default_allocators(machine))
    names = [seeded(n, args.seed) for n in names]
    driver = seeded(args.driver if args.driver is not None else default_driver(machine), args.seed)
    for flag, specs in (("--allocators", names), ("--driver", [driver])):
        with about(flag, {**SPEC_FLAGS, "allocator": flag}):  # unknown names: exit 2, before any work
            for spec in specs:
                parse_allocator(spec)
    time_limit = None if args.no_exact else parse_time_limit(args.time_limit, CERTIFY_TIME_LIMIT)
    if args.no_exact and args.time_limit is not None:
        raise UsageError("--time-limit applies to the exact solves: not with --no-exact")
    try:
        total = parse_time_limit(args.total_time_limit, None)
    except UsageError as exc:
        raise UsageError(str(exc).replace("--time-limit", "--total-time-limit", 1)) from None
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    trace = load_trace(path, machine, args)
    with progress_for(args, "certify") as progress:
        try:
            cert = certify(trace, machine, driver=driver, allocators=names, exact=not args.no_exact,
                           time_limit=time_limit, scheduler=args.scheduler, progress=progress,
                           kill_at_estimate=not args.full_runtime, out=args.out, overwrite=args.force,
                           resume=args.resume, workers=args.workers, cluster=args.scheduler_address,
                           total_time_limit=total)
            if cert.termination == "total_time_limit":  # decisions left with cheap bounds
                say_why(progress, cert)
        except ImportError as exc:
            raise UsageError(str(exc)) from None
    if args.plot:
        plot_gap_histogram(cert, path=args.plot, overwrite=args.force)
    bad = cert.check()
    if args.json:
        print_json({"trace": path, **cert.to_dict()})
    else:
        shown = os.path.relpath(path) if args.trace is None else path
        shown = path if shown.startswith("..") else shown
        # what reading the trace kept and skipped, as simulate's "trace" row
        print(f"certify: {shown} ({trace.report.summary().splitlines()[0]}), driver {cert.driver}")
        print(cert.table())
        stopped = sum(r.status == "time_limit" for r in cert.rows)
        if stopped:
            plural = "s" if stopped > 1 else ""
            print(f"{stopped} decision{plural} stopped at the time limit of {fmt(time_limit)} s per exact solve, "
                  "keeping the certified bracket [lower, upper] (--time-limit S, or none for no limit)")
        large = 0 if machine.tree is not None else sum(r.n_free > EXACT_MAX_FREE for r in cert.rows)
        if large and cert.exact:
            plural = "s" if large > 1 else ""
            print(f"{large} decision{plural} with more than {EXACT_MAX_FREE} free nodes not solved exactly: each "
                  "keeps the bracket [lower, upper] of bounds that need no distance matrix")
        for line in bad:
            print(f"CHECK FAILED: {line}")
        for what, p in (("decisions", args.out), ("plot", args.plot)):
            if p:
                print(f"{what} written to {p}")
    if bad:
        print(f"optalloc: {len(bad)} certified ratios break a bound or guarantee", file=sys.stderr)
        return EXIT_NO_SOLUTION
    return EXIT_OK


# ---------------------------------------------------------------- sweep


def sweep_db(args) -> str:
    """``--db``, else the configuration's name with suffix ``.sqlite`` in the working directory
    (never next to the configuration, which may be inside the installed package)."""
    return args.db if args.db is not None else Path(args.config).with_suffix(".sqlite").name


def cmd_sweep(args) -> int:
    config = load_sweep(args.config)
    db = sweep_db(args)
    check_out(args.plot, args.force, option="--plot", exts=(".png", ".svg", ".pdf"))
    worker_timeout = None
    if args.worker_timeout is not None:
        try:
            worker_timeout = parse_time_limit(args.worker_timeout, None)
        except UsageError:
            raise UsageError(f"--worker-timeout must be positive seconds or 'none' (wait for ever), "
                             f"got {args.worker_timeout!r}") from None
        worker_timeout = math.inf if worker_timeout is None else worker_timeout
    if args.recover_from is not None:
        if args.dry_run:
            raise UsageError("--recover-from writes into --db and --dry-run writes nothing: give one of them")
        counts = recover_sweep(args.recover_from, db, config)
        print(f"recovered from {args.recover_from} into {db}: {counts['done']} done, {counts['failed']} failed, "
              f"{counts['pending']} to run again", file=sys.stderr)
    if args.dry_run:
        rows = read_sweep(db, config) if os.path.isfile(db) else [
            {"index": c.index, "key": c.key, "trace": c.trace, "machine": c.machine, "scheduler": c.scheduler,
             "allocator": c.allocator, "seed": c.seed, "status": "pending", "summary": None}
            for c in config.configurations]
        report = None
    else:
        try:
            report = run_sweep(config, db, workers=args.workers, scheduler=args.scheduler, progress=not args.quiet,
                               worker_timeout=worker_timeout)
        except ImportError as exc:
            raise UsageError(str(exc)) from None
        rows = read_sweep(db, config)
    if args.plot:
        plot_sweep_lines(rows, args.metric, args.plot, x=args.x, overwrite=args.force)
    if args.json:
        print(json.dumps({"sweep": config.name, "db": db, "report": report.to_dict() if report else None,
                          "configurations": [{k: v for k, v in r.items() if k != "spec"} for r in rows]}))
    else:
        print(format_sweep(rows))
        if report is not None:
            print(f"\n{report.total} configurations: {report.skipped} done before, {report.run} run, "
                  f"{report.failed} failed ({report.runtime:.1f} s); results in {db}")
            for key, err in report.failures:
                print(f"failed {key}: {err}")
        if args.plot:
            print(f"plot written to {args.plot}")
    return EXIT_NO_SOLUTION if report is not None and report.failed else EXIT_OK


# ---------------------------------------------------------------- parsers


def add_run_options(p, *, machine_default):
    add_machine(p, default=machine_default, required=machine_default is None,
                help="an empty mesh, torus or network: 16x16, 8x8x4, '8x8 torus', torus:8x8, dragonfly, "
                "dragonfly:9,4,2,2, fat-tree:4, a network file (.graphml, .json, edge list), a Slurm topology.conf "
                "or a machine map without busy nodes" + (f" (default {machine_default})" if machine_default else ""))
    p.add_argument("--scheduler", default="easy", choices=SCHEDULER_NAMES, metavar="NAME",
                   help=f"{', '.join(SCHEDULER_NAMES)} (default easy)")
    p.add_argument("--scale", type=int, default=1, metavar="N",
                   help="divide every job's processors by N, rounding up (Bender et al. ran NASA with 4)")
    p.add_argument("--scale-up", action="store_true",
                   help="scale the trace up to a larger machine: every job's processors times the machine's size "
                   "over the trace's (its MaxProcs), rounded, at most the machine")
    p.add_argument("--oversize", default="skip", choices=("skip", "clip", "error"),
                   help="jobs larger than the machine (default skip; counted in the report)")
    p.add_argument("--jobs", type=int, metavar="N", help="only the first N jobs of the trace")
    p.add_argument("--skip-bad-lines", action="store_true",
                   help="skip malformed trace lines (not 18 numbers) instead of stopping; they are counted")
    p.add_argument("--full-runtime", action="store_true",
                   help="run jobs their full run time instead of killing them at their estimate")
    p.add_argument("--out", metavar="FILE", help="write per-job (per-decision) rows: .csv or .jsonl")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_quiet(p, progress_help=PROGRESS_HELP)
    p.add_argument("--seed", type=seed, default=0,
                   help="seed of 'random' allocators given without one (default 0)")


def add_workload_options(p):
    """Workload transforms, fair-start times and the runtime model (``simulate``)."""
    p.add_argument("--work-multiple", type=float, default=1.0, metavar="X",
                   help="multiply every run time (and requested time) by X, submit times unchanged "
                   "(Leung et al. 2002; default 1)")
    p.add_argument("--replication", type=int, default=1, metavar="N",
                   help="N copies of every job, the copies' arrivals delayed at random (seeded by --seed; "
                   "default 1)")
    p.add_argument("--fair-start", action="store_true",
                   help="compute each job's fair-start time and the share of jobs that miss it (needs user ids)")
    p.add_argument("--runtime-model", default="none", metavar="MODEL",
                   help="none (default: run times as in the trace) or time-per-distance:A[,B[,C]] (run times "
                   "stretched by the allocation's average distance, as SST's timeperdistance)")


def register(sub) -> None:
    """Add ``simulate``, ``certify`` and ``sweep`` to the ``optalloc`` subparsers ``sub``."""
    p = sub.add_parser("simulate", help="replay a job trace on a machine with a scheduler and an allocator",
                       description="Replay a Standard Workload Format trace on a mesh, torus or network and "
                       "print the summary (jobs, utilisation, makespan, wait, locality, ties).")
    add_input(p, "trace", metavar="TRACE", example="small.swf",
              help="trace file (Standard Workload Format; .swf.gz is read too)")
    p.add_argument("--allocator", default="mc1x1", metavar="SPEC",
                   help="mc1x1, mc1x1:tie=default, mm, gen-alg, mm-inc, 1d:hilbert:best-fit, random, ...; on a "
                   "network gen-alg, exact, 1d:graph-qap:best-fit, random, and on a dragonfly dfly:simple-spread, "
                   "dfly:hybrid, ... (default mc1x1)")
    add_run_options(p, machine_default=None)
    add_workload_options(p)
    p.add_argument("--format", default="jobs", choices=("jobs", "batsim"),
                   help="what --out holds: jobs (default; every per-job record, .csv or .jsonl) or batsim "
                   "(.csv in the job layout of Batsim's _jobs.csv, which evalys reads)")
    p.set_defaults(func=cmd_simulate, flags=RUN_FLAGS)

    p = sub.add_parser("certify", help="certified optimality gaps of allocators along a trace",
                       description="One allocator (the driver) places the jobs; at every decision the "
                       "other allocators are run on the same free processors and compared with the "
                       "exact optimum (situation/decision mode, Bender et al. 2005). Without TRACE: "
                       "the bundled instances/small.swf on an 8x4 mesh.")
    add_input(p, "trace", metavar="TRACE", nargs="?", help="trace file (default: the bundled small.swf)")
    p.add_argument("--allocators", metavar="LIST",
                   help="comma-separated allocators (default on a mesh " + ",".join(DEFAULT_ALLOCATORS) +
                   "; on a torus or network those of them that run there)")
    p.add_argument("--driver", metavar="SPEC", help="the allocator that places jobs "
                   "(default mc1x1; gen-alg where mc1x1 does not run)")
    p.add_argument("--time-limit", metavar="S",
                   help=f"seconds per exact solve (default {CERTIFY_TIME_LIMIT:g}; 'none': no limit); a decision "
                   "that runs out keeps its certified bracket")
    p.add_argument("--no-exact", action="store_true", help="cheap lower bounds only (ratio intervals)")
    p.add_argument("--plot", metavar="FILE", help="write the ratio histogram (.png, .svg or .pdf)")
    p.add_argument("--resume", action="store_true",
                   help="continue the --out file of an earlier, interrupted run (rows are written as they "
                   "are certified): its decisions are not solved again")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="solve the decisions' optima in N local processes (default 1)")
    p.add_argument("--scheduler-address", metavar="tcp://HOST:PORT",
                   help="solve the optima on this Dask scheduler's workers")
    p.add_argument("--total-time-limit", metavar="S",
                   help="seconds for the whole run, shared among the decisions as they are solved (at most "
                        "--time-limit each); decisions not solved by then keep cheap bounds")
    add_run_options(p, machine_default="8x4")
    p.set_defaults(func=cmd_certify, flags=RUN_FLAGS)

    p = sub.add_parser(
        "sweep", help="run a grid of trace simulations into an SQLite file (resumable)",
        description="Run every configuration (trace x machine x scheduler x allocator x seed) of a TOML sweep "
                    "description that the database does not hold yet, then print a table of results. "
                    "The database is appended to, never cleared; an interrupted sweep resumes where it stopped. "
                    "Exit code 1 when a configuration failed (rerunning retries it).")
    add_input(p, "config", metavar="CONFIG.toml", example="sweep-example.toml",
              help="sweep description (see docs/sweeps.md)")
    p.add_argument("--db", metavar="FILE", help="SQLite results file (default: the name of CONFIG with suffix "
                   ".sqlite, in the working directory); several sweeps may share it at once")
    p.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: CPU count; 1: "
                                                            "in this process)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask scheduler's workers")
    p.add_argument("--worker-timeout", metavar="S", help="with --scheduler: seconds to wait for workers when the "
                   "cluster has none, then fail what is left (default: the TOML's worker_timeout, else 600; "
                   "'none': wait for ever)")
    p.add_argument("--recover-from", metavar="OLD", help="first copy every whole configuration that can still be "
                   "read from the damaged store OLD into --db, then run the rest")
    p.add_argument("--json", action="store_true", help="JSON output")
    add_quiet(p, progress_help=PROGRESS_HELP)
    p.add_argument("--dry-run", action="store_true", help="list the configurations and their status; run nothing")
    p.add_argument("--plot", metavar="FILE", help="then draw --metric against --x, one line per allocator "
                   "(.png, .svg or .pdf; Leung et al. 2002, Fig. 1)")
    p.add_argument("--metric", default="mean_bbox_cube_ratio", metavar="NAME",
                   help="summary field for --plot (default mean_bbox_cube_ratio)")
    p.add_argument("--x", default="work_multiple", choices=("work_multiple", "replication"),
                   help="x axis of --plot (default work_multiple)")
    p.add_argument("--force", action="store_true", help="overwrite the --plot file")
    p.set_defaults(func=cmd_sweep)
