"""The Cplant queue and schedulers (Leung et al. 2002, sec. 3;
SAND2003-3702, ch. 7.1-7.2).

- ``"cplant-queue"`` (:class:`CplantQueue`): the queue of Leung's
  simulator, sorted by requested processors, then requested time (fewest
  and shortest first: the report gives the keys, not their direction; we
  read it as ascending), then arrival; jobs leave from the front while they
  fit, and the front blocks the rest.
- ``"cplant"`` (:class:`Cplant`), the baseline scheduler of SAND 7.1:
  waiting jobs in fair-share order (:class:`optalloc.sim.FairShare`:
  least decayed processor-hours of their user first); *no-guarantee
  backfilling*: every job that fits starts, in that order, and no job
  holds a reservation; a job waiting more than the *starvation limit* (24
  hours) is *starving*: starving jobs come first, in first-come
  first-served order, and the first starving job that does not fit holds a
  reservation (aggressive backfilling: a later job starts only if it fits
  now and ends, by its estimate, by the reservation, or uses processors the
  reserved job will not need).
- The alternatives of SAND 7.2: ``"cplant-cap72"`` (run times limited to
  72 hours: a job is killed there), ``"cplant-starve72"`` (starvation limit
  72 hours), ``"cplant-nohog"`` (no starvation reservation for a user who
  hogs the machine: one whose usage exceeds the mean usage of the users
  with jobs waiting or running; their starving jobs stay in fair-share
  order), ``"cplant-tweaks"`` (the three together, as in SAND Fig. 19),
  ``"cplant-conservative"`` (conservative backfilling: every job holds a
  reservation, kept as promised; new jobs are placed in fair-share order)
  and ``"cplant-dynamic"`` (conservative backfilling whose reservations are
  recomputed in fair-share order at every decision).

The schedulers learn of starts and ends through
:meth:`Scheduler.job_started` and :meth:`Scheduler.job_ended`, and read
users from :attr:`Job.user`.
"""

from __future__ import annotations

import math

from ..metrics import DEFAULT_HALF_LIFE, FairShare, check_half_life, user_key
from ._schedulers import Conservative, Scheduler, _head_run, backfill, head_reservation

__all__ = [
    "CPLANT_SCHEDULERS",
    "Cplant",
    "CplantCap72",
    "CplantConservative",
    "CplantDynamic",
    "CplantNoHog",
    "CplantQueue",
    "CplantStarve72",
    "CplantTweaks",
]

HOUR = 3600.0


def _positive_seconds(value, name):
    if value is None:
        return None
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"`{name}` must be a positive number of seconds or None, got {value!r}")
    return v


class CplantQueue(Scheduler):
    """Leung et al.'s Cplant queue: by requested processors, then requested
    time, then arrival; the front leaves while it fits.

    Examples
    --------
    >>> from optalloc.sim import Job
    >>> w = [Job(1, 0, 5, 3), Job(2, 0, 9, 2), Job(3, 0, 4, 2)]
    >>> [j.job_id for j in CplantQueue().select(0.0, w, 4, [])]
    [3, 2]
    """

    name = "cplant-queue"

    def select(self, now, waiting, free, running):
        order = sorted(range(len(waiting)), key=lambda i: (waiting[i].procs, waiting[i].estimate, i))
        return _head_run([waiting[i] for i in order], free)[0]


class _FairShareScheduler(Scheduler):
    """A scheduler keeping fair-share usage from the starts and ends it is told of."""

    half_life = DEFAULT_HALF_LIFE

    def __init__(self, *, half_life=None):
        if half_life is not None:
            self.half_life = check_half_life(half_life)
        self.fair_share = FairShare(self.half_life)

    def job_started(self, job, now):
        self.fair_share.start(job, now)

    def job_ended(self, job, now):
        self.fair_share.end(job, now)


class Cplant(_FairShareScheduler):
    """The baseline Cplant scheduler (SAND2003-3702, ch. 7.1).

    Parameters
    ----------
    starvation_limit : float
        Seconds of waiting after which a job is starving (default 24 h).
    runtime_limit : float or None
        Jobs are killed after this many seconds (None: no limit).
    hog_reservation : bool
        False: a user hogging the machine (usage above the mean of the
        active users) gets no starvation priority.
    half_life : float or None
        Of the fair-share usage (default one day; None: no decay).

    Examples
    --------
    >>> from optalloc.sim import Job
    >>> s = Cplant()
    >>> w = [Job(1, 0, 5, 3, user=1), Job(2, 0, 9, 2, user=2), Job(3, 0, 4, 1, user=1)]
    >>> [j.job_id for j in s.select(0.0, w, 3, [])]   # no usage yet: submit order, no guarantee
    [1]
    >>> [j.job_id for j in s.select(100000.0, w, 2, [(100001.0, 2)])]   # all starving: FCFS, 1 reserved
    [3]
    """

    name = "cplant"
    starvation_limit = 24 * HOUR
    runtime_limit = None
    hog_reservation = True

    def __init__(self, *, starvation_limit=None, runtime_limit=None, hog_reservation=None, half_life=None):
        super().__init__(half_life=half_life)
        if starvation_limit is not None:
            self.starvation_limit = _positive_seconds(starvation_limit, "starvation_limit")
        if runtime_limit is not None:
            self.runtime_limit = _positive_seconds(runtime_limit, "runtime_limit")
        if hog_reservation is not None:
            self.hog_reservation = bool(hog_reservation)

    def _hogs(self, waiting, now):
        """Accounts whose usage exceeds the mean usage of the active accounts."""
        accounts = {user_key(j) for j in waiting} | set(self.fair_share.running_accounts())
        usage = {k: self.fair_share.usage(k, now) for k in accounts}
        mean = sum(usage.values()) / len(usage) if usage else 0.0
        return {k for k, u in usage.items() if u > mean}

    def select(self, now, waiting, free, running):
        starving = [j for j in waiting if now - j.submit > self.starvation_limit]
        if starving and not self.hog_reservation:
            hogs = self._hogs(waiting, now)
            starving = [j for j in starving if user_key(j) not in hogs]
        marked = {id(j) for j in starving}
        rest = self.fair_share.priority_order([j for j in waiting if id(j) not in marked], now)
        order = sorted(starving, key=lambda j: j.submit) + rest  # stable: ties keep arrival order
        picks, head, i = [], None, 0
        for i, job in enumerate(order):
            if job.procs <= free:
                picks.append(job)
                free -= job.procs
            elif id(job) in marked:
                head = job
                break
        if head is None or free == 0:
            return picks
        shadow, extra = head_reservation(now, head, free, running, picks)
        return backfill(now, order[i + 1:], free, shadow, extra, picks)

    def __repr__(self):
        return f"{type(self).__name__}()"


class CplantCap72(Cplant):
    """Baseline Cplant with run times limited to 72 hours (SAND 7.2)."""

    name = "cplant-cap72"
    runtime_limit = 72 * HOUR


class CplantStarve72(Cplant):
    """Baseline Cplant with a starvation limit of 72 hours (SAND 7.2)."""

    name = "cplant-starve72"
    starvation_limit = 72 * HOUR


class CplantNoHog(Cplant):
    """Baseline Cplant without starvation reservations for users hogging the machine (SAND 7.2)."""

    name = "cplant-nohog"
    hog_reservation = False


class CplantTweaks(Cplant):
    """The three small tweaks of SAND 7.4.1 together: 72-hour starvation
    limit, 72-hour runtime limit, no starvation reservation for hogs."""

    name = "cplant-tweaks"
    starvation_limit = 72 * HOUR
    runtime_limit = 72 * HOUR
    hog_reservation = False


class CplantConservative(_FairShareScheduler, Conservative):
    """Conservative backfilling with fair-share order (SAND 7.2): a job keeps
    the reservation it was given; jobs without one are placed in fair-share
    order."""

    name = "cplant-conservative"

    def __init__(self, *, half_life=None):
        _FairShareScheduler.__init__(self, half_life=half_life)
        Conservative.__init__(self)

    def queue_order(self, now, waiting):
        ordered = self.fair_share.priority_order(waiting, now)
        rank = {id(j): r for r, j in enumerate(ordered)}
        return sorted(range(len(waiting)),
                      key=lambda i: (self._promised.get(id(waiting[i]), math.inf), rank[id(waiting[i])]))

    def __repr__(self):
        return f"{type(self).__name__}()"


class CplantDynamic(CplantConservative):
    """Conservative backfilling with dynamic reservations (SAND 7.2): all
    reservations are recomputed in fair-share order at every decision, so
    no job delays a fairer one."""

    name = "cplant-dynamic"

    def queue_order(self, now, waiting):
        ordered = self.fair_share.priority_order(waiting, now)
        rank = {id(j): r for r, j in enumerate(ordered)}
        return sorted(range(len(waiting)), key=lambda i: rank[id(waiting[i])])


#: Name -> class of the Cplant schedulers.
CPLANT_SCHEDULERS = {c.name: c for c in (CplantQueue, Cplant, CplantCap72, CplantStarve72, CplantNoHog,
                                         CplantTweaks, CplantConservative, CplantDynamic)}
