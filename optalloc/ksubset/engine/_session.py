"""The state that exact solves on one machine share: cuts and results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .._common import make_result, rows_by_point

__all__ = ["ExactSession"]


class _Cached(NamedTuple):
    """A result in an :class:`ExactSession`'s cache: the points of the set,
    the bound of a bracket (None when optimal) and the time limit that left
    it."""

    points: list
    bound: float | None
    time_limit: float | None


@dataclass
class ExactSession:
    """State carried from one exact solve to the next on the same machine.

    Triangle inequalities depend only on three points, not on k or on the
    other points, so the cuts found binding in one decision are valid in the
    next; the session stores them by point coordinates and seeds later LPs
    with those whose three points are all present.  Results are cached by
    (free set, k): an optimum for every later call, a bracket left by a time
    limit for later calls with no more time than it had.

    Examples
    --------
    >>> import numpy as np
    >>> from optalloc.ksubset import exact, ExactSession
    >>> cells = np.array([(x, y) for y in range(8) for x in range(8)])
    >>> pts = cells[np.sort(np.random.default_rng(1).choice(64, 32, replace=False))]  # half free
    >>> session = ExactSession()
    >>> a = exact(pts, 10, warm_start=session)
    >>> b = exact(pts[1:], 10, warm_start=session)
    >>> a.status, b.status, b.extra["seeded_cuts"] >= 0
    ('optimal', 'optimal', True)
    """

    max_cuts: int = 20000
    cuts: dict = field(default_factory=dict)
    cache: dict = field(default_factory=dict)
    hits: int = 0

    def _key(self, points: np.ndarray, k: int):
        """Cache key of (free set, k), whatever the order of the points."""
        order = np.lexsort(points.T[::-1])
        return points[order].tobytes(), points.shape, k

    def _answer(self, key, pts: np.ndarray, time_limit: float | None, start: float):
        """The cached result of ``key`` for a call with ``time_limit``, or None.

        An optimum always serves; a bracket serves a call with no more time
        (the same solve would run out again), and is returned as it was."""
        hit = self.cache.get(key)
        if hit is None or not (hit.bound is None or (time_limit is not None and time_limit <= hit.time_limit)):
            return None
        self.hits += 1
        where = rows_by_point(pts)
        idx = [where[p].pop(0) for p in hit.points]  # repeated points take successive rows
        if hit.bound is None:
            return make_result(pts, idx, method="exact", start=start, termination="optimal", message="cached",
                               extra={"phase": "cache"}, exact=True)
        return make_result(pts, idx, method="exact", start=start, termination="time_limit", bound=hit.bound,
                           message=f"cached bracket of a solve that ran out of its {hit.time_limit:g} s",
                           extra={"phase": "cache"}, exact=True)

    def _keep(self, key, res, time_limit: float | None, rel_gap: float) -> None:
        """Cache ``res`` under ``key``: an optimum, or a bracket left by
        ``time_limit`` (without a requested gap)."""
        if res.status == "optimal":
            self.cache[key] = _Cached([tuple(p) for p in res.points], None, None)
        elif res.termination == "time_limit" and rel_gap == 0:
            self.cache[key] = _Cached([tuple(p) for p in res.points], res.bound, time_limit)

    def remember(self, points: np.ndarray, triples: np.ndarray) -> None:
        for t in triples:
            key = tuple(map(tuple, points[t]))
            self.cuts[key] = self.cuts.get(key, 0) + 1
        if len(self.cuts) > self.max_cuts:  # keep the most often binding
            keep = sorted(self.cuts.items(), key=lambda kv: -kv[1])[: self.max_cuts // 2]
            self.cuts = dict(keep)

    def seeds(self, points: np.ndarray) -> np.ndarray:
        if not self.cuts:
            return np.empty((0, 3), dtype=np.intp)
        where = {tuple(p): i for i, p in enumerate(points)}
        out = []
        for key in self.cuts:
            idx = [where.get(p) for p in key]
            if None not in idx and len(set(idx)) == 3:  # repeated points share a key
                out.append(idx)
        return np.array(out, dtype=np.intp).reshape(-1, 3)
