"""A certification killed with ``kill -9`` leaves no process running: its
workers, the fork server they come from and the resource tracker end too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from optalloc import instance_path

PROC = Path("/proc")
ROOT = Path(__file__).resolve().parents[2]


def _stat(pid: int) -> list[str] | None:
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:  # ended
        return None
    return text[text.rfind(")") + 2 :].split()


def children(pid: int) -> set[int]:
    """Processes whose parent is ``pid``."""
    out = set()
    for stat in PROC.glob("[0-9]*/stat"):
        fields = _stat(int(stat.parent.name))
        if fields is not None and int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


def descendants(pid: int) -> dict[int, set[int]]:
    """Every process below ``pid``, each with its children."""
    tree, todo = {}, [pid]
    while todo:
        p = todo.pop()
        tree[p] = children(p)
        todo += tree[p]
    del tree[pid]
    return tree


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped has ended)."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


@pytest.mark.skipif(not (PROC / "self" / "stat").is_file(), reason="needs /proc to find the worker processes")
def test_workers_and_fork_server_end_when_certify_is_killed(tmp_path):
    # exact solves on a torus take seconds each: the run outlives the test's wait
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.Popen([sys.executable, "-m", "optalloc.cli", "certify", str(instance_path("small.swf")),
                             "--machine", "12x12 torus", "--jobs", "40", "--workers", "2", "--time-limit", "60",
                             "--quiet"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while time.monotonic() < deadline and proc.poll() is None and len(workers) < 2:
            tree = descendants(proc.pid)
            seen |= set(tree)
            workers = max((kids for p, kids in tree.items() if p in children(proc.pid)), key=len, default=set())
            time.sleep(0.05)
        assert proc.poll() is None, "certify ended before its workers could be seen"
        assert len(workers) >= 2, f"no worker processes after 60 s (processes below certify: {sorted(seen)})"
        seen |= set(descendants(proc.pid))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(alive(p) for p in seen):
            time.sleep(0.05)
        left = sorted(p for p in seen if alive(p))
        assert not left, f"processes {left} still run 5 s after certify was killed (workers {sorted(workers)})"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in seen:  # the processes this test started, if the check failed
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
