"""MM, MM+Inc and MC1x1 on a torus: the centre-based heuristics with wrap.

Each heuristic scores, around every centre c, the k free nodes nearest to
c and keeps the best set.  The guarantee that survives the wrap is the
Gen-Alg argument (Krumke et al.; Bender et al. 2005 sec. 2), which needs
only the triangle inequality and centres that include every free node:
for the best star centre c of an optimal set S*,

    W(N(c)) <= (k - 1) sum_{v in N(c)} D(c, v) <= (k - 1) sum_{v in S*} D(c, v)
            <= (k - 1) * 2 OPT / k,

so W <= (2 - 2/k) OPT whenever N(c) is the k nearest free nodes by D:

``mm``
    every node of the torus is a centre (this includes the free nodes),
    N(c) its k nearest free nodes by torus distance: 2 - 2/k.  The mesh
    figures min(2 - 1/(2d), 2 - 2/k) and 7/4 in 2D rest on L1 medians,
    which a ring does not have; they are not claimed on a torus.
``mm-inc``
    MM, then best-improvement swaps: as MM.
``mc1x1``
    every free node is a centre, N(c) its k nearest free nodes by the
    torus L-infinity distance (shells; ties by torus distance, then node
    id); the set of least W wins, the first centre in node-id order on
    ties.  With D_inf <= D <= d D_inf the chain above gives d (2 - 2/k),
    the mesh's figure.  It is counted on the free grid with prefix sums,
    without the distance matrix (:mod:`.mc._mctorus`).  The mesh's tie-breaking and requested shapes are
    not defined with wrap and are refused.

Distances are per axis ``min(|a - b|, L - |a - b|)`` on a wrapped axis of
length L and ``|a - b|`` on the others.
"""

from __future__ import annotations

import time

import numpy as np

from ..._subset import metric_subset_result
from .centres import gen_alg_guarantee, metric_descent, mm_inc_torus_grid, mm_torus_grid, set_weights
from .mc import coords_mc1x1

__all__ = ["TORUS_METHODS", "mc1x1_torus", "mm_inc_torus", "mm_torus"]

_CHUNK = 1 << 20


def _axis_gaps(a: np.ndarray, b: np.ndarray, shape, torus) -> np.ndarray:
    """Per-axis distances (len(a), len(b), d) between coordinates a and b."""
    gap = np.abs(a[:, None, :] - b[None, :, :])
    for axis, (side, wrap) in enumerate(zip(shape, torus, strict=True)):
        if wrap:
            gap[:, :, axis] = np.minimum(gap[:, :, axis], side - gap[:, :, axis])
    return gap


def _best_of(D: np.ndarray, near: np.ndarray) -> tuple[np.ndarray, float]:
    """The row of ``near`` (centres x k candidate rows) of least W in D."""
    w = set_weights(D, near)
    i = int(np.argmin(w))  # the first least W, as the centres come
    return np.sort(near[i]), float(w[i])


def _nearest(primary: np.ndarray, secondary: np.ndarray, k: int) -> np.ndarray:
    """Per row, the k columns of least ``primary``, ties by ``secondary``,
    then by column (node id order)."""
    column = np.broadcast_to(np.arange(primary.shape[1]), primary.shape)
    return np.lexsort((column, secondary, primary), axis=-1)[:, :k]  # the last key sorts first


def _result(D, rows, *, ids, coords, method, start, guarantee, extra):
    w = float(D[np.ix_(rows, rows)].sum() / 2.0)
    return metric_subset_result(D, rows, ids=ids, coords=coords, method=method, start=start, guarantee=guarantee,
                                bound=w / guarantee, extra=extra)


def mm_torus(D, k, *, ids, coords, axes):
    """MM on a torus: the k nearest free nodes around every node of the
    torus, the best set kept; guarantee 2 - 2/k (see the module notes).
    Up to three axes it runs on the coordinates alone
    (:func:`~optalloc.ksubset.heuristics.centres._centres.mm_torus_grid`; D may be None)."""
    if len(axes[0]) <= 3:
        return mm_torus_grid(D, k, ids=ids, coords=coords, axes=axes)
    start = time.perf_counter()
    shape, torus = axes
    centres = np.stack(np.meshgrid(*[np.arange(s) for s in shape], indexing="ij"), axis=-1).reshape(-1, len(shape))
    rows, best = [], None
    step = max(1, _CHUNK // max(1, len(D)))
    for lo in range(0, len(centres), step):
        dist = _axis_gaps(centres[lo : lo + step].astype(float), coords, shape, torus).sum(axis=2)
        near = np.argsort(dist, axis=1, kind="stable")[:, :k]
        cand, w = _best_of(D, near)
        if best is None or w < best - 1e-9:
            rows, best = cand, w
    g = gen_alg_guarantee(k)
    return _result(D, rows, ids=ids, coords=coords, method="mm", start=start, guarantee=g,
                   extra={"centres": len(centres)})


def mm_inc_torus(D, k, *, ids, coords, axes):
    """MM on a torus, then best-improvement swaps; guarantee as MM.  Up to
    three axes on the coordinates alone (D may be None)."""
    if len(axes[0]) <= 3:
        return mm_inc_torus_grid(D, k, ids=ids, coords=coords, axes=axes)
    start = time.perf_counter()
    first = mm_torus(D, k, ids=ids, coords=coords, axes=axes)
    rows = metric_descent(D, np.searchsorted(ids, first.indices))
    return _result(D, rows, ids=ids, coords=coords, method="mm-inc", start=start, guarantee=first.guarantee,
                   extra={"mm_objective": first.objective})


def mc1x1_torus(D, k, *, ids, coords, axes):
    """MC1x1 on a torus: shells by the torus L-infinity distance around
    every free node (ties by torus distance, then node id); guarantee
    d (2 - 2/k) (see the module notes).  Computed from the free grid
    (:mod:`.mc._mctorus`): D is not read."""
    return coords_mc1x1(k, ids=ids, coords=coords, axes=axes)


#: Methods defined on a torus only: name -> function over (D, k, ids=, coords=, axes=).
TORUS_METHODS = {"mc1x1": mc1x1_torus, "mm": mm_torus, "mm-inc": mm_inc_torus}
