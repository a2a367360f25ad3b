"""The locality metrics of Leung et al. (2002, sec. 3) for one allocation,
and their aggregates over a simulation.

Per job (k processors):

- ``stretch_span``: the span divided by k.  The span is Leung's (their
  sec. 2.3 calls the ring span "span"): the record's ``ring_span``;
- ``bbox_half_perimeter``: the sum of the bounding box's extents (the sum
  of its dimensions);
- ``bbox_cube``: the smallest cube holding the job, ``max(extent) ** d``;
- ``bbox_cube_ratio``: ``bbox_cube`` over the smallest bounding cube any k
  processors of the machine can have (the ratio of Leung's Fig. 1, top);
- ``components``: connected components of the job's processors in the
  machine's adjacency.  Two processors are adjacent when their distance is
  at most the machine's smallest positive distance: neighbours along an
  axis on a mesh or torus (distance 1, wrap links included); on a network,
  the processors one link apart (a graph of unit hops) or, on a machine
  with several processors per node, those of one node (distance 0) and of
  neighbouring nodes.

Bounding-box metrics are None on a network (no coordinates); the span
metrics are None without an ordering.

Aggregates, for each metric ``m`` of :data:`LOCALITY_METRICS` over the jobs
where it is defined: ``max_m`` (largest), ``sum_sq_m`` (sum of squares),
``run_weighted_m`` (average weighted by the jobs' run times:
``sum(run * m) / sum(run)``) and ``per_proc_m`` (the average of ``m / k``);
``mean_m`` for those the summary did not have before.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._columns import columns_of

__all__ = [
    "LOCALITY_METRICS",
    "LocalityContext",
    "bounding_cube",
    "components",
    "job_locality",
    "locality_context",
    "locality_summary",
    "min_bounding_cube",
]

#: Distances a network's adjacency reads at once (rows of its matrix times nodes).
_CELLS = 1 << 22

#: Metrics aggregated with max, sum of squares, run-time weighting and per processor.
LOCALITY_METRICS = ("ring_span", "stretch_span", "bbox_volume", "bbox_half_perimeter", "bbox_cube", "components")
#: JobRecord fields this module fills.
JOB_FIELDS = ("stretch_span", "bbox_half_perimeter", "bbox_cube", "bbox_cube_ratio", "components")
#: Means added to the summary (the others, mean_ring_span and mean_bbox_volume, were there).
NEW_MEANS = ("stretch_span", "bbox_half_perimeter", "bbox_cube", "bbox_cube_ratio", "components")
#: Aggregate prefixes, in the order of the summary's fields.
AGGREGATES = ("max", "sum_sq", "run_weighted", "per_proc")


class LocalityContext(NamedTuple):
    """What the per-job metrics need of a machine, computed once per run.

    Attributes
    ----------
    machine : Machine
    adjacent : float
        Largest distance at which two processors count as adjacent (the
        machine's smallest positive distance).
    min_cube : tuple of int or None
        ``min_cube[k]``: the smallest bounding cube of k processors (grids
        only).
    neighbours : numpy.ndarray
        (n, m) ids of every node's adjacent nodes, padded with -1.
    """

    machine: object
    adjacent: float
    min_cube: tuple | None
    neighbours: np.ndarray


def min_bounding_cube(shape, k: int) -> int:
    """Smallest bounding cube ``s ** d`` of ``k`` nodes of a grid of this
    shape: ``s`` is the least side with ``prod(min(s, n_i)) >= k``.

    Examples
    --------
    >>> min_bounding_cube((8, 8, 5), 64), min_bounding_cube((8, 8, 5), 65), min_bounding_cube((16, 2), 5)
    (64, 125, 9)
    """
    s = 1
    while math.prod(min(s, n) for n in shape) < k:
        s += 1
    return s ** len(shape)


def _min_cubes(shape) -> tuple:
    """``min_bounding_cube(shape, k)`` for every k from 0 (0) to the size:
    the side of k is the least s whose cube holds k nodes, found among the
    sides' capacities in one pass."""
    sides = np.arange(1, max(shape) + 1)
    capacity = np.ones(len(sides), dtype=np.int64)
    for n in shape:
        capacity *= np.minimum(sides, n)
    side = np.searchsorted(capacity, np.arange(1, math.prod(shape) + 1)) + 1  # least s with capacity >= k
    return (0, *(int(s) ** len(shape) for s in side))


def bounding_cube(bbox) -> int:
    """``max(extent) ** d`` of a bounding box given by its extents.

    Examples
    --------
    >>> bounding_cube((3, 1, 2))
    27
    """
    return int(max(bbox)) ** len(bbox)


def locality_context(machine) -> LocalityContext:
    """The :class:`LocalityContext` of a machine (grid or network)."""
    if machine.is_grid:
        cubes = None
        if machine.size <= 1 << 20:
            cubes = _min_cubes(machine.shape)
        links = machine.links()
        return LocalityContext(machine, 1.0, cubes, _padded(machine.size, links[:, 0], links[:, 1]))
    try:
        D = machine.distances()
    except ValueError:  # too large for the whole matrix: the nearest pairs from the structure or links
        return LocalityContext(machine, *_nearest_pairs(machine))
    n = machine.size
    rows = max(1, _CELLS // max(1, n))  # rows of D looked at at once: no n x n temporary
    adjacent = math.inf
    for lo in range(0, n, rows):
        block = D[lo:lo + rows]
        positive = block[block > 0]
        if positive.size:
            adjacent = min(adjacent, float(positive.min()))
    adjacent = 0.0 if adjacent == math.inf else adjacent
    tails, heads = [], []
    for lo in range(0, n, rows):
        u, v = np.nonzero(D[lo:lo + rows] <= adjacent)
        u += lo
        keep = u != v
        tails.append(u[keep])
        heads.append(v[keep])
    tails = np.concatenate(tails) if tails else np.zeros(0, dtype=np.int64)
    heads = np.concatenate(heads) if heads else np.zeros(0, dtype=np.int64)
    return LocalityContext(machine, adjacent, None, _padded(n, tails, heads))


def _nearest_pairs(machine) -> tuple:
    """The least positive distance of a large network and its node pairs at
    that distance as padded adjacency: the nodes of one router or edge
    switch (a dragonfly, a fat tree), the shortest links (a graph: a path of
    two links or more is longer)."""
    h = machine.hierarchy
    if h is not None:
        ids = np.arange(machine.n)
        if h.unit_size > 1:  # the nodes of one unit, 2 hops apart
            size, base = h.unit_size, h.unit_of(ids) * h.unit_size
            least = 2.0
        else:  # one node per router: the routers of its group (and its global links) are nearest
            size, base = h.units_per_block, ids // h.units_per_block * h.units_per_block
            least = 2.0 + h.local
        tails = np.repeat(ids, size)
        heads = (base[:, None] + np.arange(size)).reshape(-1)
        if h.unit_size == 1 and h.local == 1:
            nb = h.neighbours
            tails = np.concatenate([tails, np.repeat(ids, nb.shape[1])])
            heads = np.concatenate([heads, nb.reshape(-1)])
        keep = (tails != heads) & (heads >= 0)
        return least, None, _padded(machine.n, tails[keep], heads[keep])
    e = np.array(machine.edges, dtype=np.float64).reshape(-1, 3)
    least = float(e[:, 2].min())
    pairs = e[e[:, 2] == least][:, :2].astype(np.int64)
    both = np.concatenate([pairs, pairs[:, ::-1]])
    return least, None, _padded(machine.n, both[:, 0], both[:, 1])


def _padded(n, tails, heads) -> np.ndarray:
    """Adjacency lists as an (n, max degree) array padded with -1."""
    order = np.argsort(tails, kind="stable")
    tails, heads = tails[order], heads[order]
    deg = np.bincount(tails, minlength=n)
    out = np.full((n, max(1, int(deg.max()) if n else 1)), -1, dtype=np.int64)
    if len(tails):
        first = np.concatenate([[0], np.cumsum(deg)[:-1]])
        slot = np.arange(len(tails)) - first[tails]
        out[tails, slot] = heads
    return out


def _components_from_lists(neighbours, ids) -> int:
    """Components of the nodes ``ids`` over padded adjacency lists:
    min-label propagation with pointer jumping, O(k * degree) per sweep."""
    k = len(ids)
    pos = np.full(len(neighbours) + 1, -1, dtype=np.int64)  # the last slot answers the -1 padding
    pos[ids] = np.arange(k)
    nb = pos[neighbours[ids]]
    has = nb >= 0
    nb = np.where(has, nb, np.arange(k)[:, None])
    label = np.arange(k)
    while True:
        new = np.minimum(label, label[nb].min(axis=1))
        new = new[new]
        if np.array_equal(new, label):
            return int(np.count_nonzero(label == np.arange(k)))
        label = new


def components(machine, nodes, *, adjacent=None) -> int:
    """Connected components of a set of nodes in the machine's adjacency.

    Parameters
    ----------
    machine : Machine
    nodes : array_like of int
        Distinct node ids.
    adjacent : float, optional
        Largest distance of two adjacent nodes; default the machine's
        smallest positive distance (1 on a mesh or torus).

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> components(Machine((4, 4)), [0, 1, 5, 15]), components(Machine((4, 4), torus=True), [0, 3, 12])
    (2, 1)
    """
    ids = np.asarray(nodes, dtype=np.int64)
    k = len(ids)
    if k <= 1:
        return k
    if adjacent is None:
        adjacent = locality_context(machine).adjacent
    near = machine.distances(ids) <= adjacent
    label = np.arange(k)
    # min-label propagation over the adjacency until nothing changes:
    # O(k^2) per sweep, at most the diameter of a component in sweeps
    while True:
        new = np.where(near, label[None, :], k).min(axis=1)
        if np.array_equal(new, label):
            break
        label = new[new]  # pointer jumping halves the remaining sweeps
    return len(np.unique(label))


def job_locality(ctx: LocalityContext, nodes, *, bbox, ring_span) -> dict:
    """The metrics of :data:`JOB_FIELDS` for one job's nodes.

    ``bbox`` (extents, or None on a network) and ``ring_span`` (or None)
    come from :func:`allocation_metrics`.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> m = Machine((4, 4))
    >>> job_locality(locality_context(m), [0, 1, 4, 5], bbox=(2, 2), ring_span=6)
    {'stretch_span': 1.5, 'bbox_half_perimeter': 4, 'bbox_cube': 4, 'bbox_cube_ratio': 1.0, 'components': 1}
    """
    k = len(nodes)
    ids = np.asarray(nodes, dtype=np.int64)
    out = {"stretch_span": None if ring_span is None else ring_span / k,
           "bbox_half_perimeter": None, "bbox_cube": None, "bbox_cube_ratio": None,
           "components": 1 if k == 1 else _components_from_lists(ctx.neighbours, ids)}
    if bbox is not None:
        cube = bounding_cube(bbox)
        out["bbox_half_perimeter"] = int(sum(bbox))
        out["bbox_cube"] = cube
        smallest = ctx.min_cube[k] if ctx.min_cube is not None else min_bounding_cube(ctx.machine.shape, k)
        out["bbox_cube_ratio"] = cube / smallest
    return out


def summary_fields() -> tuple:
    """Names of the summary fields :func:`locality_summary` fills, in order."""
    names = [f"mean_{m}" for m in NEW_MEANS]
    for m in LOCALITY_METRICS:
        names += [f"{a}_{m}" for a in AGGREGATES]
    return tuple(names)


def locality_summary(records) -> dict:
    """Means, maxima, sums of squares, run-time-weighted and per-processor
    averages of the locality metrics over job records (None where no job
    has the metric).

    Examples
    --------
    >>> from types import SimpleNamespace as R
    >>> recs = [R(procs=2, run=10.0, bbox_cube=8, stretch_span=None), R(procs=4, run=30.0, bbox_cube=4, stretch_span=None)]
    >>> s = locality_summary(recs)
    >>> s["mean_bbox_cube"], s["max_bbox_cube"], s["sum_sq_bbox_cube"], s["run_weighted_bbox_cube"], s["per_proc_bbox_cube"]
    (6.0, 8.0, 80.0, 5.0, 2.5)
    >>> s["mean_stretch_span"] is None
    True
    """
    out = dict.fromkeys(summary_fields())
    cols = columns_of(records)
    runs = procs = None
    for m in set(LOCALITY_METRICS) | set(NEW_MEANS):
        values = cols.column(m)
        keep = [i for i, x in enumerate(values) if x is not None]
        if not keep:
            continue
        if runs is None:
            runs = np.asarray(cols.column("run"), dtype=float)
            procs = np.asarray(cols.column("procs"), dtype=float)
        if len(keep) == len(values):
            v, run, k = np.asarray(values, dtype=float), runs, procs
        else:
            v, run, k = np.asarray([values[i] for i in keep], dtype=float), runs[keep], procs[keep]
        if m in NEW_MEANS:
            out[f"mean_{m}"] = float(v.mean())
        if m in LOCALITY_METRICS:
            out[f"max_{m}"] = float(v.max())
            out[f"sum_sq_{m}"] = float(np.dot(v, v))
            out[f"run_weighted_{m}"] = float(np.dot(v, run) / run.sum()) if run.sum() > 0 else None
            out[f"per_proc_{m}"] = float((v / k).mean())
    return out

