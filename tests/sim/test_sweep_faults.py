"""Sweeps under faults: each fault is injected, and the promise checked against an uninterrupted run.

- a damaged store (4 KB of random bytes in its middle) is refused in one
  line, left untouched, and what can be read is recovered;
- a full disk (``PRAGMA max_page_count``) stops the sweep in one line,
  exit 2, the store consistent and resumable;
- two processes on one store compute every configuration once; a claim
  whose process died (or whose heartbeat is stale) is taken over;
- on Dask, configurations wait for workers that all died to come back,
  and fail with a message after ``worker_timeout``;
- the bundled example writes its store in the working directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from optalloc import instance_path
from optalloc.cli import main
from optalloc.sim import load_sweep, read_jobs, read_sweep, run_sweep
from optalloc.sim.sweep import _claims, _run, _store, _worker, recover_sweep

REPO = Path(__file__).resolve().parents[2]
TIMING = {"wall_time", "finished_at", "allocator_time", "event_time", "added_at", "failed_at"}

CONFIG = """
[sweep]
name = "faults"
traces = [{path = "tiny.swf"}]
machines = ["8x4", "4x4"]
allocators = ["mc1x1", "mm", "gen-alg", "random"]
seeds = [0, 1, 2, 3, 4]
job_records = true
"""
TOTAL = 16  # 2 machines x (3 + 5 seeds)


def head_swf(dest, n=30):
    """The header and first n jobs of the bundled trace."""
    lines, jobs = [], 0
    for line in instance_path("small.swf").read_text().splitlines():
        if line.strip().startswith(";") or not line.strip():
            lines.append(line)
        elif jobs < n:
            lines.append(line)
            jobs += 1
    Path(dest).write_text("\n".join(lines) + "\n")


def stored(db) -> int:
    """Configurations stored in ``db`` so far (0 before its tables exist)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM summaries").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def make_config(folder, text=CONFIG) -> Path:
    head_swf(Path(folder) / "tiny.swf")
    path = Path(folder) / "faults.toml"
    path.write_text(textwrap.dedent(text))
    return path


def dump(db):
    """Every table but claims, without timings, as sorted lists."""
    conn = sqlite3.connect(db)
    try:
        out = {}
        for table in ("configurations", "summaries", "jobs", "failures", "certifications"):
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] not in TIMING]
            sel = ", ".join(f'"{c}"' for c in cols)
            out[table] = sorted(conn.execute(f"SELECT {sel} FROM {table}").fetchall(), key=repr)
        return out
    finally:
        conn.close()


def sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """One uninterrupted run: its config, store and dump (the ground truth)."""
    folder = tmp_path_factory.mktemp("full")
    config = make_config(folder)
    db = folder / "full.sqlite"
    rep = run_sweep(load_sweep(config), db, workers=1)
    assert (rep.run, rep.failed) == (TOTAL, 0)
    return {"config": config, "db": db, "dump": dump(db)}


@pytest.fixture
def config(tmp_path):
    return make_config(tmp_path)


# ---------------------------------------------------------------- a damaged store


def damage(src, dest, where, seed=0):
    """A copy of ``src`` with 4 KB of random bytes written at ``where`` (a share of its size)."""
    data = bytearray(Path(src).read_bytes())
    rng = random.Random(seed)
    at = int(len(data) * where)
    data[at:at + 4096] = rng.randbytes(4096)
    Path(dest).write_bytes(bytes(data))
    conn = sqlite3.connect(f"file:{dest}?mode=ro", uri=True)
    try:  # the fault is real: SQLite's own full check fails
        assert conn.execute("PRAGMA integrity_check").fetchall() != [("ok",)]
    except sqlite3.DatabaseError:
        pass
    finally:
        conn.close()
    return dest


@pytest.mark.parametrize("where", [0.3, 0.5, 0.7])
def test_damaged_store_is_refused_untouched(tmp_path, full, where, capsys):
    db = damage(full["db"], tmp_path / "damaged.sqlite", where)
    before = sha(db)
    cfg = load_sweep(full["config"])
    for call in (lambda: run_sweep(cfg, db, workers=1), lambda: read_sweep(db),
                 lambda: read_jobs(db, cfg.keys[0]), lambda: read_sweep(db, cfg)):
        with pytest.raises(ValueError, match=r"is damaged .* left as it is; .*--recover-from .*recover_sweep") as info:
            call()
        assert "\n" not in str(info.value)
    assert main(["sweep", str(full["config"]), "--db", str(db), "--workers", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("optalloc: error: `db` ")
    assert "is damaged" in err and "Traceback" not in err
    assert sha(db) == before


def test_damaged_store_recovered_then_completed(tmp_path, full, capsys):
    db = damage(full["db"], tmp_path / "damaged.sqlite", 0.5)
    before = sha(db)
    cfg = load_sweep(full["config"])
    new = tmp_path / "new.sqlite"
    counts = recover_sweep(db, new, cfg)
    assert counts["done"] + counts["pending"] == TOTAL and counts["lost"] == counts["failed"] == 0
    assert 0 < counts["done"] < TOTAL  # 4 KB in a store of a few pages costs some configurations, not all
    recovered = dump(new)
    truth = full["dump"]
    for table in ("summaries", "jobs"):  # only whole configurations, each as the uninterrupted run stored it
        assert set(recovered[table]) <= set(truth[table])
    assert len(recovered["summaries"]) == counts["done"]
    assert {r[0] for r in recovered["jobs"]} == {r[0] for r in recovered["summaries"]}
    rep = run_sweep(cfg, new, workers=1)
    assert (rep.skipped, rep.run, rep.failed) == (counts["done"], counts["pending"], 0)
    assert dump(new) == truth
    assert sha(db) == before
    # the command line: recover into a new store and run the rest, in one command
    other = tmp_path / "other.sqlite"
    assert main(["sweep", str(full["config"]), "--db", str(other), "--recover-from", str(db), "--workers", "1",
                 "-q"]) == 0
    out, err = capsys.readouterr()
    assert f"{counts['done']} done before, {counts['pending']} run, 0 failed" in out
    assert f"recovered from {db} into {other}: {counts['done']} done" in err
    assert dump(other) == truth
    # without the sweep: what the damaged file itself lists
    alone = tmp_path / "alone.sqlite"
    found = recover_sweep(db, alone)
    assert found["done"] == counts["done"] and set(dump(alone)["summaries"]) <= set(truth["summaries"])
    with pytest.raises(ValueError, match="the damaged store itself"):
        recover_sweep(db, db)


def test_store_of_an_older_version(tmp_path, full):
    """A store written before the claims and certifications tables: read, recovered and resumed."""
    db = tmp_path / "old.sqlite"
    db.write_bytes(full["db"].read_bytes())
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE claims")
        conn.execute("DROP TABLE certifications")
    cfg = load_sweep(full["config"])
    assert [r["status"] for r in read_sweep(db, cfg)] == ["done"] * TOTAL
    assert recover_sweep(db, tmp_path / "new.sqlite", cfg) == {"done": TOTAL, "failed": 0, "pending": 0, "lost": 0}
    assert dump(tmp_path / "new.sqlite") == full["dump"]
    assert run_sweep(cfg, db, workers=1).skipped == TOTAL


# ---------------------------------------------------------------- a full disk


def small_disk(monkeypatch, pages):
    """Connections of the runner see a disk with room for ``pages`` more pages."""
    real = _store._connect

    def limited(db, *, create):
        conn = real(db, create=create)
        conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0] + pages}")
        return conn

    monkeypatch.setattr(_run, "_connect", limited)


def test_full_disk_stops_in_one_line_and_resumes(tmp_path, full, config, monkeypatch, capsys):
    db = tmp_path / "full-disk.sqlite"
    small_disk(monkeypatch, 6)  # room for a few configurations, each time
    with pytest.raises(OSError, match=r"cannot write the sweep store .* \(database or disk is full\); every") as info:
        run_sweep(load_sweep(config), db, workers=2)
    assert "\n" not in str(info.value)
    assert main(["sweep", str(config), "--db", str(db), "--workers", "1", "-q"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"optalloc: error: cannot write the sweep store {str(db)!r} (database or disk is full)")
    monkeypatch.undo()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0  # released on the way out
    partial = dump(db)
    assert 0 < len(partial["summaries"]) < TOTAL  # the disk filled up half way
    assert set(partial["summaries"]) <= set(full["dump"]["summaries"])
    assert len(partial["jobs"]) == 30 * len(partial["summaries"])  # whole configurations only
    rep = run_sweep(load_sweep(config), db, workers=1)
    assert rep.skipped == len(partial["summaries"]) and rep.skipped + rep.run == TOTAL and rep.failed == 0
    assert dump(db) == full["dump"]


# ---------------------------------------------------------------- processes sharing a store

LOGGED_RUN = """
import json, os, signal, sys, time
from optalloc.sim import load_sweep, run_sweep
from optalloc.sim.sweep import _worker
config, db, log, barrier, die_at = sys.argv[1:6]
real, calls = _worker._run_config, [0]
def logged(task, payload):
    calls[0] += 1
    if calls[0] == int(die_at):
        os.kill(os.getpid(), signal.SIGKILL)  # dies holding this configuration's claim
    if calls[0] == 1 and barrier != "-":  # both runs hold a claim before either computes
        open(os.path.join(barrier, str(os.getpid())), "w").close()
        deadline = time.monotonic() + 60
        while len(os.listdir(barrier)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    with open(log, "a") as f:
        f.write(f"{task['key']} {os.getpid()}\\n")
    time.sleep(0.05)
    return real(task, payload)
_worker._run_config = logged
print(json.dumps(run_sweep(load_sweep(config), db, workers=1).to_dict()))
"""


def start(config, db, log, barrier="-", die_at=0):
    return subprocess.Popen([sys.executable, "-c", LOGGED_RUN, str(config), str(db), str(log), str(barrier),
                             str(die_at)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def computed(log):
    return [line.split() for line in Path(log).read_text().splitlines()]


def test_two_processes_compute_each_configuration_once(tmp_path, full, config):
    db, log, barrier = tmp_path / "shared.sqlite", tmp_path / "computed.log", tmp_path / "barrier"
    barrier.mkdir()
    procs = [start(config, db, log, barrier) for _ in range(2)]
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        reports.append(json.loads(out))
    keys = [key for key, _ in computed(log)]
    assert sorted(keys) == sorted(load_sweep(config).keys)  # every configuration, each once
    assert {pid for _, pid in computed(log)} == {str(p.pid) for p in procs}  # shared between the two
    for rep in reports:  # each run saw the whole sweep through: stored by itself or by the other
        assert rep["skipped"] + rep["run"] == TOTAL and rep["failed"] == 0
    assert sum(rep["run"] for rep in reports) == TOTAL
    assert dump(db) == full["dump"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def test_claim_of_a_killed_process_is_taken_over(tmp_path, full, config):
    db, log = tmp_path / "killed.sqlite", tmp_path / "computed.log"
    proc = start(config, db, log, die_at=3)
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT pid FROM claims").fetchall() == [(proc.pid,)]
        assert conn.execute("SELECT COUNT(*) FROM summaries").fetchone()[0] == 2
    rep = run_sweep(load_sweep(config), db, workers=2)
    assert (rep.skipped, rep.run, rep.failed) == (2, TOTAL - 2, 0)
    assert dump(db) == full["dump"]


def test_live_claims_are_waited_for_then_taken_over(tmp_path, full, config, monkeypatch, capsys):
    """A live claim on this host (a running process, then a zombie) and a fresh one from another
    host are skipped and waited for; the first is taken over when its process ends, the second
    when its heartbeat is older than CLAIM_STALE."""
    cfg = load_sweep(config)
    db = tmp_path / "claimed.sqlite"
    _store._connect(db, create=True).close()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    now = time.time()
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO claims VALUES (?, 'other', ?, ?, '', ?)",
                     (cfg.keys[0], sleeper.pid, socket.gethostname(), now))
        conn.execute("INSERT INTO claims VALUES (?, 'remote', 4242, 'another-host', '', ?)", (cfg.keys[1], now))
    order, held = [], []
    real_run, real_wait = _worker._run_config, _claims._Queue.wait

    def logged(task, payload):
        order.append(task["key"])
        return real_run(task, payload)

    def wait(queue):  # the rest is held: the sleeper ends (not reaped: a zombie), the remote claim goes stale
        if not held:
            held.append(dict(queue.held))
            sleeper.kill()
            monkeypatch.setattr(_claims, "CLAIM_STALE", 2.0)
        real_wait(queue)

    monkeypatch.setattr(_worker, "_run_config", logged)
    monkeypatch.setattr(_claims._Queue, "wait", wait)
    try:
        rep = run_sweep(cfg, db, workers=1, progress=True)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert held == [{cfg.keys[0]: (sleeper.pid, socket.gethostname()), cfg.keys[1]: (4242, "another-host")}]
    assert (rep.run, rep.failed) == (TOTAL, 0)
    assert sorted(order) == sorted(cfg.keys) and set(order[-2:]) == {cfg.keys[0], cfg.keys[1]}
    err = capsys.readouterr().err
    assert "waiting for 2 configurations run by other processes (" in err and "1 by pid 4242 on another-host" in err
    assert dump(db) == full["dump"]


def test_claim_rules(tmp_path, config):
    """The liveness rule itself: who holds a claim, who takes it."""
    me = _claims._Owner()
    now = time.time()
    assert me.holds_live("x", os.getppid(), me.host, now, now)  # a live process of this host
    assert not me.holds_live("x", 2 ** 22 + 17, me.host, now, now)  # no such process
    assert me.holds_live("x", 1, "another-host", now - 60, now)  # another host, fresh heartbeat
    assert not me.holds_live("x", 1, "another-host", now - _claims.CLAIM_STALE - 1, now)  # stale
    assert not me.holds_live(me.token, me.pid, me.host, now, now)  # its own
    assert not me.holds_live("ended-run", me.pid, me.host, now, now)  # this process, a run that ended


_REAL_RUN = _worker._run_config
_CRASH = set()  # keys whose worker process dies


def crashing_run(task, payload):
    """``_run_config`` in a forked worker (pickled by name), dying like a segfault on a key of ``_CRASH``."""
    if task["key"] in _CRASH:
        os._exit(1)
    return _REAL_RUN(task, payload)


def test_local_worker_crash_fails_its_configurations_and_the_rest_runs(tmp_path, full, config, monkeypatch):
    """A worker process that dies breaks its pool: what ran in it fails, a new pool runs the rest."""
    cfg = load_sweep(config)
    crash = next(c.key for c in cfg.configurations if c.allocator == "mm" and c.machine == "8x4")
    monkeypatch.setattr(sys.modules[__name__], "_CRASH", {crash})
    monkeypatch.setattr(_worker, "_run_config", crashing_run)
    db = tmp_path / "crash.sqlite"
    rep = run_sweep(cfg, db, workers=2)
    assert rep.run + rep.failed == TOTAL and 1 <= rep.failed <= 2  # the crash, and what ran beside it
    assert crash in dict(rep.failures) and "BrokenProcessPool" in dict(rep.failures)[crash]
    monkeypatch.setattr(_worker, "_run_config", _REAL_RUN)
    again = run_sweep(cfg, db, workers=1)
    assert (again.skipped, again.run, again.failed) == (rep.run, rep.failed, 0)
    assert dump(db) == full["dump"]


# ---------------------------------------------------------------- Dask workers that die and come back


def cluster(n_workers):
    distributed = pytest.importorskip("distributed")
    return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=False, protocol="tcp",
                                    host="127.0.0.1", dashboard_address=":0")


def test_dask_waits_for_workers_to_come_back(tmp_path, full, config, capsys):
    db = tmp_path / "dask.sqlite"
    with cluster(1) as c:
        def kill_all_then_restart():  # every worker goes at once (their scattered traces with them)
            while stored(db) < 1:
                time.sleep(0.01)
            c.scale(0)
            time.sleep(1.5)
            c.scale(1)

        killer = threading.Thread(target=kill_all_then_restart, daemon=True)
        killer.start()
        rep = run_sweep(load_sweep(config), db, scheduler=c.scheduler_address, progress=True, worker_timeout=60)
        killer.join()
    assert (rep.run, rep.failed) == (TOTAL, 0)
    err = capsys.readouterr().err
    assert "no Dask worker: waiting up to 60 s for one (worker_timeout)" in err and "Dask workers are back" in err
    assert dump(db) == full["dump"]


def test_dask_without_workers_fails_after_the_timeout(tmp_path, config, capsys):
    db = tmp_path / "none.sqlite"
    with cluster(0) as c:
        t0 = time.monotonic()
        rep = run_sweep(load_sweep(config), db, scheduler=c.scheduler_address, worker_timeout=1)
        assert 1 <= time.monotonic() - t0 < 30
        assert (rep.run, rep.failed) == (0, TOTAL)
        assert {msg for _, msg in rep.failures} == {
            "no Dask worker for 1 s (worker_timeout); run the sweep again when the cluster has workers"}
        # the TOML key, and the flag over it
        toml = Path(config).read_text() + "worker_timeout = 0.5\n"
        Path(config).write_text(toml)
        assert load_sweep(config).worker_timeout == 0.5
        assert main(["sweep", str(config), "--db", str(db), "--scheduler", c.scheduler_address, "-q"]) == 1
        out = capsys.readouterr().out
        assert out.count("no Dask worker for 0.5 s (worker_timeout)") == TOTAL
        assert main(["sweep", str(config), "--db", str(db), "--scheduler", c.scheduler_address, "-q",
                     "--worker-timeout", "0.2"]) == 1
        assert "no Dask worker for 0.2 s" in capsys.readouterr().out
    assert read_sweep(db)[0]["attempts"] == 3  # stored failures, retried by each run


@pytest.mark.parametrize("value", [0, -1, float("nan"), "60"])
def test_bad_worker_timeout(tmp_path, config, value):
    with pytest.raises(ValueError, match=r"`worker_timeout` must be a positive number of seconds \(inf: no limit\)"):
        run_sweep(load_sweep(config), tmp_path / "x.sqlite", worker_timeout=value)
    assert not (tmp_path / "x.sqlite").exists()
    if not isinstance(value, str):
        Path(config).write_text(Path(config).read_text() + f"worker_timeout = {value}\n")
        with pytest.raises(ValueError, match=r"faults.toml: \[sweep\]: `worker_timeout` must be a positive"):
            load_sweep(config)


def test_bad_worker_timeout_flag(tmp_path, config, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", str(config), "--worker-timeout", "soon"]) == 2
    assert "--worker-timeout must be positive seconds or 'none'" in capsys.readouterr().err


@pytest.mark.slow
def test_dask_worker_processes_killed_and_restarted(tmp_path, full, config):
    """Real worker processes killed with SIGKILL; their nannies start new ones."""
    distributed = pytest.importorskip("distributed")
    db = tmp_path / "killed.sqlite"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as c:
        def kill():
            while stored(db) < 1:
                time.sleep(0.01)
            for w in list(c.workers.values()):
                os.kill(w.process.pid, signal.SIGKILL)

        killer = threading.Thread(target=kill, daemon=True)
        killer.start()
        rep = run_sweep(load_sweep(config), db, scheduler=c.scheduler_address, worker_timeout=120)
        killer.join()
    assert (rep.run, rep.failed) == (TOTAL, 0)
    assert dump(db) == full["dump"]


# ---------------------------------------------------------------- the bundled example


def test_bundled_example_writes_in_the_working_directory(tmp_path, monkeypatch, capsys):
    package = instance_path("sweep-example.toml").parent
    before = sorted(p.name for p in package.iterdir())
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", str(instance_path("sweep-example.toml")), "--workers", "1", "-q"]) == 0
    assert "results in sweep-example.sqlite" in capsys.readouterr().out
    assert (tmp_path / "sweep-example.sqlite").is_file()
    assert sorted(p.name for p in package.iterdir()) == before
    assert [r["status"] for r in read_sweep(tmp_path / "sweep-example.sqlite")] == ["done"] * 6
