"""Exact k-subset on trees of switches: the dynamic program against brute
force over shortest-path distances of the graph, on random trees (hosts at
leaves and inside, random lengths, random free sets, every k) and on small
fat trees."""

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.ksubset import solve, tree_exact
from optalloc.ksubset.special import tree_subset
from optalloc.machine import Machine, fat_tree


def _brute(D, free, k):
    """The least W of k of ``free`` by enumeration, and every optimal set."""
    best, sets = np.inf, []
    for S in itertools.combinations(free, k):
        w = D[np.ix_(S, S)].sum() / 2
        if w < best - 1e-9:
            best, sets = w, [S]
        elif abs(w - best) <= 1e-9:
            sets.append(S)
    return best, sets


def _random_tree_machine(seed):
    rng = np.random.default_rng(seed)
    V = int(rng.integers(2, 15))
    G = nx.random_labeled_tree(V, seed=seed)
    integer = seed % 2 == 0
    for u, v in G.edges:
        G[u][v]["w"] = float(rng.integers(1, 6)) if integer else float(rng.uniform(0.1, 3.0))
    leaves = [v for v in G if G.degree(v) <= 1]
    inner = [v for v in G if G.degree(v) > 1]
    hosts = list(leaves if rng.random() < 0.5 else leaves + list(rng.choice(inner, rng.integers(0, len(inner) + 1),
                                                                            replace=False)) if inner else leaves)
    hosts = [int(h) for h in rng.permutation(hosts)][:11]
    root = int(rng.choice(list(G))) if rng.random() < 0.5 else None
    m = Machine.from_tree(G, hosts, weight="w", root=root)
    D = dict(nx.all_pairs_dijkstra_path_length(G, weight="w"))
    Dh = np.array([[D[a][b] for b in hosts] for a in hosts])
    busy = np.flatnonzero(rng.random(m.size) < rng.uniform(0, 0.6))
    if len(busy) < m.size and len(busy):
        m.allocate(busy, owner=1)
    return m, Dh


@pytest.mark.parametrize("block", range(10))
def test_equals_brute_force_on_random_trees(block):
    """300 random trees, every k: the optimum, an optimal set, W read back."""
    for seed in range(30 * block, 30 * block + 30):
        m, D = _random_tree_machine(seed)
        free = m.free_ids().tolist()
        for k in range(1, len(free) + 1):
            best, sets = _brute(D, free, k)
            r = solve(m, k, method="exact")
            assert r.status == "optimal" and r.bound == r.objective
            assert r.objective == pytest.approx(best, rel=1e-9, abs=1e-9), (seed, k)
            S = r.indices.tolist()
            assert len(set(S)) == k and set(S) <= set(free)
            assert D[np.ix_(S, S)].sum() / 2 == pytest.approx(r.objective, rel=1e-9, abs=1e-9)
            assert m.tree.weight(S) == pytest.approx(r.objective, rel=1e-12, abs=1e-12)
            if seed % 2 == 0:  # integer lengths: the set is one of the optimal ones exactly
                assert tuple(S) in sets


@pytest.mark.parametrize("kary, seeds", [(4, range(40)), (6, range(15))])
def test_equals_brute_force_on_fat_trees(kary, seeds):
    for seed in seeds:
        rng = np.random.default_rng(seed)
        m = fat_tree(kary)
        D = m.distances()
        nfree = int(rng.integers(1, min(m.size, 14) + 1))
        free = np.sort(rng.choice(m.size, nfree, replace=False))
        busy = np.setdiff1d(np.arange(m.size), free)
        if len(busy):
            m.allocate(busy, owner=1)
        for k in range(1, nfree + 1):
            best, sets = _brute(D, free.tolist(), k)
            r = solve(m, k, method="exact")
            assert r.objective == best and r.status == "optimal"
            assert tuple(r.indices.tolist()) in sets
            assert m.tree.weight(r.indices) == r.objective


def test_idle_fat_tree_against_the_brute_method():
    m = fat_tree(4)
    for k in range(1, 17):
        assert tree_exact(m, k).objective == solve(m, k, method="brute").objective


@pytest.mark.slow
def test_fat_tree_6_half_free_against_the_cut_loop():
    """fat_tree(6) with 27 of 54 hosts free: the general exact solver agrees."""
    rng = np.random.default_rng(5)
    m = fat_tree(6)
    m.allocate(rng.choice(m.size, 27, replace=False), owner=1)
    for k in (3, 5, 8, 13):
        ours = solve(m, k, method="exact")
        ref = solve(m, k, method="exact", formulation="pairwise")
        assert ref.status == "optimal" and ours.objective == ref.objective


def test_leaves_fill_by_lowest_id():
    """Equal links: an edge switch's lowest free ids; ties between switches to the first."""
    m = fat_tree(4)
    m.allocate([0, 5], owner=1)
    assert tree_exact(m, 1).indices.tolist() == [1]
    assert tree_exact(m, 3).indices.tolist() == [1, 2, 3]
    assert tree_exact(m, 4).indices.tolist() == [8, 9, 10, 11]


@st.composite
def _trees(draw):
    V = draw(st.integers(2, 10))
    parent = [-1] + [draw(st.integers(0, v - 1)) for v in range(1, V)]
    length = [0.0] + [float(draw(st.integers(1, 4))) for _ in range(1, V)]
    hosts = draw(st.lists(st.integers(0, V - 1), min_size=1, max_size=V, unique=True))
    free = draw(st.lists(st.sampled_from(hosts), min_size=1, unique=True))
    return parent, length, hosts, free


@settings(max_examples=150, deadline=None)
@given(_trees())
def test_any_tree_any_hosts(case):
    parent, length, hosts, free = case
    G = nx.Graph()
    G.add_nodes_from(range(len(parent)))
    G.add_weighted_edges_from([(v, p, w) for v, (p, w) in enumerate(zip(parent, length)) if p >= 0])
    m = Machine.from_tree(G, hosts, weight="weight")
    D = m.distances()
    ids = [hosts.index(h) for h in free]
    for k in range(1, len(ids) + 1):
        _, w = tree_subset(m.tree, ids, k)
        assert w == _brute(D, sorted(ids), k)[0]


def test_solve_takes_the_exact_options():
    m = fat_tree(4)
    r = solve(m, 5, method="exact", time_limit=1.0)
    assert r.status == "optimal" and r.extra.get("tree") is True


@pytest.mark.parametrize("k", [0, 17, -1, 2.5, "3"])
def test_bad_k_is_one_line(k):
    m = fat_tree(4)
    for call in (lambda: tree_exact(m, k), lambda: solve(m, k, method="exact")):
        with pytest.raises(ValueError) as err:
            call()
        assert "\n" not in str(err.value)


def test_not_a_tree_and_bad_hosts():
    with pytest.raises(ValueError, match="not a tree"):
        tree_exact(Machine((4, 4)), 2)
    m = fat_tree(4)
    with pytest.raises(ValueError, match="free hosts"):
        tree_subset(m.tree, [0, 99], 1)
    with pytest.raises(ValueError, match="between 1 and"):
        tree_subset(m.tree, [0, 1], 3)


@pytest.mark.parametrize("seed", range(20))
def test_a_network_whose_links_form_a_tree(seed):
    rng = np.random.default_rng(seed)
    G = nx.star_graph(7) if seed == 0 else nx.path_graph(9) if seed == 1 else nx.random_labeled_tree(10, seed=seed)
    for u, v in G.edges:
        G[u][v]["w"] = float(rng.integers(1, 4))
    m = Machine.from_graph(G, weight="w")
    busy = rng.choice(m.size, int(rng.integers(0, 5)), replace=False)
    if len(busy):
        m.allocate(busy, owner=1)
    D, free = m.distances(), m.free_ids().tolist()
    for k in range(1, len(free) + 1):
        r = solve(m, k, method="exact")
        assert r.extra.get("tree") is True and r.status == "optimal"
        assert r.objective == _brute(D, free, k)[0]
        assert set(r.indices.tolist()) <= set(free)


def test_networks_that_are_not_trees_keep_the_general_solver():
    from optalloc.ksubset.special import network_tree

    assert network_tree(Machine.from_graph(nx.cycle_graph(6))) is None
    # the links of a path, but distances that are not the path's
    D = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=float)
    m = Machine.from_distances(["a", "b", "c"], D, edges=[(0, 1), (1, 2)])
    assert network_tree(m) is None
    r = solve(m, 2, method="exact")
    assert "tree" not in r.extra and r.objective == 1.0


@pytest.mark.slow
def test_benchmark_rows_agree():
    from optalloc.bench.networks._tree import rows

    out = rows(quick=True)
    assert len(out) == 5 and all(r.agree for r in out)
