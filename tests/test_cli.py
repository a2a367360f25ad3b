"""The optalloc command line: output, exit codes, one-line errors."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from optalloc.cli import main
from optalloc.ksubset import brute, weight
from optalloc.machine import Machine, read_map, read_points

ROOT = Path(__file__).resolve().parents[1]
MESH = ROOT / "instances" / "mesh16x16.txt"
PLANE = ROOT / "instances" / "points-plane.txt"
CHOSEN = ROOT / "instances" / "chosen-plane.txt"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("method", ["mm", "gen-alg", "mm-inc", "mc1x1"])
def test_solve_mesh_json(capsys, method):
    code, out, err = run(capsys, "solve", "--map", MESH, "--k", 8, "--method", method, "--json")
    assert code == 0, err
    res = json.loads(out)
    expected = {"indices", "points", "objective", "average", "bound", "gap", "guarantee", "status",
                "termination", "method", "message", "runtime", "extra"}
    assert set(res) == expected
    free = read_map(MESH).free_points()
    chosen = np.array(res["points"])
    np.testing.assert_array_equal(free[res["indices"]], chosen)
    assert res["objective"] == weight(chosen)
    assert math.isclose(res["average"], res["objective"] / 28)
    assert res["method"] == method
    assert res["bound"] <= res["objective"]


def test_solve_human_output(capsys):
    code, out, _ = run(capsys, "solve", "--points", PLANE, "--k", 3, "--method", "k3")
    assert code == 0
    status = [line.split() for line in out.splitlines() if line.startswith("status")]
    assert status == [["status", "optimal"]]
    assert out.count("\n  ") == 3  # three chosen points listed


def test_solve_matches_brute(capsys):
    code, out, _ = run(capsys, "solve", "--points", PLANE, "--k", 5, "--method", "brute", "--json")
    assert code == 0
    assert json.loads(out)["objective"] == brute(read_points(PLANE), 5).objective


def test_solve_out_file_not_overwritten(capsys, tmp_path):
    target = tmp_path / "alloc.txt"
    code, _, _ = run(capsys, "solve", "--points", PLANE, "--k", 4, "--out", target)
    assert code == 0
    first = target.read_text()
    assert len(read_points(target)) == 4
    code, _, err = run(capsys, "solve", "--points", PLANE, "--k", 5, "--out", target)
    assert code == 2 and "exists" in err and "--force" in err
    assert target.read_text() == first
    code, _, _ = run(capsys, "solve", "--points", PLANE, "--k", 5, "--out", target, "--force")
    assert code == 0 and len(read_points(target)) == 5


def test_gap_exact_on_small_instance(capsys):
    code, out, _ = run(capsys, "gap", "--points", PLANE, "--chosen", CHOSEN, "--json")
    assert code == 0
    rep = json.loads(out)
    pts, chosen = read_points(PLANE), read_points(CHOSEN)
    opt = brute(pts, len(chosen)).objective
    assert rep["optimal"] and rep["upper"] == opt and rep["lower"] == opt
    assert rep["objective"] == weight(chosen)
    assert math.isclose(rep["ratio_max"], weight(chosen) / opt)


def test_gap_bracket_on_large_instance(capsys, tmp_path):
    free = read_map(MESH).free_points()
    alloc = tmp_path / "alloc.txt"
    alloc.write_text("\n".join(f"{x} {y}" for x, y in free[:20]) + "\n")
    code, out, _ = run(capsys, "gap", "--map", MESH, "--chosen", alloc, "--time-limit", "2", "--json")
    assert code == 0
    rep = json.loads(out)
    assert rep["lower"] <= rep["upper"] <= rep["objective"]
    assert rep["ratio_min"] <= rep["ratio_max"]
    code, out, _ = run(capsys, "gap", "--map", MESH, "--chosen", alloc, "--time-limit", "2")
    # within 2 s the exact solver proves the optimum or leaves a certified bracket
    assert code == 0 and ("certified" in out or "optimum" in out)


def _bad(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    "argv, match",
    [
        (["solve", "--map", MESH, "--k", "3", "--method", "nope"], "invalid choice"),
        (["solve", "--map", MESH, "--k", "0"], "--k must be between 1"),
        (["solve", "--map", MESH, "--k", "100000"], "--k must be between 1"),
        (["solve", "--map", MESH, "--k", "two"], "invalid int value"),
        (["solve", "--map", "does-not-exist.txt", "--k", "3"], "no such file"),
        (["solve", "--machine", "does-not-exist.txt", "--k", "3"], "no such file"),
        (["solve", "--machine", "8y8", "--k", "3"], "--machine"),
        (["solve", "--machine", "8x8 torus", "--k", "3", "--method", "line"], "needs a mesh; on a 8x8 torus"),
        (["solve", "--machine", "8x8", "--k", "3", "--shape", "8x8"], "--shape is taken from --machine"),
        (["solve", "--map", MESH, "--machine", "8x8", "--k", "3"], "not allowed with argument"),
        (["solve", "--points", PLANE, "--k", "3", "--method", "mc1x1"], "needs the mesh extent"),
        (["solve", "--points", PLANE, "--k", "3", "--method", "mm", "--time-limit", "1"], "does not apply"),
        (["solve", "--map", MESH, "--k", "3", "--method", "mc1x1", "--tie-break", "1,2"], "--tie-break"),
        (["solve", "--map", MESH, "--k", "4", "--method", "k3"], "k = 3 only"),
        (["solve", "--k", "3"], "one of the arguments --points --map --machine is required"),
        (["gap", "--points", PLANE], "--chosen"),
    ],
)
def test_bad_input_exit_2_one_line(capsys, argv, match):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert match in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_bad_files_exit_2(capsys, tmp_path):
    cases = [
        (_bad(tmp_path, "empty.txt", ""), "file is empty"),
        (_bad(tmp_path, "ragged.txt", "0 0\n1 1 1\n"), "expected 2"),
        (_bad(tmp_path, "nan.txt", "0 0\nnan 1\n"), "NaN"),
    ]
    for path, match in cases:
        code, _, err = run(capsys, "solve", "--points", path, "--k", "1")
        assert code == 2 and match in err and err.count("\n") == 1
    busy = _bad(tmp_path, "busy.txt", "15 15\n")  # a busy cell of the bundled mesh
    code, _, err = run(capsys, "gap", "--map", MESH, "--chosen", busy)
    assert code == 2 and "not a free point" in err


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "optalloc.cli", "solve", "--map", str(MESH), "--k", "2"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "objective" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "optalloc.cli", "solve", "--k", "2", "--map", "/nonexistent"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and proc.stderr.strip().startswith("optalloc: error:")


def test_bench_quick(capsys):
    code, out, err = run(capsys, "bench", "--quick", "--repeat", "1", "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert {r["case"] for r in rows} >= {"mm", "mc1x1", "gen-alg", "line", "k3", "weight"}
    assert all(r["agree"] for r in rows)
    assert all(r["seconds"] > 0 and r["baseline_seconds"] > 0 for r in rows)


def test_solve_exact_with_time_limit(capsys, tmp_path):
    mesh = tmp_path / "mesh.txt"
    mesh.write_text("..#..\n.#...\n...#.\n#....\n..#..\n")
    code, out, err = run(capsys, "solve", "--map", mesh, "--k", 6, "--method", "exact", "--time-limit", 30, "--json")
    assert code == 0, err
    res = json.loads(out)
    free = read_map(mesh).free_points()
    assert res["status"] == "optimal" and res["objective"] == brute(free, 6).objective


def test_gap_time_limit_must_be_positive(capsys):
    code, _, err = run(capsys, "gap", "--points", PLANE, "--chosen", CHOSEN, "--time-limit", 0)
    assert code == 2 and "--time-limit must be positive" in err


def test_bench_exact_suite_quick(capsys):
    code, out, err = run(capsys, "bench", "--suite", "exact", "--quick", "--limit", 30, "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert [r["case"].split()[0] for r in rows] == ["exact", "exact", "box", "ptas", "ptas", "ptas", "exact"]
    assert rows[1]["baseline"] == "exact, profiles=False" and "4 busy" in rows[1]["instance"]
    assert rows[2]["baseline"] == "score every partition" and "12x12 box, k=64" in rows[2]["instance"]
    assert "3x3x3" in rows[-2]["instance"]
    assert "6x6x6, 50% free" in rows[-1]["instance"] and "gap" in rows[-1]["case"]
    assert rows[-1]["baseline"].startswith("cheap bracket")
    assert all(r["agree"] for r in rows)


def test_solve_ptas_strips(capsys):
    code, out, err = run(capsys, "solve", "--points", PLANE, "--k", 3, "--method", "ptas", "--strips", 1, "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["extra"]["m"] == 1 and res["guarantee"] is None
    assert res["objective"] >= brute(read_points(PLANE), 3).objective
    code, _, err = run(capsys, "solve", "--points", PLANE, "--k", 3, "--method", "mm", "--strips", 2)
    assert code == 2 and "--strips does not apply" in err


def test_exact_progress_goes_to_stderr(capsys, tmp_path):
    # an 8 x 8 mesh, half free, whose k = 10 optimum the shape search proves
    from optalloc.bench import half_free_mesh

    machine = Machine((8, 8))
    free = machine.node_ids(half_free_mesh(8, 8, seed=1))
    machine.allocate(np.setdiff1d(np.arange(machine.n), free))
    mesh = tmp_path / "mesh.txt"
    mesh.write_text(machine.to_map())
    code, out, err = run(capsys, "solve", "--machine", mesh, "--k", 10, "--method", "exact", "--progress", "--json")
    assert code == 0
    res = json.loads(out)  # stdout stays one JSON object
    assert res["status"] == "optimal" and res["extra"]["phase"] == "shapes"
    assert err.startswith("shape search (") and "bound" in err


def test_solve_machine_shape_and_map_file(capsys):
    # a shape: every node free, the extent is the shape
    code, out, err = run(capsys, "solve", "--machine", "4x4", "--k", 4, "--method", "mc1x1", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["objective"] == 8.0 and len(res["indices"]) == 4
    # a machine map given to --machine is the same instance as --map
    outs = []
    for flag in ("--machine", "--map"):
        code, out, err = run(capsys, "solve", flag, MESH, "--k", 8, "--method", "gen-alg", "--json")
        assert code == 0, err
        outs.append({k: v for k, v in json.loads(out).items() if k != "runtime"})
    assert outs[0] == outs[1]


def test_solve_refuses_a_network(capsys, tmp_path):
    net = _bad(tmp_path, "net.txt", "a b\nb c\n")
    code, _, err = run(capsys, "solve", "--machine", net, "--k", 2)
    assert code == 2 and "needs a mesh" in err and err.count("\n") == 1


def test_removed_flags_are_refused(capsys):
    for argv in (["solve", "--mesh", MESH, "--k", "2"], ["order", "--mesh", "4x4"],
                 ["simulate", "instances/small.swf", "--mesh", "8x4"], ["certify", "--torus"],
                 ["map", "--pattern", "ring:4", "--topology", "mesh:2x2"]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and ("unrecognized arguments" in err or "required" in err), (argv, err)


@pytest.mark.parametrize("command", ["solve", "gap", "bench", "order", "map", "qap", "simulate", "certify",
                                     "sweep", "plot"])
def test_every_subcommand_has_help(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: optalloc {command}")
    if command in ("order", "map", "simulate", "certify"):
        assert "--machine SPEC" in out


def _imports(path):
    import ast

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.startswith("optalloc"):
            yield node.module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            yield from ((a.name, []) for a in node.names if a.name.startswith("optalloc"))


def test_cli_and_bench_use_public_names_only():
    """The command line and the benchmarks sit above the library: they import
    names of a package's ``__all__`` (or of a shared core module such as
    ``optalloc._text``) only, and the library imports neither."""
    import importlib

    root = ROOT / "optalloc"
    for layer in ("cli", "bench"):
        for path in sorted((root / layer).rglob("*.py")):
            for module, names in _imports(path):
                parts = module.split(".")
                if len(parts) == 2 and parts[0] == "optalloc" and parts[1].startswith("_"):
                    continue  # the core, shared by every layer
                if parts[:2] == ["optalloc", layer]:
                    continue  # the layer's own modules (bench.scale reads bench._common)
                assert not any(p.startswith("_") for p in parts), f"{path.name}: {module}"
                public = getattr(importlib.import_module(module), "__all__", None)
                if names and module not in ("optalloc.cli", "optalloc.bench"):
                    assert public is not None and set(names) <= set(public), f"{path.name}: {module} {names}"
    for path in root.rglob("*.py"):
        if path.relative_to(root).parts[0] in ("cli", "bench") or "__pycache__" in path.parts:
            continue
        for module, _ in _imports(path):
            assert not module.startswith(("optalloc.cli", "optalloc.bench")), f"{path}: imports {module}"


def test_bench_suites_on_the_command_line_are_the_benchmark_suites():
    from optalloc import bench
    from optalloc.cli import _bench as cli_bench

    assert tuple(cli_bench.SUITES) == tuple(bench.SUITES)
    from optalloc.bench import scale

    assert tuple(cli_bench.SCALE_PARTS) == tuple(scale.PARTS)
    from optalloc.bench import networks

    assert tuple(cli_bench.NETWORK_PARTS) == tuple(networks.PARTS)


def test_solve_on_a_torus_and_a_network(capsys, tmp_path):
    import networkx as nx

    code, out, _ = run(capsys, "solve", "--machine", "6x6 torus", "--k", 4, "--method", "exact", "--json")
    res = json.loads(out)
    assert code == 0 and res["status"] == "optimal" and res["objective"] == 8.0  # a 2x2 block
    path = tmp_path / "ring.json"
    path.write_text(json.dumps(nx.node_link_data(nx.cycle_graph(["a", "b", "c", "d", "e", "f"]), edges="links")))
    code, out, _ = run(capsys, "solve", "--machine", path, "--k", 3, "--method", "gen-alg")
    assert code == 0 and "W = 4" in out
    chosen = out.split("chosen:")[1].split()
    assert len(chosen) == 3 and set(chosen) <= set("abcdef")
