"""Worker processes that end with the process that started them.

A process pool's workers outlive their owner when it is killed (``kill -9``
leaves it no time to stop them): they wait for work forever, and with them a
fork server and a resource tracker.  :func:`watch_parent`, called by each
worker as it starts (the pool's initializer, or the first line of one),
ends the worker as soon as its owner has ended.

The owner is the process that made the pool.  Under the ``fork`` and
``spawn`` start methods it is the worker's parent; under ``forkserver``
the parent is the fork server, so the owner passes its own pid
(``os.getpid()``) in the initializer's arguments.  Once the workers have
ended, the fork server and the resource tracker end by themselves: the
workers held the pipes they wait on.
"""

from __future__ import annotations

import os
import select
import sys
import threading
import time

__all__ = ["POLL", "watch_parent"]

#: Seconds between two looks of a worker at its owner, where no handle
#: signals its end.
POLL = 0.5


def watch_parent(pid: int | None = None, poll: float = POLL) -> None:
    """End this process (``os._exit(1)``) when process ``pid`` ends.

    A daemon thread watches and ends the process at once, without cleanup
    (a worker only computes, its owner writes every result).

    Parameters
    ----------
    pid : int, optional
        The owner: the process that started the pool (its ``os.getpid()``,
        passed to the workers). Default: this process's parent.
    poll : float
        Seconds between two looks where no handle signals the end.

    Notes
    -----
    The parent: on Linux the kernel kills the worker the moment its parent
    dies (``PR_SET_PDEATHSIG``); elsewhere on POSIX the parent pid changes
    when the parent dies (the orphan is adopted); on Windows the parent's
    process handle is signalled. Another process (the owner of a pool of
    a fork server): on Linux a pidfd (``os.pidfd_open``) becomes readable
    when it ends; elsewhere ``os.kill(pid, 0)`` is tried every ``poll``
    seconds. An owner that has already ended ends the worker at once.

    Examples
    --------
    >>> import concurrent.futures, os
    >>> with concurrent.futures.ProcessPoolExecutor(1, initializer=watch_parent,
    ...                                             initargs=(os.getpid(),)) as pool:
    ...     pool.submit(abs, -3).result()
    3
    """
    ppid = os.getppid()
    if pid is None or pid == ppid or os.name == "nt":
        _watch_os_parent(ppid, poll)
    else:
        _watch_pid(int(pid), poll)


def _watch_os_parent(ppid: int, poll: float) -> None:
    if sys.platform.startswith("linux"):
        _set_parent_death_signal()
    parent = None
    if os.name == "nt":
        import multiprocessing

        parent = multiprocessing.parent_process()

    def orphaned():
        if parent is not None:
            return not parent.is_alive()
        return os.getppid() != ppid

    if orphaned():  # the parent died before the signal was set
        os._exit(1)

    def watch():
        while True:
            if parent is not None:
                parent.join(poll)
            else:
                time.sleep(poll)
            if orphaned():
                os._exit(1)

    _start(watch)


def _watch_pid(pid: int, poll: float) -> None:
    handle = None
    if hasattr(os, "pidfd_open"):
        try:
            handle = os.pidfd_open(pid)
        except ProcessLookupError:  # ended already
            os._exit(1)
        except OSError:  # a kernel without pidfds (before Linux 5.3)
            handle = None

    def ended() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # alive, another user's (a reused pid)
            return False
        return False

    if handle is None and ended():
        os._exit(1)

    def watch():
        if handle is not None:
            select.select([handle], [], [])  # readable once the process has ended
            os._exit(1)
        while True:
            time.sleep(poll)
            if ended():
                os._exit(1)

    _start(watch)


def _start(target) -> None:
    threading.Thread(target=target, name="optalloc-parent-watch", daemon=True).start()


def _set_parent_death_signal() -> None:
    """Linux: SIGKILL this process when its parent dies (best effort)."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no libc or no prctl: the watching thread remains
        pass
