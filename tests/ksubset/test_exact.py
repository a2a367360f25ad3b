"""The exact solver: optimality against enumeration, bounds, time limits, sessions."""

from __future__ import annotations

import itertools
import math
import threading
import time

import numpy as np
import pytest
from ksubset_truth import at_most, close

from optalloc.bench import half_free_mesh
from optalloc.ksubset import ExactSession, brute, exact, solve
from optalloc.ksubset.engine import _exact


def mesh_cells(shape, free_share, seed):
    rng = np.random.default_rng(seed)
    cells = np.array(list(itertools.product(*(range(s) for s in shape))))
    keep = rng.random(len(cells)) < free_share
    return cells[keep]


# C(n, k) above the enumeration screen (20000), so the cut loop runs, yet
# small enough for brute force in the test.
CUT_LOOP_CASES = [
    ("2d-half", mesh_cells((6, 6), 0.55, 1), 8),
    ("2d-half-b", mesh_cells((6, 6), 0.55, 2), 9),
    ("2d-full", mesh_cells((5, 5), 1.0, 0), 7),  # full mesh: many ties
    ("3d-half", mesh_cells((4, 3, 3), 0.6, 3), 7),
    ("3d-full", mesh_cells((3, 3, 2), 1.0, 0), 7),
    ("real", np.random.default_rng(5).uniform(0, 10, size=(20, 2)), 6),
    ("dups", np.repeat(mesh_cells((4, 4), 0.6, 7), 2, axis=0), 8),
]


@pytest.mark.parametrize("profiles", [False, True], ids=["lp", "profiles"])
@pytest.mark.parametrize("name, pts, k", CUT_LOOP_CASES, ids=[c[0] for c in CUT_LOOP_CASES])
def test_exact_equals_enumeration(name, pts, k, profiles):
    assert math.comb(len(pts), k) > 20000, "instance too small to reach the cut loop"
    res = exact(pts, k, profiles=profiles)
    opt = brute(pts, k, limit=10**6).objective
    assert res.status == "optimal"
    assert close(res.objective, opt), (res.objective, opt)
    assert res.bound == res.objective and res.gap == 0.0 and res.guarantee == 1.0
    phases = ("box", "bounds", "cuts", "stalled", "branch") + (("profiles", "shapes") if profiles else ())
    assert res.extra["phase"] in phases


@pytest.mark.parametrize("lp_solver", ["auto", "simplex", "ipm"])
def test_lp_solvers_agree(lp_solver):
    pts = mesh_cells((6, 6), 0.55, 4)
    res = exact(pts, 9, lp_solver=lp_solver)
    assert res.objective == brute(pts, 9, limit=10**6).objective
    assert res.extra["lp_solver"] == ("simplex" if lp_solver == "auto" else lp_solver)  # n k <= 2048


def test_auto_takes_the_interior_point_method_on_large_lps():
    pts = half_free_mesh(16, 16, seed=2)  # 128 points, k = 20: n k > 2048
    res = exact(pts, 20, time_limit=0.5)
    assert res.extra["lp_solver"] == "ipm"
    assert res.bound <= res.objective and (res.status == "optimal" or res.termination == "time_limit")


def test_branching_reaches_the_optimum():
    # one cut round only: the branch-and-bound phase must finish the proof
    pts = mesh_cells((6, 6), 0.55, 2)
    res = exact(pts, 9, max_rounds=1)
    assert res.status == "optimal"
    assert res.objective == brute(pts, 9, limit=10**6).objective


@pytest.mark.parametrize("k", [1, 2, 3])
def test_screened_small_k(k):
    pts = half_free_mesh(8, 8, seed=1)
    res = exact(pts, k)
    assert res.extra["phase"] == "screen" and res.status == "optimal"
    assert res.objective == solve(pts, k, method="mm").objective  # MM is exact for k <= 3


def test_screened_line_and_all_points():
    q = np.array([5.0, 1.0, 9.0, 2.0, 3.0, 14.0, 15.0, 16.0, 17.0, 30.0] * 3)
    assert exact(q, 12).objective == solve(q, 12, method="line").objective
    pts = half_free_mesh(5, 5, seed=0)
    assert exact(pts, len(pts)).indices.tolist() == list(range(len(pts)))


def test_time_limit_returns_a_valid_bracket():
    pts = half_free_mesh(16, 16, seed=0)
    res = exact(pts, 24, time_limit=0.1)
    assert res.termination in ("time_limit", "optimal")
    assert res.bound is not None and res.bound <= res.objective
    assert len(res.indices) == 24
    if res.termination == "time_limit":
        assert res.guarantee is None and res.gap > 0
    # the bound is a true lower bound: compare with a long heuristic run
    assert at_most(res.bound, solve(pts, 24, method="mm-inc").objective)


def test_time_out_before_the_lp_returns_the_cheap_bracket():
    # 1024 points, k = 500: the LP alone would have half a million columns;
    # a limit spent by the heuristics returns their bracket without building it
    pts = np.array([(x, y) for x in range(32) for y in range(32)])
    res = exact(pts, 500, time_limit=0.01)
    assert res.termination == "time_limit" and "no time was left for the LP" in res.message
    assert res.extra["rounds"] == 0 and len(res.indices) == 500
    assert 0 < res.bound < res.objective


def test_lp_time_limit_counts_from_each_solve():
    # HiGHS measures its time limit against the run time accumulated over
    # every run() of the object; each re-solve of the cut loop must get the
    # time left, not the time left minus the earlier solves
    from optalloc.ksubset.engine._pairlp import _PairLP

    pts = mesh_cells((6, 6), 0.55, 1)
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
    lp = _PairLP(dist, 8, "simplex")
    for _ in range(3):
        ok, *_ = lp.solve(5.0)
        assert ok
    limit = lp.h.getOptionValue("time_limit")
    limit = limit[-1] if isinstance(limit, tuple) else limit  # (status, value) in some highspy versions
    spent = lp.h.getRunTime()
    assert spent > 0 and limit > 5.0  # the limit moved on with the clock
    assert limit - spent >= 4.0


@pytest.mark.parametrize("lp_solver, rounds", [("simplex", 0), ("simplex", 2), ("ipm", 0), ("ipm", 2)])
def test_lagrangian_fixing_bound_holds_for_every_point(lp_solver, rounds):
    # L(lam) + max(0, d_i) must bound W of every k-set containing point i,
    # whatever the multipliers (the IPM's are inexact): checked against
    # enumeration, after 0 and 2 rounds of cuts
    from optalloc.ksubset.engine._pairlp import _lagrangian_bound, _PairLP

    pts = mesh_cells((5, 5), 0.5, 3)
    k = 5
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
    lp = _PairLP(dist, k, lp_solver)
    for _ in range(rounds + 1):
        ok, _, v, _ = lp.solve(None)
        assert ok
        lp.separate(v[: len(pts)], v[len(pts):], 50, 10)
    ok, *_ = lp.solve(None)
    value, dx = _lagrangian_bound(lp, dist, k)
    best_with = np.full(len(pts), np.inf)
    for c in itertools.combinations(range(len(pts)), k):
        w = dist[np.ix_(c, c)].sum() / 2
        best_with[list(c)] = np.minimum(best_with[list(c)], w)
    assert value <= best_with.min() + 1e-6
    assert (value + np.maximum(0.0, dx) <= best_with + 1e-6).all()
    assert value > 0
    if lp_solver == "ipm":  # interior multipliers price some points above the bound (the simplex's are degenerate here)
        assert (dx > 1e-6).any()


def test_rel_gap_stops_early_with_a_proven_gap():
    pts = mesh_cells((6, 6), 0.55, 1)
    res = exact(pts, 8, rel_gap=0.5)
    opt = brute(pts, 8, limit=10**6).objective
    assert res.status in ("optimal", "feasible")
    assert at_most(res.bound, opt) and at_most(opt, res.objective)
    assert res.gap <= 0.5


def test_session_caches_and_carries_cuts():
    session = ExactSession()
    pts = mesh_cells((8, 8), 0.5, 3)  # needs triangle cuts at k = 10
    first = exact(pts, 10, warm_start=session, profiles=False)  # the cut loop, not the profile search
    assert first.status == "optimal" and first.extra["triangles"] > 0
    assert session.cuts, "binding triangle cuts should be stored"
    again = exact(pts[::-1], 10, warm_start=session)  # same free set, other order
    assert again.extra["phase"] == "cache" and session.hits == 1
    assert again.objective == first.objective
    nxt = exact(pts[1:], 10, warm_start=session, profiles=False)
    assert nxt.extra["seeded_cuts"] > 0
    assert nxt.status == "optimal"
    assert nxt.objective == exact(pts[1:], 10).objective  # same optimum without the session


@pytest.mark.parametrize(("side", "k", "seed"), [(10, 12, 0), (12, 14, 1), (12, 20, 2)])
def test_shape_search_profile_search_and_cut_loop_agree_on_half_free_meshes(side, k, seed, monkeypatch):
    # three independent proofs of the same optimum: the shape search (the
    # busy cells put the incumbent far above the partition bound), the
    # profile search (with the shape search turned off) and the LP
    pts = half_free_mesh(side, side, seed=seed)
    a, c = exact(pts, k), exact(pts, k, profiles=False)
    monkeypatch.setattr(_exact, "_SHAPE_GAP", math.inf)
    b = exact(pts, k)
    assert a.status == b.status == c.status == "optimal"
    assert (a.extra["phase"], b.extra["phase"], c.extra["phase"]) == ("shapes", "profiles", "cuts")
    assert a.objective == b.objective == c.objective


def test_profile_search_beside_the_lp_proves_first_and_cancels_it(monkeypatch):
    # no time for the search before the LP: it runs in a thread beside the
    # cut loop, proves the optimum in milliseconds and the LP stops
    monkeypatch.setattr(_exact, "_PROFILE_SLICES", ())
    monkeypatch.setattr(_exact, "_PROFILE_COUNTS", ())
    monkeypatch.setattr(_exact, "_SHAPE_GAP", math.inf)
    threads = threading.active_count()
    pts = half_free_mesh(12, 12, seed=1)
    exact(half_free_mesh(12, 12, seed=2), 14)  # kernels compiled first (a fresh install compiles them), not raced
    a, b = exact(pts, 14), exact(pts, 14, profiles=False)
    assert a.status == b.status == "optimal" and a.objective == b.objective
    assert a.extra["phase"] == "profiles" and a.extra["rounds"] <= 1 and "profile_seconds" in a.extra
    assert threading.active_count() == threads


def test_shape_search_proves_before_the_lp_is_built(monkeypatch):
    # 16 x 16 half free, k = 32: the LP needs three rounds; the shape
    # search proves the optimum within its head start (lengthened here: a loaded machine may slow it past 0.5 s)
    monkeypatch.setattr(_exact, "_SHAPE_FIRST", 30.0)
    threads = threading.active_count()
    exact(half_free_mesh(16, 16, seed=2), 32)  # kernels compiled first (a fresh install compiles them), not raced
    a = exact(half_free_mesh(16, 16, seed=1), 32)
    assert a.status == "optimal" and a.objective == 2425  # proven by the LP alone as well (docs/methods/bounds.md)
    assert a.extra["phase"] == "shapes" and a.extra["rounds"] == 0 and a.extra["rows"] == 0
    assert a.message == "proven by the search over shapes" and "shape_seconds" in a.extra
    assert threading.active_count() == threads


def test_shape_search_beside_the_lp_proves_first_and_cancels_it(monkeypatch):
    # no head start: the LP is built at once, the search proves first and stops it
    monkeypatch.setattr(_exact, "_SHAPE_FIRST", 0.0)
    threads = threading.active_count()
    exact(half_free_mesh(16, 16, seed=2), 32)  # kernels compiled first (a fresh install compiles them), not raced
    a = exact(half_free_mesh(16, 16, seed=1), 32)
    assert a.status == "optimal" and a.objective == 2425
    assert a.extra["phase"] == "shapes" and a.extra["rounds"] <= 1 and a.extra["rows"] > 0
    assert threading.active_count() == threads


def test_time_limit_stops_the_search_beside_the_lp():
    # k = 64 on a 16 x 16 half-free mesh: neither the LP nor the search
    # proves it in a second; both stop, the bracket holds
    threads = threading.active_count()
    pts = half_free_mesh(16, 16, seed=2)
    start = time.perf_counter()
    res = exact(pts, 64, time_limit=1.0)
    assert res.termination == "time_limit" and res.bound <= res.objective
    assert time.perf_counter() - start < 20  # the heuristics and the LP build are not timed
    assert threading.active_count() == threads


def test_verbose_reports_each_phase_on_stderr(capsys):
    pts = mesh_cells((8, 8), 0.5, 3)
    res = exact(pts, 10, profiles=False, verbose=True)
    err = capsys.readouterr().err.splitlines()
    assert res.extra["rounds"] == len(err) >= 2 and all(line.startswith(f"round {i + 1}: LP ") for i, line in enumerate(err))
    res = exact(pts, 10, verbose=True)
    err = capsys.readouterr().err.splitlines()
    assert res.extra["phase"] == "shapes" and len(err) == 1 and err[0].startswith("shape search (")


def test_verbose_reports_the_profile_search_on_stderr(capsys, monkeypatch):
    monkeypatch.setattr(_exact, "_SHAPE_GAP", math.inf)
    res = exact(mesh_cells((8, 8), 0.5, 3), 10, verbose=True)
    err = capsys.readouterr().err.splitlines()
    assert res.extra["phase"] == "profiles" and len(err) == 1 and err[0].startswith("profile search (")


@pytest.mark.parametrize("formulation", ["pairwise", "glover", "axis"])
def test_formulations_through_pyomo(formulation):
    pts = mesh_cells((4, 4), 0.7, 1)
    res = exact(pts, 5, formulation=formulation)
    assert res.status == "optimal"
    assert res.objective == brute(pts, 5).objective
    assert res.extra["formulation"] == formulation


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"solver": "no-such-solver"}, "not available"),
        ({"formulation": "nope"}, "unknown formulation"),
        ({"formulation": "qp"}, "HiGHS does not solve"),
        ({"time_limit": -1}, "`time_limit` must be positive"),
        ({"rel_gap": 1.5}, r"`rel_gap` must be in \[0, 1\)"),
        ({"lp_solver": "barrier"}, "`lp_solver` must be"),
        ({"warm_start": {}}, "ExactSession"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        exact(mesh_cells((4, 4), 0.7, 1), 5, **kwargs)


def test_bad_k():
    with pytest.raises(ValueError, match="`k` must be between 1"):
        exact([[0, 0], [1, 1]], 3)


@pytest.mark.parametrize("k", range(1, 8))
def test_town_values_against_enumeration(k):
    # the optimal-town tables, checked where enumeration is cheap: a 5 x 5
    # grid holds an optimal town for these k
    from optalloc.ksubset import town_bound

    grid = np.array(list(itertools.product(range(5), range(5))))
    assert town_bound(grid, k) == brute(grid, k, limit=10**6).objective
    cube = np.array(list(itertools.product(range(3), range(3), range(3))))
    if k <= 6:
        assert town_bound(cube, k) == brute(cube, k, limit=10**6).objective


def test_town_bound_needs_distinct_lattice_points():
    from optalloc.ksubset import town_bound

    assert town_bound([[0, 0], [0, 0], [1, 0], [1, 1]], 3) == 0.0  # duplicates
    assert town_bound([[0, 0.5], [1, 0], [1, 1], [2, 2]], 3) == 0.0  # not a lattice
    assert town_bound(np.zeros((60, 2)) + np.arange(60)[:, None], 50) == 0.0  # beyond the table


def test_empty_mesh_closed_by_the_box_optimum():
    full = np.array(list(itertools.product(range(8), range(8))))
    res = exact(full, 12)  # a 3 x 4 block reaches town(12) = 152
    assert res.status == "optimal" and res.objective == 152 and res.extra["phase"] == "box"
    # the 128-node machine of the NASA trace, empty, with a 64-node job: the
    # height of 8 keeps the town out; the LP alone stalls far below
    machine = np.array(list(itertools.product(range(16), range(8))))
    res = exact(machine, 64)
    assert res.status == "optimal" and res.objective == 10592 and res.extra["phase"] == "box"


def test_box_optimum_proves_a_nearly_empty_machine():
    machine = np.array(list(itertools.product(range(16), range(8))))
    busy = (machine[:, 0] >= 13) & (machine[:, 1] < 4)  # a 3 x 4 job in a corner
    res = exact(machine[~busy], 64, time_limit=60)
    assert res.status == "optimal" and res.objective == 10592 and res.extra["phase"] == "box"
    # a bound, not an answer, when no optimal set of the rectangle fits
    rng = np.random.default_rng(0)
    holes = machine[rng.random(len(machine)) < 0.85]
    res = exact(holes, 24, time_limit=60)
    assert res.status == "optimal" and res.extra["phase"] != "box"
    assert res.objective >= exact(machine, 24).objective


def test_session_reuses_a_bracket_only_with_no_more_time():
    session = ExactSession()
    pts = half_free_mesh(16, 16, seed=0)
    first = exact(pts, 64, time_limit=0.1, warm_start=session)
    assert first.termination == "time_limit", "the instance should not be solved in 0.1 s"
    again = exact(pts[::-1], 64, time_limit=0.05, warm_start=session)
    assert again.extra["phase"] == "cache" and again.termination == "time_limit" and session.hits == 1
    assert again.bound == first.bound and again.objective == first.objective
    assert "cached bracket" in again.message
    longer = exact(pts, 64, time_limit=0.3, warm_start=session)  # more time: solved again
    assert longer.extra["phase"] != "cache" and session.hits == 1
    assert at_most(longer.bound, longer.objective)


def test_session_with_repeated_points():
    # repeated locations share a coordinate key: seeded cuts and cached
    # answers must still name distinct rows
    session = ExactSession()
    pts = np.repeat(mesh_cells((4, 4), 0.6, 7), 2, axis=0)
    first = exact(pts, 8, warm_start=session)
    cached = exact(pts, 8, warm_start=session)
    assert len(set(cached.indices.tolist())) == 8 and cached.objective == first.objective
    nxt = exact(pts[2:], 8, warm_start=session)
    assert nxt.objective == brute(pts[2:], 8, limit=10**6).objective
