"""The result fields of every optalloc.qap function mean the same thing, and
the public names other packages use (local_search, brute) behave as the
private helpers they replace."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from qap_cases import random_instance

from optalloc import MappingResult
from optalloc._clock import Stopwatch
from optalloc.machine import Machine
from optalloc.qap import (
    brute,
    exact,
    faq,
    grasp,
    local_search,
    map_tasks,
    objective,
    solve,
    stencil,
    tabu,
)
from optalloc.qap._exact import _enumerate
from optalloc.qap._search import descent

# ------------------------------------------------------------ local_search


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("symmetric", [True, False])
def test_local_search_is_the_descent(seed, symmetric):
    A, B = random_instance(11, seed, symmetric=symmetric, diagonal=not symmetric)
    start = np.random.default_rng(seed).permutation(11)
    kept = start.copy()
    res = local_search(A, B, start)
    p, value, moves = descent(A, B, start.copy())
    assert np.array_equal(start, kept)  # the start is not modified
    assert isinstance(res, MappingResult)
    assert np.array_equal(res.permutation, p) and res.objective == value == objective(A, B, p)
    assert res.extra["moves"] == moves
    assert res.termination == "completed" and res.status == "feasible" and res.bound is None
    assert res.method == "local_search" and res.guarantee is None and res.runtime >= 0
    # a local optimum: no swap improves
    for r, s in itertools.combinations(range(11), 2):
        q = res.permutation.copy()
        q[r], q[s] = q[s], q[r]
        assert objective(A, B, q) >= res.objective - 1e-9


def test_local_search_limits():
    A, B = random_instance(30, 1, symmetric=True, diagonal=False)
    start = np.arange(30)
    one = local_search(A, B, start, max_moves=1)
    assert one.extra["moves"] == 1 and one.termination == "iteration_limit"
    assert one.objective < objective(A, B, start)
    full = local_search(A, B, start, time_limit=60)
    assert full.termination == "completed" and full.extra["moves"] > 1
    k = full.extra["moves"]
    exactly = local_search(A, B, start, max_moves=k)  # the last move allowed ends in the local optimum
    assert exactly.termination == "completed" and np.array_equal(exactly.permutation, full.permutation)
    assert local_search(A, B, start, max_moves=k - 1).termination == "iteration_limit"
    with pytest.raises(ValueError, match="`start`"):
        local_search(A, B, [0, 0] + list(range(2, 30)))
    with pytest.raises(ValueError, match="`start`"):
        local_search(A, B, None)
    with pytest.raises(ValueError, match="`max_moves`"):
        local_search(A, B, start, max_moves=0)
    with pytest.raises(ValueError, match="`time_limit`"):
        local_search(A, B, start, time_limit=0)


# ------------------------------------------------------------ brute as the enumerator


@pytest.mark.parametrize("n, seed", [(1, 0), (3, 1), (5, 2), (7, 3), (8, 4)])
def test_brute_returns_the_enumeration(n, seed):
    A, B = random_instance(n, seed)
    p, value = _enumerate(A, B)
    res = brute(A, B)
    assert np.array_equal(res.permutation, p) and res.objective == value
    assert res.status == res.termination == "optimal" and res.guarantee == 1.0


def test_brute_on_rank_flows_and_float_distances():
    """As an ordering uses it: flow c(|i - j|) between ranks, node distances."""
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3))
    for u, v in G.edges:
        G.edges[u, v]["w"] = 0.1 + (u * v % 7) / 7  # lengths with rounding
    D = Machine.from_graph(G, weight="w").distances()
    c = 1.0 / np.arange(1, 10)
    F = c[np.abs(np.subtract.outer(np.arange(9), np.arange(9)))]
    p, value = _enumerate(F, D)
    res = brute(F, D, limit=9)
    assert np.array_equal(res.permutation, p)
    assert res.objective == pytest.approx(value, rel=1e-12)


def test_stopwatch_is_shared():
    from optalloc.qap._common import Stopwatch as QapStopwatch

    assert QapStopwatch is Stopwatch
    clock = Stopwatch(None)
    assert not clock.expired() and clock.remaining() is None and clock.elapsed() >= 0


# ------------------------------------------------------------ status and termination


def test_heuristics_meeting_the_bound_are_optimal():
    res = map_tasks(stencil((4, 4)), "torus:4x4", method="tabu", iterations=2000, rng=0)
    assert res.objective == 128.0 and res.bound == 128.0
    assert res.status == res.termination == "optimal" and res.guarantee is None


def test_solve_keeps_why_the_heuristic_stopped():
    A, B = random_instance(40, 2, symmetric=True, diagonal=False)
    res = solve(A, B, method="grasp", iterations=10**6, time_limit=0.3, rng=0)
    assert res.status == "feasible" and res.termination == "time_limit" and res.runtime < 10
    assert res.bound is not None and res.gap > 0
    res = solve(A, B, method="grasp", iterations=2, rng=0)
    assert res.termination == "completed"
    direct = grasp(A, B, iterations=10**6, time_limit=0.3, rng=0)
    assert direct.termination == "time_limit" and direct.bound is None and direct.gap is None
    assert tabu(A, B, iterations=100, rng=0).termination == "completed"
    assert faq(A, B, rng=0).termination == "completed"


def test_exact_methods_through_map_tasks_carry_the_guarantee():
    W = stencil((2, 3), periodic=False)
    for method in ("exact", "brute"):
        res = map_tasks(W, "mesh:3x2", method=method, criterion="classic")
        assert res.status == res.termination == "optimal" and res.guarantee == 1.0
    assert exact(W, np.ones((6, 6)) - np.eye(6)).guarantee == 1.0
    assert map_tasks(W, "mesh:3x2", method="random", rng=0).guarantee is None


def test_results_have_no_subset_fields():
    res = map_tasks(stencil((2, 2)), "torus:2x2", rng=0)
    for name in ("indices", "points", "wall_time"):
        assert not hasattr(res, name)
    assert set(res.to_dict()) >= {"permutation", "objective", "bound", "status", "termination", "runtime", "gap"}


# ------------------------------------------------------------ machines


def test_map_tasks_takes_machines_and_specs():
    W = stencil((4, 4))
    m = Machine((4, 4), torus=True)
    a = map_tasks(W, m, rng=0, iterations=500)
    b = map_tasks(W, "torus:4x4", rng=0, iterations=500)
    c = map_tasks(W, "4x4 torus", rng=0, iterations=500)
    assert np.array_equal(a.permutation, b.permutation) and np.array_equal(a.permutation, c.permutation)
    assert a.objective == b.objective == 128.0


def test_map_tasks_on_mixed_wrap():
    # a ring of 4 on a 4x2 machine wrapping on x only: the x ring holds it at one hop per message
    res = map_tasks(stencil((4,)), "4x2 torus(tm)", criterion="classic", rng=0)
    assert res.objective == 8.0 and res.status == "optimal"
    on_mesh = map_tasks(stencil((4,)), "mesh:4x2", criterion="classic", rng=0)
    assert on_mesh.objective == 8.0  # a 2x2 square of the mesh is a ring too
    assert map_tasks(stencil((8,)), "8x1 torus(tm)", criterion="classic", rng=0).objective == 16.0
    assert map_tasks(stencil((8,)), "8x1 mesh", criterion="classic", rng=0).objective > 16.0


def test_map_tasks_default_nodes_are_the_free_nodes():
    m = Machine((4, 4))
    m.allocate([0, 1, 2, 3, 4, 8, 12], owner=1)
    res = map_tasks(stencil((3, 3), periodic=False), m, criterion="classic", rng=0)
    assert sorted(res.permutation.tolist()) == sorted(m.free_ids().tolist())
    assert res.objective == stencil((3, 3), periodic=False).sum()
    assert m.n_free == 9  # the machine is only read


def test_map_tasks_on_a_network():
    G = nx.petersen_graph()
    res = map_tasks(stencil((5,)), Machine.from_graph(G), criterion="classic", rng=0)
    assert res.objective == 10.0  # the outer 5-cycle
    with pytest.raises(ValueError, match="'td' needs per-axis hop counts"):
        map_tasks(stencil((5,)), Machine.from_graph(G))
