"""Gen-Alg, MM and MM+Inc on a grid, in time near-linear in the grid.

The points are the free cells of a mesh or torus of at most three axes:
around each centre the k nearest points are taken shell by shell of its
L1 ball (the compiled kernels of :mod:`._grid`), and W of the set comes
from per-axis histograms of the offsets, in O(k + width).  No distance
matrix is built.  The sets chosen are those of the definitions, with
their tie rules:

- the k nearest points of a centre: every point closer than the k-th
  distance, then the points at that distance of the lowest input row (on a
  machine, of the lowest node id);
- among centres of equal W the first one wins (Gen-Alg: input order; MM:
  lexicographic order of the coordinates, the first axis slowest);
- swap descent takes the pair of least ``s(j) - s(i) - d(i, j)``, on ties
  the lowest chosen row i, then the lowest unchosen row j.

The bound reported is the neighbour bound, ``1/2`` the sum of the k least
stars (a star: the sum of the k least distances from a point to the
points, itself included), which every centre's shells give for free, next
to the town bound and ``W / guarantee``.  All hold in the metric at hand
(L1 on a mesh, the wrap distance on a torus): ``2 W(S) = sum_{s in S}
sum_{t in S} d(s, t)`` and each inner sum is at least the star of s.

The swap descent of MM+Inc (its compiled kernel ``grid_descent``) is in
:mod:`._descent`.
"""

from __future__ import annotations

import functools
import time

import numpy as np

from ...._gridweight import grid_weight
from ...._jit import njit
from ...._subset import metric_subset_result
from ...._threads import run_split
from ...._validate import validate_k
from ..._common import half_least
from ...bounds import TOWN_2D, TOWN_3D
from ._descent import grid_descent
from ._grid import centre_rows, centre_scores, rotated_fill

__all__ = ["GRID_TORUS_METHODS", "Grid", "gen_alg_torus", "grid_gen_alg", "grid_mm", "grid_swap", "lattice_grid",
           "mm_inc_torus_grid", "mm_torus_grid", "neighbour_of_stars", "town_of_grid"]

#: cells of a grid per point beyond which the grid path is not taken (and
#: on meshes of at most 4,096 cells it always is)
SPARSE = 16
AXES = 3
#: k from which the balls are counted with the rotated tables (below, by runs: the balls are small)
TABLE_K = 96
#: the plane counts passed where no table is built (the runs never read them)
_NO_PLANES = np.zeros((3, 1), dtype=np.int64)
#: centres per thread below which the centres are scored in one thread (:func:`optalloc._threads.run_split`)
SPLIT_MIN = 512
#: with the rotated tables, the last shell is walked from its end when it leaves out fewer points than it
#: gives by more than this (the ball of radius R then counted instead of R - 1)
BACK = 16
#: slices of the rotated tables per thread below which they are built in one thread
TABLE_SLICES = 16
#: cells of an extended plane from which no rotated tables are built (their int16 counts would overflow)
TABLE_CELLS = 2 ** 15


@njit(cache=True)
def grid_arrays(co, L):
    """``(occ, PX, PY, in_order)`` of the points at cells ``co`` (n, 3):
    the row of each cell (x fastest) or -1, the prefix counts of the
    points along the first axis (rows y + L1 z) and along the second (rows
    x + L0 z), each row taken twice (runs that wrap), and whether the
    rows grow with the cell id."""
    L0, L1, L2 = L[0], L[1], L[2]
    occ = np.full(L0 * L1 * L2, -1, dtype=np.int64)
    in_order = True
    for i in range(len(co)):
        cell = co[i, 0] + L0 * (co[i, 1] + L1 * co[i, 2])
        in_order &= i == 0 or cell > co[i - 1, 0] + L0 * (co[i - 1, 1] + L1 * co[i - 1, 2])
        occ[cell] = i
    PX = np.zeros((L1 * L2, 2 * L0 + 1), dtype=np.int64)
    PY = np.zeros((L0 * L2, 2 * L1 + 1), dtype=np.int64)
    for row in range(L1 * L2):  # runs along x: row y + L1 z
        for t in range(2 * L0):
            PX[row, t + 1] = PX[row, t] + (occ[L0 * row + (t if t < L0 else t - L0)] >= 0)
    for z in range(L2):  # runs along y: row x + L0 z
        for x in range(L0):
            row = x + L0 * z
            for t in range(2 * L1):
                PY[row, t + 1] = PY[row, t] + (occ[x + L0 * ((t if t < L1 else t - L1) + L1 * z)] >= 0)
    return occ, PX, PY, in_order


class Grid:
    """The points as cells of a grid: per axis the length and wrap, the
    cell coordinates of each point (n, 3), ``occ`` (row per cell, x
    fastest, or -1), the corner the coordinates are relative to, and
    whether the rows grow with the cell id."""

    def __init__(self, co: np.ndarray, L, wrap, origin: np.ndarray, d: int):
        self.co = np.ascontiguousarray(co, dtype=np.int64)
        self.L = np.asarray(L, dtype=np.int64)
        self.wrap = np.asarray(wrap, dtype=np.bool_)
        self.origin = origin
        self.d = d
        self.n = len(co)
        self.occ, self.PX, self.PY, in_order = grid_arrays(self.co, self.L)
        self.in_order = bool(in_order)
        self._tot = None
        self._tables = {}

    def tables(self, k: int):
        """The margins M and the rotated tables (:func:`rotated_fill`) across each axis
        when no axis has length 1 (else empty tables), for
        k (built once per margins).  M on a ring is the radius a ball of
        the grid's mean density needs for k points, plus 2, at most
        ``(L - 1) // 2``; a larger ball counts its wider slices by runs,
        and when r is more than 3 past that on a ring, all of them (no
        tables; nor when an extended plane has ``TABLE_CELLS`` cells)."""
        sides = [int(s) for s in self.L if s > 1]
        density = self.n / max(1, int(np.prod(self.L)))
        r = 0
        while r < sum(sides) and density * _ball_cells(r, sides) < k:
            r += 1
        M = np.where(self.wrap, np.minimum((self.L - 1) // 2, r + 2), 0).astype(np.int64)
        # a ball much wider than half a ring counts most slices by runs: no tables then, unless
        # every axis is a ring of even length (a wide diamond is counted around the antipode)
        even = bool(np.all(self.wrap) and np.all(self.L % 2 == 0))
        wide = bool(np.any(self.wrap & (r > (self.L - 1) // 2 + 3))) and not even
        ext = self.L + 2 * M
        wide |= int(max(ext[0] * ext[1], ext[0] * ext[2], ext[1] * ext[2])) >= TABLE_CELLS
        key = (*M.tolist(), wide)
        if key not in self._tables:
            out = [np.zeros((0, 1, 1), dtype=np.int16)] * AXES
            if int(self.L.min()) > 1 and not wide:  # a planar grid counts by runs (see centre_scores)
                out = self._rotated(M)
            self._tables = {key: (*out, M)}
        return self._tables[key]

    def plane_counts(self) -> np.ndarray:
        """The points of each plane across each axis, ``(3, max L)`` (read by the tables' wide diamonds)."""
        if self._tot is None:
            free = (self.occ >= 0).reshape(self.L[::-1])  # (z, y, x): axis a is free's axis 2 - a
            self._tot = np.zeros((AXES, int(self.L.max())), dtype=np.int64)
            for a, other in enumerate(((0, 1), (0, 2), (1, 2))):
                self._tot[a, : self.L[a]] = free.sum(axis=other)
        return self._tot

    def _rotated(self, M: np.ndarray) -> list[np.ndarray]:
        """The three rotated tables (:func:`rotated_fill`), their slices shared out among threads."""
        out = []
        for a in range(AXES):
            p, r = (1 if a == 0 else 0), (1 if a == 2 else 2)
            U = int(self.L[p] + 2 * M[p] + self.L[r] + 2 * M[r] - 1)
            out.append(np.empty((int(self.L[a]), U + 1, U + 1), dtype=np.int16))
        first = np.concatenate([[0], np.cumsum(self.L)])  # slice ids: axis a's from first[a]

        def piece(lo, hi):
            for a in range(AXES):
                s0, s1 = max(lo, first[a]), min(hi, first[a + 1])
                if s0 < s1:
                    rotated_fill(out[a], self.occ, self.L, self.wrap, a, M, s0 - first[a], s1 - first[a])

        run_split(piece, int(first[-1]), min_items=TABLE_SLICES)
        return out

    def scores(self, centres: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """W and star of the k nearest points around each centre (cells)."""
        k = validate_k(k, self.n)  # beyond the points the kernels' radius searches would not end
        cen = _read_only(centres)
        if k >= TABLE_K:
            T0, T1, T2, M = self.tables(k)
        else:
            T0 = T1 = T2 = np.zeros((0, 1, 1), dtype=np.int16)
            M = np.zeros(AXES, dtype=np.int64)

        tot = self.plane_counts() if T0.shape[0] else _NO_PLANES

        def piece(lo, hi):
            return centre_scores(cen[lo:hi], self.occ, self.PX, self.PY, T0, T1, T2, M, self.L, self.wrap, k,
                                 self.in_order, self.n, BACK, tot)

        parts = run_split(piece, len(cen), min_items=SPLIT_MIN)
        if len(parts) == 1:
            return parts[0]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def nearest(self, centre, k: int) -> np.ndarray:
        """The rows of the k nearest points of a centre (cell), sorted."""
        rows, _ = centre_rows(_read_only(centre), self.occ, self.L, self.wrap, k, self.in_order,
                              self.n)
        return np.sort(rows)


def _read_only(cells) -> np.ndarray:
    """``cells`` as a read-only contiguous int64 view, whoever gives them
    (MM's cached centres are read-only): numba compiles its kernels once
    per writability, so every caller passes them alike."""
    out = np.ascontiguousarray(cells, dtype=np.int64).view()
    out.flags.writeable = False
    return out


def _ball_cells(r: int, sides) -> int:
    """Cells of the L1 ball of radius r in as many dimensions as ``sides``
    (unbounded)."""
    d = len(sides)
    if d == 0:
        return 1
    if d == 1:
        return 2 * r + 1
    if d == 2:
        return 2 * r * r + 2 * r + 1
    return (2 * r + 1) * (2 * r * r + 2 * r + 3) // 3


def _padded(co: np.ndarray) -> np.ndarray:
    out = np.zeros((len(co), AXES), dtype=np.int64)
    out[:, : co.shape[1]] = co
    return out


def lattice_grid(pts: np.ndarray) -> Grid | None:
    """The :class:`Grid` (mesh: the bounding box) of distinct integer
    points of 1 to 3 coordinates, or None when they are not (the dense
    path applies) or the box has more than ``max(4096, 16 n)`` cells."""
    n, d = pts.shape
    if d > AXES or not np.all(pts == np.round(pts)):
        return None
    # per column: numpy's reduction over the first axis of a narrow array is ten times slower
    lo = np.array([pts[:, a].min() for a in range(d)])
    sides = np.array([pts[:, a].max() for a in range(d)]) - lo + 1
    if float(np.prod(sides)) > max(4096, SPARSE * n):
        return None
    co = (pts - lo).astype(np.int64)
    L = [int(s) for s in sides] + [1] * (AXES - d)
    grid = Grid(_padded(co), L, [False] * AXES, lo, d)
    if np.count_nonzero(grid.occ >= 0) != n:  # a point repeated
        return None
    return grid


def torus_grid(coords: np.ndarray, axes) -> Grid | None:
    """The :class:`Grid` of the free nodes (coordinates) of a mesh or
    torus of ``axes = (shape, torus)``; None beyond three axes."""
    shape, torus = axes
    if len(shape) > AXES:
        return None
    d = len(shape)
    co = np.asarray(coords, dtype=np.int64).reshape(-1, d)
    return Grid(_padded(co), list(shape) + [1] * (AXES - d), list(torus) + [False] * (AXES - d),
                np.zeros(d), d)


def neighbour_of_stars(stars: np.ndarray, k: int) -> float:
    """The neighbour bound from every point's star: half the sum of the k least."""
    return half_least(stars, k)


def town_of_grid(d: int, k: int) -> float:
    """The optimal-town value of k distinct lattice points in 2 or 3 dimensions (0 beyond the tables)."""
    table = {2: TOWN_2D, 3: TOWN_3D}.get(d)
    return float(table[k - 1]) if table is not None and k <= len(table) else 0.0


def grid_gen_alg(grid: Grid, k: int, descents: int = 0):
    """Gen-Alg on the grid: ``(rows, W, centre row, stars, lightest)``;
    ``lightest`` are the rows of the ``descents`` centres of least W
    (ties: input order), lightest first."""
    if k == 1:  # every set is its centre, of W 0: the first centre wins
        stars = np.zeros(grid.n, dtype=np.int64)
        return np.zeros(1, dtype=np.intp), 0.0, 0, stars, [np.array([c]) for c in range(min(descents, grid.n))]
    ws, stars = grid.scores(grid.co, k)
    best_c = int(np.argmin(ws))
    order = np.argsort(ws, kind="stable")[:descents] if descents else np.zeros(0, dtype=np.intp)
    lightest = [grid.nearest(grid.co[c], k) for c in order]
    return grid.nearest(grid.co[best_c], k), float(ws[best_c]), best_c, stars, lightest


def grid_mm(grid: Grid, k: int, values: list[np.ndarray] | None = None):
    """MM on the grid: every cell of the product of ``values`` (per axis,
    ascending cell coordinates; default every coordinate) is a centre, in
    lexicographic order.  Returns ``(rows, W, centre cell, centres, stars of the points)``."""
    sides = tuple(int(s) for s in grid.L[: grid.d])
    if values is None or all(len(v) == side for v, side in zip(values, sides)):  # every cell
        centres = _all_cells(sides)
        where = tuple(grid.co[:, a] for a in range(grid.d))
    else:
        centres = _product_cells(values)
        where = tuple(np.searchsorted(values[a], grid.co[:, a]) for a in range(grid.d))
        sides = tuple(len(v) for v in values)
    ws, stars = grid.scores(centres, k)
    best = int(np.argmin(ws))
    point_stars = stars[np.ravel_multi_index(where, sides)]
    return grid.nearest(centres[best], k), float(ws[best]), centres[best, : grid.d], len(centres), point_stars


def _product_cells(values) -> np.ndarray:
    """The cells of the product of ``values`` (per axis) in lexicographic
    order (the first axis slowest), padded to three coordinates."""
    mesh = np.meshgrid(*values, indexing="ij")
    return _padded(np.stack([m.ravel() for m in mesh], axis=1))


@functools.lru_cache(maxsize=8)
def _all_cells(sides: tuple[int, ...]) -> np.ndarray:
    """:func:`_product_cells` of every coordinate of a grid of these sides; read-only (shared)."""
    out = _product_cells([np.arange(s) for s in sides])
    out.setflags(write=False)
    return out


def grid_swap(grid: Grid, rows, *, max_swaps=None, tol_once=False) -> tuple[np.ndarray, int]:
    """Swap descent on the grid from ``rows``: ``(chosen rows, swaps)``."""
    inside = np.zeros(grid.n, dtype=np.bool_)
    inside[np.asarray(rows, dtype=np.intp)] = True
    swaps = grid_descent(grid.co, grid.L, grid.wrap, inside, -1 if max_swaps is None else int(max_swaps),
                         bool(tol_once))
    return np.flatnonzero(inside), int(swaps)


def _torus_result(grid, rows, *, ids, coords, method, start, guarantee, bound, extra):
    """The result of the chosen rows; its bound is the larger of ``bound``
    and ``W / guarantee``."""
    rows = np.sort(np.asarray(rows, dtype=np.intp))
    w = float(grid_weight(grid.co[rows], grid.L, grid.wrap))
    bound = max(bound, w / guarantee)
    return metric_subset_result(None, np.arange(len(rows)), ids=np.asarray(ids)[rows],
                                coords=np.asarray(coords)[rows], method=method, start=start, guarantee=guarantee,
                                bound=bound, extra=extra, weight=(w, True))


def _guarantee(k: int) -> float:
    return max(1.0, 2.0 - 2.0 / k)


def gen_alg_torus(D, k, *, ids, coords, axes):
    """Gen-Alg on a torus (or mesh) from its free nodes' coordinates, in
    the wrap distance: around every free node its k nearest free nodes
    (ties by node id), the first least W kept; ``D`` is not read (None
    will do).  ``guarantee = 2 - 2/k``, ``bound`` the larger of the
    neighbour bound and ``W / guarantee``; ``extra["centre"]`` is the
    centre's node id.

    >>> import numpy as np
    >>> from optalloc.machine import Machine
    >>> m = Machine((4, 4), torus=True)
    >>> r = gen_alg_torus(None, 3, ids=m.free_ids(), coords=m.free_points(), axes=(m.shape, m.torus))
    >>> r.indices.tolist(), r.objective, r.extra
    ([0, 1, 3], 4.0, {'centre': 0, 'centres': 16})
    """
    start = time.perf_counter()
    if k == 1:  # every set is its centre, of W 0: the first free node wins, without building the grid
        first = np.asarray(ids)[:1]
        return metric_subset_result(None, np.arange(1), ids=first, coords=np.asarray(coords)[:1], method="gen-alg",
                                    start=start, guarantee=1.0, bound=0.0, weight=(0.0, True),
                                    extra={"centre": int(first[0]), "centres": len(np.asarray(ids))})
    grid = torus_grid(coords, axes)
    rows, _, centre, stars, _ = grid_gen_alg(grid, k)
    g = _guarantee(k)
    return _torus_result(grid, rows, ids=ids, coords=coords, method="gen-alg", start=start, guarantee=g,
                         bound=neighbour_of_stars(stars, k),
                         extra={"centre": int(np.asarray(ids)[centre]), "centres": grid.n})


def _mm_torus_rows(grid: Grid, k: int):
    """MM on the torus: every node a centre (lexicographic order); the
    rows, W, number of centres and the free nodes' stars."""
    rows, w, _, count, stars = grid_mm(grid, k)
    return rows, w, count, stars


def mm_torus_grid(D, k, *, ids, coords, axes):
    """MM on a torus from its free nodes' coordinates: the k nearest free
    nodes (torus distance, ties by node id) around every node of the
    torus, the first least W in lexicographic order of the centres;
    ``D`` is not read.  Guarantee 2 - 2/k; bound as :func:`gen_alg_torus`.

    >>> from optalloc.machine import Machine
    >>> m = Machine((4, 4), torus=True)
    >>> mm_torus_grid(None, 3, ids=m.free_ids(), coords=m.free_points(), axes=(m.shape, m.torus)).objective
    4.0
    """
    start = time.perf_counter()
    grid = torus_grid(coords, axes)
    rows, _, count, stars = _mm_torus_rows(grid, k)
    g = _guarantee(k)
    return _torus_result(grid, rows, ids=ids, coords=coords, method="mm", start=start, guarantee=g,
                         bound=neighbour_of_stars(stars, k), extra={"centres": count})


def mm_inc_torus_grid(D, k, *, ids, coords, axes):
    """MM on a torus, then best-improvement swaps (ties: the lowest chosen
    node, then the lowest unchosen node); guarantee as MM.

    >>> from optalloc.machine import Machine
    >>> m = Machine((4, 4), torus=True)
    >>> mm_inc_torus_grid(None, 5, ids=m.free_ids(), coords=m.free_points(), axes=(m.shape, m.torus)).objective
    16.0
    """
    start = time.perf_counter()
    grid = torus_grid(coords, axes)
    rows, w, _, stars = _mm_torus_rows(grid, k)
    chosen, _ = grid_swap(grid, rows, tol_once=True)
    g = _guarantee(k)
    return _torus_result(grid, chosen, ids=ids, coords=coords, method="mm-inc", start=start, guarantee=g,
                         bound=neighbour_of_stars(stars, k), extra={"mm_objective": w})


#: the torus methods that run on coordinates alone: name -> function over (D, k, ids=, coords=, axes=)
GRID_TORUS_METHODS = {"gen-alg": gen_alg_torus, "mm": mm_torus_grid, "mm-inc": mm_inc_torus_grid}
