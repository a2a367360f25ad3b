"""One structure of the strip-enumeration PTAS: its cell tables (:mod:`._ptas`).

With the slices of every axis fixed (:mod:`._ptasaxis`), a cell is one
slice per axis, and a table gives each cell a count, the slices along
every axis summing to s.  The set of a table keeps the cell's pins and
takes its other points least in direction g, g(i) on axis a being the
number of chosen points before slice i minus the number after it (Bender
et al. 2005, sec. 3; SAND2003-3702 sec. 5.3).  Whatever the table, with
these margins, exactly (SAND2003-3702 sec. 5.3.1)::

    W(S) = sum_p val(p) + sum_{a, i} w_a(S in slice i of axis a),
    val(p) = sum_a g(slice_a(p)) p_a,

so a complete table is scored without its pairwise distances, and a
partial one is bounded by the val of its points, a bound on the val of
the points still to take, and per slice the larger of omega (its least
own weight, :mod:`._ptasaxis`) and the own weight of its points so far.
The val still to take is bounded, per axis, by the least val each slice
can still take (the other margins relaxed) and, in the plane, exactly by
a min-cost flow over the cells (:func:`_flow`: convex costs, successive
shortest paths), whose prices then bound every partial table in O(1)
(a Lagrangian bound).  Every bound holds for every set the structure can
give, so the search finds the lightest of them below the incumbent.
"""

from __future__ import annotations

import numpy as np

from ...._jit import njit


@njit(cache=True)
def exact_weight(x, idx):  # pragma: no cover - compiled
    """W of the points ``x[idx]`` from their sorted coordinates."""
    k = idx.shape[0]
    total = 0.0
    tmp = np.empty(k)
    for a in range(x.shape[1]):
        for t in range(k):
            tmp[t] = x[idx[t], a]
        tmp.sort()
        for t in range(k):
            total += (2 * t - k + 1) * tmp[t]
    return total


@njit(cache=True)
def workspace(n, d, m, k):  # pragma: no cover - compiled
    """The arrays :func:`_evaluate` works in, allocated once per search."""
    ncell = m**d
    return (np.zeros((d, m), np.int64), np.zeros((d, m)), np.zeros(k, np.int64), np.zeros(ncell, np.int64),
            np.zeros(ncell + 1, np.int64), np.zeros(ncell, np.int64), np.zeros(n, np.int64),
            np.zeros(ncell, np.int64), np.zeros(m + 1), np.zeros((d, m), np.int64), np.zeros((d, m), np.int64),
            np.zeros(d * m), np.zeros(ncell, np.int64), np.zeros(ncell, np.int64), np.zeros(ncell, np.bool_),
            np.zeros(ncell), np.zeros(ncell, np.int64), np.zeros((ncell, d * m)),
            np.zeros(n, np.bool_), np.zeros((d, m)), np.zeros(ncell, np.int64), np.zeros(ncell), np.zeros(ncell),
            np.zeros(ncell))


@njit(cache=True)
def _cells(val, code, pinned, need, cs, cstart, cap, cpts, fill):  # pragma: no cover - compiled
    """Each cell's points other than the pins, least val first (ties by
    index), at most as many as every slice through the cell still needs:
    ``cpts[cstart[c]:cstart[c] + cap[c]]``."""
    n = val.shape[0]
    ncell, d = cs.shape
    for c in range(ncell):
        fill[c] = 0
    for p in range(n):
        if not pinned[p]:
            fill[code[p]] += 1
    cstart[0] = 0
    for c in range(ncell):
        e = fill[c]
        for a in range(d):
            e = min(e, need[a, cs[c, a]])
        cap[c] = e
        cstart[c + 1] = cstart[c] + e
        fill[c] = 0
    for p in range(n):
        if pinned[p]:
            continue
        c = code[p]
        e = cap[c]
        if e == 0:
            continue
        base = cstart[c]
        pos = fill[c]
        if pos == e:
            if val[p] >= val[cpts[base + e - 1]]:
                continue
            pos = e - 1
        else:
            fill[c] += 1
        while pos > 0 and val[cpts[base + pos - 1]] > val[p]:
            cpts[base + pos] = cpts[base + pos - 1]
            pos -= 1
        cpts[base + pos] = p


@njit(cache=True)
def _least_per_slice(val, need, cs, cstart, cap, cpts, ps, heads):  # pragma: no cover - compiled
    """ps[a, j]: the least sum of val of need[a, j] points of the cells of
    slice j of axis a (other axes' margins relaxed); False when a slice
    cannot be filled."""
    ncell, d = cs.shape
    m = need.shape[1]
    for a in range(d):
        for j in range(m):
            ps[a, j] = 0.0
            for c in range(ncell):
                heads[c] = cstart[c]
            for _ in range(need[a, j]):
                pick = -1
                least = np.inf
                for c in range(ncell):
                    if cs[c, a] == j and heads[c] < cstart[c] + cap[c] and val[cpts[heads[c]]] < least:
                        least = val[cpts[heads[c]]]
                        pick = c
                if pick < 0:
                    return False
                heads[pick] += 1
                ps[a, j] += least
    return True


@njit(cache=True)
def _evaluate(x, plist, npin, sl, vals, codes, omega, bsel, sizes, cs, state, best, work, counts,
              prune):  # pragma: no cover - compiled
    """The cell tables of one structure (all its boundaries fixed, its pins
    ``plist[:npin]``), pruned by the bounds of the module docstring (unless
    ``prune`` is False); a lighter set replaces ``best`` and ``state[0]``
    (``state[1]``: how far below the incumbent a bound must be to go on,
    ``state[2]``: the tolerance of the final comparison).  ``work`` is
    :func:`workspace`'s; it adds to ``counts[1:7]`` (see
    :func:`._ptassearch.search`)."""
    d = x.shape[1]
    m = sizes.shape[0]
    val = vals[d - 1]
    code = codes[d - 1]
    counts[1] += 1
    need, ps, heads = work[0], work[1], work[3]
    cstart, cap, cpts, fill = work[4], work[5], work[6], work[7]
    pinned, wslice = work[18], work[19]
    cutoff = state[0] - state[1] if prune else np.inf
    for a in range(d):
        for j in range(m):
            need[a, j] = sizes[j]
            wslice[a, j] = 0.0
    feasible = True
    spread = np.zeros(d)
    for u in range(npin):
        p = plist[u]
        pinned[p] = True
        for a in range(d):
            j = sl[a, p]
            need[a, j] -= 1
            if need[a, j] < 0:
                feasible = False
        for v in range(u):
            q = plist[v]
            for a in range(d):
                dist = abs(x[p, a] - x[q, a])
                spread[a] += dist
                if sl[a, p] == sl[a, q]:
                    wslice[a, sl[a, p]] += dist
    lb = 0.0
    for a in range(d):
        lb += max(bsel[a], spread[a])
    if feasible and lb < cutoff:
        counts[2] += 1
        _cells(val, code, pinned, need, cs, cstart, cap, cpts, fill)
        if _least_per_slice(val, need, cs, cstart, cap, cpts, ps, heads):
            _tables(x, plist, npin, sl, val, omega, sizes, cs, state, best, work, counts, prune)
    for u in range(npin):
        pinned[plist[u]] = False


@njit(cache=True)
def _tables(x, plist, npin, sl, val, omega, sizes, cs, state, best, work, counts, prune):  # pragma: no cover
    """The depth-first search over the cell tables of :func:`_evaluate`:
    each cell keeps its pins and takes its other points least in val."""
    d = x.shape[1]
    m = sizes.shape[0]
    ncell = cs.shape[0]
    block = ncell // m
    need, ps, chosen, heads = work[0], work[1], work[2], work[3]
    cstart, cap, cpts = work[4], work[5], work[6]
    wslice = work[19]
    suffix = work[8]
    suffix[m] = 0.0
    for i in range(m - 1, -1, -1):
        suffix[i] = suffix[i + 1] + ps[0, i]
    left, room, within = work[9], work[10], work[11]
    lsum = 0.0
    for u in range(npin):
        chosen[u] = plist[u]
        lsum += val[plist[u]]
    lpin = lsum
    nch = npin
    inner = 0.0
    for a in range(d):
        for j in range(m):
            left[a, j] = need[a, j]
            room[a, j] = 0
            within[a * m + j] = wslice[a, j]
            inner += max(omega[a, j], wslice[a, j])
    for c in range(ncell):
        for a in range(d):
            room[a, cs[c, a]] += cap[c]
    cutoff = state[0] - state[1] if prune else np.inf
    relaxed = -np.inf
    for a in range(d):
        r = lpin + inner
        for j in range(m):
            r += ps[a, j]
        relaxed = max(relaxed, r)
    if relaxed >= cutoff:
        return
    lam, cheap, saved_g = work[21], work[22], work[23]
    plane = prune and d == 2
    gsum = 0.0  # K + the decided cells' (sum of val - lam T_c); the others bounded by suffixes of cheap
    if plane:
        base = _flow(m, cstart, cpts, cap, val, need, lam, cheap)
        if lpin + base + inner >= cutoff:
            return
        gsum = base
        for cc in range(ncell):
            gsum -= cheap[cc]
        for cc in range(ncell - 2, -1, -1):
            cheap[cc] += cheap[cc + 1]
    counts[3] += 1
    cur, low, applied = work[12], work[13], work[14]
    saved_l, saved_n, saved_w = work[15], work[16], work[17]
    c = 0
    entering = True
    while True:
        if entering:
            entering = False
            if c == ncell:
                counts[6] += 1
                total = lsum
                for t in range(d * m):
                    total += within[t]
                if total < state[0] - state[2]:
                    w = exact_weight(x, chosen)
                    if w < state[0]:
                        state[0] = w
                        best[:] = np.sort(chosen)
                        cutoff = state[0] - state[1] if prune else np.inf
                c -= 1
            else:
                for a in range(d):
                    room[a, cs[c, a]] -= cap[c]
                hi = cap[c]
                lo = 0
                for a in range(d):
                    j = cs[c, a]
                    hi = min(hi, left[a, j])
                    lo = max(lo, left[a, j] - room[a, j])
                cur[c] = hi + 1
                low[c] = lo
                applied[c] = False
                saved_l[c] = lsum
                saved_n[c] = nch
                saved_g[c] = gsum
                for t in range(d * m):
                    saved_w[c, t] = within[t]
        if c < 0:
            break
        if applied[c]:
            for a in range(d):
                left[a, cs[c, a]] += cur[c]
            lsum = saved_l[c]
            nch = saved_n[c]
            gsum = saved_g[c]
            for t in range(d * m):
                within[t] = saved_w[c, t]
            applied[c] = False
        cur[c] -= 1
        if cur[c] < low[c]:
            for a in range(d):
                room[a, cs[c, a]] += cap[c]
            c -= 1
            continue
        v = cur[c]
        for a in range(d):
            left[a, cs[c, a]] -= v
        applied[c] = True
        counts[4] += 1
        counts[5] += v
        if plane:
            gsum -= lam[c] * v
        for t in range(v):
            p = cpts[cstart[c] + t]
            lsum += val[p]
            if plane:
                gsum += val[p]
            for u in range(nch):
                q = chosen[u]
                for a in range(d):
                    j = sl[a, p]
                    if sl[a, q] == j:
                        within[a * m + j] += abs(x[p, a] - x[q, a])
            chosen[nch] = p
            nch += 1
        if prune:
            i0 = cs[c, 0]
            lb = lsum + suffix[i0 + 1]
            r = left[0, i0]
            if r > 0:  # from the undecided cells of the current slice of axis 0
                last = (i0 + 1) * block
                for cc in range(c + 1, last):
                    heads[cc - c - 1] = cstart[cc]
                for t in range(r):
                    pick = -1
                    least = np.inf
                    for cc in range(c + 1, last):
                        h = heads[cc - c - 1]
                        if h < cstart[cc] + cap[cc] and val[cpts[h]] < least:
                            least = val[cpts[h]]
                            pick = cc
                    if pick < 0:
                        lb = np.inf
                        break
                    heads[pick - c - 1] += 1
                    lb += least
            inner = 0.0
            for a in range(d):
                for j in range(m):
                    inner += max(omega[a, j], within[a * m + j])
            lb += inner
            if plane:
                lb = max(lb, lpin + gsum + (cheap[c + 1] if c + 1 < ncell else 0.0) + inner)
            if lb >= cutoff:
                continue
        c += 1
        entering = True


@njit(cache=True)
def _flow(m, cstart, cpts, cap, val, need, lam, low):  # pragma: no cover - compiled
    """In the plane: the least sum of val over the tables of an m x m grid
    of cells whose rows and columns take ``need[0]`` and ``need[1]`` points
    (each cell its points least in val, ``cpts[cstart[c]:]``), by
    successive shortest paths (the costs are convex); inf when none fits.
    Fills in the prices lam[c] = pi(column) - pi(row) of a feasible
    potential and low[c] = min over t of (sum of the cell's t least val -
    lam[c] t): every table T then has sum of val = K + sum_c (sum of its
    T_c least - lam[c] T_c) >= K + sum_c low[c]; returns K + sum low."""
    ncell = m * m
    flow = np.zeros(ncell, np.int64)
    supply = np.zeros(m, np.int64)
    demand = np.zeros(m, np.int64)
    total = 0
    for i in range(m):
        supply[i] = need[0, i]
        demand[i] = need[1, i]
        total += need[0, i]
    dist = np.empty(2 * m)
    pred = np.empty(2 * m, np.int64)
    cost = 0.0
    for _ in range(total):
        for i in range(m):
            dist[i] = 0.0 if supply[i] > 0 else np.inf
            dist[m + i] = np.inf
            pred[i] = -1
            pred[m + i] = -1
        for _round in range(2 * m):
            changed = False
            for i in range(m):
                if dist[i] < np.inf:
                    for j in range(m):
                        c = i * m + j
                        if flow[c] < cap[c]:
                            w = dist[i] + val[cpts[cstart[c] + flow[c]]]
                            if w < dist[m + j]:
                                dist[m + j] = w
                                pred[m + j] = i
                                changed = True
            for j in range(m):
                if dist[m + j] < np.inf:
                    for i in range(m):
                        c = i * m + j
                        if flow[c] > 0:
                            w = dist[m + j] - val[cpts[cstart[c] + flow[c] - 1]]
                            if w < dist[i]:
                                dist[i] = w
                                pred[i] = j
                                changed = True
            if not changed:
                break
        end = -1
        for j in range(m):
            if demand[j] > 0 and dist[m + j] < np.inf and (end < 0 or dist[m + j] < dist[m + end]):
                end = j
        if end < 0:
            return np.inf
        cost += dist[m + end]
        demand[end] -= 1
        node = m + end
        while True:  # back along the path: column <- row (forward), row <- column (backward)
            i = pred[node]
            flow[i * m + node - m] += 1
            if pred[i] < 0:  # the path's first row
                supply[i] -= 1
                break
            flow[i * m + pred[i]] -= 1
            node = m + pred[i]
    # a feasible potential of the final residual graph: Bellman-Ford from 0 everywhere
    for t in range(2 * m):
        dist[t] = 0.0
    for _round in range(2 * m + 1):
        changed = False
        for i in range(m):
            for j in range(m):
                c = i * m + j
                if flow[c] < cap[c]:
                    w = dist[i] + val[cpts[cstart[c] + flow[c]]]
                    if w < dist[m + j] - 1e-12 * (1.0 + abs(w)):
                        dist[m + j] = w
                        changed = True
                if flow[c] > 0:
                    w = dist[m + j] - val[cpts[cstart[c] + flow[c] - 1]]
                    if w < dist[i] - 1e-12 * (1.0 + abs(w)):
                        dist[i] = w
                        changed = True
        if not changed:
            break
    base = 0.0
    for i in range(m):
        base += dist[m + i] * need[1, i] - dist[i] * need[0, i]
    for i in range(m):
        for j in range(m):
            c = i * m + j
            lam[c] = dist[m + j] - dist[i]
            best = 0.0
            run = 0.0
            for t in range(cap[c]):
                run += val[cpts[cstart[c] + t]] - lam[c]
                best = min(best, run)
            low[c] = best
            base += best
    return min(base, cost)


