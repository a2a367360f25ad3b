"""Bounded by default: the PTAS chooses its m from a budget counted before
it starts, certify and the exact solves of the command line stop at a
default time limit that the user can lift, and a run that hits it says so
with the bracket it proved."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

import optalloc.ksubset
from optalloc._subset import subset_result
from optalloc.bench import half_free_mesh
from optalloc.cli import _ksubset as cli_ksubset
from optalloc.cli import _sim as cli_sim
from optalloc.cli import main
from optalloc.ksubset import brute, mm_inc, ptas, solve
from optalloc.ksubset.heuristics.strips._ptas import PTAS_BUDGET, _Instance, ptas_guarantee
from optalloc.sim import Job, certify

# ---------------------------------------------------------------- the PTAS's default m


def seventeen_points(seed=0):
    return np.random.default_rng(seed).integers(0, 20, size=(17, 2)).astype(float)


def test_default_m_on_17_points_is_quick_and_reports_its_guarantee():
    pts = seventeen_points()
    res = ptas(pts, 7)
    m = res.extra["m"]
    assert 1 <= m <= 7 and res.extra["predicted_seconds"] <= PTAS_BUDGET
    assert res.guarantee == ptas_guarantee(m, 7, 2)
    assert res.objective >= brute(pts, 7).objective


def test_solve_runs_the_ptas_it_was_asked_for():
    res = solve(seventeen_points(1)[:12], 5, method="ptas")
    assert res.method == "ptas" and "structures" in res.extra and "predicted_seconds" in res.extra


def test_default_m_is_the_largest_that_fits_preferring_one_with_a_guarantee(monkeypatch):
    # as if m <= 5 took no time and m >= 6 far too long: 5 fits but has no
    # factor for k = 8, 4 has one (12)
    monkeypatch.setattr(_Instance, "predict", lambda self, plan: 0.0 if plan.m <= 5 else 1e9)
    pts = np.random.default_rng(0).integers(0, 10, size=(9, 2)).astype(float)
    res = ptas(pts, 8)
    assert res.extra["m"] == 4 and res.guarantee == pytest.approx(ptas_guarantee(4, 8))
    assert res.objective <= res.guarantee * brute(pts, 8).objective


def test_default_m_is_k_when_everything_fits():
    pts = [[0, 0], [1, 0], [3, 3], [0, 2]]
    res = ptas(pts, 3)
    assert res.extra["m"] == 3 and res.status == "optimal" and res.guarantee == 1.0


def test_over_the_budget_even_for_m_1_is_refused():
    pts = np.random.default_rng(0).integers(0, 100, size=(60, 2))
    with pytest.raises(ValueError, match=r"^the PTAS would take about .* s even with m = 1 "
                                         r"\(n = 60, k = 4, d = 2\), more than the budget of 1e-09 s"):
        ptas(pts, 4, budget=1e-9)
    # a time limit lets it run (with m = 1)
    res = ptas(pts, 4, budget=1e-9, time_limit=5.0)
    assert res.extra["m"] == 1 and res.termination in ("time_limit", "completed")


def test_an_explicit_m_is_kept():
    res = ptas(seventeen_points(), 7, m=1)
    assert res.extra["m"] == 1 and res.guarantee is None and res.extra["predicted_seconds"] is None


@pytest.mark.slow
def test_default_m_on_100_mesh_points_keeps_to_the_budget():
    pts = half_free_mesh(16, 16, seed=0)[:100]
    ptas(pts, 4, m=2)  # compiled before timing
    t0 = time.perf_counter()
    res = ptas(pts, 12)
    took = time.perf_counter() - t0
    assert res.extra["m"] >= 3 and res.extra["predicted_seconds"] <= PTAS_BUDGET
    assert took < 3 * PTAS_BUDGET  # the scan over m (at most the budget) and the search
    assert res.objective <= mm_inc(pts, 12).objective


# ---------------------------------------------------------------- certify


JOBS = [Job(1, 0, 100, 6), Job(2, 5, 100, 5), Job(3, 10, 50, 4)]


def test_certify_has_a_default_time_limit_that_can_be_lifted():
    assert certify(JOBS, "4x4").time_limit == 60.0
    assert certify(JOBS, "4x4", time_limit=None).time_limit is None
    cheap = certify(JOBS, "4x4", exact=False)  # the default limit does not get in the way
    assert cheap.time_limit is None and len(cheap) == 3


def stopped_exact(real):
    """``ksubset.exact`` as if every solve with W > 0 ran out of time one short of the optimum."""

    def fake(points, k, **options):
        res = real(points, k, **options)
        if res.objective <= 1:
            return res
        pts = np.asarray(points, dtype=float)
        return subset_result(pts, res.indices, method="exact", start=time.perf_counter(), bound=res.objective - 1,
                             termination="time_limit", exact=True)

    return fake


def test_certify_reports_the_decisions_that_ran_out(monkeypatch, capsys):
    from optalloc.sim.certification import _exact as _certify_exact

    monkeypatch.setattr(optalloc.ksubset, "exact", stopped_exact(optalloc.ksubset.exact))
    # nor does the idle machine's optimum close them (it would: these are small meshes)
    monkeypatch.setattr(_certify_exact, "idle_bound", lambda machine, k: 0.0)
    cert = certify(JOBS, "4x4", cache=False)
    stopped = [r for r in cert.rows if r.status == "time_limit"]
    assert stopped and all(r.lower == r.upper - 1 for r in stopped)
    code = main(["certify", "--jobs", "5"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "stopped at the time limit of 60 s per exact solve" in out
    assert "[lower, upper]" in out


@pytest.mark.parametrize("flag, expected", [([], 60.0), (["--time-limit", "2.5"], 2.5),
                                             (["--time-limit", "none"], None), (["--time-limit", "NONE"], None)])
def test_certify_command_time_limit(monkeypatch, capsys, flag, expected):
    seen = {}

    def spy(*args, **kwargs):
        seen.update(kwargs)
        raise KeyboardInterrupt  # stop here: only the options matter

    monkeypatch.setattr(cli_sim, "certify", spy)
    assert main(["certify", *flag]) == 130
    capsys.readouterr()
    assert seen["time_limit"] == expected


# ---------------------------------------------------------------- solve and gap on the command line


@pytest.mark.parametrize("method, flag, expected", [
    ("exact", [], 60.0), ("exact", ["--time-limit", "none"], None), ("exact", ["--time-limit", "3"], 3.0),
    ("brute", [], None), ("mm", ["--time-limit", "none"], None),
])
def test_solve_command_time_limit(monkeypatch, capsys, tmp_path, method, flag, expected):
    seen = {}
    real = cli_ksubset.solve

    def spy(points, k, **options):
        seen.update(options)
        return real(points, k, **options)

    monkeypatch.setattr(cli_ksubset, "solve", spy)
    pts = tmp_path / "p.txt"
    pts.write_text("0 0\n1 0\n0 1\n5 5\n")
    assert main(["solve", "--points", str(pts), "--k", "2", "--method", method, *flag]) == 0
    capsys.readouterr()
    assert seen.get("time_limit") == expected


def test_solve_says_when_it_stopped_at_the_time_limit(capsys, tmp_path):
    pts = tmp_path / "big.txt"
    pts.write_text("".join(f"{int(x)} {int(y)}\n" for x, y in half_free_mesh(16, 16, seed=0)))
    code = main(["solve", "--points", str(pts), "--k", "30", "--method", "exact", "--time-limit", "0.05"])
    out, err = capsys.readouterr()
    assert code == 0, err
    table = out.split("\nchosen:")[0]
    rows = dict(line.split(None, 1) for line in table.splitlines())
    assert rows["termination"].strip() == "time_limit"
    bound, objective = float(rows["bound"].split()[0]), float(rows["objective"].split()[2])
    assert rows["stopped"].startswith("at the time limit of 0.05 s")
    assert f"the optimum is in [{bound:g}, {objective:g}]" in rows["stopped"]
    code = main(["solve", "--points", str(pts), "--k", "30", "--method", "exact", "--time-limit", "0.05", "--json"])
    res = json.loads(capsys.readouterr().out)
    assert res["termination"] == "time_limit" and res["bound"] <= res["objective"]


@pytest.mark.parametrize("flag, expected", [([], 10.0), (["--time-limit", "none"], None),
                                             (["--time-limit", "4"], 4.0)])
def test_gap_command_time_limit(monkeypatch, capsys, flag, expected):
    seen = {}
    real = cli_ksubset.gap

    def spy(points, chosen, **options):
        seen.update(options)
        return real(points, chosen, **options)

    monkeypatch.setattr(cli_ksubset, "gap", spy)
    plane = optalloc.instance_path("points-plane.txt")
    chosen = optalloc.instance_path("chosen-plane.txt")
    assert main(["gap", "--points", str(plane), "--chosen", str(chosen), *flag]) == 0
    capsys.readouterr()
    assert seen["time_limit"] == expected or (expected is None and seen["time_limit"] is None)
    assert not (isinstance(seen["time_limit"], float) and math.isinf(seen["time_limit"]))
