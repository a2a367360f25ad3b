"""Subcommands ``optalloc map`` and ``optalloc qap`` (registered by optalloc.cli)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np


def register(sub) -> None:
    """Add ``map`` and ``qap`` to the ``optalloc`` subparsers ``sub``."""
    from ._mapping import METHODS

    p = sub.add_parser("map", help="map the tasks of a job onto nodes (QAP)",
                       description="Map tasks onto the nodes of a mesh, torus or graph partition, minimising "
                       "traffic x cost (classic hops or Traffic Distribution).")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--comm", metavar="FILE", help="communication matrix: CSV/text, .npy or MatrixMarket .mtx")
    src.add_argument("--pattern", metavar="SPEC",
                     help="generated pattern: stencil:8x8[:open], ring:64, all-to-all:16, transpose:8x8, "
                     "random:64:0.1")
    p.add_argument("--topology", required=True, metavar="SPEC", help="machine: mesh:8x8, torus:8x8x4, ...")
    p.add_argument("--nodes", metavar="FILE", help="partition: node ids, whitespace or comma separated")
    p.add_argument("--criterion", choices=("td", "classic"), default="td", help="cost between nodes (default td)")
    p.add_argument("--method", choices=METHODS, default="tabu", help="solver (default tabu)")
    _add_search(p)
    p.add_argument("--out", metavar="FILE", help="write the node of each task, one per line")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_map)

    p = sub.add_parser("qap", help="solve a QAPLIB instance",
                       description="Solve a quadratic assignment instance in QAPLIB format; a NAME.sln beside "
                       "NAME.dat is read as the best known value.")
    p.add_argument("file", metavar="FILE.dat", help="QAPLIB instance")
    p.add_argument("--method", choices=METHODS, default="tabu", help="solver (default tabu)")
    _add_search(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_qap)


def _add_search(p) -> None:
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds (tabu default: 1000 n iterations)")
    p.add_argument("--iterations", type=int, metavar="N", help="tabu moves, GRASP constructions or FAQ starts")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def _check_search(args) -> None:
    from optalloc.cli import UsageError

    if args.time_limit is not None and not args.time_limit > 0:
        raise UsageError(f"--time-limit must be positive, got {args.time_limit}")
    if args.iterations is not None and args.iterations < 1:
        raise UsageError(f"--iterations must be at least 1, got {args.iterations}")


def _read_nodes(path: str) -> np.ndarray:
    from optalloc.machine._io import _read_text

    text = _read_text(path)
    tokens = text.replace(",", " ").split()
    try:
        return np.array([int(t) for t in tokens], dtype=np.intp)
    except ValueError:
        raise ValueError(f"{path}: node ids must be integers") from None


def _cmd_map(args) -> int:
    from optalloc.cli import EXIT_OK, UsageError, _fmt, _print_json, _print_rows

    from ._mapping import map_tasks
    from ._matrix_io import read_matrix
    from ._metrics import mapping_report
    from ._patterns import parse_pattern
    from ._topology import Topology

    _check_search(args)
    if args.out and os.path.exists(args.out) and not args.force:
        raise UsageError(f"{args.out} exists; pass --force to overwrite it")
    topo = Topology.parse(args.topology)
    W = read_matrix(args.comm) if args.comm else parse_pattern(args.pattern, rng=args.seed)
    nodes = _read_nodes(args.nodes) if args.nodes else None
    res = map_tasks(W, topo, nodes=nodes, criterion=args.criterion, method=args.method, rng=args.seed,
                    time_limit=args.time_limit, iterations=args.iterations)
    base = map_tasks(W, topo, nodes=nodes, criterion=args.criterion, method="consecutive")
    report = mapping_report(W, topo, res.permutation)
    base_report = mapping_report(W, topo, base.permutation)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.writelines(f"{int(v)}\n" for v in res.permutation)
    if args.json:
        _print_json({"result": res.to_dict(), "report": report.to_dict(), "consecutive": base_report.to_dict(),
                     "consecutive_objective": base.objective})
        return EXIT_OK
    rows = [("topology", str(topo)), ("tasks", str(len(res.permutation))), ("criterion", args.criterion),
            ("method", args.method), ("objective", _fmt(res.objective)), ("bound (Gilmore-Lawler)", _fmt(res.bound)),
            ("gap", _fmt(res.gap)), ("status", res.status), ("seconds", f"{res.wall_time:.3f}")]
    _print_rows(rows)
    print()
    names = ("hop_bytes", "max_dilation", "weighted_dilation", "max_link_load", "mean_link_load")
    mine, theirs = report.to_dict(), base_report.to_dict()
    width = max(len(n) for n in names)
    print(f"{'measure'.ljust(width)}  {'mapping':>12}  {'consecutive':>12}")
    for n in names:
        print(f"{n.ljust(width)}  {_fmt(mine.get(n)):>12}  {_fmt(theirs.get(n)):>12}")
    return EXIT_OK


def _cmd_qap(args) -> int:
    from optalloc.cli import EXIT_OK, _fmt, _print_json, _print_rows

    from ._io import read_qaplib, read_solution
    from ._mapping import solve

    _check_search(args)
    W, C = read_qaplib(args.file)
    res = solve(W, C, method=args.method, rng=args.seed, time_limit=args.time_limit, iterations=args.iterations)
    sln = Path(args.file).with_suffix(".sln")
    known = read_solution(sln, W, C).value if sln.is_file() else None
    above = None if known is None or known == 0 else (res.objective - known) / known
    if args.json:
        _print_json({"result": res.to_dict(), "best_known": known, "above_best_known": above})
        return EXIT_OK
    _print_rows([("instance", args.file), ("n", str(len(W))), ("method", args.method),
                 ("objective", _fmt(res.objective)), ("best known", _fmt(known)),
                 ("above best known", "-" if above is None else f"{100 * above:.3f}%"),
                 ("bound", _fmt(res.bound)), ("status", res.status), ("seconds", f"{res.wall_time:.3f}")])
    print("permutation (1-based): " + " ".join(str(int(v) + 1) for v in res.permutation))
    return EXIT_OK
