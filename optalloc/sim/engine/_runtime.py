"""Run times that depend on the allocation (off by default).

The simulator holds run times constant, as the papers do (Leung et al.
2002, sec. 3).  A runtime model lets the allocation change the schedule:
:class:`TimePerDistance` stretches a job's run time by the communication
distance of its allocation, in the form of the ``timeperdistance`` option
of SST's scheduler (sst-elements, ``scheduler/schedComponent.cc``,
``startJob``).  With parameters ``a``, ``b``, ``c`` and ``r`` drawn
uniformly from ``[-c, c]`` for each job, SST takes the trace's run time
``T`` as the time of the job on a baseline allocation of hop-bytes
``H0``, removes the communication share and adds it back for the
allocation's hop-bytes ``H``::

    T_base = T / (1 + a * H0 ** (b + r))
    T_new  = T_base * (1 + a * H ** (b + r))

Here ``H`` is the average pairwise distance of the job's processors (in
the machine's metric: hops, 0 within a node) and ``H0`` that of the
allocation Gen-Alg (:func:`optalloc.ksubset.solve`, ``method="gen-alg"``)
picks for k processors on the empty machine; SST uses the hop-bytes of
the job's task mapping and the machine's own baseline allocation, which a
trace without communication patterns does not give.  A job of one
processor keeps its run time.  A job is still cut at its estimate when the
simulation kills jobs there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ... import ksubset
from ..metrics import allocation_metrics

__all__ = ["RuntimeModel", "TimePerDistance", "parse_runtime_model"]

_USAGE = "'none' or 'time-per-distance:A[,B[,C]]' (e.g. time-per-distance:0.001865,0.1569,0.0129)"


class RuntimeModel:
    """Base class: the run time of a job on an allocation.

    Override :meth:`run_time`.
    """

    name = "runtime-model"

    def run_time(self, machine, job, nodes, avg_distance) -> float:
        """The job's run time on ``nodes`` (its trace run time is ``job.runtime``)."""
        raise NotImplementedError

    def reset(self) -> None:
        """Start a new simulation (reseed random draws)."""


@dataclass
class TimePerDistance(RuntimeModel):
    """SST's time-per-distance model (see the module notes for the formula).

    Parameters
    ----------
    a : float
        Weight of communication (>= 0; 0 keeps run times).
    b : float
        Exponent of the distance (> 0).
    c : float
        Half-width of the random change of the exponent (0 <= c < b).
    seed : int
        Seed of those random draws.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> from optalloc.sim import Job
    >>> m = TimePerDistance(0.5, 1.0)
    >>> mach = Machine((8, 1))
    >>> round(m.run_time(mach, Job(1, 0, 100, 2), [0, 7], 7.0), 6)  # baseline H0 = 1: 100 / 1.5 * 4.5
    300.0
    """

    a: float
    b: float = 1.0
    c: float = 0.0
    seed: int = 0
    name: str = field(default="", repr=False)
    _rng: object = field(default=None, init=False, repr=False, compare=False)
    _base: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        for label, v in (("a", self.a), ("b", self.b), ("c", self.c)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"time-per-distance `{label}` must be a finite number, got {v!r}")
        if self.a < 0 or self.b <= 0 or not 0 <= self.c < self.b:
            raise ValueError(f"time-per-distance needs a >= 0, b > 0 and 0 <= c < b, got a={self.a}, "
                             f"b={self.b}, c={self.c}")
        self.name = f"time-per-distance:{self.a:g},{self.b:g},{self.c:g}"
        self.reset()

    def reset(self) -> None:
        self._rng = np.random.default_rng(self.seed)
        self._base = {}

    def baseline(self, machine, k: int) -> float:
        """Average pairwise distance of Gen-Alg's k processors on the empty machine."""
        key = (id(machine), k)
        if key not in self._base:
            if k < 2:
                self._base[key] = 0.0
            else:
                empty = machine.copy_empty()
                res = ksubset.solve(empty if not empty.is_grid else empty.coords, k, method="gen-alg")
                nodes = np.asarray(res.indices)
                w = allocation_metrics(machine, nodes)["W"]  # W without a k x k matrix on a mesh or torus
                self._base[key] = 2 * w / (k * (k - 1))
        return self._base[key]

    def run_time(self, machine, job, nodes, avg_distance) -> float:
        k = len(nodes)
        r = float(self._rng.uniform(-self.c, self.c)) if self.c else 0.0
        if k < 2 or self.a == 0:
            return job.runtime
        e = self.b + r
        h0 = self.baseline(machine, k)
        base = job.runtime / (1.0 + self.a * h0 ** e)
        return base * (1.0 + self.a * float(avg_distance) ** e)


def parse_runtime_model(spec, *, seed=0):
    """A runtime model from text, None for ``"none"``/None, or a model as it is.

    Examples
    --------
    >>> parse_runtime_model("time-per-distance:0.001865,0.1569,0.0129").name
    'time-per-distance:0.001865,0.1569,0.0129'
    >>> parse_runtime_model("none") is None
    True
    """
    if spec is None or isinstance(spec, RuntimeModel):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"`runtime_model` must be {_USAGE}, got {spec!r}")  # noqa: TRY004
    text = spec.strip().lower()
    if text in ("", "none", "constant"):
        return None
    kind, _, args = text.partition(":")
    if kind not in ("time-per-distance", "tpd") or not args.strip():
        raise ValueError(f"`runtime_model` must be {_USAGE}, got {spec!r}")
    try:
        values = [float(v) for v in args.split(",")]
    except ValueError:
        raise ValueError(f"`runtime_model` must be {_USAGE}, got {spec!r}") from None
    if len(values) > 3:
        raise ValueError(f"`runtime_model` takes at most three numbers A,B,C, got {spec!r}")
    return TimePerDistance(*values, seed=seed)
