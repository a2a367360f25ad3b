"""QAP solvers against ground truth: enumeration, direct evaluation, QAPLIB optima."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qap_cases import random_instance

from optalloc.qap import (
    brute,
    exact,
    faq,
    gilmore_lawler,
    grasp,
    map_tasks,
    objective,
    read_qaplib,
    read_solution,
    solve,
    stencil,
    tabu,
)
from optalloc.qap._bounds import SMALL, _assignment
from optalloc.qap._grasp import construct
from optalloc.qap._search import SwapState, delta_matrix, delta_rows, descent, permuted

QAPLIB = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "qaplib"


def _enumerate(A, B):
    return min(objective(A, B, p) for p in itertools.permutations(range(len(A))))


def _swap_values(A, B, p):
    """Change of the objective for every swap, by re-evaluating each swapped permutation."""
    n = len(p)
    base = objective(A, B, p)
    out = np.zeros((n, n))
    for r in range(n):
        for s in range(n):
            q = p.copy()
            q[r], q[s] = q[s], q[r]
            out[r, s] = objective(A, B, q) - base
    return out


# ------------------------------------------------------------ swap values


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 8), seed=st.integers(0, 10**6), symmetric=st.booleans(), diagonal=st.booleans())
def test_delta_matrix_and_rows_match_direct_evaluation(n, seed, symmetric, diagonal):
    A, B = random_instance(n, seed, symmetric=symmetric, diagonal=diagonal)
    p = np.random.default_rng(seed).permutation(n)
    truth = _swap_values(A, B, p)
    Bp = permuted(B, p)
    np.testing.assert_allclose(delta_matrix(A, Bp), truth, atol=1e-9)
    np.testing.assert_allclose(delta_rows(A, Bp, np.arange(n)), truth, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 9), seed=st.integers(0, 10**6), symmetric=st.booleans(), diagonal=st.booleans())
def test_swap_state_update_stays_exact(n, seed, symmetric, diagonal):
    A, B = random_instance(n, seed, symmetric=symmetric, diagonal=diagonal)
    rng = np.random.default_rng(seed)
    state = SwapState(A, B, rng.permutation(n))
    assert state.direct == (symmetric and not diagonal)
    for _ in range(6):
        u, v = rng.choice(n, 2, replace=False)
        state.swap(int(u), int(v))
        np.testing.assert_allclose(state.delta, _swap_values(A, B, state.p), atol=1e-9)
        assert state.value == pytest.approx(objective(A, B, state.p))


def test_taillard_update_also_used_on_large_symmetric_instances():
    A, B = random_instance(SwapState.DIRECT_MAX + 1, 3, symmetric=True, diagonal=False)
    state = SwapState(A, B, np.arange(len(A)))
    assert not state.direct
    state.swap(0, 5)
    state.swap(7, 2)
    np.testing.assert_allclose(state.delta, delta_matrix(A, permuted(B, state.p)), atol=1e-6)


def test_descent_ends_in_a_local_optimum():
    A, B = random_instance(9, 4)
    p, value, moves = descent(A, B, np.arange(9))
    assert value == pytest.approx(objective(A, B, p))
    assert _swap_values(A, B, p).min() >= -1e-9
    assert moves > 0


# ------------------------------------------------------------ solvers vs enumeration


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [1, 2, 4, 6])
def test_exact_methods_equal_enumeration(n, seed):
    A, B = random_instance(n, seed)
    best = _enumerate(A, B)
    for res in (brute(A, B), exact(A, B)):
        assert res.objective == best
        assert res.status == "optimal" and res.bound == best and res.guarantee == 1
        assert objective(A, B, res.permutation) == res.objective


@pytest.mark.parametrize("seed", range(3))
def test_adams_johnson_model_solves_to_the_enumerated_optimum(seed):
    A, B = random_instance(5, seed, symmetric=seed == 0)
    res = exact(A, B, formulation="adams-johnson", rng=0)
    assert res.status == "optimal"
    assert res.objective == _enumerate(A, B)


@pytest.mark.parametrize("seed", range(8))
def test_gilmore_lawler_is_a_lower_bound(seed):
    A, B = random_instance(6, seed, symmetric=seed % 2 == 0)
    assert gilmore_lawler(A, B) <= _enumerate(A, B) + 1e-9


@pytest.mark.parametrize("n", range(1, SMALL + 3))
def test_the_bounds_assignment_equals_scipys(n):
    # enumerated up to SMALL rows, scipy's beyond: the same least assignment
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(n)
    for L in (rng.integers(0, 20, (n, n)).astype(float), rng.random((n, n)) * 100, np.zeros((n, n))):
        rows, cols = linear_sum_assignment(L)
        assert _assignment(L) == pytest.approx(L[rows, cols].sum(), rel=1e-12, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(3, SMALL), seed=st.integers(0, 10**6), symmetric=st.booleans())
def test_the_strong_mode_on_few_tasks_reaches_the_optimum(n, seed, symmetric):
    # up to SMALL tasks: no FAQ start, the array engine, the bound enumerated
    A, B = random_instance(n, seed, symmetric=symmetric, diagonal=not symmetric)
    res = solve(A, B, rng=seed)
    assert res.extra["engine"] == "numpy"
    best = _enumerate(A, B) if n < 8 else brute(A, B).objective  # brute: checked against _enumerate above
    assert res.objective == objective(A, B, res.permutation) == best
    assert res.bound <= res.objective


class QAPSolverChecks:
    """Validity, optimality on small instances, seeds and errors, for one heuristic."""

    method = ""
    iterations = None

    def run(self, W, C, rng):
        return solve(W, C, method=self.method, rng=rng, iterations=self.iterations)

    @pytest.mark.parametrize("seed", range(5))
    def test_small_instances_reach_the_optimum(self, seed):
        A, B = random_instance(6, seed, symmetric=seed % 2 == 1, diagonal=seed % 3 == 0)
        res = self.run(A, B, seed)
        assert sorted(res.permutation) == list(range(6))
        assert res.objective == objective(A, B, res.permutation)
        assert res.objective == _enumerate(A, B)
        assert res.bound is not None and res.bound <= res.objective

    def test_same_seed_same_result(self):
        A, B = random_instance(12, 7, symmetric=True, diagonal=False)
        a, b = self.run(A, B, 42), self.run(A, B, 42)
        assert np.array_equal(a.permutation, b.permutation)
        assert a.objective == b.objective

    def test_result_fields(self):
        A, B = random_instance(7, 1)
        res = self.run(A, B, 0)
        assert res.method == self.method
        assert res.status in ("optimal", "feasible")
        assert res.termination == ("optimal" if res.status == "optimal" else "completed")
        assert sorted(res.permutation) == list(range(7))
        assert res.runtime >= 0 and res.guarantee is None
        assert res.average == pytest.approx(res.objective / A.sum())


class TestTabu(QAPSolverChecks):
    method = "tabu"
    iterations = 400


class TestGrasp(QAPSolverChecks):
    method = "grasp"


class TestFaq(QAPSolverChecks):
    method = "faq"


def test_tabu_and_grasp_directly():
    A, B = random_instance(8, 11, symmetric=True, diagonal=False)
    best = _enumerate(A, B)
    assert tabu(A, B, iterations=500, rng=1).objective == best
    assert grasp(A, B, iterations=30, rng=1).objective == best
    assert faq(A, B, rng=1, starts=5).objective >= best


def test_construction_is_a_permutation_and_alpha_one_is_random():
    A, B = random_instance(10, 2)
    rng = np.random.default_rng(0)
    for alpha in (0.05, 0.2, 1.0):
        p = construct(A, B, rng, alpha=alpha)
        assert sorted(p) == list(range(10))


def test_greedy_construction_beats_random_on_average():
    A, B = random_instance(20, 5, symmetric=True, diagonal=False)
    rng = np.random.default_rng(0)
    greedy = np.mean([objective(A, B, construct(A, B, rng, alpha=0.1)) for _ in range(20)])
    random = np.mean([objective(A, B, rng.permutation(20)) for _ in range(20)])
    assert greedy < random


def test_tabu_stops_at_target_and_time_limit():
    A, B = random_instance(15, 3, symmetric=True, diagonal=False)
    res = tabu(A, B, rng=0, target=np.inf)
    assert res.extra["iterations"] == 1
    assert res.termination == "completed" and res.status == "feasible"
    res = tabu(A, B, rng=0, time_limit=0.2)
    assert res.runtime < 5
    assert res.termination == "time_limit" and res.status == "feasible"
    assert tabu(A, B, rng=0, iterations=50, time_limit=60).termination == "completed"


def test_grasp_progress_and_start():
    A, B = random_instance(9, 4)
    seen = []
    start = np.arange(9)[::-1]
    res = grasp(A, B, iterations=3, rng=0, start=start, progress=lambda it, best: seen.append((it, best)))
    assert [s[0] for s in seen] == [0, 1, 2]
    assert res.objective == seen[-1][1] <= descent(A, B, start.copy())[1]


# ------------------------------------------------------------ mapping


@pytest.mark.parametrize("criterion, per_message", [("classic", 1), ("td", 2)])
def test_stencil_on_matching_torus_reaches_the_bound(criterion, per_message):
    W = stencil((8, 8))
    res = map_tasks(W, "torus:8x8", criterion=criterion, rng=0)
    assert res.status == "optimal"
    assert res.objective == per_message * W.sum()


def test_map_tasks_on_a_partition_and_with_spare_nodes():
    W = stencil((2, 2), periodic=False)
    nodes = [0, 1, 8, 9]  # a 2x2 block of an 8x8 mesh
    res = map_tasks(W, "mesh:8x8", nodes=nodes, criterion="classic", rng=0)
    assert sorted(res.permutation) == nodes
    assert res.objective == W.sum()
    spare = map_tasks(W, "mesh:3x3", criterion="classic", rng=0)
    assert len(spare.permutation) == 4 and spare.objective == W.sum()
    assert len(set(spare.permutation.tolist())) == 4 and spare.permutation.max() < 9


def test_map_tasks_with_user_cost():
    A, B = random_instance(5, 9)
    res = map_tasks(A, cost=B, rng=0)
    assert res.objective == _enumerate(A, B)
    assert res.extra["criterion"] == "user"


# ------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: solve([[0, 1], [1, 0]], [[0, 1], [1, 0]], method="nope"), "unknown method"),
        (lambda: solve([[0, 1, 2]], [[0]]), "square"),
        (lambda: solve([[0, 1], [1, 0]], [[0]]), "same size"),
        (lambda: solve([[0, np.nan], [1, 0]], [[0, 1], [1, 0]]), "NaN"),
        (lambda: grasp([[0, 1], [1, 0]], [[0, 1], [1, 0]], alpha=0), "alpha"),
        (lambda: grasp([[0, 1], [1, 0]], [[0, 1], [1, 0]], iterations=0), "iterations"),
        (lambda: tabu([[0, 1], [1, 0]], [[0, 1], [1, 0]], start=[0, 0]), "start"),
        (lambda: tabu([[0, 1], [1, 0]], [[0, 1], [1, 0]], tenure=(2, 1)), "tenure"),
        (lambda: tabu([[0, 1], [1, 0]], [[0, 1], [1, 0]], time_limit=-1), "time_limit"),
        (lambda: brute(np.zeros((9, 9)), np.zeros((9, 9))), "limit"),
        (lambda: exact(np.zeros((11, 11)), np.zeros((11, 11))), "time_limit"),
        (lambda: exact([[0]], [[0]], formulation="x"), "formulation"),
        (lambda: map_tasks([[0, -1], [-1, 0]], "torus:2x1"), "negative|non-negative"),
        (lambda: map_tasks(np.zeros((5, 5)), "torus:2x2"), "do not fit"),
        (lambda: map_tasks(np.zeros((2, 2))), "`machine`"),
        (lambda: map_tasks(np.zeros((2, 2)), "ring:4"), "`machine` must be"),
        (lambda: map_tasks(np.zeros((2, 2)), "mesh:2x1", criterion="nope"), "criterion"),
        (lambda: map_tasks(np.zeros((2, 2)), cost=np.ones((2, 2)), nodes=[1, 1]), "distinct"),
        (lambda: map_tasks(np.zeros((2, 2)), "mesh:2x2", cost=np.ones((2, 2)), nodes=[0, 9]), "0..3"),
        (lambda: map_tasks(np.zeros((2, 2)), cost=np.ones((2, 2)), nodes=[0.5, 1]), "integer"),
        (lambda: map_tasks(np.zeros((2, 2)), "torus:300x300"), "dense"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------ QAPLIB


@pytest.mark.skipif(not QAPLIB.is_dir(), reason="../shared/data/qaplib is not present")
@pytest.mark.parametrize("name", ["nug12", "had12", "rou12", "scr12", "chr12a", "esc16a"])
def test_qaplib_small_instances_reach_their_optimum(name):
    W, C = read_qaplib(QAPLIB / f"{name}.dat")
    best = read_solution(QAPLIB / f"{name}.sln").value
    res = tabu(W, C, rng=0, target=best, time_limit=20)
    assert res.objective == best
    assert gilmore_lawler(W, C) <= best


@pytest.mark.parametrize("symmetric", [True, False])
def test_tabu_chains_reach_the_optimum_and_repeat(symmetric):
    A, B = random_instance(7, 21, symmetric=symmetric, diagonal=not symmetric)
    best = _enumerate(A, B)
    a = tabu(A, B, chains=4, iterations=300, rng=3)
    b = tabu(A, B, chains=4, iterations=300, rng=3)
    assert a.objective == best == objective(A, B, a.permutation)
    assert np.array_equal(a.permutation, b.permutation)
    assert a.extra["chains"] == 4


def test_tabu_chains_restart_and_validate():
    A, B = random_instance(9, 5, symmetric=True, diagonal=False)
    res = tabu(A, B, chains=3, iterations=200, restart=1, rng=0)
    assert res.extra["restarts"] > 0
    assert res.objective == objective(A, B, res.permutation)
    with pytest.raises(ValueError, match="chains"):
        tabu(A, B, chains=0)
