"""One-dimensional processor allocation over an ordering of a machine.

The nodes of a machine are ranked along an ordering (row-major, snake,
Hilbert curve, ...): rank r is row r of ``order``.  A job of k processors
is given k of the free nodes, chosen by looking at their ranks only
(Leung et al. 2002, sec. 2; SAND2003-3702, sec. 4.3).  A *run* is a
maximal interval of consecutive free ranks; with ``ring=True`` rank N - 1
is followed by rank 0, so a run may wrap around the end of the order.

Strategies
----------
free-list
    Paging, the Cplant 1.9 default: the k free nodes of smallest rank,
    contiguous or not (Leung et al. 2002, sec. 2.1).
first-fit
    The first run (lowest starting rank) of at least k free ranks.
best-fit
    The run of at least k free ranks that leaves the fewest free ranks
    behind, i.e. the shortest such run.
sum-of-squares
    The run of at least k free ranks after whose use the count vector
    N(i) (number of runs of length i) has the least sum of squares.

The three fit strategies take the first k ranks of the chosen run.  When
no run holds k ranks, they all give the allocation of minimum span, ties
to the smallest starting rank (Leung et al. 2002, sec. 2.3).  None of the
strategies has a worst-case guarantee on W or on span: minimising the sum
or the maximum of spans is NP-hard offline and no online algorithm is
better than Omega(n)-competitive for the maximum span (SAND2003-3702,
sec. 4.6), so ``guarantee`` and ``bound`` are None.

Every allocator returns the :class:`~optalloc.Result` of the project (the
objective is W, the sum of pairwise L1 distances of the chosen points), so
1D allocators can be compared with the k-subset methods on the same free
set; ``extra`` holds the 1D view (ranks, span, contiguity, run used).

:class:`Ordering1D` keeps the coordinate-to-rank index of an order, so a
simulator that allocates many times on one machine builds it once;
:func:`allocate_ranks` works on ranks directly, without coordinates.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np

from ..ksubset._common import as_int, make_result, validate_k, validate_points

__all__ = [
    "STRATEGIES",
    "Allocation1D",
    "Ordering1D",
    "allocate_1d",
    "allocate_ranks",
    "best_fit",
    "first_fit",
    "free_list",
    "span",
    "sum_of_squares",
]

# A direct cell -> rank table is used when the bounding grid of `order`
# has at most max(_DENSE_MIN, _DENSE_FACTOR * N) cells.
_DENSE_MIN = 1 << 16
_DENSE_FACTOR = 8

#: Names accepted by ``strategy``.
STRATEGIES = ("free-list", "first-fit", "best-fit", "sum-of-squares")


class Allocation1D(NamedTuple):
    """Ranks chosen by a 1D strategy (see :func:`allocate_ranks`).

    Attributes
    ----------
    ranks : numpy.ndarray
        The k chosen ranks, sorted increasingly.
    positions : numpy.ndarray
        Positions of the chosen ranks in the sorted free ranks, in the same
        order as ``ranks``.
    start : int
        The rank the allocation starts at: the first rank of the run used,
        or the first rank of the minimum-span window; with ``ring=True``
        it may be larger than other chosen ranks when the allocation wraps.
    span : int
        Span of ``ranks`` (ring span when ``ring=True``, else linear).
    contiguous : bool
        True when the chosen ranks are consecutive (around the ring when
        ``ring=True``), i.e. ``span == k``.
    fallback : bool
        True when no run held k ranks and the minimum-span rule was used.
    run_length : int or None
        Length of the run used by a fit strategy, else None.
    """

    ranks: np.ndarray
    positions: np.ndarray
    start: int
    span: int
    contiguous: bool
    fallback: bool
    run_length: int | None


# ---------------------------------------------------------------------------
# Validation and the coordinate -> rank index


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


def _validate_strategy(strategy) -> str:
    if strategy not in STRATEGIES:
        valid = ", ".join(repr(s) for s in STRATEGIES)
        raise ValueError(f"`strategy` must be one of {valid}, got {strategy!r}")
    return strategy


class Ordering1D:
    """An ordering of the nodes of a machine, indexed for 1D allocation.

    Building it validates ``order`` and indexes its coordinates once;
    afterwards each allocation maps its n free points to ranks in
    O(d n log N), instead of the O(d N log N) a plain array ``order``
    costs on every call.  Any allocator of this module accepts an
    ``Ordering1D`` as ``order``; build one per machine and ordering.

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
    >>> from optalloc.curves._alloc1d import Ordering1D
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

        Same as :func:`allocate_1d` with ``order=self``.
        """
        return allocate_1d(points, k, order=self, strategy=strategy, ring=ring)

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


def _validate_ranks(ranks, n_ranks, *, name="ranks") -> tuple[np.ndarray, int]:
    n_ranks = as_int(n_ranks, "n_ranks")
    if n_ranks < 1:
        raise ValueError(f"`n_ranks` must be at least 1, got {n_ranks}")
    arr = np.asarray(ranks)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be a 1-D array of ranks, got {arr.ndim} dimensions")
    if arr.size == 0:
        raise ValueError(f"`{name}` is empty")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"`{name}` must hold integers, got {arr.dtype} values")
    arr = arr.astype(np.int64)
    bad = np.flatnonzero((arr < 0) | (arr >= n_ranks))
    if len(bad):
        raise ValueError(f"`{name}` must lie in [0, n_ranks - 1] = [0, {n_ranks - 1}], got {int(arr[bad[0]])}")
    return arr, n_ranks


# ---------------------------------------------------------------------------
# Span


def _span_sorted(r: np.ndarray, n_ranks: int, ring: bool) -> int:
    """Span of sorted distinct ranks ``r`` (see :func:`span`)."""
    if not ring:
        return int(r[-1] - r[0] + 1)
    # Leung et al. 2002 sec. 2.3: N minus the longest stretch of ranks
    # without a chosen one, the wrap-around stretch included.
    inner = int(np.max(np.diff(r))) - 1 if len(r) > 1 else 0
    outer = n_ranks - 1 - int(r[-1]) + int(r[0])
    return n_ranks - max(inner, outer)


def span(ranks, n_ranks, *, ring=False) -> int:
    """Linear or ring span of a set of ranks.

    The linear span is the number of ranks from the smallest chosen rank
    to the largest, both included: ``max - min + 1``.  The ring span is
    the number of ranks of the shortest arc of the ring of ``n_ranks``
    ranks (rank ``n_ranks - 1`` followed by rank 0) that covers every
    chosen rank.  Both count the chosen nodes plus those trapped between
    them, so a set of k consecutive ranks has span k.

    Parameters
    ----------
    ranks : array_like of int, shape (k,)
        Ranks in ``[0, n_ranks - 1]``, in any order; repeats are ignored.
    n_ranks : int
        N, the number of ranks of the machine.
    ring : bool, optional
        Measure around the ring instead of along the line.

    Returns
    -------
    int
        The span, between ``len(set(ranks))`` and ``n_ranks``.

    Raises
    ------
    ValueError
        If ``ranks`` is empty, not integral or out of range, or
        ``n_ranks`` is not a positive integer.

    Notes
    -----
    O(k log k) time.  Ranks here start at 0; the papers number them from
    1, which changes no span.  The ring span is computed, as in the paper,
    as N minus the longest gap of unchosen ranks around the ring.

    References
    ----------
    V. J. Leung et al., "Processor allocation on Cplant: achieving general
    processor locality using one-dimensional allocation strategies",
    IEEE Cluster 2002, sec. 2.3 (linear span s^l and ring span s^w).

    Examples
    --------
    >>> from optalloc.curves._alloc1d import span
    >>> span([2, 3, 4], 10)
    3
    >>> span([0, 1, 9], 10), span([0, 1, 9], 10, ring=True)
    (10, 3)
    """
    arr, n_ranks = _validate_ranks(ranks, n_ranks)
    return _span_sorted(np.unique(arr), n_ranks, bool(ring))


# ---------------------------------------------------------------------------
# Runs and the strategies, on sorted free ranks


def _runs(r: np.ndarray, n_ranks: int, ring: bool):
    """Maximal runs of consecutive free ranks, sorted by first rank.

    Returns (first position in ``r``, length) per run.  With ``ring`` the
    run ending at rank N - 1 and the run starting at rank 0 are one run,
    which starts at the former's first rank; a fully free ring is one run
    starting at rank 0.
    """
    n = len(r)
    breaks = np.flatnonzero(np.diff(r) != 1)
    first = np.concatenate(([0], breaks + 1))
    length = np.diff(np.concatenate((first, [n])))
    if ring and len(first) > 1 and r[0] == 0 and r[-1] == n_ranks - 1:
        length[-1] += length[0]
        first, length = first[1:], length[1:]
    return first, length


def _min_span_window(r: np.ndarray, k: int, n_ranks: int, ring: bool) -> int:
    """Position in ``r`` of the first rank of the minimum-span window.

    Leung et al. 2002 sec. 2.3: minimum span, ties to the smallest
    starting rank.  An optimal set is always k consecutive free ranks (in
    sorted order, cyclically when ``ring``), so only those n windows are
    compared; ``argmin`` returns the first, i.e. smallest start, of ties.
    """
    n = len(r)
    if not ring:
        return int(np.argmin(r[k - 1 :] - r[: n - k + 1]))
    ext = np.concatenate((r, r[: k - 1] + n_ranks))
    return int(np.argmin(ext[k - 1 : k - 1 + n] - r))


def _pick_run(first, length, k, strategy) -> int | None:
    """Index of the run chosen by a fit strategy, or None when none fits."""
    fits = length >= k
    if not fits.any():
        return None
    if strategy == "first-fit":
        # Leung et al. 2002 sec. 2.3: the first interval large enough.
        return int(np.argmax(fits))
    if strategy == "best-fit":
        # Fewest free ranks left in the interval = shortest fitting run;
        # argmin keeps the lowest start among equal lengths.
        return int(np.argmin(np.where(fits, length, np.iinfo(np.int64).max)))
    # sum-of-squares.  Leung et al. 2002 sec. 2.3 (after Csirik et al.'s
    # bin-packing rule): N(i) = number of free runs of length i after the
    # allocation; choose the run that minimises sum_i N(i)^2.  Using a run
    # of length L moves one run from N(L) to N(L - k) (nowhere if L = k).
    counts = np.bincount(length)
    total = int(np.dot(counts, counts))
    rest = length - k
    after = (
        total
        - 2 * counts[length]
        + 1
        + np.where(rest > 0, 2 * counts[np.maximum(rest, 0)] + 1, 0)
    )
    return int(np.argmin(np.where(fits, after, np.iinfo(np.int64).max)))


def _choose(r: np.ndarray, k: int, n_ranks: int, strategy: str, ring: bool) -> Allocation1D:
    """The core: ``r`` sorted distinct free ranks, ``1 <= k <= len(r)``."""
    n = len(r)
    run_length = None
    fallback = False
    if strategy == "free-list":
        # Leung et al. 2002 sec. 2.1: the first k entries of the sorted free list.
        pos = np.arange(k)
    else:
        first, length = _runs(r, n_ranks, ring)
        j = _pick_run(first, length, k, strategy)
        if j is None:
            fallback = True
            p0 = _min_span_window(r, k, n_ranks, ring)
        else:
            p0, run_length = int(first[j]), int(length[j])
        pos = np.arange(p0, p0 + k)
        if ring:
            pos %= n
    start = int(r[pos[0]])
    pos = np.sort(pos)
    ranks = r[pos]
    s = _span_sorted(ranks, n_ranks, ring)
    return Allocation1D(ranks, pos, start, s, s == k, fallback, run_length)


def allocate_ranks(free_ranks, k, n_ranks, *, strategy="best-fit", ring=False) -> Allocation1D:
    """Choose k of the free ranks with a 1D strategy (no coordinates).

    The rank-level core of every allocator of this module, for callers
    that keep the free nodes as ranks.

    Parameters
    ----------
    free_ranks : array_like of int, shape (n,)
        Distinct free ranks in ``[0, n_ranks - 1]``, in any order.
    k : int
        Number of ranks to allocate, ``1 <= k <= n``.
    n_ranks : int
        N, the number of ranks of the machine (the ring length).
    strategy : {"best-fit", "first-fit", "sum-of-squares", "free-list"}, optional
        The rule for choosing among runs; see :func:`allocate_1d`.
    ring : bool, optional
        Rank N - 1 is adjacent to rank 0: runs and minimum-span windows
        may wrap, and spans are ring spans.

    Returns
    -------
    Allocation1D
        The chosen ranks (sorted), their positions in the sorted free
        ranks, start rank, span, contiguity, whether the minimum-span
        fallback was used, and the length of the run used.

    Raises
    ------
    ValueError
        On an unknown ``strategy``, ranks that are repeated, not integers
        or out of range, or ``k`` out of range.

    Notes
    -----
    O(n log n) time (the sort of the free ranks), O(n) after sorting;
    sum of squares adds O(n) for the run-length counts.

    Examples
    --------
    >>> from optalloc.curves._alloc1d import allocate_ranks
    >>> a = allocate_ranks([0, 1, 4, 5, 6, 9], 2, 10, strategy="best-fit")
    >>> a.ranks.tolist(), a.start, a.run_length, a.contiguous
    ([0, 1], 0, 2, True)
    >>> a = allocate_ranks([0, 1, 4, 5, 6, 7, 9], 3, 10, ring=True)
    >>> a.ranks.tolist(), a.start, a.span, a.run_length
    ([0, 1, 9], 9, 3, 3)
    """
    strategy = _validate_strategy(strategy)
    arr, n_ranks = _validate_ranks(free_ranks, n_ranks, name="free_ranks")
    r = np.sort(arr)
    dup = np.flatnonzero(r[1:] == r[:-1])
    if len(dup):
        raise ValueError(f"`free_ranks` must be distinct; rank {int(r[dup[0]])} is repeated")
    k = validate_k(k, len(r))
    return _choose(r, k, n_ranks, strategy, bool(ring))


# ---------------------------------------------------------------------------
# Public allocators on coordinates


def allocate_1d(points, k, *, order, strategy="best-fit", ring=False):
    """Allocate k free processors by a 1D strategy over an ordering.

    Parameters
    ----------
    points : array_like, shape (n, d) or (n,)
        The free processors, distinct nodes of ``order``.
    k : int
        Number of processors of the job, ``1 <= k <= n``.
    order : array_like, shape (N, d), or Ordering1D
        Node coordinates in visiting order (row r has rank r), e.g. a
        snake or Hilbert order.  Pass an :class:`Ordering1D` to reuse its
        index over many calls.
    strategy : {"best-fit", "first-fit", "sum-of-squares", "free-list"}, optional
        ``"free-list"``: the k free nodes of smallest rank.
        ``"first-fit"``: the first run (lowest first rank) of at least k
        free ranks.  ``"best-fit"``: the shortest such run, ties to the
        lowest first rank.  ``"sum-of-squares"``: the run after whose use
        the number N(i) of free runs of each length i has the least
        ``sum_i N(i)**2``, ties to the lowest first rank.  Fit strategies
        take the first k ranks of the run; when no run is long enough
        they take the k free ranks of minimum span, ties to the smallest
        starting rank.
    ring : bool, optional
        Treat the order as a ring (rank N - 1 next to rank 0): runs and
        minimum-span windows may wrap, and spans are ring spans.

    Returns
    -------
    Result
        ``indices`` are rows of ``points``; ``objective`` is W of the
        chosen points; ``method`` is the strategy; ``guarantee`` and
        ``bound`` are None and ``status`` is ``"feasible"``.
        ``extra`` holds ``ranks`` (sorted chosen ranks), ``start`` (rank
        the allocation starts at), ``span`` (ring span if ``ring``, else
        linear), ``linear_span``, ``ring_span``, ``contiguous``
        (``span == k``), ``fallback`` (minimum-span rule used),
        ``run_length`` (run used, or None), ``strategy``, ``ring`` and
        ``n_ranks``.

    Raises
    ------
    ValueError
        On an unknown ``strategy`` (the message lists the valid names),
        ``order`` not of shape (N, d) or with repeated rows, ``points``
        of another dimension, repeated or not nodes of ``order``, or
        ``k`` out of range.

    Notes
    -----
    Per call: O(d n log N) to find the ranks of the points (O(d n) on
    an integer mesh), O(n log n) to sort them (O(N + n) when N is at most
    8 n + 65536), O(n) for the runs, the strategy and the minimum-span
    window, and O(d k log k) for W.  An array ``order`` is indexed anew
    on each call, O(d N log N) more; an :class:`Ordering1D` is not.

    References
    ----------
    V. J. Leung, E. M. Arkin, M. A. Bender, D. Bunde, J. Johnston, A. Lal,
    J. S. B. Mitchell, C. Phillips and S. S. Seiden, "Processor allocation
    on Cplant: achieving general processor locality using one-dimensional
    allocation strategies", IEEE Cluster 2002, sec. 2.
    SAND2003-3702, "Algorithmic support for commodity-based parallel
    computing systems", sec. 4.3.

    Examples
    --------
    Six nodes in a row, ranks 0..5; nodes 0, 1, 3, 4, 5 are free.

    >>> from optalloc.curves._alloc1d import allocate_1d
    >>> order = [[0], [1], [2], [3], [4], [5]]
    >>> free = [[5], [0], [1], [3], [4]]
    >>> allocate_1d(free, 2, order=order, strategy="first-fit").extra["ranks"].tolist()
    [0, 1]
    >>> allocate_1d(free, 3, order=order).extra["ranks"].tolist()
    [3, 4, 5]
    >>> r = allocate_1d(free, 4, order=order)   # no run of 4: minimum span
    >>> r.extra["ranks"].tolist(), r.extra["span"], r.extra["fallback"]
    ([0, 1, 3, 4], 5, True)
    >>> r.indices.tolist(), r.objective
    ([1, 2, 3, 4], 14.0)
    """
    t0 = time.perf_counter()
    strategy = _validate_strategy(strategy)
    ordering = _as_ordering(order)
    pts, r, by_rank = ordering._free_ranks(points)
    k = validate_k(k, len(r))
    ring = bool(ring)
    a = _choose(r, k, ordering.n_ranks, strategy, ring)
    n_ranks = ordering.n_ranks
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
    return make_result(pts, by_rank[a.positions], method=strategy, start=t0, message=message, extra=extra)


def free_list(points, k, *, order, ring=False):
    """Paging: the k free processors of smallest rank.

    The Cplant 1.9 default allocator: the free list sorted by rank and its
    first k entries, whether contiguous or not.  ``ring`` changes only how
    the span in ``extra`` is measured.  Parameters, returns and errors are
    those of :func:`allocate_1d` with ``strategy="free-list"``.

    Notes
    -----
    As for :func:`allocate_1d`.

    References
    ----------
    Leung et al. 2002, sec. 2.1.

    Examples
    --------
    >>> from optalloc.curves._alloc1d import free_list
    >>> order = [[0], [1], [2], [3], [4], [5]]
    >>> r = free_list([[5], [0], [3], [4]], 2, order=order)
    >>> r.extra["ranks"].tolist(), r.extra["contiguous"], r.extra["span"]
    ([0, 3], False, 4)
    """
    return allocate_1d(points, k, order=order, strategy="free-list", ring=ring)


def first_fit(points, k, *, order, ring=False):
    """First fit: the first run (lowest first rank) of at least k free ranks.

    Takes the first k ranks of that run; with no such run, the k free
    ranks of minimum span, ties to the smallest starting rank.  With
    ``ring=True`` a run may wrap from rank N - 1 to rank 0; it then starts
    at its first rank before the wrap, so it is the last run considered.
    Parameters, returns and errors are those of :func:`allocate_1d` with
    ``strategy="first-fit"``.

    Notes
    -----
    As for :func:`allocate_1d`.

    References
    ----------
    Leung et al. 2002, sec. 2.3; SAND2003-3702, sec. 4.3.

    Examples
    --------
    >>> from optalloc.curves._alloc1d import first_fit
    >>> order = [[x] for x in range(10)]
    >>> free = [[0], [1], [2], [4], [5], [7], [8], [9]]
    >>> first_fit(free, 2, order=order).extra["ranks"].tolist()
    [0, 1]
    """
    return allocate_1d(points, k, order=order, strategy="first-fit", ring=ring)


def best_fit(points, k, *, order, ring=False):
    """Best fit: the shortest run of at least k free ranks.

    The run that leaves the fewest free ranks unallocated in it, ties to
    the lowest first rank; takes its first k ranks.  With no such run, the
    k free ranks of minimum span, ties to the smallest starting rank.
    Parameters, returns and errors are those of :func:`allocate_1d` with
    ``strategy="best-fit"``.

    Notes
    -----
    As for :func:`allocate_1d`.

    References
    ----------
    Leung et al. 2002, sec. 2.3; SAND2003-3702, sec. 4.3.

    Examples
    --------
    >>> from optalloc.curves._alloc1d import best_fit
    >>> order = [[x] for x in range(10)]
    >>> free = [[0], [1], [2], [4], [5], [7], [8], [9]]
    >>> best_fit(free, 2, order=order).extra["ranks"].tolist()
    [4, 5]
    """
    return allocate_1d(points, k, order=order, strategy="best-fit", ring=ring)


def sum_of_squares(points, k, *, order, ring=False):
    """Sum of squares: keep the multiset of free-run lengths varied.

    For each run of at least k free ranks, count N(i), the number of free
    runs of length i that would remain if the job took the first k ranks
    of that run (the run shrinks to length L - k, or disappears when
    L = k); choose the run minimising ``sum_i N(i)**2``, ties to the
    lowest first rank.  With no such run, the k free ranks of minimum
    span, ties to the smallest starting rank.  Parameters, returns and
    errors are those of :func:`allocate_1d` with
    ``strategy="sum-of-squares"``; ``extra`` also reports the span etc.

    Notes
    -----
    As for :func:`allocate_1d`; the
    change of ``sum N(i)**2`` is evaluated for all runs at once in O(n).

    The rule minimises the sum of squares of the *counts* N(i), as in the
    bin-packing algorithm of Csirik et al. that the paper adapts; it is
    not the sum of squares of the run lengths.

    References
    ----------
    Leung et al. 2002, sec. 2.3; SAND2003-3702, sec. 4.3.
    J. Csirik, D. S. Johnson, C. Kenyon, P. W. Shor and R. R. Weber, "A
    self-organizing bin packing heuristic", ALENEX 1999, LNCS 1619.

    Examples
    --------
    Free runs of lengths 6, 3, 4 and 1 (ranks 0-5, 7-9, 11-14, 16):
    taking 2 from the run of 4 leaves lengths 6, 3, 2, 1, all different.

    >>> from optalloc.curves._alloc1d import sum_of_squares
    >>> order = [[x] for x in range(20)]
    >>> free = [[x] for x in [0, 1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 14, 16]]
    >>> sum_of_squares(free, 2, order=order).extra["ranks"].tolist()
    [11, 12]
    """
    return allocate_1d(points, k, order=order, strategy="sum-of-squares", ring=ring)
