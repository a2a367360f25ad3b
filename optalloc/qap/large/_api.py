"""Public entry points of the large-scale mapping layer."""

from __future__ import annotations

import time

import numpy as np

from .._cost import CRITERIA, as_machine
from ._bound import sorted_costs, traffic_bound
from ._flows import check_flows, message_list, symmetric_graph
from ._multilevel import mapping_result, multilevel_placement

__all__ = ["check_criterion", "mapping_bound", "mapping_cost", "multilevel", "partition"]


def check_criterion(machine, criterion) -> str:
    crit = str(criterion).lower()
    if crit not in CRITERIA:
        raise ValueError(f"`criterion` must be one of {', '.join(CRITERIA)}, got {criterion!r}")
    if crit == "td" and not machine.is_grid:
        raise ValueError("`criterion` 'td' needs per-axis hop counts: use a mesh or torus, not a network")
    return crit


def partition(machine, nodes, t: int) -> np.ndarray:
    """The node ids a job of ``t`` tasks may use (default: the free nodes)."""
    if nodes is None:
        ids = machine.free_ids() if machine.n_free < machine.n else np.arange(machine.n)
    else:
        ids = machine.check_nodes(nodes)
    if t > len(ids):
        raise ValueError(f"{t} tasks do not fit on {len(ids)} nodes")
    return np.asarray(ids, dtype=np.int64)


def pair_costs(machine, a: np.ndarray, b: np.ndarray, criterion: str) -> np.ndarray:
    """Costs between nodes ``a[k]`` and ``b[k]`` under the criterion, O(len(a)) memory."""
    if not machine.is_grid:
        return machine.pair_distances(a, b)
    hops = machine.axis_distances(machine.coords[a], machine.coords[b]).astype(np.float64)
    cost = hops.sum(axis=1)
    active = np.asarray(machine.shape) > 1
    if criterion == "td" and active.sum() >= 2:
        act = hops[:, active]
        cost += act.max(axis=1) - act.min(axis=1)
    return cost


def mapping_cost(W, machine, perm, criterion: str = "classic") -> float:
    """``sum_ij W[i, j] c(perm[i], perm[j])`` without an n x n matrix.

    Parameters
    ----------
    W : array_like or scipy.sparse matrix, shape (n, n)
        Bytes from task i to task j; finite and non-negative.
    machine : Machine or str
        The machine or its spec (``"torus:8x8"``).
    perm : sequence of int
        ``perm[i]`` is the node id of task i (distinct ids).
    criterion : {"classic", "td"}
        Hop distance (hop-bytes) or Traffic Distribution (meshes and tori):
        the costs of :func:`~optalloc.qap.cost_matrix`.

    Returns
    -------
    float
        The mapping's cost, in O(messages) time and memory.

    Examples
    --------
    >>> from optalloc.qap import stencil
    >>> from optalloc.qap.large import mapping_cost
    >>> W = stencil((4, 4), sparse=True)
    >>> mapping_cost(W, "torus:4x4", range(16)), mapping_cost(W, "torus:4x4", range(16), "td")
    (64.0, 128.0)
    """
    machine = as_machine(machine)
    crit = check_criterion(machine, criterion)
    W = check_flows(W)
    n = W.shape[0]
    if n > machine.n:
        raise ValueError(f"`W` has {n} tasks but the {machine.describe()} has only {machine.n} nodes")
    p = machine.check_nodes(perm, name="perm", length=n).astype(np.int64)
    i, j, w = message_list(W)
    return float((w * pair_costs(machine, p[i], p[j], crit)).sum())


def mapping_bound(W, machine, *, nodes=None, criterion: str = "classic") -> float:
    """A proven lower bound on ``mapping_cost`` over every mapping onto ``nodes``.

    Each task's traffic, heaviest partner first, at the least costs a node
    can have to others (from the machine's neighbourhood sizes on meshes
    and tori; the least distance between distinct nodes on networks).  At
    least the trivial bound (every message at the least cost).  Holds for
    both criteria, on the whole machine and on any partition of it.

    Examples
    --------
    >>> from optalloc.qap import all_to_all
    >>> from optalloc.qap.large import mapping_bound
    >>> mapping_bound(all_to_all(5), "torus:5")    # each task: two nodes at 1 hop, two at 2
    30.0
    """
    machine = as_machine(machine)
    crit = check_criterion(machine, criterion)
    W = check_flows(W)
    ids = partition(machine, nodes, W.shape[0])
    return traffic_bound(symmetric_graph(W), sorted_costs(machine, crit, len(ids), ids))


def multilevel(W, machine, *, nodes=None, criterion: str = "classic", rng=None, time_limit: float | None = None,
               tries: int | None = None):
    """Map thousands of tasks: coarsen, map the coarsest level, refine back.

    Parameters
    ----------
    W : array_like or scipy.sparse matrix, shape (t, t)
        Bytes between tasks (non-negative); CSR keeps memory O(t + messages).
    machine : Machine or str
        A mesh or torus (recursive bipartitioning when the job has the
        whole machine, refinement of the consecutive mapping on a
        partition), or a network (refinement only, the partition's
        distances held dense: at most a few thousand nodes).
    nodes : array_like of int, optional
        The partition (default: the free nodes).
    criterion : {"classic", "td"}
        The cost optimised: hop-bytes or Traffic Distribution.
    rng : None, int or numpy.random.Generator
        Seed: the same seed gives the same mapping.
    time_limit : float, optional
        Seconds; no new try starts once the next would pass it.
    tries : int, optional
        Recursive bipartitionings (different matchings and seeds), the best
        kept; default 4 up to 2,048 tasks, 2 up to 8,192, 1 above.

    Returns
    -------
    MappingResult
        ``permutation[i]`` the node of task i, ``objective`` the cost,
        ``bound`` :func:`mapping_bound`; ``extra`` holds the criterion,
        the consecutive mapping's cost and the tries.

    Examples
    --------
    >>> from optalloc.qap import stencil
    >>> from optalloc.qap.large import multilevel
    >>> res = multilevel(stencil((8, 8, 4), sparse=True), "torus:4x4x16", rng=0)
    >>> res.objective <= res.extra["consecutive"], res.bound
    (True, 1536.0)
    """
    start = time.perf_counter()
    machine = as_machine(machine)
    crit = check_criterion(machine, criterion)
    W = check_flows(W)
    ids = partition(machine, nodes, W.shape[0])
    if tries is not None:
        tries = int(tries)
        if tries < 1:
            raise ValueError(f"`tries` must be a positive integer, got {tries}")
    placement = multilevel_placement(W, machine, ids, crit, rng=rng, time_limit=time_limit, tries=tries)
    return mapping_result(W, placement, ids, criterion=crit, method="multilevel", start=start,
                          message=f"multilevel: best of {placement['tries']} recursive bipartitioning(s) "
                                  "and the consecutive mappings in the machine's axis orders, refined by swaps")
