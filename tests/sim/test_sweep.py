"""Sweeps: grid expansion, config errors, the SQLite store, resuming, executors, CLI."""

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from optalloc.cli import main
from optalloc.sim import (
    Job,
    SweepConfig,
    Trace,
    format_sweep,
    load_sweep,
    make_sweep,
    read_jobs,
    read_sweep,
    read_swf,
    run_sweep,
    simulate,
)
from optalloc.sim.sweep import _spec, _store, _worker

REPO = Path(__file__).resolve().parents[2]
SMALL = REPO / "instances" / "small.swf"
EXAMPLE = REPO / "instances" / "sweep-example.toml"
TIMING = {"wall_time", "finished_at", "allocator_time", "event_time", "added_at"}


def head_swf(src, dest, n):
    """The header and first n job lines of an SWF file."""
    lines, jobs = [], 0
    for line in Path(src).read_text().splitlines():
        if line.strip().startswith(";") or not line.strip():
            lines.append(line)
        elif jobs < n:
            lines.append(line)
            jobs += 1
    Path(dest).write_text("\n".join(lines) + "\n")
    return dest


@pytest.fixture
def tiny(tmp_path):
    return head_swf(SMALL, tmp_path / "tiny.swf", 30)


CONFIG = """
[sweep]
name = "t"
traces = [{path = "tiny.swf"}]
machines = ["8x4"]
schedulers = ["easy"]
allocators = ["mc1x1", "mm", "random"]
seeds = [0, 1]
job_records = true

[grid]
tie = [[2, 13, 20, 6]]
"""


def write_config(folder, text=CONFIG, name="sweep.toml"):
    path = Path(folder) / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def config_path(tmp_path, tiny):
    return write_config(tmp_path)


def dump(db):
    """Table contents without timings, as sorted lists (order of writing is not compared)."""
    conn = sqlite3.connect(db)
    try:
        out = {}
        for table in ("configurations", "summaries", "jobs", "failures"):
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] not in TIMING | {"failed_at"}]
            sel = ", ".join(f'"{c}"' for c in cols)
            out[table] = sorted(conn.execute(f"SELECT {sel} FROM {table}").fetchall(), key=repr)
        return out
    finally:
        conn.close()


def summaries(db):
    return {r["key"]: {k: v for k, v in r["summary"].items() if k not in TIMING}
            for r in read_sweep(db) if r["status"] == "done"}


# ---------------------------------------------------------------- configuration


def test_grid_expansion_order_and_seeds(tiny):
    cfg = make_sweep(traces=[str(tiny)], machines=["8x4", "4x4 torus"], schedulers=["easy", "fcfs"],
                     allocators=["mm", "random"], grid={"tie": [[2, 13, 20, 6], "default"]}, seeds=[0, 1])
    per_block = ["mm", "random", "random", "mc1x1:tie=2,13,20,6", "mc1x1:tie=default"]
    assert len(cfg) == 2 * 2 * len(per_block)
    assert [c.allocator for c in cfg.configurations[:5]] == per_block
    assert [c.seed for c in cfg.configurations[:5]] == [None, 0, 1, None, None]
    assert [(c.machine, c.scheduler) for c in cfg.configurations[::5]] == [
        ("8x4", "easy"), ("8x4", "fcfs"), ("4x4 torus", "easy"), ("4x4 torus", "fcfs")]
    assert [c.index for c in cfg.configurations] == list(range(len(cfg)))
    assert len(set(cfg.keys)) == len(cfg)
    spec = cfg.configurations[3].spec
    assert spec["allocator"] == {"method": "mc1x1", "options": {"tie_break": [2, 13, 20, 6]}}
    assert spec["machine"] == {"shape": [8, 4], "torus": [False, False]}
    assert cfg.configurations[0].spec["trace"]["sha256"] == cfg.configurations[-1].spec["trace"]["sha256"]


def test_grid_tables_and_option_product(tiny):
    cfg = make_sweep(traces=[str(tiny)], machines=["8x4"], allocators=[],
                     grid=[{"allocator": "mc1x1", "tie": [[2, 13, 20, 6], [3, 9, 3, 2]], "request": [[1, 1], [2, 1]]},
                           {"allocator": "mm-inc", "max_swaps": [1, 5]}])
    assert [c.allocator for c in cfg.configurations] == [
        "mc1x1:tie=2,13,20,6:request=1,1", "mc1x1:tie=2,13,20,6:request=2,1",
        "mc1x1:tie=3,9,3,2:request=1,1", "mc1x1:tie=3,9,3,2:request=2,1",
        "mm-inc:max_swaps=1", "mm-inc:max_swaps=5"]
    assert cfg.configurations[1].spec["allocator"]["options"] == {"tie_break": [2, 13, 20, 6], "request": [2, 1]}


def test_same_configuration_once(tiny):
    cfg = make_sweep(traces=[str(tiny)], machines=["8x4"],
                     allocators=["mc1x1:tie=2,13,20,6", "mc1x1:tie=2,13.0,20,6", "mc1x1:tie_break=(2,13,20,6)",
                                 "random:seed=3", "mm"], seeds=[3])
    assert [c.allocator for c in cfg.configurations] == ["mc1x1:tie=2,13,20,6", "random:seed=3", "mm"]


def test_keys_are_stable_and_follow_trace_content(tmp_path, tiny, config_path):
    a, b = load_sweep(config_path), load_sweep(config_path)
    assert a.keys == b.keys
    head_swf(SMALL, tiny, 29)  # same file name, other content
    c = load_sweep(config_path)
    assert not set(a.keys) & set(c.keys)
    # the labels are not part of the key: a copy elsewhere gives the same keys
    other = tmp_path / "other"
    other.mkdir()
    head_swf(SMALL, other / "renamed.swf", 29)
    d = make_sweep(traces=[str(other / "renamed.swf")], machines=["8x4"], allocators=["mc1x1", "mm", "random"],
                   grid={"tie": [[2, 13, 20, 6]]}, seeds=[0, 1], name="t")
    assert d.keys == c.keys


def test_trace_options_change_keys(tiny):
    base = make_sweep(traces=[str(tiny)], machines=["8x4"]).keys
    assert make_sweep(traces=[{"path": str(tiny), "scale": 1, "oversize": "skip"}], machines=["8x4"]).keys == base
    assert make_sweep(traces=[{"path": str(tiny), "scale": 2}], machines=["8x4"]).keys != base
    assert make_sweep(traces=[{"path": str(tiny), "limit": 10}], machines=["8x4"]).keys != base
    assert make_sweep(traces=[str(tiny)], machines=["8x4"], kill_at_estimate=False).keys != base


def test_example_config_loads():
    cfg = load_sweep(EXAMPLE)
    assert cfg.name == "tie-breaking"
    assert cfg.source == str(EXAMPLE)
    assert {c.trace for c in cfg.configurations} == {"small.swf"}
    assert len(cfg) == 6


BAD = [
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\ncolour = 'red'\n", r"unknown key 'colour'"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\n[extra]\na = 1\n", r"unknown table or key 'extra'"),
    ("[grid]\ntie = [[2, 13, 20, 6]]\n", r"needs a \[sweep\] table"),
    ("[sweep]\nmachines = ['8x4']\n", r"needs `traces`"),
    ("[sweep]\ntraces = ['missing.swf']\nmachines = ['8x4']\n", r"traces\[0\]: no such trace file .*missing.swf"),
    ("[sweep]\ntraces = [{path = 'tiny.swf', scael = 2}]\nmachines = ['8x4']\n", r"traces\[0\]: unknown key 'scael'"),
    ("[sweep]\ntraces = [{path = 'tiny.swf', scale = 0}]\nmachines = ['8x4']\n", r"`scale` must be a positive"),
    ("[sweep]\ntraces = [{path = 'tiny.swf', oversize = 'drop'}]\nmachines = ['8x4']\n", r"traces\[0\]: `oversize`"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4', '8by4']\n", r"machines\[1\]: `machine` must be a shape"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = []\n", r"machines: must not be empty"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\nschedulers = ['sjf']\n", r"schedulers\[0\]: must be one of"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\nallocators = ['mc2x2']\n",
     r"allocators\[0\]: 'mc2x2': unknown method"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\nallocators = ['mm:colour=1']\n",
     r"allocators\[0\]: 'mm:colour=1': method 'mm' does not take option 'colour'"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\nallocators = ['mc1x1:tie=1,2']\n",
     r"allocators\[0\]: 'mc1x1:tie=1,2' cannot run on machine '8x4': `tie_break`"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\nallocators = ['1d:hilbert:best-fit']\n",
     r"'1d:hilbert:best-fit' cannot run on machine '8x4'"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\nallocators = []\n", r"allocators: must not be empty"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\nseeds = [-1]\n", r"seeds: must be non-negative"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\njob_records = 'yes'\n", r"`job_records` must be true"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\n[grid]\ntie = []\n", r"grid: `tie` must be a non-empty"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\n[grid]\nallocator = 'mc1x1'\n",
     r"grid: needs at least one option list"),
    ("[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\n[grid]\ntie = [[1, 2]]\n",
     r"grid: 'mc1x1:tie=1,2' cannot run on machine"),
    ("[sweep\ntraces = 1\n", r"invalid TOML"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_config_errors(tmp_path, tiny, text, message):
    path = write_config(tmp_path, text)
    with pytest.raises(ValueError, match=message) as info:
        load_sweep(path)
    assert "\n" not in str(info.value)
    assert str(info.value).startswith(str(path))


def test_missing_config_file(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        load_sweep(tmp_path / "none.toml")


def test_malformed_trace_is_a_config_error(tmp_path):
    (tmp_path / "bad.swf").write_text("1 0 -1 10 4\n")
    with pytest.raises(ValueError, match=r"traces\[0\]: .*malformed SWF line"):
        make_sweep(traces=[str(tmp_path / "bad.swf")], machines=["8x4"])


# ---------------------------------------------------------------- running and the store


def test_results_match_simulate_and_rerun_skips(tmp_path, config_path, tiny):
    cfg = load_sweep(config_path)
    db = tmp_path / "r.sqlite"
    rep = run_sweep(cfg, db, workers=1)
    assert (rep.total, rep.skipped, rep.run, rep.failed) == (5, 0, 5, 0)
    rows = read_sweep(db, cfg)
    assert [r["allocator"] for r in rows] == [c.allocator for c in cfg.configurations]
    trace = read_swf(tiny, max_procs=32)
    for r in rows:
        assert r["status"] == "done"
        res = simulate(trace, "8x4", scheduler="easy", allocator=r["allocator"], rng=r["seed"])
        expected = res.summary.to_dict()
        got = r["summary"]
        assert {k: v for k, v in got.items() if k not in TIMING} == \
               {k: v for k, v in expected.items() if k not in TIMING}
        jobs = read_jobs(db, r["key"])
        assert jobs == sorted((x.to_dict() for x in res.records), key=lambda d: d["job_id"])
    before = dump(db)
    again = run_sweep(cfg, db, workers=1)
    assert (again.skipped, again.run, again.failed) == (5, 0, 0)
    assert dump(db) == before


def test_no_duplicate_rows(tmp_path, config_path):
    cfg = load_sweep(config_path)
    db = tmp_path / "r.sqlite"
    for _ in range(3):
        run_sweep(cfg, db, workers=1)
    conn = sqlite3.connect(db)
    for table, cols in (("configurations", "key"), ("summaries", "key"), ("jobs", "key, job_id")):
        assert conn.execute(f"SELECT COUNT(*) FROM (SELECT {cols} FROM {table} GROUP BY {cols} "
                            "HAVING COUNT(*) > 1)").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM summaries").fetchone()[0] == 5
    assert conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0] == 5 * 30
    # a result arriving twice (two sweeps on one file) is stored once
    key = cfg.keys[0]
    out = _worker._run_config({"key": key, "spec": cfg.configurations[0].spec, "allocator": "mc1x1",
                               "job_records": True}, cfg._traces[cfg.configurations[0].spec["trace"]["sha256"]])
    wconn = _store._connect(db, create=True)
    assert _store._write_result(wconn, out) == "skipped"
    wconn.close()
    assert conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0] == 5 * 30
    conn.close()


def test_changed_trace_runs_again_and_keeps_old_results(tmp_path, config_path, tiny):
    db = tmp_path / "r.sqlite"
    first = run_sweep(load_sweep(config_path), db, workers=1)
    head_swf(SMALL, tiny, 25)
    second = run_sweep(load_sweep(config_path), db, workers=1)
    assert (second.skipped, second.run) == (0, 5)
    rows = read_sweep(db)
    assert len(rows) == 10 and all(r["status"] == "done" for r in rows)
    assert sorted(r["summary"]["jobs"] for r in rows) == [25] * 5 + [30] * 5
    assert first.total == second.total == 5


CRASH_AFTER_RESULTS = """
import os, sys
from optalloc.sim import load_sweep, run_sweep
from optalloc.sim.sweep import _worker
real, calls = _worker._run_config, [0]
def counting(task, payload):
    calls[0] += 1
    if calls[0] == int(sys.argv[3]):
        os._exit(3)  # dies like a killed process: no cleanup, no commit
    return real(task, payload)
_worker._run_config = counting
run_sweep(load_sweep(sys.argv[1]), sys.argv[2], workers=1)
"""

CRASH_IN_TRANSACTION = """
import os, sys
from optalloc.sim import load_sweep, run_sweep
from optalloc.sim.sweep import _store
real, calls = _store._job_rows, [0]
def rows(key, records):
    calls[0] += 1
    for i, row in enumerate(real(key, records)):
        if calls[0] == int(sys.argv[3]) and i == 10:
            os._exit(3)  # dies halfway through writing a configuration's job rows
        yield row
_store._job_rows = rows
run_sweep(load_sweep(sys.argv[1]), sys.argv[2], workers=1)
"""


def run_script(script, *args):
    return subprocess.run([sys.executable, "-c", script, *map(str, args)], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def full_dump(tmp_path_factory):
    """The store after one uninterrupted run (keys depend on trace content, not on its folder)."""
    folder = tmp_path_factory.mktemp("full")
    head_swf(SMALL, folder / "tiny.swf", 30)
    db = folder / "full.sqlite"
    run_sweep(load_sweep(write_config(folder)), db, workers=1)
    return dump(db)


@pytest.mark.parametrize("script", [CRASH_AFTER_RESULTS, CRASH_IN_TRANSACTION], ids=["between", "inside"])
def test_resume_after_crash_equals_full_run(tmp_path, config_path, full_dump, script):
    db = tmp_path / "crash.sqlite"
    proc = run_script(script, config_path, db, 3)
    assert proc.returncode == 3, proc.stderr
    partial = dump(db)
    assert len(partial["summaries"]) == 2  # whole configurations only
    done = {r[0] for r in partial["summaries"]}
    assert {r[0] for r in partial["jobs"]} == done
    assert len(partial["jobs"]) == 2 * 30
    rep = run_sweep(load_sweep(config_path), db, workers=1)
    assert (rep.skipped, rep.run, rep.failed) == (2, 3, 0)
    assert dump(db) == full_dump


KILLED_SWEEP = """
import sys
from optalloc.sim import load_sweep, run_sweep
run_sweep(load_sweep(sys.argv[1]), sys.argv[2], workers=2)
"""


def test_resume_after_sigkill_equals_full_run(tmp_path, config_path, full_dump):
    db = tmp_path / "killed.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_SWEEP, str(config_path), str(db)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists():
                try:
                    with sqlite3.connect(db, timeout=5) as conn:
                        if conn.execute("SELECT COUNT(*) FROM summaries").fetchone()[0] >= 1:
                            break
                except sqlite3.OperationalError:  # tables not created yet
                    pass
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its worker processes
        proc.wait()
    partial = dump(db)
    assert 1 <= len(partial["summaries"]) <= 5
    assert len(partial["jobs"]) == 30 * len(partial["summaries"])
    rep = run_sweep(load_sweep(config_path), db, workers=1)
    assert rep.skipped + rep.run == 5 and rep.failed == 0
    assert dump(db) == full_dump


def test_processes_give_the_same_results(tmp_path, config_path):
    cfg = load_sweep(config_path)
    run_sweep(cfg, tmp_path / "one.sqlite", workers=1)
    rep = run_sweep(cfg, tmp_path / "two.sqlite", workers=2)
    assert (rep.run, rep.failed) == (5, 0)
    assert dump(tmp_path / "one.sqlite") == dump(tmp_path / "two.sqlite")


def test_dask_local_cluster_gives_the_same_results(tmp_path, config_path):
    distributed = pytest.importorskip("distributed")
    cfg = load_sweep(config_path)
    run_sweep(cfg, tmp_path / "local.sqlite", workers=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=":0") as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        rep = run_sweep(cfg, tmp_path / "dask.sqlite", scheduler=cluster.scheduler_address)
        assert (rep.run, rep.failed) == (5, 0)
        with distributed.Client(cluster) as client:  # a client is used, and left open
            again = run_sweep(cfg, tmp_path / "dask.sqlite", scheduler=client)
            assert client.status == "running"
        assert (again.skipped, again.run) == (5, 0)
    assert dump(tmp_path / "local.sqlite") == dump(tmp_path / "dask.sqlite")


def test_bad_scheduler_address(tmp_path, config_path):
    with pytest.raises(ValueError, match=r"`scheduler` must be an address"):
        run_sweep(load_sweep(config_path), tmp_path / "x.sqlite", scheduler="localhost:8786")
    assert not (tmp_path / "x.sqlite").exists()
    with pytest.raises(ValueError, match=r"`workers` must be at least 1"):
        run_sweep(load_sweep(config_path), tmp_path / "x.sqlite", workers=0)


def test_failures_are_recorded_and_retried(tmp_path, config_path, monkeypatch):
    cfg = load_sweep(config_path)
    db = tmp_path / "f.sqlite"
    real = _worker._run_config

    def flaky(task, payload):
        if task["allocator"] == "mm":
            raise_here = {"key": task["key"], "error": "RuntimeError: disk on fire"}
            return raise_here
        return real(task, payload)

    monkeypatch.setattr(_worker, "_run_config", flaky)
    rep = run_sweep(cfg, db, workers=1)
    assert (rep.run, rep.failed) == (4, 1)
    mm_key = next(c.key for c in cfg.configurations if c.allocator == "mm")
    assert rep.failures == ((mm_key, "RuntimeError: disk on fire"),)
    rows = {r["allocator"]: r for r in read_sweep(db, cfg) if r["seed"] in (None, 0)}
    assert rows["mm"]["status"] == "failed" and rows["mm"]["error"] == "RuntimeError: disk on fire"
    assert rows["mc1x1"]["status"] == "done"
    assert "failed" in format_sweep(read_sweep(db, cfg))
    run_sweep(cfg, db, workers=1)  # fails again: attempts counted
    assert read_sweep(db, cfg)[1]["attempts"] == 2
    monkeypatch.setattr(_worker, "_run_config", real)
    rep = run_sweep(cfg, db, workers=1)
    assert (rep.skipped, rep.run, rep.failed) == (4, 1, 0)
    assert dump(db)["failures"] == []
    assert all(r["status"] == "done" for r in read_sweep(db, cfg))


def test_run_time_errors_become_failures(tmp_path, tiny):
    # a 16-node job and oversize="error": readable for the trace's 32 processors, fails on 2x2
    cfg = make_sweep(traces=[{"path": str(tiny), "oversize": "error"}], machines=["2x2", "8x4"],
                     allocators=["mm"])
    rep = run_sweep(cfg, tmp_path / "e.sqlite", workers=2)
    assert (rep.run, rep.failed) == (1, 1)
    assert "needing more than" in rep.failures[0][1] or "processors" in rep.failures[0][1]
    assert "\n" not in rep.failures[0][1]


def test_trace_objects(tmp_path):
    jobs = [Job(1, 0, 10, 3), Job(2, 0, 10, 2), Job(3, 1, 4, 1)]
    cfg = make_sweep(traces=[Trace(jobs, max_procs=4)], machines=["2x2"], allocators=["mc1x1", "mm"])
    other = make_sweep(traces=[Trace(jobs[:2], max_procs=4)], machines=["2x2"], allocators=["mc1x1", "mm"])
    assert not set(cfg.keys) & set(other.keys)
    rep = run_sweep(cfg, tmp_path / "j.sqlite", workers=2)
    assert (rep.run, rep.failed) == (2, 0)
    assert [r["summary"]["jobs"] for r in read_sweep(tmp_path / "j.sqlite")] == [3, 3]


def test_progress_lines(tmp_path, config_path, capsys):
    run_sweep(load_sweep(config_path), tmp_path / "p.sqlite", workers=1, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "sweep t: 5 configurations, 0 done before, 5 to run in this process"
    assert err[1].startswith("[1/5] ok tiny.swf 8x4 easy mc1x1 (") and "elapsed" in err[1]
    assert err[-1].startswith("[5/5] ok tiny.swf 8x4 easy mc1x1:tie=2,13,20,6")


def test_never_touches_foreign_files(tmp_path, config_path):
    cfg = load_sweep(config_path)
    text = tmp_path / "notes.sqlite"
    text.write_text("my notes\n" * 100)
    with pytest.raises(ValueError, match="is not an SQLite database"):
        run_sweep(cfg, text, workers=1)
    assert text.read_text() == "my notes\n" * 100
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE data (x)")
    with pytest.raises(ValueError, match=r"database of something else \(tables: data\)"):
        run_sweep(cfg, other, workers=1)
    with pytest.raises(ValueError, match="no such file"):
        read_sweep(tmp_path / "missing.sqlite")
    assert not (tmp_path / "missing.sqlite").exists()


def test_db_is_appended_to_by_other_sweeps(tmp_path, config_path, tiny):
    db = tmp_path / "shared.sqlite"
    run_sweep(load_sweep(config_path), db, workers=1)
    other = make_sweep(traces=[str(tiny)], machines=["4x4"], allocators=["mm"], name="other")
    run_sweep(other, db, workers=1)
    rows = read_sweep(db)
    assert [r["sweep"] for r in rows] == ["t"] * 5 + ["other"]
    assert [r["allocator"] for r in read_sweep(db, other)] == ["mm"]


# ---------------------------------------------------------------- command line


def cli(*argv):
    return main([str(a) for a in argv])


def test_cli_table_and_default_db(tmp_path, config_path, capsys, monkeypatch):
    work = tmp_path / "work"  # the default store goes to the working directory, not next to the config
    work.mkdir()
    monkeypatch.chdir(work)
    assert cli("sweep", config_path, "--workers", 1) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["#", "trace", "machine", "scheduler", "allocator", "seed", "status", "mean_wait",
                                "util", "mean_avg_l1", "tie_share"]
    assert [ln.split()[4] for ln in lines[1:6]] == ["mc1x1", "mm", "random", "random", "mc1x1:tie=2,13,20,6"]
    assert "5 configurations: 0 done before, 5 run, 0 failed" in out
    assert (work / "sweep.sqlite").exists() and not config_path.with_suffix(".sqlite").exists()
    assert "results in sweep.sqlite" in out
    assert cli("sweep", config_path, "--workers", 1) == 0
    assert "5 done before, 0 run" in capsys.readouterr().out


def test_cli_json_progress_and_dry_run(tmp_path, config_path, capsys):
    db = tmp_path / "c.sqlite"
    assert cli("sweep", config_path, "--db", db, "--dry-run", "--json") == 0
    res = json.loads(capsys.readouterr().out)
    assert res["report"] is None and {r["status"] for r in res["configurations"]} == {"pending"}
    assert not db.exists()
    assert cli("sweep", config_path, "--db", db, "--workers", 2, "--json", "--progress") == 0
    out, err = capsys.readouterr()
    res = json.loads(out)
    assert res["sweep"] == "t" and res["report"]["run"] == 5
    assert [r["index"] for r in res["configurations"]] == list(range(5))
    assert all(r["status"] == "done" and r["summary"]["jobs"] == 30 for r in res["configurations"])
    assert err.count("] ok ") == 5


def test_cli_errors(tmp_path, config_path, tiny, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default store of fails.toml goes here
    bad = write_config(tmp_path, "[sweep]\ntraces = ['tiny.swf']\nmachines = ['8x4']\nallocators = ['mc2x2']\n",
                       name="bad.toml")
    assert cli("sweep", bad) == 2
    assert re.search(r"bad.toml: allocators\[0\]", capsys.readouterr().err)
    assert cli("sweep", config_path, "--workers", 0) == 2
    assert "`workers` must be at least 1" in capsys.readouterr().err
    failing = write_config(tmp_path, f"[sweep]\ntraces = [{{path = '{tiny.name}', oversize = 'error'}}]\n"
                                     "machines = ['2x2']\nallocators = ['mm']\n", name="fails.toml")
    assert cli("sweep", failing, "--workers", 1) == 1


def test_cli_main_reports_one_line(tmp_path, capsys):
    from optalloc.cli import main

    try:
        code = main(["sweep", str(tmp_path / "none.toml")])
    except SystemExit:  # pragma: no cover - before the subcommand is registered
        pytest.skip("`optalloc sweep` not registered in optalloc.cli yet")
    if code == 2 and "invalid choice" in capsys.readouterr().err:
        pytest.skip("`optalloc sweep` not registered in optalloc.cli yet")
    else:
        assert code == 2


def test_sweepconfig_public_shape(config_path):
    cfg = load_sweep(config_path)
    assert isinstance(cfg, SweepConfig)
    assert cfg.job_records is True
    assert repr(cfg.configurations[0]).startswith("Configuration(key=")


def test_shipped_trace_bytes_parse_like_the_file(tmp_path):
    """A Dask worker gets the file's bytes and parses them in memory: the
    same jobs as reading the path, nothing written, a changed file refused."""
    _label, spec, payload = _spec._prepare_trace({"path": str(SMALL), "scale": 2, "limit": 30}, 0, None)
    sweep_spec = {"trace": spec}
    _worker._TRACE_CACHE.clear()
    from_path = _worker._load_trace(sweep_spec, payload, 32)
    _worker._TRACE_CACHE.clear()
    from_bytes = _worker._load_trace(sweep_spec, ("bytes", SMALL.read_bytes()), 32)
    _worker._TRACE_CACHE.clear()
    assert len(from_path) == 30 and list(from_bytes) == list(from_path)
    assert from_bytes.report == from_path.report and from_bytes.max_procs == from_path.max_procs == 32
    with pytest.raises(RuntimeError, match="changed since the sweep started"):
        _worker._load_trace(sweep_spec, ("bytes", SMALL.read_bytes() + b"\n1 0 -1 10 4\n"), 32)
    _worker._TRACE_CACHE.clear()
