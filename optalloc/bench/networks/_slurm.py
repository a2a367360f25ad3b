"""Slurm's topologies: reading a topology.conf and the slurm:tree allocator.

- Reading a ``topology.conf`` of a 3-level tree (leaf switches of 32
  nodes, 16 leaves under each middle switch, one top switch; 8,192 nodes,
  quick: 1,024) with :func:`optalloc.machine.parse_topology`, against
  building the same machine with :meth:`Machine.from_tree` from a graph
  made in code (the floor: what is left is reading the text and the
  hostlist expressions). ``agree``: the same distances (``metric_key``)
  and labels.
- One decision of ``slurm:tree`` on that machine with half the nodes busy
  (at random), against ``gen-alg`` on the same machine, for several k.
  ``agree``: both give k distinct free nodes; the case names give their W.
  The same on a fat tree (``fattree:32``, quick: ``fattree:16``), where
  gen-alg reads the fat tree's structure.
"""

from __future__ import annotations

import time

import numpy as np

from optalloc.ksubset import solve
from optalloc.machine import Machine, parse_topology
from optalloc.sim import SlurmTreeAllocator

from .._common import BenchRow, best_time

__all__ = ["rows", "topology_text"]


def topology_text(leaves: int = 256, per_leaf: int = 32, per_middle: int = 16) -> str:
    """A topology.conf of a 3-level tree: ``leaves`` leaf switches of
    ``per_leaf`` nodes ``cn00001 ..``, ``per_middle`` leaves under each
    middle switch, the middle switches under one top switch."""
    lines = [f"SwitchName=leaf{s:04d} Nodes=cn[{s * per_leaf + 1:05d}-{(s + 1) * per_leaf:05d}]"
             for s in range(leaves)]
    middles = -(-leaves // per_middle)
    for g in range(middles):
        last = min(leaves, (g + 1) * per_middle) - 1
        lines.append(f"SwitchName=mid{g:03d} Switches=leaf[{g * per_middle:04d}-{last:04d}]")
    lines.append(f"SwitchName=top Switches=mid[000-{middles - 1:03d}]")
    return "\n".join(lines) + "\n"


def _graph(leaves: int, per_leaf: int, per_middle: int):
    import networkx as nx

    G = nx.Graph()
    hosts = [f"cn{i:05d}" for i in range(1, leaves * per_leaf + 1)]
    G.add_nodes_from(hosts)
    G.add_nodes_from(f"leaf{s:04d}" for s in range(leaves))  # the switches in the file's order
    G.add_nodes_from(f"mid{g:03d}" for g in range(-(-leaves // per_middle)))
    for s in range(leaves):
        G.add_edges_from((f"leaf{s:04d}", h) for h in hosts[s * per_leaf:(s + 1) * per_leaf])
        G.add_edge(f"mid{s // per_middle:03d}", f"leaf{s:04d}")
    for g in range(-(-leaves // per_middle)):
        G.add_edge("top", f"mid{g:03d}")
    return G, hosts


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """The reading and allocation rows (the module's text says what each
    compares). ``quick``: 1,024 nodes and k = 16, 64; otherwise 8,192 nodes
    and k = 16, 64, 256; then the fat tree."""
    leaves, per_leaf, per_middle = (32, 32, 8) if quick else (256, 32, 16)
    text = topology_text(leaves, per_leaf, per_middle)
    inst = f"topology.conf, {leaves * per_leaf} nodes, {leaves} leaf switches"
    if progress:
        progress(f"slurm: reading a {inst}")
    t_read, m = best_time(lambda: parse_topology(text), 3)

    def by_hand():
        G, hosts = _graph(leaves, per_leaf, per_middle)
        return Machine.from_tree(G, hosts, root="top")

    t_base, base = best_time(by_hand, 3)
    out = [BenchRow("parse_topology", inst, t_read, "Machine.from_tree of a graph built in code", t_base,
                    m.metric_key == base.metric_key and m.labels == base.labels)]
    rng = np.random.default_rng(0)
    m.allocate(np.sort(rng.choice(m.n, m.n // 2, replace=False)))
    alloc = SlurmTreeAllocator()
    alloc.select(m, 1)  # compile the kernel and read the tree once
    solve(parse_topology(topology_text(8, 4, 4)), 4, method="gen-alg")  # Gen-Alg's kernels compiled, not timed
    for k in (16, 64) if quick else (16, 64, 256):
        where = f"{m.n} nodes, 50% free (seed 0), k={k}"
        if progress:
            progress(f"slurm: slurm:tree and gen-alg, {where}")
        t_ours, ours = best_time(lambda k=k: alloc.select(m, k), 5)
        t0 = time.perf_counter()
        ref = solve(m, k, method="gen-alg")
        t_ref = time.perf_counter() - t0
        ok = all(len(set(x.tolist())) == k and m.free[x].all() for x in (ours, ref.indices))
        out.append(BenchRow(f"slurm:tree decision (W {m.tree.weight(ours):.0f})", where, t_ours,
                            f"gen-alg (W {ref.objective:.0f})", t_ref, ok))
    return out + _fat_tree_rows(16 if quick else 32, (64,) if quick else (64, 256), progress)


def _fat_tree_rows(k_ary: int, ks, progress) -> list[BenchRow]:
    """slurm:tree on a fat tree (its tree: host, edge switch, pod, core), half
    free, against gen-alg, which reads the fat tree's structure."""
    from optalloc.machine import fat_tree

    m = fat_tree(k_ary)
    m.allocate(np.sort(np.random.default_rng(0).choice(m.n, m.n // 2, replace=False)))
    alloc = SlurmTreeAllocator()
    alloc.select(m, 1)
    solve(fat_tree(4), 4, method="gen-alg")  # compiled, not timed
    out = []
    for k in ks:
        where = f"fattree:{k_ary} ({m.n} hosts), 50% free (seed 0), k={k}"
        if progress:
            progress(f"slurm: slurm:tree and gen-alg, {where}")
        t_ours, ours = best_time(lambda k=k: alloc.select(m, k), 5)
        t_ref, ref = best_time(lambda k=k: solve(m, k, method="gen-alg"), 3)
        ok = all(len(set(x.tolist())) == k and m.free[x].all() for x in (ours, ref.indices))
        out.append(BenchRow(f"slurm:tree decision (W {m.tree.weight(ours):.0f})", where, t_ours,
                            f"gen-alg (W {ref.objective:.0f})", t_ref, ok))
    return out
