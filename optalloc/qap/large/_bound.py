"""A proven lower bound on the cost of any mapping, from each task's traffic.

For a task i with traffic ``a_1 >= a_2 >= ...`` to its partners (the row
of ``A = W + W^T``) and any node u, the partners sit on distinct nodes
other than u, so the k-th closest of them is at least the k-th smallest
cost ``c_k`` from u to another node; by the rearrangement inequality
task i's traffic costs at least ``sum_k a_k c_k``.  Every pair is counted
by both its tasks, so half the sum over the tasks bounds the whole.

On a torus every node sees the same costs; a mesh, or a partition of
either, has per-axis hops at least the torus's between the same nodes,
hence (hop distance and Traffic Distribution both grow with every axis'
hops) sorted costs at least the torus's, element by element, and the
bound holds there too.  On a network the bound takes every cost as the
least one between two distinct nodes (the trivial bound: one hop per
message).
"""

from __future__ import annotations

import numpy as np

__all__ = ["sorted_costs", "traffic_bound", "trivial_bound"]


def sorted_costs(machine, criterion: str, m: int, nodes=None) -> np.ndarray:
    """``c_1 <= c_2 <= ...``: costs a node can have to ``m - 1`` others, at least.

    On a grid: from one node of the torus of the machine's shape to all
    others, sorted.  On a network: ``m - 1`` times the least distance
    between two distinct nodes of ``nodes``.
    """
    if not machine.is_grid:
        return np.full(max(m - 1, 0), _least_network_cost(machine, nodes))
    shape = np.asarray(machine.shape, dtype=np.int64)
    ids = np.arange(int(np.prod(shape)), dtype=np.int64)
    strides = np.concatenate(([1], np.cumprod(shape[:-1]))).astype(np.int64)
    hops = (ids[:, None] // strides) % shape
    hops = np.minimum(hops, shape - hops).astype(np.float64)
    cost = hops.sum(axis=1)
    active = shape > 1
    if criterion == "td" and active.sum() >= 2:
        act = hops[:, active]
        cost += act.max(axis=1) - act.min(axis=1)
    return np.sort(cost)[1:m]


def _least_network_cost(machine, nodes) -> float:
    idx = np.arange(machine.n) if nodes is None else np.asarray(nodes)
    if len(idx) < 2:
        return 0.0
    if len(idx) <= 4096:
        D = machine.distances(idx)
        return float(D[~np.eye(len(idx), dtype=bool)].min())
    edges = machine.edges
    if edges:
        return float(min(e[2] for e in edges))
    return 0.0


def traffic_bound(A, costs: np.ndarray) -> float:
    """Half of ``sum_i sum_k a_ik c_k`` over the rows of the symmetric CSR ``A``
    (weights sorted down each row)."""
    n = A.shape[0]
    if A.nnz == 0:
        return 0.0
    rows = np.repeat(np.arange(n), np.diff(A.indptr))
    order = np.lexsort((-A.data, rows))
    rank = np.arange(A.nnz) - A.indptr[rows[order]]
    if len(costs) < int(rank.max()) + 1:
        raise ValueError("more partners than nodes")
    return 0.5 * float((A.data[order] * costs[rank]).sum())


def trivial_bound(A, costs: np.ndarray) -> float:
    """Every message at the least cost between two distinct nodes."""
    return 0.5 * float(A.data.sum()) * (float(costs[0]) if len(costs) else 0.0)
