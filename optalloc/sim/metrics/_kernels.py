"""Compiled per-job locality: W and bounding box of a set of grid nodes,
spans along an ordering, and connected components, each in one pass over
the job's nodes (no k x k matrix).

W of a set of grid points is a sum over axes, each from its sorted
coordinates (``optalloc._gridweight``): O(k log k) in all.  Every figure
is an integer, exact as a float below 2**53.
"""

from __future__ import annotations

import numpy as np

from ..._gridweight import wrap_pair_sum
from ..._jit import njit

__all__ = ["count_components", "grid_weight_bbox", "job_figures", "ring_spans"]


@njit(cache=True)
def grid_weight_bbox(coords, ids, shape, wrap, bbox):
    """W of the nodes ``ids`` of a mesh or torus (``coords`` every node's
    coordinates, ``wrap`` per axis); writes the bounding box's extent per
    axis into ``bbox`` (the shortest arc holding the coordinates on a
    wrapping axis)."""
    k = len(ids)
    d = coords.shape[1]
    c = np.empty(k, dtype=np.int64)
    total = 0
    for ax in range(d):
        for i in range(k):
            c[i] = coords[ids[i], ax]
        s = np.sort(c)
        n = shape[ax]
        if wrap[ax]:
            total += wrap_pair_sum(s, n)
            gap = s[0] + n - s[k - 1]
            for i in range(1, k):
                g = s[i] - s[i - 1]
                if g > gap:
                    gap = g
            bbox[ax] = n - gap + 1
        else:
            for i in range(k):
                total += s[i] * (2 * i - k + 1)
            bbox[ax] = s[k - 1] - s[0] + 1
    return total


@njit(cache=True)
def ring_spans(ranks, ids, n):
    """(linear span, ring span) of the ranks of ``ids`` along an ordering of n nodes."""
    k = len(ids)
    r = np.empty(k, dtype=np.int64)
    for i in range(k):
        r[i] = ranks[ids[i]]
    r = np.sort(r)
    linear = r[k - 1] - r[0] + 1
    inner = 0
    for i in range(1, k):
        g = r[i] - r[i - 1] - 1
        if g > inner:
            inner = g
    outer = n - 1 - r[k - 1] + r[0]
    return linear, n - max(inner, outer)


@njit(cache=True)
def count_components(neighbours, ids, slot):
    """Connected components of the nodes ``ids`` over padded adjacency
    lists (union-find); ``slot`` is scratch of one entry per node, all -1,
    and is left so."""
    k = len(ids)
    for i in range(k):
        slot[ids[i]] = i
    parent = np.arange(k)
    count = k
    m = neighbours.shape[1]
    for i in range(k):
        for t in range(m):
            v = neighbours[ids[i], t]
            if v < 0:
                continue
            j = slot[v]
            if j < 0:
                continue
            a = i
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            b = j
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            if a != b:
                if a < b:
                    parent[b] = a
                else:
                    parent[a] = b
                count -= 1
    for i in range(k):
        slot[ids[i]] = -1
    return count


@njit(cache=True)
def job_figures(ids, grid, coords, shape, wrap, box, with_ranks, ranks, n, neighbours, slot):
    """What the simulator records of one job in one call: (W on a grid, else
    0; linear span and ring span, or -1 without ranks; components), the
    bounding box written into ``box`` on a grid."""
    k = len(ids)
    w = 0
    if grid:
        if k == 1:
            for ax in range(len(box)):
                box[ax] = 1
        else:
            w = grid_weight_bbox(coords, ids, shape, wrap, box)
    linear = ring = -1
    if with_ranks:
        linear, ring = ring_spans(ranks, ids, n)
    comps = 1 if k == 1 else count_components(neighbours, ids, slot)
    return w, linear, ring, comps
