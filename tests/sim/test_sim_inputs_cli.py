"""simulate / certify on the files users bring: .swf.gz, malformed lines, empty traces, Batsim CSV."""

import csv
import gzip
import json
import os
from pathlib import Path

import pytest

from optalloc.cli import main
from optalloc.sim import make_sweep, read_sweep, read_swf, run_sweep

SMALL = Path(__file__).resolve().parents[2] / "instances" / "small.swf"


def swf_line(job, submit, run, procs):
    return " ".join(str(v) for v in [job, submit, -1, run, procs, -1, -1, procs, -1, -1, 1, 1, 1, -1, 0, -1, -1, -1])


@pytest.fixture
def small_gz(tmp_path):
    path = tmp_path / "small.swf.gz"
    path.write_bytes(gzip.compress(SMALL.read_bytes()))
    return path


def _summary(capsys, argv):
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    data.pop("runtime")
    data["summary"].pop("allocator_time")
    data["summary"].pop("event_time")
    return data


def test_simulate_gzipped_trace(capsys, small_gz):
    assert main(["simulate", str(small_gz), "--machine", "8x4"]) == 0
    out = capsys.readouterr().out
    assert "120 jobs kept" in out and "utilisation" in out
    plain = _summary(capsys, ["simulate", str(SMALL), "--machine", "8x4", "--json"])
    packed = _summary(capsys, ["simulate", str(small_gz), "--machine", "8x4", "--json"])
    assert plain == packed


def test_certify_gzipped_trace(capsys, small_gz):
    assert main(["certify", str(small_gz), "--jobs", "10", "--allocators", "mm,mc1x1"]) == 0
    assert "10/10 decisions proven" in capsys.readouterr().out


def test_sweep_over_a_gzipped_trace(tmp_path, small_gz):
    cfg = make_sweep(traces=[{"path": str(small_gz), "limit": 15}], machines=["8x4"], allocators=["mm"])
    report = run_sweep(cfg, tmp_path / "s.sqlite", workers=1)
    assert report.failed == 0
    (row,) = read_sweep(tmp_path / "s.sqlite")
    assert row["status"] == "done" and row["summary"]["jobs"] == 15


def test_corrupt_gzip_trace_is_exit_2(tmp_path, capsys, small_gz):
    bad = tmp_path / "bad.swf.gz"
    bad.write_bytes(small_gz.read_bytes()[:200])
    assert main(["simulate", str(bad), "--machine", "8x4"]) == 2
    err = capsys.readouterr().err
    assert "corrupt gzip file" in err and err.count("\n") == 1


def test_malformed_line_names_the_flag(tmp_path, capsys):
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 32\n" + swf_line(1, 0, 10, 4) + "\n1 2 3\n" + swf_line(2, 5, 10, 2) + "\n")
    with pytest.raises(ValueError, match=r"pass strict=False \(command line: --skip-bad-lines\)"):
        read_swf(path)
    for cmd in ("simulate", "certify"):
        assert main([cmd, str(path), "--machine", "8x4"]) == 2
        err = capsys.readouterr().err
        assert "t.swf:3: malformed SWF line" in err and "--skip-bad-lines" in err
    assert main(["simulate", str(path), "--machine", "8x4", "--skip-bad-lines", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["jobs"] == 2
    assert data["trace_report"]["bad_lines"] == 1 and data["trace_report"]["bad_line_numbers"] == [3]
    assert main(["certify", str(path), "--machine", "8x4", "--skip-bad-lines", "--allocators", "mm"]) == 0
    assert "2/2 decisions proven" in capsys.readouterr().out


@pytest.mark.parametrize("body, expect", [
    ("", "no job left to simulate: the file has no job lines"),
    (swf_line(1, 0, -5, 4), "1 job line, none kept: 1 with a bad run time (unknown, zero or negative)"),
    (swf_line(1, 0, 10, 64) + "\n" + swf_line(2, 0, -1, 2),
     ("2 job lines, none kept: 1 with a bad run time (unknown, zero or negative), "
      "1 larger than the machine (32 processors)")),
])
def test_empty_trace_says_what_removed_the_jobs(tmp_path, capsys, body, expect):
    path = tmp_path / "t.swf"
    path.write_text("; Version: 2.2\n" + body + "\n")
    for cmd in ("simulate", "certify"):
        assert main([cmd, str(path), "--machine", "8x4"]) == 2
        err = capsys.readouterr().err
        assert expect in err and f"{path}: no job left to simulate: " in err and err.count("\n") == 1


def test_simulate_batsim_csv(tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    assert main(["simulate", str(SMALL), "--machine", "8x4", "--jobs", "20", "--out", str(out),
                 "--format", "batsim"]) == 0
    assert "written" in capsys.readouterr().out
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 20 and rows[0]["workload_name"] == "small"
    assert list(rows[0])[:3] == ["job_id", "workload_name", "profile"] and list(rows[0])[-1] == "metadata"
    # an existing file is kept without --force
    before = out.read_bytes()
    assert main(["simulate", str(SMALL), "--machine", "8x4", "--jobs", "5", "--out", str(out),
                 "--format", "batsim"]) == 2
    assert "--force" in capsys.readouterr().err and out.read_bytes() == before
    assert main(["simulate", str(SMALL), "--machine", "8x4", "--jobs", "5", "--out", str(out),
                 "--format", "batsim", "--force"]) == 0
    with open(out, newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 5
    # Batsim CSV is CSV
    assert main(["simulate", str(SMALL), "--machine", "8x4", "--out", str(tmp_path / "j.jsonl"),
                 "--format", "batsim"]) == 2
    assert ".csv" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "j.jsonl")
