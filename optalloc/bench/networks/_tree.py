"""Exact k-subset on trees of switches: the dynamic program against today's route.

- ``fattree:32`` (8,192 hosts) with half the hosts free, k = 16, 256 and
  1,024: ``solve(machine, k, method="exact")`` runs the dynamic program
  over the tree (:func:`~optalloc.ksubset.tree_exact`); today's exact
  solver does not finish there, so the other side is Gen-Alg, its W and
  its time (``agree``: ours is proven optimal, its W read back from the
  tree, and no larger than Gen-Alg's).
- ``fattree:8`` and ``fattree:16`` half free: today's exact solver (the
  cut loop over the free hosts' distance matrix with its search over
  block and class counts, run on ``Machine.from_distances`` of the same
  hosts) within a time limit (``agree``: the same optimum, or ours inside
  its bracket when it stops).
- ``certify`` along the bundled trace (``small.swf``, driver and allocator
  Gen-Alg) on ``fattree:8``, against the same run on the matrix machine
  (today's exact per decision); and on ``fattree:32``, where today every
  state has more than ``EXACT_MAX_FREE`` free nodes and keeps a bracket
  whose lower side is 0 on a network (the row there: the time spent on
  the optima against the rest of the same run, simulation and
  comparisons).
- Gen-Alg, one decision at k = 256 with half the hosts free (seed 0), on
  a three-level tree of 8,192 hosts given as a graph
  (``Machine.from_tree``: 16 x 16 leaf switches of 32 hosts, as a Slurm
  ``topology.conf`` gives it) from the tree, against the matrix path over
  the free hosts (``agree``: the same set and W); ``quick``: 512 hosts, k = 32.
"""

from __future__ import annotations

import time

import numpy as np

from optalloc.ksubset import solve
from optalloc.machine import Machine, parse_machine

from .._common import BenchRow

__all__ = ["rows"]


def _half_free(spec: str, seed: int = 0) -> Machine:
    m = parse_machine(spec)
    rng = np.random.default_rng(seed)
    m.allocate(rng.choice(m.size, m.size // 2, replace=False), owner=1)
    return m


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def _note(progress, text):
    if progress:
        progress(f"tree exact: {text}")


def _large_rows(quick: bool, progress) -> list[BenchRow]:
    m = _half_free("fattree:32")
    solve(m, 2, method="exact")  # compile (or load) the kernel outside the timings
    solve(m, 2, method="gen-alg")
    out = []
    for k in (16, 256) if quick else (16, 256, 1024):
        _note(progress, f"fattree:32, k = {k}")
        ours, t = _timed(lambda k=k: solve(m, k, method="exact"))
        gen, tg = _timed(lambda k=k: solve(m, k, method="gen-alg"))
        agree = (ours.status == "optimal" and ours.bound == ours.objective
                 and m.tree.weight(ours.indices) == ours.objective and ours.objective <= gen.objective)
        out.append(BenchRow(f"exact (tree DP) k={k}: W {ours.objective:.0f} proven",
                            "fattree:32 (8192 hosts), half free", t,
                            f"Gen-Alg: W {gen.objective:.0f} (today's exact does not finish)", tg, agree))
    return out


def _today(m: Machine) -> Machine:
    """The free hosts of ``m`` as today's exact solver sees them: a network of their distance matrix."""
    free = m.free_ids()
    return Machine.from_distances(list(range(len(free))), m.distances(free), edges=[(0, 1)])


def _small_rows(quick: bool, progress) -> list[BenchRow]:
    cases = [("fattree:8", 16), ("fattree:8", 32)] + ([] if quick else [("fattree:16", 16)])
    limit = 10.0 if quick else 60.0
    out = []
    for k in sorted({k for _, k in cases}):  # compile both sides' kernels outside the timings
        solve(_half_free("fattree:8", seed=1), k, method="exact")
        solve(_today(_half_free("fattree:8", seed=1)), k, method="exact", time_limit=limit)
    for spec, k in cases:
        m = _half_free(spec)
        base = _today(m)
        _note(progress, f"{spec}, k = {k}")
        ours, t = _timed(lambda m=m, k=k: solve(m, k, method="exact"))
        ref, tr = _timed(lambda base=base, k=k: solve(base, k, method="exact", time_limit=limit))
        capped = ref.status != "optimal"
        if capped:
            agree = ref.bound <= ours.objective <= ref.objective
        else:
            agree = ref.objective == ours.objective
        out.append(BenchRow(f"exact (tree DP) k={k}: W {ours.objective:.0f}", f"{spec} ({m.size} hosts), half free",
                            t, f"today's exact: W {ref.objective:.0f}, bound {ref.bound:.0f}", tr, agree,
                            baseline_capped=capped))
    return out


def _certify_rows(quick: bool, progress) -> list[BenchRow]:
    from optalloc._instances import instance_path
    from optalloc.sim import Trace, certify, read_swf

    path = instance_path("small.swf")
    out = []
    m = parse_machine("fattree:8")
    trace = read_swf(path, max_procs=m.size)
    head = Trace(trace.jobs[:20], max_procs=trace.max_procs)
    for machine in (m, _today(m)):  # compile the simulation's kernels outside the timings
        certify(head, machine, driver="gen-alg", allocators=["gen-alg"])
    _note(progress, "certify small.swf on fattree:8")
    ours = certify(trace, m, driver="gen-alg", allocators=["gen-alg"])
    _note(progress, "certify small.swf on fattree:8 as a matrix (today's exact)")
    ref = certify(trace, _today(m), driver="gen-alg", allocators=["gen-alg"], time_limit=10.0 if quick else 60.0)
    same = all(a.proven and (not b.proven or (a.lower == b.lower and a.upper == b.upper))
               for a, b in zip(ours.rows, ref.rows))
    out.append(BenchRow(f"certify ({ours.n_proven}/{len(ours)} proven)", f"small.swf, fattree:8, {len(trace)} jobs",
                        ours.runtime, f"today's exact on the matrix ({ref.n_proven}/{len(ref)} proven)", ref.runtime,
                        same and len(ours) == len(ref) and not ours.check()))
    if not quick:
        big = parse_machine("fattree:32")
        trace = read_swf(path, max_procs=big.size)
        _note(progress, "certify small.swf on fattree:32")
        ours = certify(trace, big, driver="gen-alg", allocators=["gen-alg"])
        out.append(BenchRow(f"certify optima ({ours.n_proven}/{len(ours)} proven; today 0, lower bounds 0)",
                            f"small.swf, fattree:32, {len(trace)} jobs", ours.exact_seconds,
                            "the rest of the same run (simulation, comparisons)", ours.runtime - ours.exact_seconds,
                            ours.n_proven == len(ours) and not ours.check()))
    return out


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """The rows of the module notes (``quick``: fewer cases, shorter limits).

    Examples
    --------
    >>> callable(rows)
    True
    """
    return (_large_rows(quick, progress) + _small_rows(quick, progress) + _certify_rows(quick, progress)
            + [_gen_alg_row(quick, progress)])


def _gen_alg_row(quick: bool, progress) -> BenchRow:
    import networkx as nx

    side = 4 if quick else 16
    G, hosts = nx.Graph(), []
    for a in range(side):
        for b in range(side):
            G.add_edge("root", f"m{a}")
            G.add_edge(f"m{a}", f"l{a}.{b}")
            for c in range(32):
                hosts.append(f"h{a}.{b}.{c}")
                G.add_edge(f"l{a}.{b}", hosts[-1])
    m = Machine.from_tree(G, hosts)
    m.allocate(np.sort(np.random.default_rng(0).choice(m.size, m.size // 2, replace=False)))
    k = 32 if quick else 256
    if progress:
        progress(f"tree: Gen-Alg on {m.size:,} hosts of a tree of switches")
    solve(m, 4, method="gen-alg")  # compiled before timing
    t0 = time.perf_counter()
    ours = solve(m, k, method="gen-alg")
    took = time.perf_counter() - t0
    t0 = time.perf_counter()
    theirs = solve(_today(m), k, method="gen-alg")
    base = time.perf_counter() - t0
    free = m.free_ids()
    agree = ours.indices.tolist() == free[theirs.indices].tolist() and ours.objective == theirs.objective
    return BenchRow(f"gen-alg, one decision, k = {k} (from the tree)", f"tree of {m.size:,} hosts, half free", took,
                    "the free hosts' matrix", base, bool(agree))
