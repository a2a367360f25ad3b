"""Communication patterns: task-by-task byte matrices for tests and demos.

Every generator returns an (n, n) float matrix W, ``W[i, j]`` the bytes
task i sends to task j, with a zero diagonal: a dense array, or with
``sparse=True`` a scipy.sparse CSR matrix (memory O(messages), for jobs
of thousands of tasks). Tasks on a grid are numbered
like the nodes of a :class:`~optalloc.machine.Machine`: task (x, y, z) is
``x + W * (y + H * z)``, so the identity mapping puts a stencil's tasks on
the matching mesh or torus nodes.

stencil
    2-D five-point / 3-D seven-point halo exchange (the virtual topology
    of BT, LU, SP in Pascual et al. sec. 6).
ring
    Each task talks to its two ring neighbours.
all_to_all
    Every task talks to every other (FT, IS in Pascual et al. sec. 6).
transpose
    Task (x, y) exchanges with task (y, x) on a square grid.
random_sparse
    Random symmetric pairs with random volumes (seeded).
"""

from __future__ import annotations

import math
import operator

import numpy as np

__all__ = ["PATTERNS", "all_to_all", "parse_pattern", "random_sparse", "ring", "stencil", "transpose"]

#: Names understood by :func:`parse_pattern`.
PATTERNS = ("stencil", "ring", "all-to-all", "transpose", "random")


def _validate_shape(shape) -> tuple[int, ...]:
    """``shape`` as a non-empty tuple of positive ints (an int means one axis)."""
    try:
        sides = (operator.index(shape),)
    except TypeError:
        try:
            sides = tuple(operator.index(s) for s in shape)
        except TypeError:
            raise ValueError(f"`shape` sides must be positive integers, got {shape!r}") from None
    if not sides or any(s < 1 for s in sides):
        raise ValueError(f"`shape` sides must be positive integers, got {shape!r}")
    return sides


def _strides(shape: tuple[int, ...]) -> np.ndarray:
    # task id of (x, y, z) = x + W * (y + H * z): x varies fastest, as node ids
    return np.concatenate(([1], np.cumprod(shape[:-1]))).astype(np.intp)


def _validate_weight(weight) -> float:
    try:
        w = float(weight)
    except (TypeError, ValueError):
        raise ValueError(f"`weight` must be a number, got {weight!r}") from None
    if not (math.isfinite(w) and w >= 0):
        raise ValueError(f"`weight` must be finite and non-negative, got {weight!r}")
    return w


def _validate_count(n, name: str = "n") -> int:
    try:
        k = operator.index(n)
    except TypeError:
        raise ValueError(f"`{name}` must be a positive integer, got {n!r}") from None
    if k < 1:
        raise ValueError(f"`{name}` must be a positive integer, got {n!r}")
    return k


def _matrix(n: int, rows, cols, vals, sparse: bool):
    """The (n, n) matrix with ``vals`` at ``(rows, cols)`` (repeats keep one), dense or CSR."""
    if not sparse:
        W = np.zeros((n, n))
        W[rows, cols] = vals
        return W
    from scipy import sparse as sp

    rows, cols, vals = np.asarray(rows, np.intp), np.asarray(cols, np.intp), np.broadcast_to(vals, np.shape(rows))
    key, first = np.unique(rows.astype(np.int64) * n + cols, return_index=True)
    return sp.csr_matrix((np.asarray(vals, np.float64)[first], (key // n, key % n)), shape=(n, n))


def stencil(shape, *, periodic: bool = True, weight: float = 1.0, sparse: bool = False):
    """Nearest-neighbour exchange on a grid of tasks.

    Parameters
    ----------
    shape : int or tuple of int
        Sides of the task grid, e.g. ``(8, 8)`` (five-point stencil) or
        ``(4, 4, 4)`` (seven-point stencil).
    periodic : bool, default True
        Wrap around each axis (tasks at opposite faces are neighbours).
    weight : float, default 1.0
        Bytes each task sends to each neighbour.
    sparse : bool, default False
        Return a scipy.sparse CSR matrix.

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_matrix
        Symmetric (N, N) matrix, N the number of tasks.

    Notes
    -----
    A side of 2 with wrap gives one neighbour on that axis, not two; a
    side of 1 gives none.

    Examples
    --------
    >>> from optalloc.qap import stencil
    >>> W = stencil((3, 3))
    >>> W.sum(axis=1).tolist()
    [4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0]
    >>> stencil((3, 3), periodic=False).sum(axis=1).tolist()
    [2.0, 3.0, 2.0, 3.0, 4.0, 3.0, 2.0, 3.0, 2.0]
    >>> stencil((32, 32, 16), sparse=True).nnz      # 16,384 tasks, six neighbours each
    98304
    """
    sides = _validate_shape(shape)
    w = _validate_weight(weight)
    n = math.prod(sides)
    ids = np.arange(n, dtype=np.intp)
    strides = _strides(sides)
    rows, cols = [], []
    for side, stride in zip(sides, strides):
        x = (ids // stride) % side
        for step in (1, -1):
            y = x + step
            ok = (y >= 0) & (y < side) if not periodic else np.full(n, side > 1)
            rows.append(ids[ok])
            cols.append((ids + ((y % side) - x) * stride)[ok])
    return _matrix(n, np.concatenate(rows), np.concatenate(cols), w, sparse)


def ring(n, *, weight: float = 1.0, sparse: bool = False):
    """Each task exchanges ``weight`` bytes with tasks i - 1 and i + 1 (mod n)
    (``sparse=True``: a CSR matrix).

    Examples
    --------
    >>> from optalloc.qap import ring
    >>> ring(4).tolist()
    [[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]]
    """
    return stencil(_validate_count(n), periodic=True, weight=weight, sparse=sparse)


def all_to_all(n, *, weight: float = 1.0) -> np.ndarray:
    """Every task sends ``weight`` bytes to every other task.

    Examples
    --------
    >>> from optalloc.qap import all_to_all
    >>> all_to_all(3).tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """
    n = _validate_count(n)
    return _validate_weight(weight) * (1.0 - np.eye(n))


def transpose(shape, *, weight: float = 1.0, sparse: bool = False):
    """Matrix-transpose exchange: task (x, y) swaps data with task (y, x).

    Parameters
    ----------
    shape : int or (int, int)
        Side k of the square task grid (``k`` or ``(k, k)``); k * k tasks.
    weight : float, default 1.0
        Bytes sent by each off-diagonal task to its partner.
    sparse : bool, default False
        Return a scipy.sparse CSR matrix.

    Returns
    -------
    numpy.ndarray
        Symmetric (k*k, k*k) matrix; tasks on the diagonal x == y send
        nothing.

    Examples
    --------
    >>> from optalloc.qap import transpose
    >>> import numpy as np
    >>> np.argwhere(transpose(2)).tolist()
    [[1, 2], [2, 1]]
    """
    sides = _validate_shape(shape)
    if len(sides) == 1:
        sides = sides * 2
    if len(sides) != 2 or sides[0] != sides[1]:
        raise ValueError(f"`shape` must be a square 2-D grid (k or (k, k)), got {shape!r}")
    k = sides[0]
    w = _validate_weight(weight)
    x, y = np.meshgrid(np.arange(k), np.arange(k), indexing="xy")
    src, dst = (x + k * y).ravel(), (y + k * x).ravel()
    off = src != dst
    return _matrix(k * k, src[off], dst[off], w, sparse)


def random_sparse(n, density: float, *, rng=None, low: int = 1, high: int = 100, sparse: bool = False):
    """Random symmetric traffic: each pair talks with probability ``density``.

    Parameters
    ----------
    n : int
        Number of tasks.
    density : float
        Probability, in [0, 1], that a pair {i, j} of distinct tasks
        communicates.
    rng : None, int or numpy.random.Generator
        Seed or generator, passed to ``numpy.random.default_rng``.
    low, high : int
        Bytes of a communicating pair are drawn uniformly from the integers
        low .. high (both included), 0 <= low <= high.
    sparse : bool, default False
        Return a scipy.sparse CSR matrix, drawn in O(n + pairs) memory: the
        number of pairs is binomial, the pairs uniform without repeats (so
        a seed gives another matrix than the dense form).

    Returns
    -------
    numpy.ndarray
        Symmetric (n, n) float matrix, zero diagonal.

    Examples
    --------
    >>> from optalloc.qap import random_sparse
    >>> import numpy as np
    >>> W = random_sparse(6, 0.5, rng=1)
    >>> bool(np.array_equal(W, W.T)), bool(np.array_equal(W, random_sparse(6, 0.5, rng=1)))
    (True, True)
    """
    n = _validate_count(n)
    try:
        p = float(density)
    except (TypeError, ValueError):
        raise ValueError(f"`density` must be a number between 0 and 1, got {density!r}") from None
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"`density` must be between 0 and 1, got {density!r}")
    try:
        lo, hi = operator.index(low), operator.index(high)
    except TypeError:
        raise ValueError(f"`low` and `high` must be integers, got {low!r} and {high!r}") from None
    if not 0 <= lo <= hi:
        raise ValueError(f"`low` and `high` must satisfy 0 <= low <= high, got {lo} and {hi}")
    gen = np.random.default_rng(rng)
    if sparse:
        return _random_csr(n, p, gen, lo, hi)
    iu, ju = np.triu_indices(n, k=1)
    keep = gen.random(len(iu)) < p
    vals = gen.integers(lo, hi, size=int(keep.sum()), endpoint=True).astype(np.float64)
    W = np.zeros((n, n))
    W[iu[keep], ju[keep]] = vals
    W[ju[keep], iu[keep]] = vals
    return W


def _random_csr(n: int, p: float, gen, lo: int, hi: int):
    total = n * (n - 1) // 2
    count = int(gen.binomial(total, p)) if total else 0
    picked = np.zeros(0, dtype=np.int64)
    while len(picked) < count:  # pair indices into the upper triangle, without repeats
        more = gen.integers(0, total, size=2 * (count - len(picked)) + 8, dtype=np.int64)
        picked = np.unique(np.concatenate((picked, more)))
    picked = gen.permutation(picked)[:count]
    # pair index q -> (i, j), i < j, row by row of the upper triangle
    i = (n - 2 - np.floor(np.sqrt(-8.0 * picked + 4.0 * n * (n - 1) - 7) / 2.0 - 0.5)).astype(np.int64)
    j = picked + i + 1 - total + (n - i) * (n - i - 1) // 2
    vals = gen.integers(lo, hi, size=count, endpoint=True).astype(np.float64)
    return _matrix(n, np.concatenate((i, j)), np.concatenate((j, i)), np.concatenate((vals, vals)), True)


def parse_pattern(spec: str, *, rng=None, sparse: bool = False):
    """A pattern from text, for the command line.

    Forms: ``stencil:8x8`` (periodic), ``stencil:8x8:open`` (no wrap),
    ``ring:64``, ``all-to-all:16``, ``transpose:8x8`` (or
    ``transpose:8``), ``random:64:0.1`` (n and density; seeded by
    ``rng``).

    Examples
    --------
    >>> from optalloc.qap import parse_pattern
    >>> parse_pattern("stencil:4x4").shape, float(parse_pattern("ring:5").sum())
    ((16, 16), 10.0)
    """
    text = str(spec).strip().lower()
    name, _, rest = text.partition(":")
    args = rest.split(":") if rest else []
    usage = (f"`spec` must be one of 'stencil:8x8[:open]', 'ring:64', 'all-to-all:16', "
             f"'transpose:8x8', 'random:64:0.1', got {spec!r}")
    try:
        if name == "stencil" and len(args) in (1, 2):
            if len(args) == 2 and args[1] not in ("open", "periodic"):
                raise ValueError(usage)
            return stencil(_sides(args[0]), periodic=len(args) == 1 or args[1] == "periodic", sparse=sparse)
        if name == "ring" and len(args) == 1:
            return ring(int(args[0]), sparse=sparse)
        if name in ("all-to-all", "alltoall", "a2a") and len(args) == 1:
            return all_to_all(int(args[0]))
        if name == "transpose" and len(args) == 1:
            return transpose(_sides(args[0]), sparse=sparse)
        if name == "random" and len(args) == 2:
            return random_sparse(int(args[0]), float(args[1]), rng=rng, sparse=sparse)
    except ValueError as exc:
        if str(exc).startswith("`"):  # a generator's own message
            raise
        raise ValueError(usage) from None
    raise ValueError(usage)


def _sides(text: str) -> tuple[int, ...]:
    return tuple(int(s) for s in text.split("x"))
