"""Claims: several processes share one store and each configuration runs once.

A run claims a configuration in the store (table ``claims``: key, the
run's token, its pid and host, when claimed, heartbeat) in one
transaction just before it starts it, and releases the claim in the
transaction that stores its result (``_store._write_result``) or when the
run ends.  Another run skips a configuration that is done, that failed
during its own run, or that a live run holds; when nothing else is left
it waits for those and reports them as the other run stored them.

A claim is *dead*, and is taken over, when

- its process is gone: same host name and the pid not running (or a
  zombie), or the pid of this process but no run of it holds the token;
- or its heartbeat is older than :data:`CLAIM_STALE` seconds (any host:
  the only test for a run on another host, so the hosts' clocks must agree
  within minutes).

A live run refreshes the heartbeat of its claims every
:data:`CLAIM_HEARTBEAT` seconds: from its waiting loop, or from a thread
(:class:`_Heartbeat`) while a configuration runs in the calling process.
On Windows the pid is not probed (the heartbeat decides).
"""

from __future__ import annotations

import collections
import datetime
import os
import socket
import sqlite3
import sys
import threading
import time
import uuid

from ._store import _transaction

#: Seconds between two refreshes of a live run's claims.
CLAIM_HEARTBEAT = 30.0
#: A claim not refreshed for this many seconds is dead, whatever its host.
CLAIM_STALE = 600.0
#: Seconds between two looks at the claims of other runs while waiting for them.
_POLL = 1.0

#: Tokens of the runs of this process that hold claims now.
_ACTIVE: set = set()


def _pid_alive(pid) -> bool:
    """Whether a process ``pid`` of this host runs (a zombie has ended); True when unknown."""
    if os.name == "nt" or pid is None:
        return True  # os.kill(pid, 0) would end the process on Windows: the heartbeat decides
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    if sys.platform.startswith("linux"):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
                text = f.read()
            return text[text.rfind(")") + 2:].split()[0] != "Z"
        except (OSError, IndexError):
            return True
    return True


class _Owner:
    """Who claims: a token per run, the pid and the host name."""

    def __init__(self):
        self.token = uuid.uuid4().hex
        self.pid = os.getpid()
        self.host = socket.gethostname()

    def holds_live(self, owner, pid, host, heartbeat, now) -> bool:
        """Whether a claim row belongs to another run that still lives."""
        if owner == self.token:
            return False
        if heartbeat is None or now - heartbeat > CLAIM_STALE:
            return False
        if host == self.host:
            if pid == self.pid:
                return owner in _ACTIVE  # another run of this process (a thread), or one that ended
            return _pid_alive(pid)
        return True


class _Queue:
    """The configurations a run still has to settle, claimed one by one as they start.

    ``take()`` gives the next configuration this run may start (claimed),
    or None when every one left is held by another live run; on the way it
    reports through ``settled(task, status, error)`` those that another run
    stored meanwhile (``"done"``) or failed during this run (``"failed"``).
    """

    def __init__(self, conn, tasks, settled):
        self.conn, self.settled = conn, settled
        self.owner = _Owner()
        self.pending = collections.deque(tasks)
        # failures stored before this run: retried; a later one is another run's verdict
        self.failed_before = dict(conn.execute("SELECT key, attempts FROM failures"))
        self.held: dict = {}  # key -> (pid, host) of the live run holding it, as last seen
        self._last_beat = time.monotonic()
        _ACTIVE.add(self.owner.token)

    def take(self):
        """Claim and return the next configuration free to run, or None."""
        if not self.pending:
            return None
        now = time.time()
        chosen, done = None, []
        # a claim need not survive a power cut (its run would not either): no sync of its own; the
        # next result's commit syncs it with the result
        self.conn.execute("PRAGMA synchronous=NORMAL")
        try:
            with _transaction(self.conn) as conn:
                chosen = self._claim_next(conn, now, done)
        finally:
            self.conn.execute("PRAGMA synchronous=FULL")
        gone = {id(t) for t, _, _ in done} | ({id(chosen)} if chosen is not None else set())
        if gone:
            self.pending = collections.deque(t for t in self.pending if id(t) not in gone)
        for task, status, error in done:
            self.settled(task, status, error)
        return chosen

    def _claim_next(self, conn, now, done):
        """In the transaction of :meth:`take`: settle, skip, or claim and return, the pending in turn."""
        claims = {k: rest for k, *rest in conn.execute("SELECT key, owner, pid, host, heartbeat FROM claims")}
        self.held = {}
        for task in self.pending:
            key = task["key"]
            if conn.execute("SELECT 1 FROM summaries WHERE key=?", (key,)).fetchone():
                done.append((task, "done", None))
                continue
            failure = conn.execute("SELECT error, attempts FROM failures WHERE key=?", (key,)).fetchone()
            if failure is not None and failure[1] > self.failed_before.get(key, 0):
                done.append((task, "failed", failure[0]))
                continue
            claim = claims.get(key)
            if claim is not None and self.owner.holds_live(*claim, now):
                self.held[key] = (claim[1], claim[2])
                continue
            conn.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?, ?)",
                         (key, self.owner.token, self.owner.pid, self.owner.host,
                          datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), now))
            return task
        return None

    def has_free(self) -> bool:
        """Whether a configuration left is not held by another run (as last seen)."""
        return any(t["key"] not in self.held for t in self.pending)

    def requeue(self, task) -> None:
        """Put back a configuration whose run was lost (its claim is kept): it starts again first."""
        self.pending.appendleft(task)

    def waiting_for(self) -> str:
        """Which other runs hold the configurations left, for the progress line."""
        runs = collections.Counter(self.held.values())
        return ", ".join(f"{n} by pid {pid} on {host}" for (pid, host), n in runs.most_common())

    def wait(self) -> None:
        """Sleep a moment while other runs hold what is left, keeping this run's claims alive."""
        time.sleep(_POLL)
        self.heartbeat()

    def heartbeat(self, *, force=False) -> None:
        """Refresh this run's claims when :data:`CLAIM_HEARTBEAT` seconds have passed."""
        if force or time.monotonic() - self._last_beat >= CLAIM_HEARTBEAT:
            with _transaction(self.conn) as conn:
                conn.execute("UPDATE claims SET heartbeat=? WHERE owner=?", (time.time(), self.owner.token))
            self._last_beat = time.monotonic()

    def release(self) -> None:
        """Drop this run's remaining claims (best effort: a dead run's claims are taken over anyway)."""
        _ACTIVE.discard(self.owner.token)
        try:
            with _transaction(self.conn) as conn:
                conn.execute("DELETE FROM claims WHERE owner=?", (self.owner.token,))
        except (OSError, sqlite3.Error):
            pass


class _Heartbeat:
    """A thread refreshing a run's claims while a configuration runs in the
    calling process (whose loop cannot do it then); a context manager."""

    def __init__(self, path, token, interval=CLAIM_HEARTBEAT):
        self.path, self.token, self.interval = path, token, interval
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, name="optalloc-sweep-heartbeat", daemon=True)

    def _beat(self):
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=5)
        try:
            while not self.stop.wait(self.interval):
                try:
                    conn.execute("UPDATE claims SET heartbeat=? WHERE owner=?", (time.time(), self.token))
                except sqlite3.Error:  # a full disk or a long lock: the run's own writes report it
                    pass
        finally:
            conn.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
