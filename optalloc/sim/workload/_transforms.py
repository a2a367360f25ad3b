"""Workload transforms of Leung et al. (2002, sec. 3): the work multiple and
the replication factor.

- :func:`work_multiple` multiplies every run time (and requested time) by a
  factor and leaves the release (submit) times alone, so the same arrivals
  meet a heavier or lighter load;
- :func:`replicate` keeps every job and adds copies of it whose arrival
  times are perturbed by a seeded random delay.

- :func:`scale_up` multiplies every job's processor count by the ratio of
  a larger machine's size to the trace's, the opposite of reading a trace
  with ``read_swf(..., scale=N)`` (which divides them).

Each returns a new :class:`Trace`; the input is not changed.  The first two
do not touch processor counts, so a job fits the machine after them if and
only if it fitted before (:func:`simulate` checks every job against the
machine and names the first one that does not fit).
"""

from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np

from ..._validate import int_at_least
from ._swf import Job, Trace  # noqa: F401 (Job: for the examples)

__all__ = ["replicate", "scale_up", "work_multiple"]


def _as_trace(trace) -> Trace:
    if isinstance(trace, Trace):
        return trace
    try:
        return Trace(tuple(trace))
    except TypeError:
        raise ValueError(f"`trace` must be a Trace or a sequence of Job, got {type(trace).__name__}") from None


def _rebuild(trace: Trace, jobs) -> Trace:
    report = dataclasses.replace(trace.report, jobs=len(jobs))
    return Trace(tuple(jobs), trace.max_procs, trace.header, trace.header_lines, report, trace.source)


def check_work_multiple(factor) -> float:
    """``factor`` as a positive finite float; a one-line ValueError otherwise."""
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real):
        raise ValueError(f"`work_multiple` must be a positive number, got {factor!r}")  # noqa: TRY004
    f = float(factor)
    if not (math.isfinite(f) and f > 0):
        raise ValueError(f"`work_multiple` must be a positive finite number, got {f}")
    return f


def check_replication(factor) -> int:
    """``factor`` as an integer >= 1; a one-line ValueError otherwise."""
    return int_at_least(factor, 1, "`replication` must be an integer of at least 1")


def work_multiple(trace, factor) -> Trace:
    """The trace with every run time multiplied by ``factor`` (the *work
    multiple* of Leung et al. 2002, sec. 3); submit times are unchanged.

    The requested time (estimate) is multiplied too, so a job that ran
    within its estimate still does, and a job killed at its estimate is
    still killed.

    Parameters
    ----------
    trace : Trace or sequence of Job
    factor : float
        Positive and finite; 1 gives the trace back unchanged.

    Returns
    -------
    Trace
        Same jobs (ids, submit times, processors, users), scaled run times
        and estimates.

    Raises
    ------
    ValueError
        ``factor`` not a positive finite number (0, negative, NaN,
        infinite), or ``trace`` not a trace.

    Examples
    --------
    >>> t = work_multiple([Job(1, 0, 10, 2, 20), Job(2, 5, 4, 1)], 1.5)
    >>> [(j.submit, j.runtime, j.estimate) for j in t]
    [(0.0, 15.0, 30.0), (5.0, 6.0, 6.0)]
    """
    f = check_work_multiple(factor)
    trace = _as_trace(trace)
    if f == 1.0:
        return trace
    jobs = [dataclasses.replace(j, runtime=j.runtime * f, estimate=j.estimate * f) for j in trace.jobs]
    return _rebuild(trace, jobs)


def copy_stride(trace) -> int:
    """The id offset between a job and its copies in :func:`replicate`: the
    smallest power of ten above every job id (at least 10)."""
    top = max((abs(j.job_id) for j in _as_trace(trace).jobs), default=0)
    return 10 ** max(1, len(str(top)))


def replicate(trace, factor, *, seed=0, spread=None) -> Trace:
    """Each job plus ``factor - 1`` copies with perturbed arrival times (the
    *replication factor* of Leung et al. 2002, sec. 3).

    The original jobs keep their submit times.  Copy ``c`` (1 .. factor - 1)
    of job ``i`` has job id ``i + c * stride`` (``stride`` the smallest
    power of ten above every id, :func:`copy_stride`), the same run time,
    estimate, processors and user, and arrives ``U * spread`` seconds after
    job ``i``, with ``U`` uniform on [0, 1) drawn from ``seed``.

    Parameters
    ----------
    trace : Trace or sequence of Job
    factor : int
        Copies of each job in the result, the original included (>= 1; 1
        gives the trace back unchanged).
    seed : int or numpy.random.Generator
        Seed of the perturbation; the same seed gives the same trace.
    spread : float, optional
        Largest delay of a copy, in seconds (>= 0).  Default: the mean time
        between two arrivals of the trace (0 for a single job).

    Returns
    -------
    Trace
        ``factor * len(trace)`` jobs, sorted by submit time.

    Raises
    ------
    ValueError
        ``factor`` below 1 or not an integer, a negative or non-finite
        ``spread``.

    Examples
    --------
    >>> t = replicate([Job(1, 0, 10, 2), Job(2, 100, 5, 1)], 2, seed=1)
    >>> sorted(j.job_id for j in t)
    [1, 2, 11, 12]
    >>> at = {j.job_id: j.submit for j in t}
    >>> all(0 <= at[i + 10] - at[i] < 100 for i in (1, 2))
    True
    """
    n = check_replication(factor)
    trace = _as_trace(trace)
    if spread is not None:
        if isinstance(spread, bool) or not isinstance(spread, numbers.Real) or not (
                math.isfinite(float(spread)) and float(spread) >= 0):
            raise ValueError(f"`spread` must be a non-negative finite number of seconds, got {spread!r}")
        spread = float(spread)
    if n == 1:
        return trace
    jobs = trace.jobs
    if spread is None:
        spread = (jobs[-1].submit - jobs[0].submit) / (len(jobs) - 1) if len(jobs) > 1 else 0.0
    rng = np.random.default_rng(seed)
    stride = copy_stride(trace)
    delays = rng.random((n - 1, len(jobs))) * spread
    out = list(jobs)
    for c in range(1, n):
        for j, d in zip(jobs, delays[c - 1]):
            out.append(dataclasses.replace(j, job_id=j.job_id + c * stride, submit=j.submit + float(d)))
    return _rebuild(trace, out)


def scale_up(trace, nodes, *, trace_nodes=None) -> Trace:
    """The trace on a machine of ``nodes``: every job's processor count
    times ``nodes / trace_nodes``, rounded to the nearest integer (halves
    up), at least 1 and at most ``nodes``; submit and run times, estimates
    and everything else unchanged.

    A job that filled the trace's machine fills the new one, and the share
    of the machine each job takes is kept up to rounding.

    Parameters
    ----------
    trace : Trace or sequence of Job
    nodes : int
        Size of the larger machine (at least ``trace_nodes``).
    trace_nodes : int, optional
        Size of the machine the trace was recorded on.  Default: the
        trace's ``max_procs`` (an SWF file's ``MaxProcs``, else
        ``MaxNodes``).

    Returns
    -------
    Trace
        The scaled jobs, ``max_procs`` = ``nodes``.

    Raises
    ------
    ValueError
        ``nodes`` smaller than the trace's machine (scale down with
        ``read_swf(..., scale=N)``), the trace's machine size unknown, or a
        job larger than the trace's machine (it cannot fit even scaled).

    Examples
    --------
    >>> t = Trace([Job(1, 0, 10, 1), Job(2, 5, 4, 3), Job(3, 9, 2, 8)], max_procs=8)
    >>> [j.procs for j in scale_up(t, 20)]   # x 2.5: 2.5, 7.5, 20, rounded half up
    [3, 8, 20]
    >>> scale_up(t, 20).max_procs
    20
    """
    trace = _as_trace(trace)
    nodes = int_at_least(nodes, 1, "`nodes` must be a positive integer")
    if trace_nodes is None:
        trace_nodes = trace.max_procs
        if trace_nodes is None:
            raise ValueError("the trace's machine size is unknown (no MaxProcs or MaxNodes in its header): "
                             "give `trace_nodes`")
    trace_nodes = int_at_least(trace_nodes, 1, "`trace_nodes` must be a positive integer")
    if nodes < trace_nodes:
        raise ValueError(f"`nodes` ({nodes}) is smaller than the trace's machine ({trace_nodes}): scale a trace "
                         f"down by reading it with scale=N")
    big = next((j for j in trace.jobs if j.procs > trace_nodes), None)
    if big is not None:
        raise ValueError(f"job {big.job_id} needs {big.procs} processors, more than the trace's machine "
                         f"({trace_nodes}): it cannot fit {nodes} nodes even scaled")
    # exact integer rounding, half up: floor((2 * procs * nodes + trace_nodes) / (2 * trace_nodes))
    jobs = [j if nodes == trace_nodes else dataclasses.replace(
        j, procs=min(nodes, max(1, (2 * j.procs * nodes + trace_nodes) // (2 * trace_nodes))))
        for j in trace.jobs]
    report = dataclasses.replace(trace.report, jobs=len(jobs))
    return Trace(tuple(jobs), nodes, trace.header, trace.header_lines, report, trace.source)


def cap_runtime(jobs, limit):
    """Jobs whose estimates are cut to ``limit`` seconds (a scheduler's
    runtime limit: the job is killed there), as a tuple."""
    return tuple(j if j.estimate <= limit else dataclasses.replace(j, estimate=limit) for j in jobs)
