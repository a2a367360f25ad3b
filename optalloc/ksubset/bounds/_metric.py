"""Cheap proven lower bounds on the k-subset optimum of a machine, in its own metric.

On a torus or a network the distance is the machine's (wrap distance,
shortest path, 0 between processors of one node), so the L1 bounds of
:func:`lower_bound` do not apply (the optimal town and box bounds are
above the optimum on small tori, where the wrap shortens distances).  The
bounds here state the metrics they hold for:

``neighbour`` (any symmetric distance matrix with a zero diagonal and no
negative entry: L1, torus, network, several processors per node)
    ``2 W(S)`` is the sum over s in S of the distances from s to the k
    members of S (s itself at 0), which is at least f(s), the sum of the k
    smallest distances from s to the free nodes.  So ``W(OPT) >= 1/2 *``
    (the sum of the k smallest f).  It uses no triangle inequality and is 0
    where k nodes share a distance of 0 (processors of one node); it
    dominates ``C(k, 2)`` times the least positive distance when distinct
    nodes are at positive distance.
``axis`` (tori: every axis a line or a ring)
    The torus distance is the sum over axes of the per-axis (wrap)
    distance, so ``W(OPT) >= sum_a min_S W_a(S)``, each term a
    one-dimensional instance (a ring of the axis' side where it wraps)
    solved exactly by :func:`line`.
``partition`` (2D meshes and tori: each axis a line or a ring of unit steps)
    The least ``arr_x(lambda) + arr_y(lambda')`` over the partitions lambda
    of k that fit the columns (and, axes swapped, the rows), with arr the
    least cost of the counts on the axis: :func:`._ring.partition_bound`,
    whose notes give the proof (the organ pipe on a ring, Gale-Ryser and
    Schur-concavity for the rows).
``gen-alg`` (metrics: the triangle inequality must hold)
    Gen-Alg's W divided by its factor 2 - 2/k (Krumke et al.), which holds
    in any metric.  On a network the triangle inequality is checked on the
    free nodes' distances first (a machine built from a distance matrix is
    not checked when it is built); the bound is left out when it fails or
    when there are more than ``TRIANGLE_CHECK_MAX`` free nodes.

Each bound is tested against brute force on random small tori, random
graphs and machines with several processors per node
(``tests/ksubset/test_metric_bounds.py``).
"""

from __future__ import annotations

import math

import numpy as np

from .._common import half_least
from ..search import free_grid, partition_bound

__all__ = ["TRIANGLE_CHECK_MAX", "axis_metric", "gen_alg_holds", "neighbour_metric", "partition_metric"]

#: Free nodes of a network up to which the triangle inequality is checked
#: (O(n^3)) so that the Gen-Alg bound may be used.
TRIANGLE_CHECK_MAX = 400


def neighbour_metric(D: np.ndarray, k: int) -> float:
    """The ``neighbour`` bound over a distance matrix D (module notes): half
    the sum of the k smallest row sums of each row's k smallest entries
    (the node itself at 0).  Any symmetric, non-negative D.

    >>> D = np.array([[0.0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]])  # a 4-ring
    >>> neighbour_metric(D, 3)  # the optimum is 4
    3.0
    """
    n = len(D)
    if k < 2:
        return 0.0
    part = np.partition(D, k - 1, axis=1)[:, :k] if k < n else D
    f = part.sum(axis=1)
    return half_least(f, k)


def axis_metric(coords: np.ndarray, k: int, shape, torus) -> float:
    """The ``axis`` bound of candidates at ``coords`` on a mesh or torus of
    ``shape`` (wrap per axis in ``torus``): the sum over axes of the 1D
    optimum of their coordinates on that axis (a ring where it wraps).
    Only for that metric.

    >>> cells = np.array([(x, y) for y in range(2) for x in range(8)])
    >>> axis_metric(cells, 8, (8, 2), (True, False))  # the optimum, a 4x2 block, has W 56
    40.0
    """
    from ..special import line

    total = 0.0
    for a, (side, wrap) in enumerate(zip(shape, torus, strict=True)):
        x = np.asarray(coords[:, a], dtype=float)
        total += float(line(x, k, ring_length=float(side) if wrap and side > 2 else None).objective)
    return total


def partition_metric(coords: np.ndarray, k: int, shape, torus) -> float | None:
    """The ``partition`` bound of candidates at ``coords`` on a 2D mesh or
    torus of ``shape`` (wrap per axis in ``torus``); None on other
    machines and beyond ``_ring.PARTITIONS`` partitions of k.  Only for
    that metric."""
    if len(shape) != 2:
        return None
    bound = partition_bound(free_grid(coords, shape), k, tuple(bool(t) for t in torus))
    return None if bound == -math.inf else bound


def gen_alg_holds(D: np.ndarray, grid: bool) -> bool:
    """Whether Gen-Alg's factor, hence its bound, holds over D: always on a
    mesh or torus; on a network when the triangle inequality is checked
    (up to ``TRIANGLE_CHECK_MAX`` candidates)."""
    return grid or (len(D) <= TRIANGLE_CHECK_MAX and _is_metric(D))


def _is_metric(D: np.ndarray, tol: float = 1e-9) -> bool:
    """The triangle inequality D[i, j] <= D[i, m] + D[m, j] for all i, j, m."""
    for m in range(len(D)):
        if np.any(D > D[:, m : m + 1] + D[m : m + 1, :] + tol * (1.0 + np.abs(D))):
            return False
    return True
