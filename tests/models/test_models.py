"""The Pyomo model builders, solved on tiny instances with HiGHS through Pyomo."""

import itertools

import numpy as np
import pyomo.environ as pyo
import pytest

from optalloc.models import add_triangle, build_axis, build_glover, build_pairwise, build_qp


def brute_opt(pts, k):
    pts = np.asarray(pts, float)
    return min(
        sum(np.abs(pts[a] - pts[b]).sum() for a, b in itertools.combinations(s, 2))
        for s in itertools.combinations(range(len(pts)), k)
    )


INSTANCES = [
    (np.array([[0, 0], [1, 0], [0, 1], [3, 3], [4, 3], [2, 1]]), 3),
    (np.array([[0, 0, 0], [1, 0, 1], [0, 1, 0], [2, 2, 2], [1, 1, 1], [0, 0, 2], [3, 0, 0]]), 4),
    (np.array([[0.5], [2.0], [2.5], [7.0], [7.25]]), 2),
]


@pytest.mark.parametrize("builder", [build_pairwise, build_glover, build_axis])
@pytest.mark.parametrize("pts, k", INSTANCES)
def test_linear_models_reach_the_optimum(builder, pts, k):
    m = builder(pts, k)
    res = pyo.SolverFactory("highs").solve(m)
    assert str(res.solver.termination_condition) == "optimal"
    assert pyo.value(m.obj) == pytest.approx(brute_opt(pts, k))
    chosen = [i for i in m.x if pyo.value(m.x[i]) > 0.5]
    assert len(chosen) == k


@pytest.mark.parametrize("pts, k", INSTANCES)
def test_qp_objective_is_w(pts, k):
    m = build_qp(pts, k)
    best = brute_opt(pts, k)
    for s in itertools.combinations(range(len(pts)), k):
        for i in m.x:
            m.x[i].value = 1 if i in s else 0
        w = sum(np.abs(pts[a] - pts[b]).sum() for a, b in itertools.combinations(s, 2))
        assert pyo.value(m.obj) == pytest.approx(w)
        assert pyo.value(m.obj) >= best - 1e-9


def test_pairwise_relaxation_and_triangles():
    pts, k = INSTANCES[0]
    lp = build_pairwise(pts, k, relax=True)
    pyo.SolverFactory("highs").solve(lp)
    root = pyo.value(lp.obj)
    assert root <= brute_opt(pts, k) + 1e-9
    for i, j, l in itertools.permutations(range(len(pts)), 3):
        if j < l:
            add_triangle(lp, i, j, l)
    pyo.SolverFactory("highs").solve(lp)
    assert root - 1e-9 <= pyo.value(lp.obj) <= brute_opt(pts, k) + 1e-9
    with pytest.raises(ValueError, match="three distinct points"):
        add_triangle(lp, 0, 0, 1)


def test_axis_lp_bound_is_zero():
    # the per-axis formulation's LP relaxation is flat (its documented weakness)
    pts, k = INSTANCES[0]
    m = build_axis(pts, k)
    pyo.TransformationFactory("core.relax_integer_vars").apply_to(m)
    pyo.SolverFactory("highs").solve(m)
    assert pyo.value(m.obj) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("builder", [build_qp, build_pairwise, build_glover, build_axis])
def test_builders_reject_bad_k(builder):
    with pytest.raises(ValueError, match="`k` must be between 1"):
        builder([[0, 0], [1, 1]], 5)
