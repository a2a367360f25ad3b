"""A sweep killed with ``kill -9`` leaves no worker process running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from optalloc import instance_path

PROC = Path("/proc")

#: 16 configurations of about a second each: the sweep outlives the test's wait
SLOW_SWEEP = """
[sweep]
name = "slow"
traces = [{path = "small.swf"}]
machines = ["16x16", "16x15", "16x14", "16x13", "16x12", "15x15", "14x14", "13x13"]
schedulers = ["easy", "fcfs"]
allocators = ["exact"]
"""


def children(pid: int) -> set[int]:
    """Processes whose parent is ``pid``, from /proc/*/stat."""
    out = set()
    for stat in PROC.glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # ended meanwhile
            continue
        fields = text[text.rfind(")") + 2 :].split()
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped has ended)."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return text[text.rfind(")") + 2 :].split()[0] != "Z"


@pytest.mark.skipif(not (PROC / "self" / "stat").is_file(), reason="needs /proc to find the worker processes")
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
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(alive(p) for p in workers):
            time.sleep(0.05)
        left = sorted(p for p in workers if alive(p))
        assert not left, f"worker processes {left} still run after their parent was killed"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in workers:  # the workers this test started, if the check failed
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
