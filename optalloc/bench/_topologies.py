"""k-subset on tori and dragonflies (``--suite topologies``).

The exact solver on a torus with half the nodes free, against the same
solver on the mesh with the same free nodes (the wrap is the only
difference), and against the plain pairwise MIP on the torus; on the
72-node dragonfly, against its own cut loop without the search over block
and class counts.
"""

from __future__ import annotations

import numpy as np

from optalloc.ksubset import solve
from optalloc.machine import Machine, dragonfly

from ._common import BenchRow, half_free_mesh


def _machines(side: int, seed: int) -> tuple[Machine, Machine]:
    """A side x side torus and mesh with the same half of the nodes free."""
    free = {tuple(p) for p in half_free_mesh(side, side, seed=seed).astype(int).tolist()}
    out = []
    for torus in (True, False):
        m = Machine((side, side), torus=torus)
        m.allocate([i for i in range(m.n) if tuple(m.coords[i].tolist()) not in free])
        out.append(m)
    return out[0], out[1]


def _agree(a, b) -> bool:
    """Neither result's proven bound exceeds the other's objective."""
    tol = 1e-9 * max(1.0, a.objective)
    return a.bound <= b.objective + tol and b.bound <= a.objective + tol


def run_topologies(*, quick: bool = False, limit: float = 60.0, progress=None) -> list[BenchRow]:
    """Exact on a torus, half free, against the mesh with the same free
    nodes (``agree``: each side proves its bound, at most its objective)
    and against the pairwise MIP on the torus (``agree``: neither bound
    exceeds the other's objective).  ``quick``: 8x8, k = 8; otherwise
    16x16 with k in 8, 16, 32 and seeds 0-2.  Then exact on the 72-node
    dragonfly, idle and with 16 random nodes busy, against the cut loop
    alone (``profiles=False``; quick: k = 8, otherwise 16, 24, 32)."""
    side, ks, seeds = (8, (8,), (0,)) if quick else (16, (8, 16, 32), (0, 1, 2))
    rows = []
    for k in ks:
        for seed in seeds:
            torus, mesh = _machines(side, seed)
            inst = f"{side}x{side}, 50% free (seed {seed}), k={k}"
            if progress:
                progress(f"topologies exact torus {inst}")
            ours = solve(torus, k, method="exact", time_limit=limit)
            on_mesh = solve(mesh, k, method="exact", time_limit=limit)
            ok = ours.bound <= ours.objective and on_mesh.bound <= on_mesh.objective
            rows.append(BenchRow(f"exact, torus ({ours.status})", inst, ours.runtime,
                                 f"exact, mesh ({on_mesh.status})", on_mesh.runtime, ok,
                                 on_mesh.status != "optimal"))
            base = solve(torus, k, method="exact", formulation="pairwise", time_limit=limit)
            rows.append(BenchRow(f"exact, torus ({ours.status})", inst, ours.runtime, "pairwise MIP, torus",
                                 base.runtime, _agree(ours, base), base.status != "optimal"))
    return rows + _dragonfly_rows((8,) if quick else (16, 24, 32), limit, progress)


def _dragonfly_rows(ks, limit: float, progress) -> list[BenchRow]:
    """Exact on the 72-node dragonfly (the search over block and class
    counts first) against the cut loop alone, idle and 16 nodes busy."""
    rows = []
    for busy in (0, 16):
        for k in ks:
            m = dragonfly()
            if busy:
                m.allocate(np.sort(np.random.default_rng(0).choice(m.n, busy, replace=False)))
            inst = f"dragonfly 72 nodes, {busy} busy, k={k}"
            if progress:
                progress(f"topologies exact {inst}")
            ours = solve(m, k, method="exact", time_limit=limit)
            base = solve(m, k, method="exact", profiles=False, time_limit=limit)
            rows.append(BenchRow(f"exact, dragonfly ({ours.status})", inst, ours.runtime,
                                 f"cut loop alone ({base.status})", base.runtime, _agree(ours, base),
                                 base.status != "optimal"))
    return rows
