"""The k-subset heuristics against plain-Python baselines (``--suite heuristics``).

Each case times our solver and a baseline on the same instance, the best
of a few runs each, and checks that both give the same answer.
"""

from __future__ import annotations

import numpy as np

from optalloc.ksubset import brute, gen_alg, k3, line, mc1x1, mm, mm_inc, weight

from ._common import BenchRow, best_time, half_free_mesh
from ._reference import gen_alg_reference, line_reference, mc1x1_reference, mm_reference, weight_reference


def run(*, quick: bool = False, repeat: int = 5, progress=None) -> list[BenchRow]:
    """Run every heuristics case; ``quick`` shrinks the instances (for tests)."""
    side, k = (12, 16) if quick else (32, 64)
    pts = half_free_mesh(side, side)
    inst = f"{side}x{side} mesh, {len(pts)} free, k={k}"
    rows: list[BenchRow] = []

    def case(name, instance, fast, base_name, base, same):
        if progress:
            progress(name)
        t_fast, out_fast = best_time(fast, repeat)
        t_base, out_base = best_time(base, repeat)
        rows.append(BenchRow(name, instance, t_fast, base_name, t_base, bool(same(out_fast, out_base))))

    case("mm", inst, lambda: mm(pts, k), "plain-Python MM", lambda: mm_reference(pts, k),
         lambda a, b: a.indices.tolist() == b[0])
    case("gen-alg", inst, lambda: gen_alg(pts, k), "plain-Python Gen-Alg", lambda: gen_alg_reference(pts, k),
         lambda a, b: a.indices.tolist() == b[0])
    case("mc1x1", inst, lambda: mc1x1(pts, k, shape=(side, side)), "plain-Python MC1x1",
         lambda: mc1x1_reference(pts, k), lambda a, b: a.indices.tolist() == b[0])
    case("mc1x1 tie_break=default", inst, lambda: mc1x1(pts, k, shape=(side, side), tie_break="default"),
         "mc1x1 without tie-breaking", lambda: mc1x1(pts, k, shape=(side, side)),
         lambda a, b: a.extra["score"] == b.extra["score"])
    case("mm-inc", inst, lambda: mm_inc(pts, k), "mm (its first phase)", lambda: mm(pts, k),
         lambda a, b: a.objective <= b.objective)

    rng = np.random.default_rng(1)
    kw = 300 if quick else 1500
    cloud = rng.integers(0, 1000, size=(kw, 3))
    case("weight", f"{kw} points in 3-D", lambda: weight(cloud), "O(k^2) double loop",
         lambda: weight_reference(cloud), lambda a, b: a == b)

    nl, kl = (2000, 50) if quick else (20000, 200)
    q = np.sort(rng.integers(0, 10 * nl, size=nl))
    case("line", f"n={nl}, k={kl}", lambda: line(q, kl), "windows in O(k) each",
         lambda: line_reference(q, kl), lambda a, b: a.objective == b)

    n3 = 60 if quick else 200
    plane = rng.integers(0, 40, size=(n3, 2))
    case("k3", f"{n3} points in a 40x40 square", lambda: k3(plane), "brute force",
         lambda: brute(plane, 3, limit=10**7), lambda a, b: a.objective == b.objective)
    return rows
