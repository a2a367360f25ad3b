"""Drawings of a machine's links with jobs coloured: :func:`plot_network`.

Each topology is drawn in the layout that shows its structure:

- a 2D (or 1D) mesh or torus on its grid, node (x, y) at column x, row y;
  a wrap link leaves the border as two dashed stubs, one at each end
  (3D: the z layers side by side, links within a layer only);
- a dragonfly (:func:`optalloc.machine.dragonfly`) as its groups on a
  circle: each group's routers (squares) on a small circle, their compute
  nodes around them, local links inside a group and global links across;
- a k-ary fat tree (:func:`optalloc.machine.fat_tree`) in layers: core,
  aggregation and edge switches (squares) above the hosts, pod by pod;
- any other network by a force-directed layout (NetworkX, seeded).

Compute nodes are dots coloured by the job holding them (free: light grey;
busy without a job, as a machine map marks them: dark grey).  The artists
carry a ``gid`` (``"nodes"``, ``"links"``, ``"wrap-links"``,
``"routers"``, ``"local-links"``, ``"global-links"``, ``"host-links"``,
``"switches"``, ``"switch-links"``) so that a program can find them.  The
conventions are those of :mod:`optalloc.sim` plots: matplotlib is imported
inside, ``ax=`` is drawn into and returned, the backend is never changed,
``path`` is not overwritten without ``overwrite=True``.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ...machine import Machine
from ._plots import _axes, _check_path, _matplotlib, _write

__all__ = ["plot_network"]

FREE = (0.86, 0.86, 0.86)
BUSY = (0.35, 0.35, 0.35)  # busy, no job (a machine map's '#')
SWITCH = (0.25, 0.35, 0.55)


def _owners(machine: Machine, allocation) -> np.ndarray:
    """Owner job id of every node (-1 free) from ``allocation``."""
    if allocation is None:
        return machine.owner.copy()
    owner = np.full(machine.n, -1, dtype=np.int64)
    if isinstance(allocation, dict):
        items = list(allocation.items())
    else:
        try:
            items = list(enumerate(allocation))
        except TypeError:
            raise ValueError("`allocation` must be a dict job id -> node ids or a sequence of node-id "
                             f"sequences, got {type(allocation).__name__}") from None
    for job, nodes in items:
        try:
            job = operator.index(job)
        except TypeError:
            raise ValueError(f"`allocation`: job ids must be integers, got {job!r}") from None
        ids = machine.check_nodes(nodes, name=f"allocation[{job}]")
        taken = ids[owner[ids] >= 0]
        if len(taken):
            raise ValueError(f"`allocation`: node {int(taken[0])} is given to jobs {int(owner[taken[0]])} "
                             f"and {job}")
        owner[ids] = job
    return owner


def _colours(owner: np.ndarray):
    """Face colour per node and (job, colour) pairs for the legend."""
    import matplotlib as mpl

    tab = mpl.colormaps["tab20"].colors
    base = tab[0::2] + tab[1::2]  # the ten strong colours first, then their light partners
    jobs = [int(j) for j in np.unique(owner[owner >= 0])]
    of = {j: base[i % len(base)] for i, j in enumerate(jobs)}
    faces = [of[int(o)] if o >= 0 else (FREE if o == -1 else BUSY) for o in owner]
    return faces, [(j, of[j]) for j in jobs]


def _segments(pos: np.ndarray, pairs) -> np.ndarray:
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return np.stack([pos[pairs[:, 0]], pos[pairs[:, 1]]], axis=1)


def _lines(ax, segments, *, gid, color, lw, ls="solid", zorder=1, alpha=1.0):
    from matplotlib.collections import LineCollection

    lc = LineCollection(segments, colors=[color], linewidths=lw, linestyles=ls, zorder=zorder, alpha=alpha)
    lc.set_gid(gid)
    ax.add_collection(lc)
    return lc


# -- grids ------------------------------------------------------------------------------


def _grid(ax, machine: Machine, size: float):
    """Node positions of a mesh or torus, and its links drawn."""
    shape = machine.shape + (1,) * (3 - len(machine.shape)) if len(machine.shape) < 3 else machine.shape
    w = shape[0]
    c = np.zeros((machine.n, 3), dtype=np.int64)
    c[:, :len(machine.shape)] = machine.coords
    pos = np.stack([c[:, 0] + c[:, 2] * (w + 1), c[:, 1]], axis=1).astype(float)
    links = machine.links()
    links = links[links[:, 0] < links[:, 1]]
    delta = np.abs(c[links[:, 0]] - c[links[:, 1]])
    inner = (delta.max(axis=1) == 1) & (delta[:, 2] == 0)  # z links are not drawn
    wrap = delta[:, :2].max(axis=1) > 1
    _lines(ax, _segments(pos, links[inner]), gid="links", color=(0.55, 0.55, 0.55), lw=1.2)
    if wrap.any():
        stubs = []
        for u, v in links[wrap]:
            step = np.sign(pos[v] - pos[u])  # from u across the box to v: the wrap leaves u the other way
            stubs.append([pos[u], pos[u] - 0.5 * step])
            stubs.append([pos[v], pos[v] + 0.5 * step])
        _lines(ax, np.array(stubs), gid="wrap-links", color=(0.3, 0.45, 0.7), lw=1.2, ls="dashed")
    ax.set_xlim(pos[:, 0].min() - 0.8, pos[:, 0].max() + 0.8)
    ax.set_ylim(pos[:, 1].min() - (1.3 if len(machine.shape) == 3 else 0.8), pos[:, 1].max() + 0.8)
    ax.set_aspect("equal")
    if len(machine.shape) == 3:
        for z in range(shape[2]):
            ax.text(z * (w + 1) + (w - 1) / 2, -0.75, f"z = {z}", ha="center", va="top", fontsize=8)
    ax.axis("off")
    return pos


# -- dragonfly ----------------------------------------------------------------------------


def _is_labelled(machine: Machine, prefix: str) -> bool:
    return machine.labels is not None and machine.describe().startswith(prefix)


def _router_links(machine: Machine, router: np.ndarray, n_routers: int):
    """Router pairs joined by a link: their nodes are 3 hops apart (host,
    router, router, host), as the generators count hops."""
    rep = np.zeros(n_routers, dtype=np.int64)
    rep[router[::-1]] = np.arange(machine.n)[::-1]  # the first node of each router
    D = machine.distances(rep)
    iu, ju = np.triu_indices(n_routers, k=1)
    keep = D[iu, ju] == 3
    return np.stack([iu[keep], ju[keep]], axis=1)


def _dragonfly(ax, machine: Machine, size: float):
    labels = np.array(machine.labels, dtype=np.int64)  # (group, router, k)
    groups, routers = int(labels[:, 0].max()) + 1, int(labels[:, 1].max()) + 1
    router = labels[:, 0] * routers + labels[:, 1]
    n_r = groups * routers
    big = 1.0 if groups > 1 else 0.0
    small = 0.75 * math.sin(math.pi / max(groups, 2)) if groups > 1 else 0.6
    centre = np.array([[big * math.cos(2 * math.pi * g / groups + math.pi / 2),
                        big * math.sin(2 * math.pi * g / groups + math.pi / 2)] for g in range(groups)])
    rpos = np.zeros((n_r, 2))
    for g in range(groups):
        for r in range(routers):
            a = 2 * math.pi * r / routers + 2 * math.pi * g / groups + math.pi / 2 + math.pi / routers
            rpos[g * routers + r] = centre[g] + 0.55 * small * np.array([math.cos(a), math.sin(a)])
    # compute nodes on a short arc beyond their router, away from the group's centre
    per = np.bincount(router, minlength=n_r)
    pos = np.zeros((machine.n, 2))
    for i, r in enumerate(router):
        out = rpos[r] - centre[r // routers]
        out = out / (np.linalg.norm(out) or 1.0)
        k = int(labels[i, 2])
        spread = (k - (per[r] - 1) / 2) * 0.35
        turn = np.array([[math.cos(spread), -math.sin(spread)], [math.sin(spread), math.cos(spread)]])
        pos[i] = rpos[r] + 0.32 * small * (turn @ out)
    pairs = _router_links(machine, router, n_r)
    same = pairs[:, 0] // routers == pairs[:, 1] // routers
    _lines(ax, _segments(rpos, pairs[~same]), gid="global-links", color=(0.45, 0.55, 0.75), lw=0.8,
           zorder=0, alpha=0.7)
    _lines(ax, _segments(rpos, pairs[same]), gid="local-links", color=(0.3, 0.3, 0.3), lw=1.2)
    host = np.stack([pos, rpos[router]], axis=1)
    _lines(ax, host, gid="host-links", color=(0.6, 0.6, 0.6), lw=0.8)
    sc = ax.scatter(rpos[:, 0], rpos[:, 1], marker="s", s=size * 0.9, color=SWITCH, zorder=2)
    sc.set_gid("routers")
    for g in range(groups):
        ax.text(*(centre[g] * (1 + 0.9 * small / max(big, 1e-9)) if groups > 1 else centre[g] + [0, small]),
                f"group {g}", ha="center", va="center", fontsize=7, color=(0.3, 0.3, 0.3))
    ax.set_aspect("equal")
    ax.axis("off")
    return pos


# -- fat tree ------------------------------------------------------------------------------


def _fat_tree(ax, machine: Machine, size: float):
    labels = np.array(machine.labels, dtype=np.int64)  # (pod, edge, host)
    k = int(labels[:, 0].max()) + 1
    half = k // 2
    pod_width = half * half + 1
    x = labels[:, 0] * pod_width + labels[:, 1] * half + labels[:, 2]
    pos = np.stack([x, np.zeros(machine.n)], axis=1).astype(float)
    edge = {(p, e): (p * pod_width + e * half + (half - 1) / 2, 1.0) for p in range(k) for e in range(half)}
    agg = {(p, a): (p * pod_width + a * half + (half - 1) / 2, 2.0) for p in range(k) for a in range(half)}
    span = k * pod_width - 1
    n_core = half * half
    core = {(a, j): ((a * half + j + 0.5) * span / n_core - 0.5, 3.2) for a in range(half) for j in range(half)}
    host_links = np.array([[pos[i], edge[(p, e)]] for i, (p, e, _) in enumerate(labels.tolist())])
    sw_links = [[edge[(p, e)], agg[(p, a)]] for p in range(k) for e in range(half) for a in range(half)]
    sw_links += [[agg[(p, a)], core[(a, j)]] for p in range(k) for a in range(half) for j in range(half)]
    _lines(ax, host_links, gid="host-links", color=(0.6, 0.6, 0.6), lw=0.8)
    _lines(ax, np.array(sw_links), gid="switch-links", color=(0.45, 0.55, 0.75), lw=0.7, zorder=0, alpha=0.8)
    sw = np.array(list(edge.values()) + list(agg.values()) + list(core.values()))
    sc = ax.scatter(sw[:, 0], sw[:, 1], marker="s", s=size * 0.9, color=SWITCH, zorder=2)
    sc.set_gid("switches")
    for y, name in ((3.2, "core"), (2.0, "aggregation"), (1.0, "edge"), (0.0, "hosts")):
        ax.text(-1.0, y, name, ha="right", va="center", fontsize=7)
    for p in range(k):
        ax.text(p * pod_width + (half * half - 1) / 2, -0.45, f"pod {p}", ha="center", va="top", fontsize=7)
    ax.set_xlim(-1.2 - 0.08 * span, span + 0.8)
    ax.set_ylim(-0.8, 3.6)
    ax.axis("off")
    return pos


# -- any network -------------------------------------------------------------------------


def _any_network(ax, machine: Machine, size: float, seed: int):
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(machine.n))
    G.add_edges_from((i, j) for i, j, _ in machine.edges)
    layout = nx.spring_layout(G, seed=seed)
    pos = np.array([layout[i] for i in range(machine.n)])
    pairs = np.array([(i, j) for i, j, _ in machine.edges], dtype=np.int64).reshape(-1, 2)
    _lines(ax, _segments(pos, pairs), gid="links", color=(0.55, 0.55, 0.55), lw=1.0)
    ax.set_aspect("equal")
    ax.axis("off")
    return pos


def plot_network(machine, allocation=None, *, ax=None, path=None, overwrite=False, title=None, legend=True,
                 seed=0):
    """Draw a machine's nodes and links, every job in its own colour.

    Parameters
    ----------
    machine : Machine or str
        Any :class:`~optalloc.machine.Machine` (or text for
        :func:`~optalloc.machine.parse_machine`): a mesh or torus, a
        dragonfly or fat tree from the generators, or any network.
    allocation : dict or sequence, optional
        The jobs to colour: a dict job id -> node ids, or a sequence of
        node-id sequences (job ids 0, 1, ...).  Default: the machine's own
        owners (``machine.owner``, as the simulator and
        :meth:`~optalloc.machine.Machine.allocate` set them).
    ax : matplotlib Axes, optional
        Draw into it (default: a new figure).
    path : str or path-like, optional
        Also write the figure to this image file.
    overwrite : bool
        Replace an existing file at ``path``.
    title : str, optional
        Default: the machine's description and the number of jobs.
    legend : bool
        A legend of the jobs (up to 20 of them).
    seed : int
        Seed of the force-directed layout of a network that is neither a
        dragonfly nor a fat tree.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn into.

    Raises
    ------
    ValueError
        A bad machine or allocation (an unknown or repeated node, a node
        given to two jobs), ``ax`` not an Axes, a folder that does not exist.
    FileExistsError
        ``path`` exists and ``overwrite`` is False.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> from optalloc.sim import plot_network
    >>> m = Machine((4, 3), torus=True)
    >>> ax = plot_network(m, {7: [0, 1, 4], 9: [10, 11]})
    >>> ax.get_title()
    '4x3 torus: 2 jobs, 5/12 nodes busy'
    >>> [c.get_gid() for c in ax.collections]
    ['links', 'wrap-links', 'nodes']
    """
    from ...machine import parse_machine

    if not isinstance(machine, Machine):
        machine = parse_machine(machine)
    path = _check_path(path, overwrite)
    _matplotlib()
    owner = _owners(machine, allocation)
    faces, jobs = _colours(owner)
    if machine.is_grid:
        shape = machine.shape
        wide = shape[0] * (shape[2] if len(shape) == 3 else 1) + (shape[2] - 1 if len(shape) == 3 else 0)
        high = shape[1] if len(shape) > 1 else 1
        cell = max(0.22, min(0.5, 7.0 / max(wide, high)))
        ax = _axes(ax, path, figsize=(max(3.0, cell * wide + 1.8), max(2.0, cell * high + 1.0)))
        size = (72 * cell * 0.45) ** 2
        pos = _grid(ax, machine, size)
    elif _is_labelled(machine, "dragonfly:"):
        ax = _axes(ax, path, figsize=(7.0, 7.0))
        size = 40.0 if machine.n <= 200 else 12.0
        pos = _dragonfly(ax, machine, size)
    elif _is_labelled(machine, "fattree:"):
        ax = _axes(ax, path, figsize=(max(6.0, machine.n * 0.16 + 1.5), 4.0))
        size = 36.0 if machine.n <= 128 else 12.0
        pos = _fat_tree(ax, machine, size)
    else:
        ax = _axes(ax, path, figsize=(6.0, 6.0))
        size = 40.0 if machine.n <= 100 else 12.0
        pos = _any_network(ax, machine, size, seed)
    sc = ax.scatter(pos[:, 0], pos[:, 1], s=size, c=faces, edgecolors=(0.25, 0.25, 0.25), linewidths=0.5,
                    zorder=3)
    sc.set_gid("nodes")
    if legend and jobs and len(jobs) <= 20:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], marker="o", ls="", markerfacecolor=c, markeredgecolor=(0.25, 0.25, 0.25),
                          label=f"job {j}") for j, c in jobs]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    busy = int((owner != -1).sum())
    head = title or machine.describe()
    sep = ":\n" if len(head) > 40 else ": "
    ax.set_title(f"{head}{sep}{len(jobs)} job{'' if len(jobs) == 1 else 's'}, {busy}/{machine.n} nodes busy",
                 fontsize=9)
    _write(ax, path)
    return ax
