"""The event-driven simulator: the clock and event heap, the loop in which
jobs arrive, the scheduler picks and the allocator places, and the run-time
models in which the allocation changes how long a job runs.
"""

from ._events import ARRIVAL, DISPATCH, FINISH, Event, EventQueue
from ._runtime import RuntimeModel, TimePerDistance, parse_runtime_model
from ._simulate import Decision, SimulationResult, as_allocation, simulate

__all__ = [
    "ARRIVAL",
    "DISPATCH",
    "Decision",
    "Event",
    "EventQueue",
    "FINISH",
    "RuntimeModel",
    "SimulationResult",
    "TimePerDistance",
    "as_allocation",
    "parse_runtime_model",
    "simulate",
]
