"""Subcommands ``optalloc map`` (tasks of a job onto the nodes of a machine)
and ``optalloc qap`` (a QAPLIB instance)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from optalloc.qap import (
    MAP_METHODS,
    METHODS,
    map_tasks,
    mapping_report,
    parse_pattern,
    read_matrix,
    read_qaplib,
    read_solution,
)
from optalloc.qap import solve as solve_qap

from ._common import (
    EXIT_OK,
    UsageError,
    about,
    add_input,
    add_machine,
    add_quiet,
    check_at_least_one,
    check_out,
    check_positive,
    fmt,
    machine_option,
    print_json,
    print_rows,
    progress_for,
    read_text,
    say_why,
    seed,
    write_lines,
)

#: parameters of map_tasks and solve -> the options that give them (for the library's messages)
MAP_FLAGS = {"time_limit": "--time-limit", "iterations": "--iterations", "rng": "--seed", "weight": "--weight",
             "machine": "--machine", "nodes": "--nodes", "criterion": "--criterion", "method": "--method",
             "W": "the communication matrix", "limit": "the limit"}

#: measures of the mapping report printed next to the consecutive mapping
MEASURES = ("hop_bytes", "max_dilation", "weighted_dilation", "max_link_load", "mean_link_load")


def add_search(p) -> None:
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds (tabu default: 1000 n iterations)")
    p.add_argument("--iterations", type=int, metavar="N", help="tabu moves, GRASP constructions or FAQ starts")
    p.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    add_quiet(p, verbose=True)


def check_search(args) -> None:
    check_positive(args.time_limit, "--time-limit")
    check_at_least_one(args.iterations, "--iterations")


def read_nodes(path: str) -> np.ndarray:
    """Node ids, whitespace or comma separated."""
    tokens = read_text(path).replace(",", " ").split()
    try:
        return np.array([int(t) for t in tokens], dtype=np.intp)
    except ValueError:
        raise ValueError(f"{path}: node ids must be integers") from None


def partition(machine, path: str | None) -> np.ndarray | None:
    """The nodes of ``--nodes FILE``, or the free nodes of a machine map
    with busy nodes; None: every node."""
    if path is not None:
        nodes = read_nodes(path)
        busy = [int(v) for v in nodes if 0 <= v < machine.size and not machine.is_free(int(v))]
        if busy:
            raise UsageError(f"{path}: node {busy[0]} is busy on the machine")
        return nodes
    if machine.n_free < machine.size:
        if machine.n_free == 0:
            raise UsageError("--machine: the machine has no free node")
        return machine.free_ids()
    return None


def cmd_map(args) -> int:
    check_search(args)
    check_out(args.out, args.force)
    machine = machine_option(args)
    if args.comm:
        W = read_matrix(args.comm, sparse=args.method in ("multilevel", "auto"))
    else:
        with about("--pattern", {"spec": "--pattern"}):
            W = parse_pattern(args.pattern, rng=args.seed, sparse=args.method in ("multilevel", "auto"))
    nodes = partition(machine, args.nodes)
    with progress_for(args, "map") as progress:
        res = map_tasks(W, machine, nodes=nodes, criterion=args.criterion, method=args.method, rng=args.seed,
                        time_limit=args.time_limit, iterations=args.iterations, progress=progress)
        say_why(progress, res)
    if res.method == "multilevel":  # the consecutive mapping without n x n matrices
        t = W.shape[0]
        base_perm = (np.arange(machine.size) if nodes is None else np.asarray(nodes))[:t]
        base_objective = res.extra["consecutive"]
    else:
        base = map_tasks(W, machine, nodes=nodes, criterion=args.criterion, method="consecutive")
        base_perm, base_objective = base.permutation, base.objective
    report = mapping_report(W, machine, res.permutation)
    base_report = mapping_report(W, machine, base_perm)
    if args.out:
        write_lines(args.out, [f"{int(v)}\n" for v in res.permutation], args.force)
    if args.json:
        print_json({"result": res.to_dict(), "report": report.to_dict(), "consecutive": base_report.to_dict(),
                    "consecutive_objective": base_objective})
        return EXIT_OK
    print_rows([("machine", machine.describe()), ("tasks", str(len(res.permutation))),
                ("criterion", args.criterion), ("method", res.method), ("objective", fmt(res.objective)),
                ("bound (traffic)" if res.method == "multilevel" else "bound (Gilmore-Lawler)", fmt(res.bound)), ("gap", fmt(res.gap)), ("status", res.status),
                ("seconds", f"{res.runtime:.3f}")])
    print()
    mine, theirs = report.to_dict(), base_report.to_dict()
    width = max(len(n) for n in MEASURES)
    print(f"{'measure'.ljust(width)}  {'mapping':>12}  {'consecutive':>12}")
    for n in MEASURES:
        print(f"{n.ljust(width)}  {fmt(mine.get(n)):>12}  {fmt(theirs.get(n)):>12}")
    return EXIT_OK


def cmd_qap(args) -> int:
    check_search(args)
    W, C = read_qaplib(args.file)
    with progress_for(args, "qap") as progress:
        res = solve_qap(W, C, method=args.method, rng=args.seed, time_limit=args.time_limit,
                        iterations=args.iterations, progress=progress)
        say_why(progress, res)
    sln = Path(args.file).with_suffix(".sln")
    known = read_solution(sln, W, C).value if sln.is_file() else None
    above = None if known is None or known == 0 else (res.objective - known) / known
    if args.json:
        print_json({"result": res.to_dict(), "best_known": known, "above_best_known": above})
        return EXIT_OK
    print_rows([("instance", args.file), ("n", str(len(W))), ("method", args.method),
                ("objective", fmt(res.objective)), ("best known", fmt(known)),
                ("above best known", "-" if above is None else f"{100 * above:.3f}%"),
                ("bound", fmt(res.bound)), ("status", res.status), ("seconds", f"{res.runtime:.3f}")])
    print("permutation (1-based): " + " ".join(str(int(v) + 1) for v in res.permutation))
    return EXIT_OK


def register(sub) -> None:
    """Add ``map`` and ``qap`` to the ``optalloc`` subparsers ``sub``."""
    p = sub.add_parser("map", help="map the tasks of a job onto nodes (QAP)",
                       description="Map tasks onto the nodes of a mesh, torus or network, or of a partition of "
                       "it, minimising traffic x cost (classic hops or Traffic Distribution).")
    src = p.add_mutually_exclusive_group(required=True)
    add_input(src, "--comm", metavar="FILE", example="matrix.csv",
              help="communication matrix: CSV/text, .npy or MatrixMarket .mtx")
    src.add_argument("--pattern", metavar="SPEC",
                     help="generated pattern: stencil:8x8[:open], ring:64, all-to-all:16, transpose:8x8, "
                     "random:64:0.1")
    add_machine(p, required=True, example="mesh16x16.txt",
                help="a shape (mesh:8x8, torus:8x8x4, '8x8 torus'), a generated network (dragonfly:9,4,2,2, "
                "fattree:4), a machine map (its free nodes are the partition) or a network file (.graphml, "
                ".json, edge list)")
    add_input(p, "--nodes", metavar="FILE", help="partition: node ids (x fastest), whitespace or comma separated")
    p.add_argument("--criterion", choices=("td", "classic"), default="td", help="cost between nodes (default td)")
    p.add_argument("--method", choices=MAP_METHODS, default="tabu",
                   help="solver (default tabu); multilevel for thousands of tasks, auto picks by size")
    add_search(p)
    p.add_argument("--out", metavar="FILE", help="write the node of each task, one per line")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_map, flags=MAP_FLAGS)

    p = sub.add_parser("qap", help="solve a QAPLIB instance",
                       description="Solve a quadratic assignment instance in QAPLIB format; a NAME.sln beside "
                       "NAME.dat is read as the best known value.")
    add_input(p, "file", metavar="FILE.dat", example="tiny3.dat", help="QAPLIB instance")
    p.add_argument("--method", choices=METHODS, default="tabu", help="solver (default tabu)")
    add_search(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_qap, flags=MAP_FLAGS)
