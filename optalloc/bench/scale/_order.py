"""Orderings at the size of today's machines: ``order_graph`` without a
distance matrix against today's dense path (the shortest-path matrix and
the QAP search) on the same machine, where today's runs.

Each row's case names our objective and bound (the relaxed
Gilmore-Lawler bound of the sparse path); ``agree`` is our objective no
worse than today's (the same on a curve) and the bound below it.
"""

from __future__ import annotations

import math
import time

from optalloc.bench._common import BenchRow
from optalloc.curves import box_order, graph_distances, order_graph, order_objective
from optalloc.machine import Machine, parse_machine

#: The large networks, with the 1,000-node ones of the same family whose
#: build time predicts theirs.
BIG_NETWORKS = (("fattree:32", "fattree:16"), ("dragonfly:65,32,4,2", "dragonfly:33,8,4,4"))
#: Seconds a large network may take to build (predicted) before its row is skipped.
BUILD_BUDGET = 30.0


def _say(progress, text):
    if progress:
        progress(text)


def _case(what: str, res) -> str:
    return f"{what}: objective {res.objective:.6g}, bound {res.bound:.6g}"


def _curve_row(shape, torus: bool) -> BenchRow:
    """The gilbert curve evaluated without a matrix against today's path
    (the shortest-path matrix of the graph, then the objective)."""
    m = Machine(shape, torus=torus)
    name = "x".join(map(str, shape)) + (" torus" if torus else " mesh")
    t = time.perf_counter()
    ours = order_graph(m, method="gilbert")
    mine = time.perf_counter() - t
    t = time.perf_counter()
    _, D = graph_distances(m)
    theirs = order_objective(D, m.node_ids(box_order(m.shape, "gilbert")))
    base = time.perf_counter() - t
    return BenchRow(_case("order gilbert", ours), name, mine, f"today's dense path: objective {theirs:.6g}",
                    base, math.isclose(ours.objective, theirs, rel_tol=1e-9) and ours.bound <= ours.objective)


def _search_row(machine: Machine, name: str, limit: float, build: float) -> BenchRow:
    """``auto`` (the sparse search) against today's ``auto`` (the QAP
    search on the dense matrix) capped at ``limit`` seconds."""
    t = time.perf_counter()
    ours = order_graph(machine, rng=0)
    mine = time.perf_counter() - t
    t = time.perf_counter()
    theirs = order_graph(machine, method="qap", rng=0, time_limit=limit)
    base = time.perf_counter() - t
    agree = ours.objective <= theirs.objective * (1 + 1e-9) and ours.bound <= ours.objective
    return BenchRow(_case("order auto (sparse)", ours), f"{name} (built in {build:.1f} s)", mine,
                    f"today's auto (qap): objective {theirs.objective:.6g}, bound {theirs.bound:.6g}", base, agree,
                    baseline_capped=theirs.termination == "time_limit" or base >= limit)


def _alone_row(machine: Machine, name: str, why: str) -> BenchRow:
    """Ours where today's does not run: the row checks bound <= objective."""
    t = time.perf_counter()
    ours = order_graph(machine, rng=0)
    mine = time.perf_counter() - t
    return BenchRow(_case("order auto (sparse)", ours), name, mine, f"today's: {why}", math.nan,
                    0 < ours.bound <= ours.objective)


def rows(*, quick: bool = False, progress=None, limit: float = 60.0) -> list[BenchRow]:
    """The ordering rows (``quick``: smaller grids, today's search capped at 10 s)."""
    out = []
    limit = min(limit, 10.0) if quick else limit
    shape = (12, 12, 12) if quick else (16, 16, 16)
    _say(progress, f"scale order gilbert {'x'.join(map(str, shape))} torus")
    out.append(_curve_row(shape, True))
    _say(progress, "scale order 32x32x32 torus")
    out.append(_alone_row(Machine((32, 32, 32), torus=True), "32x32x32 torus",
                          "refused (a dense matrix, at most 20,000 nodes)"))
    for big, small in BIG_NETWORKS:
        _say(progress, f"scale order {small}")
        t = time.perf_counter()
        m = parse_machine(small)
        build = time.perf_counter() - t
        out.append(_search_row(m, small, limit, build))
        if quick:
            continue
        # a build through all-pairs paths grows about as the cube of the nodes (a
        # structural one barely grows): the cube keeps a dense build from starting
        predicted = build * (_nodes(big) / m.n) ** 3
        if predicted > BUILD_BUDGET:
            _say(progress, f"scale order {big}: skipped, building it would take about {predicted:.0f} s")
            continue
        _say(progress, f"scale order {big}")
        t = time.perf_counter()
        mb = parse_machine(big)
        out.append(_alone_row(mb, f"{big} (built in {time.perf_counter() - t:.1f} s)",
                              "not run (the dense QAP search takes hours)"))
    return out


def _nodes(spec: str) -> int:
    """Nodes of a generated network named by ``spec`` (without building it)."""
    kind, _, args = spec.partition(":")
    vals = [int(v) for v in args.split(",")]
    if kind == "fattree":
        return vals[0] ** 3 // 4
    return vals[0] * vals[1] * vals[2]
