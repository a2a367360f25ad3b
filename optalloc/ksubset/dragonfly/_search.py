"""The exact search over group and router counts of a dragonfly.

It seeks the greatest ``Q(c) = c' M c`` (:mod:`._tables`: the least W)
over router counts with k nodes, above a target that rises to each set
found, in two nested depth-first searches:

1. *group counts* ``x_b``, group by group (groups with the most free nodes
   first, the largest count first); at most one group may hold a count
   that whole routers cannot make up (``whole``). A node with groups
   0..j placed and m nodes left is bounded by

       sum_{b <= j} [2 x_b^2 + max_u (sum c_u^2 + sum_{a <= j, a != b} resp[u, a, x_a])]
       + max over y (sum y = m) of sum_{b > j} phi_b(y_b),

       phi_b(y) = 2 y^2 + max_u (sum c_u^2 + sum_{a <= j} resp[u, a, x_a])
                  + sum_{a <= j} sig[a, b, x_a, y] + y zeta_b(m - y),

   (u over the vertex vectors of the group at its count; a dynamic
   programme over the groups left, with and without the one partial
   group), where ``zeta_b(r)`` is the most any node of group b saves with
   r nodes of the other groups left: its r best partners among their free
   nodes, those at saving 2 first, or ``reach[b, y] (m - y) / y`` when
   less (the nodes of b save with the others as much as the others save
   with them, each at most ``reach``). Q counts every saving from both ends of
   its pair: a placed group's end by its vector against the placed groups'
   best replies (``resp``), a group left's end likewise, the placed end of
   a pair with a group left by ``sig``, and both ends of pairs among the
   groups left by ``zeta``. Without ``resp`` (a large machine) the placed
   groups take ``top`` and ``2 sig`` and the groups left ``top``, ``2
   sig`` and ``zeta``;
2. under full counts whose bound beats the target, *router counts*: each
   group with nodes takes one of its vertex vectors of that count (at most
   one router partly chosen in all), best first; a node is bounded by
   the exact Q of the groups placed and, for each group left, its best
   vector against them and against the best replies of the other groups
   left (``resp``; without it, ``2 sig`` between the groups left).

A search that ends has proven its best set optimal (or, with none found,
that nothing beats the target).
"""

from __future__ import annotations

import numpy as np

from ..._jit import njit
from ..search import now

__all__ = ["count_bound", "count_search", "vector_bound"]

NEG = -(1 << 60)


@njit(cache=True)
def _ext(r, a2, a1):  # pragma: no cover - compiled by numba
    """The most a node saves with r partners among a2 at saving 2 and a1 at 1."""
    t2 = min(r, a2)
    return 2 * t2 + min(r - t2, a1)


@njit(cache=True)
def _count_bound(t, j, x, m, dp, nxt):  # pragma: no cover - compiled by numba
    """Upper bound on Q over the sets whose groups 0..j hold x[0..j] nodes and
    the groups after them m (NEG when they cannot hold m). ``dp`` and
    ``nxt`` hold 2 (m + 1) entries: by nodes placed, without and with a
    group whose count needs a router partly chosen."""
    top, sig, whole = t.top, t.sig, t.whole
    ub = 0
    parts = 0
    for b in range(j + 1):
        parts += 1 - whole[b, x[b]]
    if parts > 1:
        return NEG
    if t.with_resp:  # each placed group's best vector against the others placed
        vsq, vstart, resp = t.vsq, t.vstart, t.resp
        for b in range(j + 1):
            if x[b] == 0:
                continue
            bq = NEG
            for u in range(vstart[b, x[b]], vstart[b, x[b] + 1]):
                val = vsq[u]
                for a in range(j + 1):
                    if a != b and x[a] > 0:
                        val += resp[u, a, x[a]]
                bq = max(bq, val)
            ub += 2 * x[b] * x[b] + bq
    else:
        for b in range(j + 1):
            ub += top[b, x[b]]
            for a in range(b):
                ub += 2 * sig[a, b, x[a], x[b]]
    rest = _rest_bound(t, j, x, m, dp, nxt, parts)
    if rest <= NEG:
        return NEG
    return ub + rest


@njit(cache=True)
def _rest_bound(t, j, x, m, dp, nxt, parts):  # pragma: no cover - compiled by numba
    """The dynamic programme over the groups after j (module notes). The
    savings of a group's nodes with the other groups left equal those of
    the others' nodes with it (the saving is symmetric), so each group
    takes the lesser of ``y zeta_b(m - y)`` and ``reach[b, y] (m - y)``
    (each of the m - y others saves at most ``reach`` with its y)."""
    top, sig, cap, gptr, n2, n1, whole, reach = t.top, t.sig, t.cap, t.gptr, t.n2, t.n1, t.whole, t.reach
    B = len(cap)
    W = m + 1
    for i in range(2 * W):
        dp[i] = NEG
    dp[parts * W] = 0
    for b in range(j + 1, B):
        hi = min(cap[b], m)
        for i in range(2 * W):
            nxt[i] = dp[i]
        for y in range(1, hi + 1):
            z = 0
            for v in range(gptr[b], gptr[b + 1]):
                e = _ext(m - y, n2[v, j + 1], n1[v, j + 1])
                z = max(z, e)
            phi = top[b, y] + min(y * z, reach[b, y] * (m - y))
            for a in range(j + 1):
                phi += 2 * sig[a, b, x[a], y]
            step = 1 - whole[b, y]  # 1: this count takes the one partial router
            for f in range(2 - step):
                for i in range(m - y + 1):
                    if dp[f * W + i] > NEG:
                        val = dp[f * W + i] + phi
                        o = (f + step) * W + i + y
                        nxt[o] = max(nxt[o], val)
        for i in range(2 * W):
            dp[i] = nxt[i]
    return max(dp[m], dp[W + m])


@njit(cache=True)
def _expand(t, i, act, x, pi, cand, cval, cgain, nc, bestsum):  # pragma: no cover - compiled by numba
    """Candidates of group act[i] against the groups placed (``pi[i]``), by
    their bound, greatest first (``cval``: the bound, ``cgain``: what it
    adds to Q), and the sum of the bounds of the groups after it
    (``bestsum[i]``); returns the greatest bound of act[i].

    A vector's bound is its pairs within its group and with the groups
    placed, plus, for each group q left, ``resp`` (its greatest saving
    with q at q's count) when held, else nothing (``sig`` between the
    groups left is then added by the caller)."""
    vec, vsq, vstart, gptr, resp, with_resp = t.vec, t.vsq, t.vstart, t.gptr, t.resp, t.with_resp
    An = len(act)
    best_i = NEG
    total = 0
    for q in range(i, An):
        b = act[q]
        lo = gptr[b]
        n = gptr[b + 1] - lo
        xb = x[b]
        base = 2 * xb * xb
        bq = NEG
        c = 0
        for u in range(vstart[b, xb], vstart[b, xb + 1]):
            gain = base + vsq[u]
            for r in range(n):
                if vec[u, r] != 0:
                    gain += 2 * vec[u, r] * pi[i, lo + r]
            val = gain
            if with_resp:
                for q2 in range(i, An):
                    if q2 != q:
                        val += resp[u, act[q2], x[act[q2]]]
            if q == i:
                cand[i, c] = u
                cval[i, c] = val
                cgain[i, c] = gain
                c += 1
            bq = max(bq, val)
        if q == i:
            best_i = bq
            order = np.argsort(-cval[i, :c])
            tmp_u = cand[i, :c].copy()
            tmp_v = cval[i, :c].copy()
            tmp_g = cgain[i, :c].copy()
            for z in range(c):
                cand[i, z] = tmp_u[order[z]]
                cval[i, z] = tmp_v[order[z]]
                cgain[i, z] = tmp_g[order[z]]
            nc[i] = c
        else:
            total += bq
    bestsum[i] = total
    return best_i


@njit(cache=True)
def _vector_search(t, x, best, bestv, state, deadline, node_limit):  # pragma: no cover - compiled by numba
    """The search over router counts under group counts x (module notes);
    returns the new target (the best Q found, or ``best``)."""
    vec, vpart, gptr, sig, M = t.vec, t.vpart, t.gptr, t.sig, t.M
    B = len(x)
    R = len(t.free)
    An = 0
    for b in range(B):
        if x[b] > 0:
            An += 1
    act = np.empty(An, dtype=np.int64)
    c = 0
    for b in range(B):
        if x[b] > 0:
            act[c] = b
            c += 1
    sig_uu = np.zeros(An + 1, dtype=np.int64)
    for i in range(An - 1, -1, -1):
        if t.with_resp:
            break
        s = 0
        for q in range(i + 1, An):
            s += 2 * sig[act[i], act[q], x[act[i]], x[act[q]]]
        sig_uu[i] = sig_uu[i + 1] + s
    vmax = 1
    for i in range(An):
        b = act[i]
        vmax = max(vmax, t.vstart[b, x[b] + 1] - t.vstart[b, x[b]])
    pi = np.zeros((An + 1, R), dtype=np.int64)
    exact = np.zeros(An + 1, dtype=np.int64)
    part = np.zeros(An + 1, dtype=np.int64)
    cand = np.empty((An, vmax), dtype=np.int64)
    cval = np.empty((An, vmax), dtype=np.int64)
    cgain = np.empty((An, vmax), dtype=np.int64)
    nc = np.zeros(An, dtype=np.int64)
    pos = np.zeros(An, dtype=np.int64)
    bestsum = np.zeros(An, dtype=np.int64)
    chosen = np.empty(An, dtype=np.int64)
    top0 = _expand(t, 0, act, x, pi, cand, cval, cgain, nc, bestsum)
    if top0 + bestsum[0] + sig_uu[0] <= best:
        return best
    i = 0
    while i >= 0:
        if pos[i] >= nc[i]:
            i -= 1
            continue
        u = cand[i, pos[i]]
        val = cval[i, pos[i]]
        gain = cgain[i, pos[i]]
        pos[i] += 1
        if exact[i] + val + bestsum[i] + sig_uu[i] <= best:  # the others are no better
            pos[i] = nc[i]
            continue
        if vpart[u] != 0 and part[i] != 0:
            continue
        state[0] += 1
        if state[0] > node_limit or (state[0] % 1024 == 0 and now() > deadline[0]):
            state[1] = 1.0
            return best
        chosen[i] = u
        exact[i + 1] = exact[i] + gain
        part[i + 1] = part[i] + vpart[u]
        if i + 1 == An:
            if exact[An] > best:
                best = exact[An]
                bestv[:] = -1
                for q in range(An):
                    bestv[act[q]] = chosen[q]
            continue
        b = act[i]
        lo = gptr[b]
        n = gptr[b + 1] - lo
        for w in range(gptr[act[i + 1]], R):
            s = pi[i, w]
            for r in range(n):
                if vec[u, r] != 0:
                    s += vec[u, r] * M[lo + r, w]
            pi[i + 1, w] = s
        top1 = _expand(t, i + 1, act, x, pi, cand, cval, cgain, nc, bestsum)
        if exact[i + 1] + top1 + bestsum[i + 1] + sig_uu[i + 1] <= best:
            continue
        i += 1
        pos[i] = 0
    return best


@njit(cache=True)
def _open_bound(t, k, x, lo, used, j, top_j, dp, nxt, best):  # pragma: no cover - compiled by numba
    """The greatest bound over the nodes a stopped search leaves open: at
    each depth d < j the counts below x[d] not yet tried, at depth j those
    from ``top_j`` down (and ``best``, found)."""
    out = best
    keep = x.copy()
    for d in range(j + 1):
        hi = top_j if d == j else x[d] - 1
        for v in range(lo[d], hi + 1):
            keep[d] = v
            b = _count_bound(t, d, keep, k - used[d] - v, dp, nxt)
            out = max(out, b)
        keep[d] = x[d]
    return out


@njit(cache=True)
def _count_search(t, k, best, bestv, state, deadline, node_limit):  # pragma: no cover - compiled by numba
    """The search over group counts (module notes); ``state``: [nodes,
    stopped (1.0)]. Returns the new target."""
    cap = t.cap
    B = len(cap)
    rest = np.zeros(B + 1, dtype=np.int64)
    for b in range(B - 1, -1, -1):
        rest[b] = rest[b + 1] + cap[b]
    x = np.zeros(B, dtype=np.int64)
    lo = np.zeros(B, dtype=np.int64)
    used = np.zeros(B + 1, dtype=np.int64)
    dp = np.empty(2 * (k + 1), dtype=np.int64)
    nxt = np.empty(2 * (k + 1), dtype=np.int64)
    j = 0
    lo[0] = max(0, k - rest[1])
    x[0] = min(cap[0], k) + 1
    while j >= 0:
        x[j] -= 1
        if x[j] < lo[j]:
            x[j] = 0
            j -= 1
            continue
        state[0] += 1
        if state[0] > node_limit or (state[0] % 256 == 0 and now() > deadline[0]):
            state[1] = 1.0
            state[3] = _open_bound(t, k, x, lo, used, j, x[j], dp, nxt, best)
            return best
        m = k - used[j] - x[j]
        b = _count_bound(t, j, x, m, dp, nxt)
        if b <= best:
            continue
        if m == 0 or j == B - 1:
            state[2] += 1
            best = _vector_search(t, x, best, bestv, state, deadline, node_limit)
            if state[1] != 0.0:  # stopped within this count vector: it stays open
                state[3] = max(_open_bound(t, k, x, lo, used, j, x[j] - 1, dp, nxt, best), b)
                return best
            continue
        used[j + 1] = used[j] + x[j]
        j += 1
        lo[j] = max(0, m - rest[j + 1])
        x[j] = min(cap[j], m) + 1
    return best


def count_bound(tables, k: int, counts) -> int:
    """The bound of the search over group counts (module notes) on Q of the
    sets whose first ``len(counts)`` groups (in the tables' order) hold
    ``counts`` and the others the rest of k; a very negative number when
    they cannot."""
    counts = np.asarray(counts, dtype=np.int64)
    j = len(counts) - 1
    x = np.zeros(len(tables.cap), dtype=np.int64)
    x[:len(counts)] = counts
    m = int(k - counts.sum())
    if m < 0:
        return int(NEG)
    return int(_count_bound(tables, j, x, m, np.empty(2 * m + 2, dtype=np.int64), np.empty(2 * m + 2, dtype=np.int64)))


def vector_bound(tables, counts, vectors) -> int:
    """The bound of the search over router counts on Q of the sets with group
    counts ``counts`` whose first ``len(vectors)`` groups with nodes take
    the vertex vectors ``vectors`` (ids into ``tables.vec``)."""
    x = np.asarray(counts, dtype=np.int64)
    act = np.flatnonzero(x > 0).astype(np.int64)
    An, R = len(act), len(tables.free)
    pi = np.zeros((An + 1, R), dtype=np.int64)
    exact = 0
    i = len(vectors)
    for q, u in enumerate(vectors):
        b = act[q]
        lo, hi = tables.gptr[b], tables.gptr[b + 1]
        c = tables.vec[u, :hi - lo]
        exact += 2 * x[b] ** 2 + int(tables.vsq[u]) + 2 * int(c @ pi[q, lo:hi])
        pi[q + 1] = pi[q] + c @ tables.M[lo:hi]
    if i == An:
        return int(exact)
    vmax = int(max(tables.vstart[b, x[b] + 1] - tables.vstart[b, x[b]] for b in act))
    cand = np.empty((An, vmax), dtype=np.int64)
    cval = np.empty((An, vmax), dtype=np.int64)
    cgain = np.empty((An, vmax), dtype=np.int64)
    nc = np.zeros(An, dtype=np.int64)
    bestsum = np.zeros(An, dtype=np.int64)
    top = _expand(tables, i, act, x, pi, cand, cval, cgain, nc, bestsum)
    uu = 0 if tables.with_resp else sum(2 * int(tables.sig[act[p], act[q], x[act[p]], x[act[q]]])
                                        for p in range(i, An) for q in range(p + 1, An))
    return int(exact + top + bestsum[i] + uu)


def count_search(tables, k: int, target: int, *, deadline, node_limit: int = 10**15):
    """Greatest Q above ``target`` over k nodes: ``(Q, vectors, finished,
    nodes, count leaves, upper)``, ``vectors`` the vertex vector id of each
    group (-1: no node), or None when nothing beats the target; ``upper``
    bounds Q of every set (on a stop, the greatest bound of the nodes left
    open)."""
    bestv = np.full(len(tables.cap), -1, dtype=np.int64)
    state = np.zeros(4)
    q = _count_search(tables, np.int64(k), np.int64(target), bestv, state, deadline, np.int64(node_limit))
    found = bestv.max() >= 0
    return int(q), (bestv if found else None), state[1] == 0.0, int(state[0]), int(state[2]), int(max(q, state[3]))
