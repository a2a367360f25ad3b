"""Subcommand ``optalloc order``: a linear order of the nodes of a machine
for a one-dimensional allocator (:func:`optalloc.curves.order_graph`).

``order`` in the output holds node ids of the machine (x fastest on a mesh
or torus, the file's node order on a network); ``labels`` the same nodes by
name (coordinates on a mesh or torus)."""

from __future__ import annotations

import json

from optalloc.curves import GRAPH_METHODS, order_graph

from ._common import (
    EXIT_OK,
    add_machine,
    add_quiet,
    check_at_least_one,
    check_out,
    check_positive,
    fmt,
    machine_option,
    out_file,
    print_json,
    print_rows,
    progress_for,
    say_why,
    seed,
)

#: parameters of order_graph -> the options that give them (for the library's messages)
ORDER_FLAGS = {"time_limit": "--time-limit", "iterations": "--iterations", "rng": "--seed", "weight": "--weight",
               "machine": "--machine", "G": "--machine", "D": "--machine", "method": "--method"}


def plain(v):
    """A node label for JSON (coordinate tuples become lists)."""
    return list(v) if isinstance(v, tuple) else v


def node_text(v) -> str:
    """A node label for text output (coordinates as ``x y [z]``)."""
    return " ".join(str(c) for c in v) if isinstance(v, tuple) else str(v)


def cmd_order(args) -> int:
    check_positive(args.time_limit, "--time-limit")
    check_at_least_one(args.iterations, "--iterations")
    check_out(args.out, args.force)
    machine = machine_option(args)
    with progress_for(args, "order") as progress:
        res = order_graph(machine, method=args.method, ring=args.ring, rng=args.seed,
                          time_limit=args.time_limit, iterations=args.iterations, progress=progress)
        say_why(progress, res)
    labels = list(res.labels)
    if args.out:
        with out_file(args.out, args.force) as fh:
            if args.out.lower().endswith(".json"):
                json.dump([plain(v) for v in labels], fh)
                fh.write("\n")
            else:
                fh.writelines(node_text(v) + "\n" for v in labels)
    if args.json:
        print_json(res.to_dict())
        return EXIT_OK
    print_rows([("machine", machine.describe()), ("nodes", str(len(labels))), ("method", res.method),
                ("objective", fmt(res.objective)), ("bound", fmt(res.bound)), ("gap", fmt(res.gap)),
                ("status", res.status), ("seconds", f"{res.runtime:.3f}")])
    if not args.out:
        print()
        for v in labels:
            print(node_text(v))
    return EXIT_OK


def register(sub) -> None:
    """Add ``order`` to the ``optalloc`` subparsers ``sub``."""
    p = sub.add_parser("order", help="order the nodes of a mesh, torus or network for a 1D allocator",
                       description="A linear order of the nodes that keeps neighbours close (the ordering "
                       "objective of SAND2003-3702 sec. 4.2), with a proven lower bound. Busy nodes of a "
                       "machine map are ordered too: an ordering ranks every node.")
    add_machine(p, required=True, example="network.graphml",
                help="a shape (16x16, '8x8 torus', torus:4x4, '8x8 torus(tm)'), a generated network "
                "(dragonfly:9,4,2,2, fattree:4), a machine map, or a network "
                "file: edge list (u v [length] per line), GraphML (.graphml) or JSON node-link (.json)")
    p.add_argument("--method", choices=GRAPH_METHODS, default="auto",
                   help="qap (search), brute or ip (exact, small), gilbert, hilbert, snake, row-major, the closed "
                   "curves moore, closed-gilbert, closed-snake (last node next to the first, through a torus's "
                   "wrap links), spectral, greedy, sparse (swap search without a distance matrix, for large "
                   "machines); auto: brute up to 8 nodes, qap up to 256, else sparse")
    p.add_argument("--ring", action="store_true", help="rank distance around a ring of ranks")
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds for the search or the IP")
    p.add_argument("--iterations", type=int, metavar="N", help="tabu moves (default 20 N without a time limit); "
                   "sparse: swaps evaluated (default 20 N)")
    p.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    p.add_argument("--out", metavar="FILE", help="write the order, one node per line (JSON list for .json)")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_quiet(p, verbose=True)
    p.set_defaults(func=cmd_order, flags=ORDER_FLAGS)
