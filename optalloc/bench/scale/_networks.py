"""Networks at scale: building a dragonfly or fat tree, and one allocation
decision on it, against the straightforward forms kept here as oracles.

Today's construction (:func:`today_machine`) builds the NetworkX graph of
compute nodes and switches, runs shortest paths among the switches that
hold compute nodes and keeps the dense matrix of the compute nodes
(``Machine.from_distances``, every pair a link). Today's Gen-Alg on a
network (:func:`today_gen_alg`) reads the matrix of the free nodes: around
every free node its k nearest (a stable sort, ties by node id), the first
set of least W. Today's check that a machine is a dragonfly
(:func:`today_layout`) compares each group's block of distances with the
pattern of one group.
"""

from __future__ import annotations

import time

import numpy as np

from optalloc.machine import Machine, dragonfly, dragonfly_graph, fat_tree, fat_tree_graph

from .._common import BenchRow

__all__ = ["rows", "today_dragonfly", "today_fat_tree", "today_gen_alg", "today_layout", "today_machine"]


def today_machine(G, hosts) -> Machine:
    """The machine of the compute nodes ``hosts`` of G as today builds it:
    shortest paths over the switches, host links counted, a dense matrix."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    host_set = set(hosts)
    switches = [v for v in G if v not in host_set]
    at = {s: i for i, s in enumerate(switches)}
    home = np.array([at[next(iter(G[h]))] for h in hosts], dtype=np.int64)
    pairs = np.array([(at[u], at[v]) for u, v in G.edges if u in at and v in at], dtype=np.int64).reshape(-1, 2)
    A = csr_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(switches),) * 2)
    used, row = np.unique(home, return_inverse=True)
    S = shortest_path(A, method="D", directed=False, unweighted=True, indices=used)[:, used]
    D = S[np.ix_(row, row)] + 2.0
    np.fill_diagonal(D, 0.0)
    return Machine.from_distances(hosts, D)


def today_dragonfly(*params) -> Machine:
    """:func:`~optalloc.machine.dragonfly` as today builds it."""
    return today_machine(*dragonfly_graph(*params))


def today_fat_tree(k) -> Machine:
    """:func:`~optalloc.machine.fat_tree` as today builds it."""
    return today_machine(*fat_tree_graph(k))


def today_gen_alg(machine, k: int) -> tuple[np.ndarray, float, int]:
    """Gen-Alg over the matrix of the free nodes: (node ids, W, centre id)."""
    ids = np.asarray(machine.free_ids())
    D = np.asarray(machine.distances(ids), dtype=float)
    near = np.argsort(D, axis=1, kind="stable")[:, :k]
    iu, ju = np.triu_indices(k, 1)
    step = max(1, (1 << 20) // max(1, len(iu)))
    ws = np.concatenate([D[near[lo:lo + step][:, iu], near[lo:lo + step][:, ju]].sum(axis=1)
                         for lo in range(0, len(near), step)]) if k > 1 else np.zeros(len(ids))
    c = int(np.argmin(ws))
    return np.sort(ids[near[c]]), float(ws[c]), int(ids[c])


def today_layout(machine) -> tuple | None:
    """(groups, routers, nodes) of a dragonfly by today's test: labels
    numbered group-major, each group's block of distances 2 within a router
    and 3 across routers."""
    lab = np.array(machine.labels, dtype=np.int64)
    g_n, a, p = (int(v) + 1 for v in lab.max(axis=0))
    size = a * p
    local = np.arange(size) // p
    want = np.where(local[:, None] == local[None, :], 2.0, 3.0)
    np.fill_diagonal(want, 0.0)
    for g in range(g_n):
        if not np.array_equal(machine.distances(np.arange(g * size, (g + 1) * size)), want):
            return None
    return g_n, a, p


def _half_free(machine, seed: int = 0):
    m = machine.copy_empty()
    m.allocate(np.sort(np.random.default_rng(seed).choice(m.n, m.n // 2, replace=False)))
    return m


def _timed(fn, repeat: int = 1):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _build_rows(quick: bool, progress) -> list[BenchRow]:
    import networkx  # noqa: F401 (imported before the clocks start)
    import scipy.sparse.csgraph  # noqa: F401

    out = []
    cases = [("dragonfly:9,4,2,2", lambda: dragonfly(9, 4, 2, 2), lambda: today_dragonfly(9, 4, 2, 2)),
             ("fattree:8", lambda: fat_tree(8), lambda: today_fat_tree(8))]
    if not quick:
        cases += [("dragonfly:33,8,4,4", lambda: dragonfly(33, 8, 4, 4), lambda: today_dragonfly(33, 8, 4, 4)),
                  ("fattree:16", lambda: fat_tree(16), lambda: today_fat_tree(16))]
    for name, ours, base in cases:
        if progress:
            progress(f"networks: build {name}")
        t, m = _timed(ours, 3)
        tb, b = _timed(base)
        agree = m.labels == b.labels and np.array_equal(m.distances(), b.distances())
        out.append(BenchRow("build network", f"{name} ({m.n} nodes)", t, "NetworkX graph, dense matrix", tb, agree))
    big = [("dragonfly:65,32,4,2", lambda: dragonfly(65, 32, 4, 2), lambda: dragonfly_graph(65, 32, 4, 2)),
           ("fattree:32", lambda: fat_tree(32), lambda: fat_tree_graph(32))]
    for name, ours, graph in big[:1] if quick else big:
        if progress:
            progress(f"networks: build {name}")
        t, m = _timed(ours, 3)
        # today's construction refuses more than 4,096 nodes: its first step alone, a lower bound
        tb, (G, hosts) = _timed(graph)
        i, j = np.random.default_rng(0).integers(0, m.n, (2, 2000))
        agree = m.labels == tuple(hosts) and _spot_check(G, hosts, m, i, j)
        out.append(BenchRow("build network", f"{name} ({m.n} nodes)", t, "NetworkX graph alone (today's first "
                            "step; refused above 4,096 nodes)", tb, agree, True))
    return out


def _spot_check(G, hosts, m, i, j) -> bool:
    """The machine's distances of the pairs (i, j) against NetworkX's
    shortest paths from the first 20 sources."""
    import networkx as nx

    ok = True
    for s in np.unique(i)[:20].tolist():
        lengths = nx.single_source_shortest_path_length(G, hosts[s])
        t = j[i == s]
        ok &= bool(np.array_equal(m.pair_distances(s, t), [lengths[hosts[v]] for v in t.tolist()]))
    return ok


def _decision_rows(quick: bool, progress) -> list[BenchRow]:
    from optalloc.ksubset import solve
    from optalloc.sim import parse_allocator

    big = [("dragonfly:65,32,4,2", dragonfly(65, 32, 4, 2)), ("fattree:32", fat_tree(32))]
    if quick:
        big = [("dragonfly:33,8,4,4", dragonfly(33, 8, 4, 4)), ("fattree:16", fat_tree(16))]
    out = []
    for name, machine in big:
        m = _half_free(machine)
        k = 256
        inst = f"{name} ({m.n} nodes), half free, k={k}"
        if progress:
            progress(f"networks: Gen-Alg {inst}")
        solve(m, k, method="gen-alg")  # compile
        t, r = _timed(lambda: solve(m, k, method="gen-alg"), 5)
        tb, (nodes, w, _) = _timed(lambda: today_gen_alg(m, k))
        out.append(BenchRow("Gen-Alg, one decision", inst, t, "Gen-Alg over the free nodes' matrix", tb,
                            bool(np.array_equal(r.indices, nodes) and r.objective == w)))
        if machine.hierarchy.kind != "dragonfly":
            continue
        layout = today_layout(m)
        for spec in ("dfly:hybrid", "dfly:slurm"):
            if progress:
                progress(f"networks: {spec} {inst}")
            t, ours = _timed(lambda: parse_allocator(spec).select(m, k), 5)  # a fresh allocator: layout included

            def base(spec=spec):
                found = today_layout(m)
                return parse_allocator(spec).choose(np.asarray(m.free).reshape(found), k)

            tb, theirs = _timed(base)
            ok = layout is not None and np.array_equal(np.sort(np.asarray(ours)), np.sort(np.asarray(theirs)))
            out.append(BenchRow(f"{spec}, one decision", inst, t, "today's layout check by group blocks", tb,
                                bool(ok)))
    return out


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """Build times of the reference networks (ours against today's
    construction where it runs: up to 4,096 nodes), and one decision at
    half free, k = 256: Gen-Alg on ``dragonfly:65,32,4,2`` and
    ``fattree:32`` against Gen-Alg over the free nodes' matrix, and
    ``dfly:hybrid``, ``dfly:slurm`` (``agree``: the same set).  ``quick``:
    the small networks only."""
    return _build_rows(quick, progress) + _decision_rows(quick, progress)
