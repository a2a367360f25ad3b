"""Running a sweep's configurations on a Dask cluster, through workers that come and go.

Each trace is scattered to the cluster once and the configurations are
submitted as workers have threads free.  When workers die, the scheduler
runs their tasks elsewhere; when every worker dies at once, the traces
scattered to them are lost and their tasks are cancelled: those
configurations go back to the queue (still claimed) and are submitted
again, traces scattered anew, once a worker is back.  While the cluster
has no worker the run waits, up to ``worker_timeout`` seconds in a row;
then every configuration left fails with a message saying so (stored as
a failure: the next run retries it).  A task that kills its workers
(``KilledWorker``: the scheduler's limit of worker deaths during it) or
that a worker cannot load fails at once.

dask and distributed are imported inside the functions, so that a sweep
in local processes does not need them.
"""

from __future__ import annotations

import time
from pathlib import Path

from . import _worker

#: Seconds a run on Dask waits for a worker when the cluster has none.
DEFAULT_WORKER_TIMEOUT = 600.0
#: Seconds between two looks at the cluster while waiting.
_TICK = 0.5


class _DaskPool:
    """The configurations in flight on a Dask cluster (the pool of ``_run._drive``)."""

    def __init__(self, client, payloads, worker_timeout, note):
        self.client, self.payloads, self.timeout, self.note = client, payloads, worker_timeout, note
        self.shipped = {}  # trace sha -> future of its scattered payload
        self.inflight = {}  # future key -> (future, task)
        self.ready = []  # (task, out) settled without running (the cluster gave up)
        self.lost = []  # tasks that could not be submitted (the workers went meanwhile)
        self.threads, self.seen = 0, -1.0
        self.no_worker_since = None
        self.dead = None  # the failure message once no worker came back in time

    def _threads(self, *, fresh=False) -> int:
        """Worker threads of the cluster (asked at most every ``_TICK`` seconds unless ``fresh``)."""
        if fresh or time.monotonic() - self.seen > _TICK:
            try:
                self.threads = sum(self.client.nthreads().values())
            except Exception:  # noqa: BLE001 - the scheduler is out of reach: no worker either
                self.threads = 0
            self.seen = time.monotonic()
        return self.threads

    @property
    def busy(self) -> bool:
        return bool(self.inflight or self.ready or self.lost)

    def room(self) -> bool:
        return self.dead is not None or len(self.inflight) < self._threads()

    def _payload(self, sha):
        fut = self.shipped.get(sha)
        if fut is None or fut.status != "finished":  # first use, or lost with every worker holding it
            kind, value = self.payloads[sha]
            # a plain tuple, which every distributed release scatters and rebuilds (older ones
            # cannot rebuild a NamedTuple); the worker unpacks it like a _Payload
            data = ("bytes", Path(value).read_bytes()) if kind == "path" else (kind, value)
            fut = self.shipped[sha] = self.client.scatter([data], hash=False)[0]  # sent once, not with every task
        return fut

    def submit(self, task) -> None:
        if self.dead is not None:
            self.ready.append((task, {"key": task["key"], "error": self.dead}))
            return
        try:
            fut = self.client.submit(_worker._run_config, task, self._payload(task["sha"]), pure=False)
        except (OSError, ValueError):  # "No valid workers found" (TimeoutError is an OSError): they went
            self.lost.append(task)
            self.threads = 0
            return
        self.inflight[fut.key] = (fut, task)

    def collect(self, queue, timeout) -> list:
        """Finished configurations, waiting up to ``timeout`` seconds for one;
        lost ones go back to ``queue``."""
        from distributed import KilledWorker

        out, self.ready = self.ready, []
        for task in self.lost:
            queue.requeue(task)
        self.lost = []
        if self.inflight and not out:  # a local look at the futures (distributed.wait raises on a cancelled one)
            deadline = time.monotonic() + min(timeout, 10 * _TICK)
            while time.monotonic() < deadline and not any(f.done() for f, _ in self.inflight.values()):
                time.sleep(0.02)
        elif not out:
            time.sleep(_TICK)  # no worker: look again in a moment
        for key, (fut, task) in list(self.inflight.items()):
            if not fut.done():
                continue
            del self.inflight[key]
            if fut.status == "finished":
                out.append((task, fut.result()))
            elif fut.status == "error":  # the task killed its workers, or a worker cannot load it
                exc = fut.exception()
                why = " (it ended every worker that ran it)" if isinstance(exc, KilledWorker) else ""
                msg = " ".join(str(exc).split())
                out.append((task, {"key": task["key"], "error": f"{type(exc).__name__}: {msg}{why}"}))
            else:  # cancelled or lost with its worker and trace: again when a worker is back
                queue.requeue(task)
        out.extend(self._watch())
        return out

    def _watch(self) -> list:
        """Start, stop or end the wait for workers; the configurations failed when it ends."""
        if self.dead is not None:
            return []
        if self._threads(fresh=True) > 0:
            if self.no_worker_since is not None:
                self.note("Dask workers are back")
            self.no_worker_since = None
            return []
        now = time.monotonic()
        if self.no_worker_since is None:
            self.no_worker_since = now
            self.note(f"no Dask worker: waiting up to {self.timeout:g} s for one (worker_timeout)")
            return []
        if now - self.no_worker_since < self.timeout:
            return []
        self.dead = (f"no Dask worker for {self.timeout:g} s (worker_timeout); run the sweep again when "
                     "the cluster has workers")
        self.note(self.dead)
        out = []
        for fut, task in self.inflight.values():
            fut.cancel()
            out.append((task, {"key": task["key"], "error": self.dead}))
        self.inflight = {}
        return out

    def close(self, ok) -> None:
        for fut, _ in self.inflight.values():
            if not fut.done():
                fut.cancel()
        self.inflight, self.shipped = {}, {}
