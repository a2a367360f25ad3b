"""The compiled tabu search against the array engines and direct evaluation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qap_cases import random_instance

from optalloc.qap import _jit, objective, tabu
from optalloc.qap._search import delta_matrix, delta_rows, permuted


def _run(A, B, **kw):
    res = tabu(A, B, **kw)
    return res.objective, list(res.permutation), {k: res.extra[k] for k in ("iterations", "restarts", "found_at")}


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 9), seed=st.integers(0, 10**6), kind=st.sampled_from(["sym", "asym", "diag"]),
       chains=st.sampled_from([1, 3]), restart=st.sampled_from([None, 1.0, 3.0]))
def test_compiled_engine_makes_the_same_moves(n, seed, kind, chains, restart):
    # on integer data every engine computes the same swap values exactly, so
    # with the same draws they choose the same moves
    A, B = random_instance(n, seed, symmetric=kind == "sym", diagonal=kind != "sym")
    kw = {"iterations": 150, "rng": seed, "chains": chains, "restart": restart}
    jit = _run(A, B, engine="jit", **kw)
    assert jit == _run(A, B, engine="numpy", **kw)
    assert jit[0] == objective(A, B, jit[1])


def test_compiled_engine_matches_one_chain_on_a_qaplib_size():
    A, B = random_instance(20, 7, symmetric=True, diagonal=False)
    kw = {"iterations": 3000, "rng": 4, "restart": 10.0}
    assert _run(A, B, engine="jit", **kw) == _run(A, B, engine="numpy", **kw)


@pytest.mark.parametrize("kind", ["sym", "asym", "diag"])
def test_row_formula_against_the_array_formula(kind):
    A, B = random_instance(11, 3, symmetric=kind == "sym", diagonal=kind != "sym", integral=False)
    p = np.random.default_rng(1).permutation(11)
    Q = permuted(B, p)
    out = np.empty(11)
    for r in range(11):
        _jit._row(A, Q, r, out, kind == "sym")
        np.testing.assert_allclose(out, delta_rows(A, Q, [r])[0], rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("kind", ["sym", "asym"])
def test_kernel_state_stays_consistent(kind):
    # after many compiled moves on real-valued data the kept swap values,
    # permuted costs and objectives equal a fresh computation
    sym = kind == "sym"
    A, B = random_instance(10, 5, symmetric=sym, diagonal=not sym, integral=False)
    m, n = 2, 10
    rng = np.random.default_rng(0)
    P = np.array([rng.permutation(n) for _ in range(m)], dtype=np.int64)
    P0 = P.copy()
    Bp = np.ascontiguousarray(B[P[:, :, None], P[:, None, :]])
    D = delta_matrix(A, Bp)
    val = (A * Bp).sum(axis=(1, 2))
    L = np.zeros((m, n, n))
    tenure = 9 + 2 * rng.random((200, m))
    best_v, best_p, found = val.copy(), P.copy(), np.zeros(m, dtype=np.int64)
    rules = _jit.TabuRules(A, sym, 1e-9, 23, 500.0, 0, -np.inf)
    chains = _jit.Chains(P, Bp, D, L, val, val.copy(), np.zeros(m, dtype=np.int64), best_v, best_p, found)
    end = _jit.tabu_steps(rules, chains, tenure, 1, 400)
    assert (end.code, end.it) == (_jit.DONE, 400)
    for c in range(m):
        assert sorted(P[c]) == list(range(n))
        np.testing.assert_array_equal(Bp[c], permuted(B, P[c]))
        upper = np.triu_indices(n, 1)
        np.testing.assert_allclose(D[c][upper], delta_matrix(A, Bp[c])[upper], rtol=1e-9, atol=1e-7)
        assert val[c] == pytest.approx(objective(A, B, P[c]), rel=1e-12)
        assert best_v[c] == pytest.approx(objective(A, B, best_p[c]), rel=1e-12)
        assert best_v[c] <= val[c] + 1e-9
        assert 1 <= found[c] < 400 or best_v[c] == objective(A, B, P0[c])


def test_compiled_engine_on_real_data_reports_its_objective():
    A, B = random_instance(12, 9, symmetric=False, diagonal=True, integral=False)
    res = tabu(A, B, iterations=2000, rng=0, chains=2, engine="jit")
    assert res.extra["engine"] == "jit"
    assert res.objective == pytest.approx(objective(A, B, res.permutation), rel=1e-12)


def test_engine_choice_and_errors():
    A, B = random_instance(6, 1, symmetric=True, diagonal=False)
    assert tabu(A, B, iterations=10, rng=0).extra["engine"] == "jit"
    assert tabu(A, B, iterations=10, rng=0, engine="numpy").extra["engine"] == "numpy"
    with pytest.raises(ValueError, match="unknown engine 'gpu'"):
        tabu(A, B, engine="gpu")


@pytest.mark.parametrize("restart", [None, 2.0])
def test_threads_give_the_same_chains(restart):
    # the chains are independent, so sharing them out among threads changes nothing
    A, B = random_instance(12, 13, symmetric=False, diagonal=True)
    kw = {"iterations": 1500, "rng": 6, "chains": 3, "restart": restart}
    one = _run(A, B, workers=1, **kw)
    assert _run(A, B, workers=2, **kw) == one == _run(A, B, workers=3, **kw)
    assert one == _run(A, B, engine="numpy", **kw)


def test_threads_stop_at_the_target():
    A, B = random_instance(9, 2, symmetric=True, diagonal=False)
    best = tabu(A, B, iterations=3000, rng=0).objective
    res = tabu(A, B, rng=1, chains=2, workers=2, target=best, time_limit=30)
    assert res.objective <= best
    assert res.extra["iterations"] <= 1000   # stopped at the end of the first slice it reached it in


def test_workers_need_the_compiled_engine():
    A, B = random_instance(6, 1, symmetric=True, diagonal=False)
    with pytest.raises(ValueError, match="`workers` > 1 needs the compiled engine"):
        tabu(A, B, engine="numpy", workers=2)
    with pytest.raises(ValueError, match="workers"):
        tabu(A, B, workers=0)
