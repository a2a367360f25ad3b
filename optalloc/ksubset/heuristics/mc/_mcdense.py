"""MC1x1 on a sparse mesh: the shell number of every point for every
centre (O(n^2)), for meshes whose grid is much larger than the points
(a handful of points spread over a large extent), where the prefix-sum
table of :mod:`._mcgrid` would cost more than the pairs."""

from __future__ import annotations

import numpy as np

from ..._common import l1_to_all

__all__ = ["dense_choice"]

_BLOCK = 1 << 23


def _shell_rows(cells: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Shell number of every cell for each box: L-inf distance to the box."""
    out = np.zeros((len(lo), len(cells)), dtype=np.int32)
    for a in range(cells.shape[1]):
        x = cells[None, :, a]
        gap = np.maximum(np.maximum(lo[:, None, a] - x, x - hi[:, None, a]), 0)
        np.maximum(out, gap, out=out)
    return out


def _allocate(cells: np.ndarray, shells: np.ndarray, k: int, centre: int) -> tuple[np.ndarray, int]:
    """All points of the inner shells plus a greedy part of the last one
    (least total L1 distance to the points chosen, lowest index on ties)."""
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


def _volume(lo, hi, s, shape) -> int:
    """Mesh cells within L-infinity distance s of the box [lo, hi]."""
    return int(np.prod(np.minimum(hi + s, shape - 1) - np.maximum(lo - s, 0) + 1))


def _tie_score(cells, shells, chosen, lo, hi, last, vector, shape) -> tuple[float, dict]:
    """Tie-breaking score of Johnson, Bunde and Leung from the points'
    shell numbers (``shells``); the busy cells of shell last + 1 are the
    shell's mesh cells less its points."""
    sr, af, wf, bf = vector
    shape = np.array(shape)
    top = last + sr
    unused = np.ones(len(cells), dtype=bool)
    unused[chosen] = False
    near = unused & (shells <= top)
    available = float((top - shells[near] + 1).sum())
    ch = cells[chosen]
    s_ch = shells[chosen]
    walls = ((ch == 0).astype(int) + (ch == shape - 1).astype(int)).sum(axis=1)
    wall = -float(((top - s_ch + 1) * walls).sum())
    busy = _volume(lo, hi, last + 1, shape) - _volume(lo, hi, last, shape) - int((shells == last + 1).sum())
    border = -float(sr * busy)
    total = af * available + wf * wall + bf * border
    return total, {"available": available, "wall": wall + 0.0, "border": border + 0.0}


def dense_choice(cells, lo, hi, k, vector, shape):
    """MC's choice from every pair: ``(scores, n_tied, winner, chosen,
    last, tie extras)``, with the rules of :func:`~optalloc.ksubset.mc1x1`."""
    n = len(cells)
    scores = np.empty(n, dtype=np.int64)
    step = max(1, _BLOCK // n)
    for a in range(0, n, step):
        sh = _shell_rows(cells, lo[a : a + step], hi[a : a + step])
        scores[a : a + step] = np.partition(sh, k - 1, axis=1)[:, :k].sum(axis=1)
    tied = np.flatnonzero(scores == scores.min())

    def shells(c):
        return _shell_rows(cells, lo[c : c + 1], hi[c : c + 1])[0].astype(np.int64)

    def build(c):
        return _allocate(cells, shells(c), k, c)

    if vector is None:
        winner = int(tied[0])
        chosen, last = build(winner)
        return scores, len(tied), winner, chosen, last, {}
    winner, chosen, last, best_tb, parts = -1, None, 0, np.inf, {}
    for c in tied:
        ch, L = build(int(c))
        tb, p = _tie_score(cells, shells(int(c)), ch, lo[c], hi[c], L, vector, shape)
        if tb < best_tb:
            winner, chosen, last, best_tb, parts = int(c), ch, L, tb, p
    return scores, len(tied), winner, chosen, last, {"tie_break": list(vector), "tie_score": best_tb, **parts}
