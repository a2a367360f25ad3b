"""One allocator decision on the reference meshes and tori, as the
simulator makes it, against the oracles (part ``speed``).

Each case is one call of ``parse_allocator(name).select(machine, k)``
(its cache off) at half free (the busy nodes drawn at random, seed 0),
k = 256, for MC1x1, Gen-Alg, MM and MM+Inc on the 24x24x24 torus and mesh
and the 64x64 mesh and torus: ours best of seven, on
:func:`optalloc.set_threads` threads (the default count) and on one, against the
straightforward version the tests use as the oracle (run once, in the
same process); ``agree``: the same W.  ``quick``: 8x8x8 and 16x16, k = 32.
"""

from __future__ import annotations

import time

import numpy as np

import optalloc
from optalloc.sim import parse_allocator

from .._common import BenchRow, best_time
from ._centres import gen_alg_dense, mm_dense, mm_inc_dense, torus_dense
from ._mc import baseline_machine, baseline_mc1x1

__all__ = ["METHODS", "rows"]

#: the allocators timed, in order
METHODS = ("mc1x1", "gen-alg", "mm", "mm-inc")


def _half_free(shape, torus: bool, seed: int = 0):
    from optalloc.machine import Machine

    machine = Machine(shape, torus=torus)
    rng = np.random.default_rng(seed)
    machine.allocate(np.sort(rng.choice(machine.n, machine.n // 2, replace=False)))
    return machine


def _oracle_w(machine, k, name) -> float:
    """W of the oracle's choice (node ids on a torus, rows of the free points on a mesh)."""
    if any(machine.torus):
        if name == "mc1x1":
            return float(baseline_machine(machine, k).objective)
        return float(torus_dense(machine, k, name).objective)
    pts = np.asarray(machine.free_points(), dtype=float)
    if name == "mc1x1":
        return float(baseline_mc1x1(pts, k, shape=machine.shape).objective)
    dense = {"gen-alg": gen_alg_dense, "mm": mm_dense, "mm-inc": mm_inc_dense}[name]
    return float(dense(pts, k).objective)


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """One row per machine, method and thread count (see the module)."""
    k = 32 if quick else 256
    shapes = ((8, 8, 8), (16, 16)) if quick else ((24, 24, 24), (64, 64))
    default = optalloc.set_threads(1)
    optalloc.set_threads(default)
    counts = sorted({default, 1}, reverse=True)
    out: list[BenchRow] = []
    for shape in shapes:
        for torus in (True, False):
            machine = _half_free(shape, torus)
            inst = f"{'x'.join(map(str, shape))} {'torus' if torus else 'mesh'}, half free, k={k}"
            for name in METHODS:
                if progress:
                    progress(f"{name} on {inst}")
                alloc = parse_allocator(name)
                alloc.cache = 0
                t = time.perf_counter()
                theirs = _oracle_w(machine, k, name)
                t_base = time.perf_counter() - t
                try:
                    for threads in counts:
                        optalloc.set_threads(threads)
                        alloc.select(machine, k)  # compiled code loaded
                        seconds, got = best_time(lambda a=alloc, m=machine: a.select(m, k), 7)
                        label = f"{name} ({threads} thread{'s' if threads > 1 else ''})"
                        out.append(BenchRow(label, inst, seconds, "oracle", t_base,
                                            float(got.result.objective) == theirs))
                finally:
                    optalloc.set_threads(default)
    return out
