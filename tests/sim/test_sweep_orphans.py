"""A sweep killed with ``kill -9`` leaves no worker process running."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest
from process_tree import HAS_PROC, children, clean_up, kill_and_expect_gone

from optalloc import instance_path

#: 16 configurations of about a second each: the sweep outlives the test's wait
SLOW_SWEEP = """
[sweep]
name = "slow"
traces = [{path = "small.swf"}]
machines = ["16x16", "16x15", "16x14", "16x13", "16x12", "15x15", "14x14", "13x13"]
schedulers = ["easy", "fcfs"]
allocators = ["exact"]
"""


@pytest.mark.skipif(not HAS_PROC, reason="needs /proc to find the worker processes")
def test_workers_end_when_the_sweep_is_killed(tmp_path):
    (tmp_path / "small.swf").write_bytes(instance_path("small.swf").read_bytes())
    config = tmp_path / "slow.toml"
    config.write_text(textwrap.dedent(SLOW_SWEEP))
    proc = subprocess.Popen([sys.executable, "-m", "optalloc.cli", "sweep", str(config), "--workers", "2"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and len(workers) < 2:
            workers = children(proc.pid)
            time.sleep(0.05)
        assert proc.poll() is None, "the sweep ended before its workers could be seen"
        assert len(workers) >= 2, f"no worker processes after 60 s (children: {workers})"
        kill_and_expect_gone(proc, workers, "their parent sweep")
    finally:
        clean_up(proc, workers)  # the workers this test started, if the check failed
