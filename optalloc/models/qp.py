"""The natural binary quadratic program of the k-subset min-sum-L1 problem.

.. math::

    \\min \\sum_{i<j} d_{ij} x_i x_j
    \\quad \\text{s.t.} \\quad \\sum_i x_i = k, \\quad x \\in \\{0, 1\\}^n

with :math:`d_{ij}` the L1 distance of points i and j.  The objective is a
non-convex quadratic (the distance matrix is conditionally negative
definite), so the model needs a solver that handles non-convex binary
quadratic programs (Gurobi, SCIP, CPLEX, ...); HiGHS does not.
SAND2003-3702 sec. 5 mentions this formulation.
"""

from __future__ import annotations

import pyomo.environ as pyo

from ._data import check_k, distances


def build_qp(points, k) -> pyo.ConcreteModel:
    """Binary quadratic program; ``model.x[i]`` = 1 when point i is chosen.

    Examples
    --------
    >>> from pyomo.environ import value as pyomo_value
    >>> from optalloc.models.qp import build_qp
    >>> m = build_qp([[0, 0], [1, 0], [5, 5]], 2)
    >>> len(m.x), pyomo_value(m.card.upper)
    (3, 2.0)
    """
    pts, dist = distances(points)
    n = len(pts)
    k = check_k(k, n)
    m = pyo.ConcreteModel(name="ksubset_qp")
    m.I = pyo.RangeSet(0, n - 1)
    m.x = pyo.Var(m.I, domain=pyo.Binary, doc="1 if point i is chosen")
    m.card = pyo.Constraint(expr=sum(m.x[i] for i in m.I) == k, doc="exactly k points")
    m.obj = pyo.Objective(
        expr=sum(float(dist[i, j]) * m.x[i] * m.x[j] for i in range(n) for j in range(i + 1, n) if dist[i, j]),
        sense=pyo.minimize,
        doc="sum of pairwise L1 distances of the chosen points",
    )
    return m
