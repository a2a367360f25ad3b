"""Schedulers: which waiting jobs start now.

A scheduler only counts processors; which processors a job gets is the
allocator's choice (Johnson, Bunde and Leung, sec. I: the two stages do not
interact).  Subclass :class:`Scheduler` and override :meth:`Scheduler.select`.

- FCFS: jobs start in arrival order; the head of the queue blocks the rest.
- EASY (aggressive backfilling; Mu'alem and Feitelson 2001, cited by Johnson
  et al. sec. I): the head gets a reservation at the *shadow time*, when the
  running jobs' estimated ends free enough processors; a later job starts
  now if it fits now and either ends, by its estimate, by the shadow time,
  or uses only the *extra* processors the head will not need then.
- Conservative backfilling: every waiting job, in order, gets the earliest
  reservation that delays no earlier reservation; jobs reserved at the
  current time start.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math

__all__ = ["EASY", "FCFS", "Conservative", "Scheduler"]


class Scheduler:
    """Base class: decide which waiting jobs start at time ``now``.

    Override :meth:`select`.  The simulator checks that the chosen jobs fit
    in the free processors and raises RuntimeError otherwise.
    """

    #: Name used in results and by :func:`make_scheduler`.
    name = "scheduler"
    #: Seconds after which the simulator kills every job (None: no limit).
    runtime_limit = None

    def job_started(self, job, now):
        """Told by the simulator that ``job`` started at ``now`` (default: nothing)."""

    def job_ended(self, job, now):
        """Told by the simulator that ``job`` ended at ``now`` (default: nothing)."""

    def select(self, now, waiting, free, running):
        """Jobs to start now, in start order.

        Parameters
        ----------
        now : float
            Current time.
        waiting : list of Job
            Waiting jobs in arrival order (do not modify).
        free : int
            Free processors.
        running : list of (float, int)
            ``(estimated end, processors)`` of the running jobs, sorted by
            estimated end; a job running past its estimate counts as ending
            just after ``now`` (never as free now).

        Returns
        -------
        list of Job
        """
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


def _head_run(waiting, free):
    """Start jobs from the head while they fit (FCFS order)."""
    picks, i = [], 0
    while i < len(waiting) and waiting[i].procs <= free:
        picks.append(waiting[i])
        free -= waiting[i].procs
        i += 1
    return picks, i, free


def head_reservation(now, head, free, running, picks) -> tuple[float, int]:
    """The queue head's reservation: the shadow time (the earliest
    estimated end that frees enough processors for ``head``; the jobs of
    ``picks``, just started, hold theirs until their estimate) and the extra
    processors free then beyond the head's."""
    if picks:  # both sorted: merged lazily, as far as the shadow time
        running = heapq.merge(running, sorted((now + j.estimate, j.procs) for j in picks))
    avail, shadow = free, None
    for end, p in running:
        if shadow is not None and end > shadow:
            break
        avail += p  # every job ending at the shadow time counts
        if shadow is None and avail >= head.procs:
            shadow = end
    if shadow is None:
        raise RuntimeError(f"job {head.job_id} needs {head.procs} processors, more than the machine has")
    return shadow, avail - head.procs


def backfill(now, jobs, free, shadow, extra, picks) -> list:
    """Append to ``picks`` the ``jobs``, in order, that fit in ``free``
    processors and either end by the ``shadow`` time or use only the
    ``extra`` processors (the head's reservation stays intact); returns
    ``picks``."""
    for job in jobs:
        if job.procs <= free:
            if now + job.estimate <= shadow:
                picks.append(job)
                free -= job.procs
            elif job.procs <= extra:
                picks.append(job)
                free -= job.procs
                extra -= job.procs
            if free == 0:
                break
    return picks


class FCFS(Scheduler):
    """First come, first served: strict arrival order, the head blocks.

    Examples
    --------
    >>> from optalloc.sim import Job
    >>> w = [Job(1, 0, 5, 3), Job(2, 0, 9, 2), Job(3, 0, 4, 2)]
    >>> [j.job_id for j in FCFS().select(0.0, w, 2, [(5.0, 2)])]
    []
    """

    name = "fcfs"

    def select(self, now, waiting, free, running):
        return _head_run(waiting, free)[0]


class EASY(Scheduler):
    """EASY backfilling: only the queue head holds a reservation.

    Notes
    -----
    One pass over the queue per call, which ends once no processor is
    free, and over the running jobs as far as the head's shadow time: O(q +
    r) for q waiting and r running jobs (the jobs started from the head are
    merged into the running ones, sorted).

    Examples
    --------
    >>> from optalloc.sim import Job
    >>> w = [Job(1, 0, 5, 3), Job(2, 0, 9, 2), Job(3, 0, 4, 2)]
    >>> [j.job_id for j in EASY().select(0.0, w, 2, [(5.0, 2)])]
    [3]
    """

    name = "easy"

    def select(self, now, waiting, free, running):
        picks, i, free = _head_run(waiting, free)
        if i >= len(waiting) or free == 0:
            return picks
        shadow, extra = head_reservation(now, waiting[i], free, running, picks)
        return backfill(now, itertools.islice(waiting, i + 1, None), free, shadow, extra, picks)


class Conservative(Scheduler):
    """Conservative backfilling: every waiting job holds a reservation.

    Reservations are recomputed at every call from the running jobs'
    estimated ends (a profile of free processors over time); a job starts
    now when its reservation is now.  Jobs are placed in the order of their
    previous reservations (new jobs last, in arrival order), so that when
    jobs end early the schedule is compressed and no job is reserved later
    than it was promised (Mu'alem and Feitelson 2001).

    Notes
    -----
    O(q p) per call for q waiting jobs and a profile of p steps (p <= q + r),
    so up to quadratic in the queue length.

    Examples
    --------
    >>> from optalloc.sim import Job
    >>> w = [Job(1, 0, 5, 3), Job(2, 0, 9, 2), Job(3, 0, 4, 2)]
    >>> [j.job_id for j in Conservative().select(0.0, w, 2, [(5.0, 2)])]
    [3]
    """

    name = "conservative"

    def __init__(self):
        self._promised = {}  # id(job) -> reserved start

    def queue_order(self, now, waiting):
        """Positions of ``waiting`` in the order reservations are made:
        by the reservation promised before (new jobs last), then arrival."""
        del now
        return sorted(range(len(waiting)), key=lambda i: (self._promised.get(id(waiting[i]), math.inf), i))

    def select(self, now, waiting, free, running):
        # profile: times[i] -> free processors on [times[i], times[i+1])
        times, avail = [now], [free]
        for end, p in running:
            end = max(end, now)
            if end == times[-1]:
                avail[-1] += p
            else:
                times.append(end)
                avail.append(avail[-1] + p)
        position = {id(j): i for i, j in enumerate(waiting)}
        picks = []
        promised = {}
        queue = self.queue_order(now, waiting)
        for job in (waiting[i] for i in queue):
            p, dur = job.procs, job.estimate
            s = 0
            while True:
                start = times[s]
                e = s
                ok = True
                while e < len(times) and times[e] < start + dur:
                    if avail[e] < p:
                        ok = False
                        break
                    e += 1
                if ok:
                    break
                s = e + 1
                if s >= len(times):
                    raise RuntimeError(f"job {job.job_id} needs {p} processors, more than the machine has")
            end = start + dur
            j = bisect.bisect_left(times, end)
            if j == len(times) or times[j] != end:
                times.insert(j, end)
                avail.insert(j, avail[j - 1])
            for t in range(s, j):
                avail[t] -= p
            if start == now:
                picks.append(job)
            else:
                promised[id(job)] = start
        self._promised = promised
        return sorted(picks, key=lambda j: position[id(j)])


#: Scheduler name -> class (the Cplant schedulers are added at the end of this module).
