"""Quality of a task mapping beyond the QAP objective.

For a communication matrix W (``W[i, j]`` bytes sent from task i to task
j) and a mapping ``perm`` (task i runs on node ``perm[i]`` of a
:class:`~optalloc.machine.Machine`, or a spec such as ``"torus:8x8"``):

hop_bytes
    ``sum_ij W[i, j] * hops(perm[i], perm[j])``; with the classic cost
    matrix this is the QAP objective.
dilation
    Hops travelled by the communicating pairs: maximum, mean and
    byte-weighted mean.
link_loads
    Bytes crossing every directed link under dimension-order routing
    (Pascual et al. sec. 4 name DOR as the simplest minimal routing), and
    the maximum and mean link load, a first measure of contention.
mapping_report
    All of the above in one record.
"""

from __future__ import annotations

import operator
from dataclasses import asdict, dataclass

import numpy as np

from ..machine import Machine
from ._cost import as_machine
from .large import check_flows, message_list

__all__ = ["Dilation", "LinkLoads", "MappingReport", "dilation", "hop_bytes", "link_loads",
           "mapping_report"]

# Upper bound on the number of link traversals expanded at once by link_loads.
_CHUNK = 1 << 22


def _validate_flows(W, name: str = "W"):
    """``W`` as a square float array (or CSR matrix) of finite, non-negative flows."""
    return check_flows(W, name)


def _validate_mapping(W, machine, perm) -> tuple[np.ndarray, Machine, np.ndarray]:
    machine = as_machine(machine)
    W = _validate_flows(W)
    n = W.shape[0]
    if n > machine.n:
        raise ValueError(f"`W` has {n} tasks but the {machine.describe()} has only {machine.n} nodes")
    perm = machine.check_nodes(perm, name="perm", length=n).astype(np.intp)
    return W, machine, perm


def hop_bytes(W, machine, perm) -> float:
    """Bytes times hops, summed over all messages.

    Parameters
    ----------
    W : array_like or scipy.sparse matrix, shape (n, n)
        Bytes from task i to task j; finite and non-negative.  Every
        metric reads the messages alone, O(messages x path length), with
        no n x n matrix.
    machine : Machine or str
        The machine, or a spec that :func:`~optalloc.machine.parse_machine`
        reads (``"torus:8x8"``); on a network with link lengths, "hops"
        are path lengths.
    perm : sequence of int
        ``perm[i]`` is the node id of task i: n distinct ids, possibly a
        subset (partition) of the machine.

    Returns
    -------
    float
        ``sum_ij W[i, j] * D[perm[i], perm[j]]`` with D the hop distances.
        Equals ``objective(W, C, p)`` when C is the classic cost matrix
        over the nodes ``perm`` is drawn from and p the positions.

    Raises
    ------
    ValueError
        Bad W (not square, negative, NaN) or perm (wrong length, repeated
        or out-of-range ids), or a spec that names no machine.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> from optalloc.qap import hop_bytes, ring
    >>> hop_bytes(ring(4), Machine(4), [0, 1, 2, 3])
    12.0
    >>> hop_bytes(ring(4), "torus:4", [0, 1, 2, 3])    # the wrap link joins 3 and 0
    8.0
    """
    W, machine, p = _validate_mapping(W, machine, perm)
    i, j, w = message_list(W)
    return float((w * machine.pair_distances(p[i], p[j])).sum())


@dataclass(frozen=True)
class Dilation:
    """Hops travelled by communicating task pairs under a mapping.

    Attributes
    ----------
    max : float
        Largest distance between the nodes of a communicating pair.
    mean : float
        Mean distance over the communicating ordered pairs (``W[i, j] > 0``,
        i != j), each counted once whatever its volume.
    weighted_mean : float
        Mean distance per byte: hop-bytes over bytes between distinct tasks.
    pairs : int
        Number of communicating ordered pairs. With none, the three
        statistics are 0.
    """

    max: float
    mean: float
    weighted_mean: float
    pairs: int


def dilation(W, machine, perm) -> Dilation:
    """Maximum, mean and byte-weighted mean hops of the communicating pairs.

    Parameters and errors as in :func:`hop_bytes`. A task's messages to
    itself (the diagonal of W) are not communication between nodes and
    are left out.

    Examples
    --------
    >>> from optalloc.qap import dilation, stencil
    >>> dilation(stencil((8, 8)), "torus:8x8", range(64))
    Dilation(max=1.0, mean=1.0, weighted_mean=1.0, pairs=256)
    """
    W, machine, p = _validate_mapping(W, machine, perm)
    i, j, w = message_list(W)
    if len(i) == 0:
        return Dilation(0.0, 0.0, 0.0, 0)
    hops = machine.pair_distances(p[i], p[j])
    return Dilation(float(hops.max()), float(hops.mean()), float((w * hops).sum() / w.sum()), len(i))


@dataclass(frozen=True, eq=False)
class LinkLoads:
    """Bytes on every directed link of a mesh or torus.

    Attributes
    ----------
    links : numpy.ndarray
        (L, 2) int array, every directed link (u, v) of the machine, as
        :meth:`Machine.links() <optalloc.machine.Machine.links>` lists
        them.
    loads : numpy.ndarray
        (L,) float array, bytes crossing each link.
    max : float
        Largest link load.
    mean : float
        Mean over all L directed links of the machine, unused ones
        included (so it is total link-bytes / L, comparable between
        mappings on the same machine).
    """

    links: np.ndarray
    loads: np.ndarray
    max: float
    mean: float

    def as_dict(self) -> dict[tuple[int, int], float]:
        """``{(u, v): bytes}`` for every directed link."""
        return {(int(u), int(v)): float(x) for (u, v), x in zip(self.links, self.loads)}


def _validate_order(order, d: int) -> tuple[int, ...]:
    if order is None:
        return tuple(range(d))
    if isinstance(order, str):
        names = "xyz"
        if any(c not in names[:d] for c in order.lower()):
            raise ValueError(f"`order` letters must name the axes {names[:d]!r}, got {order!r}")
        axes = tuple(names.index(c) for c in order.lower())
    else:
        try:
            axes = tuple(operator.index(a) for a in order)
        except TypeError:
            raise ValueError(f"`order` must be a string like 'xy' or a sequence of axes, got {order!r}") from None
    if sorted(axes) != list(range(d)):
        raise ValueError(f"`order` must list each of the {d} axes once, got {order!r}")
    return axes


def link_loads(W, machine, perm, *, order=None) -> LinkLoads:
    """Per-link bytes under dimension-order routing (DOR).

    Parameters
    ----------
    W, perm
        As in :func:`hop_bytes`.
    machine : Machine or str
        A mesh or torus (wrap on any axes), or its spec.
    order : str or sequence of int, optional
        The order in which a message corrects its axes, e.g. ``"yx"`` or
        ``(1, 0)``. Default x, then y, then z.

    Returns
    -------
    LinkLoads

    Raises
    ------
    ValueError
        On a network (no dimension order), or bad W, perm, order.

    Notes
    -----
    Each message from node a to node b first travels along the first axis
    of ``order`` until its coordinate matches b's, then along the second
    axis, and so on. On an axis without wrap every coordinate is corrected
    the only way possible. On a wrapping axis (a ring of side s) a message
    whose forward offset is f = (b_k - a_k) mod s goes the + way when
    f < s - f, the - way when f > s - f, and, on a tie (f = s / 2), the
    + way. Every route is minimal, so each message crosses ``D[a, b]``
    links and the loads sum to :func:`hop_bytes`.

    Routes are expanded with numpy, O(total hops of the communicating
    pairs) time and memory (in bounded chunks).

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> from optalloc.qap import link_loads
    >>> W = [[0, 5, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]]
    >>> r = link_loads(W, Machine(4, torus=True), [0, 1, 2, 3])
    >>> {k: v for k, v in r.as_dict().items() if v}, r.max, r.mean
    ({(0, 1): 5.0, (3, 0): 1.0}, 5.0, 0.75)
    """
    W, machine, p = _validate_mapping(W, machine, perm)
    if not machine.is_grid:
        raise ValueError("`machine` must be a mesh or torus for dimension-order routing, not a network")
    shape = machine.shape
    d = len(shape)
    axes = _validate_order(order, d)
    strides = _strides(shape)
    totals = np.zeros(machine.n * 2 * d, dtype=np.float64)

    i, j, w = message_list(W)
    src, dst = p[i], p[j]
    hops = machine.pair_distances(src, dst).astype(np.int64)
    ends = np.cumsum(hops)
    start = 0
    while start < len(src):
        # a chunk of pairs whose routes hold at most _CHUNK link traversals
        base = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, base + _CHUNK, side="right")))
        _route(totals, src[start:stop], dst[start:stop], w[start:stop], shape, strides, axes, machine.torus)
        start = stop

    links = machine.links().astype(np.intp)
    slots = links[:, 0] * 2 * d + _link_slots(machine, links)
    loads = totals[slots]
    totals[slots] = 0.0
    if np.any(totals):  # routing never uses a missing link
        raise RuntimeError("dimension-order route crossed a missing link")
    if len(loads) == 0:
        return LinkLoads(links, loads, 0.0, 0.0)
    return LinkLoads(links, loads, float(loads.max()), float(loads.mean()))


def _strides(shape) -> np.ndarray:
    # node id of (x, y, z) = x + W * (y + H * z): x varies fastest
    return np.concatenate(([1], np.cumprod(shape[:-1]))).astype(np.intp)


def _link_slots(machine: Machine, links: np.ndarray) -> np.ndarray:
    """Slot of each link (u, v) among the 2d outgoing slots of u: ``2 k``
    for the + direction of axis k, ``2 k + 1`` for the - direction."""
    cu, cv = machine.coords[links[:, 0]], machine.coords[links[:, 1]]
    axis = np.argmax(cu != cv, axis=1)
    rows = np.arange(len(links))
    a, b = cu[rows, axis], cv[rows, axis]
    side = np.asarray(machine.shape)[axis]
    wrap = np.asarray(machine.torus)[axis]
    # a wrapping axis steps + when b is one ahead modulo the side (side 2: always)
    plus = np.where(wrap, (b - a) % side == 1, b > a)
    return 2 * axis + np.where(plus, 0, 1)


def _route(totals, src, dst, w, shape, strides, axes, torus) -> None:
    """Add the bytes ``w`` of messages src -> dst to the link slots ``totals``
    (``torus[k]``: axis k wraps)."""
    d = len(shape)
    cur = src.copy()  # node id of each message's position after the axes done so far
    for k in axes:
        side, stride = shape[k], strides[k]
        a = (cur // stride) % side
        b = (dst // stride) % side
        if torus[k]:
            fwd = (b - a) % side
            plus = fwd <= side - fwd  # tie (f = s / 2) -> + way
            steps = np.where(plus, fwd, side - fwd)
        else:
            plus = b >= a
            steps = np.abs(b - a)
        step = np.where(plus, 1, -1)
        slot = 2 * k + np.where(plus, 0, 1)
        # expand every message into its steps t = 0 .. steps-1 along axis k
        rep = np.repeat(np.arange(len(cur)), steps)
        t = np.arange(len(rep)) - np.repeat(np.cumsum(steps) - steps, steps)
        x = (a[rep] + step[rep] * t) % side
        node = cur[rep] + (x - a[rep]) * stride
        totals += np.bincount(node * 2 * d + slot[rep], weights=w[rep], minlength=len(totals))
        cur = cur + (b - a) * stride


@dataclass(frozen=True)
class MappingReport:
    """Quality of one mapping on one machine.

    Attributes
    ----------
    machine : str
        The machine as :meth:`Machine.describe() <optalloc.machine.Machine.describe>`
        writes it, e.g. ``"8x8 torus"``.
    tasks : int
        Number of tasks.
    total_bytes : float
        Bytes exchanged between distinct tasks.
    hop_bytes : float
        See :func:`hop_bytes`.
    max_dilation, mean_dilation, weighted_dilation : float
        See :func:`dilation`.
    max_link_load, mean_link_load : float or None
        See :func:`link_loads` (default x, y, z order); None on a
        network.
    """

    machine: str
    tasks: int
    total_bytes: float
    hop_bytes: float
    max_dilation: float
    mean_dilation: float
    weighted_dilation: float
    max_link_load: float | None
    mean_link_load: float | None

    def to_dict(self) -> dict:
        """The fields as a plain dict (JSON-ready)."""
        return asdict(self)


def mapping_report(W, machine, perm, *, order=None) -> MappingReport:
    """Hop-bytes, dilation and link loads of a mapping, in one record.

    Parameters and errors as in :func:`hop_bytes`; ``order`` as in
    :func:`link_loads`. On a network the link-load fields are None.

    Examples
    --------
    >>> from optalloc.qap import mapping_report, stencil
    >>> r = mapping_report(stencil((4, 4)), "torus:4x4", range(16))
    >>> r.machine, r.hop_bytes, r.max_dilation, r.max_link_load, r.mean_link_load
    ('4x4 torus', 64.0, 1.0, 1.0, 1.0)
    """
    W, machine, p = _validate_mapping(W, machine, perm)
    dil = dilation(W, machine, p)
    loads = link_loads(W, machine, p, order=order) if machine.is_grid else None
    return MappingReport(
        machine=machine.describe(),
        tasks=W.shape[0],
        total_bytes=float(message_list(W)[2].sum()),
        hop_bytes=hop_bytes(W, machine, p),
        max_dilation=dil.max,
        mean_dilation=dil.mean,
        weighted_dilation=dil.weighted_mean,
        max_link_load=None if loads is None else loads.max,
        mean_link_load=None if loads is None else loads.mean,
    )
