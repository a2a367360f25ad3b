"""Certified gaps on the networks people run (``optalloc bench --suite networks``).

One module per part, each a ``rows(*, quick, progress)`` of
:class:`~optalloc.bench.BenchRow`, run in :data:`PARTS` order:

``tree``
    exact on trees of switches (the dynamic program) on ``fattree:32``
    with half the hosts free, against Gen-Alg there and today's exact
    solver on small fat trees; ``certify`` along the bundled trace;
``dragonfly``
    exact on the 72-node dragonfly by the search over group and router
    counts, against the cut loop over the distance matrix;
``slurm``
    reading a Slurm ``topology.conf`` of 8,192 nodes, and one decision of
    the ``slurm:tree`` allocator against Gen-Alg on the same tree;
``history``
    replaying and certifying a job history written as sacct text (the
    bundled trace on the bundled ``topology.conf``; 10,000 Lublin jobs on
    ``fattree:32``) against ``certify`` of the same run;
``torus``
    exact on 16 x 16 and 8 x 8 x 8 tori against the mesh with the same
    free nodes and against the solver without the idle torus's optimum.
"""

from __future__ import annotations

from .._common import BenchRow, run_parts

__all__ = ["PARTS", "run_networks"]

#: the parts of the suite, in the order they run
PARTS = ("tree", "dragonfly", "slurm", "history", "torus")


def run_networks(*, quick: bool = False, parts=None, progress=None) -> list[BenchRow]:
    """The rows of the given parts (default: all of :data:`PARTS`).

    Raises
    ------
    ValueError
        An unknown part.
    """
    return run_parts(__name__, PARTS, parts, quick=quick, progress=progress)
