"""Worker processes end with their owner (optalloc._parent.watch_parent)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the subprocesses import this tree's optalloc, wherever the tests run from
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}

#: a process that watches the pid given as its argument, then sleeps
WATCHER = """
import sys, time
from optalloc._parent import watch_parent
watch_parent(int(sys.argv[1]), poll=0.1)
print("watching", flush=True)
time.sleep(60)
"""


def _running(pid: int) -> bool:
    """Not ended (a zombie not yet reaped has ended)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return text[text.rfind(")") + 2 :].split()[0] != "Z"


def _gone(proc, seconds):
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return False
    return True


def test_a_watcher_of_another_process_ends_with_it():
    # the owner is not the watcher's parent, as a fork server's worker's owner is not
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    watcher = subprocess.Popen([sys.executable, "-c", WATCHER, str(owner.pid)], stdout=subprocess.PIPE, text=True,
                               env=ENV)
    try:
        assert watcher.stdout.readline().strip() == "watching"
        assert not _gone(watcher, 0.5), "the watcher ended while its owner lived"
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait()
        assert _gone(watcher, 5), "the watcher still runs 5 s after its owner was killed"
        assert watcher.returncode == 1
    finally:
        for p in (owner, watcher):
            if p.poll() is None:
                p.kill()
                p.wait()


def test_a_watcher_of_an_ended_process_ends_at_once():
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    watcher = subprocess.Popen([sys.executable, "-c", WATCHER, str(ended.pid)], stdout=subprocess.PIPE, text=True,
                               env=ENV)
    try:
        assert _gone(watcher, 10)
        assert watcher.returncode == 1 and watcher.stdout.read() == ""
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()


def test_a_living_owner_is_not_mistaken_for_an_ended_one():
    # a process that watches itself and its parent goes on
    code = ("import os, time\nfrom optalloc._parent import watch_parent\n"
            "watch_parent(os.getpid(), poll=0.05)\nwatch_parent(None, poll=0.05)\ntime.sleep(0.5)\nprint('alive')")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60,
                         env=ENV)
    assert (out.returncode, out.stdout) == (0, "alive\n")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX")
def test_watching_the_parent_ends_an_orphan():
    # the child watches its parent (the middle process), which then ends: the child ends too
    code = """
import os, sys, time
from optalloc._parent import watch_parent
ready_r, ready_w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(ready_r)
    watch_parent(None, poll=0.1)
    os.write(ready_w, b"x")
    os.close(ready_w)
    time.sleep(60)
    os._exit(0)
os.close(ready_w)
os.read(ready_r, 1)
print(pid, flush=True)
os._exit(0)
"""
    middle = subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, text=True, timeout=60, close_fds=True, env=ENV)
    child = int(middle.stdout.split()[0])
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not _running(child):
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the orphan still runs 5 s after its parent ended")
