"""The structures of the strip-enumeration PTAS: one boundary vector per
axis (:mod:`._ptasaxis`), each combination's tables (:mod:`._ptastables`).

The vectors of each axis come sorted by B, their 1-D bound, so the loop
of an axis ends as soon as the sum of B reaches the incumbent.  Before
its tables, a combination is bounded by its pins (the points named by
the boundaries of every axis, which every set it gives holds): per axis
the largest of B, the pins' own weight and the cross bounds X; the whole
bounds Z of its vectors; and :func:`._ptasaxis.pin_rest` on every axis.
:func:`search` resumes where it stopped, for time limits and progress;
:func:`sample` estimates the work of the whole search by Knuth's
estimator of a backtrack tree (random paths, weighted by the product of
the branching counts), which the default m is chosen by.
"""

from __future__ import annotations

import numpy as np

from ...._jit import njit
from ._ptasaxis import pin_rest
from ._ptastables import _evaluate, workspace


@njit(cache=True)
def _set_axis(a, vec, x, order, g, sl, val, code, m):  # pragma: no cover - compiled
    """Slices of axis ``a`` cut at ``vec``; val and the cell code accumulate over the axes."""
    n = x.shape[0]
    cur = 0
    nxt = vec[0] if m > 1 else n + 1
    for r in range(n):
        while r == nxt:
            cur += 1
            nxt = vec[cur] if cur < m - 1 else n + 1
        p = order[a, r]
        sl[a, p] = cur
        if a == 0:
            val[a, p] = g[cur] * x[p, a]
            code[a, p] = cur
        else:
            val[a, p] = val[a - 1, p] + g[cur] * x[p, a]
            code[a, p] = code[a - 1, p] * m + cur


@njit(cache=True)
def _rest(Bv, off, d):  # pragma: no cover - compiled
    """rest[a]: the least B the axes after a can add (each list is sorted)."""
    rest = np.zeros(d + 1)
    for a in range(d - 2, -1, -1):
        rest[a] = rest[a + 1] + Bv[off[a + 1]]
    return rest


@njit(cache=True)
def _units(n, k, d, m, counts, before):  # pragma: no cover - compiled
    """Work done since ``before`` (a copy of ``counts``), in the units the
    cost model times."""
    return (n * (counts[1] - before[1]) + d * m * (counts[4] - before[4])
            + k * d * (counts[5] - before[5]))


@njit(cache=True)
def _pin_level(lvl, vec, cross, whole, x, order, m, k, bsel, least, opt1, plist, npin_at, spread_at, near_at,
               xmax_at, scratch, cutoff):  # pragma: no cover - compiled
    """Add the pins of ``vec`` (axis ``lvl``, its :func:`cross_bounds`
    ``cross`` and ``whole``) to those of the axes before: the bound of a
    set holding them all (the largest of sum_a max(B_a, the pins' weight
    on a, the cross bounds on a), B_a being the chosen vector's for the
    axes up to ``lvl`` and ``least`` for the others, the whole-weight
    bounds of the vectors chosen, kept in ``xmax_at[:, d]``, and
    :func:`pin_rest`); stops early at ``cutoff``."""
    n, d = x.shape
    npin = npin_at[lvl]
    for a in range(d):
        spread_at[lvl + 1, a] = spread_at[lvl, a]
        xmax_at[lvl + 1, a] = max(xmax_at[lvl, a], cross[a])
    xmax_at[lvl + 1, d] = max(xmax_at[lvl, d], whole)
    for u in range(m - 1):
        p = order[lvl, vec[u]]
        seen = False
        for v in range(npin):
            if plist[v] == p:
                seen = True
        if seen:
            continue
        for v in range(npin):
            q = plist[v]
            for a in range(d):
                spread_at[lvl + 1, a] += abs(x[p, a] - x[q, a])
        plist[npin] = p
        npin += 1
    npin_at[lvl + 1] = npin
    cheap = 0.0
    for a in range(d):
        cheap += max(bsel[a] if a <= lvl else least[a], spread_at[lvl + 1, a], xmax_at[lvl + 1, a])
    cheap = max(cheap, xmax_at[lvl + 1, d])
    if cheap >= cutoff:
        return cheap
    near_at[lvl + 1, :] = near_at[lvl, :]
    for u in range(npin_at[lvl], npin):
        p = plist[u]
        for q in range(n):
            dist = 0.0
            for a in range(d):
                dist += abs(x[q, a] - x[p, a])
            near_at[lvl + 1, q] += dist
    every = np.int64(-1)  # every axis; not a literal (see optalloc._jit)
    return max(cheap, pin_rest(near_at[lvl + 1], plist, npin, k, every, spread_at[lvl + 1], opt1, scratch))


@njit(cache=True)
def search(x, order, V, Bv, Om, Xv, Zv, off, sizes, g, cs, opt1, state, best, pos, max_units, counts,
           prune):  # pragma: no cover - compiled
    """Every structure from ``pos`` (an index into each axis's list of
    boundary vectors, sorted by B) on, in lexicographic order, until about
    ``max_units`` of work: True when the enumeration is over, else False
    with ``pos`` where to resume.  Combinations whose sum of B reaches the
    incumbent ``state[0]`` end their loop (the lists are sorted); a vector
    whose pins, with those of the axes before, bound every set above it is
    skipped."""
    n, d = x.shape
    m = sizes.shape[0]
    k = best.shape[0]
    rest = _rest(Bv, off, d)
    least = np.empty(d)
    for a in range(d):
        least[a] = Bv[off[a]]
    sl = np.zeros((d, n), np.int64)
    code = np.zeros((d, n), np.int64)
    val = np.zeros((d, n))
    bacc = np.zeros(d + 1)
    bsel = np.zeros(d)
    omega = np.zeros((d, m))
    plist = np.zeros(d * m + 1, np.int64)
    npin_at = np.zeros(d + 1, np.int64)
    spread_at = np.zeros((d + 1, d))
    near_at = np.zeros((d + 1, n))
    xmax_at = np.full((d + 1, d + 1), -np.inf)
    scratch = np.empty(n)
    work = workspace(n, d, m, k)
    before = counts.copy()
    j = pos.copy()
    for a in range(d - 1):
        t = off[a] + j[a]
        _set_axis(a, V[t], x, order, g, sl, val, code, m)
        bacc[a + 1] = bacc[a] + Bv[t]
        bsel[a] = Bv[t]
        omega[a, :] = Om[t]
        _pin_level(a, V[t], Xv[t], Zv[t], x, order, m, k, bsel, least, opt1, plist, npin_at, spread_at, near_at, xmax_at,
                   scratch, np.inf)
    if not prune:
        for a in range(d - 1):
            t = off[a] + j[a]
            _pin_level(a, V[t], Xv[t], Zv[t], x, order, m, k, bsel, least, opt1, plist, npin_at, spread_at, near_at,
                       xmax_at, scratch, -np.inf)
    lvl = d - 1
    units = 0
    while lvl >= 0:
        t = off[lvl] + j[lvl]
        cut = state[0] - state[1] if prune else np.inf
        if t >= off[lvl + 1] or bacc[lvl] + Bv[t] + rest[lvl] >= cut:
            lvl -= 1
            if lvl >= 0:
                j[lvl] += 1
            continue
        bsel[lvl] = Bv[t]
        units += m * d
        if lvl == d - 1:
            counts[0] += 1
        if _pin_level(lvl, V[t], Xv[t], Zv[t], x, order, m, k, bsel, least, opt1, plist, npin_at, spread_at, near_at,
                      xmax_at, scratch, cut if prune else -np.inf) >= cut:
            j[lvl] += 1
            continue
        units += n
        _set_axis(lvl, V[t], x, order, g, sl, val, code, m)
        bacc[lvl + 1] = bacc[lvl] + Bv[t]
        omega[lvl, :] = Om[t]
        units += n
        if lvl < d - 1:
            lvl += 1
            j[lvl] = 0
            continue
        _evaluate(x, plist, npin_at[d], sl, val, code, omega, bsel, sizes, cs, state, best, work, counts, prune)
        j[lvl] += 1
        if units + _units(n, k, d, m, counts, before) >= max_units:
            pos[:] = j
            counts[7] += units
            return False
    counts[7] += units
    return True


@njit(cache=True)
def sample(x, order, V, Bv, Om, Xv, Zv, off, sizes, g, cs, opt1, state, best, samples, seed,
           counts):  # pragma: no cover - compiled
    """Knuth's estimate of the work of :func:`search` from the start: along
    ``samples`` random paths (one vector per axis, uniform among those the
    sorted lists let through), each step's work times the product of the
    branching counts.  Returns ``(estimated units, units done)``; the
    structures met are evaluated for real (they may improve ``best``)."""
    n, d = x.shape
    m = sizes.shape[0]
    k = best.shape[0]
    np.random.seed(seed)
    rest = _rest(Bv, off, d)
    least = np.empty(d)
    for a in range(d):
        least[a] = Bv[off[a]]
    sl = np.zeros((d, n), np.int64)
    code = np.zeros((d, n), np.int64)
    val = np.zeros((d, n))
    bsel = np.zeros(d)
    omega = np.zeros((d, m))
    plist = np.zeros(d * m + 1, np.int64)
    npin_at = np.zeros(d + 1, np.int64)
    spread_at = np.zeros((d + 1, d))
    near_at = np.zeros((d + 1, n))
    xmax_at = np.full((d + 1, d + 1), -np.inf)
    scratch = np.empty(n)
    work = workspace(n, d, m, k)
    estimate = 0.0
    done = 0.0
    prune = np.bool_(True)  # not the literal: search's _evaluate serves (see optalloc._jit)
    for _ in range(samples):
        weight = 1.0
        bsum = 0.0
        for a in range(d):
            lo = off[a]
            cnt = np.searchsorted(Bv[lo:off[a + 1]], state[0] - state[1] - rest[a] - bsum)
            if cnt == 0:
                break
            weight *= cnt
            t = lo + np.random.randint(cnt)
            bsel[a] = Bv[t]
            cut = state[0] - state[1]
            u = m * d
            if _pin_level(a, V[t], Xv[t], Zv[t], x, order, m, k, bsel, least, opt1, plist, npin_at, spread_at, near_at,
                          xmax_at, scratch, cut) >= cut:
                estimate += weight * u
                done += u
                break
            u += 2 * n
            _set_axis(a, V[t], x, order, g, sl, val, code, m)
            bsum += Bv[t]
            omega[a, :] = Om[t]
            if a == d - 1:
                before = counts.copy()
                _evaluate(x, plist, npin_at[d], sl, val, code, omega, bsel, sizes, cs, state, best, work, counts,
                          prune)
                u += _units(n, k, d, m, counts, before)
            estimate += weight * u
            done += u
    return estimate / samples, done


@njit(cache=True)
def count_combos(Bv, off, d, bound, cap):  # pragma: no cover - compiled
    """How many combinations (one vector per axis) have a sum of B below
    ``bound``; -1 when more than ``cap``, or when counting them would visit
    more than ``cap`` prefixes."""
    rest = _rest(Bv, off, d)
    if d == 1:
        total = np.searchsorted(Bv[off[0]:off[1]], bound)
        return total if total <= cap else -1
    j = np.zeros(d, np.int64)
    bacc = np.zeros(d + 1)
    total = 0
    visited = 0
    lvl = 0
    last = Bv[off[d - 1]:off[d]]
    while lvl >= 0:
        t = off[lvl] + j[lvl]
        if t >= off[lvl + 1] or bacc[lvl] + Bv[t] + rest[lvl] >= bound:
            lvl -= 1
            if lvl >= 0:
                j[lvl] += 1
            continue
        bacc[lvl + 1] = bacc[lvl] + Bv[t]
        visited += 1
        if visited > cap:
            return -1
        if lvl < d - 2:
            lvl += 1
            j[lvl] = 0
            continue
        total += np.searchsorted(last, bound - bacc[lvl + 1])
        if total > cap:
            return -1
        j[lvl] += 1
    return total
