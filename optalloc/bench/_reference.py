"""Plain-Python reference implementations of the k-subset heuristics.

Straightforward loops with the same tie rules as the vectorised solvers of
:mod:`optalloc.ksubset`. ``optalloc bench`` times the solvers against them
on the same instance, and the tests check that both choose the same sets.
"""

from __future__ import annotations

import itertools


def weight_reference(points) -> float:
    """W by the O(k^2) double loop."""
    pts = [tuple(map(float, p)) for p in points]
    return float(sum(sum(abs(a - b) for a, b in zip(p, q)) for p, q in itertools.combinations(pts, 2)))


def _weight_sorted(points) -> float:
    total = 0.0
    k = len(points)
    for axis in zip(*points):
        for i, c in enumerate(sorted(axis)):
            total += c * (2 * i - k + 1)
    return total


def _nearest_set(pts, centre, k):
    dist = [(sum(abs(a - b) for a, b in zip(p, centre)), i) for i, p in enumerate(pts)]
    dist.sort()
    return [i for _, i in dist[:k]]


def _best_centre(pts, centres, k) -> tuple[list[int], float]:
    best, best_w = None, float("inf")
    for centre in centres:
        chosen = _nearest_set(pts, centre, k)
        w = _weight_sorted([pts[i] for i in chosen])
        if w < best_w:
            best, best_w = chosen, w
    return sorted(best), best_w


def mm_reference(points, k) -> tuple[list[int], float]:
    """MM with loops: every grid centre in lexicographic order, first best wins."""
    pts = [tuple(map(float, p)) for p in points]
    return _best_centre(pts, itertools.product(*[sorted(set(c)) for c in zip(*pts)]), k)


def gen_alg_reference(points, k) -> tuple[list[int], float]:
    """Gen-Alg with loops: centres are the points in input order."""
    pts = [tuple(map(float, p)) for p in points]
    return _best_centre(pts, pts, k)


def mc1x1_reference(points, k) -> tuple[list[int], int]:
    """MC1x1 without tie-breaking, with loops (returns the set and its score)."""
    pts = [tuple(int(c) for c in p) for p in points]
    best, best_score = None, None
    for ci, centre in enumerate(pts):
        shells = [max(abs(a - b) for a, b in zip(p, centre)) for p in pts]
        last = sorted(shells)[k - 1]
        score = sum(sorted(shells)[:k])
        if best_score is None or score < best_score:
            best_score = score
            chosen = [i for i, s in enumerate(shells) if s < last]
            pool = [i for i, s in enumerate(shells) if s == last]
            if not chosen:
                chosen, pool = [ci], [i for i in pool if i != ci]
            while len(chosen) < k:
                dist = [(sum(sum(abs(a - b) for a, b in zip(pts[j], pts[c])) for c in chosen), j) for j in pool]
                _, j = min(dist)
                chosen.append(j)
                pool.remove(j)
            best = chosen
    return sorted(best), best_score


def line_reference(values, k) -> float:
    """1-D optimum by evaluating every window of the sorted values in O(k)."""
    q = sorted(float(v) for v in values)
    return min(_weight_sorted([(x,) for x in q[s : s + k]]) for s in range(len(q) - k + 1))
