"""Standard output carries results only.

Every command run with ``--json`` prints one JSON object (or list) and
nothing else on standard output, and the exact solvers print nothing on
standard output when called from Python; with verbose on, their log goes
to standard error.

HiGHS is a C++ library: it writes on file descriptor 1, not through
``sys.stdout``, so these tests read the descriptors (``capfd``, not
``capsys``).  It prints its banner ("Running HiGHS ...") once per process,
when the first ``highspy.Highs`` is made, so an in-process test that runs
after another solve would miss it: the banner is checked in fresh
interpreters (:func:`test_fresh_process_*`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from optalloc import instance_path
from optalloc.cli import main

ROOT = Path(__file__).resolve().parents[1]
QAPLIB = ROOT.parent / "shared" / "data" / "qaplib"
CHR12A = QAPLIB / "chr12a.dat"
needs_qaplib = pytest.mark.skipif(not CHR12A.exists(), reason=f"QAPLIB instance {CHR12A} is absent")


def half_free_mesh(seed: int = 0, side: int = 16) -> np.ndarray:
    """The free nodes of a side x side mesh, half of them chosen at random."""
    cells = np.array([(x, y) for y in range(side) for x in range(side)])
    rng = np.random.default_rng(seed)
    return cells[np.sort(rng.choice(side * side, side * side // 2, replace=False))]


def write_map(path: Path, pts: np.ndarray, side: int = 16) -> Path:
    free = np.zeros((side, side), dtype=bool)
    free[pts[:, 1], pts[:, 0]] = True
    path.write_text("".join("".join("." if f else "#" for f in row) + "\n" for row in free), encoding="utf-8")
    return path


def run_json(argv, capfd, monkeypatch):
    """Run ``optalloc ARGV`` in process from the project root; the parsed
    standard output (all of it must be one JSON value) and standard error."""
    monkeypatch.chdir(ROOT)
    code = main([str(a) for a in argv])
    out, err = capfd.readouterr()
    assert code == 0, f"exit code {code}: {err}"
    try:
        return json.loads(out), err
    except json.JSONDecodeError as exc:  # pragma: no cover - the failure this module guards against
        pytest.fail(f"standard output is not one JSON value ({exc}); it starts with {out[:300]!r}")


# ------------------------------------------------------------ every command


def test_solve_exact_json(capfd, monkeypatch, tmp_path):
    # a 16x16 half-free map at k = 32: the cut loop's LP runs in HiGHS
    mp = write_map(tmp_path / "half.map", half_free_mesh(1))
    res, _ = run_json(["solve", "--map", mp, "--k", 32, "--method", "exact", "--time-limit", 3, "--json"],
                      capfd, monkeypatch)
    assert res["method"] == "exact" and res["status"] in ("optimal", "feasible")


def test_solve_exact_progress_json(capfd, monkeypatch, tmp_path):
    mp = write_map(tmp_path / "half.map", half_free_mesh(2))
    res, err = run_json(["solve", "--map", mp, "--k", 24, "--method", "exact", "--time-limit", 3, "--progress",
                         "--json"], capfd, monkeypatch)
    assert res["method"] == "exact"
    if res["extra"]["rounds"] > 0:
        assert "round 1:" in err


@pytest.mark.parametrize("method", ["mm", "exact"])
def test_solve_small_json(capfd, monkeypatch, method):
    res, _ = run_json(["solve", "--map", "instances/mesh16x16.txt", "--k", 8, "--method", method, "--json"],
                      capfd, monkeypatch)
    assert res["method"] == method


def test_gap_json(capfd, monkeypatch):
    res, _ = run_json(["gap", "--points", "instances/points-plane.txt", "--chosen", "instances/chosen-plane.txt",
                       "--json"], capfd, monkeypatch)
    assert isinstance(res, dict)


@pytest.mark.parametrize("argv", [
    ["--machine", "5x1", "--method", "ip"],  # the ordering IP, on HiGHS through Pyomo
    ["--machine", "6x6", "--method", "qap", "--iterations", 500, "--seed", 0],
])
def test_order_json(capfd, monkeypatch, argv):
    res, _ = run_json(["order", *argv, "--json"], capfd, monkeypatch)
    assert len(res["order"]) in (5, 36)


@pytest.mark.parametrize("argv", [
    # nine tasks: past brute force, and tabu does not meet the Gilmore-Lawler bound: the MIP runs
    ["--pattern", "random:9:0.4", "--machine", "mesh:5x2", "--method", "exact", "--time-limit", 2, "--seed", 1],
    ["--pattern", "stencil:4x4", "--machine", "torus:4x4", "--method", "tabu", "--iterations", 500, "--seed", 0],
])
def test_map_json(capfd, monkeypatch, argv):
    res, _ = run_json(["map", *argv, "--json"], capfd, monkeypatch)
    assert "result" in res


@needs_qaplib
@pytest.mark.parametrize("argv", [["--method", "exact", "--time-limit", 2],
                                  ["--method", "tabu", "--iterations", 2000, "--seed", 0]])
def test_qap_json(capfd, monkeypatch, argv):
    res, _ = run_json(["qap", CHR12A, *argv, "--json"], capfd, monkeypatch)
    assert "result" in res


def test_simulate_json(capfd, monkeypatch):
    res, _ = run_json(["simulate", "instances/small.swf", "--machine", "8x4", "--allocator", "exact", "--progress",
                       "--json"], capfd, monkeypatch)
    assert res["summary"]["jobs"] > 0


def test_certify_json(capfd, monkeypatch):
    res, _ = run_json(["certify", "--time-limit", 2, "--progress", "--json"], capfd, monkeypatch)
    assert res["decisions"] > 0


def test_sweep_json(capfd, monkeypatch, tmp_path):
    config = tmp_path / "sweep.toml"
    config.write_text(
        "[sweep]\n"
        'name = "stdout"\n'
        f"traces = [{{path = {json.dumps(str(instance_path('small.swf')))}, scale = 1}}]\n"
        'machines = ["8x4"]\n'
        'schedulers = ["easy"]\n'
        'allocators = ["mm", "exact"]\n', encoding="utf-8")
    res, _ = run_json(["sweep", config, "--db", tmp_path / "sweep.sqlite", "--workers", 1, "--progress", "--json"],
                      capfd, monkeypatch)
    assert res["report"]["failed"] == 0


def test_bench_quick_json(capfd, monkeypatch):
    res, _ = run_json(["bench", "--suite", "heuristics", "--quick", "--repeat", 1, "--json"], capfd, monkeypatch)
    assert isinstance(res, list) and res


# ------------------------------------------------------------ the exact solvers from Python


def test_ksubset_exact_cut_loop_silent(capfd):
    from optalloc.ksubset import exact

    r = exact(half_free_mesh(0), 24, time_limit=3, profiles=False)
    out, _ = capfd.readouterr()
    assert r.extra["phase"] in ("cuts", "stalled", "branch")  # the LP in HiGHS ran
    assert out == ""


def test_ksubset_exact_pyomo_silent(capfd):
    from optalloc.ksubset import exact

    pts = np.array([(x, y) for x in range(4) for y in range(4)])
    r = exact(pts, 5, formulation="pairwise", time_limit=10)
    out, _ = capfd.readouterr()
    assert r.extra["formulation"] == "pairwise"
    assert out == ""


def small_qap(n: int = 7):
    rng = np.random.default_rng(0)
    A = rng.integers(0, 5, (n, n))
    A = A + A.T
    np.fill_diagonal(A, 0)
    B = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    return A, B


def test_qap_exact_silent(capfd):
    from optalloc.qap import exact

    r = exact(*small_qap(), formulation="adams-johnson", time_limit=20)
    out, _ = capfd.readouterr()
    assert r.extra.get("solver") == "highs"  # the MIP ran
    assert out == ""


def test_order_ip_silent(capfd):
    from optalloc.curves import order_ip

    D = np.abs(np.subtract.outer(np.arange(5), np.arange(5)))  # a path of 5 nodes
    D[0, 4] = D[4, 0] = 1  # closed into a ring
    r = order_ip(D, time_limit=20)
    out, _ = capfd.readouterr()
    assert r.extra["termination"] in ("optimal", "maxTimeLimit")  # the solver ran
    assert out == ""


# ------------------------------------------------------------ verbose: the log on standard error


def test_ksubset_exact_verbose_on_stderr(capfd):
    from optalloc.ksubset import exact

    r = exact(half_free_mesh(3), 24, time_limit=60, profiles=False, verbose=True)  # a loaded machine: time for a round
    out, err = capfd.readouterr()
    assert r.extra["rounds"] > 0
    assert out == ""
    assert "round 1:" in err


def test_qap_exact_verbose_on_stderr(capfd):
    from optalloc.qap import exact

    exact(*small_qap(), formulation="adams-johnson", time_limit=20, verbose=True)
    out, err = capfd.readouterr()
    assert out == ""
    assert "HiGHS" in err or "MIP" in err  # the solver's log


def test_pyomo_verbose_on_stderr(capfd):
    from optalloc.ksubset.engine._pyomo import solve_formulation

    pts = np.array([(x, y) for x in range(4) for y in range(4)])
    r = solve_formulation(pts, 5, solver="highs", formulation="pairwise", time_limit=10, rel_gap=0.0,
                          start=time.perf_counter(), verbose=True)
    out, err = capfd.readouterr()
    assert r.status == "optimal"
    assert out == ""
    assert "MIP" in err


def test_redirect_restores_stdout(capfd):
    from optalloc._pyomo import solver_output_to_stderr

    with solver_output_to_stderr():
        print("inside")
        with solver_output_to_stderr():
            print("nested")
    print("after")
    out, err = capfd.readouterr()
    assert out == "after\n"
    assert err == "inside\nnested\n"


# ------------------------------------------------------------ the banner, in fresh interpreters

CLI = "import sys; from optalloc.cli import main; sys.exit(main(sys.argv[1:]))"


def fresh(code: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)


def test_fresh_process_cli_exact_json(tmp_path):
    mp = write_map(tmp_path / "half.map", half_free_mesh(1))
    p = fresh(CLI, "solve", "--map", mp, "--k", 32, "--method", "exact", "--time-limit", 3, "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["method"] == "exact", p.stdout[:300]


def test_fresh_process_python_exact_silent():
    code = ("import numpy as np; from optalloc.ksubset import exact; "
            "cells = np.array([(x, y) for y in range(16) for x in range(16)]); "
            "pts = cells[np.sort(np.random.default_rng(0).choice(256, 128, replace=False))]; "
            "r = exact(pts, 24, time_limit=3, profiles=False); "
            "import sys; print(r.extra['phase'], file=sys.stderr)")
    p = fresh(code)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
