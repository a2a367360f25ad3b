"""Allocators that place jobs as Slurm's topology plugins do.

Both read the machine's tree of switches (``machine.tree``: a machine read
from a Slurm ``topology.conf``, any :meth:`Machine.from_tree` machine
whose hosts hang from switches, or a fat tree seen as host, edge switch,
pod and core), so that ``certify`` measures the policy a Slurm cluster
runs.  Each job asks for k nodes of one CPU; node weights, required nodes,
GRES, ``--switches`` and segments, which Slurm also weighs, do not arise.
Switch (block) order is the order of the ``topology.conf`` lines, node
order the order of node ids, as Slurm's tables and bitmaps have them.

``slurm:tree``
    topology/tree (``eval_nodes_tree.c``, ``_eval_nodes_topo``; Slurm's
    topology guide: "identify the lowest level switch in the hierarchy
    that can satisfy a job's request and then allocate resources on its
    underlying leaf switches using a best-fit algorithm").  Leaf switches
    (those with nodes) are taken one at a time, all their free nodes in
    id order until the job is placed.  The next leaf is the best of a
    scan over the leaf switches in order: a leaf whose free nodes hold
    what is left of the job beats one whose do not, and of two that do the
    one with fewer free nodes wins (best fit); when neither does, their
    ancestors are compared the same way one level up at a time (so the
    lowest switch that holds the rest wins, and of two such the one with
    fewer free nodes), and where the climb meets a common parent the one
    with more free nodes wins.  Once a leaf is taken, every other leaf
    counts its distance in switch hops to the taken ones; a candidate
    replaces the best so far when it is nearer and holds the rest, or as
    near and better by the rule above.  Slurm's level of a switch counts
    from the leaves (0 at a switch with nodes, one more than its highest
    child switch above).
``slurm:block``
    topology/block (``eval_nodes_block.c``).  The base blocks are the leaf
    switches, in order; with a base block size B (the first of
    ``BlockSizes``, by default the fewest nodes of a base block) a job of
    k nodes needs ceil(k / B) base blocks, rounded up to a power of two
    2^l and then to the smallest aggregate level that ``BlockSizes``
    allows (B 2^l among the sizes; without ``BlockSizes`` every level);
    aggregates are aligned runs of 2^l consecutive base blocks, and none
    (the whole machine) when no allowed level is large enough.  Of the
    aggregates whose free nodes hold the job, the one with the fewest
    free nodes wins (the last of equals).  Inside it base blocks are taken
    whole, in id order of their nodes: one that holds the rest beats one
    that does not, then fewer free nodes (of those that hold it) or more
    (of those that do not); with lower-level aggregates (the largest
    allowed level below l), blocks of an aggregate already used come
    first, then an aggregate that holds the rest, the smaller of two such,
    the larger of two that do not, as Slurm's ``_choose_best_bblock``.

Where this differs from Slurm
-----------------------------
Slurm lets a job wait when its rule finds no place; the simulator asks an
allocator only when k nodes are free and needs an answer, so

- ``slurm:tree`` spans the whole tree: on a topology with several top
  switches (joined under an added root, :func:`optalloc.machine.read_topology`)
  a job may span them where Slurm would keep it waiting;
- ``slurm:block`` takes the next allowed aggregate size (and at last the
  whole machine) when no aggregate of the job's size holds it, and fills
  from the rest of its aggregate when the lower-level limit stops it
  short.

On a fat tree (``machine.tree``) the leaf switches are the edge switches,
which is how Slurm's ``topology.conf`` for a fat tree lists them.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..._jit import njit
from ._allocators import Allocator

__all__ = ["SLURM_ALLOCATORS", "SlurmAllocator", "SlurmBlockAllocator", "SlurmTreeAllocator", "parse_slurm_allocator",
           "slurm_misfit"]

#: the names after ``slurm:``
SLURM_ALLOCATORS = ("tree", "block")


class _Layout:
    """What both allocators read from a tree of switches, once per tree."""

    def __init__(self, tree):
        n, V = tree.n, tree.V
        S = V - n
        self.n, self.S = n, S
        sw_parent = tree.parent[n:] - n
        sw_parent[sw_parent < 0] = np.flatnonzero(sw_parent < 0)  # the root is its own parent
        self.sw_parent = sw_parent.astype(np.int64)
        host_sw = tree.parent[:n] - n  # the switch of each host
        counts = np.bincount(host_sw, minlength=S)
        self.leaf_sw = np.flatnonzero(counts > 0).astype(np.int64)  # switches with nodes, in order
        leaf_of_sw = np.full(S, -1, dtype=np.int64)
        leaf_of_sw[self.leaf_sw] = np.arange(len(self.leaf_sw))
        self.host_leaf = leaf_of_sw[host_sw]
        by = np.argsort(self.host_leaf, kind="stable")  # hosts of each leaf, in id order
        self.leaf_hosts = by.astype(np.int64)
        self.leaf_ptr = np.zeros(len(self.leaf_sw) + 1, dtype=np.int64)
        np.cumsum(counts[self.leaf_sw], out=self.leaf_ptr[1:])
        # switches children first (the tree's order reversed), and Slurm's levels from the leaves
        order = tree.order[::-1]
        self.up_order = (order[order >= n] - n).astype(np.int64)
        level = np.zeros(S, dtype=np.int64)
        for s in self.up_order:
            p = self.sw_parent[s]
            if p != s and level[p] < level[s] + 1:
                level[p] = level[s] + 1
        self.sw_level = level
        self.sw_depth = tree.level[n:].astype(np.int64)  # links from the root
        self.tree = tree


def slurm_misfit(machine) -> str | None:
    """Why the Slurm allocators cannot run on ``machine``, or None."""
    tree = machine.tree
    if tree is None:
        return ("it needs a tree of switches (a Slurm topology.conf, Machine.from_tree or a fat tree); got no "
                "machine.tree")
    n = tree.n
    if tree.root < n or np.any(tree.parent[:n] < n) or np.any(tree.child_ptr[1:n + 1] != tree.child_ptr[:n]):
        return "it needs every node to hang from a switch, with no node below a node"
    return None


class SlurmAllocator(Allocator):
    """Base class of the Slurm allocators: the tree's layout, read once per tree."""

    #: the name after ``slurm:``
    rule = ""

    def __init__(self):
        self.name = f"slurm:{self.rule}"
        self._key = None
        self._layout = None

    def layout(self, machine) -> _Layout:
        why = slurm_misfit(machine)
        if why is not None:
            raise ValueError(f"allocator {self.name!r} does not fit a {machine.describe()}: {why}")
        tree = machine.tree
        if self._layout is None or self._layout.tree is not tree:
            self._layout = _Layout(tree)
        return self._layout

    def fits(self, machine):
        return slurm_misfit(machine)

    def __repr__(self):
        return f"{type(self).__name__}()"


class SlurmTreeAllocator(SlurmAllocator):
    """Slurm's topology/tree placement (``slurm:tree``; the module's text
    gives the rule and where it differs from Slurm).

    Examples
    --------
    Two leaf switches of 4 and 3 free nodes: a job of 3 goes to the fuller
    one (best fit), a job of 5 fills the larger leaf first:

    >>> from optalloc.machine import parse_topology
    >>> m = parse_topology("SwitchName=a Nodes=n[1-4]\\nSwitchName=b Nodes=n[5-8]\\nSwitchName=t Switches=a,b")
    >>> _ = m.allocate([4])
    >>> a = SlurmTreeAllocator()
    >>> a.select(m, 3).tolist(), a.select(m, 5).tolist()
    ([5, 6, 7], [0, 1, 2, 3, 5])
    """

    rule = "tree"

    def select(self, machine, k):
        lay = self.layout(machine)
        free = np.ascontiguousarray(machine.free, dtype=np.bool_)
        nodes = _tree_pick(free, int(k), lay.sw_parent, lay.sw_level, lay.leaf_sw, lay.leaf_ptr, lay.leaf_hosts,
                           lay.up_order, lay.host_leaf, lay.sw_depth)
        if len(nodes) != k:
            raise RuntimeError(f"allocator {self.name!r} placed {len(nodes)} of {k} nodes")
        return np.sort(nodes)


@njit(cache=True)
def _hops(a, b, sw_parent, sw_depth):
    """Links between switches a and b of the tree (up to their lowest common ancestor)."""
    steps = 0
    while sw_depth[a] > sw_depth[b]:
        a = sw_parent[a]
        steps += 1
    while sw_depth[b] > sw_depth[a]:
        b = sw_parent[b]
        steps += 1
    while a != b:
        a, b = sw_parent[a], sw_parent[b]
        steps += 2
    return steps


@njit(cache=True)
def _tree_pick(free, k, sw_parent, sw_level, leaf_sw, leaf_ptr, leaf_hosts, up_order, host_leaf, sw_depth):
    """Slurm's leaf-switch loop (``_eval_nodes_topo``) for k nodes of one CPU."""
    S = len(sw_parent)
    L = len(leaf_sw)
    cnt = np.zeros(S, dtype=np.int64)
    own = np.zeros(L, dtype=np.int64)  # free nodes of each leaf switch itself (a switch may also have switches)
    avail = free.copy()
    for h in range(len(free)):
        if free[h]:
            cnt[leaf_sw[host_leaf[h]]] += 1
            own[host_leaf[h]] += 1
    for t in range(len(up_order)):
        s = up_order[t]
        if sw_parent[s] != s:
            cnt[sw_parent[s]] += cnt[s]
    dist = np.zeros(L, dtype=np.int64)
    out = np.empty(k, dtype=np.int64)
    taken = 0
    rem = k
    while rem > 0:
        best = -1
        for j in range(L):
            sj = leaf_sw[j]
            if own[j] == 0:
                continue
            if best == -1 or cnt[sj] == 0:
                if cnt[sj] > 0:
                    best = j
                continue
            # _topo_compare_switches(j, best)
            a, b = sj, leaf_sw[best]
            tcs = 0
            a_fit = False
            decided = False
            while True:
                a_fit = cnt[a] >= rem
                b_fit = cnt[b] >= rem
                if a_fit and b_fit:
                    if cnt[a] < cnt[b]:
                        tcs, decided = 1, True
                    elif cnt[a] > cnt[b]:
                        tcs, decided = -1, True
                    break
                elif a_fit:
                    tcs, decided = 1, True
                    break
                elif b_fit:
                    tcs, decided = -1, True
                    break
                if (sw_parent[a] != a or sw_parent[b] != b) and sw_parent[a] != sw_parent[b]:
                    a, b = sw_parent[a], sw_parent[b]
                    continue
                break
            if not decided:
                if cnt[a] > cnt[b]:
                    tcs = 1
                elif cnt[a] < cnt[b]:
                    tcs = -1
                elif sw_level[a] < sw_level[b]:
                    tcs = 1
                elif sw_level[a] > sw_level[b]:
                    tcs = -1
            if (dist[j] < dist[best] and a_fit) or (dist[j] == dist[best] and tcs > 0):
                best = j
        if best == -1:
            break
        for j in range(L):
            dist[j] += _hops(leaf_sw[best], leaf_sw[j], sw_parent, sw_depth)
        got = 0
        for t in range(leaf_ptr[best], leaf_ptr[best + 1]):
            h = leaf_hosts[t]
            if avail[h]:
                avail[h] = False
                own[best] -= 1
                out[taken] = h
                taken += 1
                got += 1
                rem -= 1
                if rem == 0:
                    break
        s = leaf_sw[best]
        while True:  # _decrement_node_cnt
            cnt[s] = cnt[s] - got if cnt[s] > got else 0
            if sw_parent[s] == s:
                break
            s = sw_parent[s]
    return out[:taken]


class SlurmBlockAllocator(SlurmAllocator):
    """Slurm's topology/block placement (``slurm:block``; the module's
    text gives the rule and where it differs from Slurm).

    Parameters
    ----------
    sizes : sequence of int, optional
        Slurm's ``BlockSizes``: the base block size, then the aggregate
        sizes allowed, each a power of two times the first. Default: the
        machine's (``machine.tree.block_sizes``, read from a
        ``topology.conf``), else the fewest nodes of a leaf switch with
        every power of two allowed.

    Examples
    --------
    Four blocks of 2 nodes, aggregates of 2 blocks allowed: a job of 3 goes
    to the aggregate with fewer free nodes that holds it:

    >>> from optalloc.machine import parse_topology
    >>> text = "\\n".join(f"BlockName=b{b} Nodes=n[{2 * b - 1}-{2 * b}]" for b in range(1, 5))
    >>> m = parse_topology(text + "\\nBlockSizes=2,4")
    >>> _ = m.allocate([1])
    >>> SlurmBlockAllocator().select(m, 3).tolist()
    [0, 2, 3]
    """

    rule = "block"

    def __init__(self, sizes=None):
        super().__init__()
        if sizes is not None:
            sizes = tuple(int(s) for s in (sizes if isinstance(sizes, (tuple, list)) else (sizes,)))
            base = sizes[0] if sizes else 1
            if not sizes or min(sizes) < 1 or any(
                    b <= a or b % base or (b // base) & (b // base - 1) for a, b in itertools.pairwise(sizes)):
                raise ValueError(f"`sizes` must be positive, each a power of two times the first and larger than the "
                                 f"one before, got {sizes!r}")
            self.name = "slurm:block:sizes=" + ",".join(map(str, sizes))
        self.sizes = sizes

    def _levels(self, lay):
        sizes = self.sizes or getattr(lay.tree, "block_sizes", None)
        nb = len(lay.leaf_sw)
        if sizes is None:
            base = int(np.diff(lay.leaf_ptr).min())
            return base, list(range(max(1, nb).bit_length() + 1))
        base = sizes[0]
        return base, sorted(round(math.log2(s // base)) for s in sizes)

    def select(self, machine, k):
        lay = self.layout(machine)
        free = np.asarray(machine.free, dtype=bool)
        base, levels = self._levels(lay)
        nb = len(lay.leaf_sw)
        on_bblock = np.add.reduceat(free[lay.leaf_hosts], lay.leaf_ptr[:-1]) if nb else np.zeros(0, int)
        on_bblock = on_bblock.astype(np.int64)
        need = max(1, -(-k // base))
        block_level = math.ceil(math.log2(need)) if need > 1 else 0
        lower = [v for v in levels if v <= block_level - 1] if block_level > 0 else [0]
        ll_level = max(lower) if lower else 0
        for lvl in [v for v in levels if v >= block_level] + [None]:
            per = nb if lvl is None else min(1 << lvl, nb)
            chosen = self._block(on_bblock, per, ll_level if lvl is not None else None, k, base)
            if chosen is not None:
                break
        start = chosen * per
        picked = self._bblocks(on_bblock, start, min(start + per, nb), ll_level, k, base)
        nodes = []
        for b in picked:
            hosts = lay.leaf_hosts[lay.leaf_ptr[b]:lay.leaf_ptr[b + 1]]
            nodes.extend(hosts[free[hosts]][:k - len(nodes)].tolist())
        if len(nodes) < k:  # the lower-level limit stopped it short: the rest of its aggregate, best fit
            rest = [b for b in range(start, min(start + per, nb)) if b not in picked]
            for b in sorted(rest, key=lambda b: -on_bblock[b]):
                hosts = lay.leaf_hosts[lay.leaf_ptr[b]:lay.leaf_ptr[b + 1]]
                nodes.extend(hosts[free[hosts]][:k - len(nodes)].tolist())
        return np.sort(np.asarray(nodes[:k], dtype=np.int64))

    @staticmethod
    def _block(on_bblock, per, ll_level, k, base):
        """The aggregate of ``per`` base blocks that holds k with the fewest free nodes (the last of equals);
        with ``ll_level``, counting only the fullest aggregates of the level below that the job may use."""
        nb = len(on_bblock)
        per_ll = 1 << (ll_level or 0)
        max_ll = -(-k // (per_ll * base))  # aggregates of the level below that the job may span
        best, best_cnt = None, 0
        for i in range(-(-nb // per)):
            part = on_bblock[i * per:(i + 1) * per]
            bnc = int(part.sum())
            if ll_level is not None and per != per_ll * max_ll:
                ll = np.add.reduceat(part, np.arange(0, len(part), per_ll))
                avail = int(np.sort(ll)[::-1][:max_ll].sum())
            else:
                avail = bnc
            if avail < k:
                continue
            if best is None or bnc <= best_cnt:
                best, best_cnt = i, bnc
        return best

    @staticmethod
    def _bblocks(on_bblock, lo, hi, ll_level, k, base):
        """Slurm's ``_choose_best_bblock`` loop: base blocks of [lo, hi) taken whole until k."""
        per_ll = 1 << ll_level
        ll_size = per_ll * base
        max_ll = -(-k // ll_size)
        use_ll = (hi - lo) != per_ll * max_ll
        on_ll = {}
        if use_ll:
            for i in range(lo, hi):
                on_ll[i >> ll_level] = on_ll.get(i >> ll_level, 0) + int(on_bblock[i])
        required: list[int] = []
        rem = k
        while rem > 0:
            best, best_fit, best_same = -1, False, True
            for i in range(lo, hi):
                if i in required or on_bblock[i] == 0:
                    continue
                fit = on_bblock[i] >= rem
                if use_ll and (best == -1 or (best >> ll_level) != (i >> ll_level)):
                    same = any((j >> ll_level) == (i >> ll_level) for j in required)
                    if best == -1 or (same and not best_same):
                        best, best_fit, best_same = i, fit, same
                        continue
                    if not same and best_same:
                        continue
                    b_cnt, i_cnt = on_ll[best >> ll_level], on_ll[i >> ll_level]
                    i_llfit, b_llfit = i_cnt >= rem, b_cnt >= rem
                    if i_llfit != b_llfit:
                        if i_llfit:
                            best, best_fit, best_same = i, fit, same
                        continue
                    if i_cnt != b_cnt:
                        if (i_cnt < b_cnt) == i_llfit:
                            best, best_fit, best_same = i, fit, same
                        continue
                more = on_bblock[i] >= on_bblock[best] if best != -1 else True
                if (best == -1 or (fit and not best_fit) or (not fit and not best_fit and more)
                        or (fit and on_bblock[i] <= on_bblock[best])):
                    best, best_fit = i, fit
            if best == -1 or (use_ll and max_ll <= 0 and not best_same):
                break
            required.append(best)
            rem -= min(rem, int(on_bblock[best]))
            if not best_same:
                max_ll -= 1
        return required


def parse_slurm_allocator(spec: str) -> SlurmAllocator:
    """The allocator of ``"slurm:tree"``, ``"slurm:block"`` or ``"slurm:block:sizes=B0,B1,..."``.

    Examples
    --------
    >>> parse_slurm_allocator("slurm:block:sizes=8,32").sizes
    (8, 32)
    """
    parts = [p.strip() for p in spec.split(":")]
    rule = parts[1].lower() if len(parts) > 1 else ""
    if rule not in SLURM_ALLOCATORS:
        raise ValueError(f"`allocator` {spec!r}: must be slurm:tree or slurm:block[:sizes=B0,B1,...]")
    if rule == "tree":
        if len(parts) > 2:
            raise ValueError(f"`allocator` 'slurm:tree' takes no options, got {spec!r}")
        return SlurmTreeAllocator()
    sizes = None
    for p in parts[2:]:
        key, eq, value = p.partition("=")
        if key.strip().lower() != "sizes" or not eq:
            raise ValueError(f"`allocator` {spec!r}: slurm:block takes only sizes=B0,B1,... (Slurm's BlockSizes)")
        try:
            sizes = tuple(int(v) for v in value.split(","))
        except ValueError:
            raise ValueError(f"`allocator` {spec!r}: sizes must be integers, got {value!r}") from None
    return SlurmBlockAllocator(sizes)
