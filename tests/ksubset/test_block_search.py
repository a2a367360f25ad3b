"""The search over block and class counts, against brute force.

Twin classes and blocks are checked on the machines they are meant for
(a dragonfly's routers and groups, a fat tree's edge switches and pods);
the search is checked on random machines of every kind that has twins or
blocks (dragonflies of every arrangement, fat trees, several processors
per node, random router graphs with hosts) with random busy nodes: asked
for a set below the optimum + 1 it finds one of the optimum's W, asked for
a set below the optimum it proves there is none (its lower bound is the
optimum, never above it).  The blocks decide only the speed, so the tests
also take structures the solver itself would skip as too fine.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ksubset_truth import connected_gnp, matrix_optimum

from optalloc.ksubset import solve
from optalloc.ksubset.search._blocksearch import block_search, block_structure, twin_classes
from optalloc.machine import Machine, dragonfly, fat_tree, processors_per_node


def _hosts(rng):
    """A random connected router graph with 1-3 hosts on every router."""
    r = int(rng.integers(3, 7))
    G = connected_gnp(rng, r, (0.3, 0.8))
    G = nx.relabel_nodes(G, {v: ("r", v) for v in G.nodes})
    hosts = []
    for v in range(r):
        for h in range(int(rng.integers(1, 4))):
            hosts.append((v, h))
            G.add_edge((v, h), ("r", v))
    D = nx.floyd_warshall_numpy(G, nodelist=list(G.nodes))
    idx = [list(G.nodes).index(h) for h in hosts]
    return Machine.from_distances(hosts, D[np.ix_(idx, idx)])


def _machine(rng):
    kind = int(rng.integers(6))
    if kind == 0:
        return dragonfly(5, 2, 2, 2, arrangement=["absolute", "relative", "circulant"][int(rng.integers(3))])
    if kind == 1:
        # groups - 1 divides routers * global links: (3, 2, 1), (4, 3, 1), (5, 2, 2), (5, 4, 1)
        g, r, h = [(3, 2, 1), (4, 3, 1), (5, 2, 2), (5, 4, 1)][int(rng.integers(4))]
        return dragonfly(g, r, int(rng.integers(1, 3)), h)
    if kind == 2:
        return fat_tree(4)
    if kind == 3:
        base = Machine((int(rng.integers(2, 4)), int(rng.integers(2, 4))), torus=bool(rng.integers(2)))
        return processors_per_node(base, rng.integers(1, 4, size=base.n))
    if kind == 4:
        return dragonfly()
    return _hosts(rng)


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_block_search_finds_and_proves_the_brute_force_optimum(seed):
    rng = np.random.default_rng(seed)
    D = np.asarray(_machine(rng).distances())
    n = len(D)
    free = np.sort(rng.choice(n, size=int(rng.integers(min(n, 5), min(n, 15) + 1)), replace=False))
    Df = D[np.ix_(free, free)]
    k = int(rng.integers(2, len(free)))
    s = block_structure(Df, per_block=0)
    if s is None:  # a single block: nothing to search over
        return
    opt = matrix_optimum(Df, k)
    value, rows, lower = block_search(s, k, opt + 1)
    assert lower == value == pytest.approx(opt, abs=1e-9)
    assert len(rows) == k == len(set(rows.tolist()))
    assert Df[np.ix_(rows, rows)].sum() / 2 == pytest.approx(opt, abs=1e-9)
    # nothing lighter than the optimum: the search says so, and its bound is the optimum
    value, rows, lower = block_search(s, k, opt)
    assert value is None and rows is None and lower == opt


def test_twins_and_blocks_of_a_dragonfly_and_a_fat_tree():
    m = dragonfly()  # 9 groups of 4 routers of 2 nodes
    s = block_structure(np.asarray(m.distances()))
    assert len(s.members) == 36 and s.blocks == 9
    for r, rows in enumerate(s.members):
        assert len({m.labels[i][:2] for i in rows}) == 1  # one router
    for g in range(s.blocks):
        groups = {m.labels[s.members[r][0]][0] for r in np.flatnonzero(s.block == g)}
        assert len(groups) == 1 and (s.block == g).sum() == 4  # one whole group
    m = fat_tree(4)  # 4 pods of 2 edge switches of 2 hosts
    s = block_structure(np.asarray(m.distances()))
    assert [len(x) for x in s.members] == [2] * 8 and s.blocks == 4


def test_twin_classes_need_equal_rows_at_the_nearest_distance():
    D = np.array([[0, 1, 3, 3], [1, 0, 3, 3], [3, 3, 0, 2], [3, 3, 2, 0]], dtype=float)
    assert twin_classes(D).tolist() == [0, 0, 1, 1]
    D[0, 2] = D[2, 0] = 4  # 0 and 1 no longer see 2 alike; 2 and 3 no longer twins
    cls = twin_classes(D)
    assert len(set(cls.tolist())) == 4


def test_no_blocks_on_a_mesh_or_a_random_graph():
    assert block_structure(np.asarray(Machine((6, 6)).distances())) is None
    G = nx.connected_watts_strogatz_graph(30, 4, 0.3, seed=3)
    assert block_structure(np.asarray(Machine.from_graph(G).distances())) is None


def test_no_search_over_too_many_blocks():
    # 140 routers in a ring, 3 hosts each: the routers pair up into 70 blocks
    G = nx.cycle_graph(140)
    G = nx.relabel_nodes(G, {v: ("r", v) for v in G})
    hosts = [(v, h) for v in range(140) for h in range(3)]
    G.add_edges_from(((v, h), ("r", v)) for v, h in hosts)
    m = Machine.from_graph(G)
    D = np.asarray(m.distances())
    rows = [m.labels.index(h) for h in hosts]
    assert block_structure(D[np.ix_(rows, rows)]) is None


def test_exact_on_the_dragonfly_is_proven_by_the_block_search():
    m = dragonfly()
    rng = np.random.default_rng(4)
    m.allocate(np.sort(rng.choice(m.n, 20, replace=False)))
    r = solve(m, 12, method="exact", counts=False, time_limit=60)  # not the dragonfly's own count search
    assert r.status == "optimal" and r.extra["phase"] == "blocks"
    assert r.objective == pytest.approx(sum(m.distance(a, b) for a, b in itertools.combinations(r.indices, 2)))
    assert set(r.indices.tolist()) <= set(m.free_ids().tolist())
    # the cut loop alone agrees
    ref = solve(m, 12, method="exact", profiles=False, time_limit=120)
    assert ref.bound <= r.objective + 1e-9 <= ref.objective + 1e-9


def test_idle_dragonfly_k16_optimum():
    # the optimum 424 is also the value the level-1 LP with triangles
    # could not close (it stalls at 411): the search proves it
    r = solve(dragonfly(), 16, method="exact")
    assert r.status == "optimal" and r.objective == 424 and r.bound == 424


def test_block_search_stops_at_its_time_limit_without_a_bound():
    s = block_structure(np.asarray(dragonfly().distances()))
    value, rows, lower = block_search(s, 32, math.inf, node_limit=50)
    assert lower is None
    if rows is not None:
        assert len(rows) == 32
