"""Every per-job locality figure of one allocation, at the cost of a few
compiled passes over the job's nodes: what the simulator records for each
job (:func:`~optalloc.sim.allocation_metrics` and
:func:`~optalloc.sim.job_locality` together, with the same values).

On a mesh or torus nothing is quadratic in the job or the machine: W and
the bounding box from the sorted coordinates of each axis, the spans from
the sorted ranks, the components by union-find over the machine's
adjacency lists.  On a network W sums the job's distances, in blocks of
rows above ``BLOCK`` nodes so that no more than ``BLOCK`` x k distances
are held at once.
"""

from __future__ import annotations

import math

import numpy as np

from ._kernels import job_figures
from ._locality import locality_context, min_bounding_cube

__all__ = ["BLOCK", "JobMetrics", "network_weight"]

#: Rows of distances a network's W reads at once (above this many nodes).
BLOCK = 2048


def network_weight(machine, ids: np.ndarray) -> float:
    """W of the nodes ``ids`` of a network: the sum of their pairwise
    distances: from counts per router on a dragonfly or fat tree, else as
    one k x k matrix up to :data:`BLOCK` nodes, or in blocks of
    :data:`BLOCK` rows."""
    k = len(ids)
    if k < 2:
        return 0.0
    if machine.hierarchy is not None:  # a dragonfly or fat tree: from counts per router
        return float(machine.hierarchy.weight(ids))
    if k <= BLOCK:
        return float(machine.distances(ids).sum() / 2.0)
    total = 0.0
    for lo in range(0, k, BLOCK):
        rows = ids[lo:lo + BLOCK]
        total += float(machine.pair_distances(rows[:, None], ids[None, :]).sum())
    return total / 2.0


class JobMetrics:
    """The locality of each allocation on one machine, with what it needs
    worked out once (coordinates, adjacency lists, smallest cubes).

    Parameters
    ----------
    machine : Machine
    ranks : numpy.ndarray, optional
        Rank of every node id along an ordering (gives the spans).

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> m = JobMetrics(Machine((4, 4), torus=True))
    >>> out = m(np.array([0, 3, 12]))
    >>> out["W"], out["bbox"], out["components"]
    (4.0, (2, 2), 1)
    """

    def __init__(self, machine, ranks=None):
        self.machine = machine
        self.ctx = locality_context(machine)
        self.with_ranks = ranks is not None
        self.ranks = np.zeros(1, dtype=np.int64) if ranks is None else np.ascontiguousarray(ranks, dtype=np.int64)
        self.size = machine.size
        self.grid = machine.is_grid
        self.slot = np.full(machine.size, -1, dtype=np.int64)
        self.neighbours = np.ascontiguousarray(self.ctx.neighbours, dtype=np.int64)
        d = machine.ndim if self.grid else 1
        # own writable copies: numba compiles a kernel once more for each read-only argument
        self.coords = np.array(machine.coords, dtype=np.int64) if self.grid else np.zeros((1, 1), np.int64)
        self.shape = np.asarray(machine.shape if self.grid else (1,), dtype=np.int64)
        self.wrap = np.asarray(machine.torus if self.grid else (False,), dtype=np.bool_)
        self.box = np.empty(d, dtype=np.int64)
        self.min_cube = self.ctx.min_cube

    def __call__(self, ids: np.ndarray) -> dict:
        """The figures of one allocation (``ids``: int64 node ids): ``W``,
        ``avg_l1``, ``bbox``, ``bbox_volume``, ``span``, ``ring_span`` and
        those of :func:`~optalloc.sim.job_locality`."""
        k = len(ids)
        ids = np.require(ids, dtype=np.int64, requirements=["C", "W"])  # one compiled version (see __init__)
        w, span, ring_span, comps = job_figures(ids, self.grid, self.coords, self.shape, self.wrap, self.box,
                                                self.with_ranks, self.ranks, self.size, self.neighbours, self.slot)
        if not self.with_ranks:
            span = ring_span = None
        if self.grid:
            w = float(w)
            bbox = tuple(self.box.tolist())
            side = max(bbox)
            cube = side ** len(bbox)
            smallest = self.min_cube[k] if self.min_cube is not None else min_bounding_cube(self.machine.shape, k)
            volume, half, ratio = math.prod(bbox), sum(bbox), cube / smallest
        else:
            w, bbox, volume, cube, half, ratio = network_weight(self.machine, ids), None, None, None, None, None
        pairs = k * (k - 1) / 2
        return {"W": w, "avg_l1": w / pairs if pairs else 0.0, "bbox": bbox, "bbox_volume": volume, "span": span,
                "ring_span": ring_span, "stretch_span": None if ring_span is None else ring_span / k,
                "bbox_half_perimeter": half, "bbox_cube": cube, "bbox_cube_ratio": ratio, "components": comps}
