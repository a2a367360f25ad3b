"""Exact k-subset on tori against the mesh (issue 38, "tori as fast as meshes").

Seeded states with half the nodes free, k = 16 and 32: on a 16 x 16
torus the exact solver against the same solver on the 16 x 16 mesh with
the same free nodes (the wrap is the only difference); on an 8 x 8 x 8
torus against today's solver there (``profiles=False``, which in 3D is
the path before the optimum of the idle torus bounded it) and against the
8 x 8 x 8 mesh with the same free nodes.  ``agree``: neither side's proven
bound exceeds the other's objective where both solve the same machine,
and each side's bound is at most its own objective against the mesh.
Then the idle 8 x 8 x 8 torus and one with 16 random nodes busy, against
today's solver.
"""

from __future__ import annotations

import numpy as np

from optalloc.ksubset import solve
from optalloc.machine import Machine

from .._common import BenchRow, random_free_mesh

__all__ = ["rows"]


def _machines(sides: tuple, seed: int) -> tuple[Machine, Machine]:
    """A torus and a mesh of ``sides`` with the same half of the nodes free."""
    free = {tuple(p) for p in random_free_mesh(sides, 0.5, seed).astype(int).tolist()}
    out = []
    for torus in (True, False):
        m = Machine(sides, torus=torus)
        m.allocate([i for i in range(m.n) if tuple(m.coords[i].tolist()) not in free])
        out.append(m)
    return out[0], out[1]


def _agree(a, b) -> bool:
    """Neither result's proven bound exceeds the other's objective."""
    tol = 1e-9 * max(1.0, a.objective)
    return a.bound <= b.objective + tol and b.bound <= a.objective + tol


def _own(a, b) -> bool:
    """Each result's proven bound is at most its own objective."""
    return a.bound <= a.objective + 1e-9 and b.bound <= b.objective + 1e-9


def _warm() -> None:
    """Compile the kernels on small states before the clocks start."""
    for sides in ((6, 6), (4, 4, 4)):
        torus, mesh = _machines(sides, 0)
        solve(torus, 6, method="exact")
        solve(mesh, 6, method="exact")


def rows(*, quick: bool = False, progress=None, limit: float = 60.0) -> list[BenchRow]:
    """The rows of the module notes; ``quick``: seed 0 and k = 16 only,
    20 s per solve (``limit`` otherwise)."""
    ks, seeds = ((16,), (0,)) if quick else ((16, 32), (0, 1, 2))
    limit = 20.0 if quick else float(limit)
    _warm()
    out = []
    for sides in ((16, 16), (8, 8, 8)):
        name = "x".join(map(str, sides))
        for k in ks:
            for seed in seeds if len(sides) == 2 else seeds[:2]:
                torus, mesh = _machines(sides, seed)
                inst = f"{name}, 50% free (seed {seed}), k={k}"
                if progress:
                    progress(f"torus exact {inst}")
                ours = solve(torus, k, method="exact", time_limit=limit)
                if len(sides) == 3:
                    today = solve(torus, k, method="exact", time_limit=limit, profiles=False)
                    out.append(BenchRow(f"exact, torus ({ours.status})", inst, ours.runtime,
                                        f"today's exact, torus ({today.status})", today.runtime,
                                        _agree(ours, today), today.status != "optimal"))
                on_mesh = solve(mesh, k, method="exact", time_limit=limit)
                out.append(BenchRow(f"exact, torus ({ours.status})", inst, ours.runtime,
                                    f"exact, mesh ({on_mesh.status})", on_mesh.runtime, _own(ours, on_mesh),
                                    on_mesh.status != "optimal"))
    return out + _idle_rows(ks, limit, progress)


def _idle_rows(ks, limit: float, progress) -> list[BenchRow]:
    """The idle 8 x 8 x 8 torus and one with 16 random nodes busy: ours
    against today's (``profiles=False``)."""
    out = []
    for busy in (0, 16):
        for k in ks:
            m = Machine((8, 8, 8), torus=True)
            if busy:
                m.allocate(np.sort(np.random.default_rng(0).choice(m.n, busy, replace=False)))
            inst = f"8x8x8, {busy} busy, k={k}"
            if progress:
                progress(f"torus exact {inst}")
            ours = solve(m, k, method="exact", time_limit=limit)
            today = solve(m, k, method="exact", time_limit=limit, profiles=False)
            out.append(BenchRow(f"exact, torus ({ours.status})", inst, ours.runtime,
                                f"today's exact, torus ({today.status})", today.runtime, _agree(ours, today),
                                today.status != "optimal"))
    return out


if __name__ == "__main__":  # pragma: no cover - a manual run
    import sys

    from ._common import format_table

    table = rows(quick="--quick" in sys.argv, progress=lambda s: print(s, file=sys.stderr, flush=True))
    print(format_table(table))
