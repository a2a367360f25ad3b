"""Running a sweep's configurations on a Dask cluster.

dask and distributed are imported inside the functions, so that a sweep
in local processes does not need them.
"""

from __future__ import annotations

from pathlib import Path

from . import _worker


def _execute_dask(tasks, payloads, client, handle):
    """Run ``tasks`` on the cluster's workers; ``handle(task, out)`` as each ends."""
    futures = []
    try:
        from distributed import as_completed

        shipped = {}
        for sha in {t["sha"] for t in tasks}:
            kind, value = payloads[sha]
            # a plain tuple, which every distributed release scatters and rebuilds (older ones
            # cannot rebuild a NamedTuple); the worker unpacks it like a _Payload
            data = ("bytes", Path(value).read_bytes()) if kind == "path" else (kind, value)
            shipped[sha] = client.scatter(data, hash=False)  # sent once, not with every task
        by_future = {}
        for t in tasks:
            fut = client.submit(_worker._run_config, t, shipped[t["sha"]], pure=False)
            by_future[fut.key] = t
            futures.append(fut)
        for fut in as_completed(futures):
            task = by_future[fut.key]
            try:
                out = fut.result()
            except Exception as exc:  # noqa: BLE001 - a lost or killed worker
                out = {"key": task["key"], "error": f"{type(exc).__name__}: {exc}"}
            handle(task, out)
    finally:
        for fut in futures:
            if not fut.done():
                fut.cancel()
