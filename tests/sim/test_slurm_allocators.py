"""The slurm:tree and slurm:block allocators: Slurm's topology plugins on hand-made cases, a
literal transcription of Slurm's leaf-switch loop, and validity on random trees."""

from __future__ import annotations

import numpy as np
import pytest

from optalloc.machine import Machine, fat_tree, parse_machine, parse_topology
from optalloc.sim import SlurmBlockAllocator, SlurmTreeAllocator, check_allocator, fitting_allocators, parse_allocator

TWO_LEVELS = """
SwitchName=l0 Nodes=n[01-04]
SwitchName=l1 Nodes=n[05-08]
SwitchName=l2 Nodes=n[09-12]
SwitchName=l3 Nodes=n[13-16]
SwitchName=m0 Switches=l[0-1]
SwitchName=m1 Switches=l[2-3]
SwitchName=top Switches=m[0-1]
"""


def _busy(m, labels):
    index = {lab: i for i, lab in enumerate(m.labels)}
    m.allocate([index[lab] for lab in labels])
    return m


def _names(m, ids):
    return [m.labels[i] for i in ids]


# ---- slurm:tree -----------------------------------------------------------------------------

def test_a_job_that_fits_one_leaf_goes_to_the_best_fit_leaf():
    m = _busy(parse_topology(TWO_LEVELS), ["n01", "n05", "n06", "n09", "n13", "n14", "n15"])
    # free per leaf: l0 3, l1 2, l2 3, l3 1
    a = SlurmTreeAllocator()
    assert _names(m, a.select(m, 2)) == ["n07", "n08"]  # l1: the fewest free that hold 2
    assert _names(m, a.select(m, 3)) == ["n02", "n03", "n04"]  # l0 and l2 tie: the first
    assert _names(m, a.select(m, 1)) == ["n16"]


def test_a_larger_job_goes_under_the_best_fit_switch_above_the_leaves():
    m = _busy(parse_topology(TWO_LEVELS), ["n01", "n02", "n05", "n09"])
    # free: l0 2, l1 3 (m0: 5), l2 3, l3 4 (m1: 7)
    a = SlurmTreeAllocator()
    assert _names(m, a.select(m, 5)) == ["n03", "n04", "n06", "n07", "n08"]  # m0 holds 5 with fewer free
    # 6 fits only m1; there the leaf with more free nodes first (l3), then l2
    assert _names(m, a.select(m, 6)) == ["n10", "n11", "n13", "n14", "n15", "n16"]
    assert len(a.select(m, 12)) == 12  # the whole machine


def test_on_a_fat_tree_the_leaves_are_the_edge_switches():
    m = fat_tree(4)  # 16 hosts, 2 per edge switch, 4 per pod
    m.allocate([0, 2, 3, 4])
    a = SlurmTreeAllocator()
    assert a.select(m, 2).tolist() == [6, 7]  # the first edge switch with both hosts free
    assert a.select(m, 1).tolist() == [1]  # edge 0 has one free: the best fit
    assert a.select(m, 3).tolist() == [5, 6, 7]  # pod 1 holds 3 with the fewest free


def _slurm_tree_reference(m, k):
    """A literal transcription of Slurm's ``_eval_nodes_topo`` leaf loop (one CPU per node, no
    weights), on dicts: the ground truth the compiled kernel must repeat."""
    t = m.tree
    n = t.n
    switches = list(range(n, t.V))
    parent = {s: (t.parent[s] if t.parent[s] >= 0 else s) for s in switches}
    hosts_of = {s: [h for h in range(n) if t.parent[h] == s] for s in switches}
    leaves = [s for s in switches if hosts_of[s]]
    level = {s: 0 for s in switches}
    for s in reversed(t.order.tolist()):
        if s >= n and parent[s] != s:
            level[parent[s]] = max(level[parent[s]], level[s] + 1)
    free = set(m.free_ids().tolist())
    cnt = {s: len([h for h in t.hosts_under(s).tolist() if h in free]) for s in switches}
    hops = lambda a, b: int(t.level[a] + t.level[b] - 2 * t.level[t.lca([a], [b])[0]])
    dist = {s: 0 for s in leaves}
    out, rem = [], k

    def compare(i, j):
        while True:
            i_fit, j_fit = cnt[i] >= rem, cnt[j] >= rem
            if i_fit and j_fit:
                if cnt[i] != cnt[j]:
                    return (1 if cnt[i] < cnt[j] else -1), i_fit
                break
            if i_fit or j_fit:
                return (1 if i_fit else -1), i_fit
            if (parent[i] != i or parent[j] != j) and parent[i] != parent[j]:
                i, j = parent[i], parent[j]
                continue
            break
        if cnt[i] != cnt[j]:
            return (1 if cnt[i] > cnt[j] else -1), i_fit
        if level[i] != level[j]:
            return (1 if level[i] < level[j] else -1), i_fit
        return 0, i_fit

    while rem > 0:
        best = None
        for i in leaves:
            if best is None or cnt[i] == 0:
                if cnt[i]:
                    best = i
                continue
            tcs, i_fit = compare(i, best)
            if (dist[i] < dist[best] and i_fit) or (dist[i] == dist[best] and tcs > 0):
                best = i
        for s in leaves:
            dist[s] += hops(best, s)
        got = [h for h in hosts_of[best] if h in free][:rem]
        out += got
        rem -= len(got)
        s = best
        while True:
            cnt[s] = max(0, cnt[s] - len(got))
            if parent[s] == s:
                break
            s = parent[s]
    return sorted(out)


def _random_topology(rng):
    """A tree topology of random shape: 1 to 3 levels of switches, leaves of 1 to 5 nodes."""
    lines, host, names = [], 1, []
    for s in range(int(rng.integers(2, 7))):
        size = int(rng.integers(1, 6))
        lines.append(f"SwitchName=l{s} Nodes=h[{host}-{host + size - 1}]")
        names.append(f"l{s}")
        host += size
    depth = 0
    while len(names) > 1 and depth < 2:
        groups, rest = [], list(names)
        while rest:
            take = int(rng.integers(1, 4))
            groups.append(rest[:take])
            rest = rest[take:]
        if len(groups) == len(names) and len(names) > 1:
            groups = [names]
        names = []
        for g, members in enumerate(groups):
            lines.append(f"SwitchName=d{depth}s{g} Switches={','.join(members)}")
            names.append(f"d{depth}s{g}")
        depth += 1
    return parse_topology("\n".join(lines))


def test_the_tree_allocator_repeats_slurms_leaf_loop_on_random_trees():
    rng = np.random.default_rng(7)
    a = SlurmTreeAllocator()
    for _ in range(300):
        m = _random_topology(rng)
        busy = np.flatnonzero(rng.random(m.n) < 0.4)
        if len(busy) == m.n:
            busy = busy[1:]
        m.allocate(busy)
        k = int(rng.integers(1, m.n_free + 1))
        got = a.select(m, k)
        assert got.tolist() == _slurm_tree_reference(m, k)
        assert len(set(got.tolist())) == k and m.free[got].all()


def test_a_job_that_one_leaf_holds_stays_on_the_best_fit_leaf_on_random_trees():
    rng = np.random.default_rng(11)
    a = SlurmTreeAllocator()
    for _ in range(200):
        m = _random_topology(rng)
        m.allocate(np.flatnonzero(rng.random(m.n) < 0.3)[: m.n - 1])
        t = m.tree
        leaf_free = {s: int(m.free[t.hosts_under(s)].sum()) for s in set(t.parent[: m.n].tolist())}
        k = int(rng.integers(1, max(leaf_free.values()) + 1))
        got = a.select(m, k)
        leaves = set(t.parent[got].tolist())
        assert len(leaves) == 1
        assert leaf_free[leaves.pop()] == min(v for v in leaf_free.values() if v >= k)


# ---- slurm:block ----------------------------------------------------------------------------

BLOCKS = "\n".join(f"BlockName=b{b} Nodes=g[{4 * b + 1:02d}-{4 * b + 4:02d}]" for b in range(8)) + "\nBlockSizes=4,8,16"


def test_a_job_of_one_block_goes_to_the_best_fit_block():
    m = _busy(parse_topology(BLOCKS), ["g01", "g05", "g06", "g09", "g10", "g11"])
    # free per block: 3, 2, 1, 4, 4, 4, 4, 4
    a = parse_allocator("slurm:block")
    assert _names(m, a.select(m, 2)) == ["g07", "g08"]
    assert _names(m, a.select(m, 3)) == ["g02", "g03", "g04"]
    assert _names(m, a.select(m, 4)) == ["g29", "g30", "g31", "g32"]  # of equal blocks, the last


def test_a_job_of_two_blocks_goes_to_the_best_fit_aligned_pair():
    m = _busy(parse_topology(BLOCKS), ["g01", "g05", "g06", "g09", "g10", "g11"])
    # pairs (b0,b1) 5 free, (b2,b3) 5, (b4,b5) 8, (b6,b7) 8
    a = SlurmBlockAllocator()
    got = _names(m, a.select(m, 5))
    assert got == ["g12", "g13", "g14", "g15", "g16"]  # the last of the pairs of 5; its fuller block first
    got = _names(m, a.select(m, 6))
    # a pair of 8: no block holds 6, so the fuller (the last of equals) first, then one that holds the rest
    assert got == ["g25", "g26", "g29", "g30", "g31", "g32"]


def test_a_job_no_aggregate_holds_still_gets_its_nodes():
    m = parse_topology(BLOCKS)
    m.allocate([4 * b for b in range(8)])  # every block has 3 free
    got = SlurmBlockAllocator().select(m, 16)  # an aggregate of 16 holds 12: the whole machine
    assert len(set(got.tolist())) == 16 and m.free[got].all()


def test_block_sizes_from_the_spec():
    a = parse_allocator("slurm:block:sizes=4,16")
    assert a.sizes == (4, 16) and a.name == "slurm:block:sizes=4,16"
    m = _busy(parse_topology(BLOCKS), ["g01"])
    # 2 blocks round up to an aggregate of 4 blocks: the first (15 free, against 16); in it the last
    # full block, then the block that holds the rest with the fewest free nodes (b0)
    assert a.select(m, 6).tolist() == [1, 2, 12, 13, 14, 15]
    for spec, message in (("slurm:block:sizes=4,12", "power of two"), ("slurm:block:size=4", "only sizes"),
                          ("slurm:tree:x", "no options"), ("slurm:ring", "slurm:tree or slurm:block")):
        with pytest.raises(ValueError, match=message):
            parse_allocator(spec)


def test_both_allocators_give_k_free_nodes_on_random_trees_and_fat_trees():
    rng = np.random.default_rng(3)
    for t in range(150):
        m = fat_tree(4) if t % 5 == 0 else _random_topology(rng)
        m.allocate(np.flatnonzero(rng.random(m.n) < 0.5)[: m.n - 1])
        k = int(rng.integers(1, m.n_free + 1))
        for a in (SlurmTreeAllocator(), SlurmBlockAllocator()):
            got = a.select(m, k)
            assert len(set(got.tolist())) == k and m.free[got].all(), (a.name, k)


# ---- the registry ---------------------------------------------------------------------------

def test_the_registry_knows_them_and_refuses_other_machines():
    assert fitting_allocators(parse_topology(TWO_LEVELS))[-2:] == ["slurm:tree", "slurm:block"]
    assert "slurm:tree" in fitting_allocators(fat_tree(4))
    for machine in (Machine((4, 4)), parse_machine("dragonfly:3,2,1,1")):
        assert "slurm:tree" not in fitting_allocators(machine)
        with pytest.raises(ValueError, match=r"does not fit .*needs a tree of switches") as err:
            check_allocator(parse_allocator("slurm:tree"), machine)
        assert "\n" not in str(err.value)
        with pytest.raises(ValueError, match="needs a tree of switches"):
            SlurmTreeAllocator().select(machine, 2)
    import networkx as nx

    path = Machine.from_tree(nx.path_graph(4), [0, 1, 2, 3])  # hosts below hosts
    with pytest.raises(ValueError, match="every node to hang from a switch"):
        check_allocator(parse_allocator("slurm:block"), path)


def test_block_jobs_stay_in_the_best_fit_aggregate_on_random_states():
    """A job of at most one (two) base blocks goes to the block (aligned pair of blocks) with the
    fewest free nodes among those that hold it, the last of equals, as Slurm's block choice."""
    rng = np.random.default_rng(5)
    m0 = parse_topology(BLOCKS)
    a = SlurmBlockAllocator()
    for _ in range(300):
        m = m0.copy_empty()
        m.allocate(np.flatnonzero(rng.random(m.n) < rng.uniform(0.2, 0.8))[: m.n - 1])
        per_block = m.free.reshape(8, 4).sum(axis=1)
        for width, lo in ((1, 1), (2, 5)):
            free = per_block.reshape(-1, width).sum(axis=1)
            k = int(rng.integers(lo, 4 * width + 1))
            if k > m.n_free:
                continue
            fits = [i for i in range(len(free)) if free[i] >= k]
            got = a.select(m, k)
            assert len(set(got.tolist())) == k and m.free[got].all()
            if fits:
                best = min(fits, key=lambda i: (free[i], -i))
                assert set((got // (4 * width)).tolist()) == {best}, (width, k, free.tolist())


def test_switches_with_nodes_and_switches_give_each_node_once():
    """A switch may list nodes beside its child switches: its own nodes are taken once."""
    rng = np.random.default_rng(9)
    for _ in range(100):
        lines, host = [], 1
        for s in range(int(rng.integers(1, 4))):
            size = int(rng.integers(1, 4))
            lines.append(f"SwitchName=l{s} Nodes=h[{host}-{host + size - 1}]")
            host += size
        top = int(rng.integers(1, 4))
        lines.append(f"SwitchName=t Switches=l[0-{len(lines) - 1}] Nodes=h[{host}-{host + top - 1}]")
        m = parse_topology("\n".join(lines))
        m.allocate(np.flatnonzero(rng.random(m.n) < 0.3)[: m.n - 1])
        for k in range(1, m.n_free + 1):
            for a in (SlurmTreeAllocator(), SlurmBlockAllocator()):
                got = a.select(m, k)
                assert len(set(got.tolist())) == k and m.free[got].all(), (a.name, k, lines)
