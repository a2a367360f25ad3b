"""MC1x1 at scale (``--suite scale``, part ``mc``): the shell-count kernels
of :func:`optalloc.ksubset.mc1x1` and of MC1x1 on a torus against today's
straightforward implementations, kept here as the oracle.

:func:`baseline_mc1x1` is the mesh method as it was (the shell number of
every free cell for every centre: O(n^2)); :func:`baseline_mc1x1_torus`
the torus method as it was (the free nodes' distance matrix, the k
nearest by torus L-infinity, then torus L1, then node id, around every
free node, and the set of least W).  Both return what the methods return;
the tests compare the new code with them on random states.
"""

from __future__ import annotations

import operator
import time

import numpy as np

from optalloc._subset import metric_subset_result, subset_result
from optalloc._validate import validate_k, validate_points

from .._common import BenchRow
from ._centres import _set_weights

__all__ = ["baseline_machine", "baseline_mc1x1", "baseline_mc1x1_torus", "rows"]

_BLOCK = 1 << 23
_CHUNK = 1 << 20


# -- the mesh method as it was ------------------------------------------------


def _l1_to_all(points, centres):
    out = np.abs(centres[:, None, 0] - points[None, :, 0])
    for a in range(1, points.shape[1]):
        out += np.abs(centres[:, None, a] - points[None, :, a])
    return out


def _shell_rows(cells, lo, hi):
    out = np.zeros((len(lo), len(cells)), dtype=np.int32)
    for a in range(cells.shape[1]):
        x = cells[None, :, a]
        gap = np.maximum(np.maximum(lo[:, None, a] - x, x - hi[:, None, a]), 0)
        np.maximum(out, gap, out=out)
    return out


def _allocate(cells, shells, k, centre):
    last = int(np.partition(shells, k - 1)[k - 1])
    chosen = list(np.flatnonzero(shells < last))
    pool = np.flatnonzero(shells == last)
    need = k - len(chosen)
    if not chosen:
        chosen.append(centre)
        pool = pool[pool != centre]
        need -= 1
    s = _l1_to_all(cells[pool], cells[chosen]).sum(axis=0)
    taken = np.zeros(len(pool), dtype=bool)
    for _ in range(need):
        score = np.where(taken, np.iinfo(np.int64).max, s)
        j = int(np.argmin(score))
        taken[j] = True
        chosen.append(pool[j])
        s = s + np.abs(cells[pool] - cells[pool[j]]).sum(axis=1)
    return np.asarray(chosen, dtype=np.intp), last


def _tie_score(free_grid, cells, chosen, lo, hi, last, vector):
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


def baseline_mc1x1(points, k, *, shape, tie_break=None, request=None, bound=True):
    """Today's :func:`optalloc.ksubset.mc1x1` (O(n^2)), the oracle.

    ``bound=False`` skips its O(n^2) bound (the result's bound is then
    W / guarantee alone), for timing the choice.
    """
    from optalloc.ksubset import neighbour_bound, town_bound

    start = time.perf_counter()
    pts = validate_points(points)
    n, d = pts.shape
    k = validate_k(k, n)
    cells, shape = pts.astype(np.int64), tuple(int(s) for s in shape)
    if tie_break is None or tie_break is False:
        vector = None
    elif isinstance(tie_break, str):
        vector = (int(np.floor(shape[0] / 5 + 0.5)), 13.0, 20.0, 6.0)
    else:
        sr, af, wf, bf = tie_break
        vector = (operator.index(sr), float(af), float(wf), float(bf))
    if request is None:
        req = np.ones(d, dtype=np.int64)
    else:
        req = np.array([operator.index(r) for r in request], dtype=np.int64)
    lo = cells - (req - 1) // 2
    hi = lo + req - 1
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
    else:
        g = None
        extra["request"] = req.tolist()
    lower = max(neighbour_bound(pts, k), town_bound(pts, k)) if bound else 0.0
    if g is not None:
        sub = np.sort(pts[np.sort(chosen)], axis=0)
        w = float(np.einsum("kd,k->", sub, 2.0 * np.arange(k) - (k - 1)))
        lower = max(lower, w / g)
    return subset_result(pts, chosen, method="mc1x1", start=start, guarantee=g, bound=lower, extra=extra)


# -- the torus method as it was -----------------------------------------------


def _axis_gaps(a, b, shape, torus):
    gap = np.abs(a[:, None, :] - b[None, :, :])
    for axis, (side, wrap) in enumerate(zip(shape, torus, strict=True)):
        if wrap:
            gap[:, :, axis] = np.minimum(gap[:, :, axis], side - gap[:, :, axis])
    return gap


def baseline_mc1x1_torus(D, k, *, ids, coords, axes):
    """Today's MC1x1 on a torus over the distance matrix ``D`` of the free
    nodes (O(n^2) memory and time), the oracle."""
    start = time.perf_counter()
    shape, torus = axes
    n = len(D)
    rows, best = None, None
    step = max(1, _CHUNK // max(1, n * len(shape)))
    for lo in range(0, n, step):
        gaps = _axis_gaps(coords[lo : lo + step], coords, shape, torus)
        primary, secondary = gaps.max(axis=2), gaps.sum(axis=2)
        column = np.broadcast_to(np.arange(primary.shape[1]), primary.shape)
        near = np.lexsort((column, secondary, primary), axis=-1)[:, :k]
        w = _set_weights(D, near)
        i = int(np.argmin(w))
        if best is None or w[i] < best - 1e-9:
            rows, best = np.sort(near[i]), float(w[i])
    d = len(shape)
    g = d * max(1.0, 2.0 - 2.0 / k) if k > 1 else 1.0
    w = float(D[np.ix_(rows, rows)].sum() / 2.0)
    return metric_subset_result(D, rows, ids=ids, coords=coords, method="mc1x1", start=start, guarantee=g,
                                bound=w / g, extra={"centres": n})


def baseline_machine(machine, k):
    """:func:`baseline_mc1x1_torus` on the free nodes of ``machine`` (its
    distance matrix built as before)."""
    ids = np.asarray(machine.free_ids(), dtype=np.intp)
    D = np.asarray(machine.distances(ids), dtype=float)
    coords = np.asarray(machine.free_points(), dtype=float)
    return baseline_mc1x1_torus(D, k, ids=ids, coords=coords, axes=(tuple(machine.shape), tuple(machine.torus)))


# -- the figures ----------------------------------------------------------------


def _half_free(shape, torus: bool, seed: int = 0):
    from optalloc.machine import Machine

    machine = Machine(shape, torus=torus)
    rng = np.random.default_rng(seed)
    machine.allocate(np.sort(rng.choice(machine.n, machine.n // 2, replace=False)))
    return machine


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """One decision of MC1x1 at half free, k = 256 (k = 64 with ``quick``):
    ours (best of five) against today's implementation (run once) on the
    same state; ``agree`` is the same chosen set.

    Cases: the 24x24x24 torus and mesh, the 64x64 mesh and torus without
    tie-breaking, and on the meshes with the default tie-breaking and with
    a requested shell 0 (2 per axis).  ``quick`` runs 8x8x8 and 24x24.
    """
    from optalloc.ksubset import mc1x1, solve

    from .._common import best_time

    k = 64 if quick else 256
    cubes, squares = ((8, 8, 8), (24, 24)) if quick else ((24, 24, 24), (64, 64))
    out: list[BenchRow] = []

    def case(name, instance, fast, base):
        if progress:
            progress(f"{name} on {instance}")
        fast()  # the kernels' first call compiles or loads them: not timed
        seconds, ours = best_time(fast, 5)
        t = time.perf_counter()
        theirs = base()
        took = time.perf_counter() - t
        out.append(BenchRow(name, instance, seconds, "today's implementation", took,
                            ours.indices.tolist() == theirs.indices.tolist()))

    for shape in (cubes, squares):
        label = "x".join(map(str, shape))
        torus = _half_free(shape, True)
        out_name = f"{label} torus, half free, k={k}"
        case("mc1x1", out_name, lambda m=torus: solve(m, k, method="mc1x1"), lambda m=torus: baseline_machine(m, k))
        mesh = _half_free(shape, False)
        pts = np.asarray(mesh.free_points())
        instance = f"{label} mesh, half free, k={k}"
        for name, opts in (("mc1x1", {}), ("mc1x1 tie_break=default", {"tie_break": "default"}),
                           ("mc1x1 request=2", {"request": (2,) * len(shape)})):
            case(name, instance, lambda p=pts, s=shape, o=opts: mc1x1(p, k, shape=s, **o),
                 lambda p=pts, s=shape, o=opts: baseline_mc1x1(p, k, shape=s, **o))
    return out
