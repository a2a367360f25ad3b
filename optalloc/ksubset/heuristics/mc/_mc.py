"""MC1x1 and MC: shell-based allocation on a mesh, with tie-breaking."""

from __future__ import annotations

import operator
import time

import numpy as np

from ..._common import half_least, make_result, validate_k, validate_points, weights_of_sets
from ...bounds import TOWN_2D, TOWN_3D, heuristic_bound
from ._mcdense import dense_choice
from ._mcgrid import mesh_fill, mesh_scores, prefix_table, tie_parts
from ._mctorus import SMALL

#: the largest occupancy grid (cells) the prefix-sum path builds
_GRID_MAX = float(1 << 25)


def validate_mesh(points: np.ndarray, shape) -> tuple[np.ndarray, tuple[int, ...]]:
    """Check that ``points`` are distinct integer cells of a mesh of ``shape``."""
    if shape is None:
        raise ValueError("method 'mc1x1' needs the mesh extent: pass `shape` (one size per axis)")
    try:
        shape = tuple(operator.index(s) for s in np.atleast_1d(shape).tolist())
    except TypeError:
        raise ValueError(f"`shape` must be a sequence of positive integers, got {shape!r}") from None
    d = points.shape[1]
    if len(shape) != d or min(shape) < 1:
        raise ValueError(f"`shape` must give {d} positive sizes (one per coordinate), got {shape}")
    if not np.all(points == np.round(points)):
        raise ValueError("mesh points must have integer coordinates")
    cells = points.astype(np.int64)
    if cells.min() < 0 or np.any(cells >= np.array(shape)):
        raise ValueError(f"a point lies outside the mesh of shape {shape}")
    flat = np.ravel_multi_index(cells.T, shape)
    if len(np.unique(flat)) != len(flat):
        raise ValueError("mesh points must be distinct (each free processor once)")
    return cells, shape


def resolve_tie_break(tie_break, shape) -> tuple[int, float, float, float] | None:
    """None, ``"default"`` or a vector (SR, AF, WF, BF)."""
    if tie_break is None or tie_break is False:
        return None
    if isinstance(tie_break, str):
        if tie_break != "default":
            raise ValueError(f"`tie_break` must be None, 'default' or (SR, AF, WF, BF), got {tie_break!r}")
        # Johnson, Bunde and Leung: (width / 5 rounded, 13, 20, 6).
        return (int(np.floor(shape[0] / 5 + 0.5)), 13.0, 20.0, 6.0)
    try:
        sr, af, wf, bf = tie_break
        sr = operator.index(sr)
        af, wf, bf = float(af), float(wf), float(bf)
    except (TypeError, ValueError):
        raise ValueError(f"`tie_break` must be (SR, AF, WF, BF) with an integer SR, got {tie_break!r}") from None
    if sr < 0 or not np.all(np.isfinite([af, wf, bf])):
        raise ValueError(f"`tie_break` needs SR >= 0 and finite factors, got {tie_break!r}")
    return (sr, af, wf, bf)


def _boxes(centres: np.ndarray, request: np.ndarray):
    lo = centres - (request - 1) // 2
    return lo, lo + request - 1


def _walls(shape) -> np.ndarray:
    """Per cell of the mesh: the walls it touches (an axis of one cell gives two)."""
    out = np.zeros(shape, dtype=np.int64)
    for a, side in enumerate(shape):
        edge = np.zeros(side, dtype=np.int64)
        edge[0] += 1
        edge[side - 1] += 1
        out += edge.reshape([-1 if b == a else 1 for b in range(len(shape))])
    return out


def _tie_break(cells, grid, P, st, shape, lo, hi, last, inner, k, tied, vector, build):
    """The tied candidate of least tie score (the first in input order on
    ties): its set, last shell, score and parts.

    ``available`` and ``border`` and the inner shells' share of ``wall``
    are box sums (:func:`tie_parts`); the last shell's share of ``wall``
    depends on the cells the greedy fill takes, known without the fill when
    no free cell of that shell touches a wall or the fill takes them all.
    A candidate is filled only when the bound of its score, over the walls
    its fill can touch, does not exceed the least score known.
    """
    sr, af, wf, bf = vector
    d = len(shape)
    walls = _walls(tuple(shape))
    Q, _ = prefix_table(grid * walls, (False,) * d)
    avail, wall_in, wall_last, cnt_last, busy = tie_parts(P, Q, st, shape, lo, hi, last, inner, k, sr, tied)
    m = k - inner[tied]
    known = (wall_last == 0) | (m == cnt_last)
    fw_lo = np.where(known, wall_last, 0)
    fw_hi = np.where(known, wall_last, np.minimum(wall_last, 2 * d * m))
    available = avail.astype(float)
    border = -(sr * busy).astype(float)

    def score(fw):
        wall = -(wall_in + (sr + 1) * fw).astype(float)
        return af * available + wf * wall + bf * border, wall

    s_lo, wall_lo = score(fw_lo)
    s_hi, _ = score(fw_hi)
    low, high = np.minimum(s_lo, s_hi), np.maximum(s_lo, s_hi)
    ceiling = high.min()
    flat_walls = walls.ravel()
    winner, best = -1, np.inf
    sets = {}
    for u in np.flatnonzero(low <= ceiling):
        c = int(tied[u])
        if known[u]:
            tb, wall = float(s_lo[u]), float(wall_lo[u])
        else:
            ch = build(c)
            sets[c] = ch
            pts = cells[ch]
            s_ch = np.max(np.maximum(np.maximum(lo[c] - pts, pts - hi[c]), 0), axis=1)
            w_ch = flat_walls[np.ravel_multi_index(pts.T, tuple(shape))]
            wall = -float(((last[c] + sr - s_ch + 1) * w_ch).sum())
            tb = af * float(available[u]) + wf * wall + bf * float(border[u])
        if tb < best:
            winner, best, parts = c, tb, {"available": float(available[u]), "wall": wall + 0.0,
                                          "border": float(border[u]) + 0.0}
    chosen = sets[winner] if winner in sets else build(winner)
    return winner, chosen, best, parts


def _grid_choice(cells, shape, lo, hi, k, vector):
    """MC's choice from the prefix-sum table of the occupancy grid:
    ``(scores, winner, chosen, last shell, extra)``."""
    n, d = cells.shape
    dims = np.array(shape, dtype=np.int64)
    grid = np.zeros(shape, dtype=np.int32)
    grid[tuple(cells.T)] = 1
    P, st = prefix_table(grid, (False,) * d)
    scores, lasts, inner = mesh_scores(P, st, dims, lo, hi, k)
    best = scores.min()
    tied = np.flatnonzero(scores == best)
    index = np.full(shape, -1, dtype=np.int64)
    index[tuple(cells.T)] = np.arange(n)
    index = index.ravel()

    def build(c):
        return mesh_fill(cells, index, dims, lo[c], hi[c], int(lasts[c]), k, c)

    extra = {"score": int(best), "n_tied": int(len(tied))}
    if vector is None:
        winner = int(tied[0])
        chosen = build(winner)
    else:
        winner, chosen, best_tb, parts = _tie_break(cells, grid, P, st, dims, lo, hi, lasts, inner, k, tied, vector,
                                                    build)
        extra.update({"tie_break": list(vector), "tie_score": best_tb, **parts})
    return scores, winner, chosen, int(lasts[winner]), extra


def mc1x1(points, k, *, shape=None, tie_break=None, request=None):
    """MC1x1 (and MC with a requested shape) on a mesh of free processors.

    For every free processor c, shells grow around it: shell s holds the
    processors at L-infinity distance s from c (from the requested submesh
    centred on c when ``request`` is given; MC of Mache, Lo and Windisch).
    The candidate takes as many free processors as possible from each shell
    before the next; its score is the sum of the shell numbers, and the
    candidate of least score wins (the first in input order on ties, see
    Notes).  The last shell is filled greedily by L1 distance to the
    processors already chosen.

    Parameters
    ----------
    points : array_like, shape (n, d)
        The free processors, distinct integer cells of the mesh; every other
        cell of the mesh is busy.
    k : int
        Number of processors to allocate.
    shape : sequence of int
        Mesh extent per axis (required).
    tie_break : None, "default" or (SR, AF, WF, BF), optional
        Break ties between candidates of equal score with the tie-breaking
        score of Johnson, Bunde and Leung (lowest wins): ``AF * available +
        WF * wall + BF * border`` with scan radius SR.  ``"default"`` is
        ``(round(width / 5), 13, 20, 6)``, width being ``shape[0]``.  Off by
        default: the first candidate in input order wins.
    request : sequence of int, optional
        Shape of shell 0 (a submesh centred on the candidate, offset
        ``(size - 1) // 2`` below it).  Default: 1 x 1 (MC1x1).

    Returns
    -------
    Result
        ``extra`` holds ``score`` (sum of shell numbers), ``n_tied``
        (candidates with the best score), ``centre`` (the winning candidate's
        coordinates) and ``centre_index`` (its row), ``last_shell``, and with tie-breaking the vector and
        the winner's partial scores.  ``guarantee`` is ``d (2 - 2/k)`` for
        MC1x1 (see Notes), None for MC with a requested shape.

    Raises
    ------
    ValueError
        Missing or wrong ``shape``, points off the mesh, non-integer or
        repeated cells, bad ``tie_break`` or ``request``.

    Notes
    -----
    Guarantee.  Let T be the winner's set around centre c, OPT an optimal
    set and s the point of OPT whose L1 star within OPT is shortest, at most
    2 W(OPT) / k.  Routing every pair of T through c gives
    ``W(T) <= (k - 1) star_c(T)``; an L1 star is at most d times the L-inf
    star, which is c's score; the score of c is at most that of s, at most
    the L-inf (so the L1) star of s within OPT.  Hence
    ``W(T) <= d (2 - 2/k) W(OPT)``, 4 in the plane as k grows, matching the
    factor 4 that SAND2003-3702 sec. 5.2 derives from Krumke et al.; the
    smallest-star instance of SAND2003-3702 sec. 5.2.2 shows that it is
    approached.  Any tie-breaking keeps it.

    Ties.  The least score wins; among candidates of equal score the first
    in input order (node-id order when a machine's free nodes are given),
    or with tie-breaking the first in input order among those of least
    tie score.  The last shell is filled one cell at a time, each time the
    cell of least total L1 distance to the cells chosen, the lowest input
    index on ties.

    Bound.  Up to 512 free cells, the larger of the neighbour and town
    bounds (:func:`~optalloc.ksubset.neighbour_bound`,
    :func:`~optalloc.ksubset.town_bound`) and W / guarantee.  Beyond, the
    bounds that cost nothing more: W / guarantee, the town value (k of at
    most 49 in the plane, 13 in space) and half the sum of the k least
    scores, all in the L1 metric.  The last holds because a cell's shell
    number is at most its L-infinity, so its L1, distance to the centre
    (which lies in its shell 0): the score of c is at most the sum f(c) of
    the k smallest L1 distances from c, and ``2 W(OPT) >= sum_{c in OPT}
    f(c)``.

    Cost.  The free cells in a box are counted with a prefix-sum table of
    the occupancy grid (2^d reads), so a candidate's shell counts and score
    cost O(L 2^d) for its last shell L: O(n L 2^d) in all, plus the winner's
    fill.  With tie-breaking the available, border and inner-wall parts of
    each tied candidate are box sums too; the greedy fill runs only for the
    tied candidates whose last shell has free cells on a wall and whose
    score, over the walls the fill can touch, can still win.  A mesh whose
    grid has more than 8 n^2 cells (a few points spread far) takes every
    pair instead: O(n^2).

    References
    ----------
    M. A. Bender et al. (2005), sec. 1; C. R. Johnson, D. P. Bunde and
    V. J. Leung, "A tie-breaking strategy for processor allocation in
    meshes", sec. II; J. Mache, V. Lo and K. Windisch (1997).

    Examples
    --------
    >>> from optalloc.ksubset import mc1x1
    >>> free = [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [3, 3]]
    >>> r = mc1x1(free, 4, shape=(4, 4))
    >>> r.indices.tolist(), r.extra["score"], r.extra["n_tied"]
    ([0, 1, 3, 4], 3, 4)
    """
    start = time.perf_counter()
    pts = validate_points(points)
    n, d = pts.shape
    k = validate_k(k, n)
    cells, shape = validate_mesh(pts, shape)
    vector = resolve_tie_break(tie_break, shape)
    if request is None:
        req = np.ones(d, dtype=np.int64)
    else:
        try:
            req = np.array([operator.index(r) for r in request], dtype=np.int64)
        except TypeError:
            raise ValueError(f"`request` must be a sequence of positive integers, got {request!r}") from None
        if len(req) != d or req.min() < 1:
            raise ValueError(f"`request` must give {d} positive sizes, got {tuple(request)}")
    lo, hi = _boxes(cells, req)
    volume = float(np.prod(np.array(shape, dtype=float)))
    if volume > min(_GRID_MAX, 8.0 * n * n):  # a few points spread far: the pairs cost less
        scores, n_tied, winner, chosen, last, tie = dense_choice(cells, lo, hi, k, vector, shape)
        extra = {"score": int(scores.min()), "n_tied": int(n_tied), **tie}
    else:
        scores, winner, chosen, last, extra = _grid_choice(cells, shape, lo, hi, k, vector)
    extra.update({"centre": pts[winner].tolist(), "centre_index": winner, "last_shell": last})
    if request is None:
        g = 1.0 if k == 1 else d * (2.0 - 2.0 / k)
        method_extra = {}
    else:
        g = None
        method_extra = {"request": req.tolist()}
    extra.update(method_extra)
    if n <= SMALL:
        bound = heuristic_bound(pts, k)
    else:
        town = {2: TOWN_2D, 3: TOWN_3D}.get(d, ())
        bound = max(half_least(scores, k), float(town[k - 1]) if k <= len(town) else 0.0)
    if g is not None:
        bound = max(bound, float(weights_of_sets(pts, np.sort(chosen)[None])[0]) / g)
    return make_result(pts, chosen, method="mc1x1", start=start, guarantee=g, bound=bound, extra=extra)


__all__ = ["mc1x1", "validate_mesh", "resolve_tie_break"]
