"""Clock and event heap of the simulator.

Events are ordered by the key ``(time, priority, sequence)``: at equal times
job finishes come first (their processors are free again), then arrivals,
then the dispatch that asks the scheduler which jobs start; the sequence
number (insertion order) settles the rest, so every run is deterministic.
"""

from __future__ import annotations

import heapq
import math

__all__ = ["ARRIVAL", "DISPATCH", "FINISH", "Event", "EventQueue"]

#: Event kinds, which are also their priorities at equal times.
FINISH, ARRIVAL, DISPATCH = 0, 1, 2
_NAMES = {FINISH: "finish", ARRIVAL: "arrival", DISPATCH: "dispatch"}


class Event:
    """One event: a time, a kind (its priority) and a payload.

    Examples
    --------
    >>> Event(3.0, ARRIVAL, "job 7")
    Event(3.0, 'arrival', 'job 7')
    """

    __slots__ = ("kind", "payload", "time")

    def __init__(self, time: float, kind: int, payload=None):
        self.time = time
        self.kind = kind
        self.payload = payload

    def __repr__(self):
        return f"Event({self.time!r}, {_NAMES.get(self.kind, self.kind)!r}, {self.payload!r})"


class EventQueue:
    """A clock and a heap of pending events keyed ``(time, priority, sequence)``.

    Popping an event moves the clock to its time; an event in the past
    raises, so time never runs backwards.

    Examples
    --------
    >>> q = EventQueue()
    >>> q.push(5.0, ARRIVAL, "a"); q.push(5.0, FINISH, "f"); q.push(1.0, ARRIVAL, "b")
    >>> [q.pop().payload for _ in range(3)], q.now
    (['b', 'f', 'a'], 5.0)
    """

    __slots__ = ("_heap", "_seq", "now")

    def __init__(self, start: float = -math.inf):
        self._heap: list = []
        self._seq = 0
        self.now = start

    def push(self, time: float, kind: int, payload=None) -> None:
        """Schedule an event; its priority is its kind."""
        if time < self.now:
            raise RuntimeError(f"event at time {time} scheduled in the past (clock at {self.now})")
        self._seq += 1
        heapq.heappush(self._heap, (time, kind, self._seq, payload))

    def pop(self) -> Event:
        """Remove the next event and advance the clock to its time."""
        time, kind, _, payload = heapq.heappop(self._heap)
        self.now = time
        return Event(time, kind, payload)

    def peek_time(self) -> float:
        """Time of the next event (``inf`` when empty)."""
        return self._heap[0][0] if self._heap else math.inf

    def __len__(self) -> int:
        return len(self._heap)

    def __bool__(self) -> bool:
        return bool(self._heap)
