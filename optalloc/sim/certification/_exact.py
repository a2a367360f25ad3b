"""The optimum of each certified decision: solved here, in local processes or on Dask.

Once the driver has placed the jobs, the decisions of a certification are
independent k-subset problems (a free set and a k).  :func:`solve_state`
proves the optimum of one (or the bracket a time limit leaves);
:class:`StateSolver` runs a list of them in this process, in ``workers``
local processes, or on the workers of a Dask scheduler, and hands each
result back as it comes.  Results depend on the state only, so the rows
are the same wherever they were computed (the time a bracket took aside,
and brackets left by a time limit, which depend on the machine's speed).

Each process keeps one :class:`~optalloc.ksubset.ExactSession` for the
meshes it solves (triangle cuts carried from state to state).  Local
processes end with the process that started them, even when it is killed
(``kill -9``), and with them the fork server they come from.

On a 2D mesh every state also gets the idle machine's bound: k nodes of a
free set weigh at least the optimum of k nodes of the whole machine, and
:func:`~optalloc.ksubset.box_bracket` of its sides bounds that optimum
from below.  It is worked out once per k of the run, within
``IDLE_NODES`` nodes of the box search: in this process
(:func:`warm_idle`), or spread over the local processes or Dask workers,
one task per k, largest first; the bounds are then handed to every
worker with the states of their k.  It pays on every state of that k,
most on the nearly empty ones, where the optimum of the idle machine
often fits.
"""

from __future__ import annotations

import concurrent.futures
import math
import multiprocessing
import os
import threading
import time
from typing import NamedTuple

import numpy as np

from ... import ksubset
from ..._parent import watch_parent
from ...ksubset.dragonfly import count_form_fits, is_dragonfly
from ...ksubset.special import tree_subset

__all__ = ["EXACT_MAX_FREE", "Solved", "StateSolver", "idle_bound", "know_idle", "large_state_bound", "solve_state",
           "warm_idle"]


class State(NamedTuple):
    """One problem to solve: its position in the list, free node ids and k;
    ``time_limit``, when set, replaces the solver's for this state."""

    pos: int
    free_ids: np.ndarray
    k: int
    time_limit: float | None = None


#: free nodes above which a state is not solved exactly: its optimum is
#: bracketed by :func:`large_state_bound`, which needs no distance matrix
EXACT_MAX_FREE = 1024

#: nodes of the box search spent, once per k, on bounding the optimum of
#: the idle 2D mesh (docs/certify.md)
IDLE_NODES = 6_000_000
#: idle bounds known to this process, by (sides, k): worked out here or handed over
_IDLE: dict = {}


def _idle_sides(machine):
    return machine.shape if machine.kind == "mesh" and machine.ndim == 2 else None


#: nodes of the box search counted per second of a warm-up's time (a node
#: costs less than 25 us at k <= 512 on 32 x 32)
_NODES_PER_SECOND = 40_000


def _warm_ks(machine, ks) -> list[int]:
    """The k of ``ks`` whose idle bound is worth working out, largest first."""
    if _idle_sides(machine) is None:
        return []
    return sorted({int(k) for k in ks if 1 <= int(k) <= machine.size}, reverse=True)


def _warm_one(machine, k: int, nodes: int, end: float | None) -> float:
    """Bound the idle optimum of k within ``nodes``, and no later than the
    wall-clock time ``end`` (``time.time()``, comparable between the
    processes and hosts that share the work; counted in nodes); keep it."""
    budget = nodes if end is None else min(nodes, int(_NODES_PER_SECOND * max(0.0, end - time.time())))
    lower = ksubset.box_bracket(*_idle_sides(machine), k, nodes=budget)[0]
    know_idle(machine, {k: lower})
    return lower


def _known_idle(machine) -> dict:
    sides = _idle_sides(machine)
    return {k: lower for (s, k), lower in _IDLE.items() if s == sides}


def warm_idle(machine, ks, nodes: int = IDLE_NODES, seconds: float | None = None, announce=None) -> dict:
    """Bound the optimum of each k of ``ks`` on the idle machine (a 2D
    mesh; nothing otherwise), for :func:`idle_bound` to read: ``nodes``
    per k, and no more than ``seconds`` in all (counted in nodes).
    ``announce((k,))`` is called as each k starts and ``announce(None)``
    at the end.  Returns the bounds, {k: lower}, to hand to other
    processes (:func:`know_idle`)."""
    end = None if seconds is None else time.time() + seconds
    for k in reversed(_warm_ks(machine, ks)):  # the small ones first: they are quick
        if announce is not None:
            announce((k,))
        _warm_one(machine, k, nodes, end)
    if announce is not None:
        announce(None)
    return _known_idle(machine)


def know_idle(machine, bounds: dict) -> None:
    """Keep idle bounds {k: lower} of ``machine`` (from :func:`warm_idle`,
    here or in another process) for :func:`idle_bound`."""
    sides = _idle_sides(machine)
    if sides is not None:
        for k, lower in bounds.items():
            _IDLE[(sides, int(k))] = max(float(lower), _IDLE.get((sides, int(k)), 0.0))


def idle_bound(machine, k: int) -> float:
    """A lower bound on the optimum of k nodes of the idle machine, as far
    as this process knows it (a 2D mesh, bounded by :func:`warm_idle`,
    handed over by :func:`know_idle`, or small enough for the partition
    tables); 0 otherwise."""
    sides = _idle_sides(machine)
    if sides is None or not 1 <= k <= machine.size:
        return 0.0
    return max(_IDLE.get((sides, int(k)), 0.0), ksubset.box_bracket(*sides, k, nodes=0)[0])


def is_large(state) -> bool:
    """True when a state has more free nodes than an exact solve takes (:data:`EXACT_MAX_FREE`)."""
    return len(state.free_ids) > EXACT_MAX_FREE


def _exact_ks(states) -> list[int]:
    """The k of the states that are solved exactly (the others need no idle bound)."""
    return [s.k for s in states if not is_large(s)]


#: prefix sums of the sorted distances from a central node to every node, by (shape, wrap flags)
_CENTRE: dict = {}


def _centre_prefix(machine) -> np.ndarray:
    key = (machine.shape, machine.torus)
    if key not in _CENTRE:
        centre = int(machine.node_ids([[(s - 1) // 2 for s in machine.shape]])[0])
        d = np.sort(machine.pair_distances(np.full(machine.size, centre), np.arange(machine.size)))
        _CENTRE[key] = np.concatenate([[0.0], np.cumsum(d)])
    return _CENTRE[key]


def _unit_prefix(machine) -> np.ndarray:
    """On a machine with a hierarchy: the least, over its units, of the
    prefix sums of one node's sorted distances to every node."""
    key = ("units", machine.describe())
    if key not in _CENTRE:
        h = machine.hierarchy
        p, n = h.unit_size, machine.size
        best = np.full(n + 1, np.inf)
        every = np.arange(n)
        for lo in range(0, h.units, 64):  # 64 routers at a time: O(64 n) memory
            units = np.arange(lo, min(lo + 64, h.units))
            d = machine.pair_distances(np.repeat(units * p, n), np.tile(every, len(units))).reshape(len(units), n)
            d.sort(axis=1)
            pre = np.concatenate([np.zeros((len(units), 1)), np.cumsum(d, axis=1)], axis=1)
            best = np.minimum(best, pre.min(axis=0))
        _CENTRE[key] = best
    return _CENTRE[key]


def large_state_bound(machine, free_ids, k) -> float:
    """A lower bound on the optimum of k of the nodes ``free_ids``, in
    O(n log n) and without a distance matrix: the bound of the states too
    large to solve exactly.

    On a mesh or torus, each of the k nodes is at least as far from the
    other k - 1 as a central node of the whole machine is from its k - 1
    nearest nodes (a central node has the most nodes within every
    distance: along each axis the middle coordinate has, and so has the
    product), so W >= k/2 times that sum; on a mesh also the axis and
    town bounds of the free points (:func:`optalloc.ksubset.axis_bound`,
    :func:`~optalloc.ksubset.town_bound`).  On a dragonfly or fat tree
    (a machine with a ``hierarchy``), the same with the least, over
    routers (edge switches), of a node's k - 1 nearest nodes: the nodes of
    one router are alike (each sees the others at one distance and the
    rest of the machine alike), so one node per router is read, O(routers
    x n) once per machine.  On another network: 0.  Each holds in the
    machine's metric: a node is at least as far from the other k - 1
    chosen nodes as from its k - 1 nearest nodes of the whole machine.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> m = Machine((4, 4), torus=True)
    >>> large_state_bound(m, range(16), 5)  # each node has 4 neighbours: 5/2 * 4
    10.0
    """
    free_ids = np.asarray(free_ids, dtype=np.int64)
    if k < 2:
        return 0.0
    if not machine.is_grid:
        return 0.5 * k * float(_unit_prefix(machine)[k]) if machine.hierarchy is not None else 0.0
    lower = 0.5 * k * float(_centre_prefix(machine)[k])
    if machine.kind == "mesh":
        pts = machine.coords[free_ids]
        lower = max(lower, ksubset.axis_bound(pts, k), ksubset.town_bound(pts, k))
    return lower


def _one_k(idle: dict, k: int) -> dict | None:
    return {k: idle[k]} if k in idle else None


def _limit(state: State, default):
    return default if state.time_limit is None else state.time_limit


class Solved(NamedTuple):
    """What is proven of the optimum of one state.

    ``lower`` is a proven bound, ``upper`` the W of a set found (inf when
    none was searched: cheap bounds only), ``status`` ``"optimal"``,
    ``"time_limit"`` (a solve stopped by its limit) or ``"bracket"`` (cheap
    bounds, or a solver error), ``seconds`` the time it took.
    """

    lower: float
    upper: float
    status: str
    seconds: float


def _shadow(machine, free_ids):
    m = machine.copy_empty()
    busy = np.ones(m.size, dtype=bool)
    busy[np.asarray(free_ids, dtype=np.int64)] = False
    if busy.any():
        m.allocate(np.flatnonzero(busy), owner=-2)
    return m


def _integral(machine) -> bool:
    """Whether every distance of the machine is an integer (a dragonfly's or
    fat tree's hops are; a large graph: when its link lengths are)."""
    if machine.is_grid or machine.hierarchy is not None:
        return True
    try:
        D = np.asarray(machine.distances())
    except ValueError:  # too large for the whole matrix
        return all(float(w).is_integer() for _, _, w in machine.edges)
    return bool(np.all(D == np.round(D)))


def counts_only(machine) -> bool:
    """Whether the exact solve reads no distance matrix at any size (a
    dragonfly: the search over group and router counts)."""
    h = machine.hierarchy
    return h is not None and is_dragonfly(machine) and count_form_fits(h)


def solve_state(machine, free_ids, k, *, exact=True, time_limit=None, session=None, quick=False) -> Solved:
    """The optimum of k of the nodes ``free_ids`` of ``machine``, or a bracket.

    A mesh: :func:`optalloc.ksubset.exact` on the free points (with
    ``session`` as its warm start), or the bounds of
    :func:`~optalloc.ksubset.lower_bound` without ``exact``.  A torus or a
    network: ``ksubset.solve(machine, k, method="exact")`` in the
    machine's metric, or :func:`~optalloc.ksubset.metric_lower_bound`.
    A bound is rounded up to an integer where every distance is one.
    ``quick`` (with ``exact=False``): the neighbour bound only, O(n^2),
    which holds in every metric (for the states left when a run's total
    time is spent).  A state of more than :data:`EXACT_MAX_FREE` free
    nodes gets :func:`large_state_bound` instead, whatever ``exact``:
    status ``"bracket"`` (on a dragonfly, whose exact solve reads no
    matrix, only without ``exact``). A machine of hosts on a tree of
    switches (a fat tree, ``Machine.from_tree``) is solved by
    :func:`~optalloc.ksubset.tree_exact`'s dynamic program at any size and
    whatever ``exact`` (it costs less than the bounds): status ``"optimal"``.
    """
    t0 = time.perf_counter()
    free_ids = np.asarray(free_ids, dtype=np.int64)
    tree = machine.tree
    if tree is not None:  # exact in O(free nodes x k): no bracket needed, whatever the size
        v = tree_subset(tree, free_ids, k)[1]
        return Solved(v, v, "optimal", time.perf_counter() - t0)
    if len(free_ids) > EXACT_MAX_FREE and not (exact and counts_only(machine)):
        # no exact solve, no dense bound: the bracket in O(n log n)
        lower = large_state_bound(machine, free_ids, k)
        if _integral(machine):
            lower = float(math.ceil(lower - 1e-6))
        return Solved(lower, math.inf, "bracket", time.perf_counter() - t0)
    mesh = machine.kind == "mesh"
    idle = idle_bound(machine, k) if mesh else 0.0
    upper = math.inf
    if exact:
        if mesh:
            res = ksubset.exact(machine.coords[free_ids], k, time_limit=time_limit, warm_start=session)
        else:
            res = ksubset.solve(_shadow(machine, free_ids), k, method="exact", time_limit=time_limit)
        if res.status == "optimal":
            v = float(res.objective)
            return Solved(v, v, "optimal", time.perf_counter() - t0)
        upper = float(res.objective) if res.objective is not None else math.inf
        lower = float(res.bound) if res.bound is not None else 0.0
        status = "time_limit" if res.termination == "time_limit" else "bracket"
        if upper <= idle:  # the idle machine's optimum met
            return Solved(upper, upper, "optimal", time.perf_counter() - t0)
    else:
        if mesh and quick:
            lower = ksubset.neighbour_bound(machine.coords[free_ids], k)
        elif mesh:
            lower = max(ksubset.lower_bound(machine.coords[free_ids], k).values())
        else:
            lower = max(ksubset.metric_lower_bound(_shadow(machine, free_ids), k, quick=quick).values())
        status = "bracket"
    lower = max(lower, idle)
    if _integral(machine):
        lower = float(math.ceil(lower - 1e-6))  # W is an integer
    return Solved(lower, upper, status, time.perf_counter() - t0)


# ---------------------------------------------------------------- workers

_WORKER: dict = {}


def _init_worker(machine, exact, time_limit, owner=None):
    # end with the process that made the pool, even when it is killed (kill -9): a worker's parent is
    # the fork server, which ends by itself once the workers have
    watch_parent(owner)
    _WORKER.update(machine=machine, exact=exact, time_limit=time_limit, session=ksubset.ExactSession())


def _warm_in_worker(k: int, end: float | None) -> float:
    return _warm_one(_WORKER["machine"], k, IDLE_NODES, end)


def _solve_in_worker(state: State, idle=None):
    w = _WORKER
    know_idle(w["machine"], idle or {})
    return state.pos, solve_state(w["machine"], state.free_ids, state.k, exact=w["exact"],
                                  time_limit=_limit(state, w["time_limit"]), session=w["session"])


_THREAD = threading.local()


def _solve_on_dask(machine, state: State, exact, time_limit, idle=None):
    # one session per thread of a Dask worker: a session is not shared between threads
    session = getattr(_THREAD, "session", None)
    if session is None:
        session = _THREAD.session = ksubset.ExactSession()
    know_idle(machine, idle or {})
    return state.pos, solve_state(machine, state.free_ids, state.k, exact=exact,
                                  time_limit=_limit(state, time_limit),
                                  session=session)


class StateSolver:
    """Solves states in this process (``workers=1``), in local processes, or on Dask.

    Parameters
    ----------
    machine : Machine
    exact : bool
    time_limit : float or None
        Seconds per exact solve.
    workers : int
        Local processes (1: this process, with one session for the run).
    scheduler : str or distributed.Client, optional
        A Dask scheduler address or client: the states run on its workers.
    """

    def __init__(self, machine, *, exact, time_limit, workers=1, scheduler=None, idle_seconds=None,
                 announce=None):
        self.machine, self.exact, self.time_limit = machine, exact, time_limit
        self.workers, self.scheduler = workers, scheduler
        self.idle_seconds, self.announce = idle_seconds, announce
        self.session = ksubset.ExactSession() if exact and machine.kind == "mesh" else None

    def describe(self) -> str:
        if self.scheduler is not None:
            return "on " + (self.scheduler if isinstance(self.scheduler, str) else "a Dask cluster")
        return "in this process" if self.workers == 1 else f"on {self.workers} processes"

    def one(self, state: State) -> Solved:
        """Solve one state here (within its time limit, or the solver's)."""
        return solve_state(self.machine, state.free_ids, state.k, exact=self.exact,
                           time_limit=_limit(state, self.time_limit), session=self.session)

    def run(self, states, handle, *, stop=None, pace=None) -> None:
        """Solve ``states`` (a list of :class:`State`), calling ``handle(pos,
        solved)`` as each ends; ``stop()`` True stops sending new ones (those
        not started are not handled).  ``pace(state)`` (here and in local
        processes; not on Dask, where every state is sent at once) returns
        the state as it is sent, its time limit set then."""
        if not states:
            return
        # the idle machine's bounds, once per k: here, or spread over the
        # workers (largest k first), then handed to every worker
        if self.scheduler is not None:
            self._run_dask(states, handle, stop)
        elif self.workers == 1 or len(states) == 1:
            warm_idle(self.machine, _exact_ks(states), seconds=self.idle_seconds, announce=self.announce)
            for s in states:
                if stop is not None and stop():
                    return
                if pace is not None:
                    s = pace(s)
                handle(s.pos, self.one(s))
        else:
            self._run_local(states, handle, stop, pace)

    def _warm_on(self, submit, as_completed, ks) -> dict:
        """Work out the idle bounds on the workers: ``submit(k, end)`` sends
        one k's task, ``as_completed`` yields the tasks as they end."""
        todo = _warm_ks(self.machine, ks)
        if todo:
            end = None if self.idle_seconds is None else time.time() + self.idle_seconds
            tasks = {submit(k, end): k for k in todo}
            left = set(todo)
            if self.announce is not None:
                self.announce(tuple(sorted(left)))
            for task in as_completed(tasks):
                k = tasks[task]
                know_idle(self.machine, {k: task.result()})
                left.discard(k)
                if self.announce is not None:
                    self.announce(tuple(sorted(left)) or None)
        return _known_idle(self.machine)

    def _run_local(self, states, handle, stop, pace=None):
        # never a plain fork: the solver's own threads (HiGHS) do not survive one, and a child could wait
        # forever on a lock one of them held; a fork server (its first child imports optalloc) or spawn
        if "forkserver" in multiprocessing.get_all_start_methods():
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["optalloc.sim"])
        else:
            ctx = multiprocessing.get_context("spawn")
        n = min(self.workers, len(states))
        with concurrent.futures.ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker,
                                                    initargs=(self.machine, self.exact, self.time_limit,
                                                              os.getpid())) as pool:
            pending, it = set(), iter(states)
            try:
                idle = self._warm_on(lambda k, end: pool.submit(_warm_in_worker, k, end),
                                     concurrent.futures.as_completed, _exact_ks(states))
                while True:
                    while len(pending) < 2 * n and not (stop is not None and stop()):
                        s = next(it, None)
                        if s is None:
                            break
                        pending.add(pool.submit(_solve_in_worker, s if pace is None else pace(s), _one_k(idle, s.k)))
                    if not pending:
                        break
                    done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                    for fut in done:
                        handle(*fut.result())
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise

    def _run_dask(self, states, handle, stop):
        from ._dask_client import dask_client

        dask = dask_client(self.scheduler)
        futures = []
        try:
            from distributed import as_completed

            machine = dask.client.scatter(self.machine, broadcast=True, hash=False)
            idle = self._warm_on(lambda k, end: dask.client.submit(_warm_one, machine, k, IDLE_NODES, end, pure=False),
                                 as_completed, _exact_ks(states))
            for s in states:
                futures.append(dask.client.submit(_solve_on_dask, machine, s, self.exact, self.time_limit,
                                                  _one_k(idle, s.k), pure=False))
            for fut in as_completed(futures):
                handle(*fut.result())
                if stop is not None and stop():
                    break
        finally:
            for fut in futures:
                if not fut.done():
                    fut.cancel()
            if dask.owned:
                dask.client.close()
