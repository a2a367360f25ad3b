"""The ordering integer program against brute force over all permutations."""

import itertools

import networkx as nx
import numpy as np
import pytest

from optalloc.curves import order_ip, order_objective, rank_weights
from optalloc.models import build_ordering


def hops(G):
    G = nx.convert_node_labels_to_integers(G)
    return nx.floyd_warshall_numpy(G, nodelist=range(len(G)))


def brute(D, *, ring=False, weights=None, near_only=False):
    """Optimum over all orders (with `near_only`, over orders with D[v_i, v_j] <= j - i)."""
    n = len(D)
    best = np.inf
    for p in itertools.permutations(range(n)):
        if near_only and any(D[p[i], p[j]] > j - i for i, j in itertools.combinations(range(n), 2)):
            continue
        best = min(best, order_objective(D, p, ring=ring, weights=weights))
    return best


def random_tree(n, seed):
    rng = np.random.default_rng(seed)
    G = nx.Graph()
    G.add_node(0)
    for v in range(1, n):
        G.add_edge(v, int(rng.integers(v)))
    return G


SMALL = {
    "path5": nx.path_graph(5),
    "cycle6": nx.cycle_graph(6),
    "mesh2x3": nx.grid_2d_graph(2, 3),
    "tree6": random_tree(6, 7),
    "star5": nx.star_graph(4),
}

LARGER = {
    "mesh2x4": nx.grid_2d_graph(2, 4),
    "cycle7": nx.cycle_graph(7),
    "tree7": random_tree(7, 1),
    "path8": nx.path_graph(8),
    "mesh3x3": nx.grid_2d_graph(3, 3),
}


def check(D, ring, distance_constraint):
    n = len(D)
    r = order_ip(D, ring=ring, distance_constraint=distance_constraint)
    want = brute(D, ring=ring, near_only=distance_constraint)
    if not np.isfinite(want):
        assert r.status == "infeasible" and r.termination == "infeasible" and len(r.order) == 0
        return
    assert r.status == "optimal" and r.termination == "optimal" and r.method == "ip" and r.guarantee == 1.0
    assert sorted(r.order.tolist()) == list(range(n))
    assert r.objective == pytest.approx(order_objective(D, r.order, ring=ring))
    assert r.objective == pytest.approx(want)
    assert r.bound is not None and r.bound <= r.objective + 1e-9 and r.bound == pytest.approx(want, abs=1e-5)
    assert r.gap == pytest.approx(0, abs=1e-6)
    c = rank_weights(n, ring=ring)
    assert r.average == pytest.approx(r.objective / np.dot(c, n - np.arange(n)))
    assert r.labels is None and r.runtime >= 0
    if distance_constraint:
        # graphs with a Hamiltonian path: the constraint did not change the optimum
        assert r.objective == pytest.approx(brute(D, ring=ring))


@pytest.mark.parametrize("distance_constraint", [False, True])
@pytest.mark.parametrize("ring", [False, True])
@pytest.mark.parametrize("name", SMALL)
def test_ip_equals_brute_force(name, ring, distance_constraint):
    check(hops(SMALL[name]), ring, distance_constraint)


@pytest.mark.slow
@pytest.mark.parametrize("distance_constraint", [False, True])
@pytest.mark.parametrize("ring", [False, True])
@pytest.mark.parametrize("name", LARGER)
def test_ip_equals_brute_force_larger(name, ring, distance_constraint):
    check(hops(LARGER[name]), ring, distance_constraint)


def test_distance_constraint_makes_trees_infeasible():
    r = order_ip(hops(nx.star_graph(3)), distance_constraint=True)
    assert r.status == "infeasible" and r.termination == "infeasible"
    assert r.guarantee is None and len(r.order) == 0 and r.gap is None


def test_hamiltonian_path_weights():
    # SAND2003 sec. 4.2: with w(1) = 1 and w(k) = 0 beyond, the optimum is
    # N - 1 exactly when the graph has a Hamiltonian path
    def w(k):
        return 1.0 if k == 1 else 0.0

    assert order_ip(hops(nx.grid_2d_graph(2, 3)), weights=w).objective == 5.0
    assert order_ip(hops(nx.star_graph(4)), weights=w).objective > 4.0


def test_weights_array_and_scrambled_labels():
    rng = np.random.default_rng(5)
    G = nx.relabel_nodes(nx.cycle_graph(6), dict(enumerate(rng.permutation(6))))
    D = hops(G)
    table = [0.0, 1.0, 0.25, 0.1, 0.05, 0.01]
    r = order_ip(D, weights=table)
    assert r.objective == pytest.approx(brute(D, weights=table))


def test_trivial_sizes():
    r = order_ip(np.zeros((1, 1)))
    assert r.status == "optimal" and r.objective == 0.0 and r.order.tolist() == [0]
    r = order_ip([[0, 3], [3, 0]])
    assert r.objective == 3.0 and r.average == 3.0


def test_time_limit_gives_a_valid_order():
    D = hops(nx.grid_2d_graph(3, 3))
    r = order_ip(D, time_limit=1.0)
    assert r.termination in ("optimal", "time_limit")
    assert r.status == ("optimal" if r.termination == "optimal" else "feasible")
    assert sorted(r.order.tolist()) == list(range(9))
    assert r.objective == pytest.approx(order_objective(D, r.order))
    if r.bound is not None:
        assert r.bound <= r.objective + 1e-9


def test_builder_sizes():
    D = hops(nx.path_graph(5))
    m = build_ordering(D, ring=True)
    assert len(m.x) == 25 and len(m.z) == 10 * 20
    assert len(m.w) == 2 and m.w[1] == 1.0 and m.w[2] == 0.5
    assert not hasattr(m, "near")
    m = build_ordering(D, distance_constraint=True, break_symmetry=True)
    assert len(m.near) > 0 and len(m.symmetry) == 1


@pytest.mark.parametrize("ring", [False, True])
@pytest.mark.parametrize("weights", [None, [0.0, 1.0, 0.25, 0.1, 0.05], lambda d: 1.0 / d])
def test_builder_weights_are_the_rank_weights(weights, ring):
    # the model checks its weights itself (optalloc.models does not import the curves)
    n = 5
    m = build_ordering(hops(nx.path_graph(n)), weights, ring=ring)
    c = rank_weights(n, weights, ring=ring)
    for k in range(1, n):
        assert m.w[min(k, n - k) if ring else k] == c[k]


def test_bad_inputs():
    with pytest.raises(ValueError, match="at most 12 without a `time_limit`"):
        order_ip(np.zeros((13, 13)))
    with pytest.raises(ValueError, match="`time_limit` must be positive"):
        order_ip(np.zeros((3, 3)), time_limit=0)
    with pytest.raises(ValueError, match="square"):
        order_ip(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="square"):
        build_ordering(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="finite"):
        build_ordering(np.zeros((3, 3)), [0.0, np.inf, 1.0])
