"""Subcommand ``optalloc order`` (registered by optalloc.cli)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path


def register(sub) -> None:
    """Add ``order`` to the ``optalloc`` subparsers ``sub``."""
    from ._graph import GRAPH_METHODS

    p = sub.add_parser("order", help="order the nodes of a mesh, torus or network for a 1D allocator",
                       description="A linear order of the nodes that keeps neighbours close (the ordering "
                       "objective of SAND2003-3702 sec. 4.2), with a proven lower bound.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--mesh", metavar="WxH[xD]", help="a mesh (nodes labelled by coordinates)")
    src.add_argument("--graph", metavar="FILE",
                     help="a network: edge list (u v [length] per line), GraphML (.graphml) or JSON node-link "
                     "(.json)")
    p.add_argument("--torus", action="store_true", help="with --mesh: wrap-around links")
    p.add_argument("--method", choices=GRAPH_METHODS, default="auto",
                   help="qap (search), brute or ip (exact, small), gilbert, hilbert, snake, row-major, spectral, greedy; "
                   "auto: brute up to 8 nodes, else qap")
    p.add_argument("--ring", action="store_true", help="rank distance around a ring of ranks")
    p.add_argument("--weight", metavar="ATTR", help="edge attribute holding link lengths (default: hops)")
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds for the search or the IP")
    p.add_argument("--iterations", type=int, metavar="N", help="tabu moves (default 20 N without a time limit)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", metavar="FILE", help="write the order, one node per line (JSON list for .json)")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_order)


def mesh_graph(shape, *, torus: bool = False):
    """The mesh (or torus) of the given sides as a graph labelled by coordinates."""
    import networkx as nx

    G = nx.grid_graph(dim=list(shape)[::-1], periodic=torus)  # labels (x, y[, z])
    if torus:  # a side of 2 wraps onto the link it already has; sides of 1 loop
        G.remove_edges_from(list(nx.selfloop_edges(G)))
    return nx.Graph(G)


def read_graph(path: str | os.PathLike):
    """A graph from an edge list, GraphML or JSON node-link file (by extension)."""
    import networkx as nx

    from optalloc.machine._io import _read_text

    path = Path(path)
    text = _read_text(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".graphml":
            G = nx.parse_graphml(text)
        elif suffix == ".json":
            G = nx.node_link_graph(json.loads(text), edges="links")
        else:
            G = nx.Graph()
            for lineno, line in enumerate(text.splitlines(), 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                parts = line.replace(",", " ").split()
                if len(parts) not in (2, 3):
                    raise ValueError(f"{path}:{lineno}: expected 'u v' or 'u v length', got {line!r}")
                u, v = (_label(x) for x in parts[:2])
                if len(parts) == 3:
                    try:
                        length = float(parts[2])
                    except ValueError:
                        raise ValueError(f"{path}:{lineno}: length must be a number, got {parts[2]!r}") from None
                    if G.has_edge(u, v):  # a repeated link: the shortest counts
                        length = min(length, G.edges[u, v].get("length", length))
                    G.add_edge(u, v, length=length)
                else:
                    G.add_edge(u, v)
    except (json.JSONDecodeError, nx.NetworkXError, KeyError, TypeError, AttributeError, SyntaxError) as exc:
        raise ValueError(f"{path}: not a {suffix or 'graph'} file networkx can read ({exc})") from None
    if G.number_of_nodes() == 0:
        raise ValueError(f"{path}: the graph has no node")
    return G


def _label(text: str):
    """An integer when the text reads back the same ("7"), else the text ("07", "n7")."""
    try:
        value = int(text)
    except ValueError:
        return text
    return value if str(value) == text else text


def _cmd_order(args) -> int:
    from optalloc.cli import (
        EXIT_OK,
        UsageError,
        _fmt,
        _parse_shape,
        _print_json,
        _print_rows,
    )

    from ._graph import order_graph

    if args.torus and not args.mesh:
        raise UsageError("--torus applies to --mesh")
    if args.time_limit is not None and not args.time_limit > 0:
        raise UsageError(f"--time-limit must be positive, got {args.time_limit}")
    if args.iterations is not None and args.iterations < 1:
        raise UsageError(f"--iterations must be at least 1, got {args.iterations}")
    if args.out and os.path.exists(args.out) and not args.force:
        raise UsageError(f"{args.out} exists; pass --force to overwrite it")
    weight = args.weight
    if args.mesh:
        from ._graph import DENSE_MAX

        shape = _parse_shape(args.mesh, "--mesh")
        if math.prod(shape) > DENSE_MAX:
            raise UsageError(f"--mesh {args.mesh} has {math.prod(shape)} nodes; orderings use a dense distance "
                             f"matrix, at most {DENSE_MAX} nodes")
        G = mesh_graph(shape, torus=args.torus)
    else:
        G = read_graph(args.graph)
        if weight is None and any("length" in d for _, _, d in G.edges(data=True)):
            weight = "length"
    res = order_graph(G, method=args.method, ring=args.ring, weight=weight, rng=args.seed,
                      time_limit=args.time_limit, iterations=args.iterations)
    order = res.extra["order"]
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            if args.out.lower().endswith(".json"):
                json.dump([_plain(v) for v in order], fh)
                fh.write("\n")
            else:
                fh.writelines(_node_text(v) + "\n" for v in order)
    if args.json:
        out = res.to_dict()
        out["extra"]["order"] = [_plain(v) for v in order]
        _print_json(out)
        return EXIT_OK
    _print_rows([("nodes", str(len(order))), ("method", res.method), ("objective", _fmt(res.objective)),
                 ("bound", _fmt(res.bound)), ("gap", _fmt(res.gap)), ("status", res.status),
                 ("seconds", f"{res.wall_time:.3f}")])
    if not args.out:
        print()
        for v in order:
            print(_node_text(v))
    return EXIT_OK


def _plain(v):
    return list(v) if isinstance(v, tuple) else v


def _node_text(v) -> str:
    return " ".join(str(c) for c in v) if isinstance(v, tuple) else str(v)
