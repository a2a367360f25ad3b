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
