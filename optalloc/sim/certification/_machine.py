"""Certification on every machine: the metric, the allocators that fit, W.

On a mesh the k-subset problem is min-sum-L1 on the free points, and the
allocators run as in :func:`simulate`.  On a torus or a network the
distance is the machine's own (wrap distance, shortest paths), so a
certificate measures W there, and the k-subset allocators are run in that
metric through ``optalloc.ksubset.solve(machine, k, method=...)``: a method
``ksubset`` does not offer on the machine has no meaning there and is
refused, with the list of those that run.  The guarantee of a method is
used only when ``ksubset`` reports it for that machine (Gen-Alg's
2 - 2/k holds in any metric); 1D and random allocators have none.
"""

from __future__ import annotations

import numpy as np

from ... import ksubset
from ..allocators import KSubsetAllocator, misfit, parse_allocator
from ..metrics import allocation_metrics, network_weight

__all__ = ["default_allocators", "default_driver", "metric_name", "metric_weight"]

#: Candidates for the default comparison, in order; each is kept on a machine
#: when it runs there (see :func:`default_allocators`).
_MESH_DEFAULTS = ("mm", "gen-alg", "mc1x1", "mm-inc", "1d:gilbert:best-fit")
_NETWORK_DEFAULTS = ("gen-alg", "1d:graph-greedy:best-fit")


def metric_name(machine) -> str:
    """``"l1"`` on a mesh, ``"torus"`` on a torus, ``"network"`` on a network."""
    return "l1" if machine.kind == "mesh" else machine.kind


def metric_weight(machine, nodes) -> float:
    """W of a set of node ids in the machine's own metric (L1 on a mesh)."""
    nodes = np.asarray(nodes, dtype=np.int64)
    if len(nodes) < 2:
        return 0.0
    if machine.kind == "mesh":
        return float(ksubset.weight(machine.coords[nodes]))
    if machine.is_grid:  # wrap distances from the sorted coordinates of each axis, no k x k matrix
        return allocation_metrics(machine, nodes)["W"]
    return network_weight(machine, nodes)


def guarantee_of(alloc, result, machine):
    """The guarantee of ``result`` that holds in the machine's metric, or None."""
    if result is None:
        return None
    if machine.kind == "mesh" or (isinstance(alloc, KSubsetAllocator) and not alloc.mesh_rules):
        return result.guarantee
    return None


def default_allocators(machine) -> tuple:
    """The allocators :func:`certify` compares on ``machine`` by default.

    A mesh or torus: MM, Gen-Alg, MC1x1, MM+Inc and best fit along a
    generalised Hilbert curve (on a torus the k-subset methods use wrap
    distances).  A network: Gen-Alg and best fit over a greedy network
    ordering.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> default_allocators(Machine((8, 4)))
    ('mm', 'gen-alg', 'mc1x1', 'mm-inc', '1d:gilbert:best-fit')
    >>> "gen-alg" in default_allocators(Machine((8, 8), torus=True))
    True
    """
    from ...machine import Machine, parse_machine

    machine = machine if isinstance(machine, Machine) else parse_machine(machine)
    if machine.kind == "mesh" and machine.ndim in (2, 3):
        return _MESH_DEFAULTS
    names = _MESH_DEFAULTS if machine.is_grid else _NETWORK_DEFAULTS
    out = [text for text in names if misfit(parse_allocator(text), machine) is None]
    if not machine.is_grid and len(out) < 2:
        out.append("random:seed=0")
    return tuple(out)


def default_driver(machine) -> str:
    """The allocator that places the jobs by default: MC1x1 where it runs
    (meshes), else Gen-Alg."""
    from ...machine import Machine, parse_machine

    machine = machine if isinstance(machine, Machine) else parse_machine(machine)
    return "mc1x1" if misfit(parse_allocator("mc1x1"), machine) is None else "gen-alg"
