"""Orderings against the reference values and the curves they must beat (``--suite curves``).

Each row gives our value, the value to compare with (a reference measured
with independent code, or a curve run in the same process), their ratio,
and the time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from optalloc.curves import box_order, curve_objective, order_graph

from ._common import text_table

#: Ordering objective (w = 2^-(d-1), linear ranks, hop distance) measured with independent code.
REFERENCE = {
    ("hilbert", (8, 8)): 201.4,
    ("snake", (8, 8)): 225.4,
    ("hilbert", (16, 16)): 832.4,
    ("snake", (16, 16)): 972.0,
    ("gilbert", (8, 8, 5)): 1001.1,
    ("snake", (8, 8, 5)): 1164.1,
}


@dataclass
class OrderBenchRow:
    """Our ordering objective against a reference value or a curve's."""

    case: str
    value: float
    compared_with: str
    other: float
    seconds: float
    ok: bool

    @property
    def ratio(self) -> float:
        return self.value / self.other if self.other else float("nan")

    def to_dict(self) -> dict:
        return {**self.__dict__, "ratio": self.ratio}


def mesh_graph(shape):
    """The mesh of the given sides as a NetworkX graph labelled by
    coordinates ``(x, y[, z])``."""
    import networkx as nx

    return nx.Graph(nx.grid_graph(dim=list(shape)[::-1]))


def holed_mesh(shape=(16, 16), fraction: float = 0.15, seed: int = 0):
    """A mesh with ``fraction`` of its nodes removed at random; the largest component."""
    import networkx as nx

    G = mesh_graph(shape)
    rng = np.random.default_rng(seed)
    nodes = list(G.nodes)
    drop = rng.choice(len(nodes), round(fraction * len(nodes)), replace=False)
    G.remove_nodes_from([nodes[i] for i in drop])
    return G.subgraph(max(nx.connected_components(G), key=len)).copy()


def run_curves(*, quick: bool = False, limit: float = 30.0, progress=None) -> list[OrderBenchRow]:
    """Reference values of the curves, then order_graph against the curves."""
    rows = []
    for (method, shape), ref in REFERENCE.items():
        t = time.perf_counter()
        value = curve_objective(box_order(shape, method))
        rows.append(OrderBenchRow(f"{method} {'x'.join(map(str, shape))}", value, "reference", ref,
                                  time.perf_counter() - t, abs(value - ref) < 0.05))
    cases = [("16x16 mesh, 15% removed", holed_mesh(), "hilbert", 0.98),
             ("8x8x5 mesh", mesh_graph((8, 8, 5)), "gilbert", 1.0)]
    if quick:
        cases = [("8x8 mesh, 15% removed", holed_mesh((8, 8)), "hilbert", 1.0)]
        limit = min(limit, 3.0)
    for name, G, curve, target in cases:
        if progress:
            progress(name)
        ref = order_graph(G, method=curve).objective
        res = order_graph(G, method="qap", rng=0, time_limit=limit)
        rows.append(OrderBenchRow(f"order_graph qap ({name}, {limit:g} s)", res.objective, curve, ref,
                                  res.runtime, res.objective <= target * ref + 1e-9))
    if not quick:
        import networkx as nx

        for name, G in (("2x4 mesh", mesh_graph((2, 4))), ("path 8", nx.path_graph(8))):
            if progress:
                progress(f"ip {name}")
            t = time.perf_counter()
            brute = order_graph(G, method="brute").objective
            tb = time.perf_counter() - t
            ip = order_graph(G, method="ip")
            rows.append(OrderBenchRow(f"order_graph ip ({name}; brute {tb:.2f} s)", ip.objective, "brute force",
                                      brute, ip.runtime, abs(ip.objective - brute) < 1e-6))
    return rows


def format_curves_table(rows: list[OrderBenchRow]) -> str:
    """The text table of :class:`OrderBenchRow` rows."""
    head = ("case", "ours", "compared with", "value", "ours/value", "time", "ok")
    body = [(r.case, f"{r.value:.1f}", r.compared_with, f"{r.other:.1f}", f"{r.ratio:.4f}", f"{r.seconds:.2f} s",
             "yes" if r.ok else "NO") for r in rows]
    return text_table(head, body)
