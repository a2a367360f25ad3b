"""``optalloc workload lublin`` and scaling a trace up to a larger machine
(``scale_up``, ``simulate --scale-up``, a sweep's ``scale_up``)."""

from __future__ import annotations

import json

import pytest

from optalloc import instance_path
from optalloc.cli import main
from optalloc.sim import Job, Trace, lublin_workload, make_sweep, read_sweep, read_swf, run_sweep, scale_up

SMALL = instance_path("small.swf")  # a 32-processor trace


# ---------------------------------------------------------------- workload lublin


def test_lublin_to_stdout_is_the_library_trace(capsys, tmp_path):
    assert main(["workload", "lublin", "--nodes", "256", "--jobs", "400", "--seed", "7"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    path = tmp_path / "t.swf"
    path.write_text(out)
    assert read_swf(path) == lublin_workload(256, 400, seed=7)
    assert "; MaxNodes: 256" in out.splitlines()[:10]


def test_lublin_out_file_and_force(capsys, tmp_path):
    path = tmp_path / "t.swf"
    argv = ["workload", "lublin", "--nodes", "64", "--jobs", "100", "--out", str(path)]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out == "" and "100 jobs" in err
    first = path.read_text()
    assert main([*argv[:-2], "--seed", "1", "--out", str(path)]) == 2  # exists
    assert "exists; pass --force" in capsys.readouterr().err
    assert path.read_text() == first
    assert main([*argv[:-2], "--seed", "1", "--out", str(path), "--force"]) == 0
    assert read_swf(path) == lublin_workload(64, 100, seed=1)


def test_lublin_options(capsys, tmp_path):
    path = tmp_path / "t.swf"
    assert main(["workload", "lublin", "--nodes", "64", "--jobs", "50", "--one-class", "--start-hour", "9",
                 "--load", "0.7", "--out", str(path)]) == 0
    assert read_swf(path) == lublin_workload(64, 50, seed=0, job_types=False, start_hour=9, load=0.7)


@pytest.mark.parametrize(("argv", "message"), [
    (["--nodes", "0", "--jobs", "5"], "--nodes must be a positive integer, got 0"),
    (["--nodes", "8", "--jobs", "-1"], "--jobs must be a positive integer, got -1"),
    (["--nodes", "8", "--jobs", "5", "--start-hour", "24"], "--start-hour must be an integer hour 0..23"),
    (["--nodes", "8", "--jobs", "5", "--load", "0"], "--load must be a positive finite number"),
    (["--nodes", "8", "--jobs", "5", "--seed", "x"], "--seed"),
    (["--nodes", "8"], "--jobs"),
    (["--nodes", "8", "--jobs", "5", "--out", "/no/such/folder/t.swf"], "does not exist"),
])
def test_lublin_bad_input(capsys, argv, message):
    assert main(["workload", "lublin", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err and err.count("\n") == 1 and "Traceback" not in err


# ---------------------------------------------------------------- scale_up


def test_scale_up_rule():
    t = Trace([Job(i, i, 10 + i, p) for i, p in enumerate([1, 2, 3, 5, 8, 13, 32], start=1)], max_procs=32)
    for nodes in (32, 33, 48, 100, 1000, 13_824):
        up = scale_up(t, nodes)
        assert up.max_procs == nodes
        for a, b in zip(t, up):
            # nearest integer of procs * nodes / 32, halves up, within [1, nodes]
            want = min(nodes, max(1, int(a.procs * nodes / 32 + 0.5)))
            assert b.procs == want and (b.submit, b.runtime, b.estimate, b.job_id) == (
                a.submit, a.runtime, a.estimate, a.job_id)
        assert up[-1].procs == nodes  # the full machine stays full
    assert scale_up(t, 32) == t
    small = Trace(t.jobs[:5], max_procs=32)  # sizes up to 8 of a 16-node machine
    assert [j.procs for j in scale_up(small, 80, trace_nodes=16)] == [5, 10, 15, 25, 40]


@pytest.mark.parametrize(("trace", "nodes", "kwargs", "match"), [
    (Trace([Job(1, 0, 1, 4)], max_procs=8), 4, {}, r"`nodes` \(4\) is smaller than the trace's machine \(8\)"),
    (Trace([Job(1, 0, 1, 4)]), 64, {}, "the trace's machine size is unknown"),
    (Trace([Job(1, 0, 1, 4), Job(7, 0, 1, 9)], max_procs=8), 64, {},
     r"job 7 needs 9 processors, more than the trace's machine \(8\): it cannot fit 64 nodes even scaled"),
    (Trace([Job(1, 0, 1, 4)], max_procs=8), 0, {}, "`nodes` must be a positive integer"),
    (Trace([Job(1, 0, 1, 4)], max_procs=8), 16, {"trace_nodes": 0}, "`trace_nodes` must be a positive integer"),
])
def test_scale_up_refused(trace, nodes, kwargs, match):
    with pytest.raises(ValueError, match=match) as exc:
        scale_up(trace, nodes, **kwargs)
    assert "\n" not in str(exc.value)


def test_simulate_scale_up(capsys):
    assert main(["simulate", str(SMALL), "--machine", "16x16", "--scale-up", "--json", "-q"]) == 0
    got = json.loads(capsys.readouterr().out)
    trace = scale_up(read_swf(SMALL), 256)
    assert got["summary"]["jobs"] == len(trace)
    assert max(j.procs for j in trace) == 256 > max(j.procs for j in read_swf(SMALL))
    # the same as simulating the scaled trace written out
    area = sum(j.procs * j.runtime for j in trace)
    assert abs(got["summary"]["utilisation"] * 256 * got["summary"]["makespan"] - area) < 1e-6 * area


@pytest.mark.parametrize(("argv", "message"), [
    (["--machine", "4x4", "--scale-up"], "--scale-up: the machine (16 nodes) is smaller than the trace's (32)"),
    (["--machine", "16x16", "--scale-up", "--scale", "2"], "--scale divides"),
])
def test_simulate_scale_up_refused(capsys, argv, message):
    assert main(["simulate", str(SMALL), *argv, "-q"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_simulate_scale_up_needs_the_trace_machine(capsys, tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("1 0 -1 10 4 -1 -1 4 -1 -1 1 1 1 -1 0 -1 -1 -1\n")
    assert main(["simulate", str(path), "--machine", "8x8", "--scale-up", "-q"]) == 2
    assert "gives no MaxProcs or MaxNodes" in capsys.readouterr().err


def test_sweep_scale_up(tmp_path):
    up = make_sweep(traces=[{"path": str(SMALL), "scale_up": True}], machines=["8x4", "16x16"],
                    schedulers=["easy"], allocators=["mc1x1"], name="up")
    plain = make_sweep(traces=[str(SMALL)], machines=["8x4", "16x16"], schedulers=["easy"],
                       allocators=["mc1x1"], name="plain")
    # scale_up is in a trace's key only when set: sweeps without it keep their keys
    assert "scale_up" not in json.dumps(plain.configurations[0].spec)
    assert up.configurations[0].key != plain.configurations[0].key
    db = tmp_path / "s.sqlite"
    run_sweep(up, db, workers=1, progress=False)
    rows = {r["machine"]: r["summary"] for r in read_sweep(db, up)}
    trace = read_swf(SMALL)
    for machine, nodes in (("8x4", 32), ("16x16", 256)):
        scaled = scale_up(trace, nodes)
        area = sum(j.procs * j.runtime for j in scaled)
        s = rows[machine]
        assert s["jobs"] == len(trace)
        assert abs(s["utilisation"] * nodes * s["makespan"] - area) < 1e-6 * area


@pytest.mark.parametrize(("entry", "match"), [
    ({"scale_up": "yes"}, "`scale_up` must be true or false"),
    ({"scale_up": True, "scale": 2}, "not with `scale` or `max_procs`"),
    ({"scale_up": True, "max_procs": 64}, "not with `scale` or `max_procs`"),
])
def test_sweep_scale_up_refused(entry, match):
    with pytest.raises(ValueError, match=match):
        make_sweep(traces=[{"path": str(SMALL), **entry}], machines=["8x4"], schedulers=["easy"],
                   allocators=["mc1x1"])
