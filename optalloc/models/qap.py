"""Adams-Johnson linearisation of the quadratic assignment problem.

Binary :math:`x_{ik}` (task i on node k) and, for tasks :math:`i < j` and
nodes :math:`k \\ne l`, :math:`y_{ijkl} \\in [0, 1]` standing for
:math:`x_{ik} x_{jl}`:

.. math::

    \\min \\sum_{i,k} w_{ii} c_{kk} x_{ik}
        + \\sum_{i<j} \\sum_{k \\ne l} (w_{ij} c_{kl} + w_{ji} c_{lk}) y_{ijkl}

    \\sum_k x_{ik} = 1 \\;\\forall i, \\qquad \\sum_i x_{ik} = 1 \\;\\forall k

    \\sum_{l \\ne k} y_{\\{ik, jl\\}} = x_{ik} \\quad \\forall i, k, j \\ne i

    \\sum_{j \\ne i} y_{\\{ik, jl\\}} = x_{ik} \\quad \\forall i, k, l \\ne k

where :math:`y_{\\{ik, jl\\}}` is :math:`y_{ijkl}` when i < j and
:math:`y_{jilk}` otherwise (the symmetry :math:`y_{ijkl} = y_{jilk}` of
Adams and Johnson is built into the variables).  The two families multiply
the assignment rows by :math:`x_{ik}` (a level-1 reformulation-
linearisation); with binary x they force :math:`y_{ijkl} = x_{ik} x_{jl}`.
Their LP relaxation is at least as strong as the Gilmore-Lawler bound.

Size: :math:`n^2` binaries, :math:`n^2 (n-1)^2 / 2` continuous variables,
:math:`2 n^2 (n-1)` rows; practical up to n of about 12.

References
----------
W. P. Adams, T. A. Johnson, "Improved linear programming-based lower
bounds for the quadratic assignment problem", DIMACS Series 16 (1994).
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo


def build_adams_johnson(W, C, *, relax: bool = False) -> pyo.ConcreteModel:
    """Adams-Johnson model of ``min sum_ij W[i,j] C[p(i),p(j)]``.

    ``relax=True`` gives the LP relaxation (x in [0, 1]).

    Examples
    --------
    >>> from optalloc.models.qap import build_adams_johnson
    >>> m = build_adams_johnson([[0, 2, 0], [2, 0, 1], [0, 1, 0]], [[0, 1, 2], [1, 0, 1], [2, 1, 0]])
    >>> len(m.x), len(m.y), len(m.rows) + len(m.cols)
    (9, 18, 36)
    """
    A = np.asarray(W, dtype=np.float64)
    B = np.asarray(C, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape != B.shape:
        raise ValueError(f"`W` and `C` must be square matrices of one size, got {A.shape} and {B.shape}")
    n = len(A)
    m = pyo.ConcreteModel(name="qap_adams_johnson")
    m.T = pyo.RangeSet(0, n - 1)
    m.X = pyo.Set(initialize=[(i, k) for i in range(n) for k in range(n)], dimen=2, ordered=True)
    m.Y = pyo.Set(initialize=[(i, j, k, l) for i in range(n) for j in range(i + 1, n)
                              for k in range(n) for l in range(n) if k != l], dimen=4, ordered=True)
    m.x = pyo.Var(m.X, domain=pyo.UnitInterval if relax else pyo.Binary, doc="1 if task i is on node k")
    m.y = pyo.Var(m.Y, bounds=(0, 1), doc="x_ik * x_jl for i < j")

    def y(i, k, j, l):
        return m.y[i, j, k, l] if i < j else m.y[j, i, l, k]

    m.task = pyo.Constraint(m.T, rule=lambda m, i: sum(m.x[i, k] for k in m.T) == 1, doc="each task on one node")
    m.node = pyo.Constraint(m.T, rule=lambda m, k: sum(m.x[i, k] for i in m.T) == 1, doc="each node takes one task")
    m.rows = pyo.Constraint(
        [(i, k, j) for i in range(n) for k in range(n) for j in range(n) if j != i],
        rule=lambda m, i, k, j: sum(y(i, k, j, l) for l in range(n) if l != k) == m.x[i, k],
        doc="task j sits on some node l != k when task i is on k")
    m.cols = pyo.Constraint(
        [(i, k, l) for i in range(n) for k in range(n) for l in range(n) if l != k],
        rule=lambda m, i, k, l: sum(y(i, k, j, l) for j in range(n) if j != i) == m.x[i, k],
        doc="node l holds some task j != i when task i is on k")
    lin = {(i, k): A[i, i] * B[k, k] for i in range(n) for k in range(n) if A[i, i] * B[k, k] != 0}
    quad = {}
    for i, j, k, l in m.Y:
        c = A[i, j] * B[k, l] + A[j, i] * B[l, k]
        if c != 0:
            quad[i, j, k, l] = c
    m.cost = pyo.Objective(
        expr=sum(c * m.x[key] for key, c in lin.items()) + sum(c * m.y[key] for key, c in quad.items()),
        sense=pyo.minimize, doc="flow times cost over all task pairs")
    return m
