"""The profile or shape search in a thread beside the cut loop of the exact solver.

The compiled searches and HiGHS all release the GIL, so on two cores the
slower of the two costs no wall time: the first to prove ends both.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..search import profile_search_grid, shape_search_grid
from ._watch import LPWatcher

if TYPE_CHECKING:
    from ..search import ProfileGrid, ShapeGrid
    from ._state import Bracket, ExactProblem


class ProfileRace(LPWatcher):
    """:func:`profile_search` on ``grid`` in a thread, from the bracket
    ``state`` of ``problem``, until the time left.  When the search proves
    its answer it cancels the LP it watches; :meth:`join` stops it and
    merges its result."""

    #: what the search is called in the verbose line, and the phase it closes
    label, phase = "profile search beside the LP", "profiles"

    def __init__(self, grid: ProfileGrid | ShapeGrid, problem: ExactProblem, state: Bracket):
        time_left = problem.time_left()
        self.deadline = np.array([math.inf if time_left is None else time.perf_counter() + time_left])
        self.result, self.lp, self.closed, self.joined = None, None, problem.closed, False
        self.started, self.seconds = time.perf_counter(), 0.0
        self.proven = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(grid, problem.k, state.ub, state.lb), daemon=True)
        self.thread.start()

    def _run(self, grid, k, ub, lb):
        # the deepening starts at the bound proven so far (by a short search
        # before the LP, say), not again from the least score
        value, idx, lower = profile_search_grid(grid, k, ub, 10**15, None, self.deadline, lb)
        self.result = (value, idx, lower)
        self.seconds = time.perf_counter() - self.started
        if self.closed(lower, ub if value is None else value):
            self.prove()

    def finish(self):
        """Stop the search; its ``(value, indices, lower)`` (None if it failed)."""
        self.deadline[0] = -math.inf
        self.thread.join()
        self.joined = True
        return self.result

    def join(self, state: Bracket, problem: ExactProblem, extra: dict, verbose: bool) -> Bracket:
        """Stop the search and take its set and bound into ``state`` (once;
        unchanged after)."""
        if self.joined:
            return state
        result = self.finish()
        value, idx, lower = result if result is not None else (None, None, -math.inf)
        if value is not None and value < state.ub:
            state = replace(state, ub=value, indices=idx)
        state = replace(state, lb=max(state.lb, lower))
        extra[f"{self.phase[:-1]}_seconds"] = self.seconds
        if self.proven.is_set() and problem.closed(state.lb, state.ub):
            state = replace(state, phase=self.phase)
        if verbose:
            print(f"{self.label} ({self.seconds:.2f} s): bound {state.lb:g} incumbent {state.ub:g} "
                  f"t={time.perf_counter() - problem.start:.2f}s", file=sys.stderr, flush=True)
        return state


class ShapeRace(ProfileRace):
    """:func:`._shapesearch.shape_search_grid` on ``grid`` in a thread, as
    :class:`ProfileRace` runs the profile search: it searches below the
    incumbent, so it proves (or finds a better set) only when it ends.
    Values offered by the star bound (:meth:`offer`) end the current
    attempt; the next one bounds with them (``restarts`` counts them)."""

    label, phase = "shape search", "shapes"

    def __init__(self, grid: ShapeGrid, problem: ExactProblem, state: Bracket):
        # the deadline of the current attempt, which offer() moves to now;
        # the values the next attempt bounds with
        self.attempt, self.pending, self.restarts = np.array([math.inf]), None, 0
        super().__init__(grid, problem, state)

    def offer(self, values: np.ndarray) -> None:
        """Start again, bounding with ``values`` too (values such that every
        k-set weighs at least the sum of its points' values: the star
        bound's, :meth:`._star.StarRace.feed`)."""
        self.pending = values
        self.attempt[0] = -math.inf

    def finish(self):
        self.attempt[0] = -math.inf
        return super().finish()

    def join(self, state: Bracket, problem: ExactProblem, extra: dict, verbose: bool) -> Bracket:
        if not self.joined:
            extra["shape_restarts"] = self.restarts
        return super().join(state, problem, extra, verbose)

    def _run(self, grid, k, ub, lb):
        best, best_idx, values = math.inf, None, None
        while True:
            self.attempt = np.array([self.deadline[0]])
            if self.pending is not None:  # the values offered last
                values, self.pending = self.pending, None
            target = min(ub, best) - 1.0
            value, idx, complete = shape_search_grid(grid, k, target, deadline=self.attempt, values=values)
            if value < best:
                best, best_idx = value, idx
            if complete or self.pending is None or time.perf_counter() > self.deadline[0]:
                break
            self.restarts += 1
        found = best < math.inf
        lower = (best if found else ub) if complete else -math.inf
        self.result = (best if found else None, best_idx, lower)
        self.seconds = time.perf_counter() - self.started
        if complete:
            self.prove()
