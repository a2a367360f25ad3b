"""Balanced min-cut bisection of a task graph, multilevel (compiled loops).

The graph travels as CSR arrays with vertex weights ``vw`` (tasks per
vertex) and a ``bias``: ``bias[v] > 0`` when vertex v would rather be on
side 0 (its traffic to tasks already placed elsewhere costs that much
less there).  :func:`bisect` coarsens by heavy-edge matching, grows
side 0 greedily from a few seeds at the coarsest level (greedy graph
growing), and refines every level with Fiduccia-Mattheyses passes that
keep side 0's weight within a tolerance of its target (exactly on it at
the finest level).  The objective is the cut plus the biases.
"""

from __future__ import annotations

import numpy as np

from ..._jit import njit

#: Coarsen a bisection's graph down to about this many vertices.
COARSEST = 64


@njit(cache=True)
def _push(keys, vals, size, key, val):
    i = size
    keys[i] = key
    vals[i] = val
    while i > 0:
        p = (i - 1) // 2
        if keys[p] <= keys[i]:
            break
        keys[p], keys[i] = keys[i], keys[p]
        vals[p], vals[i] = vals[i], vals[p]
        i = p
    return size + 1


@njit(cache=True)
def _pop(keys, vals, size):
    size -= 1
    keys[0] = keys[size]
    vals[0] = vals[size]
    i = 0
    while True:
        a = 2 * i + 1
        if a >= size:
            break
        b = a + 1
        c = b if b < size and keys[b] < keys[a] else a
        if keys[i] <= keys[c]:
            break
        keys[c], keys[i] = keys[i], keys[c]
        vals[c], vals[i] = vals[i], vals[c]
        i = c
    return size


@njit(cache=True)
def _gains(indptr, indices, weights, bias, side):
    n = len(indptr) - 1
    g = np.empty(n)
    for v in range(n):
        s = 0.0
        for e in range(indptr[v], indptr[v + 1]):
            s += weights[e] if side[indices[e]] != side[v] else -weights[e]
        g[v] = s - bias[v] if side[v] == 0 else s + bias[v]
    return g


@njit(cache=True)
def fm(indptr, indices, weights, vw, bias, side, target0, tol, passes, limit):
    """Fiduccia-Mattheyses passes on ``side`` (changed in place): single
    moves by best gain, side 0's weight kept within ``tol`` of ``target0``
    (moves towards it always allowed), the best prefix of each pass kept."""
    n = len(indptr) - 1
    cap = n + len(indices) + 4
    keys = np.empty((2, cap))
    vals = np.empty((2, cap), np.int64)
    w0 = 0.0
    for v in range(n):
        if side[v] == 0:
            w0 += vw[v]
    moved = np.empty(n, np.int64)
    for _ in range(passes):
        g = _gains(indptr, indices, weights, bias, side)
        locked = np.zeros(n, np.bool_)
        size = np.zeros(2, np.int64)
        for v in range(n):
            size[side[v]] = _push(keys[side[v]], vals[side[v]], size[side[v]], -g[v], v)
        cum = 0.0
        excess0 = max(0.0, abs(w0 - target0) - tol)
        best_ex = excess0
        best_cum = 0.0
        best_k = 0
        k = 0
        since = 0
        while since < limit:
            pick = -1
            pick_g = -1e300
            for s in range(2):
                while size[s] > 0:
                    v = vals[s, 0]
                    if locked[v] or side[v] != s or -keys[s, 0] != g[v]:
                        size[s] = _pop(keys[s], vals[s], size[s])
                        continue
                    break
                if size[s] == 0:
                    continue
                v = vals[s, 0]
                nw0 = w0 - vw[v] if s == 0 else w0 + vw[v]
                if abs(nw0 - target0) > tol and abs(nw0 - target0) >= abs(w0 - target0):
                    continue
                if g[v] > pick_g:
                    pick_g = g[v]
                    pick = v
            if pick < 0:
                break
            v = pick
            s = side[v]
            size[s] = _pop(keys[s], vals[s], size[s])
            side[v] = 1 - s
            w0 = w0 - vw[v] if s == 0 else w0 + vw[v]
            locked[v] = True
            cum += g[v]
            moved[k] = v
            k += 1
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if locked[u]:
                    continue
                # v left side s: u on side s lost an internal edge, u on the other side gained one
                g[u] += 2.0 * weights[e] if side[u] == s else -2.0 * weights[e]
                su = side[u]
                size[su] = _push(keys[su], vals[su], size[su], -g[u], u)
            ex = max(0.0, abs(w0 - target0) - tol)
            if ex < best_ex - 1e-12 or (ex <= best_ex + 1e-12 and cum > best_cum + 1e-12):
                best_ex = ex
                best_cum = cum
                best_k = k
                since = 0
            else:
                since += 1
        for t in range(k - 1, best_k - 1, -1):
            v = moved[t]
            side[v] = 1 - side[v]
            w0 = w0 + vw[v] if side[v] == 0 else w0 - vw[v]
        if best_k == 0 or (best_cum <= 1e-12 and best_ex >= excess0 - 1e-12):
            break
    return w0


@njit(cache=True)
def grow(indptr, indices, weights, vw, bias, target0, seed):
    """Greedy graph growing: side 0 grows from ``seed`` by the vertex of best gain until it weighs target0."""
    n = len(indptr) - 1
    side = np.ones(n, np.int64)
    g = np.empty(n)
    for v in range(n):
        g[v] = bias[v]  # gain of joining side 0 (no neighbour there yet): its bias, less the edges lost
        for e in range(indptr[v], indptr[v + 1]):
            g[v] -= weights[e]
    w0 = 0.0
    v = seed
    while True:
        side[v] = 0
        w0 += vw[v]
        for e in range(indptr[v], indptr[v + 1]):
            g[indices[e]] += 2.0 * weights[e]
        if w0 >= target0:
            break
        best = -1
        for u in range(n):
            if side[u] == 1 and w0 + vw[u] <= target0 + 0.5 * vw[u] and (best < 0 or g[u] > g[best]):
                best = u
        if best < 0:
            break
        v = best
    return side


@njit(cache=True)
def match(indptr, indices, weights, vw, order, maxw):
    """Heavy-edge matching (vertices heavier than ``maxw`` together stay apart); coarse ids and their count."""
    n = len(indptr) - 1
    mate = np.full(n, -1, np.int64)
    for v in order:
        if mate[v] >= 0:
            continue
        best = v
        bw = -1.0
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if u != v and mate[u] < 0 and vw[u] + vw[v] <= maxw and weights[e] > bw:
                bw = weights[e]
                best = u
        mate[v] = best
        mate[best] = v
    cmap = np.full(n, -1, np.int64)
    c = 0
    for v in range(n):
        if cmap[v] < 0:
            cmap[v] = c
            cmap[mate[v]] = c
            c += 1
    return cmap, c


@njit(cache=True)
def contract(indptr, indices, weights, vw, bias, cmap, nc):
    """The coarse graph of ``cmap`` (internal edges dropped), its vertex weights and biases."""
    n = len(indptr) - 1
    first = np.full(nc, -1, np.int64)
    second = np.full(nc, -1, np.int64)
    for v in range(n):
        c = cmap[v]
        if first[c] < 0:
            first[c] = v
        else:
            second[c] = v
    cptr = np.zeros(nc + 1, np.int64)
    cidx = np.empty(len(indices), np.int64)
    cw = np.empty(len(indices))
    cvw = np.zeros(nc)
    cb = np.zeros(nc)
    mark = np.full(nc, -1, np.int64)
    k = 0
    for c in range(nc):
        start = k
        for r in range(2):
            v = first[c] if r == 0 else second[c]
            if v < 0:
                continue
            cvw[c] += vw[v]
            cb[c] += bias[v]
            for e in range(indptr[v], indptr[v + 1]):
                cu = cmap[indices[e]]
                if cu == c:
                    continue
                if mark[cu] < start:
                    mark[cu] = k
                    cidx[k] = cu
                    cw[k] = weights[e]
                    k += 1
                else:
                    cw[mark[cu]] += weights[e]
        cptr[c + 1] = k
    return cptr, cidx[:k].copy(), cw[:k].copy(), cvw, cb


@njit(cache=True)
def cut_value(indptr, indices, weights, bias, side):
    """Cut weight plus the biases of the vertices on side 1."""
    total = 0.0
    for v in range(len(indptr) - 1):
        if side[v] == 1:
            total += bias[v]
        for e in range(indptr[v], indptr[v + 1]):
            if side[indices[e]] != side[v]:
                total += 0.5 * weights[e]
    return total


@njit(cache=True)
def initial(indptr, indices, weights, vw, bias, target0, seeds, tol):
    """Best of greedy growing from each seed, each refined by FM (weight off target0 heavily penalised)."""
    best = np.zeros(len(indptr) - 1, np.int64)
    best_val = 1e300
    for seed in seeds:
        side = grow(indptr, indices, weights, vw, bias, target0, seed)
        w0 = fm(indptr, indices, weights, vw, bias, side, target0, tol, np.int64(8), np.int64(64))  # see optalloc._jit
        val = cut_value(indptr, indices, weights, bias, side) + 1e6 * abs(w0 - target0)
        if val < best_val:
            best_val = val
            best = side
    return best


@njit(cache=True)
def rebalance(indptr, indices, weights, bias, side, target0):
    """Move unit-weight vertices of least loss until side 0 holds exactly target0."""
    w0 = 0
    for v in range(len(side)):
        if side[v] == 0:
            w0 += 1
    while w0 != target0:
        s = 0 if w0 > target0 else 1
        g = _gains(indptr, indices, weights, bias, side)
        best = -1
        for v in range(len(side)):
            if side[v] == s and (best < 0 or g[v] > g[best]):
                best = v
        side[best] = 1 - s
        w0 += -1 if s == 0 else 1


def bisect(indptr, indices, weights, bias, target0: int, rng, tries: int = 4) -> np.ndarray:
    """Side (0 or 1) of each vertex of a graph of unit-weight vertices, exactly ``target0`` on side 0."""
    n = len(indptr) - 1
    vw = np.ones(n)
    graphs = [(indptr, indices, weights, vw, bias, None)]
    while len(graphs[-1][0]) - 1 > COARSEST:
        gp, gi, gw, gv, gb, _ = graphs[-1]
        m = len(gp) - 1
        maxw = max(1.0, 1.5 * n / COARSEST)
        cmap, nc = match(gp, gi, gw, gv, rng.permutation(m).astype(np.int64), maxw)
        if nc > 0.9 * m:
            break
        graphs.append((*contract(gp, gi, gw, gv, gb, cmap, nc), cmap))
    gp, gi, gw, gv, gb, _ = graphs[-1]
    m = len(gp) - 1
    seeds = rng.choice(m, size=min(tries, m), replace=False).astype(np.int64)
    side = initial(gp, gi, gw, gv, gb, float(target0), seeds, float(gv.max()) if len(graphs) > 1 else 1.0)
    for level in range(len(graphs) - 1, 0, -1):
        cmap = graphs[level][5]
        side = side[cmap]
        fp, fi, fw, fv, fb, _ = graphs[level - 1]
        tol = float(fv.max()) if level > 1 else 1.0
        fm(fp, fi, fw, fv, fb, side, float(target0), tol, 8, 100)
    rebalance(indptr, indices, weights, bias, side, int(target0))
    return side
