"""The k-subset optimum of a full rectangle of the integer lattice.

For k points of an ``a x b`` box (every cell free), W is the sum of its two
axis parts, and each axis part depends only on how many points lie in each
column (each row)::

    W_x(S) = sum over cuts between adjacent columns of L (k - L),

with L the number of points left of the cut.  Let lambda be the multiset of
column counts (a partition of k into at most ``a`` parts of at most ``b``)
and lambda' its conjugate, the multiset of row counts of the staircase with
those columns.  Then

* W_x(S) >= arr(lambda), the least value of the cut sum over orderings of
  the column counts (empty columns between others only add cuts);
* W_y(S) >= arr(lambda'): the row counts r of any 0/1 matrix with column
  sums lambda are majorised by lambda' (Gale-Ryser), i.e. r lies in the
  permutohedron of lambda'; ``r -> sum_{t<u} r_t r_u (u - t)`` is concave
  on the hyperplane sum r = k (the distance of the line is of negative
  type), so its least value on that polytope is at a vertex, an ordering
  of lambda';
* both are attained at once: put the columns in an optimal order of
  lambda, the rows in an optimal order of lambda', and fill column i with
  the lambda_i longest rows (the row sums are then lambda', as required).

Hence ``OPT(box, k) = min over lambda of arr(lambda) + arr(lambda')``.  An
exchange of two adjacent parts changes one cut only, so some optimal order
is unimodal (ascending, then descending); ``arr`` is a dynamic programme
over the parts in ascending order, each put at the left or the right end
of what remains, with the left sum as state.  The partitions are
enumerated and scored (compiled loops, numba); the
count of partitions is the Gaussian binomial coefficient.  Beyond ``limit``
of them (50,000 by default) the branch-and-bound of :mod:`._boxsearch`
takes over; when it does not finish within its nodes, the box is refused
(None).

Any k lattice points inside an ``a x b`` box, whatever the free set, cost
at least this optimum, so it is a lower bound for every instance whose
bounding box is that rectangle: exact on an empty machine, and often still
the optimum when the machine is nearly empty (an optimal shape fits among
the free nodes).
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np

from ..._jit import njit
from . import _boxdual
from ._boxsearch import _GUESS_CELLS, _place_row, _round_guess, floor_box, search_box


def partition_count(k: int, max_part: int, max_parts: int) -> int:
    """Partitions of k into at most ``max_parts`` parts, each at most ``max_part``."""
    # ways[c][s]: multisets of c parts (<= current size) summing to s
    ways = np.zeros((max_parts + 1, k + 1), dtype=object)
    ways[0, 0] = 1
    for size in range(1, min(max_part, k) + 1):
        for c in range(1, max_parts + 1):
            ways[c, size:] += ways[c - 1, : k + 1 - size]
    return int(ways[:, k].sum())


def _partition_counts(k: int, max_part: int, max_parts: int) -> np.ndarray:
    """Every partition as its vector of multiplicities (column v - 1: parts equal to v)."""
    # grow from the largest part size down, keeping only completable prefixes
    counts = np.zeros((1, max_part), dtype=np.int64)
    rem = np.array([k])
    left = np.array([max_parts])
    for v in range(max_part, 0, -1):
        reps = np.minimum(rem // v, left) + 1
        row = np.repeat(np.arange(len(rem)), reps)
        j = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
        rem2, left2 = rem[row] - j * v, left[row] - j
        ok = rem2 <= (v - 1) * left2  # the smaller sizes can still make up the rest
        counts = counts[row[ok]]
        counts[:, v - 1] = j[ok]
        rem, left = rem2[ok], left2[ok]
    return counts


def _ascending_parts(counts: np.ndarray, width: int) -> np.ndarray:
    """Parts in ascending order, padded with zeros in front to ``width`` columns."""
    cum = np.cumsum(counts, axis=1)
    slot = np.arange(width)[None, :] - (width - cum[:, -1])[:, None]
    # the part at a slot: the least v with more than `slot` parts of size <= v
    v = (cum[:, :, None] <= slot[:, None, :]).sum(axis=1) + 1
    return np.where(slot >= 0, v, 0)


def _conjugate_ascending(counts: np.ndarray) -> np.ndarray:
    """Row counts of each staircase in ascending order: #{parts >= j} for j = max..1."""
    return np.cumsum(counts[:, ::-1], axis=1)


def _scores_loop(counts, k, score, score_y):  # pragma: no cover - compiled by numba
    """:func:`_scores` one partition at a time (multiplicity vectors in,
    arr(lambda) + arr(lambda') and arr(lambda') out), compiled; each part is
    placed by the step of the box search, :func:`._boxsearch._place_row`."""
    n_sets, max_part = counts.shape
    f = np.arange(k + 1) * (k - np.arange(k + 1))
    cost = np.empty(k + 1, dtype=np.int64)
    nxt = np.empty(k + 1, dtype=np.int64)
    for r in range(n_sets):
        total = np.int64(0)
        for side in range(2):
            cost[0] = 0
            t = np.int64(0)  # not a literal 0 (see optalloc._jit)
            if side == 0:  # the conjugate: #{parts >= v}, ascending as v falls
                run = 0
                for v in range(max_part, 0, -1):
                    run += counts[r, v - 1]
                    if run > 0:
                        t = _place_row(cost, t, run, f, nxt)
            else:  # the parts, ascending
                for v in range(1, max_part + 1):
                    for _ in range(counts[r, v - 1]):
                        t = _place_row(cost, t, v, f, nxt)
            best = cost[0]
            for s in range(1, t + 1):
                best = min(best, cost[s])
            total += best
            if side == 0:
                score_y[r] = best
        score[r] = total


#: compiled on first call (numba imported then, not here)
_scores_jit = njit(cache=True)(_scores_loop)


#: refuse boxes with more partitions than this (counted before enumerating)
LIMIT = 50_000
#: nodes of the compiled branch-and-bound (:mod:`._boxsearch`) that
#: box_optimum allows beyond LIMIT partitions (a full 16 x 16 machine needs
#: at most 347,441, at k = 159: a few seconds)
SEARCH_NODES = 2_000_000


def arrangement(parts, k: int) -> list[int]:
    """An ordering of ``parts`` (summing to k) with the least cut sum, unimodal."""
    parts = sorted(int(p) for p in parts if p > 0)
    # forward pass with choices, one part at a time
    best = {0: (0.0, None)}
    total = 0
    history = []
    for w in parts:
        nxt: dict = {}
        for left, (c, _) in best.items():
            right = total - left
            for new_left, add, side in ((left + w, (left + w) * (k - left - w), "L"), (left, right * (k - right), "R")):
                val = c + add
                if new_left not in nxt or val < nxt[new_left][0]:
                    nxt[new_left] = (val, (left, side))
        history.append(nxt)
        best = nxt
        total += w
    state = min(best, key=lambda s: best[s][0])
    sides = []
    for nxt in reversed(history):
        prev, side = nxt[state][1]
        sides.append(side)
        state = prev
    sides.reverse()
    left_parts = [w for w, sd in zip(parts, sides) if sd == "L"]
    right_parts = [w for w, sd in zip(parts, sides) if sd == "R"]
    return left_parts + right_parts[::-1]


def _scores(counts: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """arr(lambda) + arr(lambda') and arr(lambda') of each partition
    (multiplicity vectors), in compiled loops."""
    score, score_y = np.empty(len(counts), dtype=np.int64), np.empty(len(counts), dtype=np.int64)
    _scores_jit(np.ascontiguousarray(counts, dtype=np.int64), int(k), score, score_y)
    return score.astype(float), score_y.astype(float)


@lru_cache(maxsize=16)
def _scored_partitions(k: int, max_part: int, max_parts: int):
    """Every partition of k into at most ``max_parts`` parts of at most
    ``max_part`` (multiplicity vectors), its parts in descending order and
    its two arrangement scores, sorted by total score (stable); None above
    LIMIT.  Shared by the box optimum and the profile search."""
    if partition_count(k, max_part, max_parts) > LIMIT:
        return None
    counts, score, score_y = _sorted_scores(k, max_part, max_parts)
    return counts, _ascending_parts(counts, max_parts)[:, ::-1].astype(np.int32), score, score_y


def _sorted_scores(k: int, max_part: int, max_parts: int):
    """Multiplicity vectors (int32) and both scores of every partition, by total score (stable)."""
    counts = _partition_counts(k, max_part, max_parts)
    score, score_y = _scores(counts, k)
    order = np.argsort(score, kind="stable")
    return counts[order].astype(np.int32), score[order], score_y[order]


#: beyond LIMIT, the profile search may still score up to this many
#: partitions (its time is in docs/experiments.md)
#: and keep those below its incumbent (:func:`_large_table`)
LARGE_LIMIT = 600_000


@lru_cache(maxsize=1)
def _large_table(k: int, max_part: int, max_parts: int):
    """Multiplicity vectors and both scores of every partition (as
    :func:`_scored_partitions`, sorted by score, without the parts), for
    LIMIT < count <= LARGE_LIMIT; else None.  One table is kept (about
    40 MB at 487,842 partitions)."""
    count = partition_count(k, max_part, max_parts)
    if not LIMIT < count <= LARGE_LIMIT:
        return None
    return _sorted_scores(k, max_part, max_parts)


#: box optima found, by (width, height, k), least recently used first, and
#: the most nodes a search used without finishing (a search with no more is
#: not tried again); _KEEP of each are kept
_SOLVED: dict = {}
_FAILED: dict = {}
_KEEP = 4096


def _box_optimum(width: int, height: int, k: int, limit: int, nodes: int):
    key = (width, height, k)
    found = _SOLVED.get(key)
    if found is not None:
        _SOLVED.pop(key, None)
    else:
        count = partition_count(k, height, width)
        if count > limit and nodes <= _FAILED.get(key, 0):
            return None
        found = _solve_box(width, height, k, count, limit, nodes)
        if found is None:
            _FAILED[key] = max(nodes, _FAILED.pop(key, 0))
            if len(_FAILED) > _KEEP:
                _FAILED.pop(next(iter(_FAILED)))
            return None
    _SOLVED[key] = found  # the most recently used last
    if len(_SOLVED) > _KEEP:
        _SOLVED.pop(next(iter(_SOLVED)))
    return found


#: nodes a box search runs without the Lagrangian bounds (:mod:`._boxdual`)
#: before it works them out
_PLAIN = 50_000
#: the Lagrangian bounds worked out, by (width, height, k): (bound, tables);
#: the tables are large (about 200 MB at k = 512 on 32 x 32), so few are kept
_DUALS: dict = {}
_DUALS_KEEP = 2


#: the most memory the Lagrangian bounds may take (bytes; about 260 MB at
#: k = 512 on 32 x 32): beyond it the search runs without them
_DUAL_BYTES = 512 << 20


def _dual_cost(width: int, height: int, k: int) -> int:
    """What working out the Lagrangian bounds costs, counted in search nodes
    (a rough equivalent of its time); more than any budget when they would
    take more than ``_DUAL_BYTES``."""
    if _boxdual.memory(width, height, k) > _DUAL_BYTES:
        return 1 << 62
    return width * height * k * k // 200


def _dual(width: int, height: int, k: int):
    """``(bound, tables)``: the Lagrangian bound on the box optimum (an
    integer: W is one) and the search's tables for its weights."""
    key = (width, height, k)
    if key not in _DUALS:
        bound, pi = _boxdual.multipliers(width, height, k)
        if len(_DUALS) >= _DUALS_KEEP:
            _DUALS.pop(next(iter(_DUALS)))
        # the bound is a sum of floats: a billionth off absorbs their rounding
        _DUALS[key] = (float(math.ceil(bound * (1 - 1e-9))), _boxdual.tables(width, height, k, pi))
    return _DUALS[key]


def _solve_box(width: int, height: int, k: int, count: int, limit: int, nodes: int):
    if count <= min(limit, LIMIT):
        scored = _scored_partitions(k, height, width)
        best, value = scored[0][0].astype(np.int64), float(scored[2][0])
    elif count <= limit:  # a raised limit: score without keeping the table
        counts = _partition_counts(k, height, width)
        values = _scores(counts, k)[0]
        best, value = counts[int(np.argmin(values))], float(values.min())
    elif nodes > 0:
        value, best, used = search_box(width, height, k, node_limit=min(nodes, _PLAIN))
        left = nodes - used - _dual_cost(width, height, k)
        if value is None and left > 0:  # not a small search: with the Lagrangian bounds
            value, best, _ = search_box(width, height, k, node_limit=left, dual=_dual(width, height, k)[1])
        if value is None:
            return None
    else:
        return None
    parts = np.repeat(np.arange(1, height + 1), best)
    cols = arrangement(parts, k)
    rows = arrangement(_conjugate_ascending(best[None])[0], k)
    # fill column i with its cols[i] longest rows
    rank = np.empty(len(rows), dtype=np.int64)
    rank[np.argsort(-np.asarray(rows), kind="stable")] = np.arange(len(rows))
    shape = np.array([(i, j) for i, c in enumerate(cols) for j in range(len(rows)) if rank[j] < c])
    return value, shape


def box_optimum(width: int, height: int, k: int, *, limit: int = LIMIT, nodes: int = SEARCH_NODES):
    """Least W of k cells of a full ``width x height`` box, with an optimal set.

    Returns ``(W, cells)`` (cells as an array of (x, y) offsets from the
    corner of the box), or None when the box has more than ``limit``
    partitions of k to score (see the module docstring) and the
    branch-and-bound of :mod:`._boxsearch` does not finish within
    ``nodes`` nodes (0: do not try it).

    Examples
    --------
    >>> from optalloc.ksubset import box_optimum
    >>> w, cells = box_optimum(16, 8, 64)
    >>> w, len(cells), int(cells[:, 1].max()) + 1
    (10592.0, 64, 8)
    """
    width, height, k = int(width), int(height), int(k)
    if width < 1 or height < 1:
        raise ValueError(f"the box must have positive sides, got {width} x {height}")
    if not 1 <= k <= width * height:
        raise ValueError(f"k must be between 1 and {width * height} for a {width} x {height} box, got {k}")
    # k cells use at most k columns and k rows: a wider box changes nothing
    found = _box_optimum(min(width, k), min(height, k), k, int(limit), int(nodes))
    return None if found is None else (found[0], found[1].copy())  # the cache keeps its own


#: fractions of the round sets' W that :func:`box_bracket` proves below the
#: optimum in turn (the cheaper proofs first)
_RUNGS = (0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995, 0.9975)
#: brackets found, by (width, height, k): (lower, upper, nodes spent)
_BRACKETS: dict = {}


def box_bracket(width: int, height: int, k: int, *, nodes: int = SEARCH_NODES) -> tuple[float, float]:
    """``(lower, upper)`` on the least W of k cells of a full ``width x
    height`` box, proven within ``nodes`` nodes of the branch-and-bound.

    Where :func:`box_optimum` does not finish, a lower bound still does:
    upper is the W of the best round set (the k cells nearest the middle in
    an L_p norm).  A short search settles small boxes.  Beyond it, lower
    starts at the Lagrangian bound of :mod:`._boxdual` (within 1.5 % of
    the optimum on 32 x 32 for k from 128 to 512), and the search, pruned
    by the same bound at every node, proves in turn that no partition
    scores below 99 %, 99.5 % and 99.75 % of upper (from 80 % when the
    nodes do not cover the bound's cost: see ``_RUNGS``), then looks for
    the optimum; lower is the last fraction proven, and lower = upper once
    the optimum is found.  Each process keeps the brackets it found and does not
    search again with no more nodes.

    Examples
    --------
    >>> from optalloc.ksubset import box_bracket
    >>> box_bracket(16, 8, 64)          # within the partition tables
    (10592.0, 10592.0)
    >>> box_bracket(24, 24, 128)        # beyond them: the search, with the dual
    (60002.0, 60002.0)
    """
    width, height, k = int(width), int(height), int(k)
    if width < 1 or height < 1:
        raise ValueError(f"the box must have positive sides, got {width} x {height}")
    if not 1 <= k <= width * height:
        raise ValueError(f"k must be between 1 and {width * height} for a {width} x {height} box, got {k}")
    width, height = min(width, k), min(height, k)
    key = (width, height, k)
    known = _BRACKETS.get(key)
    if known is not None and (known[0] == known[1] or nodes <= known[2]):
        return known[0], known[1]
    found = _box_optimum(width, height, k, LIMIT, 0)  # the tables, or an optimum found before
    if found is not None:
        return found[0], found[0]
    if nodes <= 0:
        return 0.0, math.inf
    upper = float(_round_guess(width, height, k)) if width * height <= _GUESS_CELLS else math.inf
    lower, left = (0.0 if known is None else known[0]), int(nodes)  # the rungs proven before stand
    if upper < math.inf:
        status, value, used = floor_box(width, height, k, upper + 1, node_limit=min(left // 4, _PLAIN))
        left -= used
        dual = None
        if status != "open":  # a small search: the optimum (the round set's W when none is below it)
            lower = upper = upper if value is None else value
        elif left > _dual_cost(width, height, k):
            left -= _dual_cost(width, height, k)
            bound, dual = _dual(width, height, k)
            lower = max(lower, min(bound, upper))
        for frac in (*_RUNGS, None) if lower < upper else ():
            target = upper + 1 if frac is None else math.ceil(frac * upper)
            if target <= lower:
                continue
            status, value, used = floor_box(width, height, k, target, node_limit=left, dual=dual)
            left -= used
            if status == "open":
                break
            if status == "found" or frac is None:  # the optimum: below the target, or the round set itself
                lower = upper = upper if value is None else value
                break
            lower = float(target)
            if left <= 0:
                break
    if len(_BRACKETS) >= _KEEP:
        _BRACKETS.pop(next(iter(_BRACKETS)))
    _BRACKETS[key] = (lower, upper, int(nodes))
    return lower, upper


def _orientations(cells: np.ndarray, sides):
    """The cell set under every permutation and mirroring of its axes that
    fits the box ``sides``, normalised to the origin, without repeats."""
    seen = set()
    d = cells.shape[1]
    for perm in itertools.permutations(range(d)):
        for signs in itertools.product((1, -1), repeat=d):
            c = cells[:, perm] * np.array(signs)
            c = c - c.min(axis=0)
            if (c.max(axis=0) >= sides).any():
                continue
            key = tuple(sorted(map(tuple, c.tolist())))
            if key not in seen:
                seen.add(key)
                yield c


def fit_in(points: np.ndarray, cells: np.ndarray):
    """Indices of ``points`` (2D or 3D lattice, distinct) forming a translate
    of ``cells`` or of an image of it under a permutation or mirroring of
    the axes, or None.

    A translate that fits maps the first cell onto some point, so only n
    translations per orientation are tried (cells are looked up by code in
    the sorted codes of the points)."""
    pts = np.asarray(points).astype(np.int64)
    lo = pts.min(axis=0)
    sides = pts.max(axis=0) - lo + 1
    rel = pts - lo
    if float(np.prod(sides.astype(float))) < 2.0**62:  # mixed-radix codes fit int64
        radix = np.concatenate((np.cumprod(sides[::-1])[::-1][1:], [1]))
        codes = rel @ radix
    else:  # far-flung points: rank the rows instead (slower, exact)
        radix = None
        index = {tuple(p): i for i, p in enumerate(rel.tolist())}
    if radix is not None:
        order = np.argsort(codes)
        sorted_codes = codes[order]
    for c in _orientations(cells, sides):
        first = c[np.lexsort(c.T[::-1])[0]]
        shift = rel - first  # one candidate translation per point
        extent = c.max(axis=0) + 1
        inside = (shift >= 0).all(axis=1) & (shift + extent <= sides).all(axis=1)
        for move in shift[inside]:
            if radix is None:
                found = [index.get(tuple(p)) for p in (c + move).tolist()]
                if None not in found:
                    return np.sort(np.array(found, dtype=np.int64))
                continue
            want = (c + move) @ radix
            pos = np.searchsorted(sorted_codes, want)
            if (pos < len(sorted_codes)).all() and (sorted_codes[np.minimum(pos, len(sorted_codes) - 1)] == want).all():
                return np.sort(order[pos])
    return None


__all__ = ["LIMIT", "SEARCH_NODES", "arrangement", "box_bracket", "box_optimum", "fit_in", "partition_count"]
