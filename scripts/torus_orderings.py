"""Curves on small tori against the ordering IP: the table of docs/topologies/torus.md.

Each curve is scored by the ordering objective of SAND2003-3702 sec. 4.2
with torus (wrap) distances and ring rank distance; the ordering IP
(``optalloc.curves.order_ip``, HiGHS, ``--time-limit`` seconds per torus)
or brute force (up to 9 nodes) gives the optimum or a proven lower bound;
the tabu search of ``order_graph(method="qap")`` a good order.  Each
curve's cell is its objective and, in brackets, its ratio to the best
order found by any of them.

    PYTHONPATH=$PWD python scripts/torus_orderings.py --time-limit 300
"""

from __future__ import annotations

import argparse
import sys

from optalloc.curves import BOX_ORDERS, box_order, order_graph, order_ip, order_objective
from optalloc.machine import Machine

TORI = ((3, 3), (4, 2), (4, 3), (4, 4), (6, 4))


def curve_values(machine: Machine, *, ring: bool = True) -> dict[str, float]:
    """Objective of every box ordering that takes the machine's shape."""
    D = machine.distances()
    out = {}
    for name in BOX_ORDERS:
        try:
            coords = box_order(machine, name)
        except ValueError:  # hilbert and moore: power-of-two squares only
            continue
        out[name] = order_objective(D, machine.node_ids(coords), ring=ring)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds of HiGHS per torus")
    args = parser.parse_args(argv)
    print("| torus | exact or IP | IP best | proven lower bound | tabu search | " + " | ".join(BOX_ORDERS) + " |")
    print("|---" * (5 + len(BOX_ORDERS)) + "|")
    for shape in TORI:
        m = Machine(shape, torus=True)
        values = curve_values(m)
        if m.n <= 9:
            r = order_graph(m, method="brute", ring=True)
            how = "brute force"
        else:
            r = order_ip(m.distances(), ring=True, time_limit=args.time_limit)
            how = f"IP, {r.termination}"
        search = order_graph(m, method="qap", ring=True, rng=0).objective
        bound = r.bound
        print(f"{shape} {how} after {r.runtime:.0f} s: best {r.objective} bound {bound}; search {search}",
              file=sys.stderr)
        for name, v in values.items():
            if bound is not None and v < bound - 1e-6:
                raise SystemExit(f"{name} on {shape}: {v} below the proven bound {bound}")
        best = min([r.objective, search, *values.values()])
        cells = []
        for name in BOX_ORDERS:
            v = values.get(name)
            cells.append("-" if v is None else f"{v:.2f} ({v / best:.3f})")
        dims = "x".join(map(str, shape))
        print(f"| {dims} | {how} | {r.objective:.2f} | {bound:.2f} | {search:.2f} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
