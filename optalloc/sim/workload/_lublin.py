"""The Lublin-Feitelson workload model of rigid parallel jobs, for a machine
of any size.

U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
modeling the characteristics of rigid jobs", J. Parallel Distrib. Comput.
63(11):1105-1122, 2003; the parameters are those of the model's reference
implementation (``m_lublin99.c``, Parallel Workloads Archive), fitted for a
128-node machine.  Each job has:

- a *class*, batch or interactive, each with its own parameters and its
  own arrival process (the job is of the class whose next arrival comes
  first); or one class with the parameters fitted to the whole sample;
- a *size*: serial (1 node) with the class's serial share, else ``2^x``
  rounded, ``x`` drawn from a two-stage uniform on ``log2`` of the size
  (``[low, med]`` with probability ``uprob``, else ``[med, hi]``), and ``x``
  itself rounded first for the power-of-two share of the jobs;
- a *run time* ``exp(h)`` seconds, ``h`` from a hyper-gamma (a mixture of
  two gamma distributions) whose mixing probability falls linearly with
  the size, ``p = pa * size + pb`` (clipped to [0, 1]), so larger jobs run
  longer; ``h`` above 12 (about two days) is drawn again;
- an *arrival*: inter-arrival ``exp(g)`` seconds at rush hour, ``g`` from a
  gamma (above 13, five days, drawn again), stretched by the *daily cycle*:
  the day has 48 half-hour buckets whose weights are the masses of a gamma
  distribution over the bucket index (the cycle starts at bucket 11, so
  the peak falls in the afternoon), normalised to mean 1; an inter-arrival
  spends its length across the buckets, a bucket of weight ``w`` taking
  ``1800 * w`` seconds of it.  The process is the inverse of the cumulative
  intensity, computed here for all jobs at once.

The machine enters through ``log2`` of its size: ``hi`` is ``log2(nodes)``
(less 1.5 for interactive jobs, whose largest are smaller), and ``med`` lies
the model's distance below it (2 for batch jobs, 4 for interactive ones,
2.5 for the whole sample); on a small machine ``low <= med <= hi`` is kept
by clipping.  A power-of-two job never exceeds the largest power of two in
the machine, and no job exceeds the machine.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ..._validate import int_at_least
from ._swf import Job, Trace, _parse_header

__all__ = ["LUBLIN_CLASSES", "LublinClass", "lublin_workload"]

BUCKETS = 48
SECONDS_IN_BUCKET = 86400 / BUCKETS
#: the bucket index where the gamma of the daily cycle starts (m_lublin99.c CYCLIC_DAY_START)
CYCLE_START = 11
#: largest log of a run time (about two days) and of an inter-arrival time (about five days)
MAX_LOG_RUNTIME, MAX_LOG_INTERARRIVAL = 12.0, 13.0


@dataclass(frozen=True)
class LublinClass:
    """The parameters of one class of jobs in the Lublin-Feitelson model.

    Attributes
    ----------
    name : str
        ``"batch"``, ``"interactive"`` or ``"all"`` (the whole sample).
    queue : int
        SWF queue number of its jobs (field 15: 0 interactive, 1 batch).
    serial, pow2 : float
        Shares of serial jobs and of parallel jobs with a power-of-two size
        (of all jobs of the class).
    low, med_below, hi_below, uprob : float
        The two-stage uniform on ``log2`` of the size: ``low``;
        ``med = log2(nodes) - med_below``; ``hi = log2(nodes) - hi_below``;
        ``uprob`` the weight of ``[low, med]``.
    a1, b1, a2, b2, pa, pb : float
        The hyper-gamma of ``log`` of the run time: gamma(a1, scale b1) with
        probability ``p = pa * size + pb``, else gamma(a2, scale b2).
    aarr, barr : float
        Gamma of ``log`` of the rush-hour inter-arrival time (``aarr``
        already multiplied by the model's arrive-rush-to-all ratio).
    anum, bnum : float
        Gamma over the bucket index whose masses weigh the buckets of the day.

    Examples
    --------
    >>> batch = LUBLIN_CLASSES["batch"]
    >>> batch.serial, batch.size_bounds(128)      # the paper's 128-node machine
    (0.2927, (1.2, 5.0, 7.0))
    >>> w = batch.bucket_weights()               # half hours from midnight, mean 1
    >>> int(w.argmax()) // 2, float(round(w.mean(), 6))    # the busiest hour
    (13, 1.0)
    """

    name: str
    queue: int
    serial: float
    pow2: float
    low: float
    med_below: float
    hi_below: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float

    def bucket_weights(self) -> np.ndarray:
        """The 48 half-hour weights of the daily cycle (bucket 0 starts at
        midnight), mean 1."""
        i = np.arange(CYCLE_START, CYCLE_START + BUCKETS, dtype=float)
        from scipy.special import gammainc  # scipy loads when a trace is made, not with optalloc.sim

        mass = gammainc(self.anum, (i + 0.5) / self.bnum) - gammainc(self.anum, (i - 0.5) / self.bnum)
        w = np.empty(BUCKETS)
        w[(i.astype(np.int64) - 1) % BUCKETS] = mass
        return w / w.mean()

    def size_bounds(self, nodes: int) -> tuple[float, float, float]:
        """``(low, med, hi)`` of the two-stage uniform on a machine of ``nodes``."""
        top = math.log2(nodes)
        hi = max(top - self.hi_below, 0.0)
        low = min(self.low, hi)
        med = min(max(top - self.med_below, low), hi)
        return low, med, hi


#: The model's classes (J. Parallel Distrib. Comput. 63(11), 2003; m_lublin99.c, 128 nodes).
LUBLIN_CLASSES = {
    "interactive": LublinClass("interactive", 0, serial=0.1541, pow2=0.625, low=1.0, med_below=4.0, hi_below=1.5,
                               uprob=0.705, a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
                               aarr=6.5510 * 0.9797, barr=0.6621, anum=8.9186, bnum=3.6680),
    "batch": LublinClass("batch", 1, serial=0.2927, pow2=0.6686, low=1.2, med_below=2.0, hi_below=0.0,
                         uprob=0.875, a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
                         aarr=6.0415 * 1.0519, barr=0.8531, anum=6.1271, bnum=5.2740),
    "all": LublinClass("all", 1, serial=0.244, pow2=0.576, low=0.8, med_below=2.5, hi_below=0.0,
                       uprob=0.86, a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
                       aarr=10.2303 * 1.0225, barr=0.4871, anum=8.1737, bnum=3.9631),
}


# ---------------------------------------------------------------- draws


def _gamma_below(rng, shape, scale, n, top):
    """``n`` gamma(shape, scale) values, each above ``top`` drawn again."""
    x = rng.gamma(shape, scale, n)
    bad = np.flatnonzero(x > top)
    while bad.size:
        x[bad] = rng.gamma(shape, scale, bad.size)
        bad = bad[x[bad] > top]
    return x


@dataclass
class ClassDraws:
    """The random numbers of one class's stream of ``n`` jobs, in the order
    they are drawn (the model's computation is a function of them)."""

    cls: LublinClass
    gap: np.ndarray  # log of the rush-hour inter-arrival times
    u_kind: np.ndarray  # serial / power of two / other
    u_stage: np.ndarray  # which uniform of the two stages
    u_pos: np.ndarray  # where in it
    u_mix: np.ndarray  # which gamma of the hyper-gamma
    h1: np.ndarray  # a value of each gamma; the run time is exp of the chosen one
    h2: np.ndarray


def class_draws(rng, cls: LublinClass, n: int, nodes: int) -> ClassDraws:
    """Draw one class's stream of ``n`` jobs for a machine of ``nodes``."""
    gap = _gamma_below(rng, cls.aarr, cls.barr, n, MAX_LOG_INTERARRIVAL)
    u_kind, u_stage, u_pos = rng.random(n), rng.random(n), rng.random(n)
    d = ClassDraws(cls, gap, u_kind, u_stage, u_pos, rng.random(n), rng.gamma(cls.a1, cls.b1, n),
                   rng.gamma(cls.a2, cls.b2, n))
    # the run time's hyper-gamma is drawn again as a whole above MAX_LOG_RUNTIME (m_lublin99.c time_from_nodes)
    p = mixing(cls, sizes(d, nodes))
    bad = np.flatnonzero(np.where(d.u_mix <= p, d.h1, d.h2) > MAX_LOG_RUNTIME)
    while bad.size:
        d.u_mix[bad] = rng.random(bad.size)
        d.h1[bad] = rng.gamma(cls.a1, cls.b1, bad.size)
        d.h2[bad] = rng.gamma(cls.a2, cls.b2, bad.size)
        bad = bad[np.where(d.u_mix[bad] <= p[bad], d.h1[bad], d.h2[bad]) > MAX_LOG_RUNTIME]
    return d


# ---------------------------------------------------------------- the model, vectorised


def sizes(d: ClassDraws, nodes: int) -> np.ndarray:
    """Job sizes of a stream (int64), at most ``nodes``."""
    cls = d.cls
    low, med, hi = cls.size_bounds(nodes)
    first = d.u_stage <= cls.uprob
    x = np.where(first, low + d.u_pos * (med - low), med + d.u_pos * (hi - med))
    pow2 = d.u_kind <= cls.serial + cls.pow2
    top_exp = math.floor(math.log2(nodes) + 1e-12)  # the largest power of two in the machine
    x = np.where(pow2, np.minimum(np.floor(x + 0.5), top_exp), x)
    size = np.minimum(np.floor(np.exp2(x) + 0.5), nodes).astype(np.int64)
    size[d.u_kind <= cls.serial] = 1
    return size


def mixing(cls: LublinClass, size: np.ndarray) -> np.ndarray:
    """The hyper-gamma's weight of its first gamma for jobs of ``size``."""
    return np.clip(cls.pa * size + cls.pb, 0.0, 1.0)


def runtimes(d: ClassDraws, size: np.ndarray) -> np.ndarray:
    """Run times in whole seconds (at least 1)."""
    h = np.where(d.u_mix <= mixing(d.cls, size), d.h1, d.h2)
    return np.floor(np.exp(h))


def arrivals(d: ClassDraws, start_bucket: int, stretch: float = 1.0) -> np.ndarray:
    """Arrival times in seconds of a stream, the first at one inter-arrival
    after 0 (the start of bucket ``start_bucket``): the cumulative points
    ``sum exp(gap) / 1800`` mapped through the inverse of the cumulative
    bucket weight, piecewise linear over the day."""
    w = np.roll(d.cls.bucket_weights(), -start_bucket)
    cw = np.concatenate(([0.0], np.cumsum(w)))
    day = cw[-1]
    points = np.cumsum(np.exp(d.gap) * (stretch / SECONDS_IN_BUCKET))
    days = np.floor(points / day)
    rest = points - days * day
    m = np.clip(np.searchsorted(cw, rest, side="right") - 1, 0, BUCKETS - 1)
    return SECONDS_IN_BUCKET * (days * BUCKETS + m + (rest - cw[m]) / w[m])


@dataclass
class Model:
    """A drawn workload: the class streams and how they are merged."""

    nodes: int
    jobs: int
    start_bucket: int
    streams: list  # ClassDraws, interactive first
    stretch: float = 1.0


def draw_model(nodes: int, jobs: int, rng, *, job_types=True, start_hour=0) -> Model:
    """Every random number of a workload (arguments already checked)."""
    names = ("interactive", "batch") if job_types else ("all",)
    streams = [class_draws(rng, LUBLIN_CLASSES[name], jobs, nodes) for name in names]
    return Model(nodes, jobs, start_hour * BUCKETS // 24, streams)


def model_arrays(m: Model):
    """``(submit, size, runtime, queue)`` arrays of the workload, by arrival
    (ties: the interactive job first, as m_lublin99.c)."""
    times, size, run, queue = [], [], [], []
    for d in m.streams:
        s = sizes(d, m.nodes)
        times.append(arrivals(d, m.start_bucket, m.stretch))
        size.append(s)
        run.append(runtimes(d, s))
        queue.append(np.full(m.jobs, d.cls.queue, dtype=np.int64))
    t = np.concatenate(times)
    order = np.argsort(t, kind="stable")[: m.jobs]
    return t[order], np.concatenate(size)[order], np.concatenate(run)[order], np.concatenate(queue)[order]


def offered_load(m: Model) -> float:
    """Expected load of the model's streams on the machine at ``stretch`` 1:
    each class's mean work (size times run time, over its drawn stream)
    over its mean inter-arrival time, summed, over the machine's size."""
    rate_work = 0.0
    for d in m.streams:
        s = sizes(d, m.nodes)
        rate_work += float(np.mean(s * runtimes(d, s))) / float(np.mean(np.exp(d.gap)))
    return rate_work / m.nodes


# ---------------------------------------------------------------- the public entry point


def _check_seed(seed):
    if isinstance(seed, np.random.Generator) or seed is None:
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"`seed` must be a non-negative integer, a numpy Generator or None, got {seed!r}")
    return np.random.default_rng(int(seed))


def _template(queue: int) -> tuple:
    f = [-1.0] * 18
    f[10], f[14] = 1.0, float(queue)  # status: completed; queue: 0 interactive, 1 batch
    return tuple(f)


def lublin_workload(nodes, jobs, *, seed=0, job_types=True, start_hour=0, load=None) -> Trace:
    """A synthetic trace of the Lublin-Feitelson model for a machine of ``nodes``.

    Sizes (serial share, power-of-two share, two-stage uniform on
    ``log2`` of the size), run times (hyper-gamma whose mixing probability
    falls with the size) and arrivals (gamma inter-arrivals stretched by a
    daily cycle of half-hour weights) as in Lublin and Feitelson (2003);
    see the module notes for how the machine's size enters.

    Parameters
    ----------
    nodes : int
        Machine size (>= 1); no job is larger.
    jobs : int
        Number of jobs (>= 1).
    seed : int, numpy.random.Generator or None
        The same seed gives the same trace; None draws a fresh one.
    job_types : bool
        True (the model's default): batch and interactive jobs, each class
        with its parameters and arrivals (SWF queue 1 and 0).  False: one
        class with the parameters fitted to the whole sample.
    start_hour : int
        Hour of the day at time 0 (0..23; default midnight).
    load : float, optional
        Offered load to aim at (> 0): every inter-arrival time is stretched
        by one factor so that the expected work per second over the
        machine's size is ``load``; the daily cycle is kept.  Default: the
        model's own arrival rate.

    Returns
    -------
    Trace
        ``jobs`` jobs, ids 1.. in arrival order, submit and run times in
        whole seconds, estimates equal to the run times, ``max_procs`` =
        ``nodes``; the header says how it was made.

    Raises
    ------
    ValueError
        ``nodes`` or ``jobs`` not a positive integer, ``start_hour`` not in
        0..23, ``load`` not positive and finite, a bad ``seed``.

    Notes
    -----
    O(jobs log jobs) (a sort merges the two classes); the model's numbers
    are computed for all jobs at once (numpy), and most of the time goes
    into building the :class:`Job` records.  The arrivals are the inverse
    of the cumulative intensity, the reference code's walk through the
    buckets (m_lublin99.c ``calc_next_arrive``) in closed form.

    References
    ----------
    U. Lublin and D. G. Feitelson, J. Parallel Distrib. Comput. 63(11),
    1105-1122, 2003.

    Examples
    --------
    >>> t = lublin_workload(128, 1000, seed=1)
    >>> len(t), t.max_procs, max(j.procs for j in t) <= 128
    (1000, 128, True)
    >>> t == lublin_workload(128, 1000, seed=1)
    True
    >>> 0.15 < sum(j.procs == 1 for j in t) / len(t) < 0.35
    True
    """
    nodes = int_at_least(nodes, 1, "`nodes` must be a positive integer")
    jobs = int_at_least(jobs, 1, "`jobs` must be a positive integer")
    start_hour = int_at_least(start_hour, 0, "`start_hour` must be an integer hour 0..23")
    if start_hour > 23:
        raise ValueError(f"`start_hour` must be an integer hour 0..23, got {start_hour}")
    if not isinstance(job_types, (bool, np.bool_)):
        raise ValueError(f"`job_types` must be True or False, got {job_types!r}")
    if load is not None:
        if isinstance(load, bool) or not isinstance(load, numbers.Real) or not (
                math.isfinite(float(load)) and float(load) > 0):
            raise ValueError(f"`load` must be a positive finite number, got {load!r}")
        load = float(load)
    rng = _check_seed(seed)
    m = draw_model(nodes, jobs, rng, job_types=bool(job_types), start_hour=start_hour)
    if load is not None:
        m.stretch = offered_load(m) / load
    submit, size, run, queue = model_arrays(m)
    submit = np.floor(submit)
    templates = {c.queue: _template(c.queue) for c in LUBLIN_CLASSES.values()}
    out = [Job(i, s, r, p, fields=templates[q])
           for i, s, r, p, q in zip(range(1, jobs + 1), submit.tolist(), run.tolist(), size.tolist(),
                                    queue.tolist())]
    shown_seed = "a Generator" if isinstance(seed, np.random.Generator) else seed
    header = (" Version: 2.2", " Computer: Lublin-Feitelson workload model (J. Parallel Distrib. Comput. 63(11), "
              "2003)", f" MaxJobs: {jobs}", f" MaxRecords: {jobs}", f" MaxNodes: {nodes}", f" MaxProcs: {nodes}",
              f" Note: lublin_workload(nodes={nodes}, jobs={jobs}, seed={shown_seed}, job_types={bool(job_types)}, "
              f"start_hour={start_hour}, load={load})",
              " Queues: 0 interactive, 1 batch" if job_types else " Queues: 1 (one class)")
    return Trace(tuple(out), nodes, _parse_header(header), header, source="lublin")
