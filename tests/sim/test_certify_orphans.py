"""A certification killed with ``kill -9`` leaves no process running: its
workers, the fork server they come from and the resource tracker end too."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from process_tree import HAS_PROC, children, clean_up, descendants, kill_and_expect_gone

from optalloc import instance_path

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not HAS_PROC, reason="needs /proc to find the worker processes")
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
        kill_and_expect_gone(proc, seen, f"certify (workers {sorted(workers)})")
    finally:
        clean_up(proc, seen)  # the processes this test started, if the check failed
