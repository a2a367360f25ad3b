"""Allocators for dragonflies: the policies of SST's scheduler element.

SST's scheduler element (sst-elements, ``src/sst/elements/scheduler``)
ships these allocators for its ``DragonflyMachine``; each is re-implemented
here from the description of its rule, on a :class:`Machine` built by
:func:`optalloc.machine.dragonfly`.  Nodes are numbered group-major, as SST
and :func:`~optalloc.machine.dragonfly` number them: node
``(g, r, p)`` (group g, router r of the group, node p of the router) has id
``(g * routers + r) * nodes + p``.

=========================  =========================  =====================================================
spec                       SST class                  rule
=========================  =========================  =====================================================
``dfly:simple-spread``     ``SimpleSpreadAllocator``  the first k free nodes in spread order: router 0 of
                                                      every group in turn, then router 1 of every group, ...
``dfly:random-group``      ``DflyRDGAllocator``       a random group, its free nodes in id order; again
                                                      until k
``dfly:random-router``     ``DflyRDRAllocator``       the same with random routers
``dfly:random-node``       ``RandomAllocator``        k free nodes uniformly at random
``dfly:rr-node``           ``DflyRRNAllocator``       round robin over the groups from group 0, one node
                                                      (the lowest free id) per group per turn
``dfly:rr-router``         ``DflyRRRAllocator``       round robin over the groups from group 0, the free
                                                      nodes of one router (the lowest with any) per turn
``dfly:slurm``             ``DflySlurmAllocator``     best fit by router: the fullest router that still
                                                      holds the job; else whole routers, fullest first
``dfly:jokanovic``         ``DflyJokanovicAllocator``  a job no larger than a group: the first group with k
                                                      free nodes; a larger one: the highest free ids
``dfly:hybrid``            ``DflyHybridAllocator``    Level-Spread: the emptiest router that holds the job,
                                                      else the emptiest group (round robin over its
                                                      routers), else round robin over the groups
=========================  =========================  =====================================================

Ties go to the lowest id everywhere.  Where a rule draws at random, a
seeded :class:`numpy.random.Generator` draws (``rng`` or ``seed=N``): the
random group (router) is drawn uniformly among the groups (routers) that
still hold a free node not yet taken, which is the distribution of SST's
rule of drawing among all of them and skipping those with none.

References
----------
- J. Kim, W. J. Dally, S. Scott and D. Abts, "Technology-driven, highly-scalable
  dragonfly topology", ISCA 2008 (the topology).
- N. Jain, A. Bhatele, X. Ni, N. J. Wright and L. V. Kale, "Maximizing throughput
  on a dragonfly network", SC 2014 (random and round-robin placements).
- A. Jokanovic, J. C. Sancho, G. Rodriguez, A. Lucero, C. Minkenberg and
  J. Labarta, "Quiet neighborhoods: key to protect job performance
  predictability", IPDPS 2015.
- Y. Zhang, O. Tuncer, F. Kaplan, K. Olcoz, V. J. Leung and A. K. Coskun,
  "Level-Spread: a new job allocation policy for dragonfly networks", IPDPS 2018
  (the hybrid allocator).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._allocators import Allocator

__all__ = ["DRAGONFLY_ALLOCATORS", "DragonflyAllocator", "DragonflyLayout", "dragonfly_layout",
           "parse_dragonfly_allocator"]


class DragonflyLayout(NamedTuple):
    """Groups, routers per group and nodes per router of a dragonfly machine."""

    groups: int
    routers: int
    nodes: int


def dragonfly_layout(machine) -> DragonflyLayout | None:
    """The layout of a machine built by :func:`optalloc.machine.dragonfly`, else None.

    A machine is a dragonfly when it is a network whose labels are
    ``(group, router, node)`` integer triples numbered group-major (every
    group holds as many routers, every router as many nodes), with
    distance 2 between two nodes of one router and 3 between nodes of two
    routers of one group (routers all-to-all within a group, host links
    counted).  A fat tree, whose labels look alike, has 4 within a pod.

    Examples
    --------
    >>> from optalloc.machine import dragonfly, fat_tree
    >>> dragonfly_layout(dragonfly())
    DragonflyLayout(groups=9, routers=4, nodes=2)
    >>> dragonfly_layout(fat_tree(4)) is None
    True
    """
    if machine.is_grid or machine.labels is None:
        return None
    h = machine.hierarchy
    if h is not None:  # built by dragonfly() or fat_tree(): its structure says
        return DragonflyLayout(h.blocks, h.units_per_block, h.unit_size) if h.kind == "dragonfly" else None
    labels = machine.labels
    try:
        lab = np.array([[int(v) for v in t] for t in labels], dtype=np.int64)
        if not all(isinstance(t, tuple) and len(t) == 3 for t in labels):
            return None
    except (TypeError, ValueError):
        return None
    if lab.ndim != 2 or lab.shape[1] != 3 or lab.min() < 0:
        return None
    g_n, a, p = (int(v) + 1 for v in lab.max(axis=0))
    if g_n * a * p != machine.n:
        return None
    ids = (lab[:, 0] * a + lab[:, 1]) * p + lab[:, 2]
    if not np.array_equal(ids, np.arange(machine.n)):
        return None
    size = a * p
    local = np.arange(size) // p  # router of each node of a group
    want = np.where(local[:, None] == local[None, :], 2.0, 3.0)  # one router: 2 hops; one group: 3
    np.fill_diagonal(want, 0.0)
    for g in range(g_n):  # block by block: no n x n mask
        if not np.array_equal(machine.distances(np.arange(g * size, (g + 1) * size)), want):
            return None
    return DragonflyLayout(g_n, a, p)


class DragonflyAllocator(Allocator):
    """Base class of the dragonfly allocators: ``select`` sees the free
    mask as a (groups, routers, nodes) array.

    Subclasses override :meth:`choose`, which returns node ids.
    """

    #: the name after ``dfly:``
    rule = ""
    #: True for the allocators that draw at random
    random = False

    def __init__(self, rng=None):
        self.seed = None
        if self.random and isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
            self.seed = int(rng)
        self.rng = np.random.default_rng(rng) if self.random else None
        self.name = f"dfly:{self.rule}" + (f":seed={self.seed}" if self.seed is not None else "")
        self._layout_of: tuple | None = None

    def layout(self, machine) -> DragonflyLayout | None:
        """The machine's :class:`DragonflyLayout` (kept for the machine's links), or None."""
        cached = self._layout_of
        if cached is not None and cached[0] is machine.labels:
            return cached[1]
        layout = dragonfly_layout(machine)
        self._layout_of = (machine.labels, layout)
        return layout

    def fits(self, machine):
        if self.layout(machine) is None:
            return "it needs a dragonfly from optalloc.machine.dragonfly"
        return None

    def select(self, machine, k):
        layout = self.layout(machine)
        if layout is None:
            raise ValueError(f"allocator {self.name!r} {self.fits(machine)}; got a {machine.describe()}")
        free = np.asarray(machine.free).reshape(layout)
        nodes = np.sort(np.asarray(self.choose(free, k), dtype=np.int64))
        return nodes

    def choose(self, free: np.ndarray, k: int) -> np.ndarray:
        """k node ids from the free mask of shape (groups, routers, nodes)."""
        raise NotImplementedError

    def __repr__(self):
        seed = f"rng={self.seed}" if self.seed is not None else ""
        return f"{type(self).__name__}({seed})"


def _first_free(order: np.ndarray, flat_free: np.ndarray, k: int) -> np.ndarray:
    """The first k ids of ``order`` that are free."""
    return order[flat_free[order]][:k]


def _round_robin(free2: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Free ids visited in turns over the rows of ``free2`` (one per row per
    turn, lowest first): sorted by (turn, row). ``base[i]`` is the first id of row i."""
    rows, cols = np.nonzero(free2)
    turn = np.cumsum(free2, axis=1)[rows, cols] - 1
    order = np.lexsort((rows, turn))
    return base[rows[order]] + cols[order]


def _router_nodes(flat: np.ndarray, routers: np.ndarray, k: int) -> np.ndarray:
    """The first k free ids of the routers in the order given (each router's
    in id order); ``flat`` is the (routers, nodes) free mask."""
    p = flat.shape[1]
    return ((routers[:, None] * p + np.arange(p))[flat[routers]])[:k]


class SimpleSpread(DragonflyAllocator):
    """``dfly:simple-spread`` (SST ``SimpleSpreadAllocator``): the first k
    free nodes in spread order, the nodes of router 0 of group 0, of router
    0 of group 1, ..., of router 0 of the last group, then router 1 of
    every group, and so on. Deterministic."""

    rule = "simple-spread"

    def choose(self, free, k):
        ids = np.arange(free.size).reshape(free.shape)
        order = ids.transpose(1, 0, 2).reshape(-1)  # router-major, then group, then node
        return _first_free(order, free.reshape(-1), k)


class _RandomLevel(DragonflyAllocator):
    random = True
    #: 1: groups, 2: routers
    level = 1

    def choose(self, free, k):
        units = free.reshape(int(np.prod(free.shape[: self.level])), -1).copy()
        size = units.shape[1]
        out = []
        while len(out) < k:
            left = np.flatnonzero(units.any(axis=1))
            u = int(left[self.rng.integers(len(left))])
            cols = np.flatnonzero(units[u])[: k - len(out)]
            units[u, cols] = False
            out.extend((u * size + cols).tolist())
        return np.array(out, dtype=np.int64)


class RandomGroup(_RandomLevel):
    """``dfly:random-group`` (SST ``DflyRDGAllocator``): draw a group at
    random and take its free nodes in id order; draw again until the job
    has k nodes. A job no larger than the free nodes of the first group
    drawn stays in that group."""

    rule = "random-group"
    level = 1


class RandomRouter(_RandomLevel):
    """``dfly:random-router`` (SST ``DflyRDRAllocator``): the same as
    ``dfly:random-group`` with routers."""

    rule = "random-router"
    level = 2


class RandomNode(DragonflyAllocator):
    """``dfly:random-node`` (SST ``RandomAllocator`` on a dragonfly): k free
    nodes uniformly at random."""

    rule = "random-node"
    random = True

    def choose(self, free, k):
        ids = np.flatnonzero(free.reshape(-1))
        return self.rng.choice(ids, size=k, replace=False)


class RoundRobinNode(DragonflyAllocator):
    """``dfly:rr-node`` (SST ``DflyRRNAllocator``): from group 0, one node
    per group in turn (the lowest free id of the group), skipping groups
    with none left."""

    rule = "rr-node"

    def choose(self, free, k):
        g_n = free.shape[0]
        per = free.reshape(g_n, -1)
        return _round_robin(per, np.arange(g_n) * per.shape[1])[:k]


class RoundRobinRouter(DragonflyAllocator):
    """``dfly:rr-router`` (SST ``DflyRRRAllocator``): from group 0, in each
    group in turn the first router (lowest id) with free nodes gives all
    of them, then the next group; groups with none left are skipped."""

    rule = "rr-router"

    def choose(self, free, k):
        a, p = free.shape[1:]
        has = free.any(axis=2)  # (groups, routers)
        rows, cols = np.nonzero(has)
        turn = np.cumsum(has, axis=1)[rows, cols] - 1
        routers = (rows * a + cols)[np.lexsort((rows, turn))]
        return _router_nodes(free.reshape(-1, p), routers, k)


class Slurm(DragonflyAllocator):
    """``dfly:slurm`` (SST ``DflySlurmAllocator``): a job that fits on one
    router goes to the router with the fewest free nodes that still holds
    it (its lowest free ids); otherwise whole routers are taken, the one
    with the fewest free nodes first (ties: lowest id), until k."""

    rule = "slurm"

    def choose(self, free, k):
        p = free.shape[2]
        flat = free.reshape(-1, p)
        count = flat.sum(axis=1)
        if k <= p:
            fit = np.flatnonzero(count >= k)
            if len(fit):
                r = int(fit[np.argmin(count[fit])])
                return r * p + np.flatnonzero(flat[r])[:k]
        routers = np.flatnonzero(count)
        routers = routers[np.argsort(count[routers], kind="stable")]
        return _router_nodes(flat, routers, k)


class Jokanovic(DragonflyAllocator):
    """``dfly:jokanovic`` (SST ``DflyJokanovicAllocator``, after Jokanovic
    et al. 2015): a job no larger than a group goes to the first group
    (lowest id) with k free nodes, its lowest free ids; when no group has
    room, the k lowest free ids of the machine.  A job larger than a group
    takes the k highest free ids, so large and small jobs fill the machine
    from opposite ends.

    SST's code, once a group is found, runs on into its fallback loop,
    which replaces the group's nodes by the lowest free ids outside them;
    this class keeps the group's nodes, as the code's comments describe."""

    rule = "jokanovic"

    def choose(self, free, k):
        g_n = free.shape[0]
        per = free.reshape(g_n, -1)
        size = per.shape[1]
        if k <= size:
            fit = np.flatnonzero(per.sum(axis=1) >= k)
            if len(fit):
                g = int(fit[0])
                return g * size + np.flatnonzero(per[g])[:k]
            return np.flatnonzero(free.reshape(-1))[:k]
        return np.flatnonzero(free.reshape(-1))[::-1][:k]


class Hybrid(DragonflyAllocator):
    """``dfly:hybrid`` (SST ``DflyHybridAllocator``, the Level-Spread policy
    of Zhang et al. 2018): the job goes to the smallest level that holds
    it.  A job that fits on the router with the most free nodes (ties:
    lowest id) takes its lowest free ids; else a job that fits in the group
    with the most free nodes takes them round robin over the group's
    routers (one node per router per turn, from its first router); else
    round robin over the groups, as ``dfly:rr-node``."""

    rule = "hybrid"

    def choose(self, free, k):
        g_n, a, p = free.shape
        flat = free.reshape(-1, p)
        if k <= p:
            count = flat.sum(axis=1)
            r = int(np.argmax(count))
            if count[r] >= k:
                return r * p + np.flatnonzero(flat[r])[:k]
        if k <= a * p:
            gcount = free.reshape(g_n, -1).sum(axis=1)
            g = int(np.argmax(gcount))
            if gcount[g] >= k:
                return _round_robin(free[g], (g * a + np.arange(a)) * p)[:k]
        per = free.reshape(g_n, -1)
        return _round_robin(per, np.arange(g_n) * per.shape[1])[:k]


#: ``dfly:NAME`` -> allocator class
DRAGONFLY_ALLOCATORS = {cls.rule: cls for cls in (SimpleSpread, RandomGroup, RandomRouter, RandomNode,
                                                   RoundRobinNode, RoundRobinRouter, Slurm, Jokanovic, Hybrid)}


def parse_dragonfly_allocator(spec: str, *, rng=None) -> DragonflyAllocator:
    """The allocator of ``"dfly:NAME"`` or ``"dfly:NAME:seed=N"`` (random ones).

    Examples
    --------
    >>> parse_dragonfly_allocator("dfly:random-group:seed=3").name
    'dfly:random-group:seed=3'
    """
    parts = [p.strip() for p in spec.strip().split(":")]
    names = ", ".join(f"dfly:{n}" for n in DRAGONFLY_ALLOCATORS)
    if len(parts) < 2 or parts[1].lower() not in DRAGONFLY_ALLOCATORS:
        got = parts[1] if len(parts) > 1 else ""
        raise ValueError(f"`allocator` {spec!r}: unknown dragonfly allocator {got!r}; choose one of {names}")
    cls = DRAGONFLY_ALLOCATORS[parts[1].lower()]
    opts = parts[2:]
    if opts:
        if not cls.random or len(opts) != 1 or not opts[0].startswith("seed="):
            takes = "only seed=N" if cls.random else "no option"
            raise ValueError(f"`allocator` {spec!r}: dfly:{cls.rule} takes {takes}")
        try:
            rng = int(opts[0].split("=", 1)[1])
        except ValueError:
            raise ValueError(f"`allocator` {spec!r}: seed must be an integer") from None
    return cls(rng)
