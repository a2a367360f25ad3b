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

from ._kernels import count_components, grid_weight_bbox, ring_spans
from ._locality import bounding_cube, locality_context, min_bounding_cube

__all__ = ["BLOCK", "JobMetrics", "network_weight"]

#: Rows of distances a network's W reads at once (above this many nodes).
BLOCK = 2048


def network_weight(machine, ids: np.ndarray) -> float:
    """W of the nodes ``ids`` of a network: the sum of their pairwise
    distances, as one k x k matrix up to :data:`BLOCK` nodes, else in
    blocks of :data:`BLOCK` rows."""
    k = len(ids)
    if k < 2:
        return 0.0
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
        self.ranks = None if ranks is None else np.ascontiguousarray(ranks, dtype=np.int64)
        self.size = machine.size
        self.grid = machine.is_grid
        self.slot = np.full(machine.size, -1, dtype=np.int64)
        self.neighbours = np.ascontiguousarray(self.ctx.neighbours, dtype=np.int64)
        if self.grid:
            self.coords = np.ascontiguousarray(machine.coords, dtype=np.int64)
            self.shape = np.asarray(machine.shape, dtype=np.int64)
            self.wrap = np.asarray(machine.torus, dtype=np.bool_)
            self.ndim = machine.ndim
            self.box = np.empty(machine.ndim, dtype=np.int64)

    def __call__(self, ids: np.ndarray) -> dict:
        """The figures of one allocation (``ids``: int64 node ids): ``W``,
        ``avg_l1``, ``bbox``, ``bbox_volume``, ``span``, ``ring_span`` and
        those of :func:`~optalloc.sim.job_locality`."""
        k = len(ids)
        span = ring_span = None
        if self.ranks is not None:
            span, ring_span = ring_spans(self.ranks, ids, self.size)
        if self.grid:
            if k == 1:
                w, bbox = 0.0, (1,) * self.ndim
            else:
                w = float(grid_weight_bbox(self.coords, ids, self.shape, self.wrap, self.box))
                bbox = tuple(self.box.tolist())
            cube = bounding_cube(bbox)
            ctx = self.ctx
            smallest = ctx.min_cube[k] if ctx.min_cube is not None else min_bounding_cube(self.machine.shape, k)
            volume, half, ratio = int(math.prod(bbox)), int(sum(bbox)), cube / smallest
        else:
            w, bbox, volume, cube, half, ratio = network_weight(self.machine, ids), None, None, None, None, None
        pairs = k * (k - 1) / 2
        return {"W": w, "avg_l1": w / pairs if pairs else 0.0, "bbox": bbox, "bbox_volume": volume, "span": span,
                "ring_span": ring_span, "stretch_span": None if ring_span is None else ring_span / k,
                "bbox_half_perimeter": half, "bbox_cube": cube, "bbox_cube_ratio": ratio,
                "components": 1 if k == 1 else count_components(self.neighbours, ids, self.slot)}
