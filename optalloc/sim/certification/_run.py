"""One certification run: the driver's simulation, the allocators, then the optima.

1. The driver simulates the trace; at each of its decisions every other
   allocator runs on the same free set (in the machine's metric), which
   gives the row's W and guarantees, and the state (free set, k) is kept.
2. The optimum of each state is proven (or bracketed): a state seen before,
   exactly or as a symmetric image (``_canonical``), is answered from this
   run's cache; the others are solved in order, here, in local processes
   or on Dask (``_exact``).  Rows are completed and written in
   decision order as their optima arrive.

With a ``total_time_limit`` each state's time limit is its share of the
time left (:class:`_Pacer`; not on Dask), so that the time goes to every
state rather than to the first ones; the states not solved when it is
spent get the neighbour bound (the quickest, valid in every metric), and
the certification's ``termination`` says so.
"""

from __future__ import annotations

import math
import time as _time
from typing import NamedTuple

import numpy as np

from ..._progress import Progress
from ..engine import as_allocation, simulate
from ._canonical import canonical_key, exact_key
from ._exact import EXACT_MAX_FREE, Solved, State, StateSolver, _integral, counts_only, solve_state
from ._machine import guarantee_of, metric_name, metric_weight
from ._result import Certification
from ._rows import TOL, DecisionRow

#: the least time limit a paced state gets (seconds)
_MIN_SHARE = 0.01
#: the share of a total time limit the idle machine's bounds may take
_IDLE_SHARE = 0.1


class _Decision(NamedTuple):
    """A decision compared, its optimum still to come."""

    index: int
    job_id: int
    time: float
    k: int
    n_free: int
    W: tuple
    guarantee: tuple
    free: bytes  # the free mask, packed
    repeat: tuple | None  # exact_key, when caching
    symmetric: tuple | None  # canonical_key, when caching


class _Answer(NamedTuple):
    """How a decision's optimum is known: the state solved for it (``pos``)
    and whether that came from an earlier decision (``how``: None, "repeat",
    "symmetric")."""

    pos: int
    how: str | None


def _row_bracket(solved: Solved, ws, integral: bool):
    """(lower, upper, status) of a row from what is proven of its state and the allocators' W."""
    if solved.status == "optimal":
        return solved.lower, solved.upper, "optimal"
    upper = min(min(ws), solved.upper)
    lower = solved.lower
    if integral:
        lower = float(math.ceil(lower - 1e-6))
    lower = min(lower, upper)
    status = solved.status
    if lower >= upper:
        status = "optimal"
    return lower, upper, status


class _Pacer:
    """Time limits that spread a run's total time over its states: each
    state, as it is sent, gets the time left shared among the states not
    yet sent (times the workers), at most ``cap`` (the per-state limit).
    States that end early leave their time to the later ones; a state
    that overruns (a solver's set-up ignores its limit) shortens them."""

    def __init__(self, deadline: float, workers: int, states: int, cap: float | None):
        self.deadline, self.workers, self.left = deadline, workers, states
        self.cap = math.inf if cap is None else cap

    def __call__(self, state: State) -> State:
        share = max(0.0, self.deadline - _time.perf_counter()) * self.workers / max(1, self.left)
        self.left -= 1
        return state._replace(time_limit=min(self.cap, max(share, _MIN_SHARE)))


class _Budget:
    """A run's total time limit (``total`` seconds from ``start``; None:
    none): :meth:`stop` says when to stop sending states (and notes it in
    ``stopped``), ``pace`` shares the time among them (:class:`_Pacer`,
    when ``paced``), ``idle_seconds`` is the idle machine's bounds' share
    (a tenth)."""

    def __init__(self, start: float, total: float | None, *, paced: bool, workers: int, states: int,
                 cap: float | None):
        self.deadline = None if total is None else start + total
        self.idle_seconds = None if total is None else _IDLE_SHARE * total
        self.stopped = False
        self.pace = None
        if self.deadline is not None and paced:
            self.pace = _Pacer(self.deadline, max(1, workers), states, cap)

    def stop(self) -> bool:
        if self.deadline is not None and _time.perf_counter() > self.deadline:
            self.stopped = True
        return self.stopped


def quick_bracket(machine, state: State) -> Solved:
    """The quickest bracket of a state (the neighbour bound, valid in every
    metric): for the states a spent time limit left unsolved."""
    b = solve_state(machine, state.free_ids, state.k, exact=False, quick=True)
    return Solved(b.lower, b.upper, "bracket", 0.0)


class _Certifier:
    """One certification run (see the module notes)."""

    def __init__(self, plan, writer):
        self.plan, self.writer = plan, writer
        self.stored = writer.stored if writer is not None else {}
        self.shadow = plan.machine.copy_empty()
        self.decisions: list[_Decision] = []
        self.rows: list[DecisionRow | None] = []
        self.compare_seconds = self.exact_seconds = 0.0
        self.cache_hits = self.symmetry_hits = 0
        self.total = len(plan.trace)
        self.caching = plan.cache and plan.exact
        m = plan.machine
        self.integral = _integral(m)
        prog = plan.progress
        self.report = prog if isinstance(prog, Progress) else None
        self.callback = None if isinstance(prog, Progress) else prog
        self.proven = 0
        self.gap_sum = 0.0
        self.stopped = False

    # ------------------------------------------------------------ step 1

    def run(self, wall0) -> Certification:
        p = self.plan
        if self.report is not None:  # the optima follow: no time left can be told from this count
            self.report.stage("allocators", self.total, estimate=False)
        sim = simulate(p.trace, p.machine, scheduler=p.scheduler, allocator=p.driver.alloc,
                       kill_at_estimate=p.kill_at_estimate, on_decision=self.on_decision)
        self.rows = [None] * len(self.decisions)
        self._prove(wall0)
        rows = tuple(self.rows)
        stopped = [r for r in rows if r.status == "time_limit"]
        if self.stopped:
            termination = "total_time_limit"
        elif stopped:
            termination = "time_limit"
        elif not p.exact:
            termination = "bounds"
        else:
            termination = "optimal" if all(r.proven for r in rows) else "bracket"
        cert = Certification(
            rows, p.names, p.driver.name, sim, exact=p.exact, time_limit=p.time_limit, cache_hits=self.cache_hits,
            exact_seconds=self.exact_seconds, compare_seconds=self.compare_seconds,
            runtime=_time.perf_counter() - wall0, resumed=sum(r.index in self.stored for r in rows),
            symmetry_hits=self.symmetry_hits, metric=metric_name(p.machine), termination=termination,
            total_time_limit=p.total_time_limit)
        if self.writer is not None:
            self.writer.finish(cert.to_dict())
        return cert

    def on_decision(self, d) -> None:
        t0 = _time.perf_counter()
        ws, gs = self._compare(d)
        self.compare_seconds += _time.perf_counter() - t0
        mask = np.zeros(self.plan.machine.size, dtype=bool)
        mask[d.free_ids] = True
        repeat = symmetric = None
        if self.caching and (len(d.free_ids) <= EXACT_MAX_FREE or counts_only(self.plan.machine)):
            # a larger state gets cheap bounds (but on a dragonfly): no key kept
            repeat = exact_key(d.free_ids, d.k)
            symmetric = canonical_key(self.plan.machine, d.free_ids, d.k)
        self.decisions.append(_Decision(d.index, d.job.job_id, float(d.time), d.k, len(d.free_ids), tuple(ws),
                                        tuple(gs), np.packbits(mask).tobytes(), repeat, symmetric))
        if self.report is not None:
            self.report.track(len(self.decisions))

    def _compare(self, d):
        """W and guarantee of every allocator on the free set and k of decision ``d``."""
        k, shadow, machine = d.k, self.shadow, self.plan.machine
        busy = np.ones(shadow.size, dtype=bool)
        busy[d.free_ids] = False
        shadow.reset()
        if busy.any():
            shadow.allocate(np.flatnonzero(busy), owner=-2)
        ws, gs = [], []
        for name, alloc in self.plan.entries:
            if alloc is None:  # the driver: its own decision
                ws.append(metric_weight(machine, d.nodes))
                gs.append(guarantee_of(self.plan.driver.alloc, d.result, machine))
                continue
            nodes, result = as_allocation(alloc.select(shadow, k))
            if nodes.ndim != 1 or len(set(nodes.tolist())) != k or not shadow.free[nodes].all():
                raise RuntimeError(f"allocator {name!r} gave an invalid choice for job {d.job.job_id} "
                                   f"({k} free nodes needed)")
            ws.append(metric_weight(machine, nodes))
            gs.append(guarantee_of(alloc, result, machine))
        return ws, gs

    # ------------------------------------------------------------ step 2

    def _free_ids(self, dec: _Decision) -> np.ndarray:
        mask = np.unpackbits(np.frombuffer(dec.free, dtype=np.uint8), count=self.plan.machine.size)
        return np.flatnonzero(mask)

    def _plan_states(self):
        """The states to solve (first decision of each, in order), how each
        decision is answered, and the answers read back from a resumed file
        (negative positions)."""
        states, answers, solved = [], [], {}
        seen_repeat, seen_sym = {}, {}
        for dec in self.decisions:
            old = self.stored.get(dec.index)
            if old is not None:
                self._check_stored(dec, old)
                pos = -1 - len(solved)
                solved[pos] = Solved(old.lower, old.upper, old.status, old.exact_seconds)
                answers.append(_Answer(pos, "stored"))
            elif dec.repeat is not None and dec.repeat in seen_repeat:
                answers.append(_Answer(seen_repeat[dec.repeat], "repeat"))
            elif dec.symmetric is not None and dec.symmetric in seen_sym:
                answers.append(_Answer(seen_sym[dec.symmetric], "symmetric"))
            else:
                states.append(State(len(states), self._free_ids(dec), dec.k))
                answers.append(_Answer(len(states) - 1, None))
            pos = answers[-1].pos
            if dec.repeat is not None:
                seen_repeat.setdefault(dec.repeat, pos)
            if dec.symmetric is not None:
                seen_sym.setdefault(dec.symmetric, pos)
        return states, answers, solved

    def _check_stored(self, dec, old):
        if (old.k, old.n_free) != (dec.k, dec.n_free) or not np.allclose(old.W, dec.W, rtol=TOL, atol=0):
            raise ValueError(f"cannot resume {self.writer.path}: decision {dec.index} differs from this run "
                             f"(k {old.k} vs {dec.k}, W {list(old.W)} vs {list(dec.W)}); another trace, machine or "
                             "allocator options?")

    def _prove(self, wall0):
        p = self.plan
        states, answers, solved = self._plan_states()
        waiting: dict[int, list[int]] = {}
        for i, a in enumerate(answers):
            waiting.setdefault(a.pos, []).append(i)
        self.next_row = 0
        self.answers, self.solved = answers, solved
        announce = None
        if self.report is not None:  # the solvers first bound the idle machine (a 2D mesh)
            # rows come in decision order, many at once (repeats), after solves of any length: no time left
            self.report.stage("optima", len(answers), estimate=False)

            def announce(ks):
                stage = "optima" if ks is None else "bounds of the idle machine, k = " + ", ".join(map(str, ks))
                self.report.track(self.report.n, stage=stage)
        for pos in list(solved):  # rows read back from a resumed file
            self._arrived(pos, solved[pos], waiting)
        budget = _Budget(wall0, p.total_time_limit, paced=p.exact and p.cluster is None, workers=p.workers,
                         states=len(states), cap=p.time_limit)
        solver = StateSolver(p.machine, exact=p.exact, time_limit=p.time_limit, workers=p.workers,
                             scheduler=p.cluster, idle_seconds=budget.idle_seconds, announce=announce)
        solver.run(states, lambda pos, s: self._arrived(pos, s, waiting), stop=budget.stop, pace=budget.pace)
        self.stopped = budget.stopped
        if self.stopped:  # the quickest bound for what was not solved: the time is spent
            for s in states:
                if s.pos not in self.solved:
                    self._arrived(s.pos, quick_bracket(p.machine, s), waiting, timed=False)

    def _arrived(self, pos, s: Solved, waiting, *, timed=True):
        """A state's optimum is known: complete the rows that wait for it, then
        write every row ready in decision order."""
        self.solved[pos] = s
        if self.plan.exact and timed and pos >= 0:
            self.exact_seconds += s.seconds
        for i in waiting.get(pos, ()):
            dec, how = self.decisions[i], self.answers[i].how
            lower, upper, status = _row_bracket(s, dec.W, self.integral)
            if how == "stored":
                old = self.stored[dec.index]
                seconds, cached = old.exact_seconds, old.cached
            else:
                cached = how in ("repeat", "symmetric")
                seconds = 0.0 if cached or not self.plan.exact else s.seconds
                self.cache_hits += how == "repeat"
                self.symmetry_hits += how == "symmetric"
            self.rows[i] = DecisionRow(dec.index, dec.job_id, dec.time, dec.k, dec.n_free, dec.W, dec.guarantee,
                                       float(lower), float(upper), status, seconds, cached)
        while self.next_row < len(self.rows) and self.rows[self.next_row] is not None:
            r = self.rows[self.next_row]
            if self.writer is not None:
                self.writer.write(r)
            self.proven += r.proven
            self.gap_sum += (r.upper - r.lower) / r.upper if r.upper > 0 else 0.0
            self.next_row += 1
            done = self.next_row
            if self.callback is not None:
                self.callback(done, len(self.rows))
            elif self.report is not None:
                self.report.track(done, len(self.rows), proven=self.proven,
                                  mean_gap=f"{100 * self.gap_sum / done:.3f}%")
