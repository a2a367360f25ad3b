"""A Dask client from a scheduler address or a ``distributed.Client``, for
sweeps and certification (dask and distributed are imported when called)."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["DaskClient", "dask_client"]


class DaskClient(NamedTuple):
    """A ``distributed.Client`` (or None) and whether this run opened it (and must close it)."""

    client: object
    owned: bool


def dask_client(scheduler) -> DaskClient:
    if not isinstance(scheduler, str):
        if hasattr(scheduler, "submit") and hasattr(scheduler, "scatter"):
            return DaskClient(scheduler, False)
        raise ValueError(f"`scheduler` must be an address such as 'tcp://HOST:PORT' or a "
                         f"distributed.Client, got {scheduler!r}")
    if "://" not in scheduler:
        raise ValueError(f"`scheduler` must be an address such as 'tcp://HOST:PORT', got {scheduler!r}")
    try:
        from distributed import Client
    except ImportError as exc:
        raise ImportError(f"a Dask scheduler needs dask and distributed (pip install 'optalloc[cluster]'): {exc}") \
            from None
    try:
        return DaskClient(Client(scheduler, timeout=20), True)
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"`scheduler` {scheduler!r}: cannot connect ({exc})") from None
