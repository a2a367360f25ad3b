"""Per-axis cut formulation of the k-subset min-sum-L1 problem.

L1 distance is separable, and along one axis the pairwise sum counts each
gap between consecutive distinct coordinates once per pair it separates:
with distinct values :math:`c_1 < \\dots < c_T` on axis a, gaps
:math:`g_t = c_{t+1} - c_t` and :math:`L_t` the number of chosen points with
coordinate at most :math:`c_t`,

.. math::

    W = \\sum_a \\sum_{t<T} g_t \\, L_t \\, (k - L_t).

:math:`L_t (k - L_t)` is concave, so the model picks the value of each
:math:`L_t` with binaries :math:`z_{t\\ell}` (:math:`\\ell = 0..k`):

.. math::

    \\min \\sum_a \\sum_t g_t \\sum_\\ell \\ell (k - \\ell) z_{t\\ell}

    \\sum_\\ell z_{t\\ell} = 1, \\qquad \\sum_\\ell \\ell z_{t\\ell} = \\sum_{p: c(p) \\le c_t} x_p,
    \\qquad \\sum_p x_p = k.

Exact, and small on meshes (few distinct coordinates), but its LP bound is
0: the convex envelope of :math:`\\ell (k - \\ell)` over [0, k] is flat, so
z can sit on :math:`\\ell \\in \\{0, k\\}` for any :math:`L_t`.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from ._data import check_k, distances


def build_axis(points, k) -> pyo.ConcreteModel:
    """Per-axis cut formulation.

    Examples
    --------
    >>> from optalloc.models.axis import build_axis
    >>> m = build_axis([[0, 0], [1, 0], [1, 2]], 2)
    >>> sorted(m.C)
    [(0, 0), (1, 0)]
    """
    pts, _ = distances(points)
    n, d = pts.shape
    k = check_k(k, n)
    cuts, members, gaps = [], {}, {}
    for a in range(d):
        values = np.unique(pts[:, a])
        for t in range(len(values) - 1):
            cuts.append((a, t))
            members[a, t] = [int(p) for p in np.flatnonzero(pts[:, a] <= values[t])]
            gaps[a, t] = float(values[t + 1] - values[t])
    m = pyo.ConcreteModel(name="ksubset_axis")
    m.I = pyo.RangeSet(0, n - 1)
    m.C = pyo.Set(initialize=cuts, dimen=2, ordered=True, doc="(axis, gap index)")
    m.Lv = pyo.RangeSet(0, k)
    m.x = pyo.Var(m.I, domain=pyo.Binary, doc="1 if point i is chosen")
    m.z = pyo.Var(m.C, m.Lv, domain=pyo.Binary, doc="1 if L_t = l")
    m.card = pyo.Constraint(expr=sum(m.x[i] for i in m.I) == k, doc="exactly k points")
    m.one = pyo.Constraint(m.C, rule=lambda m, a, t: sum(m.z[a, t, l] for l in m.Lv) == 1, doc="one value of L_t")
    m.count = pyo.Constraint(
        m.C,
        rule=lambda m, a, t: sum(l * m.z[a, t, l] for l in m.Lv) == sum(m.x[p] for p in members[a, t]),
        doc="L_t counts the chosen points left of the cut",
    )
    m.obj = pyo.Objective(
        expr=sum(gaps[a, t] * l * (k - l) * m.z[a, t, l] for a, t in m.C for l in m.Lv if 0 < l < k),
        sense=pyo.minimize,
        doc="sum over cuts of gap * L_t * (k - L_t)",
    )
    return m
