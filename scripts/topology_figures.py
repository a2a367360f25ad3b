"""The figures of the topology pages (docs/topologies/): each machine with a
few jobs placed by an allocator, drawn by ``optalloc.sim.plot_network``.

    PYTHONPATH=$PWD python scripts/topology_figures.py [--out docs/figures] [--force]

Writes mesh.png, torus.png, dragonfly.png, fat-tree.png and network.png;
an existing file is kept unless --force is given.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from optalloc.ksubset import solve
from optalloc.machine import Machine, parse_machine
from optalloc.sim import parse_allocator, plot_network

ROOT = Path(__file__).resolve().parents[1]


def _place(machine: Machine, sizes, allocator=None, *, release=()):
    """Jobs 1, 2, ... of the given sizes placed in turn (by a 1D allocator,
    or by Gen-Alg in the machine's metric); the jobs in `release` then end."""
    for job, k in enumerate(sizes, start=1):
        if allocator is None:
            nodes = solve(machine, k, method="gen-alg").indices
        else:
            nodes = allocator.select(machine, k).nodes
        machine.allocate(nodes, owner=job)
    for job in release:
        machine.release([int(i) for i in (machine.owner == job).nonzero()[0]], owner=job)
    return machine


def figures() -> dict[str, tuple[Machine, str]]:
    """Each figure's machine (jobs placed) and title."""
    hilbert = parse_allocator("1d:hilbert:best-fit")
    ring = parse_allocator("1d:closed-gilbert:best-fit:ring")
    mesh = _place(Machine((8, 8)), (6, 10, 5, 12, 8, 7), hilbert, release=(2, 4))
    _place(mesh, (9,), hilbert)
    torus = _place(Machine((8, 8), torus=True), (6, 10, 5, 12, 8, 7), ring, release=(2, 4))
    _place(torus, (9,), ring)
    fly = _place(parse_machine("dragonfly"), (8, 12, 6, 16))
    tree = _place(parse_machine("fattree:4"), (3, 5, 4))
    import networkx as nx

    graph = nx.connected_watts_strogatz_graph(24, 4, 0.2, seed=3)
    net = _place(Machine.from_graph(graph), (5, 4, 6))
    return {
        "mesh.png": (mesh, "8x8 mesh, 1d:hilbert:best-fit"),
        "torus.png": (torus, "8x8 torus, 1d:closed-gilbert:best-fit:ring"),
        "dragonfly.png": (fly, "dragonfly (9 groups of 4 routers, 2 nodes each), gen-alg"),
        "fat-tree.png": (tree, "4-ary fat tree, gen-alg"),
        "network.png": (net, "small-world network (24 nodes), gen-alg"),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "figures"), help="folder of the PNG files")
    parser.add_argument("--force", action="store_true", help="replace existing files")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if not out.is_dir():
        print(f"topology_figures: error: {out} is not a folder", file=sys.stderr)
        return 2
    for name, (machine, title) in figures().items():
        path = out / name
        if path.exists() and not args.force:
            print(f"{path} exists; kept (pass --force to replace it)", file=sys.stderr)
            continue
        plot_network(machine, path=path, title=title, overwrite=args.force)
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
