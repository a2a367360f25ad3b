"""The one place that talks to Pyomo solvers: availability and solution loading."""

from __future__ import annotations

import logging


def get_solver(name: str):
    """The Pyomo solver ``name``, or a one-line ValueError when it cannot run here."""
    import pyomo.environ as pyo

    try:
        opt = pyo.SolverFactory(name)
        available = opt is not None and opt.available(exception_flag=False)
    except Exception:  # noqa: BLE001 - an unknown name gives an UnknownSolver that raises on use
        available = False
    if not available:
        raise ValueError(f"solver {name!r} is not available to Pyomo on this machine (try 'highs')")
    return opt


def load_solution(model, results) -> bool:
    """Load the solver's solution into ``model``; False when there is none.

    A time-limited run carries its incumbent with an 'aborted' status;
    loading it is intended, so Pyomo's warning about it is muted.
    """
    if not (hasattr(results, "solution") and len(results.solution) > 0):
        return False
    quiet = logging.getLogger("pyomo.core")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        model.solutions.load_from(results)
    finally:
        quiet.setLevel(level)
    return True
