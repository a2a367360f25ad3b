"""Loops over many independent items shared out among threads.

Some compiled kernels (numba, ``nogil=True``) score a long list of items
one by one, each on its own: the centres of Gen-Alg, MM and MM+Inc on a
grid, the centres of MC1x1 on a torus.  :func:`run_split` cuts such a list
into one contiguous piece per thread, runs the kernel on each piece in its
own thread (the kernel releases the GIL, so the pieces run at once on as
many cores) and returns the pieces' results in order; the caller joins
them.  Every piece allocates its own scratch space inside the kernel, so
the threads share nothing they write.  The list is split only when it is
long enough to pay for the threads.

The helper threads are started on the first split and then wait for
pieces between calls: starting a thread costs about as much as scoring a
few hundred centres, and a simulation splits thousands of times.  They
are daemon threads; a process made by ``fork()`` starts its own when it
first splits, and a piece run on a helper that splits again runs its
pieces itself (one thread), so no helper ever waits on another.

How many threads: :data:`THREADS`, set from the environment variable
``OPTALLOC_THREADS`` (a positive integer) at import, else the cores this
process may run on, at most 8; the results are the same for every value.
A process that is a worker of a ``multiprocessing`` pool (it has a parent
process, as the workers of ``certify`` and ``sweep`` do) stays on one
thread unless ``OPTALLOC_THREADS`` says otherwise, as its pool already
shares the cores out.  Set ``optalloc._threads.THREADS = 1`` (or the
environment variable to 1) to turn the threads off.

>>> import numpy as np
>>> parts = run_split(lambda lo, hi: np.arange(lo, hi) ** 2, 10, min_items=1, threads=3)
>>> np.concatenate(parts).tolist()
[0, 1, 4, 9, 16, 25, 36, 49, 64, 81]
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading

import numpy as np

__all__ = ["THREADS", "run_split", "set_threads", "thread_count"]


def _default_threads() -> int:
    text = os.environ.get("OPTALLOC_THREADS", "").strip()
    if text:
        try:
            return max(1, int(text))
        except ValueError:
            return 1
    if multiprocessing.parent_process() is not None:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(8, cores))


#: threads a split loop may use (``OPTALLOC_THREADS``, else the usable cores, at most 8; 1 in a pool worker)
THREADS = _default_threads()


def set_threads(n: int) -> int:
    """Set :data:`THREADS` to ``n`` (a positive integer) and return the
    previous value."""
    global THREADS
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"the thread count must be a positive integer, got {n!r}")
    previous, THREADS = THREADS, n
    return previous


def thread_count(items: int, min_items: int, threads: int | None = None) -> int:
    """The threads to use for ``items`` items: :data:`THREADS` (or
    ``threads``), fewer so that each gets at least ``min_items``, at least 1."""
    want = THREADS if threads is None else max(1, int(threads))
    return max(1, min(want, items // max(1, min_items)))


def run_split(fn, items: int, *, min_items: int, threads: int | None = None, weights=None) -> list:
    """``[fn(lo, hi) for each piece]``: items ``0 .. items - 1`` cut into
    :func:`thread_count` contiguous pieces, each run in its own thread
    (the first in the calling thread); an exception of a piece is raised
    here once every piece has ended.  ``weights`` (one non-negative
    estimate of the work per item) cuts the pieces at equal shares of
    their sum instead of equal numbers of items.

    >>> run_split(lambda lo, hi: (lo, hi), 6, min_items=1, threads=2, weights=[5, 1, 1, 1, 1, 1])
    [(0, 1), (1, 6)]
    """
    t = thread_count(items, min_items, threads)
    if t > 1 and getattr(_local, "helper", False):  # a piece that splits again: its cores are taken
        t = 1
    if t == 1:
        return [fn(0, items)]
    cuts = [items * i // t for i in range(t + 1)]
    if weights is not None:
        cuts = _weighted_cuts(weights, items, t) or cuts
    done: queue.SimpleQueue = queue.SimpleQueue()
    for i, tasks in enumerate(_helpers(t - 1), start=1):
        tasks.put((fn, cuts[i], cuts[i + 1], i, done))
    out: list = [None] * t
    errors: list = [None] * t
    try:
        out[0] = fn(cuts[0], cuts[1])
    except Exception as exc:  # noqa: BLE001 -- raised below, once the helpers' pieces have ended
        errors[0] = exc
    for _ in range(t - 1):
        i, value, exc = done.get()
        out[i], errors[i] = value, exc
    for exc in errors:
        if exc is not None:
            raise exc
    return out


def _weighted_cuts(weights, items: int, t: int) -> list[int] | None:
    """Cuts of ``items`` into t pieces of about equal total weight (None
    when the weights are not usable: the caller cuts by count)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (items,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        return None
    cum = np.cumsum(w)
    if cum[-1] <= 0:
        return None
    inner = np.searchsorted(cum, cum[-1] * np.arange(1, t) / t, side="left") + 1
    return [0, *np.minimum(inner, items).tolist(), items]


_local = threading.local()  # ``helper`` is True on the helper threads
_lock = threading.Lock()
_queues: list[queue.SimpleQueue] = []  # one per helper thread: the pieces it is to run


def _helper(tasks: queue.SimpleQueue) -> None:
    """A helper thread: runs the pieces put on its queue, one at a time, for ever."""
    _local.helper = True
    while True:
        fn, lo, hi, i, done = tasks.get()
        try:
            done.put((i, fn(lo, hi), None))
        except BaseException as exc:  # noqa: BLE001 -- handed to the caller, which raises it
            done.put((i, None, exc))


def _helpers(count: int) -> list[queue.SimpleQueue]:
    """The queues of ``count`` helper threads, started as needed."""
    with _lock:
        while len(_queues) < count:
            tasks: queue.SimpleQueue = queue.SimpleQueue()
            threading.Thread(target=_helper, args=(tasks,), name="optalloc-split", daemon=True).start()
            _queues.append(tasks)
        return _queues[:count]


def _forget_helpers() -> None:
    """In a child made by ``fork()``: the parent's helpers do not run here."""
    global _lock
    _lock = threading.Lock()
    _queues.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)
