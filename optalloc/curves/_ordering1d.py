"""The rank map of an ordering: node coordinates -> rank, built once.

The nodes of a machine are ranked along an ordering (row-major, snake,
Hilbert curve, ...): rank r is row r of ``order``.  :class:`Ordering1D`
keeps the coordinate-to-rank index of an order, so a simulator that
allocates many times on one machine builds it once; the allocators of
:mod:`optalloc.curves` accept it wherever they take an ``order``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from .._subset import subset_result
from .._validate import validate_k, validate_points
from ._ranks import _choose, _span_sorted, _validate_strategy

__all__ = ["Ordering1D"]

# A direct cell -> rank table is used when the bounding grid of `order`
# has at most max(_DENSE_MIN, _DENSE_FACTOR * N) cells.
_DENSE_MIN = 1 << 16
_DENSE_FACTOR = 8


def _row_keys(arr: np.ndarray) -> np.ndarray:
    """One opaque, sortable key per row (the row's bytes).

    ``+ 0.0`` turns -0.0 into 0.0 so equal coordinates have equal bytes.
    """
    arr = np.ascontiguousarray(arr + 0.0, dtype=np.float64)
    return arr.view(np.dtype((np.void, 8 * arr.shape[1]))).ravel()


def _axis_index(values: np.ndarray):
    """How one axis maps coordinates to 0..size-1: (lo, size, values).

    ``values`` (sorted, distinct) is kept for a binary search, or None when
    the values are integers filling most of their range, which is then
    indexed directly by ``coordinate - lo``.
    """
    lo, width = values[0], values[-1] - values[0] + 1
    if width <= 4 * len(values) + 64 and np.all(values == np.round(values)):
        return float(lo), int(width), None
    return None, len(values), values


def _first_repeat(arr: np.ndarray) -> tuple[int, int]:
    """(i, j): j is the first row equal to an earlier row, i that row."""
    _, first, inverse = np.unique(arr + 0.0, axis=0, return_index=True, return_inverse=True)
    owner = first[inverse.ravel()]
    j = int(np.flatnonzero(owner != np.arange(len(arr)))[0])
    return int(owner[j]), j


class Ordering1D:
    """An ordering of the nodes of a machine, indexed for 1D allocation.

    Building it validates ``order`` and indexes its coordinates once;
    afterwards each allocation maps its n free points to ranks in
    O(d n log N), instead of the O(d N log N) a plain array ``order``
    costs on every call.  Every 1D allocator of :mod:`optalloc.curves`
    accepts an ``Ordering1D`` as ``order``; build one per machine and
    ordering.

    Parameters
    ----------
    order : array_like, shape (N, d) or (N,)
        Node coordinates in visiting order: row r has rank r.  Rows must be
        distinct.  A 1-D array is read as N nodes on a line.

    Attributes
    ----------
    order : numpy.ndarray, shape (N, d)
        The coordinates, as float64 (read-only).
    n_ranks : int
        N, the number of nodes.
    dim : int
        d, the number of coordinates per node.

    Raises
    ------
    ValueError
        If ``order`` is not a finite (N, d) array or has repeated rows.

    Notes
    -----
    Each axis is reduced to the sorted distinct values of ``order`` on
    it, and a node is numbered by its cell in the grid those values span.
    When the nodes fill most of that grid (at most max(65536, 8 N)
    cells, as on a mesh or torus) a table cell -> rank gives each rank in
    O(1) after d binary searches; otherwise the cell numbers are sorted
    and searched.  Building takes O(d N log N) time and O(N) memory, or
    the size of the table.

    Examples
    --------
    >>> from optalloc.curves import Ordering1D
    >>> snake = Ordering1D([[0, 0], [1, 0], [2, 0], [2, 1], [1, 1], [0, 1]])
    >>> snake.n_ranks
    6
    >>> snake.ranks_of([[0, 1], [2, 1]]).tolist()
    [5, 3]
    >>> r = snake.allocate([[0, 0], [2, 0], [2, 1], [1, 1]], 2, strategy="first-fit")
    >>> r.points.tolist(), r.extra["ranks"].tolist()
    ([[2.0, 0.0], [2.0, 1.0]], [2, 3])
    """

    def __init__(self, order):
        if isinstance(order, Ordering1D):
            order = order.order
        arr = validate_points(order, name="order")
        n, d = arr.shape
        # Each axis is compressed to the sorted distinct values of `order`
        # on it (or to the integers of their range, if integral and dense);
        # a node's key is then its mixed-radix number over the axes.
        self._axes = [_axis_index(np.unique(arr[:, a])) for a in range(d)]
        sizes = [size for _, size, _ in self._axes]
        cells = math.prod(sizes)
        if cells < 2**62:
            strides = np.cumprod([1] + sizes[:0:-1])[::-1].astype(np.int64)
            self._strides = strides
            keys = self._codes(arr, check=False)
        else:  # too many cells for int64 keys: compare row bytes instead
            self._strides = None
            keys = _row_keys(arr)
        if self._strides is not None and cells <= max(_DENSE_MIN, _DENSE_FACTOR * n):
            # Few empty cells (a mesh or torus): a direct table cell -> rank.
            table = np.full(cells, -1, dtype=np.intp)
            table[keys] = np.arange(n)
            self._table = table
            repeated = np.count_nonzero(table[keys] != np.arange(n))
        else:
            self._table = None
            sorter = np.argsort(keys, kind="stable")
            self._keys, self._sorter = keys[sorter], sorter.astype(np.intp)
            repeated = np.count_nonzero(self._keys[1:] == self._keys[:-1])
        if repeated:
            i, j = _first_repeat(arr)
            raise ValueError(f"`order` must have distinct rows; row {j} repeats row {i}, {arr[i].tolist()}")
        arr.setflags(write=False)
        self.order = arr
        self.n_ranks = int(n)
        self.dim = int(d)

    def __repr__(self) -> str:
        return f"Ordering1D(n_ranks={self.n_ranks}, dim={self.dim})"

    def __len__(self) -> int:
        return self.n_ranks

    def ranks_of(self, points) -> np.ndarray:
        """Rank of each row of ``points`` (an int array, in input order).

        Raises ValueError when ``points`` has the wrong number of
        coordinates or a row that is not a node of the order.  Repeated
        points are allowed here (allocators reject them).
        """
        pts = self._validate_points(points)
        return self._lookup(pts)

    def allocate(self, points, k, *, strategy="best-fit", ring=False):
        """Allocate k of the free ``points`` with a 1D strategy.

        Same as :func:`~optalloc.curves.allocate_1d` with ``order=self``.
        """
        t0 = time.perf_counter()
        strategy = _validate_strategy(strategy)
        pts, r, by_rank = self._free_ranks(points)
        k = validate_k(k, len(r))
        ring = bool(ring)
        n_ranks = self.n_ranks
        a = _choose(r, k, n_ranks, strategy, ring)
        lin = int(a.ranks[-1] - a.ranks[0] + 1)
        rin = _span_sorted(a.ranks, n_ranks, True)
        if a.fallback:
            how = f"no run of {k} free ranks; minimum-span allocation"
        elif a.run_length is not None:
            how = f"run of {a.run_length} free ranks"
        else:
            how = "first free ranks"
        extra = {
            "ranks": a.ranks,
            "start": a.start,
            "span": a.span,
            "linear_span": lin,
            "ring_span": rin,
            "contiguous": bool(a.contiguous),
            "fallback": a.fallback,
            "run_length": a.run_length,
            "strategy": strategy,
            "ring": ring,
            "n_ranks": n_ranks,
        }
        message = f"{strategy}: {how} starting at rank {a.start}, span {a.span}"
        return subset_result(pts, by_rank[a.positions], method=strategy, start=t0, message=message, extra=extra)

    # -- internals ---------------------------------------------------------

    def _validate_points(self, points) -> np.ndarray:
        pts = validate_points(points)
        if pts.shape[1] != self.dim:
            raise ValueError(
                f"`points` must have {self.dim} coordinate(s) per point like `order`, got {pts.shape[1]}"
            )
        return pts

    def _codes(self, pts: np.ndarray, *, check: bool = True) -> np.ndarray:
        """Mixed-radix cell number of each row; -1 where a coordinate is
        not a value of `order` on its axis (only with ``check``)."""
        codes = np.zeros(len(pts), dtype=np.int64)
        ok = np.ones(len(pts), dtype=bool)
        for a, (lo, size, values) in enumerate(self._axes):
            if values is None:  # integer axis: index = coordinate - lo
                x = np.clip(pts[:, a] - lo, -1, size)
                pos = x.astype(np.int64)
                if check:
                    ok &= (pos == x) & (pos >= 0) & (pos < size)
            else:
                pos = np.searchsorted(values, pts[:, a])
                if check:
                    np.minimum(pos, size - 1, out=pos)
                    ok &= values[pos] == pts[:, a]
            codes += pos * self._strides[a]
        codes[~ok] = -1
        return codes

    def _lookup(self, pts: np.ndarray) -> np.ndarray:
        if self._strides is None:
            keys = _row_keys(pts)
        else:
            keys = self._codes(pts)
        if self._table is not None:
            ranks = self._table[keys]
            ranks[keys < 0] = -1
            missing = np.flatnonzero(ranks < 0)
        else:
            pos = np.searchsorted(self._keys, keys)
            np.minimum(pos, self.n_ranks - 1, out=pos)
            missing = np.flatnonzero(self._keys[pos] != keys)
            ranks = self._sorter[pos]
        if len(missing):
            i = int(missing[0])
            raise ValueError(f"`points` row {i}, {pts[i].tolist()}, is not a node of `order`")
        return ranks

    def _free_ranks(self, points):
        """Validated points, their ranks, and the argsort of the ranks."""
        pts = self._validate_points(points)
        ranks = self._lookup(pts)
        n = len(ranks)
        if self.n_ranks <= _DENSE_FACTOR * n + _DENSE_MIN:
            # Sort by marking the ranks in an array of N slots: O(N + n).
            slot = np.full(self.n_ranks, -1, dtype=np.intp)
            slot[ranks] = np.arange(n)
            sorted_ranks = np.flatnonzero(slot >= 0)
            by_rank = slot[sorted_ranks]
            repeated = len(sorted_ranks) < n
        else:
            by_rank = np.argsort(ranks, kind="stable")
            sorted_ranks = ranks[by_rank]
            repeated = np.any(sorted_ranks[1:] == sorted_ranks[:-1])
        if repeated:
            i, j = _first_repeat(pts)
            raise ValueError(f"`points` must be distinct; row {j} repeats row {i}, {pts[i].tolist()}")
        return pts, sorted_ranks, by_rank


def _as_ordering(order) -> Ordering1D:
    return order if isinstance(order, Ordering1D) else Ordering1D(order)

