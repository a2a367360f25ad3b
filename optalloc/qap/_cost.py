"""Cost matrices of the mapping QAP over the nodes of a machine.

:func:`cost_matrix` supplies the cost matrix C of the mapping QAP
``sum_ij W[i, j] C[p(i), p(j)]`` (Pascual et al., eq. 2) over the whole
machine or over a partition of it (the nodes a scheduler gave to one job).

Cost criteria
-------------
classic
    Hop distance (Pascual et al. sec. 4.1): the sum of the per-axis hop
    counts on a mesh or torus, the shortest-path length on a network.
td
    Traffic Distribution (Pascual et al. sec. 4.2, eq. 7): the hop
    distance plus a penalty for routes that load one axis more than the
    others; defined on meshes and tori only.
"""

from __future__ import annotations

import numpy as np

from ..machine import Machine, parse_machine

__all__ = ["CRITERIA", "cost_matrix"]

#: The cost criteria :func:`cost_matrix` knows.
CRITERIA = ("classic", "td")


def as_machine(machine, name: str = "machine") -> Machine:
    """``machine`` as a :class:`~optalloc.machine.Machine`: a Machine as it
    is, a spec (``"torus:8x8"``, ``"8x8 mesh"``, a file) through
    :func:`~optalloc.machine.parse_machine`."""
    if isinstance(machine, Machine):
        return machine
    try:
        return parse_machine(machine)
    except ValueError as exc:
        raise ValueError(str(exc).replace("`machine`", f"`{name}`", 1)) from None


def cost_matrix(machine, criterion: str = "classic", nodes=None) -> np.ndarray:
    """The cost matrix C of the mapping QAP over a set of nodes.

    Parameters
    ----------
    machine : Machine or str
        The machine: a :class:`~optalloc.machine.Machine` (mesh, torus with
        wrap on any axes, or network) or a spec that
        :func:`~optalloc.machine.parse_machine` reads (``"torus:8x8"``,
        ``"16x8 mesh"``, ``"8x8 torus(tm)"``, a file).
    criterion : {"classic", "td"}
        "classic": hop distance (Pascual et al. eq. 6), that is
        ``machine.distances(nodes)``. "td": Traffic Distribution, hop
        distance plus the spread of the per-axis hop counts (eq. 7 and its
        3-D form below); mesh or torus only.
    nodes : sequence of int, optional
        The partition the job runs on (distinct node ids); row and
        column r of C belong to ``nodes[r]``. Default: every node.

    Returns
    -------
    numpy.ndarray
        (m, m) float array with zero diagonal, symmetric; a new array
        (writable) on every call.

    Raises
    ------
    ValueError
        Unknown criterion, "td" on a network, bad ``nodes``, more than
        20000 nodes (the matrix is dense).

    Notes
    -----
    Pascual et al. define TD on a 2-D torus as
    ``dist + |dist_x - dist_y|`` (eq. 7): of two routes of equal
    length, the one that splits its hops evenly between the axes costs
    less, because it puts less pressure on one axis. For d axes we use

        td = dist + (max_k dist_k - min_k dist_k),

    the gap between the most and the least used axis. It is zero
    exactly when all axes carry the same number of hops, is eq. 7 for
    d = 2, and for d = 3 equals half the sum of the three pairwise
    differences ``|dist_x - dist_y| + |dist_x - dist_z| +
    |dist_y - dist_z|`` (for sorted a <= b <= c that sum is 2 (c - a)),
    so the two natural 3-D extensions agree. Axes of side 1 carry no
    traffic and are left out, so an 8x8x1 machine costs like an 8x8
    one. On a wrapping axis the per-axis count is the wrap distance
    ``min(|dx|, s - |dx|)`` (:meth:`~optalloc.machine.Machine.axis_hops`),
    axis by axis, so a machine that wraps on x only mixes both kinds.
    (The modulo form of Pascual et al. eq. 4 gives 0 instead of s/2 for
    nodes half a ring apart, so it is not used.) Building the matrix costs
    O(d m^2) with numpy broadcasting.

    References
    ----------
    .. [1] J. A. Pascual, J. Miguel-Alonso, J. A. Lozano,
       "Optimization-based mapping framework for parallel
       applications", Technical Report EHU-KAT-IK-02-10, University of
       the Basque Country, 2010, sec. 4.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> from optalloc.qap import cost_matrix
    >>> mesh = Machine((4, 4))
    >>> cost_matrix(mesh, "classic")[0, 7].item(), cost_matrix(mesh, "td")[0, 7].item()
    (4.0, 6.0)
    >>> cost_matrix("torus:8x8", "td", nodes=[0, 3, 27]).tolist()
    [[0.0, 6.0, 6.0], [6.0, 0.0, 6.0], [6.0, 6.0, 0.0]]
    """
    machine = as_machine(machine)
    crit = str(criterion).lower()
    if crit not in CRITERIA:
        raise ValueError(f"`criterion` must be one of {', '.join(CRITERIA)}, got {criterion!r}")
    if crit == "td" and not machine.is_grid:
        raise ValueError("`criterion` 'td' needs per-axis hop counts: use a mesh or torus, not a network")
    idx = None if nodes is None else machine.check_nodes(nodes)
    if not machine.is_grid:  # classic on a network: shortest paths
        return machine.distances(idx) if idx is not None else np.array(machine.distances())
    total = hi = lo = None
    used = 0
    # axis_hops refuses more than 20000 nodes before any matrix is built
    for side, hops in zip(machine.shape, machine.axis_hops(idx)):
        if total is None:
            total = hops.astype(np.float64)
        else:
            total += hops
        if crit == "td" and side > 1:  # an axis of side 1 carries no traffic
            if used == 0:
                hi, lo = hops, hops.copy()
            else:
                np.maximum(hi, hops, out=hi)
                np.minimum(lo, hops, out=lo)
            used += 1
    if used >= 2:
        hi -= lo
        total += hi  # Pascual et al. eq. 7: dist + |dist_x - dist_y|
    return total
