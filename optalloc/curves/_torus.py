"""Closed curves: orderings whose last node neighbours the first.

A one-dimensional allocator that treats its ranks as a ring (ring span,
Leung et al. 2002 sec. 2.3: rank N - 1 is followed by rank 0) keeps
locality across the seam only when the ordering's ends are neighbours.
The curves here are closed: every step, the closing step from the last
node back to the first included, joins neighbours, using the wrap-around
links of a torus where they help.

``moore``
    the Moore curve, Hilbert's closed variant: four Hilbert curves of half
    the side, on a square with a power-of-two side.
``closed_snake``
    a comb: a boustrophedon through all columns but the first, back along
    the first; any 2D or 3D box.
``closed_gilbert``
    two generalised Hilbert curves (Červený's gilbert), one per half of the
    box, joined at both ends; any 2D box.
``closed_curve_exists``
    whether a closed unit-step curve (a Hamiltonian cycle of the mesh or
    torus graph) exists.

When a closed curve exists.  Ignore sides of 1.  With one side L left, the
machine is a line: closed when L <= 2 or the axis wraps.  With two or more,
a closed curve exists exactly when the number of nodes N is even or some
odd side wraps: a mesh (and a torus whose wrapping sides are all even) is
bipartite, chessboard-coloured, and a cycle through all N nodes alternates
colours, so N must be even; the constructions below give a cycle in every
other case.  In particular every full torus has one.  Where none exists
(an odd x odd mesh, a line without wrap) the curves return the order with
the fewest non-unit steps that parity allows: one step of L1 length 2 (a
diagonal) in an odd box, and steps of 2 along a line (0, 2, 4, ..., then
the odd positions back).  :func:`moore` is defined only on power-of-two
squares, which always have a closed curve.

A side of 2 that wraps has one neighbour each way, the same node (the
machine has one link between the two), and a side of 1 none: the wrap
changes nothing there, and the curves treat such axes as a mesh's.
"""

from __future__ import annotations

import math

import numpy as np

from ..machine import Machine
from ._boxes import _expand, _gilbert2d, _validate_shape, hilbert, snake

__all__ = ["CLOSED_ORDERS", "closed_curve_exists", "closed_gilbert", "closed_snake", "moore"]


def _shape_and_wrap(shape, torus) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """Sides and per-axis wrap flags of a shape (or mesh/torus Machine)."""
    if isinstance(shape, Machine) and shape.is_grid:
        if torus is not None:
            raise ValueError("`torus` is taken from the Machine; pass a shape to give it separately")
        torus = shape.torus
    dims = _validate_shape(shape)
    if torus is None:
        return dims, (False,) * len(dims)
    if isinstance(torus, (bool, np.bool_)):
        return dims, (bool(torus),) * len(dims)
    try:
        flags = tuple(torus)
    except TypeError:
        raise ValueError(f"`torus` must be a bool or one bool per axis ({len(dims)}), got {torus!r}") from None
    if len(flags) != len(dims) or not all(isinstance(t, (bool, np.bool_)) for t in flags):
        raise ValueError(f"`torus` must be a bool or one bool per axis ({len(dims)}), got {torus!r}")
    return dims, tuple(bool(t) for t in flags)


def _exists(dims, wrap) -> bool:
    big = [a for a, s in enumerate(dims) if s >= 2]
    if not big:
        return True
    if len(big) == 1:
        side = dims[big[0]]
        return side <= 2 or wrap[big[0]]
    return math.prod(dims) % 2 == 0 or any(wrap[a] and dims[a] % 2 for a in big)


def closed_curve_exists(shape, *, torus=None) -> bool:
    """True when the box has a closed unit-step curve (a Hamiltonian cycle).

    Parameters
    ----------
    shape : tuple of int or Machine
        ``(W, H)`` or ``(W, H, D)``, or a 2D or 3D mesh or torus Machine
        (its wrap flags are used).
    torus : bool or sequence of bool, optional
        Wrap-around on every axis or per axis, for a shape; default none.

    Returns
    -------
    bool
        With the sides of 1 ignored: a line of L nodes when L <= 2 or it
        wraps; otherwise when the node count is even or an odd side wraps
        (see the module notes for the proof).

    Examples
    --------
    >>> from optalloc.curves import closed_curve_exists
    >>> closed_curve_exists((5, 3)), closed_curve_exists((5, 3), torus=True), closed_curve_exists((4, 3))
    (False, True, True)
    """
    dims, wrap = _shape_and_wrap(shape, torus)
    return _exists(dims, wrap)


# --- the comb ---------------------------------------------------------------


def _comb(a: int, m: int, wrap_a: bool) -> np.ndarray:
    """(col, row) pairs of a closed walk over an a x m grid (a, m >= 2).

    The columns 1 .. a-1 are walked as a boustrophedon, row by row, and
    column 0 is walked back down.  The walk is closed with unit steps when
    m is even, a == 2, or m is odd and the column axis wraps (the last row
    ends in column a - 1, the neighbour of column 0 across the wrap).
    Otherwise (a and m odd, no wrap) the top two rows are walked column by
    column, which leaves one diagonal step into column 0.
    """
    out = []
    simple = m % 2 == 0 or a == 2 or wrap_a
    rows = m if simple else m - 2
    for r in range(rows):
        cols = range(1, a) if r % 2 == 0 else range(a - 1, 0, -1)
        out.extend((c, r) for c in cols)
    if not simple:
        # a - 1 columns (even), two rows each, ending at (1, m - 2)
        for i, c in enumerate(range(a - 1, 0, -1)):
            out.extend([(c, m - 2), (c, m - 1)] if i % 2 == 0 else [(c, m - 1), (c, m - 2)])
    out.extend((0, r) for r in range(m - 1, -1, -1))
    return np.array(out, dtype=np.int64)


def _line(side: int, wrap: bool) -> np.ndarray:
    if wrap or side <= 2:
        return np.arange(side, dtype=np.int64)
    # no closed walk: even positions up, odd positions down, steps of 2
    return np.concatenate([np.arange(0, side, 2), np.arange(side - 1 - (side % 2 == 1), 0, -2)]).astype(np.int64)


def _on_line(dims, axis: int, pos: np.ndarray) -> np.ndarray:
    out = np.zeros((len(pos), len(dims)), dtype=np.int64)
    out[:, axis] = pos
    return out


def _comb_axis(dims, wrap) -> int:
    """The axis walked across by the comb (its column axis)."""
    n = math.prod(dims)
    big = [a for a, s in enumerate(dims) if s >= 2]
    if n % 2 == 0:
        for a in big:  # the other axes must give an even row count, or a side of 2
            if (n // dims[a]) % 2 == 0 or dims[a] == 2:
                return a
    for a in big:  # odd node count: a wrapping odd side closes the walk
        if wrap[a]:
            return a
    return big[0]


def closed_snake(shape, *, torus=None) -> np.ndarray:
    """A closed boustrophedon ("comb") of a 2D or 3D box.

    Parameters
    ----------
    shape : tuple of int or Machine
        ``(W, H)`` or ``(W, H, D)``, or a 2D or 3D mesh or torus Machine
        (its wrap flags are used).
    torus : bool or sequence of bool, optional
        Wrap-around on every axis or per axis, for a shape; default none.

    Returns
    -------
    numpy.ndarray
        Int array of shape ``(N, d)``: node coordinates in visiting order.
        When :func:`closed_curve_exists`, every step and the closing step
        from the last node to the first join neighbours (across the wrap
        where the box is a torus); otherwise see the module notes.

    Raises
    ------
    ValueError
        If `shape` is not 2 or 3 positive sides, or `torus` is malformed.

    Notes
    -----
    One axis (x when it can be) is the comb's spine: its first slice is
    walked last, straight back to the start, and the rest of the box is a
    boustrophedon that starts next to the spine and ends next to it, the
    other axes taken in :func:`~optalloc.curves.snake` order.  The spine
    is chosen so the ends meet: an axis leaving an even number of rows,
    or, when the node count is odd, an odd side that wraps (the
    boustrophedon then ends at the far side, the spine's neighbour across
    the wrap).  O(N) time.

    Examples
    --------
    >>> from optalloc.curves import closed_snake
    >>> closed_snake((3, 2)).tolist()
    [[1, 0], [2, 0], [2, 1], [1, 1], [0, 1], [0, 0]]
    >>> closed_snake((3, 3), torus=True)[[0, -1]].tolist()
    [[1, 0], [0, 0]]
    """
    dims, wrap = _shape_and_wrap(shape, torus)
    big = [a for a, s in enumerate(dims) if s >= 2]
    if not big:
        return np.zeros((1, len(dims)), dtype=np.int64)
    if len(big) == 1:
        return _on_line(dims, big[0], _line(dims[big[0]], wrap[big[0]]))
    spine = _comb_axis(dims, wrap)
    others = [a for a in range(len(dims)) if a != spine]
    rest = [dims[a] for a in others]
    # a unit-step path through the other axes, as rows of the comb
    rows = snake(tuple(rest)) if len(rest) == 2 else np.arange(rest[0], dtype=np.int64)[:, None]
    walk = _comb(dims[spine], len(rows), wrap[spine])
    out = np.zeros((len(walk), len(dims)), dtype=np.int64)
    out[:, spine] = walk[:, 0]
    out[:, others] = rows[walk[:, 1]]
    return out


# --- Moore ------------------------------------------------------------------


def moore(shape) -> np.ndarray:
    """The Moore curve: a closed Hilbert curve of a power-of-two square.

    Parameters
    ----------
    shape : tuple of int or Machine
        ``(2**m, 2**m)``, or a 2D mesh or torus Machine of that shape.

    Returns
    -------
    numpy.ndarray
        Int array of shape ``(N, 2)``: node coordinates in visiting order,
        starting at ``(W/2 - 1, 0)`` and ending at ``(W/2, 0)``; every step,
        the closing one included, joins mesh neighbours.

    Raises
    ------
    ValueError
        For a box that is not a square with a power-of-two side (use
        :func:`closed_gilbert`), or a 3D box.

    Notes
    -----
    Each quadrant holds the Hilbert curve of half the side
    (:func:`~optalloc.curves.hilbert`), turned so that it enters and leaves
    the quadrant on the side facing the centre line: up the left half,
    down the right half [1]_.  Inside each quadrant it is the Hilbert curve,
    so it keeps the Hilbert curve's locality and adds a closing step.
    O(N log N) time.

    References
    ----------
    .. [1] E. H. Moore, "On certain crinkly curves", Trans. Amer. Math. Soc.
       1 (1900) 72-90.

    Examples
    --------
    >>> from optalloc.curves import moore
    >>> moore((2, 2)).tolist()
    [[0, 0], [0, 1], [1, 1], [1, 0]]
    >>> c = moore((4, 4)); c[0].tolist(), c[-1].tolist()
    ([1, 0], [2, 0])
    """
    dims = _validate_shape(shape)
    if len(dims) != 2 or dims[0] != dims[1] or dims[0] & (dims[0] - 1):
        raise ValueError(f"`shape` must be a square with a power-of-two side for moore, got {dims}; "
                         "use closed_gilbert or closed_snake for other boxes")
    if dims[0] == 1:
        return np.zeros((1, 2), dtype=np.int64)
    s = dims[0] // 2
    u, v = hilbert((s, s)).T  # from (0, 0) to (s - 1, 0)
    # quadrant maps: left halves along x = s - 1 upwards, right halves downwards
    parts = [
        (s - 1 - v, u),              # bottom left: (s-1, 0) -> (s-1, s-1)
        (s - 1 - v, s + u),          # top left: (s-1, s) -> (s-1, 2s-1)
        (s + v, 2 * s - 1 - u),      # top right: (s, 2s-1) -> (s, s)
        (s + v, s - 1 - u),          # bottom right: (s, s-1) -> (s, 0)
    ]
    return np.concatenate([np.stack(p, axis=1) for p in parts]).astype(np.int64)


# --- closed generalised Hilbert ---------------------------------------------


def _odd_halves(side: int) -> tuple[int, int]:
    """Two odd parts of an even side, as equal as they can be."""
    h = side // 2
    return (h, h) if h % 2 else (h - 1, h + 1)


def closed_gilbert(shape, *, torus=None) -> np.ndarray:
    """A closed generalised Hilbert curve of any 2D box.

    Parameters
    ----------
    shape : tuple of int or Machine
        ``(W, H)``, or a 2D mesh or torus Machine (its wrap flags are used).
    torus : bool or sequence of bool, optional
        Wrap-around on both axes or per axis, for a shape; default none.

    Returns
    -------
    numpy.ndarray
        Int array of shape ``(N, 2)``: node coordinates in visiting order.
        When :func:`closed_curve_exists`, every step and the closing step
        join neighbours (see Notes for the boxes where this was checked).

    Raises
    ------
    ValueError
        For a shape that is not 2D (use :func:`closed_snake` in 3D).

    Notes
    -----
    With an even node count the box is cut across its longer side into
    two halves, each walked by the generalised Hilbert recursion of
    :func:`~optalloc.curves.gilbert` from corner to corner along the cut:
    up the first half, down the second, so both ends sit at the cut, one
    step apart.  When the shorter side is odd the cut leaves two odd
    halves, which the chessboard parity needs.  With an odd node count and
    an odd side that wraps, one generalised Hilbert curve runs along that
    side from one end to the other, and the wrap link closes it.  With an
    odd count and no such wrap no closed curve exists: the halves are cut
    odd and even and the even half carries one diagonal step.  A line
    (one side of 1) is walked as by :func:`closed_snake`.  The steps
    (closing step included) are checked by the tests on every box up to
    24 x 24 under every wrap (a slow test) and on random ones.  O(N) time.

    Examples
    --------
    >>> from optalloc.curves import closed_gilbert
    >>> c = closed_gilbert((6, 4)); len(c), c[0].tolist(), c[-1].tolist()
    (24, [2, 0], [3, 0])
    """
    dims, wrap = _shape_and_wrap(shape, torus)
    if len(dims) != 2:
        raise ValueError(f"closed_gilbert orders 2D boxes, got {len(dims)} dimensions; use closed_snake")
    if min(dims) == 1:
        return closed_snake(dims, torus=wrap)
    n = dims[0] * dims[1]
    major = 0 if dims[0] >= dims[1] else 1
    minor = 1 - major
    big, small = dims[major], dims[minor]
    if n % 2 and any(w and s % 2 for w, s in zip(wrap, dims)):
        # from one end of a wrapping side to the other; the wrap link closes it
        axis = major if wrap[major] else minor
        segments: list = []
        _gilbert2d(segments, (0, 0), (axis, dims[axis]), (1 - axis, dims[1 - axis]))
        return _expand(segments, 2)
    if n % 2 == 0 and small % 2:
        first, _ = _odd_halves(big)
    elif n % 2 == 0:
        first = big // 2
    else:
        first = big // 2 if (big // 2) % 2 else big // 2 + 1  # odd first half, even second
    second = big - first
    # each half walked from its corner on the cut along the minor axis
    # (the recursion is run in the positive direction, where its end
    # point is known, then mirrored or reversed into place)
    left = _corner_walk(first, small, major)
    left[:, major] = first - 1 - left[:, major]
    right = _corner_walk(second, small, major)[::-1]
    right[:, major] += first
    return np.concatenate([left, right])


def _corner_walk(length: int, small: int, major: int) -> np.ndarray:
    """A generalised Hilbert walk of the box (length along major, small
    along the other axis) from the origin to the far end of the other axis."""
    minor = 1 - major
    segments: list = []
    _gilbert2d(segments, (0, 0), (minor, small), (major, length))
    return _expand(segments, 2)


#: The closed orderings by name (also accepted by :func:`box_order`).
CLOSED_ORDERS = {"moore": moore, "closed_snake": closed_snake, "closed_gilbert": closed_gilbert}
