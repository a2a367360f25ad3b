"""Heuristics over a distance matrix: Gen-Alg's candidate sets, swap descent
and the W of many sets at once.

They hold in any metric (a torus's wrap distance, a network's shortest
paths); the torus heuristics (:mod:`.._torus`), the metric dispatcher and the
exact engine's incumbent all start from them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["centre_sets", "metric_descent", "set_weights"]


def metric_descent(D: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Best-improvement swap descent in the metric D from the rows ``rows``.

    ``s[v]`` is the sum of distances from v to the chosen set; swapping
    chosen u for unchosen v changes W by ``s[v] - s[u] - D[u, v]``.
    Returns the chosen rows, sorted.

    >>> D = np.array([[0.0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]])
    >>> metric_descent(D, np.array([0, 2])).tolist()  # opposite corners of a 4-ring: W 2 -> 1
    [1, 2]
    """
    n = len(D)
    inside = np.zeros(n, dtype=bool)
    inside[rows] = True
    s = D[:, inside].sum(axis=1)
    tol = 1e-9 * max(1.0, float(s.max(initial=0.0)))
    while True:
        cin, cout = np.flatnonzero(inside), np.flatnonzero(~inside)
        if len(cout) == 0 or len(cin) == 0:
            break
        delta = s[cout][None, :] - s[cin][:, None] - D[np.ix_(cin, cout)]
        flat = int(np.argmin(delta))
        if delta.flat[flat] >= -tol:
            break
        u, v = cin[flat // len(cout)], cout[flat % len(cout)]
        inside[u], inside[v] = False, True
        s += D[:, v] - D[:, u]
    return np.flatnonzero(inside)


def set_weights(D: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """W in the metric D of each row of ``sets`` (m, k), in blocks of about
    a million pairs.

    >>> D = np.array([[0.0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]])
    >>> set_weights(D, np.array([[0, 1, 2], [0, 1, 3]])).tolist()
    [4.0, 4.0]
    """
    m, k = sets.shape
    if k < 2 or m == 0:
        return np.zeros(m)
    iu, ju = np.triu_indices(k, 1)
    step = max(1, (1 << 20) // len(iu))
    return np.concatenate([D[sets[lo : lo + step][:, iu], sets[lo : lo + step][:, ju]].sum(axis=1)
                           for lo in range(0, m, step)])


def centre_sets(D: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Gen-Alg's candidates: around every row of D its k nearest rows (itself
    first; ties by row, which is node-id order) and their W."""
    near = np.argsort(D, axis=1, kind="stable")[:, :k]
    return near, set_weights(D, near)
