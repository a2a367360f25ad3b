"""The processes below a process, read from /proc, for the tests that kill a
run with ``kill -9`` and check that nothing it started keeps running."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

PROC = Path("/proc")
#: whether the tests can see processes (Linux)
HAS_PROC = (PROC / "self" / "stat").is_file()


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


def kill_and_expect_gone(proc, pids, what: str, wait: float = 5.0) -> None:
    """``kill -9`` the process ``proc`` (a Popen), then assert that none of
    ``pids`` still runs ``wait`` seconds later."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    left = sorted(p for p in pids if alive(p))
    assert not left, f"processes {left} still run {wait:g} s after {what} was killed"


def clean_up(proc, pids) -> None:
    """End what a failed check left running: ``proc`` and ``pids``."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
