"""Glover's compact linearisation of the k-subset min-sum-L1 problem.

For each point i, a continuous :math:`w_i` stands for
:math:`x_i \\sum_{j>i} d_{ij} x_j`.  With :math:`U_i` the sum of the k
largest :math:`d_{ij}` over j > i (an upper bound on the inner sum of any
k-set, even one without i) and the lower bound 0:

.. math::

    \\min \\sum_i w_i

    \\sum_i x_i = k, \\quad x \\in \\{0,1\\}^n

    w_i \\ge 0, \\qquad w_i \\ge \\sum_{j>i} d_{ij} x_j - U_i (1 - x_i)

When :math:`x_i = 1` the second row forces :math:`w_i` up to the inner sum,
when :math:`x_i = 0` it is slack; in a minimisation the upper-side rows of
Glover (1975) are never binding and are left out.  n + 1 rows and 2n
columns, but a weak LP bound.

F. Glover, "Improved linear integer programming formulations of nonlinear
integer problems", Management Science 22 (1975).
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from ._data import check_k, distances


def build_glover(points, k) -> pyo.ConcreteModel:
    """Glover's linearisation.

    Examples
    --------
    >>> from optalloc.models.glover import build_glover
    >>> m = build_glover([[0, 0], [1, 0], [5, 5]], 2)
    >>> len(m.w), len(m.link)
    (3, 3)
    """
    pts, dist = distances(points)
    n = len(pts)
    k = check_k(k, n)
    upper = np.array([np.sort(dist[i, i + 1 :])[::-1][:k].sum() for i in range(n)])
    m = pyo.ConcreteModel(name="ksubset_glover")
    m.I = pyo.RangeSet(0, n - 1)
    m.x = pyo.Var(m.I, domain=pyo.Binary, doc="1 if point i is chosen")
    m.w = pyo.Var(m.I, domain=pyo.NonNegativeReals, doc="x_i times the distances from i to chosen j > i")
    m.card = pyo.Constraint(expr=sum(m.x[i] for i in m.I) == k, doc="exactly k points")
    m.link = pyo.Constraint(
        m.I,
        rule=lambda m, i: m.w[i]
        >= sum(float(dist[i, j]) * m.x[j] for j in range(i + 1, n)) - float(upper[i]) * (1 - m.x[i]),
        doc="w_i >= inner sum when x_i = 1",
    )
    m.obj = pyo.Objective(expr=sum(m.w[i] for i in m.I), sense=pyo.minimize, doc="sum of pairwise distances")
    return m
