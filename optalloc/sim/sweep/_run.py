"""Running a sweep: the configurations not stored yet, in local processes or on Dask.

Resuming: the configurations of the sweep are registered, those with a
stored summary are skipped, and every other one (failures included) runs
again; each result is written by this process in one transaction as it
arrives, so a killed run leaves only whole configurations behind.
"""

from __future__ import annotations

import concurrent.futures
import operator
import os
import time
from dataclasses import dataclass

from ..._progress import Progress, check_progress
from ..certification._dask_client import DaskClient, dask_client
from . import _worker
from ._dask import _execute_dask
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


def _execute_local(tasks, payloads, workers, handle):
    """Run ``tasks`` here or in worker processes; ``handle(task, out)`` as each ends."""
    if workers == 1 or len(tasks) <= 1:
        for task in tasks:
            handle(task, _worker._run_config(task, payloads[task["sha"]]))
        return
    # the workers end when this process dies, even by kill -9 (see _worker._watch_parent)
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(tasks)),
                                                initializer=_worker._watch_parent) as pool:
        futures = {pool.submit(_worker._run_config, t, payloads[t["sha"]]): t for t in tasks}
        try:
            for fut in concurrent.futures.as_completed(futures):
                task = futures[fut]
                try:
                    out = fut.result()
                except Exception as exc:  # noqa: BLE001 - a worker process died
                    out = {"key": task["key"], "error": f"{type(exc).__name__}: {exc}"}
                handle(task, out)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


@dataclass(frozen=True)
class _Executor:
    """Where the configurations run: local processes (``workers``) or the
    Dask cluster of ``scheduler`` (as given: an address or a client) through ``client``."""

    workers: int
    scheduler: object = None
    client: object = None

    def forks(self, n) -> bool:
        """Whether ``n`` configurations run in forked local processes."""
        return self.scheduler is None and self.workers > 1 and n > 1

    def describe(self, n) -> str:
        """Where ``n`` configurations run, for the progress line."""
        if self.scheduler is not None:
            return "on " + (self.scheduler if isinstance(self.scheduler, str) else "a Dask cluster")
        return "in this process" if self.workers == 1 or n <= 1 else f"on {min(self.workers, n)} processes"

    def execute(self, tasks, payloads, handle) -> None:
        if self.scheduler is not None:
            _execute_dask(tasks, payloads, self.client, handle)
        else:
            _execute_local(tasks, payloads, self.workers, handle)


def run_sweep(config, db, *, workers=None, scheduler=None, progress=False) -> SweepReport:
    """Run the configurations of a sweep that the database does not hold yet.

    Parameters
    ----------
    config : SweepConfig or path
        A sweep, or a TOML file for :func:`load_sweep`.
    db : path
        SQLite file, created when missing and otherwise appended to (never
        cleared): results of earlier runs, of this or other sweeps, stay.
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

    Returns
    -------
    SweepReport

    Raises
    ------
    ValueError
        Bad arguments, a database file that is not a sweep database, an
        unreachable scheduler.
    ImportError
        ``scheduler`` given without dask.distributed installed.

    Notes
    -----
    Tables: ``configurations`` (key, canonical JSON ``spec``, labels),
    ``summaries`` (key, one column per :class:`Summary` field, trace
    report, wall time, finish time), ``jobs`` (per-job rows, key and job
    id; with ``job_records``), ``failures`` (key, error, attempts).
    Workers only compute; this process writes each configuration's rows
    in one transaction (WAL journal, synchronous commits), so killing a
    sweep loses at most the configurations still running, and running it
    again skips the stored ones, retries failures, and never duplicates a
    row.  Local worker processes end when this process dies (even by
    ``kill -9``): none is left running.

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
    dask = dask_client(scheduler) if scheduler is not None else DaskClient(None, False)  # fail before the db
    try:
        return _run(config, db, _Executor(workers, scheduler, dask.client), progress, t0)
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

        def handle(task, out):
            status = _write_result(conn, out)
            counts[status] += 1
            if status == "failed":
                failures.append((task["key"], out["error"]))
            prog.step(by_key[task["key"]], status, out)

        ok = False
        try:
            if tasks:
                executor.execute(tasks, config._traces, handle)
            ok = True
        finally:
            prog.end(ok)
    finally:
        conn.close()
    return SweepReport(config.name, os.fspath(db), total=len(config), skipped=skipped + counts["skipped"],
                       run=counts["ok"], failed=counts["failed"], failures=tuple(failures),
                       runtime=time.perf_counter() - t0)
