"""Running a sweep: the configurations not stored yet, in local processes or on Dask.

Resuming: the configurations of the sweep are registered, those with a
stored summary are skipped, and every other one (failures included) runs
again; each result is written by this process in one transaction as it
arrives, so a killed run leaves only whole configurations behind.

Sharing: each configuration is claimed in the store just before it
starts (``_claims``), so several runs on one store split the work and
each configuration runs once; a run waits for the configurations other
live runs hold, and takes over those of dead ones.  ``_drive`` is that
loop, over one of three pools: this process, local worker processes,
or a Dask cluster (``_dask``).
"""

from __future__ import annotations

import concurrent.futures
import math
import operator
import os
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from ..._parent import watch_parent
from ..._progress import Progress, check_progress
from ..certification import DaskClient, dask_client
from . import _worker
from ._claims import CLAIM_HEARTBEAT, _Heartbeat, _Queue
from ._dask import DEFAULT_WORKER_TIMEOUT, _DaskPool
from ._report import SweepReport
from ._spec import SweepConfig
from ._store import _connect, _register_configs, _write_result
from ._toml import load_sweep

__all__ = ["run_sweep"]


class _Progress:
    """The progress of a sweep: a line per finished configuration (above the
    bar on a terminal), or the ``progress(done, total)`` callback."""

    def __init__(self, progress, name, total, skipped, todo, where, *, heartbeat):
        self.total, self.done = total, skipped
        self.t0 = time.perf_counter()
        self.callback, self.report, self.owned = None, None, False
        if progress is True:
            self.report, self.owned = Progress(total, "configurations", f"sweep {name}", initial=skipped,
                                               heartbeat=heartbeat), True
        elif isinstance(progress, Progress):
            self.report = progress
            progress.setdefaults(total=total, unit="configurations", label=f"sweep {name}")
            progress.track(skipped)
        elif progress:
            self.callback = progress
        if self.report is not None:
            plan = f"{todo} to run {where}" if todo else "nothing to run"
            self.report.write(f"sweep {name}: {total} configurations, {skipped} done before, {plan}")

    def step(self, cfg, status, out):
        self.done += 1
        if self.callback is not None:
            self.callback(self.done, self.total)
        if self.report is not None:
            extra = f": {out['error']}" if status == "failed" else ""
            cert = out.get("certification")
            if cert is not None:
                extra = (f": {cert['proven']}/{cert['decisions']} decisions proven, mean gap "
                         f"{100 * cert['mean_gap']:.3f}%, {cert['termination']}")
            seed = "" if cfg.seed is None else f" seed={cfg.seed}"
            self.report.track(self.done)
            self.report.write(f"[{self.done}/{self.total}] {status} {cfg.trace} {cfg.machine} {cfg.scheduler} "
                              f"{cfg.allocator}{seed} ({out.get('wall_time', 0.0):.1f} s; "
                              f"{time.perf_counter() - self.t0:.1f} s elapsed){extra}")

    def note(self, text: str) -> None:
        """A line on the progress stream (none with a callback or silent)."""
        if self.report is not None:
            self.report.write(text)

    def end(self, ok: bool) -> None:
        if self.owned and ok:
            self.report.close()
        elif self.owned:
            self.report.abort()


def _check_workers(workers):
    if workers is None:
        return os.cpu_count() or 1
    try:
        workers = operator.index(workers)
    except TypeError:
        raise ValueError(f"`workers` must be a positive integer, got {workers!r}") from None
    if workers < 1:
        raise ValueError(f"`workers` must be at least 1, got {workers}")
    return workers


def _check_worker_timeout(value, config):
    """Seconds a Dask run waits for workers: the keyword, else the sweep's, else the default."""
    if value is None:
        value = config.worker_timeout if config.worker_timeout is not None else DEFAULT_WORKER_TIMEOUT
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value <= 0:
        raise ValueError(f"`worker_timeout` must be a positive number of seconds (inf: no limit), got {value!r}")
    return float(value)


class _InProcess:
    """The pool of ``workers=1``: each configuration runs in this process when submitted."""

    def __init__(self, payloads):
        self.payloads, self.finished = payloads, []

    @property
    def busy(self) -> bool:
        return bool(self.finished)

    def room(self) -> bool:
        return not self.finished

    def submit(self, task) -> None:
        self.finished.append((task, _worker._run_config(task, self.payloads[task["sha"]])))

    def collect(self, queue, timeout) -> list:
        out, self.finished = self.finished, []
        return out

    def close(self, ok) -> None:
        pass


class _LocalPool:
    """Local worker processes, ``size`` configurations at a time."""

    def __init__(self, payloads, size):
        self.payloads, self.size, self.inflight = payloads, size, {}
        self.executor = self._start()

    def _start(self):
        # the workers end when this process dies, even by kill -9 (watch_parent: this pid is the owner)
        return concurrent.futures.ProcessPoolExecutor(max_workers=self.size, initializer=watch_parent,
                                                      initargs=(os.getpid(),))

    @property
    def busy(self) -> bool:
        return bool(self.inflight)

    def room(self) -> bool:
        return len(self.inflight) < self.size

    def submit(self, task) -> None:
        try:
            fut = self.executor.submit(_worker._run_config, task, self.payloads[task["sha"]])
        except BrokenProcessPool:  # a worker died since the last look: what ran there fails in collect
            self._restart()
            fut = self.executor.submit(_worker._run_config, task, self.payloads[task["sha"]])
        self.inflight[fut] = (task, self.executor)

    def _restart(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.executor = self._start()

    def collect(self, queue, timeout) -> list:
        done, _ = concurrent.futures.wait(self.inflight, timeout=timeout,
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        out, broken = [], False
        for fut in done:
            task, executor = self.inflight.pop(fut)
            try:
                out.append((task, fut.result()))
            except Exception as exc:  # noqa: BLE001 - a worker process died
                # only a break of the pool in use now calls for a new one (submit may have made it already)
                broken |= isinstance(exc, BrokenProcessPool) and executor is self.executor
                out.append((task, {"key": task["key"], "error": f"{type(exc).__name__}: {exc}"}))
        if broken:  # the pool is unusable now: a new one for the configurations left
            self._restart()
        return out

    def close(self, ok) -> None:
        self.executor.shutdown(wait=ok, cancel_futures=not ok)


@dataclass(frozen=True)
class _Executor:
    """Where the configurations run: local processes (``workers``) or the
    Dask cluster of ``scheduler`` (as given: an address or a client) through ``client``."""

    workers: int
    scheduler: object = None
    client: object = None
    worker_timeout: float = DEFAULT_WORKER_TIMEOUT

    def forks(self, n) -> bool:
        """Whether ``n`` configurations run in forked local processes."""
        return self.scheduler is None and self.workers > 1 and n > 1

    def describe(self, n) -> str:
        """Where ``n`` configurations run, for the progress line."""
        if self.scheduler is not None:
            return "on " + (self.scheduler if isinstance(self.scheduler, str) else "a Dask cluster")
        return "in this process" if self.workers == 1 or n <= 1 else f"on {min(self.workers, n)} processes"

    def pool(self, n, payloads, note):
        """The pool that runs ``n`` configurations."""
        if self.scheduler is not None:
            return _DaskPool(self.client, payloads, self.worker_timeout, note)
        if self.forks(n):
            return _LocalPool(payloads, min(self.workers, n))
        return _InProcess(payloads)


def _drive(queue, pool, handle, note) -> None:
    """Claim, run and store configurations until each one of the queue is settled."""
    said = ""
    while True:
        while pool.room():
            task = queue.take()
            if task is None:
                break
            pool.submit(task)
        if pool.busy or (not pool.room() and queue.has_free()):  # results to collect, or workers to wait for
            finished = pool.collect(queue, CLAIM_HEARTBEAT)
        elif not queue.pending:
            return
        else:  # the rest is held by other live runs: wait for them (or for their death)
            text = queue.waiting_for()
            if text and text != said:
                note(f"waiting for {len(queue.held)} configurations run by other processes ({text})")
                said = text
            queue.wait()
            continue
        for task, out in finished:
            handle(task, out)
        queue.heartbeat()


def run_sweep(config, db, *, workers=None, scheduler=None, progress=False, worker_timeout=None) -> SweepReport:
    """Run the configurations of a sweep that the database does not hold yet.

    Parameters
    ----------
    config : SweepConfig or path
        A sweep, or a TOML file for :func:`load_sweep`.
    db : path
        SQLite file, created when missing and otherwise appended to (never
        cleared): results of earlier runs, of this or other sweeps, stay.
        Several runs (processes, hosts sharing the file) may use one file
        at once: each configuration runs in one of them.
    workers : int, optional
        Local worker processes (default ``os.cpu_count()``); 1 runs
        everything in this process.  Ignored with ``scheduler``.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address (``"tcp://HOST:PORT"``) or client: the
        configurations run on its workers; traces are shipped to them.
    progress : bool or callable
        True: a line on stderr per finished configuration (above a bar on a
        terminal); a callable gets ``(done, total)`` as each configuration
        ends.  Default: silent.
    worker_timeout : float, optional
        With ``scheduler``: seconds to wait for workers when the cluster
        has none (all died, or none started yet); configurations lost with
        their workers run again when workers return.  When none comes back
        in time, the configurations left fail with a message saying so.
        Default: the sweep's ``worker_timeout``, else 600; ``math.inf``
        waits for ever.

    Returns
    -------
    SweepReport

    Raises
    ------
    ValueError
        Bad arguments, a database file that is not a sweep database or is
        damaged (left untouched; the message says how to copy what can be
        read: :func:`recover_sweep`), an unreachable scheduler.
    OSError
        The store refused a write (a full disk, a lock held too long): one
        line naming the file; what was stored before is kept and a run
        started again goes on from there.
    ImportError
        ``scheduler`` given without dask.distributed installed.

    Notes
    -----
    Tables: ``configurations`` (key, canonical JSON ``spec``, labels),
    ``summaries`` (key, one column per :class:`Summary` field, trace
    report, wall time, finish time), ``jobs`` (per-job rows, key and job
    id; with ``job_records``), ``failures`` (key, error, attempts),
    ``claims`` (configurations running now).
    Workers only compute; this process writes each configuration's rows
    in one transaction (WAL journal, synchronous commits), so killing a
    sweep loses at most the configurations still running, and running it
    again skips the stored ones, retries failures, and never duplicates a
    row.  Each configuration is claimed in the store before it starts;
    another run on the same file skips it while this run lives, waits for
    it, and reports it as stored (``skipped``) or failed.  A claim whose
    process is gone (pid not running on this host, or no heartbeat for
    10 minutes from another host) is taken over.  Local worker processes
    end when this process dies (even by ``kill -9``): none is left running.

    Examples
    --------
    >>> import os, tempfile
    >>> from optalloc.sim import make_sweep
    >>> cfg = make_sweep(traces=[{"path": "instances/small.swf", "limit": 20}], machines=["8x4"],
    ...                  allocators=["mc1x1", "mm"])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     db = os.path.join(d, "s.sqlite")
    ...     first = run_sweep(cfg, db, workers=1)
    ...     again = run_sweep(cfg, db, workers=1)
    >>> (first.run, first.skipped), (again.run, again.skipped)
    ((2, 0), (0, 2))
    """
    t0 = time.perf_counter()
    if not isinstance(config, SweepConfig):
        config = load_sweep(config)
    workers = _check_workers(workers)
    check_progress(progress)
    worker_timeout = _check_worker_timeout(worker_timeout, config)
    dask = dask_client(scheduler) if scheduler is not None else DaskClient(None, False)  # fail before the db
    try:
        return _run(config, db, _Executor(workers, scheduler, dask.client, worker_timeout), progress, t0)
    finally:
        if dask.owned:
            dask.client.close()


def _run(config, db, executor, progress, t0):
    conn = _connect(db, create=True)
    try:
        _register_configs(conn, config)
        done = {key for (key,) in conn.execute("SELECT key FROM summaries")}
        todo = [c for c in config.configurations if c.key not in done]
        skipped = len(config) - len(todo)
        by_key = {c.key: c for c in todo}
        tasks = [{"key": c.key, "spec": c.spec, "allocator": c.allocator, "sha": c.spec["trace"]["sha256"],
                  "job_records": config.job_records, "machine": config._machines.get(c.key)} for c in todo]
        # no thread beside the forks of local workers (a lock held while forking stays held in the child)
        prog = _Progress(progress, config.name, len(config), skipped, len(todo), executor.describe(len(todo)),
                         heartbeat=not executor.forks(len(todo)))
        counts = {"ok": 0, "failed": 0, "skipped": 0}
        failures = []

        def count(task, status, out):
            counts[status] += 1
            if status == "failed":
                failures.append((task["key"], out["error"]))
            prog.step(by_key[task["key"]], status, out)

        def settled(task, status, error):  # stored or failed by another run meanwhile
            out = {"key": task["key"], "error": error} if status == "failed" else {}
            count(task, "failed" if status == "failed" else "skipped", out)

        queue = _Queue(conn, tasks, settled)

        def handle(task, out):
            count(task, _write_result(conn, out, queue.owner.token), out)

        ok = False
        try:
            if tasks:
                pool = executor.pool(len(tasks), config._traces, prog.note)
                try:
                    if isinstance(pool, _InProcess):  # the loop waits in the computation: a thread keeps the claims
                        with _Heartbeat(os.fspath(db), queue.owner.token):
                            _drive(queue, pool, handle, prog.note)
                    else:
                        _drive(queue, pool, handle, prog.note)
                    ok = True
                finally:
                    pool.close(ok)
            ok = True
        finally:
            queue.release()
            prog.end(ok)
    finally:
        conn.close()
    return SweepReport(config.name, os.fspath(db), total=len(config), skipped=skipped + counts["skipped"],
                       run=counts["ok"], failed=counts["failed"], failures=tuple(failures),
                       runtime=time.perf_counter() - t0)
