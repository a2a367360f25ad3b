"""Random machine states shared by the k-subset tests.

Like ``ksubset_truth``, a top-level module (``tests/ksubset`` has no
``__init__.py``), named so that it cannot clash with another.
"""

from __future__ import annotations

import numpy as np


def occupy_at_random(m, rng, most: float) -> None:
    """Allocate each node of ``m`` with a probability drawn from ``[0, most)``
    for the whole machine, one random node always left free."""
    busy = rng.random(m.n) < rng.uniform(0.0, most)
    busy[int(rng.integers(m.n))] = False
    if busy.any():
        m.allocate(np.flatnonzero(busy))


def random_wrapped(rng, top: dict[int, int]):
    """A machine of 1 to 3 axes of sides up to ``top[d]``, at least one of
    them wrapped, with a random share of its nodes busy (at least one free),
    and a k from 1 to its free nodes: ``(machine, k)``."""
    from optalloc.machine import Machine

    d = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(1, top[d] + 1, size=d))
    wrap = tuple(bool(b) for b in rng.integers(0, 2, size=d))
    if not any(wrap):
        wrap = (True,) + wrap[1:]
    m = Machine(shape, torus=wrap)
    busy = np.flatnonzero(rng.random(m.n) > rng.uniform(0.1, 1.0))
    if len(busy) == m.n:
        busy = busy[1:]
    if len(busy):
        m.allocate(busy)
    return m, int(rng.integers(1, m.n_free + 1))
