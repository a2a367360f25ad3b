"""MC1x1 on a torus from the occupancy grid, without a distance matrix.

Around every free node c the set is the k free nodes nearest to c by the
torus L-infinity distance, ties by the torus L1 distance, then by node id:
the free nodes of the L-infinity ball of radius r - 1 (r the first radius
whose ball holds k free nodes, found with prefix sums) and the first ones
of shell r in (L1, id) order.  W of that set is a sum over axes of the
pairwise distances of a histogram: the inner ball's slabs are box counts,
the last shell's cells are added one by one; where the set takes most of
that shell's free cells (:data:`FAR_SHARE`), the histogram starts from the
ball of radius r and the cells left out are removed instead, the shell
walked from its far end (fewer cells visited).  The set of least W wins,
the first centre in node-id order on ties (the rule of the dense version).
"""

from __future__ import annotations

import time

import numpy as np

from ...._subset import metric_subset_result
from ...._threads import run_split
from ..._common import half_least
from ..centres import gen_alg_guarantee
from ._mcgrid import prefix_table
from ._mcshell import ball_counts, section_piece, shell_offsets, torus_set, torus_weights

__all__ = ["SMALL", "centre_weights", "coords_mc1x1", "grid_mc1x1", "grid_result", "machine_mc1x1"]

#: up to this many free nodes the bound is the one of the dense version
#: (its O(n^2) cost is then a fraction of a millisecond); beyond, the
#: near-linear bounds described in :func:`grid_result`
SMALL = 512
#: centres times slabs per axis (2 rho + 1) from which the cross-sections of a radius are built; below,
#: those centres' slabs are box counts (a grid of cross-sections costs as much as many box counts)
SECTIONS_MIN = 10_000
#: the share of the last shell's free cells a set must take for the shell to be walked from its far end
FAR_SHARE = 0.6
#: centres per thread below which the sets' W are summed in one thread (:func:`optalloc._threads.run_split`)
SPLIT_MIN = 512


def _node_strides(shape) -> np.ndarray:
    # node id of (x, y, z) = x + W * (y + H * z): x varies fastest
    return np.concatenate(([1], np.cumprod(shape[:-1]))).astype(np.int64)


def _sections(ids: np.ndarray, rho: np.ndarray, shape, ring, pad):
    """The cross-section grids (:func:`._mcshell.section_piece`, of the padded
    free grid) for the radii ``rho`` of the balls the centres' histograms start
    from (r - 1, or r where the shell is walked from its far end) that many
    centres share (up to four), and per centre which one serves it (-1:
    the prefix table does)."""
    ok = rho >= 0
    for side, wrap in zip(shape, ring):
        if wrap:
            ok &= rho <= (side - 1) // 2
    counts = np.bincount(rho[ok], minlength=1) if ok.any() else np.zeros(1, dtype=np.int64)
    common = [int(v) for v in np.argsort(-counts, kind="stable")[:4]
              if counts[v] >= max(8, len(rho) // 64) and counts[v] * (2 * v + 1) >= SECTIONS_MIN]
    which = np.full(len(rho), -1, dtype=np.int64)
    occupied = (ids >= 0).astype(np.int32)
    grids = np.zeros((max(1, len(common)), len(shape)) + ids.shape, dtype=np.int32)
    # the work in pieces: (radius, axis, a range of that axis), two per axis and radius, shared out
    pieces = [(q, a, h) for q in range(len(common)) for a in range(len(shape)) for h in range(2)]

    def run(lo, hi):
        for q, a, h in pieces[lo:hi]:
            side = ids.shape[a]
            section_piece(occupied, common[q], a, side * h // 2, side * (h + 1) // 2, grids[q, a])

    run_split(run, len(pieces), min_items=1)
    for q, v in enumerate(common):
        which[ok & (rho == v)] = q
    return grids.reshape(len(grids), len(shape), -1), which


def centre_weights(free_grid: np.ndarray, ring, k: int, *, far=None):
    """W of every free centre's set on the boolean grid ``free_grid``
    (axis a of length ``shape[a]``, wrapped where ``ring[a]``, node id
    ``sum_a x_a S_a`` with x fastest), the centres in node-id order.

    ``far`` chooses how each histogram is summed: None, from the ball of
    radius r - 1 plus the cells taken from shell r where the set takes at
    most :data:`FAR_SHARE` of the shell's free cells, else from the ball of
    radius r less those left out; True or False, the one way for every centre (the
    same W, for the tests).  Returns ``(node, W, score, make_set)``: the
    centres' ids, their W, lower bounds of their MC scores and a function
    giving the sorted node ids of centre i's set.
    """
    shape = np.array(free_grid.shape, dtype=np.int64)
    d = len(shape)
    ring = np.array([bool(w) for w in ring], dtype=np.bool_)
    # the centres in node-id order: the transposed grid's cells, x last
    cells = np.ascontiguousarray(np.argwhere(free_grid.T)[:, ::-1], dtype=np.int64)
    node = cells @ _node_strides(shape)
    P, st = prefix_table(free_grid, ring)
    counts = run_split(lambda lo, hi: ball_counts(P, st, shape, ring, cells[lo:hi], k), len(cells),
                       min_items=SPLIT_MIN)
    last, inner, score, outer, work = (np.concatenate(part) for part in zip(*counts))
    if far is None:  # walk the shorter way through shell r
        back = (k - inner) > FAR_SHARE * (outer - inner)
    else:
        back = np.full(len(cells), bool(far))
    R = int(last.max())
    pad = np.array([min(R, int(s)) if w else R for s, w in zip(shape, ring)], dtype=np.int64)
    ids = np.full(free_grid.shape, -1, dtype=np.int32)
    ids[tuple(cells.T)] = node
    if R:
        wide = [(int(p), int(p)) if w else (0, 0) for p, w in zip(pad, ring)]
        ids = np.pad(ids, wide, mode="wrap")
        ids = np.pad(ids, [(0, 0) if w else (R, R) for w in ring], constant_values=-1)
    pst = np.array(ids.strides, dtype=np.int64) // ids.itemsize
    idpad = ids.ravel()
    freepad = (idpad >= 0).view(np.uint8)
    offs, start, groups, first = shell_offsets(R, d)
    delta = offs @ pst
    sections, which = _sections(ids, last - 1 + (back & (last > 0)), shape, ring, pad)

    def piece(lo, hi):
        return torus_weights(P, st, idpad, freepad, pst, pad, shape, ring, cells[lo:hi], last[lo:hi], inner[lo:hi],
                             outer[lo:hi], back[lo:hi], k, offs, delta, start, groups, first, R, sections,
                             which[lo:hi])

    def make_set(i):
        return np.sort(torus_set(idpad, freepad, pst, pad, shape, ring, cells[i], int(last[i]), int(k - inner[i]), k,
                                 offs, delta, start, groups, first))

    W = np.concatenate(run_split(piece, len(cells), min_items=SPLIT_MIN, weights=work))
    return node, W, score, make_set


def grid_mc1x1(free_grid: np.ndarray, ring, k: int):
    """MC1x1 with wrap on the boolean grid ``free_grid`` (axis a of length
    ``shape[a]``, node id ``sum_a x_a S_a`` with x fastest).

    Returns ``(ids, W, centre id, centres, scores)``: the chosen node ids
    (sorted), their W, the winning centre, the free nodes' ids and lower
    bounds of their MC scores (sum of the k smallest L-infinity distances,
    for the bound).
    """
    if k == 1:  # every set is its centre alone, W = 0: the first free node wins
        node = np.flatnonzero(free_grid.ravel(order="F")).astype(np.int64)
        return node[:1].copy(), 0, int(node[0]), node, np.zeros(len(node), dtype=np.int64)
    node, W, score, make_set = centre_weights(free_grid, ring, k)
    c = int(np.argmin(W))  # the first least W in node-id order
    return make_set(c), int(W[c]), int(node[c]), node, score


def grid_result(free_grid, ring, k, *, start=None):
    """MC1x1 on a torus as a :class:`~optalloc.SubsetResult` over node ids.

    The bound holds in the torus metric (per axis ``min(|a - b|, L - |a - b|)``
    on a wrapped axis, summed over axes).  It is W / guarantee, and beyond
    :data:`SMALL` free nodes also half the sum of the k least MC scores
    (lower bounds of them, from the two ball counts of each centre, see
    :func:`ball_counts`): the score of a free node c is the sum of the k
    smallest L-infinity distances from c, at most the sum f(c) of the k
    smallest torus distances from c; for an optimal set S, ``2 W(S) =
    sum_{c in S} sum_{v in S} D(c, v) >= sum_{c in S} f(c)``, at least the
    sum of the k least values of f over the free nodes.
    """
    start = time.perf_counter() if start is None else start
    chosen, w, _centre, nodes, score = grid_mc1x1(free_grid, ring, k)
    shape = free_grid.shape
    d = len(shape)
    g = d * gen_alg_guarantee(k) if k > 1 else 1.0
    bound = w / g
    if len(nodes) > SMALL:
        bound = max(bound, half_least(score, k))
    # coordinates of the chosen ids: x fastest
    cells = np.stack(np.unravel_index(chosen, shape, order="F"), axis=1).astype(np.int64)
    pts = cells.astype(float)
    return metric_subset_result(None, np.arange(len(chosen)), ids=chosen, coords=pts, method="mc1x1", start=start,
                                guarantee=g, bound=bound, extra={"centres": len(nodes)}, weight=(float(w), True))


def machine_mc1x1(machine, k):
    """MC1x1 on the free nodes of a torus ``machine`` (:func:`grid_result`);
    a one-line ValueError when k is not in 1 .. number of free nodes."""
    from ...._validate import as_int

    start = time.perf_counter()
    k = as_int(k, "k")
    if not 1 <= k <= machine.n_free:
        raise ValueError(f"`k` must be between 1 and the number of free nodes ({machine.n_free}) of the "
                         f"{machine.describe()}, got {k}")
    free_grid = np.asarray(machine.free).reshape(machine.shape, order="F")
    return grid_result(free_grid, machine.torus, k, start=start)


def coords_mc1x1(k, *, ids, coords, axes):
    """MC1x1 on a torus given the free nodes' ids and coordinates and
    ``axes = (shape, torus)`` (the form of the metric methods)."""
    start = time.perf_counter()
    shape, torus = axes
    free_grid = np.zeros(tuple(shape), dtype=bool)
    free_grid[tuple(np.asarray(coords, dtype=np.int64).T)] = True
    return grid_result(free_grid, torus, k, start=start)
