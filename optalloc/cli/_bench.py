"""Subcommand ``optalloc bench``: the suites of :mod:`optalloc.bench`."""

from __future__ import annotations

from ._common import EXIT_NO_SOLUTION, EXIT_OK, UsageError, add_quiet, print_json, progress_for

#: the suites of :data:`optalloc.bench.SUITES` (the benchmarks load when the command runs)
SUITES = ("heuristics", "exact", "ptas", "qap", "sim", "curves", "topologies", "startup", "scale", "networks", "mapping")
#: the parts of ``--suite scale`` (:data:`optalloc.bench.scale.PARTS`)
SCALE_PARTS = ("mc", "centres", "speed", "networks", "workload", "sim", "order", "targets")
#: the parts of ``--suite networks`` (:data:`optalloc.bench.networks.PARTS`)
NETWORK_PARTS = ("tree", "dragonfly", "slurm", "history", "torus")


def cmd_bench(args) -> int:
    from optalloc.bench import run_bench

    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, got {args.repeat}")
    if args.limit is not None and args.suite in ("heuristics", "startup"):
        raise UsageError("--limit applies to --suite exact, ptas, qap, curves or all")
    if args.limit is not None and not args.limit > 0:
        raise UsageError(f"--limit must be positive, got {args.limit}")
    if args.part and args.suite not in ("scale", "networks"):
        raise UsageError("--part applies to --suite scale or networks")
    parts = SCALE_PARTS if args.suite == "scale" else NETWORK_PARTS
    wrong = [p for p in args.part or () if p not in parts]
    if wrong:
        raise UsageError(f"--part {wrong[0]!r} is not a part of --suite {args.suite}; choose from {', '.join(parts)}")

    with progress_for(args, f"bench {args.suite}", unit="cases") as shown:
        started = []

        def progress(name):  # a case starts: the one before it is done
            shown.update(1 if started else 0, running=name)
            started.append(name)

        tables = run_bench(args.suite, quick=args.quick, repeat=args.repeat, limit=args.limit, progress=progress,
                           parts=args.part or None)
        if started:
            shown.update(1, running=None)
    if args.json:
        print_json([r.to_dict() for t in tables for r in t.rows])
    else:
        print("\n\n".join(t.text for t in tables))
    return EXIT_OK if all(t.ok for t in tables) else EXIT_NO_SOLUTION


def register(sub) -> None:
    """Add ``bench`` to the ``optalloc`` subparsers ``sub``."""
    p = sub.add_parser("bench", help="performance figures as ratios against baselines",
                       description="Time the solvers against baselines run in the same process.")
    p.add_argument("--quick", action="store_true", help="small instances (seconds)")
    p.add_argument("--repeat", type=int, default=5,
                   help="repetitions of each side of a heuristics case (the best is kept; 3 s budget per side) "
                   "or of each startup command (the median is kept)")
    p.add_argument("--suite", choices=(*SUITES, "all"), default="heuristics",
                   help="heuristics (seconds, default), exact (the exact solver against the plain "
                   "pairwise MIP: up to 2 x 9 x --limit seconds), ptas (the strip-enumeration PTAS against brute "
                   "force and the exact solver: about a minute), qap (GRASP and tabu over 10 seeds on "
                   "QAPLIB and mapping instances against scipy: about 15 minutes), sim (the NASA trace: "
                   "simulation and certification, a few minutes), curves (reference values and order_graph "
                   "against the curves: about 2 minutes), topologies (exact on a half-free torus against the "
                   "mesh and the pairwise MIP: up to 3 x 9 x --limit seconds), startup (the wall time of optalloc --help in a fresh "
                   "interpreter against python -c pass: seconds), scale (machines of 8,000 to 33,000 nodes: per-decision "
                   "methods, networks, workloads, the event engine, orderings and whole simulations, about 15 "
                   "minutes; --part picks some), networks (exact on trees of switches and tori, Slurm's topologies and allocators: several minutes; --part picks some), mapping (the multilevel mapper on 1,024 to 16,384 tasks against the consecutive mapping, Scotch and Mt-KaHyPar when installed: up to 20 minutes) or all")
    p.add_argument("--part", action="append", choices=tuple(dict.fromkeys(SCALE_PARTS + NETWORK_PARTS)),
                   help="with --suite scale or networks: run this part only (repeatable)")
    p.add_argument("--limit", type=float, metavar="S",
                   help="time limit per exact solve (default 60; also in --suite ptas), per QAP run (default 2) or per order_graph "
                   "search (default 30)")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    add_quiet(p)
    p.set_defaults(func=cmd_bench)
