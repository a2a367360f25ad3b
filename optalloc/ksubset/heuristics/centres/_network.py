"""Gen-Alg on a dragonfly or fat tree from counts per router (edge switch),
and on hosts of a tree of switches from the tree.

Every free node of one unit (router, edge switch) sees the same distances
to the other units, so Gen-Alg's k nearest around a node follow from the
free counts per unit: the centre's own unit, then the units one level
further (its block and its direct global neighbours), then two router hops
(the blocks it links into, the units that link into its block, the units
that share a global neighbour with it), then the rest; within a level by
node id, as the matrix path sorts (stable, ties by node id). Every centre
of a unit has a set of the same W, and the first of them (the unit's lowest
free node) is the one the matrix path keeps; so one centre per unit.

W of a set of units with counts y (sum k) is

    W = k (k - 1) + (1/2) sum over ordered unit pairs v != w of y_v y_w d(v, w)

(two host hops per pair), and the unit distance is ``local`` within a block
and ``far`` between blocks less one hop for a shared global link and one
more for a path of two hops; those sums follow from the counts per block
and the global links of the chosen units, so a centre costs about
O(units chosen x global links) rather than O(k^2).

On a tree of switches (:class:`~optalloc.machine.SwitchTree`, a Slurm tree
topology) each centre's distances to every host come from one pass down
the tree (the depth of each host's lowest common ancestor with the
centre, so each distance is the float the matrix holds), its k nearest by
selection (distance, then node id) and its W from the counts below each
link, ``sum_e length(e) c_e (k - c_e)``: O(vertices) a centre, no matrix.
Centres whose W lies within a relative 1e-9 of the least are weighed again
as the matrix path weighs them, so the first least W is the same.
"""

from __future__ import annotations

import weakref

import numpy as np

from ...._jit import njit

__all__ = ["hierarchy_gen_alg", "tree_gen_alg"]


@njit(cache=True)
def _levels(upb, nb, lb, into_ptr, into_idx, pair_ptr, pair_idx):  # pragma: no cover - compiled
    """Per unit, its units one router hop away and two hops away (other
    than itself), each list ascending: CSR (ptr1, idx1, ptr2, idx2)."""
    R = nb.shape[0]
    H, H2 = nb.shape[1], lb.shape[1]
    stamp = np.full(R, -1, dtype=np.int64)
    buf = np.empty(R, dtype=np.int64)
    ptr1 = np.zeros(R + 1, dtype=np.int64)
    ptr2 = np.zeros(R + 1, dtype=np.int64)
    size1 = upb + H
    idx1 = np.empty(R * size1, dtype=np.int64)
    parts = []
    for u in range(R):
        bu = u // upb
        stamp[u] = u
        c = 0
        for v in range(bu * upb, (bu + 1) * upb):
            if v != u:
                stamp[v] = u
                buf[c] = v
                c += 1
        for t in range(H):
            v = nb[u, t]
            if v >= 0 and stamp[v] != u:
                stamp[v] = u
                buf[c] = v
                c += 1
        idx1[ptr1[u]:ptr1[u] + c] = np.sort(buf[:c])
        ptr1[u + 1] = ptr1[u] + c
        c = 0
        if H:
            for t in range(H2):
                g = lb[u, t]
                if g >= 0:
                    for v in range(g * upb, (g + 1) * upb):
                        if stamp[v] != u:
                            stamp[v] = u
                            buf[c] = v
                            c += 1
            for t in range(into_ptr[bu], into_ptr[bu + 1]):
                v = into_idx[t]
                if stamp[v] != u:
                    stamp[v] = u
                    buf[c] = v
                    c += 1
            for t in range(pair_ptr[u], pair_ptr[u + 1]):
                v = pair_idx[t]
                if stamp[v] != u:
                    stamp[v] = u
                    buf[c] = v
                    c += 1
        parts.append(np.sort(buf[:c]))
        ptr2[u + 1] = ptr2[u] + c
    idx2 = np.empty(ptr2[R], dtype=np.int64)
    for u in range(R):
        idx2[ptr2[u]:ptr2[u + 1]] = parts[u]
    return ptr1, idx1[:ptr1[R]].copy(), ptr2, idx2


@njit(cache=True)
def _collect(u, x, k, ptr1, idx1, ptr2, idx2, stamp, su, sy):  # pragma: no cover - compiled
    """Centre unit u's k nearest as units and counts (in ``su``, ``sy``),
    in the order taken; returns how many units."""
    R = x.shape[0]
    m = 0
    rem = k
    for level in range(3):
        if level == 0:
            lo, hi = 0, 1
        elif level == 1:
            lo, hi = ptr1[u], ptr1[u + 1]
        else:
            lo, hi = ptr2[u], ptr2[u + 1]
        for t in range(lo, hi):
            v = u if level == 0 else (idx1[t] if level == 1 else idx2[t])
            if x[v] > 0:
                y = min(x[v], rem)
                su[m] = v
                sy[m] = y
                m += 1
                rem -= y
                if rem == 0:
                    return m
    # the rest, by id
    stamp[u] = u
    for t in range(ptr1[u], ptr1[u + 1]):
        stamp[idx1[t]] = u
    for t in range(ptr2[u], ptr2[u + 1]):
        stamp[idx2[t]] = u
    for v in range(R):
        if stamp[v] != u and x[v] > 0:
            y = min(x[v], rem)
            su[m] = v
            sy[m] = y
            m += 1
            rem -= y
            if rem == 0:
                break
    return m


@njit(cache=True)
def _best_unit(x, k, upb, blocks, local, far, nb, lb, pair_ptr, pair_idx, ptr1, idx1, ptr2, idx2):  # pragma: no cover
    """(best unit, its W) over the units with free nodes, first unit on ties.
    ``nb`` pads with the unit id R and ``lb`` with the block id ``blocks``
    (a unit and a block that hold nothing)."""
    R = x.shape[0]
    H, H2 = nb.shape[1], lb.shape[1]
    stamp = np.full(R, -1, dtype=np.int64)
    su = np.empty(R, dtype=np.int64)
    sy = np.empty(R, dtype=np.int64)
    yv = np.zeros(R + 1, dtype=np.int64)
    YB = np.zeros(blocks + 1, dtype=np.int64)
    Z = np.zeros((blocks + 1) * (blocks + 1), dtype=np.int64) if H else np.zeros(1, dtype=np.int64)
    stride = blocks + 1
    floor = k * (k - 1)
    best_u, best_w = -1, np.int64(0)
    for u in range(R):
        if x[u] == 0:
            continue
        m = _collect(u, x, k, ptr1, idx1, ptr2, idx2, stamp, su, sy)
        sq = 0
        sb = 0
        for t in range(m):
            v, y = su[t], sy[t]
            yv[v] = y
            sq += y * y
            g = v // upb
            sb += 2 * YB[g] * y + y * y
            YB[g] += y
        Q = local * (sb - sq) + far * (k * k - sb)
        if H:
            sa, sc = 0, 0
            for t in range(m):
                v, y = su[t], sy[t]
                a, c = 0, 0
                for s in range(H2):
                    a += YB[lb[v, s]]
                for s in range(pair_ptr[v], pair_ptr[v + 1]):
                    c += yv[pair_idx[s]]
                for s in range(H):
                    c += yv[nb[v, s]]
                sa += y * a
                sc += y * c
            Q += -2 * sa - sc
            # Q is now a lower bound (the pairs with A and B are counted twice): a centre it rules out is skipped
            if best_u < 0 or floor + Q // 2 < best_w:
                for t in range(m):
                    v, y = su[t], sy[t]
                    row = (v // upb) * stride
                    for s in range(H2):
                        Z[row + lb[v, s]] += y
                sab = 0
                for t in range(m):
                    v, y = su[t], sy[t]
                    bv = v // upb
                    ab = 0
                    for s in range(H2):
                        ab += Z[lb[v, s] * stride + bv]
                    sab += y * ab
                Q += sab
                for t in range(m):
                    v = su[t]
                    row = (v // upb) * stride
                    for s in range(H2):
                        Z[row + lb[v, s]] = 0
        for t in range(m):
            yv[su[t]] = 0
            YB[su[t] // upb] = 0
        w = floor + Q // 2
        if best_u < 0 or w < best_w:
            best_u, best_w = u, w
            if w == floor:
                break
    return best_u, best_w


@njit(cache=True)
def _units_of(u, x, k, ptr1, idx1, ptr2, idx2):  # pragma: no cover - compiled
    """The units and counts of centre unit u's k nearest, in the order taken."""
    R = x.shape[0]
    stamp = np.full(R, -1, dtype=np.int64)
    su = np.empty(R, dtype=np.int64)
    sy = np.empty(R, dtype=np.int64)
    m = _collect(u, x, k, ptr1, idx1, ptr2, idx2, stamp, su, sy)
    return su[:m], sy[:m]


#: per Hierarchy: its level lists (static, built at the first decision)
_LEVELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def hierarchy_gen_alg(h, free: np.ndarray, k: int) -> tuple[np.ndarray, int, int]:
    """Gen-Alg's set on a dragonfly or fat tree :class:`Hierarchy` ``h``
    with free mask ``free``: the chosen node ids (ascending), the centre
    node id and the set's W. The same set as the matrix path (k nearest by
    distance then node id around every free node; the first least W)."""
    p = h.unit_size
    into_ptr, into_idx, pair_ptr, pair_idx = h.tables()
    levels = _LEVELS.get(h)
    if levels is None:
        levels = _levels(np.int64(h.units_per_block), h.neighbours, h.linked_blocks, into_ptr, into_idx, pair_ptr,
                         pair_idx)
        _LEVELS[h] = levels
    per = free.reshape(h.units, p)
    x = per.sum(axis=1).astype(np.int64)
    nb = np.where(h.neighbours < 0, h.units, h.neighbours)
    lb = np.where(h.linked_blocks < 0, h.blocks, h.linked_blocks)
    u, w = _best_unit(x, np.int64(k), np.int64(h.units_per_block), np.int64(h.blocks), np.int64(h.local),
                      np.int64(h.far), nb, lb, pair_ptr, pair_idx, *levels)
    su, sy = _units_of(np.int64(u), x, np.int64(k), *levels)
    rows = per[su]
    take = rows & (np.cumsum(rows, axis=1) <= sy[:, None])  # the lowest free nodes of each unit
    nodes = (su[:, None] * p + np.arange(p))[take]
    centre = int(u * p + np.flatnonzero(per[u])[0])
    return np.sort(nodes), centre, int(w)


@njit(cache=True)
def _tree_centres(parent, length, depth, order, n, free, k):  # pragma: no cover - compiled
    """W of Gen-Alg's set around every free host of a tree (-1 for the
    busy ones): module notes."""
    V = len(parent)
    w = np.full(n, -1.0)
    mark = np.full(V, -1, dtype=np.int64)
    lcad = np.zeros(V)
    cnt = np.zeros(V, dtype=np.int64)
    ids = np.flatnonzero(free)
    m = len(ids)
    d = np.empty(m)
    for c in ids:
        a = c
        while a >= 0:  # the centre's path to the root: each its own lowest common ancestor with c
            mark[a] = c
            lcad[a] = depth[a]
            a = parent[a]
        for t in range(1, V):
            v = order[t]
            if mark[v] != c:
                lcad[v] = lcad[parent[v]]
        for t in range(m):
            h = ids[t]
            d[t] = depth[c] + depth[h] - 2.0 * lcad[h]
        # the k nearest by (distance, node id): those below the k-th distance, then the lowest ids at it
        kth = np.partition(d, k - 1)[k - 1]
        below = 0
        for t in range(m):
            if d[t] < kth:
                below += 1
        cnt[:] = 0
        at = k - below
        for t in range(m):
            if d[t] < kth:
                cnt[ids[t]] = 1
            elif d[t] == kth and at > 0:
                cnt[ids[t]] = 1
                at -= 1
        total = 0.0
        for t in range(V - 1, 0, -1):  # children before parents
            v = order[t]
            cnt[parent[v]] += cnt[v]
            total += length[v] * cnt[v] * (k - cnt[v])
        w[c] = total
    return w


def tree_gen_alg(tree, free: np.ndarray, k: int) -> tuple[np.ndarray, int, float]:
    """Gen-Alg's set on the hosts of a :class:`~optalloc.machine.SwitchTree`
    with free mask ``free`` (over hosts): the chosen node ids (ascending),
    the centre node id and the set's W. The k nearest by distance then node
    id around every free host, the first least W kept (W within a relative
    1e-9 of the least counts as least: with integer link lengths every W
    is exact and the set is the matrix path's; with other lengths the
    matrix path's own choice among such near-ties follows its rounding)."""
    free = np.asarray(free, dtype=bool)
    w = _tree_centres(tree.parent, tree.length, tree.depth, tree.order, np.int64(tree.n), free, np.int64(k))
    ids = np.flatnonzero(free)
    ws = w[ids]
    low = ws.min()
    c = int(ids[np.flatnonzero(ws <= low + 1e-9 * max(1.0, abs(low)))[0]])
    near = np.sort(ids[np.argsort(tree.pair_distances(c, ids), kind="stable")[:k]])
    return near, c, float(tree.weight(near))
