"""Figures at the size of today's machines (``optalloc bench --suite scale``).

One module per part, each a ``rows(*, quick, progress)`` of
:class:`~optalloc.bench.BenchRow`, run in :data:`PARTS` order:

``mc``
    MC1x1 (plain, tie-breaking, requested shape) on 24 x 24 x 24 and
    64 x 64 meshes and tori, half free, k = 256, against today's
    straightforward version, kept here as the tests' oracle;
``centres``
    Gen-Alg, MM and MM+Inc on the same states against theirs;
``speed``
    one decision of MC1x1, Gen-Alg, MM and MM+Inc per reference mesh and
    torus on one thread and on all (``OPTALLOC_THREADS``), against the
    oracles;
``networks``
    building the dragonfly and the fat tree from their structure, and one
    decision of Gen-Alg and the SST dragonfly allocators at 8,000+ nodes,
    against the dense construction;
``workload``
    Lublin-Feitelson traces of 10,000 and 1,000,000 jobs;
``sim``
    the event engine alone, a million jobs with the free-list allocator,
    against the straightforward loop;
``order``
    orderings of the 32 x 32 x 32 torus and the reference networks;
``targets``
    a 10,000-job Lublin trace with EASY on each reference machine and
    allocator, against the 60 s target.
"""

from __future__ import annotations

from .._common import BenchRow, run_parts

__all__ = ["PARTS", "run_scale"]

#: the parts of the suite, in the order they run
PARTS = ("mc", "centres", "speed", "networks", "workload", "sim", "order", "targets")


def run_scale(*, quick: bool = False, parts=None, progress=None) -> list[BenchRow]:
    """The rows of the given parts (default: all of :data:`PARTS`).

    Raises
    ------
    ValueError
        An unknown part.
    """
    return run_parts(__name__, PARTS, parts, quick=quick, progress=progress)
