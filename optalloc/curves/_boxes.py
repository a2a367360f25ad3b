"""Orderings of the nodes of a 2D or 3D box (mesh) of processors.

A box of shape ``(W, H)`` or ``(W, H, D)`` has one node per integer point
``(x, y[, z])`` with ``0 <= x < W``, ``0 <= y < H`` (and ``0 <= z < D``).
Every ordering below returns the coordinates of all nodes in visiting
order, as an int array of shape ``(N, d)``; the first column is x.  Each
also takes a 2D or 3D mesh or torus :class:`~optalloc.machine.Machine`
for its shape (the wrap-around links do not change the order);
``machine.node_ids(coords)`` gives the node ids in that order.

``row_major``
    x fastest, then y, then z: the left-to-right, top-to-bottom order of
    the baseline Cplant allocator (SAND2003-3702, sec. 4.1).  Steps between
    rows jump back across the box.
``snake``
    boustrophedon: rows alternate direction and layers alternate the
    direction of their 2D snake, so every step joins mesh neighbours.
``hilbert``
    the classic Hilbert curve (SAND2003-3702, sec. 4.2) on a square or
    cube whose side is a power of two; unit steps only.
``gilbert``
    a generalised Hilbert curve for any box, built by recursive splitting;
    in 2D unit steps except one diagonal step where the side parities
    force it, in 3D unit steps when all sides are even (see
    :func:`gilbert`).

Closed curves, whose last node neighbours the first (for tori and ring
ranks), are in :mod:`optalloc.curves` too: ``moore``, ``closed_snake``,
``closed_gilbert``; :func:`box_order` knows them by name.
"""

from __future__ import annotations

import operator

import numpy as np

from ..machine import Machine

__all__ = ["gilbert", "hilbert", "row_major", "snake"]


def _validate_shape(shape) -> tuple[int, ...]:
    """The shape (of a mesh or torus Machine too) as a tuple of 2 or 3 positive Python ints."""
    if isinstance(shape, Machine):
        if not shape.is_grid:
            raise ValueError("a network machine has no box to order; order it with order_graph")
        shape = shape.shape
    try:
        dims = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise ValueError(f"`shape` must be a tuple of 2 or 3 positive integers, got {shape!r}") from None
    if len(dims) not in (2, 3):
        raise ValueError(f"`shape` must have 2 or 3 dimensions, got {len(dims)}")
    if min(dims) < 1:
        raise ValueError(f"`shape` must have positive sides, got {dims}")
    return dims


def row_major(shape) -> np.ndarray:
    """Row-major order of a box: x fastest, then y, then z.

    Parameters
    ----------
    shape : tuple of int
        ``(W, H)`` or ``(W, H, D)``, positive sides.

    Returns
    -------
    numpy.ndarray
        Int array of shape ``(W*H[*D], d)``: node coordinates in visiting order.

    Raises
    ------
    ValueError
        If `shape` does not have 2 or 3 positive integer sides.

    Notes
    -----
    This is the linear processor order of the baseline Cplant allocator
    [1]_.  O(N) time.

    References
    ----------
    .. [1] V. Leung et al., "Algorithmic support for commodity-based parallel
       computing systems", SAND2003-3702, sec. 4.1.

    Examples
    --------
    >>> from optalloc.curves import row_major
    >>> row_major((3, 2)).tolist()
    [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]
    """
    dims = _validate_shape(shape)
    grids = np.meshgrid(*[np.arange(n) for n in reversed(dims)], indexing="ij")
    return np.stack([g.ravel() for g in reversed(grids)], axis=1).astype(np.int64)


def _snake2d(w: int, h: int) -> np.ndarray:
    xs = np.tile(np.arange(w), h).reshape(h, w)
    xs[1::2] = xs[1::2, ::-1]  # odd rows run right to left
    ys = np.repeat(np.arange(h), w)
    return np.stack([xs.ravel(), ys], axis=1)


def snake(shape) -> np.ndarray:
    """Boustrophedon ("snake") order of a box.

    Parameters
    ----------
    shape : tuple of int
        ``(W, H)`` or ``(W, H, D)``, positive sides.

    Returns
    -------
    numpy.ndarray
        Int array of shape ``(N, d)``: node coordinates in visiting order.

    Raises
    ------
    ValueError
        If `shape` does not have 2 or 3 positive integer sides.

    Notes
    -----
    In 2D, row y is walked left to right when y is even and right to left
    when y is odd.  In 3D, layer z is the 2D snake of ``(W, H)`` when z is
    even and the same path backwards when z is odd, so each layer starts
    above the node where the previous one ended.  Consecutive nodes are
    always at L1 distance 1.  O(N) time.

    Examples
    --------
    >>> from optalloc.curves import snake
    >>> snake((3, 2)).tolist()
    [[0, 0], [1, 0], [2, 0], [2, 1], [1, 1], [0, 1]]
    >>> snake((2, 1, 2)).tolist()
    [[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]]
    """
    dims = _validate_shape(shape)
    layer = _snake2d(dims[0], dims[1])
    if len(dims) == 2:
        return layer.astype(np.int64)
    parts = []
    for z in range(dims[2]):
        xy = layer if z % 2 == 0 else layer[::-1]
        parts.append(np.column_stack([xy, np.full(len(xy), z)]))
    return np.concatenate(parts).astype(np.int64)


def _power_of_two_side(dims: tuple[int, ...]) -> int:
    side = dims[0]
    if any(s != side for s in dims) or side & (side - 1):
        raise ValueError(
            f"`shape` must be a square or cube with a power-of-two side for hilbert, got {dims}; "
            "use gilbert for other boxes"
        )
    return side


def hilbert(shape) -> np.ndarray:
    """The classic Hilbert curve of a square or cube with a power-of-two side.

    Parameters
    ----------
    shape : tuple of int
        ``(2**m, 2**m)`` or ``(2**m, 2**m, 2**m)``.

    Returns
    -------
    numpy.ndarray
        Int array of shape ``(N, d)``: node coordinates in visiting order,
        starting at the origin; every step joins mesh neighbours.

    Raises
    ------
    ValueError
        If the sides differ or are not a power of two (use :func:`gilbert`
        for any other box), or if `shape` is not a valid shape.

    Notes
    -----
    The curve is computed index by index with Skilling's transform [2]_,
    which turns the bits of the curve index (as a Gray code spread over the
    d axes) into coordinates.  In 2D this is Hilbert's original curve; in
    3D it is the common Butz-Skilling variant (3D Hilbert curves are not
    unique).  SAND2003-3702 [1]_ orders Cplant meshes along this curve.
    O(N log N) time, vectorised over the N indices.

    References
    ----------
    .. [1] V. Leung et al., "Algorithmic support for commodity-based parallel
       computing systems", SAND2003-3702, sec. 4.2.
    .. [2] J. Skilling, "Programming the Hilbert curve", AIP Conference
       Proceedings 707 (2004) 381-387.

    Examples
    --------
    >>> from optalloc.curves import hilbert
    >>> hilbert((2, 2)).tolist()
    [[0, 0], [0, 1], [1, 1], [1, 0]]
    >>> len(hilbert((4, 4, 4)))
    64
    """
    dims = _validate_shape(shape)
    side = _power_of_two_side(dims)
    d = len(dims)
    order = side.bit_length() - 1  # bits per axis
    n = side**d
    index = np.arange(n, dtype=np.int64)
    # Spread the index bits over the d axes, most significant first
    # ("transposed" form of the index in Skilling's paper).
    axes = np.zeros((d, n), dtype=np.int64)
    for bit in range(order * d):
        src = order * d - 1 - bit  # bit position in the index, from the top
        axis = bit % d
        level = order - 1 - bit // d
        axes[axis] |= ((index >> src) & 1) << level
    # Gray decode.
    t = axes[d - 1] >> 1
    for i in range(d - 1, 0, -1):
        axes[i] ^= axes[i - 1]
    axes[0] ^= t
    # Undo the excess work of the Gray code, level by level.
    q = 2
    while q < side:
        p = q - 1
        for i in range(d - 1, -1, -1):
            hit = (axes[i] & q) != 0
            # invert the low bits of axis 0 where the bit is set ...
            axes[0] = np.where(hit, axes[0] ^ p, axes[0])
            # ... and exchange low bits of axes 0 and i where it is not
            diff = np.where(hit, 0, (axes[0] ^ axes[i]) & p)
            axes[0] ^= diff
            axes[i] ^= diff
        q <<= 1
    return axes.T.copy()


# --- generalised Hilbert curve ------------------------------------------------
#
# The recursion works on a box given by a corner `p` (a coordinate tuple) and
# axis-aligned edge vectors `a` (the major direction: the walk goes from p to
# the far end of a), `b` (and `c` in 3D).  An edge vector is stored as a pair
# (axis, n): n is the signed length of the side along that axis.  A call
# visits every node of its box, starting at p; it ends next to p + a - unit(a)
# whenever the parities allow.  Straight runs are recorded as segments
# (start, axis, n) and expanded with numpy at the end.


def _sgn(n: int) -> int:
    return (n > 0) - (n < 0)


def _move(p, axis: int, n: int):
    q = list(p)
    q[axis] += n
    return tuple(q)


def _back(v):
    """The vector v shortened by one unit: from its first to its last node."""
    return v[1] - _sgn(v[1])


def _half(v, even: bool):
    """First half of an edge vector; with `even`, of even length when the side exceeds 2."""
    axis, n = v
    h = n // 2  # floor division, also for negative n
    if even and abs(h) % 2 and abs(n) > 2:
        h += _sgn(n)
    return axis, h


def _rest(v, h):
    return v[0], v[1] - h[1]


def _neg(v):
    return v[0], -v[1]


def _gilbert2d(out, p, a, b):
    w, h = abs(a[1]), abs(b[1])
    if h == 1:
        out.append((p, a))
        return
    if w == 1:
        out.append((p, b))
        return
    if 2 * w > 3 * h:
        # long box: cut across a into two boxes walked the same way
        a2 = _half(a, True)
        _gilbert2d(out, p, a2, b)
        _gilbert2d(out, _move(p, a[0], a2[1]), _rest(a, a2), b)
        return
    # Hilbert cell: up the first part of b, along all of a, back down
    a2, b2 = _half(a, False), _half(b, True)
    _gilbert2d(out, p, b2, a2)
    _gilbert2d(out, _move(p, b[0], b2[1]), a, _rest(b, b2))
    corner = _move(_move(p, a[0], _back(a)), b[0], _back(b2))
    _gilbert2d(out, corner, _neg(b2), _neg(_rest(a, a2)))


def _gilbert3d(out, p, a, b, c):
    w, h, d = abs(a[1]), abs(b[1]), abs(c[1])
    # straight runs; the tests are ordered as the construction has them, as
    # odd sides can lead to empty boxes (a side of length 0)
    if h == 1 and d == 1:
        out.append((p, a))
        return
    if w == 1 and d == 1:
        out.append((p, b))
        return
    if w == 1 and h == 1:
        out.append((p, c))
        return
    a2, b2, c2 = _half(a, True), _half(b, True), _half(c, True)
    ra, rb, rc = _rest(a, a2), _rest(b, b2), _rest(c, c2)
    pa = _move(p, a[0], _back(a))  # the far end of a
    if 2 * w > 3 * h and 2 * w > 3 * d:
        # long along a: two boxes side by side
        _gilbert3d(out, p, a2, b, c)
        _gilbert3d(out, _move(p, a[0], a2[1]), ra, b, c)
    elif 3 * h > 4 * d:
        # thin along c: split a and b as in 2D, keep c whole
        _gilbert3d(out, p, b2, c, a2)
        _gilbert3d(out, _move(p, b[0], b2[1]), a, rb, c)
        _gilbert3d(out, _move(pa, b[0], _back(b2)), _neg(b2), c, _neg(ra))
    elif 3 * d > 4 * h:
        # thin along b: split a and c, keep b whole
        _gilbert3d(out, p, c2, a2, b)
        _gilbert3d(out, _move(p, c[0], c2[1]), a, b, rc)
        _gilbert3d(out, _move(pa, c[0], _back(c2)), _neg(c2), _neg(ra), b)
    else:
        # close to a cube: five boxes, split in all three directions
        top = _move(_move(p, b[0], b2[1]), c[0], _back(c))
        _gilbert3d(out, p, b2, c2, a2)
        _gilbert3d(out, _move(p, b[0], b2[1]), c, a2, rb)
        _gilbert3d(out, _move(top, b[0], -_sgn(b[1])), a, _neg(b2), _neg(rc))
        _gilbert3d(out, _move(top, a[0], _back(a)), _neg(c), _neg(ra), rb)
        _gilbert3d(out, _move(pa, b[0], _back(b2)), _neg(b2), c2, _neg(ra))


def _expand(segments, ndim: int) -> np.ndarray:
    """Coordinates of the nodes of straight runs (start, (axis, n))."""
    segments = [(s, v) for s, v in segments if v[1]]
    starts = np.array([s for s, _ in segments], dtype=np.int64).reshape(-1, ndim)
    axes = np.array([v[0] for _, v in segments], dtype=np.int64)
    lengths = np.array([v[1] for _, v in segments], dtype=np.int64)
    counts = np.abs(lengths)
    out = np.repeat(starts, counts, axis=0)
    first = np.cumsum(counts) - counts
    step = np.arange(counts.sum()) - np.repeat(first, counts)  # 0, 1, ... within a run
    rows = np.arange(len(out))
    out[rows, np.repeat(axes, counts)] += step * np.repeat(np.sign(lengths), counts)
    return out


def gilbert(shape) -> np.ndarray:
    """Generalised Hilbert curve of any 2D or 3D box.

    Parameters
    ----------
    shape : tuple of int
        ``(W, H)`` or ``(W, H, D)``, positive sides of any size.

    Returns
    -------
    numpy.ndarray
        Int array of shape ``(N, d)``: node coordinates in visiting order,
        starting at the origin.

    Raises
    ------
    ValueError
        If `shape` does not have 2 or 3 positive integer sides.

    Notes
    -----
    The curve runs from the origin to the far end of the longest side (the
    first of the longest sides on ties), the major axis.  The box is split
    recursively, without padding or cropping: a box much longer than wide
    (2 w > 3 h, and in 3D also 2 w > 3 d) is cut across the major axis
    into two boxes; otherwise it is cut as a Hilbert cell, into three boxes
    in 2D (up, across, down), and in 3D into three boxes when one minor
    side is much longer than the other (3 h > 4 d or 3 d > 4 h) and five
    when the box is close to a cube.  Cuts are placed at half a side,
    moved by one so the first part has even length when the side exceeds
    2; this keeps parities right so that sub-boxes can be walked corner
    to corner with unit steps.  The same construction is known as
    "gilbert" (Červený's generalised Hilbert curve [1]_).

    Steps.  In 2D every step joins mesh neighbours except at most one
    diagonal step (L1 length 2), which happens only when the longer side
    is odd and the shorter side even: colour the nodes like a chessboard;
    a unit-step path between the two ends of an odd side then has the
    wrong colour count, so one diagonal step cannot be avoided by a curve
    with these ends.  In 3D the curve has unit steps only when all sides
    are even (in particular on power-of-two cubes, where it is a Hilbert
    curve); with an odd side the recursion, which follows the original
    construction [1]_, makes a few non-unit steps (on boxes up to 16 per
    side: at most 66 of them, each of L1 length at most 4; 4 on 8x8x5),
    even where a unit-step path would exist.  O(N) time (a Python
    recursion that records straight runs, expanded with numpy).

    References
    ----------
    .. [1] J. Červený, "gilbert: generalized Hilbert space-filling curve for
       rectangular domains of arbitrary sizes",
       https://github.com/jakubcerveny/gilbert.

    Examples
    --------
    >>> from optalloc.curves import gilbert
    >>> gilbert((3, 2)).tolist()
    [[0, 0], [0, 1], [1, 1], [2, 1], [2, 0], [1, 0]]
    >>> c = gilbert((5, 4, 3)); c.shape
    (60, 3)
    """
    dims = _validate_shape(shape)
    segments: list = []
    edges = [(axis, n) for axis, n in enumerate(dims)]
    # the major axis is the longest side (the first one on ties), then the
    # other axes in their order
    major = max(range(len(dims)), key=lambda i: (dims[i], -i))
    edges = [edges[major]] + edges[:major] + edges[major + 1:]
    start = (0,) * len(dims)
    if len(dims) == 2:
        _gilbert2d(segments, start, *edges)
    else:
        _gilbert3d(segments, start, *edges)
    return _expand(segments, len(dims))
