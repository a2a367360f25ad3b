"""Narrow and wide sets of a 2D torus: the mesh's shape search on cut meshes,
and a partition bound for the sets that wrap far around a ring.

On a ring of p positions let ``h = p // 2``.  A set is *narrow* on a
wrapped axis when its coordinates there fit in an arc of h steps (h + 1
consecutive positions), *wide* otherwise; an axis that does not wrap
counts as narrow.

Narrow sets are mesh sets.  Cut a ring before position 0 or before
position h: no arc of h steps holds both cut edges (an arc holding both
has at least h + 1 steps either way round), so the coordinates of a set
narrow on that axis form an interval of one of the two lines, where the
line distance |a - b| <= h equals the ring distance min(|a - b|, p - |a -
b|).  So a set narrow on every wrapped axis weighs on the torus what it
weighs on one of the meshes cut so (coordinates ``(x - c) mod p`` with c
in {0, h} on each wrapped axis), and any set of such a mesh weighs on the
torus at most its mesh weight (a ring distance never exceeds the line
distance).  The least W over the narrow sets is therefore the least mesh
optimum over the cut meshes, which the mesh's shape search
(:mod:`._shapesearch`) finds, and every set it finds is a torus set at
least that light.

Wide sets weigh at least the *wide partition bound*.  Let the set be wide
on the x axis (a ring), with column counts c, the multiset lambda of its
nonzero counts and row counts r.  ``W = W_x(c) + W_y(r)``; as in
:mod:`._ring`, ``W_y(r) >= arr_y(lambda')`` (r is majorised by the
conjugate, arr is Schur-concave).  The counts c put the parts of lambda
on distinct positions of the ring, occupying a set of positions that no
arc of h steps holds, so ``W_x(c) >= arr_wide(lambda)``: the least
``sum_{a<b} lambda_a lambda_b d(pos_a, pos_b)`` over such placements.
Hence every set wide on x weighs at least the least of ``arr_wide(lambda)
+ arr_y(lambda')`` over the partitions lambda of k that fit the columns
(the i-th largest part at most the i-th largest column's free cells),
and likewise for y with the axes swapped.  It holds for the distance that
is the sum of the two axes' distances, each a ring of unit steps (the
axis of a wide set must wrap; the other may be a line).

``arr_wide`` is found by a depth-first search (:func:`_wide_least`) that
places the parts largest first, the first at position 0 (a rotation maps
any placement there) and equal parts at increasing positions.  A partial
placement costs at least its pairs so far, plus the organ-pipe cost of
the parts still to place among themselves (their least cost on any
distinct positions, :mod:`._ring`), plus each of them times the parts
placed (distinct positions are at least one step apart); and an empty run
of L positions between placed ones, where ``g = p - h - 1`` is the
shortest run that leaves a set narrow, needs at least ``ceil((L - g + 1)
/ g)`` of the parts still to place inside it, each at a distance sum to
the placed parts of at least the least such sum inside the run (when one
part must break the run, inside the positions that leave both pieces
shorter than g), which the smallest parts still to place take, matched
to the largest sums.

On a 16 x 16 torus with half its nodes free the wide bound exceeds the
least narrow W up to k of about 16 to 18, and the torus is then solved
by the mesh's shape search on its four cut meshes; at k = 32 it falls
short (docs/benchmarks.md).
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..._jit import njit
from ..._threads import run_split
from ._box import _ascending_parts
from ._profilesearch import deadline_array, now
from ._ring import listable, scored_partitions
from ._shapesearch import shape_search

__all__ = ["narrow_cuts", "narrow_search", "torus_narrow", "wide_arrangement", "wide_bound"]

#: the cut meshes are searched only when the wide bound is at least this
#: share of the incumbent's W (else the wide sets could not be ruled out)
WIDE_SHARE = 0.96
#: larger than any W searched
_BIG = 2**62
#: seconds of the wide bound's search at most (it then proves nothing)
_WIDE_SECONDS = 1.0


@njit(cache=True)
def _wide_runs(occ, p, g, placed_pos, t, parts, out_need, out_best):  # pragma: no cover - compiled by numba
    """The empty runs of ``occ`` (a ring of p positions) of at least g
    positions: writes, per run, the parts it needs and the least distance
    sum to the placed parts at a position allowed for them; returns the
    number of runs (-1 when nothing is placed)."""
    start = -1
    for z in range(p):
        if occ[z]:
            start = z
            break
    if start < 0:
        return -1
    n_runs = 0
    z = start + 1
    while z <= start + p:
        if occ[z % p]:
            z += 1
            continue
        a = z  # the run's first position (unwrapped)
        while not occ[z % p]:
            z += 1
        length = z - a
        if length >= g:
            need = (length - g + g) // g  # ceil((length - g + 1) / g)
            if need == 1:
                lo, hi = a + length - g, a + g - 1  # both pieces shorter than g
            else:
                lo, hi = a, z - 1
            least = 1 << 60
            for y in range(lo, hi + 1):
                s = 0
                for b in range(t):
                    d = abs(y % p - placed_pos[b])
                    s += parts[b] * min(d, p - d)
                least = min(least, s)
            out_need[n_runs] = need
            out_best[n_runs] = least
            n_runs += 1
    return n_runs


@njit(cache=True)
def _organ_cost(parts, t, p):  # pragma: no cover - compiled by numba
    """The organ-pipe cost on a ring of p of the descending ``parts[t:]``."""
    c = 0
    for a in range(t, len(parts)):
        oa = (a - t + 1) // 2 if (a - t) % 2 == 1 else -((a - t) // 2)
        for b in range(a + 1, len(parts)):
            ob = (b - t + 1) // 2 if (b - t) % 2 == 1 else -((b - t) // 2)
            d = abs(oa - ob)
            c += parts[a] * parts[b] * min(d, p - d)
    return c


@njit(cache=True)
def _wide_least(parts, p, best):  # pragma: no cover - compiled by numba
    """``arr_wide`` of the descending positive ``parts`` on a ring of p
    when below ``best``, else ``best``: the search of the module notes
    (iterative: numba's cache does not keep recursive functions)."""
    n = len(parts)
    g = p - p // 2 - 1
    if g < 1 or n < 3 or n > p:
        return best
    restarr = np.zeros(n + 1, dtype=np.int64)
    prefix = np.zeros(n + 1, dtype=np.int64)
    for t in range(n):
        restarr[t] = _organ_cost(parts, t, p)
        prefix[t + 1] = prefix[t] + parts[t]
    total = prefix[n]
    pos = np.zeros(n, dtype=np.int64)
    occ = np.zeros(p, dtype=np.bool_)
    cost = np.zeros(n + 1, dtype=np.int64)
    nxt = np.zeros(n + 1, dtype=np.int64)
    need = np.zeros(p, dtype=np.int64)
    least = np.zeros(p, dtype=np.int64)
    t = 0
    while t >= 0:
        last = 0 if t == 0 else p - 1
        placed, rest = prefix[t + 1], total - prefix[t + 1]
        down = False
        while nxt[t] <= last:
            z = nxt[t]
            nxt[t] += 1
            if occ[z]:
                continue
            add = 0
            for b in range(t):
                d = abs(z - pos[b])
                add += parts[b] * min(d, p - d)
            c = cost[t] + parts[t] * add
            if c + restarr[t + 1] + rest * placed >= best:
                continue
            occ[z] = True
            pos[t] = z
            if t + 1 == n:  # a full placement: wide when every empty run is shorter than g
                run, wide = 0, True
                for y in range(2 * p):
                    if occ[y % p]:
                        run = 0
                    else:
                        run += 1
                        if run >= g:
                            wide = False
                            break
                if wide:
                    best = c
                occ[z] = False
                continue
            runs = _wide_runs(occ, p, g, pos, t + 1, parts, need, least)
            slots = 0
            for r in range(runs):
                slots += need[r]
            if slots <= n - t - 1:
                # the smallest parts left take the runs' slots, largest sums first
                extra = 0
                order = np.argsort(-least[:runs])
                b = n - 1
                for r in order:
                    for _ in range(need[r]):
                        extra += parts[b] * (least[r] - placed)
                        b -= 1
                if c + restarr[t + 1] + rest * placed + extra < best:
                    cost[t + 1] = c
                    down = True
                    break
            occ[z] = False
        if down:
            t += 1
            nxt[t] = pos[t - 1] + 1 if parts[t] == parts[t - 1] else 0
        else:
            t -= 1
            if t >= 0:
                occ[pos[t]] = False
    return best


@njit(cache=True)
def _wide_partitions(parts, score, score_y, p, best, floor, deadline):  # pragma: no cover - compiled by numba
    """The least ``arr_wide(lambda) + arr_y(lambda')`` over the partitions
    (rows of ``parts``, descending, zero-padded; in ``score`` order) when
    below ``best``; -1 as soon as it falls below ``floor``, -2 past the
    ``deadline``."""
    for i in range(len(score)):
        if score[i] >= best:
            break
        if (i & 63) == 63 and now() > deadline[0]:
            return -2
        n = 0
        while n < parts.shape[1] and parts[i, n] > 0:
            n += 1
        if n < 3:
            continue
        value = _wide_least(np.ascontiguousarray(parts[i, :n]), p, best - score_y[i]) + score_y[i]
        if value < best:
            best = value
            if best < floor:
                return -1
    return best


def wide_arrangement(parts, side: int, target: float = math.inf) -> float:
    """The least ``sum_{a<b} parts[a] parts[b] d(pos_a, pos_b)`` over
    placements of ``parts`` on distinct positions of a ring of ``side``
    whose positions no arc of ``side // 2`` steps holds (``arr_wide`` of
    the module notes), when below ``target``; ``target`` otherwise
    (infinity: no such placement).

    Examples
    --------
    >>> wide_arrangement([1, 1, 1], 6)  # three points two steps apart
    6.0
    >>> wide_arrangement([2, 1], 16)  # two positions always fit in half a ring
    inf
    """
    parts = np.sort(np.asarray(parts, dtype=np.int64))[::-1]
    parts = np.ascontiguousarray(parts[parts > 0])
    best = min(math.ceil(target), _BIG) if target < math.inf else _BIG  # W is an integer
    value = int(_wide_least(parts, int(side), best))
    return float(value) if value < best else float(target)


def wide_bound(free: np.ndarray, k: int, wrap, target: float = math.inf, floor: float = -math.inf) -> float:
    """A lower bound on W of every set of k free cells that is wide on a
    wrapped axis (the wide partition bound of the module notes), at most
    ``target``: infinity where no axis wraps far enough for a wide set.
    ``free[x, y]`` marks the free cells.  As soon as some partition's
    bound falls below ``floor`` the search stops and returns minus
    infinity; likewise beyond ``_ring.PARTITIONS`` partitions of k, and
    after ``_WIDE_SECONDS`` of search.

    Examples
    --------
    >>> import numpy as np
    >>> wide_bound(np.ones((8, 8), dtype=bool), 4, (True, True))  # four points of a row around a ring of 8
    14.0
    """
    free = np.asarray(free, dtype=bool)
    wrap = tuple(bool(w) for w in wrap)
    idle = _idle_wide(tuple(int(s) for s in free.shape), wrap, int(k), floor)
    if idle >= floor or idle >= target:
        return float(min(idle, target))
    value = _wide_of(free, int(k), wrap, target, floor, _WIDE_SECONDS)
    return -math.inf if math.isnan(value) else value


def _wide_of(free: np.ndarray, k: int, wrap, target: float, floor: float, time_limit: float | None = None) -> float:
    """:func:`wide_bound` over the partitions that fit ``free``; nan when
    stopped by ``time_limit``."""
    best = min(math.ceil(target), _BIG) if target < math.inf else _BIG
    low = math.ceil(floor) if floor > -math.inf else -1
    for grid, axes in ((free, tuple(wrap)), (free.T, tuple(wrap)[::-1])):
        p, q = grid.shape
        if not axes[0] or p - p // 2 - 1 < 1:
            continue
        if not listable(k, p, q):
            return -math.inf
        counts, score, score_y = scored_partitions(k, grid.sum(axis=1), q, (True, bool(axes[1])))
        if not len(score):
            continue
        parts = np.ascontiguousarray(_ascending_parts(counts, min(p, k))[:, ::-1])
        best = int(_wide_partitions(parts, score, score_y, p, best, low, deadline_array(time_limit)))
        if best < 0:
            return -math.inf if best == -1 else math.nan
    if best >= _BIG:
        return math.inf
    return float(best) if target == math.inf or best < math.ceil(target) else float(target)


#: the idle machines' wide bounds: per (shape, wrap, k), the bound, or
#: minus infinity with the floor it fell below
_IDLE: dict = {}


def _idle_wide(shape: tuple[int, int], wrap: tuple[bool, bool], k: int, floor: float = -math.inf) -> float:
    """The wide partition bound of the idle machine, or minus infinity when
    it is below ``floor``: it bounds every state of the machine (a state's
    partitions are among the idle machine's), so it is worked out once per
    shape and k."""
    key = (shape, wrap, k)
    known = _IDLE.get(key)
    if known is not None and (known[0] > -math.inf or floor >= known[1]):
        return known[0]
    value = _wide_of(np.ones(shape, dtype=bool), k, wrap, math.inf, floor, _WIDE_SECONDS)
    if math.isnan(value):
        return -math.inf
    if len(_IDLE) > 256:
        _IDLE.clear()
    _IDLE[key] = (value, floor)
    return value


def narrow_cuts(shape, wrap) -> list[np.ndarray]:
    """The offsets of the cut meshes: 0 or ``side // 2`` on each wrapped
    axis, 0 on the others."""
    choices = [(0, int(s) // 2) if w and int(s) >= 2 else (0,) for s, w in zip(shape, wrap, strict=True)]
    grids = np.meshgrid(*[np.array(c) for c in choices], indexing="ij")
    return [np.array(o, dtype=np.int64) for o in zip(*(gr.ravel() for gr in grids), strict=True)]


def _weight(pts: np.ndarray, idx: np.ndarray, shape, wrap) -> float:
    """W of the points ``pts[idx]`` in the torus distance."""
    sel = pts[idx]
    total = 0.0
    for a, (side, w) in enumerate(zip(shape, wrap, strict=True)):
        gap = np.abs(sel[:, a][:, None] - sel[:, a][None, :])
        total += float((np.minimum(gap, side - gap) if w else gap).sum()) / 2.0
    return total


def narrow_search(pts, k: int, shape, wrap, upper: float, *, time_limit: float | None = None):
    """The least W of the narrow sets of k of ``pts`` (integer 2D
    coordinates on a ``shape`` machine whose axes wrap where ``wrap``),
    when below ``upper``: the mesh's shape search on each cut mesh, in two
    chains of cut meshes on two threads (:func:`_chain`).

    Returns ``(value, indices, lower)`` as :func:`._shapesearch.shape_search`
    does: the lightest set found below ``upper`` (its W on the torus) or
    None, None; ``lower`` a proven lower bound on the W of every narrow
    set when every search ended, else None.

    Examples
    --------
    >>> import numpy as np
    >>> pts = np.array([(x, y) for x in range(6) for y in range(6)])
    >>> narrow_search(pts, 4, (6, 6), (True, True), 10.0)[0]
    8.0
    """
    pts = np.asarray(pts).astype(np.int64)
    cuts = narrow_cuts(shape, wrap)
    half = (len(cuts) + 1) // 2
    chains = [cuts[:half], cuts[half:]] if len(cuts) > 1 else [cuts]
    t0 = time.perf_counter()

    def run(lo, hi):
        return [_chain(pts, k, shape, wrap, float(upper), chain, t0, time_limit) for chain in chains[lo:hi]]

    found = [f for piece in run_split(run, len(chains), min_items=1) for f in piece]
    best, best_idx = float(upper), None
    for value, idx, _ in found:  # the lightest; between equals, the earlier chain
        if value is not None and value < best:
            best, best_idx = value, idx
    lowers = [low for _, _, low in found]
    lower = None if any(low is None for low in lowers) else min(lowers)
    return best if best_idx is not None else None, best_idx, lower


def _chain(pts, k: int, shape, wrap, upper: float, cuts, t0: float, time_limit):
    """The shape search on the cut meshes ``cuts`` in turn, each below the
    lightest W found so far in the chain: ``(value, indices, lower)`` of
    :func:`narrow_search` over those meshes.  The two chains of a torus
    run on two threads (or in turn), each from ``upper``, so the result
    does not depend on which."""
    best, best_idx, lower = upper, None, math.inf
    for off in cuts:
        left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        if left is not None and left <= 0:
            lower = None
            break
        cut = (pts - off[None, :]) % np.array(shape, dtype=np.int64)[None, :]
        value, idx, low = shape_search(cut.astype(float), k, best, time_limit=left)
        if low is None:
            lower = None
        elif lower is not None:
            lower = min(lower, low)
        if value is not None:
            w = _weight(pts, idx, shape, wrap)
            if w < best:
                best, best_idx = w, idx
    return (best if best_idx is not None else None), best_idx, lower


def torus_narrow(pts, k: int, shape, wrap, upper: float, *, time_limit: float | None = None):
    """The optimum of k of ``pts`` on a 2D torus by narrow and wide sets
    (module notes): the wide bound first, then, when it is within
    ``WIDE_SHARE`` of ``upper``, the shape search on the cut meshes.

    Returns ``(value, indices, lower)``: the lightest set found below
    ``upper`` (or None, None) and a proven lower bound on the optimum (the
    lesser of the narrow sets' and the wide bound), or None when the wide
    bound is too low or a search did not end.

    Examples
    --------
    >>> import numpy as np
    >>> pts = np.array([(x, y) for x in range(8) for y in range(8) if (x + 2 * y) % 5])
    >>> value, idx, lower = torus_narrow(pts, 5, (8, 8), (True, True), 100.0)
    >>> value == lower
    True
    """
    pts = np.asarray(pts).astype(np.int64)
    shape = tuple(int(s) for s in shape)
    wrap = tuple(bool(w) for w in wrap)
    free = np.zeros(shape, dtype=bool)
    free[pts[:, 0], pts[:, 1]] = True
    upper = float(upper)
    wide = wide_bound(free, k, wrap, upper, WIDE_SHARE * upper)
    if wide == -math.inf:
        return None, None, None
    value, idx, lower = narrow_search(pts, k, shape, wrap, upper, time_limit=time_limit)
    if lower is None:
        return value, idx, None
    return value, idx, min(lower, wide)
