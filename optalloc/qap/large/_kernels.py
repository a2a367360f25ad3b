"""Compiled loops of the multilevel mapper (numba, compiled on first use).

The communication graph travels as CSR arrays (``indptr``, ``indices``,
``weights``: symmetric, zero diagonal); a placement as ``pos`` (task ->
node) and ``occ`` (node -> task); the nodes of a level as integer
coordinates with per-axis sides, wrap flags and lengths (``scale``), or,
on a network, as a dense distance matrix ``D`` (``use_d``).  A node's
neighbours (its links) travel as CSR arrays too.
"""

from __future__ import annotations

import numpy as np

from ..._jit import njit


@njit(cache=True)
def pair_cost(u, v, coords, sides, wrap, scale, active, td, D, use_d):
    """Cost between nodes u and v: scaled hops, plus the axis spread for TD."""
    if use_d:
        return D[u, v]
    s = 0.0
    hi = -1.0
    lo = 1e300
    for k in range(coords.shape[1]):
        x = abs(coords[u, k] - coords[v, k])
        if wrap[k] and sides[k] - x < x:
            x = sides[k] - x
        h = x * scale[k]
        s += h
        if active[k]:
            hi = max(hi, h)
            lo = min(lo, h)
    if td:
        s += hi - lo
    return s


@njit(cache=True)
def placement_cost(indptr, indices, weights, pos, coords, sides, wrap, scale, active, td, D, use_d):
    """``sum_{i<j} A[i, j] cost(pos[i], pos[j])``."""
    total = 0.0
    for i in range(len(indptr) - 1):
        for e in range(indptr[i], indptr[i + 1]):
            j = indices[e]
            if j > i:
                total += weights[e] * pair_cost(pos[i], pos[j], coords, sides, wrap, scale, active, td, D, use_d)
    return total


@njit(cache=True)
def _swap_delta(i, q, k, pos, indptr, indices, weights, coords, sides, wrap, scale, active, td, D, use_d):
    """Change of the cost when task i moves to node q and task k (at q, or -1) to i's node."""
    p = pos[i]
    delta = 0.0
    for e in range(indptr[i], indptr[i + 1]):
        j = indices[e]
        if j != k:
            r = pos[j]
            delta += weights[e] * (pair_cost(q, r, coords, sides, wrap, scale, active, td, D, use_d)
                                   - pair_cost(p, r, coords, sides, wrap, scale, active, td, D, use_d))
    if k >= 0:
        for e in range(indptr[k], indptr[k + 1]):
            j = indices[e]
            if j != i:
                r = pos[j]
                delta += weights[e] * (pair_cost(p, r, coords, sides, wrap, scale, active, td, D, use_d)
                                       - pair_cost(q, r, coords, sides, wrap, scale, active, td, D, use_d))
    return delta


@njit(cache=True)
def _best_move(i, pos, occ, indptr, indices, weights, coords, sides, wrap, scale, active, td, D, use_d, nptr, nidx,
               cptr, cidx):
    """Best swap of task i with the task on a node of its heaviest partners
    (``cidx[cptr[i]:cptr[i + 1]]``), their neighbours or its own node's
    neighbours: (change, node), node -1 if none lowers the cost."""
    p = pos[i]
    best = -1e-9
    best_q = -1
    for e in range(cptr[i] - 1, cptr[i + 1]):
        c = p if e < cptr[i] else pos[cidx[e]]
        for f in range(nptr[c] - 1, nptr[c + 1]):
            q = c if f < nptr[c] else nidx[f]
            if q == p:
                continue
            dq = _swap_delta(i, q, occ[q], pos, indptr, indices, weights, coords, sides, wrap, scale,
                             active, td, D, use_d)
            if dq < best:
                best = dq
                best_q = q
    return best, best_q


@njit(cache=True)
def _swap(i, q, pos, occ, log, nlog):
    """Task i to node q, the task there (if any) to i's node; logged for an undo."""
    p = pos[i]
    k = occ[q]
    pos[i] = q
    occ[q] = i
    occ[p] = k
    if k >= 0:
        pos[k] = p
    log[nlog, 0] = i
    log[nlog, 1] = p
    log[nlog, 2] = q
    log[nlog, 3] = k
    return k


@njit(cache=True)
def _enqueue(v, queue, inq, tail, n):
    if not inq[v]:
        inq[v] = True
        queue[tail % n] = v
        tail += 1
    return tail


@njit(cache=True)
def _descend(indptr, indices, weights, pos, occ, coords, sides, wrap, scale, active, td, D, use_d, nptr, nidx,
             cptr, cidx, queue, inq, head, tail, log, nlog, budget):
    """Best-swap descent over the tasks in the queue; a task whose partners
    moved is queued again.  Stops when the queue empties, the log fills or
    ``budget[0]`` visits are spent (it counts them down)."""
    n = len(pos)
    change = 0.0
    while head < tail and nlog < len(log) and budget[0] > 0:
        i = queue[head % n]
        head += 1
        budget[0] -= 1
        inq[i] = False
        if indptr[i + 1] == indptr[i]:
            continue
        best, q = _best_move(i, pos, occ, indptr, indices, weights, coords, sides, wrap, scale, active, td, D,
                             use_d, nptr, nidx, cptr, cidx)
        if q < 0:
            continue
        k = _swap(i, q, pos, occ, log, nlog)
        nlog += 1
        change += best
        for v in (i, k):
            if v < 0:
                continue
            tail = _enqueue(v, queue, inq, tail, n)
            for e in range(indptr[v], indptr[v + 1]):
                tail = _enqueue(indices[e], queue, inq, tail, n)
    return change, nlog


@njit(cache=True)
def refine(indptr, indices, weights, pos, occ, coords, sides, wrap, scale, active, td, D, use_d,
           nptr, nidx, cptr, cidx, order, kicks, seed, visits):
    """Swap descent from every task (in ``order``) to a local optimum (or
    until ``visits`` tasks have been examined), then
    ``kicks`` rounds of iterated local search: a few random swaps near a
    random task, descent from the tasks they touched, undone unless the
    cost did not rise.  Changes ``pos`` and ``occ``; returns the cost change."""
    np.random.seed(seed)
    n = len(pos)
    queue = np.empty(n, np.int64)
    inq = np.zeros(n, np.bool_)
    log = np.empty((4 * n + 64, 4), np.int64)
    zero = np.int64(0)  # plain integers, not literals: one compiled _descend (see optalloc._jit)
    tail = zero
    for v in order:
        tail = _enqueue(v, queue, inq, tail, n)
    total = 0.0
    budget = np.array([visits], np.int64)
    while True:
        change, nlog = _descend(indptr, indices, weights, pos, occ, coords, sides, wrap, scale, active, td, D,
                                use_d, nptr, nidx, cptr, cidx, queue, inq, zero, tail, log, zero, budget)
        total += change
        tail = zero
        if nlog < len(log) or budget[0] <= 0:
            inq[:] = False
            break
        for v in order:  # the log filled: start over from every task
            tail = _enqueue(v, queue, inq, tail, n)
    for _ in range(kicks):
        i = np.random.randint(n)
        if indptr[i + 1] == indptr[i]:
            continue
        nlog = zero
        change = 0.0
        tail = zero
        for _r in range(3):
            e = indptr[i] + np.random.randint(indptr[i + 1] - indptr[i])
            c = pos[indices[e]]
            if nptr[c + 1] == nptr[c]:
                continue
            q = nidx[nptr[c] + np.random.randint(nptr[c + 1] - nptr[c])]
            if q == pos[i]:
                continue
            change += _swap_delta(i, q, occ[q], pos, indptr, indices, weights, coords, sides, wrap, scale,
                                  active, td, D, use_d)
            k = _swap(i, q, pos, occ, log, nlog)
            nlog += 1
            tail = _enqueue(i, queue, inq, tail, n)
            if k >= 0:
                tail = _enqueue(k, queue, inq, tail, n)
                if indptr[k + 1] > indptr[k]:
                    i = k
        budget[0] = 64 * n
        more, nlog = _descend(indptr, indices, weights, pos, occ, coords, sides, wrap, scale, active, td, D,
                              use_d, nptr, nidx, cptr, cidx, queue, inq, zero, tail, log, nlog, budget)
        change += more
        if change > 1e-9 or nlog >= len(log):
            for t in range(nlog - 1, -1, -1):  # undo
                a, p, q, k = log[t, 0], log[t, 1], log[t, 2], log[t, 3]
                pos[a] = p
                occ[p] = a
                occ[q] = k
                if k >= 0:
                    pos[k] = q
        else:
            total += change
        if nlog >= len(log):  # the descent stopped early: tasks left queued
            inq[:] = False
    return total
