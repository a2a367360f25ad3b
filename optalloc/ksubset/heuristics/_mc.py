"""MC1x1 and MC: shell-based allocation on a mesh, with tie-breaking."""

from __future__ import annotations

import operator
import time

import numpy as np

from .._common import l1_to_all, make_result, validate_k, validate_points, weights_of_sets
from ..bounds._lattice import heuristic_bound

_BLOCK = 1 << 23


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


def _shell_rows(cells: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Shell number of every cell for each box: L-inf distance to the box."""
    out = np.zeros((len(lo), len(cells)), dtype=np.int32)
    for a in range(cells.shape[1]):
        x = cells[None, :, a]
        gap = np.maximum(np.maximum(lo[:, None, a] - x, x - hi[:, None, a]), 0)
        np.maximum(out, gap, out=out)
    return out


def _allocate(cells: np.ndarray, shells: np.ndarray, k: int, centre: int) -> tuple[np.ndarray, int]:
    """All points of the inner shells plus a greedy part of the last one.

    The last shell is filled one point at a time, each time with the point
    of least total L1 distance to the points already chosen (lowest index on
    ties), not in scan order.  Returns (chosen indices, last shell number).
    """
    last = int(np.partition(shells, k - 1)[k - 1])
    chosen = list(np.flatnonzero(shells < last))
    pool = np.flatnonzero(shells == last)
    need = k - len(chosen)
    if not chosen:  # only with last = 0: start from the centre itself
        chosen.append(centre)
        pool = pool[pool != centre]
        need -= 1
    s = l1_to_all(cells[pool], cells[chosen]).sum(axis=0)
    taken = np.zeros(len(pool), dtype=bool)
    for _ in range(need):
        score = np.where(taken, np.iinfo(np.int64).max, s)
        j = int(np.argmin(score))
        taken[j] = True
        chosen.append(pool[j])
        s = s + np.abs(cells[pool] - cells[pool[j]]).sum(axis=1)
    return np.asarray(chosen, dtype=np.intp), last


def _tie_score(free_grid, cells, chosen, lo, hi, last, vector) -> tuple[float, dict]:
    """Tie-breaking score of Johnson, Bunde and Leung (sec. II), any dimension.

    With the max shell M = last + SR and the reverse distance of a cell in
    shell s equal to M - s + 1:
    available = sum over unused free cells with s <= M of (M - s + 1);
    wall = -sum over chosen cells of (M - s + 1) * (walls the cell touches);
    border = -sum over busy cells in shell last + 1 of (M - s + 1).
    """
    sr, af, wf, bf = vector
    shape = np.array(free_grid.shape)
    top = last + sr
    reach = max(top, last + 1)
    a0 = np.maximum(lo - reach, 0)
    a1 = np.minimum(hi + reach, shape - 1)
    sl = tuple(slice(int(a), int(b) + 1) for a, b in zip(a0, a1))
    region_free = free_grid[sl].copy()
    grids = np.meshgrid(*[np.arange(int(a), int(b) + 1) for a, b in zip(a0, a1)], indexing="ij")
    shell = np.zeros(region_free.shape, dtype=np.int64)
    for ax, g in enumerate(grids):
        shell = np.maximum(shell, np.maximum(np.maximum(lo[ax] - g, g - hi[ax]), 0))
    # unmark chosen cells: they are not "unused free" cells
    ch = cells[chosen]
    region_free[tuple((ch - a0).T)] = False
    rev = top - shell + 1
    available = float(rev[region_free & (shell <= top)].sum())
    s_ch = np.max(np.maximum(np.maximum(lo - ch, ch - hi), 0), axis=1)
    walls = ((ch == 0).astype(int) + (ch == shape - 1).astype(int)).sum(axis=1)
    wall = -float(((top - s_ch + 1) * walls).sum())
    busy = ~free_grid[sl]
    border = -float(rev[busy & (shell == last + 1)].sum())
    total = af * available + wf * wall + bf * border
    return total, {"available": available, "wall": wall + 0.0, "border": border + 0.0}


def mc1x1(points, k, *, shape=None, tie_break=None, request=None):
    """MC1x1 (and MC with a requested shape) on a mesh of free processors.

    For every free processor c, shells grow around it: shell s holds the
    processors at L-infinity distance s from c (from the requested submesh
    centred on c when ``request`` is given; MC of Mache, Lo and Windisch).
    The candidate takes as many free processors as possible from each shell
    before the next; its score is the sum of the shell numbers, and the
    candidate of least score wins.  The last shell is filled greedily by L1
    distance to the processors already chosen.

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

    O(n^2) for the scores (one partial sort per candidate) plus, with
    tie-breaking, O(t (k + (2 (L + SR) + 1)^d)) for t tied candidates of last
    shell L.

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

    scores = np.empty(n, dtype=np.int64)
    step = max(1, _BLOCK // n)
    for a in range(0, n, step):
        sh = _shell_rows(cells, lo[a : a + step], hi[a : a + step])
        scores[a : a + step] = np.partition(sh, k - 1, axis=1)[:, :k].sum(axis=1)
    best = scores.min()
    tied = np.flatnonzero(scores == best)

    def build(c):
        return _allocate(cells, _shell_rows(cells, lo[c : c + 1], hi[c : c + 1])[0], k, c)

    extra = {"score": int(best), "n_tied": int(len(tied))}
    if vector is None:
        winner = int(tied[0])
        chosen, last = build(winner)
    else:
        free_grid = np.zeros(shape, dtype=bool)
        free_grid[tuple(cells.T)] = True
        winner, chosen, last, best_tb, parts = -1, None, 0, np.inf, {}
        for c in tied:
            ch, L = build(int(c))
            tb, p = _tie_score(free_grid, cells, ch, lo[c], hi[c], L, vector)
            if tb < best_tb:
                winner, chosen, last, best_tb, parts = int(c), ch, L, tb, p
        extra.update({"tie_break": list(vector), "tie_score": best_tb, **parts})
    extra.update({"centre": pts[winner].tolist(), "centre_index": winner, "last_shell": last})
    if request is None:
        g = 1.0 if k == 1 else d * (2.0 - 2.0 / k)
        method_extra = {}
    else:
        g = None
        method_extra = {"request": req.tolist()}
    extra.update(method_extra)
    bound = heuristic_bound(pts, k)
    if g is not None:
        bound = max(bound, float(weights_of_sets(pts, np.sort(chosen)[None])[0]) / g)
    return make_result(pts, chosen, method="mc1x1", start=start, guarantee=g, bound=bound, extra=extra)


__all__ = ["mc1x1", "validate_mesh", "resolve_tie_break"]
