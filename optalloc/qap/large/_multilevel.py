"""The multilevel mapper: dual recursive bipartitioning, then swap refinement.

On a whole mesh or torus, :func:`~._drb.drb` splits the machine's box
along its longest axis and the tasks by a multilevel balanced bisection
(heavy-edge matching down to a few dozen vertices, greedy graph growing,
Fiduccia-Mattheyses refinement on every level on the way back) that also
weighs each task's traffic to the tasks already sent elsewhere, until
every box is one node.  The mapping is then refined by swaps of a task
with the tasks on the nodes of its heaviest partners and their
neighbours, each valued in O(degree), to a local optimum (or a bound on
the work).  Beside these tries, the consecutive mappings in every order
of the machine's axes (task j on the j-th node with, say, z fastest) are
valued and the cheapest is refined; the consecutive mapping is one of
them, so the result is never worse than it.  On a partition only those
orders are tried, on a network only the consecutive mapping.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from ..._result import MappingResult, status_of
from ._bound import sorted_costs, traffic_bound
from ._drb import drb
from ._flows import symmetric_graph
from ._kernels import placement_cost, refine
from ._levels import grid_level, network_level

__all__ = ["mapping_result", "multilevel_placement"]


def _kernel_graph(A):
    return (A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(np.float64))


#: A task tries the nodes near its this many heaviest partners.
PARTNERS = 4
#: A refinement examines at most this many tasks per task (a bound on its time).
VISITS = 12


def heaviest_partners(A, most: int = PARTNERS) -> tuple[np.ndarray, np.ndarray]:
    """CSR of each task's ``most`` heaviest partners (all of them when fewer)."""
    n = A.shape[0]
    rows = np.repeat(np.arange(n), np.diff(A.indptr))
    order = np.lexsort((-A.data, rows))
    rank = np.arange(A.nnz) - A.indptr[rows[order]]
    keep = order[rank < most]
    cptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=cptr[1:])
    return cptr, A.indices[keep].astype(np.int64)


def _refine(A, level, pos, rng, kicks=0, partners=None) -> None:
    occ = np.full(level.m, -1, dtype=np.int64)
    occ[pos] = np.arange(len(pos))
    order = rng.permutation(len(pos)).astype(np.int64)
    cptr, cidx = heaviest_partners(A) if partners is None else partners
    refine(*_kernel_graph(A), pos, occ, *level.args(), level.nptr, level.nidx, cptr, cidx, order, int(kicks),
           int(rng.integers(2**31)), VISITS * len(pos))


def _cost(A, level, pos) -> float:
    return float(placement_cost(*_kernel_graph(A), pos, *level.args()))


def axis_orders(machine, node_ids: np.ndarray) -> list[np.ndarray]:
    """The partition's nodes in every order of the machine's axes (first
    axis fastest), as local indices: the consecutive mapping is the first."""
    if not machine.is_grid:
        return [np.arange(len(node_ids), dtype=np.int64)]
    coords = machine.coords[node_ids]
    d = coords.shape[1]
    out = []
    for order in itertools.islice(itertools.permutations(range(d)), 24):
        # np.lexsort sorts by its last key first: the last axis of the order is the slowest
        out.append(np.lexsort(tuple(coords[:, a] for a in order)).astype(np.int64))
    return out


def default_tries(n: int) -> int:
    """Recursive bipartitionings tried by default for n tasks."""
    return 4 if n <= 2048 else 2 if n <= 8192 else 1


def multilevel_placement(W, machine, node_ids: np.ndarray, criterion: str, *, rng=None,
                         time_limit: float | None = None, tries: int | None = None) -> dict:
    """Place the tasks of ``W`` (checked flows, t <= len(node_ids)) on ``node_ids``.

    Returns a dict: ``pos`` (local node index of each task), ``objective``,
    ``bound``, ``start`` (the consecutive mapping's cost) and ``tries``
    (recursive bipartitionings done).
    """
    clock = time.perf_counter()
    rng = np.random.default_rng(rng)
    t, m = W.shape[0], len(node_ids)
    A = symmetric_graph(W, n=m)
    if machine.is_grid:
        level = grid_level(machine, node_ids, criterion == "td")
    else:
        level = network_level(machine, node_ids)
    whole = machine.is_grid and m == machine.n and np.array_equal(node_ids, np.arange(machine.n))
    partners = heaviest_partners(A)
    starts = axis_orders(machine, node_ids)
    start_cost = _cost(A, level, np.arange(m, dtype=np.int64))
    # task j on the j-th node of each order
    placed = [(_cost(A, level, order), k, order.copy()) for k, order in enumerate(starts)]
    best, best_cost = None, np.inf
    for _, _, pos in sorted(placed, key=lambda x: x[:2])[:1]:  # the cheapest order, refined
        _refine(A, level, pos, rng, partners=partners)
        value = _cost(A, level, pos)
        if value < best_cost:
            best, best_cost = pos, value
    done = 0
    tries = default_tries(m) if tries is None else tries
    for k in range(tries if whole else 0):
        spent = time.perf_counter() - clock
        if k and time_limit is not None and spent * (k + 1) / k > time_limit:
            break
        pos = drb(A, machine, rng)
        _refine(A, level, pos, rng, partners=partners)
        done += 1
        value = _cost(A, level, pos)
        if value < best_cost:
            best, best_cost = pos, value
    bound = traffic_bound(A[:t][:, :t].tocsr() if t < m else A, sorted_costs(machine, criterion, m, node_ids))
    if bound > best_cost + 1e-9 * max(1.0, abs(best_cost)):
        raise RuntimeError(f"internal error: lower bound {bound} exceeds objective {best_cost}")
    return {"pos": best[:t], "objective": best_cost, "bound": bound, "start": start_cost, "tries": done}


def mapping_result(W, placement: dict, node_ids, *, criterion: str, method: str, start: float,
                   message: str) -> MappingResult:
    """A :class:`~optalloc.MappingResult` for a placement (objective per unit of traffic as ``average``)."""
    value, bound = placement["objective"], placement["bound"]
    total = float(W.sum())
    termination = "optimal" if bound >= value - 1e-9 * max(1.0, abs(value)) else "completed"
    extra = {"criterion": criterion, "consecutive": placement["start"], "tries": placement["tries"]}
    return MappingResult(permutation=np.asarray(node_ids)[placement["pos"]].astype(np.intp), objective=value,
                         average=value / total if total else 0.0, bound=bound, guarantee=None,
                         status=status_of(termination), termination=termination, method=method,
                         message=message, runtime=time.perf_counter() - start, extra=extra)
