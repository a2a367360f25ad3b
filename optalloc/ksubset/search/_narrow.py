"""Exact k-subset on a 2D torus: the sets that fit in half a ring by the
mesh's search over shapes, the others by the search over counts.

Call a set of nodes of a ring of p positions *narrow* when its positions
fit in an arc of h = p // 2 + 1 consecutive ones, and *wide* otherwise.
Two positions of such an arc are at most p // 2 apart along it, so their
ring distance is their distance along the arc: cut open at the arc's
start, a narrow set keeps every distance.  On a 2D torus, call a set
narrow when it is narrow on every wrapped axis.  Then:

* every narrow set is, with the same W, a set of the *unrolled* free
  cells: the free cells of the mesh of ``p + h - 1`` columns (and rows,
  on a wrapped axis) in which column x holds the free cells of column
  x mod p.  So the least W over the unrolled cells (distinct lattice
  points, line distances) is at most the least W over the narrow sets,
  and is found by :func:`._shapesearch.shape_search_grid` as on a mesh.
  A set of unrolled cells that holds no cell twice is a set of the torus
  whose ring distances are at most its line distances: its torus W is at
  most its mesh W, so it is an incumbent;
* every wide set is wide on some wrapped axis: its used columns (say)
  are at most ``p - h`` apart around the ring, the step from the last
  round to the first included (a step of ``p - h + 1`` or more leaves an
  arc of h columns holding every used one).  The search over column and
  row counts (:func:`._torusprofile.torus_profile_search` with
  ``wide=True``) keeps only such column vectors: it cuts a partial
  vector at a run of empty columns too long, and bounds the points left
  by one of them in the columns that close the step round to the first
  used column (their least distance sum to the points placed) plus the
  cheapest columns for the others.

The least W is the least of the two, so the least of the two bounds is a
proven lower bound; W is an integer, so a search that ends with no set
below the incumbent proves it.  ``tests/ksubset/test_narrow.py`` checks
the searches against brute force on hundreds of small random tori, the
optima that wrap among them.
"""

from __future__ import annotations

import math

import numpy as np

from ._profilesearch import deadline_array
from ._shapesearch import ShapeGrid, shape_search_grid
from ._torusprofile import torus_profile_search

__all__ = ["narrow_search", "unrolled"]


def unrolled(coords, shape, torus) -> tuple[np.ndarray, np.ndarray]:
    """The unrolled free cells of the module notes (each wrapped axis of p
    positions extended by p // 2 copies of its first positions) and, for
    each, its row of ``coords``."""
    cells = np.asarray(coords).astype(np.int64)
    origin = np.arange(len(cells))
    for a, (side, wrap) in enumerate(zip(shape, torus, strict=True)):
        side = int(side)
        if not wrap or side <= 2:
            continue
        h = side // 2 + 1
        copy = cells[:, a] < h - 1
        extra = cells[copy].copy()
        extra[:, a] += side
        cells, origin = np.vstack([cells, extra]), np.concatenate([origin, origin[copy]])
    return cells, origin


def _grid(cells: np.ndarray) -> ShapeGrid:
    """The :class:`ShapeGrid` of distinct nonnegative integer 2D cells."""
    xs, ys = np.arange(cells[:, 0].max() + 1), np.arange(cells[:, 1].max() + 1)
    index = np.full((len(ys), len(xs)), -1, dtype=np.int64)
    index[cells[:, 1], cells[:, 0]] = np.arange(len(cells))
    return ShapeGrid(index >= 0, xs.astype(float), ys.astype(float), index)


def torus_weight(coords, rows, shape, torus) -> float:
    """W of the rows ``rows`` of ``coords`` with ring distances on the
    wrapped axes."""
    pts = np.asarray(coords)[np.asarray(rows)].astype(np.int64)
    total = 0
    for a, (side, wrap) in enumerate(zip(shape, torus, strict=True)):
        gap = np.abs(pts[:, a][:, None] - pts[:, a][None, :])
        total += int((np.minimum(gap, int(side) - gap) if wrap else gap).sum())
    return total / 2


def narrow_search(coords, k: int, shape, torus, upper: float, *, time_limit: float | None = None, deadline=None):
    """Least W <= ``upper`` - 1 over k of the free cells ``coords`` (integer
    (n, 2) coordinates of a ``shape`` machine, axes wrapped as ``torus``),
    by the two searches of the module notes.

    Returns ``(value, rows, lower)`` as
    :func:`._torusprofile.torus_profile_search`: the best set found (None,
    None when none below ``upper``) and the proven lower bound when both
    searches ended, else None.  ``deadline``, a one-element array of
    :func:`time.perf_counter` time, lets another thread stop it.
    """
    coords = np.asarray(coords).astype(np.int64)
    shape = tuple(int(s) for s in shape)
    torus = tuple(bool(t) and s > 2 for t, s in zip(torus, shape, strict=True))
    deadline = deadline_array(time_limit, deadline)
    ub, best_rows = float(upper), None
    cells, origin = unrolled(coords, shape, torus)
    value, idx, complete = shape_search_grid(_grid(cells), k, ub - 1.0, deadline=deadline)
    # lowers: a proven bound on the least W of each class (narrow, wide on x, wide on y), None if unknown
    lowers = [None if not complete else (value if value < math.inf else float(upper))]
    if idx is not None:
        rows = origin[idx]
        if len(np.unique(rows)) == k:  # a set of the torus, at most as heavy
            w = torus_weight(coords, rows, shape, torus)
            if w < ub:
                ub, best_rows = w, np.sort(rows)
    for axis in (0, 1):
        if not torus[axis]:
            continue
        swap = [axis, 1 - axis]  # the axis of the wide columns first
        v, rows, low = torus_profile_search(coords[:, swap], k, tuple(shape[a] for a in swap),
                                            tuple(torus[a] for a in swap), ub, deadline=deadline, wide=True)
        if v is not None:  # below the incumbent
            ub, best_rows = v, rows
        lowers.append(low)
    lower = None if any(x is None for x in lowers) else min(lowers)
    if best_rows is None:
        return None, None, lower
    return ub, best_rows, (None if lower is None else min(lower, ub))
