"""Gen-Alg, MM and MM+Inc at scale: the grid versions against the dense
ones they replaced.

The ``*_dense`` functions are the straightforward implementations kept as
the baseline and the tests' oracle: distance blocks of centres x points,
the k nearest by a partition on ``distance * n + row``, W of every set;
on a torus the dense matrix of the free nodes.  They return
:class:`Dense` (indices, W, bound, extra), with the tie rules of the
methods (see :func:`optalloc.ksubset.gen_alg`).  :func:`rows` times the
methods against them on the reference machines, half the nodes free at
random, k = 256.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from optalloc.ksubset import neighbour_bound, solve, town_bound

from .._common import BenchRow, best_time

__all__ = ["Dense", "gen_alg_dense", "mm_dense", "mm_inc_dense", "rows", "swap_descent_dense", "torus_dense"]

_BLOCK = 1 << 23
_CHUNK = 1 << 20


class Dense(NamedTuple):
    """What a dense baseline chose: node ids or rows (sorted), W, bound and the method's ``extra``."""

    indices: np.ndarray
    objective: float
    bound: float
    extra: dict


def _mm_guarantee(d: int, k: int) -> float:
    return 1.0 if k <= 3 else min(2.0 - 1.0 / (2 * d), 2.0 - 2.0 / k)


def _ga_guarantee(k: int) -> float:
    return max(1.0, 2.0 - 2.0 / k)


def _dtype(points):
    if np.all(points == np.round(points)) and np.abs(points).max(initial=0) < 2**28 // max(1, points.shape[1]):
        return points.astype(np.int32)
    return points


def _l1(points, centres):
    out = np.abs(centres[:, None, 0] - points[None, :, 0])
    for a in range(1, points.shape[1]):
        out += np.abs(centres[:, None, a] - points[None, :, a])
    return out


def _k_nearest(dist, k):
    m, n = dist.shape
    if k == n:
        return np.broadcast_to(np.arange(n), (m, n)).copy()
    if np.issubdtype(dist.dtype, np.integer):
        top = int(dist.max(initial=0)) + 1
        dtype = np.int32 if top * n < 2**31 else np.int64
        key = dist.astype(dtype) * dtype(n) + np.arange(n, dtype=dtype)
        return np.argpartition(key, k - 1, axis=1)[:, :k]
    return np.argsort(dist, axis=1, kind="stable")[:, :k]


def _weights(points, sets):
    sub = points[sets]
    sub.sort(axis=1)
    k = sub.shape[1]
    return np.einsum("mkd,k->m", sub, 2.0 * np.arange(k) - (k - 1))


def _best_of_centres(points, k, blocks, keep=0):
    pts = _dtype(points)
    best_w, best_set, best_c, seen = np.inf, None, -1, 0
    top_w, top = np.zeros(0), np.zeros((0, k), dtype=np.int64)
    for centres in blocks:
        sets = _k_nearest(_l1(pts, centres.astype(pts.dtype, copy=False)), k)
        w = _weights(points, sets)
        i = int(np.argmin(w))
        if w[i] < best_w:
            best_w, best_set, best_c = float(w[i]), sets[i].copy(), seen + i
        if keep:
            top_w, top = np.concatenate([top_w, w]), np.concatenate([top, sets])
            order = np.argsort(top_w, kind="stable")[:keep]
            top_w, top = top_w[order], top[order]
        seen += len(centres)
    return best_set, best_w, best_c, seen, top


def _bound(points, k, w, g):
    return max(neighbour_bound(points, k), town_bound(points, k), w / g)


def swap_descent_dense(points, chosen, max_swaps=None):
    """The dense best-improvement swap descent on points as it was: ``(chosen rows, swaps)``."""
    n = len(points)
    pts = _dtype(points)
    inside = np.zeros(n, dtype=bool)
    inside[chosen] = True
    s = _l1(pts, pts[chosen]).sum(axis=0).astype(np.float64)
    swaps = 0
    while max_swaps is None or swaps < max_swaps:
        cin, cout = np.flatnonzero(inside), np.flatnonzero(~inside)
        if len(cout) == 0:
            break
        delta = s[cout][None, :] - s[cin][:, None] - _l1(pts[cout], pts[cin])
        flat = int(np.argmin(delta))
        if delta.flat[flat] >= -1e-9 * max(1.0, float(s.max())):
            break
        i, j = cin[flat // len(cout)], cout[flat % len(cout)]
        inside[i], inside[j] = False, True
        s += _l1(pts, pts[[j]])[0] - _l1(pts, pts[[i]])[0]
        swaps += 1
    return np.flatnonzero(inside), swaps


def _w(points, rows):
    return float(_weights(points, np.asarray(rows)[None])[0])


def mm_dense(points, k) -> Dense:
    """MM on points as it was: every point of the product of the
    coordinate sets a centre (lexicographic order), dense blocks."""
    pts = np.asarray(points, dtype=float)
    n, d = pts.shape
    axes = [np.unique(pts[:, a]) for a in range(d)]
    total = int(np.prod([len(u) for u in axes]))
    shape = [len(u) for u in axes]

    def block(lo, hi):
        idx = np.unravel_index(np.arange(lo, hi), shape)
        return np.stack([axes[a][idx[a]] for a in range(d)], axis=1)

    step = max(1, _BLOCK // n)
    best_set, best_w, best_c, seen, _ = _best_of_centres(
        pts, k, (block(lo, min(total, lo + step)) for lo in range(0, total, step)))
    return Dense(np.sort(best_set), best_w, _bound(pts, k, best_w, _mm_guarantee(d, k)),
                 {"centre": block(best_c, best_c + 1)[0].tolist(), "centres": seen})


def gen_alg_dense(points, k, *, descents=0) -> Dense:
    """Gen-Alg on points as it was (dense blocks of centres x points)."""
    pts = np.asarray(points, dtype=float)
    n = len(pts)
    step = max(1, _BLOCK // n)
    best_set, best_w, best_c, _, top = _best_of_centres(pts, k, (pts[lo : lo + step] for lo in range(0, n, step)),
                                                        keep=descents)
    bound = _bound(pts, k, best_w, _ga_guarantee(k))
    extra = {"centre": pts[best_c].tolist(), "centre_index": best_c}
    if descents:
        extra["gen_alg_objective"] = best_w
        for rows_ in top:
            chosen, _ = swap_descent_dense(pts, rows_)
            w = _w(pts, chosen)
            if w < best_w:
                best_w, best_set = w, chosen
    return Dense(np.sort(best_set), _w(pts, best_set), bound, extra)


def mm_inc_dense(points, k, *, max_swaps=None) -> Dense:
    """MM+Inc on points as it was: MM, then the dense swap descent."""
    pts = np.asarray(points, dtype=float)
    base = mm_dense(pts, k)
    chosen, swaps = swap_descent_dense(pts, base.indices, max_swaps)
    w = _w(pts, chosen)
    bound = max(base.bound, w / _mm_guarantee(pts.shape[1], k))
    return Dense(chosen, w, bound, {"swaps": swaps, "mm_objective": base.objective})


def _set_weights(D, sets):
    """W of each row of ``sets`` in D (the replaced set_weights; the MC1x1 baseline reads it too)."""
    m, k = sets.shape
    if k < 2 or m == 0:
        return np.zeros(m)
    iu, ju = np.triu_indices(k, 1)
    step = max(1, (1 << 20) // len(iu))
    return np.concatenate([D[sets[lo : lo + step][:, iu], sets[lo : lo + step][:, ju]].sum(axis=1)
                           for lo in range(0, m, step)])


def _metric_descent(D, rows_):
    n = len(D)
    inside = np.zeros(n, dtype=bool)
    inside[rows_] = True
    s = D[:, inside].sum(axis=1)
    tol = 1e-9 * max(1.0, float(s.max(initial=0.0)))
    while True:
        cin, cout = np.flatnonzero(inside), np.flatnonzero(~inside)
        if len(cout) == 0 or len(cin) == 0:
            break
        delta = s[cout][None, :] - s[cin][:, None] - D[np.ix_(cin, cout)]
        flat = int(np.argmin(delta))
        if delta.flat[flat] >= -tol:
            break
        u, v = cin[flat // len(cout)], cout[flat % len(cout)]
        inside[u], inside[v] = False, True
        s += D[:, v] - D[:, u]
    return np.flatnonzero(inside)


def _mm_torus_rows(D, k, coords, shape, torus):
    centres = np.stack(np.meshgrid(*[np.arange(s) for s in shape], indexing="ij"), axis=-1).reshape(-1, len(shape))
    rows_, best = [], None
    step = max(1, _CHUNK // max(1, len(D)))
    for lo in range(0, len(centres), step):
        gap = np.abs(centres[lo : lo + step].astype(float)[:, None, :] - coords[None, :, :])
        for axis, (side, wrap) in enumerate(zip(shape, torus, strict=True)):
            if wrap:
                gap[:, :, axis] = np.minimum(gap[:, :, axis], side - gap[:, :, axis])
        near = np.argsort(gap.sum(axis=2), axis=1, kind="stable")[:, :k]
        w = _set_weights(D, near)
        i = int(np.argmin(w))
        if best is None or w[i] < best - 1e-9:
            rows_, best = np.sort(near[i]), float(w[i])
    return rows_, best, len(centres)


def torus_dense(machine, k, method) -> Dense:
    """``solve(machine, k, method=...)`` on a torus as it was, for
    ``"gen-alg"``, ``"mm"`` and ``"mm-inc"``: the dense distance matrix of
    the free nodes, then the method over it (indices are node ids)."""
    ids = np.asarray(machine.free_ids(), dtype=np.intp)
    D = np.asarray(machine.distances(ids), dtype=float)
    coords = np.asarray(machine.free_points(), dtype=float)
    g = _ga_guarantee(k)
    if method == "gen-alg":
        near = np.argsort(D, axis=1, kind="stable")[:, :k]
        ws = _set_weights(D, near)
        c = int(np.argmin(ws))
        rows_, extra = near[c], {"centre": int(ids[c]), "centres": len(D)}
    else:
        rows_, w, count = _mm_torus_rows(D, k, coords, machine.shape, machine.torus)
        extra = {"centres": count}
        if method == "mm-inc":
            rows_, extra = _metric_descent(D, rows_), {"mm_objective": w}
    rows_ = np.sort(rows_)
    w = float(D[np.ix_(rows_, rows_)].sum() / 2.0)
    return Dense(ids[rows_], w, w / g, extra)


def _half_free(shape, torus, seed):
    from optalloc.machine import Machine

    m = Machine(shape, torus=torus)
    rng = np.random.default_rng(seed)
    m.allocate(np.sort(rng.choice(m.n, m.n // 2, replace=False)))
    return m


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """One decision of Gen-Alg, MM and MM+Inc at half free and k = 256 on
    the 24x24x24 torus and mesh and the 64x64 mesh and torus (``quick``:
    8x8x8 and 16x16, k = 32), and Gen-Alg at k = 2,048 on the 24x24x24 torus
    (balls past half the rings; the dense version takes minutes), through the simulator's calls: on a mesh the
    function on the free points, on a torus ``solve(machine, k)``; against
    the dense versions, run once per case; ``agree``: the same set."""
    from optalloc.ksubset import gen_alg, mm, mm_inc

    both, every = (True, False), ("gen-alg", "mm", "mm-inc")
    cases = ([((8, 8, 8), 32, both, every), ((16, 16), 32, both, every)] if quick else
             [((24, 24, 24), 256, both, every), ((64, 64), 256, both, every),
              ((24, 24, 24), 2048, (True,), ("gen-alg",))])
    out: list[BenchRow] = []
    for shape, k, tori, methods in cases:
        for torus in tori:
            machine = _half_free(shape, torus, 0)
            pts = machine.free_points()
            inst = f"{'x'.join(map(str, shape))} {'torus' if torus else 'mesh'}, half free, k={k}"
            for name, func, dense in (("gen-alg", gen_alg, gen_alg_dense), ("mm", mm, mm_dense),
                                      ("mm-inc", mm_inc, mm_inc_dense)):
                if name not in methods:
                    continue
                if progress:
                    progress(f"{name} on {inst}")
                if torus:
                    def ours(name=name, machine=machine, k=k):
                        return solve(machine, k, method=name)
                    t0 = time.perf_counter()
                    base = torus_dense(machine, k, name)
                    t_base = time.perf_counter() - t0
                else:
                    def ours(func=func, pts=pts, k=k):
                        return func(pts, k)
                    t0 = time.perf_counter()
                    base = dense(pts, k)
                    t_base = time.perf_counter() - t0
                    base = base._replace(indices=machine.free_ids()[base.indices])
                ours()  # compiled once
                t_ours, r = best_time(ours, 5)
                got = r.indices if torus else machine.free_ids()[r.indices]
                same = got.tolist() == base.indices.tolist() and r.objective == base.objective
                out.append(BenchRow(name, inst, t_ours, f"dense {name}", t_base, bool(same)))
    return out
