"""The 1D strategies on ranks alone: runs of free ranks, the choice of a
strategy, the minimum-span fallback, and the span of a set of ranks.

A *run* is a maximal interval of consecutive free ranks; with
``ring=True`` rank N - 1 is followed by rank 0, so a run may wrap around
the end of the order (Leung et al. 2002, sec. 2; SAND2003-3702, sec. 4.3).
:func:`allocate_ranks` chooses among free ranks directly; the allocators
on coordinates (:func:`~optalloc.curves.allocate_1d` and the named
strategies) map their points to ranks and share its core, ``_choose``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import as_int, validate_k

__all__ = ["STRATEGIES", "Allocation1D", "allocate_ranks", "span"]

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


def _validate_strategy(strategy) -> str:
    if strategy not in STRATEGIES:
        valid = ", ".join(repr(s) for s in STRATEGIES)
        raise ValueError(f"`strategy` must be one of {valid}, got {strategy!r}")
    return strategy


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
    >>> from optalloc.curves import span
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

    The rank-level core of every 1D allocator of :mod:`optalloc.curves`,
    for callers that keep the free nodes as ranks.

    Parameters
    ----------
    free_ranks : array_like of int, shape (n,)
        Distinct free ranks in ``[0, n_ranks - 1]``, in any order.
    k : int
        Number of ranks to allocate, ``1 <= k <= n``.
    n_ranks : int
        N, the number of ranks of the machine (the ring length).
    strategy : {"best-fit", "first-fit", "sum-of-squares", "free-list"}, optional
        The rule for choosing among runs; see :func:`~optalloc.curves.allocate_1d`.
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
    >>> from optalloc.curves import allocate_ranks
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
