"""Least cost of a multiset of counts on a line or a ring, and the partition
scores of the search over column and row counts.

Put counts mu_1 >= mu_2 >= ... (points stacked on one position cost
nothing among themselves) on distinct positions of an axis with distance
d; the cost is ``sum_{a<b} mu_a mu_b d(pos_a, pos_b)``.  Its least value
over the placements, ``arr(mu)``, is

the cost of the *organ pipe*: mu_1 at 0, mu_2 at 1, mu_3 at -1, mu_4 at
2, mu_5 at -2, and so on, around a ring of ``side`` positions or along a
line (with at least as many positions as counts).

Why the organ pipe is optimal on a ring.  Minimising the cost is
maximising ``F(c) = sum_{x,y} c_x c_y K(x, y)`` with ``K = side - d``,
which falls as the ring distance grows.  For a reflection s of the ring
and its side H (the open half on one side of its axis), the *polarisation*
of c puts ``max(c_x, c_sx)`` at x and the min at sx for x in H.  For x, y
in H, ``d(x, y) <= d(x, sy)`` (a shortest path from x to sy crosses the
axis at a point z fixed by s, and ``d(z, sy) = d(z, y)``), so on the four
terms of x, sx, y, sy the rearrangement inequality says F does not fall;
pairs with a point on the axis and the pair x, sx are unchanged.  Perturb
the counts (zeros included) to distinct values.  Every reflection
``x -> a - x`` with a != 0, with H the side of 0, and ``x -> -x`` with H
= {1, 2, ..., (side - 1) // 2}, leave the organ pipe c* unchanged, and
polarising any other c by one of them raises ``sum_x c_x c*_x`` strictly:
if c agreed with all of them, then c_x >= c_y whenever x comes before y in
the order 0, 1, -1, 2, -2, ... (take ``a = x + y``, or ``x -> -x`` when
y = -x), so c = c*.  A maximiser of F with the largest ``sum c c*`` is
therefore c*, and by continuity the organ pipe of the unperturbed counts is
optimal too.  On a line of p positions: they sit in a ring of 2p positions
with the same distances, and the ring's organ pipe lies on an arc where
ring and line distances agree, so it is a line placement and the least.
``tests/ksubset/test_ring.py`` checks it against every placement on rings
of up to 9 positions and against the line's dynamic programme (some
optimal order is unimodal).

The partition score.  For k points of a p x q machine with column counts
c (multiset lambda) and row counts r, ``W = W_x(c) + W_y(r)``;
``W_x(c) >= arr_x(lambda)``, and ``W_y(r) >= arr_y(lambda')``: r is
majorised by the conjugate lambda' (Gale-Ryser), and arr is Schur-concave
in any metric.  (Moving t points from position a to position b changes the
cost by a concave quadratic in t, ``-t^2 d(a, b)`` plus a linear term; so
for r_a >= r_b >= 1 the two vectors that hold r_a + 1 and r_b - 1 at a and
b, or at b and a, are t = -1 and t = r_a - r_b + 1, on either side of
t = 0, and one of them costs at most r: every step of points from a count
to a count at least as large, which leads from r to lambda', costs
nothing.)  So ``arr_x(lambda) + arr_y(lambda')`` bounds every set whose
column counts form lambda, on meshes and tori alike; on a machine with
every node free it is attained (columns in organ-pipe order of lambda,
rows in that of lambda', column i filled from the rows with the most
points), so the least score over the partitions is the optimum there.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ._box import _ascending_parts, _conjugate_ascending, _partition_counts, partition_count

__all__ = ["PARTITIONS", "axis_costs", "free_grid", "idle_optimum", "listable", "organ_distances", "organ_places", "partition_bound", "scored_partitions", "staircase"]

#: partitions of k up to which they are listed and scored
PARTITIONS = 200_000


def listable(k: int, p: int, q: int) -> bool:
    """Whether the partitions of k into at most p parts of at most q, and
    those into at most q parts of at most p, number at most ``PARTITIONS``."""
    return max(partition_count(k, min(k, q), min(k, p)), partition_count(k, min(k, p), min(k, q))) <= PARTITIONS


def _offsets(n: int) -> np.ndarray:
    """The organ-pipe places 0, 1, -1, 2, -2, ... of the n largest counts."""
    a = np.arange(n, dtype=np.int64)
    return np.where(a % 2 == 1, (a + 1) // 2, -(a // 2))


def organ_places(side: int) -> np.ndarray:
    """The organ-pipe places of the ``side`` counts on a ring of ``side``
    positions, as positions 0..side-1 (0, 1, side-1, 2, side-2, ...)."""
    return _offsets(side) % side


def organ_distances(side: int, wrap: bool) -> np.ndarray:
    """D[a, b]: the distance between the organ-pipe places of the a-th and
    b-th largest counts on an axis of ``side`` positions (a ring where
    ``wrap``)."""
    off = _offsets(side)
    d = np.abs(off[:, None] - off[None, :])
    return np.minimum(d, side - d) if wrap else d


def axis_costs(desc: np.ndarray, side: int, wrap: bool) -> np.ndarray:
    """arr of each row of ``desc`` (counts in descending order, zero-padded,
    at most ``side`` nonzero) on an axis of ``side`` positions (a ring
    where ``wrap``)."""
    desc = np.asarray(desc, dtype=np.int64)[:, :side]
    D = organ_distances(side, wrap)[: desc.shape[1], : desc.shape[1]]
    return ((desc @ D) * desc).sum(axis=1) // 2


def scored_partitions(k: int, capx: np.ndarray, q: int, wrap: tuple[bool, bool]):
    """The partitions lambda of k that may be the column counts of k free
    cells of a machine with ``q`` rows (the i-th largest part at most the i-th largest column
    capacity), in score order.  (The conjugate lambda' is not checked
    against the rows: the row counts of a set are majorised by lambda', not
    equal to it.)

    Returns ``(counts, score, score_y)``: multiplicity vectors
    (``counts[:, v - 1]`` parts equal to v), ``arr_x(lambda) +
    arr_y(lambda')`` and the ``arr_y(lambda')`` part, sorted by score.
    """
    capx = np.sort(np.asarray(capx, dtype=np.int64))[::-1]
    p = len(capx)
    max_part = int(min(k, capx[0] if p else 0, q))
    max_parts = int(min(k, (capx > 0).sum()))
    empty = np.zeros((0, max(max_part, 1)), dtype=np.int64)
    if max_part < 1 or max_parts < 1 or max_part * max_parts < k:
        return empty, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    counts = _partition_counts(k, max_part, max_parts)
    parts = _ascending_parts(counts, max_parts)[:, ::-1]  # descending, zero-padded
    rows = _conjugate_ascending(counts)[:, ::-1]  # lambda', descending
    fits = (parts <= capx[None, :max_parts]).all(axis=1)
    counts, parts, rows = counts[fits], parts[fits], rows[fits]
    if not len(counts):
        return counts, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    score_y = axis_costs(rows, q, wrap[1])
    score = axis_costs(parts, p, wrap[0]) + score_y
    order = np.argsort(score, kind="stable")
    return counts[order], score[order], score_y[order]


def partition_bound(free: np.ndarray, k: int, wrap: tuple[bool, bool]) -> float:
    """The least score over the partitions that fit the columns of the free
    cells ``free`` (a p x q boolean grid), and over those that fit its rows
    (the same argument with the axes swapped): a lower bound on the least W
    of k free cells, for the distance that is the sum of the two axes'
    distances (unit steps; a ring where ``wrap``).  Infinity when no k cells
    fit; minus infinity (no bound) beyond ``PARTITIONS`` partitions."""
    free = np.asarray(free, dtype=bool)
    best = -np.inf
    if not listable(k, *free.shape):
        return best
    for grid, axes in ((free, wrap), (free.T, wrap[::-1])):
        _, score, _ = scored_partitions(k, grid.sum(axis=1), grid.shape[1], axes)
        best = max(best, float(score[0]) if len(score) else np.inf)
    return best


def free_grid(coords, shape) -> np.ndarray:
    """free[x, y]: a node at (x, y) among the integer 2D ``coords``."""
    cells = np.asarray(coords).astype(np.int64)
    free = np.zeros(tuple(int(s) for s in shape), dtype=bool)
    free[cells[:, 0], cells[:, 1]] = True
    return free


def _order(desc: np.ndarray, side: int, wrap: bool) -> np.ndarray:
    """Positions for the descending counts ``desc``: the organ pipe."""
    off = _offsets(int((desc > 0).sum()))
    return off % side if wrap else off - off.min()


@lru_cache(maxsize=256)
def idle_optimum(k: int, shape: tuple[int, int], wrap: tuple[bool, bool]):
    """The optimum of k nodes of an idle ``shape`` machine and the cells of
    a set attaining it (the staircase of the best partition, read only), or
    None beyond ``PARTITIONS`` partitions.  Idle states recur along a trace,
    hence the cache."""
    if not listable(k, *shape):
        return None
    counts, score, _ = scored_partitions(k, np.full(shape[0], shape[1]), shape[1], wrap)
    cells = staircase(counts[0], shape, wrap)
    cells.flags.writeable = False
    return float(score[0]), cells


def staircase(counts: np.ndarray, shape, wrap: tuple[bool, bool]) -> np.ndarray:
    """The cells (x, y) of a set of cells of an idle ``shape`` machine
    whose column counts are the partition ``counts`` (multiplicities) and
    whose W is that partition's score: columns in organ-pipe order of
    lambda, rows in organ-pipe order of lambda', column i filled from the
    rows with the most points."""
    p, q = (int(s) for s in shape)
    parts = _ascending_parts(np.asarray(counts)[None], p)[0, ::-1]
    rows = _conjugate_ascending(np.asarray(counts)[None])[0, ::-1]
    cols = _order(parts, p, wrap[0])
    ypos = _order(rows, q, wrap[1])
    return np.array([(cols[i], ypos[t]) for i in range(len(cols)) for t in range(parts[i])], dtype=np.int64)
