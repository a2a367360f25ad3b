"""Dual recursive bipartitioning (as in Scotch): split the machine's box
along its longest axis and the tasks by a balanced min-cut bisection
that also weighs each task's traffic to the tasks already sent elsewhere
(the bias of :mod:`._bisect`), until every box is one node."""

from __future__ import annotations

from collections import deque

import numpy as np

from ..._jit import njit
from ._bisect import bisect, cut_value


@njit(cache=True)
def _ring(a, b, side, wrap):
    x = abs(a - b)
    if wrap and side - x < x:
        x = side - x
    return x


@njit(cache=True)
def job_graph(indptr, indices, weights, tasks, local, centre, c0, c1, sides, wrap):
    """The graph among ``tasks`` (``local[tasks]`` set to 0..len-1) and each
    task's bias: its traffic to the other tasks costs this much less when
    it goes to the box centred at c0 than at c1."""
    k = len(tasks)
    sp = np.zeros(k + 1, np.int64)
    cnt = 0
    for a in range(k):
        v = tasks[a]
        for e in range(indptr[v], indptr[v + 1]):
            if local[indices[e]] >= 0:
                cnt += 1
    si = np.empty(cnt, np.int64)
    sw = np.empty(cnt)
    bias = np.zeros(k)
    cnt = 0
    d = len(sides)
    for a in range(k):
        v = tasks[a]
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if local[u] >= 0:
                si[cnt] = local[u]
                sw[cnt] = weights[e]
                cnt += 1
            else:
                d0 = 0.0
                d1 = 0.0
                for x in range(d):
                    d0 += _ring(c0[x], centre[u, x], sides[x], wrap[x])
                    d1 += _ring(c1[x], centre[u, x], sides[x], wrap[x])
                bias[a] += weights[e] * (d1 - d0)
        sp[a + 1] = cnt
    return sp, si, sw, bias


def drb(A, machine, rng, repeats: int = 6) -> np.ndarray:
    """Node of each task (``A``: symmetric CSR over exactly ``machine.n`` tasks) on a whole mesh or torus."""
    n = A.shape[0]
    sides = np.asarray(machine.shape, dtype=np.int64)
    wrap = np.asarray(machine.torus, dtype=bool)
    strides = np.concatenate(([1], np.cumprod(sides[:-1]))).astype(np.int64)
    indptr, indices, weights = A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(np.float64)
    centre = np.tile((sides - 1) / 2.0, (n, 1))
    local = np.full(n, -1, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    sidesf = sides.astype(np.float64)
    jobs = deque([(np.arange(n, dtype=np.int64), np.zeros(len(sides), np.int64), sides.copy())])
    while jobs:
        tasks, origin, size = jobs.popleft()
        if len(tasks) == 1:
            pos[tasks[0]] = int(((origin % sides) * strides).sum())
            continue
        k = int(np.argmax(size))  # the first longest axis: every box of a level splits alike
        size0 = size.copy()
        size0[k] //= 2
        size1 = size.copy()
        size1[k] -= size0[k]
        origin1 = origin.copy()
        origin1[k] += size0[k]
        c0 = (origin + (size0 - 1) / 2.0) % sidesf
        c1 = (origin1 + (size1 - 1) / 2.0) % sidesf
        local[tasks] = np.arange(len(tasks))
        sp, si, sw, bias = job_graph(indptr, indices, weights, tasks, local, centre, c0, c1, sidesf, wrap)
        local[tasks] = -1
        if len(tasks) == 2:  # the task that gains more from the first box takes it
            side = np.array([0, 1]) if bias[0] - bias[1] >= 0 else np.array([1, 0])
            t0, t1 = tasks[side == 0], tasks[side == 1]
            pos[t0[0]] = int(((origin % sides) * strides).sum())
            pos[t1[0]] = int(((origin1 % sides) * strides).sum())
            continue
        side, value = None, np.inf
        for _ in range(repeats if len(tasks) >= 8 else 1):
            s = bisect(sp, si, sw, bias, int(np.prod(size0)), rng)
            v = cut_value(sp, si, sw, bias, s)
            if v < value:
                side, value = s, v
        t0, t1 = tasks[side == 0], tasks[side == 1]
        centre[t0] = c0
        centre[t1] = c1
        jobs.append((t0, origin, size0))
        jobs.append((t1, origin1, size1))
    return pos
