"""The count form of k-subset on a dragonfly, and the tables its search reads.

On a dragonfly (:func:`optalloc.machine.dragonfly`) two distinct nodes are
2 hops apart on one router, 3 on two routers of one group, and ``5 - s``
on routers v, w of two groups, where the saving ``s_vw`` is 2 when v and
w share a global link, 1 when a path of two router hops joins them (v
links into the group of w, w into the group of v, or both link to one
router) and 0 otherwise. Which nodes of a router are chosen does not
change W, only how many: with ``c_v`` chosen nodes on router v (at most
its ``f_v`` free ones), ``g_B`` on group B and k in all,

    W = k (k - 1) + (3 k^2 - c' M c) / 2,

    M_vv = 3,  M_vw = 2 (v, w in one group),  M_vw = s_vw (two groups),

so the least W is the greatest ``Q(c) = c' M c = 2 sum_B g_B^2 +
sum_v c_v^2 + 2 (savings)`` over integer counts with ``sum c = k``.

*At most one router is partly chosen.* Moving t nodes from router w to
router v changes Q by a quadratic in t with leading coefficient
``M_vv + M_ww - 2 M_vw = 6 - 2 M_vw >= 2 > 0``: Q is convex along the
move, so one of its two ends (v full or w empty, v empty or w full) is at
least as good. Repeating, some optimum fills every router it uses except
at most one. So each group's choice is one of its *vertex vectors*: every
router empty or full, but for at most one, and the whole set holds at most
one partly chosen router. These are also the vertices of the polytope
``{sum c = x, 0 <= c <= f}`` of a group, where a bilinear term attains its
greatest value.

Tables of one free state (:func:`dragonfly_tables`), on the groups and
routers that hold a free node:

- ``vec``: each group's vertex vectors by their count, greatest ``sum
  c^2`` first; ``top[b, x]``: the greatest ``2 x^2 + sum c^2`` of group b
  with x nodes (routers filled largest first); ``whole[b, x]``: whether x
  nodes of b can fill whole routers (when not, b holds the one router
  partly chosen, so at most one group has such a count);
- ``sig[b, b2, x, x2]``: the greatest saving between groups b and b2
  holding x and x2 nodes (``c_b' S c_b2`` over vertex vectors: for each
  vector of b the best of b2 fills its routers by their saving, greatest
  first), which every pair of sets with those counts meets or stays under;
  ``resp[u, b2, x2]``: the same for one vertex vector u against b2 (held
  while it is not too large);
- ``reach[b, x]``: the most one node outside group b saves with x nodes
  of b (its routers filled by saving, greatest first), over every router
  outside b;
- ``n2``, ``n1``: per router v and group b, the free nodes of b at saving
  2 and at saving 1 from v, summed over the groups from b on (the
  search's order).
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from ..._jit import njit

__all__ = ["MAX_ROUTERS", "DragonflyTables", "count_form_fits", "dragonfly_tables", "is_dragonfly"]

#: ``resp`` is held up to this many entries (vectors x groups x counts)
_RESP_MAX = 20_000_000
#: routers per group the count form takes: a group of a routers has about a 2^(a - 1) (p - 1) vertex vectors
MAX_ROUTERS = 10


class DragonflyTables(NamedTuple):
    """What the compiled search reads (read only)."""

    free: np.ndarray    # (R,) free nodes of each router (routers of one group together, groups in search order)
    group: np.ndarray   # (R,) the group of each router
    gptr: np.ndarray    # (B + 1,) routers of group b: gptr[b]:gptr[b + 1]
    cap: np.ndarray     # (B,) free nodes of each group
    M: np.ndarray       # (R, R) 3 on the diagonal, 2 within a group, the saving between groups
    vec: np.ndarray     # (V, A) vertex vectors (router counts, in the group's router order)
    vsq: np.ndarray     # (V,) their sum of squares
    vpart: np.ndarray   # (V,) 1 when a router is partly chosen
    vstart: np.ndarray  # (B, C + 2) group b's vectors of count x: vstart[b, x]:vstart[b, x + 1]
    top: np.ndarray     # (B, C + 1) the greatest 2 x^2 + sum c^2 of group b with x nodes
    whole: np.ndarray   # (B, C + 1) 1 when x nodes of group b fill whole routers (no router partly chosen)
    sig: np.ndarray     # (B, B, C + 1, C + 1) the greatest saving between two groups, by counts
    resp: np.ndarray    # (V, B, C + 1) the greatest saving of vector u with group b2 at count x2 (int32)
    with_resp: bool     # whether resp is held (else (1, 1, 1))
    reach: np.ndarray   # (B, C + 1) the most a node outside group b saves with x nodes of b
    n2: np.ndarray      # (R, B + 1) free nodes at saving 2 from v in groups b.. (suffix sums)
    n1: np.ndarray      # (R, B + 1) the same at saving 1
    routers: np.ndarray  # (R,) the machine's router (unit) id of each router
    unit_size: int


def is_dragonfly(machine) -> bool:
    """Whether ``machine`` is a generated dragonfly (its distances from its structure)."""
    h = getattr(machine, "hierarchy", None)
    return h is not None and h.kind == "dragonfly" and h.local == 1 and h.far == 3


def count_form_fits(hierarchy) -> bool:
    """Whether the count form's vertex vectors of a group can be listed: at
    most :data:`MAX_ROUTERS` routers per group."""
    return hierarchy.units_per_block <= MAX_ROUTERS


def dragonfly_tables(hierarchy, free_mask, k: int | None = None) -> DragonflyTables:
    """The tables of the free nodes ``free_mask`` (a bool array over node ids)
    of a dragonfly :class:`~optalloc.machine.Hierarchy` (module notes); with
    ``k``, for sets of at most k nodes (counts above k are never read: the
    tables stop there)."""
    h = hierarchy
    if not count_form_fits(h):
        raise ValueError(f"the count form lists 2^(routers - 1) vertex vectors per group: at most {MAX_ROUTERS} "
                         f"routers per group, the dragonfly has {h.units_per_block}")
    p, upb = h.unit_size, h.units_per_block
    per = np.asarray(free_mask, dtype=bool).reshape(h.units, p).sum(axis=1).astype(np.int64)
    units = np.flatnonzero(per)
    gof = units // upb
    gcap = np.bincount(gof, weights=per[units], minlength=h.blocks).astype(np.int64)
    groups = np.flatnonzero(gcap)
    # groups by free nodes, most first; each group's routers by free nodes, most first
    groups = groups[np.lexsort((groups, -gcap[groups]))]
    rank = np.full(h.blocks, -1, dtype=np.int64)
    rank[groups] = np.arange(len(groups))
    order = np.lexsort((units, -per[units], rank[gof]))
    routers = units[order]
    f = per[routers]
    grp = rank[routers // upb]
    B = len(groups)
    gptr = np.concatenate([[0], np.cumsum(np.bincount(grp, minlength=B))]).astype(np.int64)
    cap = gcap[groups]
    R = len(routers)
    U = h.unit_distances(routers[:, None], routers[None, :]).astype(np.int64)
    same = grp[:, None] == grp[None, :]
    M = np.where(same, 2, 3 - U).astype(np.int64)
    np.fill_diagonal(M, 3)
    A = int(np.diff(gptr).max())
    C = int(cap.max()) if k is None else max(1, min(int(cap.max()), int(k)))
    cnt = np.minimum(cap, C)  # the greatest count of each group the tables hold
    vec, vsq, vpart, vstart, top, whole, every = _vectors(f, gptr, A, C)
    # resp by the size it would have for every count (not only those up to k): the same tables, so the same
    # search, whatever k
    with_resp = every * B * (int(cap.max()) + 1) <= _RESP_MAX
    if with_resp:
        sig, resp = _savings(M, f, gptr, cnt, vec, vstart, C, with_resp)
    else:  # a large machine: sig pair by pair, kept between states (most groups recur unchanged)
        sig, resp = _pair_tables(h, M, f, gptr, cnt, vec, vstart, C, routers), np.zeros((1, 1, 1), dtype=np.int32)
    s2 = np.where(~same & (M == 2), f[None, :], 0)
    s1 = np.where(~same & (M == 1), f[None, :], 0)
    n2 = np.zeros((R, B + 1), dtype=np.int64)
    n1 = np.zeros((R, B + 1), dtype=np.int64)
    for b in range(B - 1, -1, -1):
        lo, hi = gptr[b], gptr[b + 1]
        n2[:, b] = n2[:, b + 1] + s2[:, lo:hi].sum(axis=1)
        n1[:, b] = n1[:, b + 1] + s1[:, lo:hi].sum(axis=1)
    return DragonflyTables(f, grp, gptr, cap, M, vec, vsq, vpart, vstart, top, whole, sig, resp, with_resp,
                           _reach(M, f, grp, gptr, C), n2, n1, routers, p)


@njit(cache=True)
def _reach(M, f, grp, gptr, C):  # pragma: no cover - compiled by numba
    """``reach[b, x]`` (module notes), x <= C."""
    B = len(gptr) - 1
    R = len(f)
    out = np.zeros((B, C + 1), dtype=np.int64)
    for b in range(B):
        lo, hi = gptr[b], gptr[b + 1]
        n = hi - lo
        coef = np.zeros(n, dtype=np.int64)
        for v in range(R):
            if grp[v] == b:
                continue
            for q in range(n):
                coef[q] = M[v, lo + q]
            idx = np.argsort(-coef)
            val = 0
            x = 0
            for i in range(n):
                q = idx[i]
                for _ in range(f[lo + q]):
                    if x == C:
                        break
                    val += coef[q]
                    x += 1
                    out[b, x] = max(out[b, x], val)
    return out


#: per Hierarchy: sig of a pair of groups by their routers and free counts
_PAIRS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: pairs kept per Hierarchy
_PAIRS_MAX = 200_000


def _pair_tables(h, M, f, gptr, cap, vec, vstart, C, routers):
    """``sig`` pair of groups by pair, each read from the tables kept for
    ``h`` when the two groups' routers and free counts recur (``cap``: each
    group's greatest count held, at most C)."""
    B = len(cap)
    kept = _PAIRS.setdefault(h, {})
    if len(kept) > _PAIRS_MAX:
        kept.clear()
    sig = np.zeros((B, B, C + 1, C + 1), dtype=np.int64)
    keys = [routers[gptr[b]:gptr[b + 1]].tobytes() + f[gptr[b]:gptr[b + 1]].tobytes() for b in range(B)]
    for b in range(B):
        lo, hi = gptr[b], gptr[b + 1]
        for b2 in range(b + 1, B):
            key = (keys[b], keys[b2])
            table = kept.get(key)  # a table of more counts holds these: its entries up to them are the same
            if table is None or table.shape[0] <= cap[b] or table.shape[1] <= cap[b2]:
                lo2, hi2 = gptr[b2], gptr[b2 + 1]
                table = _pair_savings(np.ascontiguousarray(M[lo:hi, lo2:hi2]), f[lo2:hi2],
                                      vec[vstart[b, 0]:vstart[b, cap[b] + 1]], int(cap[b]), int(cap[b2]))
                kept[key] = table
            table = table[:cap[b] + 1, :cap[b2] + 1]
            sig[b, b2, :cap[b] + 1, :cap[b2] + 1] = table
            sig[b2, b, :cap[b2] + 1, :cap[b] + 1] = table.T
    return sig


@njit(cache=True)
def _pair_savings(Mb, f2, vec, cap, cap2):  # pragma: no cover - compiled by numba
    """``sig`` of one pair of groups: over the vertex vectors ``vec`` of the
    first, the best fill of the second (routers' free counts ``f2``) by
    saving (``Mb``: the savings between their routers), up to cap2 nodes."""
    n, n2 = Mb.shape
    out = np.zeros((cap + 1, cap2 + 1), dtype=np.int64)
    coef = np.zeros(n2, dtype=np.int64)
    idx = np.zeros(n2, dtype=np.int64)
    used = np.zeros(n, dtype=np.int64)
    for u in range(vec.shape[0]):
        x = _coefficients(vec, u, Mb, 0, 0, n2, coef, idx, used)
        _fill(out[x], coef, idx, f2, 0, n2, cap2)
    return out


@njit(cache=True)
def _coefficients(vec, u, M, r0, c0, n2, coef, idx, used):  # pragma: no cover - compiled by numba
    """``coef[q]``: the saving of vector u (its routers: rows r0 + r of ``M``)
    with one node of column c0 + q, q < n2; ``idx``: the columns by it,
    greatest first (ties: the lower q first). Returns u's count."""
    x = 0
    m = 0
    for r in range(vec.shape[1]):
        if vec[u, r] != 0:
            x += vec[u, r]
            used[m] = r
            m += 1
    for q in range(n2):
        s = 0
        for i in range(m):
            s += vec[u, used[i]] * M[r0 + used[i], c0 + q]
        j = q  # insertion by saving: n2 is a group's routers, a few
        while j > 0 and coef[idx[j - 1]] < s:
            idx[j] = idx[j - 1]
            j -= 1
        coef[q] = s
        idx[j] = q
    return x


@njit(cache=True)
def _fill(row, coef, idx, f, f0, n2, cap2):  # pragma: no cover - compiled by numba
    """``row[x2]`` = max(itself, the best x2 nodes' savings) for x2 <= cap2,
    filling columns in ``idx`` order (``f[f0 + q]`` free nodes each)."""
    val = 0
    x2 = 0
    for i in range(n2):
        q = idx[i]
        c = coef[q]
        for _ in range(f[f0 + q]):
            if x2 == cap2:
                return
            val += c
            x2 += 1
            if val > row[x2]:
                row[x2] = val


#: each group's vertex vectors by its routers' free counts, kept between states (most groups recur)
_GROUPS: dict = {}
_GROUPS_MAX = 4096


def _group_vectors(fb: np.ndarray):
    """(vectors, sums of squares, partial flags, counts, top, whole) of one
    group whose routers hold ``fb`` free nodes: the vectors by count, then
    by sum of squares, greatest first; ``top[x]``, ``whole[x]`` for x = 0
    .. sum(fb) (module notes)."""
    key = fb.tobytes()
    got = _GROUPS.get(key)
    if got is not None:
        return got
    a = len(fb)
    masks = np.arange(1 << a)
    full = ((masks[:, None] >> np.arange(a)) & 1) * fb[None, :]
    rows = [full]
    part = [np.zeros(len(full), dtype=np.int64)]
    for u in range(a):
        for t in range(1, int(fb[u])):
            sub = full[full[:, u] == 0].copy()
            sub[:, u] = t
            rows.append(sub)
            part.append(np.ones(len(sub), dtype=np.int64))
    grid = np.concatenate(rows)
    part = np.concatenate(part)
    tot = grid.sum(axis=1)
    sq = (grid * grid).sum(axis=1)
    order = np.lexsort((part, -sq, tot))
    grid, sq, part, tot = grid[order], sq[order], part[order], tot[order]
    starts = np.searchsorted(tot, np.arange(int(fb.sum()) + 1))  # every count has a vector
    xs = np.arange(len(starts), dtype=np.int64)
    top = 2 * xs * xs + np.maximum.reduceat(sq, starts)
    whole = np.minimum.reduceat(part, starts) == 0
    if len(_GROUPS) >= _GROUPS_MAX:
        _GROUPS.clear()
    got = _GROUPS[key] = (grid, sq, part, tot, top, whole.astype(np.int64))
    return got


def _vectors(f, gptr, A, C):
    """Every group's vertex vectors of at most C nodes (module notes), by
    count, then by sum of squares, greatest first; ``top``, ``whole``; and
    the number of vectors of every count."""
    B = len(gptr) - 1
    pieces = []
    every = 0
    top = np.full((B, C + 1), np.iinfo(np.int64).min // 4, dtype=np.int64)
    whole = np.zeros((B, C + 1), dtype=np.int64)
    for b in range(B):
        grid, sq, part, tot, t, w = _group_vectors(np.ascontiguousarray(f[gptr[b]:gptr[b + 1]]))
        every += len(sq)
        end = int(np.searchsorted(tot, C, side="right"))
        pieces.append((grid[:end], sq[:end], part[:end], tot[:end]))
        m = min(len(t), C + 1)
        top[b, :m] = t[:m]
        whole[b, :m] = w[:m]
    total = sum(len(p[1]) for p in pieces)
    vec = np.zeros((total, A), dtype=np.int64)
    starts = np.empty((B, C + 2), dtype=np.int64)
    offset = 0
    for b, (grid, sq, part, tot) in enumerate(pieces):
        vec[offset:offset + len(sq), :grid.shape[1]] = grid
        starts[b] = offset + np.searchsorted(tot, np.arange(C + 2))
        offset += len(sq)
    vsq = np.concatenate([p[1] for p in pieces])
    vpart = np.concatenate([p[2] for p in pieces])
    return vec, vsq, vpart, starts, top, whole, every


@njit(cache=True)
def _savings(M, f, gptr, cap, vec, vstart, C, with_resp):  # pragma: no cover - compiled by numba
    """``sig[b, b2, x, x2]`` and ``resp[u, b2, x2]`` (module notes): for each
    vertex vector u of b, the best fill of b2 by saving."""
    B = len(cap)
    sig = np.zeros((B, B, C + 1, C + 1), dtype=np.int64)
    V = vec.shape[0] if with_resp else 1
    resp = np.zeros((V, B if with_resp else 1, C + 1 if with_resp else 1), dtype=np.int32)
    A = vec.shape[1]
    coef = np.zeros(A, dtype=np.int64)
    idx = np.zeros(A, dtype=np.int64)
    used = np.zeros(A, dtype=np.int64)
    for b in range(B):
        lo = gptr[b]
        for b2 in range(B):
            if b2 == b or (b2 < b and not with_resp):
                continue
            lo2 = gptr[b2]
            n2 = gptr[b2 + 1] - lo2
            for u in range(vstart[b, 0], vstart[b, cap[b] + 1]):
                x = _coefficients(vec, u, M, lo, lo2, n2, coef, idx, used)
                if with_resp:
                    _fill(resp[u, b2], coef, idx, f, lo2, n2, cap[b2])
                if b < b2:
                    _fill(sig[b, b2, x], coef, idx, f, lo2, n2, cap[b2])
            if b < b2:
                for x in range(cap[b] + 1):
                    for x2 in range(cap[b2] + 1):
                        sig[b2, b, x2, x] = sig[b, b2, x, x2]
    return sig, resp
