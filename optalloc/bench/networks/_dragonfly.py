"""Exact k-subset on a dragonfly: the search over group and router counts
against today's exact solver in the machine's metric (the cut loop over
the free nodes' distance matrix, with the search over block and class
counts before it), on a few states of the 72-node default dragonfly.

``agree``: both prove the same optimum, or, where today's solver stops at
its time limit, its bracket holds our optimum.
"""

from __future__ import annotations

import numpy as np

from optalloc.ksubset import solve
from optalloc.machine import dragonfly

from .._common import BenchRow

__all__ = ["rows", "today_exact"]

#: seconds today's solver gets per state
_TODAY_LIMIT = 60.0


def today_exact(machine, k, time_limit=_TODAY_LIMIT):
    """Today's exact solver on a dragonfly: the search over block and class
    counts, then the cut loop, over the free nodes' matrix (``counts=False``)."""
    return solve(machine, k, method="exact", counts=False, time_limit=time_limit)


def _state(busy: int, seed: int):
    m = dragonfly()
    if busy:
        m.allocate(np.sort(np.random.default_rng(seed).choice(m.n, busy, replace=False)))
    return m


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """Our exact solve against today's on the default dragonfly: idle at k =
    16 and 32, one node busy at k = 32, 16 busy at k = 24 (``quick``: the
    two smallest)."""
    cases = [(0, 16), (16, 24), (0, 32), (1, 32)]
    if quick:
        cases = cases[:2]
    solve(_state(4, 1), 6, method="exact")  # compile the kernels before the clocks start
    out = []
    for busy, k in cases:
        m = _state(busy, 0)
        inst = f"dragonfly (72 nodes), {m.n_free} free, k={k}"
        if progress:
            progress(f"dragonfly exact: {inst}")
        ours = solve(m, k, method="exact")
        base = today_exact(m, k)
        capped = base.status != "optimal"
        agree = ours.status == "optimal" and (base.objective == ours.objective if not capped
                                              else base.bound <= ours.objective <= base.objective)
        out.append(BenchRow("exact on a dragonfly", inst, ours.runtime, "block and class counts, then the cut "
                            f"loop, over the matrix (limit {_TODAY_LIMIT:g} s)", base.runtime, bool(agree), capped))
    return out
