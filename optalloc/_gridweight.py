"""W of a set of grid points, the sum of its pairwise distances, from each
axis's sorted coordinates: O(d k log k), no k x k matrix.

On a mesh axis, with the coordinates sorted ``c_0 <= ... <= c_{k-1}``, the
i-th counts + in i pairs and - in k - 1 - i.  On a wrapping axis of side n
the distance of a pair ``c_i <= c_j`` is ``c_j - c_i`` while
``2 (c_j - c_i) <= n``, else ``n - (c_j - c_i)``; the pairs of each i on
either side of that cut are counted with prefix sums and a pointer that
only moves forward (:func:`wrap_pair_sum`, compiled, so that compiled
per-job figures call it too).  Every figure is an integer.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit

__all__ = ["axis_pair_sum", "grid_weight", "wrap_pair_sum"]


@njit(cache=True)
def wrap_pair_sum(s, n):
    """Sum over pairs of min(d, n - d) of sorted coordinates ``s`` on a ring of side n."""
    k = len(s)
    prefix = np.zeros(k + 1, dtype=np.int64)
    for i in range(k):
        prefix[i + 1] = prefix[i] + s[i]
    total = 0
    p = 0  # last j with 2 (s[j] - s[i]) <= n
    for i in range(k):
        if p < i:
            p = i
        while p + 1 < k and 2 * (s[p + 1] - s[i]) <= n:
            p += 1
        near = p - i
        total += prefix[p + 1] - prefix[i + 1] - near * s[i]
        far = k - 1 - p
        total += far * (n + s[i]) - (prefix[k] - prefix[p + 1])
    return total


def axis_pair_sum(c, n: int, wrap: bool) -> int:
    """Sum over pairs of the distances along one axis of side n (wrap
    distances where ``wrap``) of the coordinates ``c``."""
    s = np.sort(np.asarray(c, dtype=np.int64))
    if not wrap:
        return int(np.dot(s, 2 * np.arange(len(s)) - len(s) + 1))
    return int(wrap_pair_sum(s, int(n)))


def grid_weight(cells, shape, wrap) -> int:
    """W of distinct grid points ``cells`` (k, d): per axis of side
    ``shape[a]`` the wrap distance ``min(|x - y|, n - |x - y|)`` where
    ``wrap[a]``, else ``|x - y|``, summed over the axes.

    >>> grid_weight(np.array([[0], [1], [7]]), [8], [True])  # 1 + 1 + 2
    4
    """
    cells = np.asarray(cells, dtype=np.int64)
    return sum(axis_pair_sum(cells[:, a], shape[a], bool(wrap[a])) for a in range(cells.shape[1]))
