"""Subcommands of ``optalloc`` for optalloc.sim (registered by optalloc.cli).

- ``optalloc simulate TRACE --mesh 16x16``: replay a trace, print the summary;
- ``optalloc certify [TRACE]``: situation/decision comparison of allocators
  with the exact optimum of every decision (Bender et al. 2005, Table 1);
  without a trace, the bundled ``instances/small.swf`` on an 8x4 mesh.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SCHEDULER_NAMES = ("fcfs", "easy", "conservative")


def _usage(message):
    from ..cli import UsageError

    return UsageError(message)


def bundled_trace() -> Path:
    """Path of the bundled example trace ``instances/small.swf``."""
    import optalloc

    return Path(optalloc.__file__).resolve().parents[1] / "instances" / "small.swf"


def _split_allocators(text: str) -> list[str]:
    """Comma-separated allocator specs; a piece starting with a digit, a
    sign or a dot continues the previous one (``mc1x1:tie=2,13,20,6``)."""
    out: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if out and (not piece or piece[0].isdigit() or piece[0] in "+-."):
            out[-1] += "," + piece
        elif piece:
            out.append(piece)
    if not out:
        raise _usage(f"--allocators must list at least one allocator, got {text!r}")
    return out


def _machine(args):
    from ._machine import parse_machine

    spec = args.mesh.strip()
    if getattr(args, "torus", False):
        spec += " torus"
    try:
        return parse_machine(spec)
    except ValueError:
        raise _usage(f"--mesh must look like 16x16 or 8x8x4, got {args.mesh!r}") from None


def _trace(path, machine, args):
    from ._swf import Trace, read_swf

    if not os.path.isfile(path):
        raise _usage(f"{path}: no such trace file")
    if args.scale < 1:
        raise _usage(f"--scale must be a positive integer, got {args.scale}")
    trace = read_swf(path, scale=args.scale, max_procs=machine.size, oversize=args.oversize)
    if args.jobs is not None:
        if args.jobs < 1:
            raise _usage(f"--jobs must be positive, got {args.jobs}")
        trace = Trace(trace.jobs[: args.jobs], max_procs=trace.max_procs, report=trace.report)
    if len(trace) == 0:
        raise _usage(f"{path}: no job of the trace fits the machine")
    return trace


def _check_out(path, force, exts, option, resume=None):
    if path is None:
        return None
    ext = os.path.splitext(path)[1].lower()
    if ext not in exts:
        raise _usage(f"{option} must end in {', '.join(exts)}, got {path!r}")
    if os.path.exists(path) and not force and not resume:
        raise _usage(f"{path} exists; pass --force to overwrite it" + (" or --resume to continue it"
                                                                       if resume is not None else ""))
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _usage(f"{option}: folder {folder} does not exist")
    return ext


def _progress(args):
    return bool(args.progress and not args.json)


# ---------------------------------------------------------------- simulate


def _seeded(spec: str, seed: int) -> str:
    """'random' without a seed becomes 'random:seed=SEED', so runs repeat."""
    return f"random:seed={seed}" if spec.strip().lower() == "random" else spec


def _cmd_simulate(args) -> int:
    from ..cli import _fmt, _print_json, _print_rows
    from ._allocators import parse_allocator
    from ._simulate import simulate

    machine = _machine(args)
    ext = _check_out(args.out, args.force, (".csv", ".jsonl", ".json"), "--out")
    allocator = parse_allocator(_seeded(args.allocator, args.seed))  # bad names raise ValueError: exit 2
    trace = _trace(args.trace, machine, args)
    res = simulate(trace, machine, scheduler=args.scheduler, allocator=allocator,
                   kill_at_estimate=not args.full_runtime, progress=_progress(args))
    if ext == ".csv":
        res.to_csv(args.out, overwrite=args.force)
    elif ext is not None:
        res.to_jsonl(args.out, overwrite=args.force)
    if args.json:
        _print_json(res.to_dict())
        return 0
    s = res.summary
    rows = [
        ("trace", f"{args.trace} ({trace.report.summary().splitlines()[0]})"),
        ("machine", res.machine),
        ("scheduler", res.scheduler),
        ("allocator", res.allocator),
        ("jobs", s.jobs),
        ("utilisation", f"{100 * s.utilisation:.2f}%"),
        ("makespan", f"{_fmt(s.makespan)} s"),
        ("mean wait", f"{_fmt(s.mean_wait)} s"),
        ("mean flow", f"{_fmt(s.mean_flow)} s"),
        ("mean slowdown", _fmt(s.mean_slowdown)),
        ("mean W", _fmt(s.mean_W)),
        ("mean avg L1", _fmt(s.mean_avg_l1)),
    ]
    if s.tie_decisions is not None:
        rows.append(("ties", (f"{s.tie_decisions} decisions ({100 * s.tie_share:.1f}%), "
                             f"{_fmt(s.mean_tied)} tied per tie")))
    rows.append(("time", f"{res.wall_time:.2f} s"))
    if args.out:
        rows.append(("written", args.out))
    _print_rows(rows)
    return 0


# ---------------------------------------------------------------- certify


def _cmd_certify(args) -> int:
    from ..cli import _print_json
    from ._allocators import parse_allocator
    from ._certify import DEFAULT_ALLOCATORS, certify
    from ._plots import plot_gap_histogram

    path = args.trace
    if path is None:
        path = str(bundled_trace())
        if not os.path.isfile(path):
            raise _usage(f"the bundled trace {path} is missing; give a TRACE file")
    machine = _machine(args)
    if args.resume and args.out is None:
        raise _usage("--resume continues the file of --out: give --out")
    if args.resume and args.force:
        raise _usage("--resume continues the --out file and --force replaces it: give one of them")
    _check_out(args.out, args.force, (".csv", ".jsonl", ".json"), "--out", args.resume)
    _check_out(args.plot, args.force, (".png", ".svg", ".pdf"), "--plot")
    names = _split_allocators(args.allocators) if args.allocators else list(DEFAULT_ALLOCATORS)
    names = [_seeded(n, args.seed) for n in names]
    args.driver = _seeded(args.driver, args.seed)
    for spec in [*names, args.driver]:
        parse_allocator(spec)  # unknown names: ValueError, exit 2, before any work
    if args.time_limit is not None and not 0 < args.time_limit < float("inf"):
        raise _usage(f"--time-limit must be a positive number of seconds, got {args.time_limit}")
    trace = _trace(path, machine, args)
    cert = certify(trace, machine, driver=args.driver, allocators=names, exact=not args.no_exact,
                   time_limit=args.time_limit, scheduler=args.scheduler, progress=_progress(args),
                   kill_at_estimate=not args.full_runtime, out=args.out, overwrite=args.force,
                   resume=args.resume)
    if args.plot:
        plot_gap_histogram(cert, args.plot, overwrite=args.force)
    bad = cert.check()
    if args.json:
        _print_json({"trace": path, **cert.to_dict()})
    else:
        shown = os.path.relpath(path) if args.trace is None else path
        shown = path if shown.startswith("..") else shown
        print(f"certify: {shown}, {len(trace)} jobs, driver {cert.driver}")
        print(cert.table())
        for line in bad:
            print(f"CHECK FAILED: {line}")
        for what, p in (("decisions", args.out), ("plot", args.plot)):
            if p:
                print(f"{what} written to {p}")
    if bad:
        print(f"optalloc: {len(bad)} certified ratios break a bound or guarantee", file=sys.stderr)
        return 1
    return 0


# ---------------------------------------------------------------- parsers


def _add_common(p, *, mesh_default):
    p.add_argument("--mesh", default=mesh_default, required=mesh_default is None, metavar="WxH",
                   help="mesh shape, e.g. 16x16 or 8x8x4" + (f" (default {mesh_default})" if mesh_default else ""))
    p.add_argument("--scheduler", default="easy", choices=SCHEDULER_NAMES, help="default easy")
    p.add_argument("--scale", type=int, default=1, metavar="N",
                   help="divide every job's processors by N, rounding up (Bender et al. ran NASA with 4)")
    p.add_argument("--oversize", default="skip", choices=("skip", "clip", "error"),
                   help="jobs larger than the mesh (default skip; counted in the report)")
    p.add_argument("--jobs", type=int, metavar="N", help="only the first N jobs of the trace")
    p.add_argument("--full-runtime", action="store_true",
                   help="run jobs their full run time instead of killing them at their estimate")
    p.add_argument("--out", metavar="FILE", help="write per-job (per-decision) rows: .csv or .jsonl")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action="store_true", help="a progress line on standard error")
    p.add_argument("--seed", type=int, default=0, help="seed of 'random' allocators given without one (default 0)")


def register(sub) -> None:
    """Add this package's subcommands to the ``optalloc`` subparsers ``sub``."""
    p = sub.add_parser("simulate", help="replay a job trace on a mesh with a scheduler and an allocator",
                       description="Replay a Standard Workload Format trace on a mesh or torus and "
                       "print the summary (jobs, utilisation, makespan, wait, locality, ties).")
    p.add_argument("trace", metavar="TRACE", help="trace file (Standard Workload Format)")
    p.add_argument("--torus", action="store_true", help="wrap-around links on every axis")
    p.add_argument("--allocator", default="mc1x1", metavar="SPEC",
                   help="mc1x1, mc1x1:tie=default, mm, gen-alg, mm-inc, 1d:hilbert:best-fit, random, ... "
                   "(default mc1x1)")
    _add_common(p, mesh_default=None)
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser("certify", help="certified optimality gaps of allocators along a trace",
                       description="One allocator (the driver) places the jobs; at every decision the "
                       "other allocators are run on the same free processors and compared with the "
                       "exact optimum (situation/decision mode, Bender et al. 2005). Without TRACE: "
                       "the bundled instances/small.swf on an 8x4 mesh.")
    p.add_argument("trace", metavar="TRACE", nargs="?", help="trace file (default: the bundled small.swf)")
    p.add_argument("--allocators", metavar="LIST",
                   help="comma-separated allocators (default mm,gen-alg,mc1x1,mm-inc,1d:gilbert:best-fit)")
    p.add_argument("--driver", default="mc1x1", metavar="SPEC", help="the allocator that places jobs "
                   "(default mc1x1)")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="seconds per exact solve; a decision that runs out keeps its certified bracket")
    p.add_argument("--no-exact", action="store_true", help="cheap lower bounds only (ratio intervals)")
    p.add_argument("--plot", metavar="FILE", help="write the ratio histogram (.png, .svg or .pdf)")
    p.add_argument("--resume", action="store_true",
                   help="continue the --out file of an earlier, interrupted run (rows are written as they "
                   "are certified): its decisions are not solved again")
    _add_common(p, mesh_default="8x4")
    p.set_defaults(func=_cmd_certify)
