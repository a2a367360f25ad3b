"""Fair share and fair-start times (SAND2003-3702, ch. 7).

*Fair share*: each user's usage is the processor-hours of their jobs,
decaying exponentially with a half-life (the report says "decaying
node-hours" and gives no rate; the default here, one day, is our choice).
A job's fairness priority is its user's usage when the priority is asked
for: less usage first, then earlier submit, then trace order.  Usage
accrues while a job runs: a user running ``r`` processors from ``t0`` to
``t`` with decay rate ``l = ln 2 / half_life`` goes from ``U`` to
``U e^(-l (t - t0)) + r (1 - e^(-l (t - t0))) / l`` (processor-seconds;
without decay ``U + r (t - t0)``).

*Fair-start time* of a job: when the job is submitted, the jobs waiting
then (itself included) are put in fairness-priority order and scheduled in
that order with no backfilling (a job never starts before one ahead of it),
after the running jobs end at their estimated ends; the job's start in that
schedule is its fair-start time.  A job that starts later than its
fair-start time was treated unfairly (SAND ch. 7 introduction).

A job without a user id (SWF field 12 unknown) counts as a user of its own;
a trace where no job has a user id is refused (:func:`check_users`).
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from ._columns import columns_of

__all__ = ["DEFAULT_HALF_LIFE", "FairShare", "FairStart", "check_users", "fair_start_summary", "fair_start_time"]

#: Half-life of fair-share usage, seconds (one day; SAND2003-3702 gives no rate).
DEFAULT_HALF_LIFE = 86400.0


def user_key(job):
    """The fair-share account of a job: its user id, or the job itself when unknown."""
    return job.user if job.user is not None else ("job", job.job_id)


def check_users(jobs, what: str) -> None:
    """Refuse a trace in which no job has a user id (``what`` needs them)."""
    if jobs and all(j.user is None for j in jobs):
        raise ValueError(f"{what} needs user ids (SWF field 12) and no job of the trace has one")


def check_half_life(half_life):
    """``half_life`` as a positive float, or None (no decay)."""
    if half_life is None:
        return None
    h = float(half_life)
    if not (math.isfinite(h) and h > 0):
        raise ValueError(f"`half_life` must be a positive number of seconds or None, got {half_life!r}")
    return h


class FairShare:
    """Decaying usage per user, updated as jobs start and end.

    Parameters
    ----------
    half_life : float or None
        Seconds for usage to halve; None: no decay.

    Examples
    --------
    >>> from optalloc.sim import Job
    >>> fs = FairShare(half_life=None)
    >>> j = Job(1, 0, 7200, 4, user=3)
    >>> fs.start(j, 0.0); fs.end(j, 7200.0)
    >>> fs.usage(3, 9000.0) / 3600   # processor-hours
    8.0
    """

    def __init__(self, half_life=DEFAULT_HALF_LIFE):
        self.half_life = check_half_life(half_life)
        self._decay = 0.0 if self.half_life is None else math.log(2) / self.half_life
        self._state = {}  # account -> [usage (processor-seconds) at t0, t0, processors running]

    def _advance(self, key, now):
        st = self._state.get(key)
        if st is None:
            st = self._state[key] = [0.0, now, 0]
            return st
        u, t0, r = st
        dt = now - t0
        if dt > 0:
            if self._decay:
                f = math.exp(-self._decay * dt)
                u = u * f + r * (1.0 - f) / self._decay
            else:
                u += r * dt
            st[0], st[1] = u, now
        return st

    def usage(self, key, now) -> float:
        """Usage of an account at time ``now`` (processor-seconds)."""
        if key not in self._state:
            return 0.0
        return self._advance(key, now)[0]

    def start(self, job, now) -> None:
        """The job started: its user accrues its processors from now on."""
        self._advance(user_key(job), now)[2] += job.procs

    def end(self, job, now) -> None:
        """The job ended."""
        self._advance(user_key(job), now)[2] -= job.procs

    def running(self, key) -> int:
        """Processors the account runs now."""
        st = self._state.get(key)
        return 0 if st is None else st[2]

    def running_accounts(self) -> list:
        """Accounts with processors running now."""
        return [k for k, st in self._state.items() if st[2] > 0]

    def priority_order(self, jobs, now) -> list:
        """``jobs`` in fairness-priority order: less usage, earlier submit, given order."""
        cache = {}
        keyed = []
        for i, j in enumerate(jobs):
            k = user_key(j)
            if k not in cache:
                cache[k] = self.usage(k, now)
            keyed.append((cache[k], j.submit, i))
        keyed.sort()
        return [jobs[i] for _, _, i in keyed]


def fair_start_time(now, job, ordered, free, running) -> float:
    """The start of ``job`` in the in-order, non-backfilling schedule of
    ``ordered`` (waiting jobs in priority order, ``job`` among them) after
    the ``running`` jobs, given as ``(estimated end, processors)``, release
    their processors; ``free`` processors are free at ``now``.

    Examples
    --------
    >>> from optalloc.sim import Job
    >>> a, b = Job(1, 0, 10, 3), Job(2, 0, 5, 1)
    >>> fair_start_time(0.0, b, [a, b], 2, [(4.0, 2)])   # a waits for 4.0, b may not pass it
    4.0
    """
    ends = [(float(e), int(p)) for e, p in running]
    heapq.heapify(ends)
    t, avail = float(now), int(free)
    for j in ordered:
        while avail < j.procs:
            if not ends:
                raise RuntimeError(f"job {j.job_id} needs {j.procs} processors, more than the machine has")
            e, p = heapq.heappop(ends)
            t = max(t, e)
            avail += p
        if j is job:
            return t
        heapq.heappush(ends, (t + j.estimate, j.procs))
        avail -= j.procs
    raise RuntimeError(f"job {job.job_id} is not among the waiting jobs")


class FairStart:
    """Fair-start times of the jobs of one simulation (the simulator calls it).

    Parameters
    ----------
    half_life : float or None
        Of the fair-share usage behind the priority.
    """

    def __init__(self, half_life=DEFAULT_HALF_LIFE):
        self.fair_share = FairShare(half_life)
        self.times = {}  # id(job) -> fair-start time

    def arrived(self, job, now, waiting, free, running) -> None:
        """``job`` was submitted at ``now``; ``waiting`` holds it."""
        ordered = self.fair_share.priority_order(waiting, now)
        self.times[id(job)] = fair_start_time(now, job, ordered, free, running)

    def started(self, job, now) -> None:
        self.fair_share.start(job, now)

    def ended(self, job, now) -> None:
        self.fair_share.end(job, now)


def fair_start_summary(records) -> dict:
    """``fair_start_missed_share`` (jobs started after their fair-start
    time, over the jobs that have one), ``fair_start_mean_miss`` and
    ``fair_start_max_miss`` (how late those jobs started, seconds; 0 when
    none is late); all None when no record has a fair-start time.

    Examples
    --------
    >>> from types import SimpleNamespace as R
    >>> fair_start_summary([R(start=5.0, fair_start=5.0), R(start=9.0, fair_start=3.0)])
    {'fair_start_missed_share': 0.5, 'fair_start_mean_miss': 6.0, 'fair_start_max_miss': 6.0}
    """
    cols = columns_of(records)
    pairs = [(s, f) for s, f in zip(cols.column("start"), cols.column("fair_start")) if f is not None]
    if not pairs:
        return {"fair_start_missed_share": None, "fair_start_mean_miss": None, "fair_start_max_miss": None}
    start, fair = (np.asarray(c, dtype=float) for c in zip(*pairs))
    late = start - fair
    missed = late > 1e-9 * np.maximum(1.0, np.abs(fair))
    return {"fair_start_missed_share": float(missed.mean()),
            "fair_start_mean_miss": float(late[missed].mean()) if missed.any() else 0.0,
            "fair_start_max_miss": float(late[missed].max()) if missed.any() else 0.0}
