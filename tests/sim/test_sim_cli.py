"""The simulate and certify subcommands: output, files and exit codes."""

import csv
import json
from pathlib import Path

import pytest

from optalloc.cli import main
from optalloc.cli._sim import bundled_trace, split_allocators

SMALL = str(Path(__file__).resolve().parents[2] / "instances" / "small.swf")
PNG = b"\x89PNG\r\n\x1a\n"


def test_bundled_trace_found():
    assert bundled_trace().is_file() and str(bundled_trace()) == str(Path(SMALL).resolve())


def test_simulate_table(capsys):
    assert main(["simulate", SMALL, "--machine", "8x4", "--allocator", "mc1x1:tie=default"]) == 0
    out = capsys.readouterr().out
    for word in ("jobs", "utilisation", "makespan", "mean wait", "mean avg L1", "ties", "120"):
        assert word in out
    assert "mc1x1:tie_break=default" in out


def test_simulate_json_and_out(tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    assert main(["simulate", SMALL, "--machine", "8x4", "--scheduler", "fcfs", "--jobs", "30", "--out", str(out),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scheduler"] == "fcfs" and data["summary"]["jobs"] == 30
    with open(out, newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 30
    # no overwrite without --force
    assert main(["simulate", SMALL, "--machine", "8x4", "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["simulate", SMALL, "--machine", "8x4", "--jobs", "10", "--out", str(out), "--force"]) == 0
    capsys.readouterr()
    jl = tmp_path / "jobs.jsonl"
    assert main(["simulate", SMALL, "--machine", "4x4 torus", "--scale", "2", "--jobs", "10",
                 "--out", str(jl)]) == 0
    lines = jl.read_text().splitlines()
    assert len(lines) == 11 and "summary" in json.loads(lines[-1])
    assert "4x4 torus" in capsys.readouterr().out


def test_simulate_progress(capsys):
    assert main(["simulate", SMALL, "--machine", "8x4", "--jobs", "5", "--progress"]) == 0
    assert "5/5" in capsys.readouterr().err


def test_certify_no_arguments(capsys):
    assert main(["certify"]) == 0
    out = capsys.readouterr().out
    for name in ("mm", "gen-alg", "mc1x1 (driver)", "mm-inc", "1d:gilbert:best-fit", "mean ratio",
                 "max ratio", "optimal", "cache hits", "total time", "120/120 decisions proven"):
        assert name in out
    assert "small.swf" in out


def test_certify_options(tmp_path, capsys):
    out, plot = tmp_path / "d.jsonl", tmp_path / "gaps.png"
    argv = ["certify", SMALL, "--machine", "8x4", "--allocators", "mm,mc1x1:tie=2,13,20,6", "--driver", "mm",
            "--jobs", "20", "--time-limit", "5", "--out", str(out), "--plot", str(plot), "--progress"]
    assert main(argv) == 0
    cap = capsys.readouterr()
    assert "mm (driver)" in cap.out and "mc1x1:tie_break=(2,13,20,6)" in cap.out
    assert "certify: 20/20 decisions" in cap.err
    assert len(out.read_text().splitlines()) == 21
    assert plot.read_bytes()[:8] == PNG
    assert main(argv) == 2  # files exist, no --force
    assert "exists" in capsys.readouterr().err
    assert main([*argv, "--force"]) == 0
    capsys.readouterr()


def test_certify_resume(tmp_path, capsys):
    out = tmp_path / "d.csv"
    argv = ["certify", SMALL, "--machine", "8x4", "--jobs", "20", "--out", str(out)]
    assert main(argv) == 0
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:8]) + "\n")  # as if stopped after 7 decisions
    capsys.readouterr()
    assert main(argv) == 2
    assert "--resume" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    assert "(7 read back from the resumed file)" in capsys.readouterr().out
    assert len(out.read_text().splitlines()) == 21
    for extra, match in ((["--resume", "--force"], "one of them"),):
        assert main([*argv, *extra]) == 2
        assert match in capsys.readouterr().err
    assert main(["certify", "--jobs", "3", "--resume"]) == 2
    assert "give --out" in capsys.readouterr().err


def test_certify_json(capsys):
    assert main(["certify", "--jobs", "20", "--json", "--no-exact"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["decisions"] == 20 and data["exact"] is False and data["violations"] == []
    assert [s["name"] for s in data["summary"]] == ["mm", "gen-alg", "mc1x1", "mm-inc", "1d:gilbert:best-fit"]


def test_certify_reports_the_jobs_it_skipped(tmp_path, capsys):
    """Jobs larger than the machine are skipped on reading; certify says so
    in its table, its first line and its JSON, as simulate does."""
    sizes = [3, 20, 5, 16, 17, 2]  # on a 4 x 4 mesh (16 nodes): 20 and 17 do not fit
    trace = tmp_path / "t.swf"
    trace.write_text("".join(f"{i} {10 * i} 0 100 {p} -1 -1 {p} 200 -1 1 1 1 1 1 1 -1 -1\n"
                             for i, p in enumerate(sizes, 1)), encoding="utf-8")
    too_large = sum(p > 16 for p in sizes)
    reports = {}
    for command in ("simulate", "certify"):
        extra = ["--no-exact"] if command == "certify" else []
        assert main([command, str(trace), "--machine", "4x4", "--json", "-q", *extra]) == 0
        reports[command] = json.loads(capsys.readouterr().out)["trace_report"]
    assert reports["certify"] == reports["simulate"]
    assert reports["certify"]["oversize_skipped"] == too_large and reports["certify"]["jobs"] == len(sizes) - too_large

    assert main(["certify", str(trace), "--machine", "4x4", "-q", "--no-exact"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"certify: {trace} (6 lines, 4 jobs kept, 2 skipped), driver mc1x1"
    assert "trace: 6 job lines, 4 kept: 2 larger than the machine" in out
    assert main(["simulate", str(trace), "--machine", "4x4", "-q"]) == 0
    assert "(6 lines, 4 jobs kept, 2 skipped)" in capsys.readouterr().out  # the same words


def test_certify_says_nothing_of_a_trace_read_whole(capsys):
    assert main(["certify", "--jobs", "10", "--no-exact", "-q"]) == 0
    out = capsys.readouterr().out
    assert "(120 lines, 120 jobs kept, 0 skipped)" in out.splitlines()[0]
    assert "trace:" not in out


@pytest.mark.parametrize(("argv", "match"), [
    (["simulate", "no/such/trace.swf", "--machine", "8x4"], "no such trace file"),
    (["simulate", SMALL, "--machine", "8y4"], "--machine"),
    (["simulate", SMALL, "--machine", "0x4"], "--machine"),
    (["simulate", SMALL], "--machine"),
    (["simulate", SMALL, "--machine", "8x4", "--allocator", "bogus"], "unknown method"),
    (["simulate", SMALL, "--machine", "8x4", "--scheduler", "lifo"], "scheduler"),
    (["simulate", SMALL, "--machine", "8x4", "--out", "x.txt"], "--out"),
    (["simulate", SMALL, "--machine", "8x4", "--scale", "0"], "--scale"),
    (["certify", "no/such/trace.swf"], "no such trace file"),
    (["certify", "--machine", "abc"], "--machine"),
    (["certify", "--machine", "no/such/map.txt"], "no such file"),
    (["simulate", SMALL, "--mesh", "8x4"], "required: --machine"),
    (["simulate", SMALL, "--machine", "8x4", "--torus"], "unrecognized arguments: --torus"),
    (["certify", "--allocators", "mm,bogus"], "unknown method"),
    (["certify", "--driver", "1d:nocurve:best-fit", "--jobs", "3"], "order|curve|ordering"),
    (["certify", "--time-limit", "0"], "--time-limit"),
    (["certify", "--jobs", "0"], "--jobs"),
    (["certify", "--plot", "gaps.txt"], "--plot"),
    (["certify", "--allocators", ","], "--allocators"),
])
def test_bad_input(argv, match, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("optalloc: error:") and len(err.strip().splitlines()) == 1
    assert any(m.lower() in err.lower() for m in match.split("|"))


def test_split_allocators():
    assert split_allocators("mm, mc1x1:tie=2,13,20,6 ,gen-alg") == ["mm", "mc1x1:tie=2,13,20,6", "gen-alg"]
    assert split_allocators("mc1x1:tie=2,1.5,.5,-1") == ["mc1x1:tie=2,1.5,.5,-1"]
    # a 1D allocator starts with a digit but is no number: it starts a spec
    assert split_allocators("mm,1d:gilbert:best-fit,mc1x1:tie=2,13,20,6,1d:snake:first-fit") == [
        "mm", "1d:gilbert:best-fit", "mc1x1:tie=2,13,20,6", "1d:snake:first-fit"]


def test_machine_specs(tmp_path, capsys):
    # the forms of parse_machine: prefix, per-axis wrap, a map file without busy nodes
    assert main(["simulate", SMALL, "--machine", "torus:8x4", "--jobs", "10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["machine"] == "8x4 torus"
    assert main(["simulate", SMALL, "--machine", "8x4 torus(tm)", "--jobs", "10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["machine"] == "8x4 torus(tm)"
    empty = tmp_path / "empty.txt"
    empty.write_text("........\n" * 4)
    assert main(["certify", "--machine", str(empty), "--jobs", "10", "--json", "--no-exact"]) == 0
    assert json.loads(capsys.readouterr().out)["machine"] == "8x4 mesh"


@pytest.mark.parametrize("command", ["simulate", "certify"])
def test_busy_machine_refused(tmp_path, capsys, command):
    busy = tmp_path / "busy.txt"
    busy.write_text("..#.....\n........\n........\n.......#\n")
    argv = [command, SMALL, "--machine", str(busy)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("optalloc: error:") and len(err.strip().splitlines()) == 1
    assert "2 busy nodes" in err and "empty machine" in err
