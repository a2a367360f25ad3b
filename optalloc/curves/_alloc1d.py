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

Every allocator returns the :class:`~optalloc.SubsetResult` of the
k-subset methods (the objective is W, the sum of pairwise L1 distances of
the chosen points), so 1D allocators can be compared with them on the
same free set; ``extra`` holds the 1D view (ranks, span, contiguity, run
used).

The rank map of an order is :class:`~optalloc.curves.Ordering1D`
(module ``_ordering1d``); the strategies on ranks alone, the runs and the
span are in module ``_ranks`` (:func:`~optalloc.curves.allocate_ranks`).
"""

from __future__ import annotations

from ._ordering1d import _as_ordering

__all__ = ["allocate_1d", "best_fit", "first_fit", "free_list", "sum_of_squares"]


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
    SubsetResult
        ``indices`` are rows of ``points``; ``objective`` is W of the
        chosen points; ``method`` is the strategy; ``guarantee`` and
        ``bound`` are None, ``status`` is ``"feasible"`` and
        ``termination`` ``"completed"``.
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

    >>> from optalloc.curves import allocate_1d
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
    return _as_ordering(order).allocate(points, k, strategy=strategy, ring=ring)


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
    >>> from optalloc.curves import free_list
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
    >>> from optalloc.curves import first_fit
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
    >>> from optalloc.curves import best_fit
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

    >>> from optalloc.curves import sum_of_squares
    >>> order = [[x] for x in range(20)]
    >>> free = [[x] for x in [0, 1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 14, 16]]
    >>> sum_of_squares(free, 2, order=order).extra["ranks"].tolist()
    [11, 12]
    """
    return allocate_1d(points, k, order=order, strategy="sum-of-squares", ring=ring)
