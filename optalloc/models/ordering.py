"""The ordering integer program of SAND2003-3702 sec. 4.2.

Find an order v_0, ..., v_{N-1} of the N nodes of a network so that nodes
close in the order are close in the network.  Positions i and nodes v run
over 0 .. N-1; ``D[v, u]`` is the distance of nodes v and u, ``r(i, j)``
the rank distance of positions i < j (``j - i``, or ``min(j - i, N - j +
i)`` on a ring) and ``w(k)`` the weight of rank distance k.  Variables:
:math:`x_{iv} = 1` when node v is at position i, and for i < j and v != u
:math:`z_{ivju}` standing for :math:`x_{iv} x_{ju}`:

.. math::

    \\min \\sum_k w(k) \\sum_{i < j,\\ r(i, j) = k} \\sum_{v \\ne u}
        D[v, u] \\, z_{ivju}

    \\sum_v x_{iv} = 1 \\ \\forall i, \\qquad \\sum_i x_{iv} = 1 \\ \\forall v

    \\sum_{v \\ne u} z_{ivju} = x_{ju} \\ \\forall i < j, u, \\qquad
    \\sum_{u \\ne v} z_{ivju} = x_{iv} \\ \\forall i < j, v

    z_{ivju} = 0 \\quad \\text{when } D[v, u] > j - i
    \\quad \\text{(optional)}

    x \\in \\{0, 1\\}, \\quad z \\ge 0.

The two linking families are the Adams-Johnson linearisation of the
products (the paper's second linking row is read with its indices
corrected: summing ``z_ivju`` over u gives ``x_iv``).  With x binary they
force ``z_ivju = x_iv x_ju`` exactly, so z may be continuous.  Pairs with
v = u are left out: a node has one position.  This is a quadratic
assignment problem with flow ``w(r(i, j))`` between positions and distance
``D`` between nodes.

Every order has the same objective as its reverse, and on a ring as its
rotations; ``break_symmetry`` adds rows that keep one order of each such
class, which shortens the search without changing the optimum.

The optional constraint (the paper's ``z_ivjw = 0`` when ``dist(v, w) >
|j - i|``, with the linear ``|j - i|`` also on a ring) keeps only orders
in which nodes k ranks apart are at most k apart.  For distances that
satisfy the triangle inequality this is the same as asking consecutive
nodes to be at distance at most 1, i.e. for hop counts, the order must be
a Hamiltonian path.  So it is a restriction, not a valid inequality: on a
graph without a Hamiltonian path (a star, most trees) the model becomes
infeasible, and even with one, the best Hamiltonian order need not be the
best order (for the default weights ``2**-(k-1)`` it has been on every
small graph tried, see ``tests/curves/test_order_ip.py``).  When it holds,
it removes many z variables from the search.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from optalloc._validate import rank_weight_table, validate_distances


def build_ordering(D, weights=None, *, ring: bool = False, distance_constraint: bool = False,
                   break_symmetry: bool = False) -> pyo.ConcreteModel:
    """The ordering integer program of SAND2003-3702 sec. 4.2.

    Parameters
    ----------
    D : array_like, shape (N, N)
        Node distances.
    weights : callable, array_like or None
        ``w(k)`` per rank distance k >= 1, as for
        :func:`optalloc.curves.rank_weights`; None gives ``2**-(k-1)``.
    ring : bool
        Rank distance ``min(j - i, N - (j - i))``.
    distance_constraint : bool
        Add ``z_ivju = 0`` whenever ``D[v, u] > j - i`` (``model.near``).
    break_symmetry : bool
        Add ``model.symmetry``, rows that keep one order of each class of
        orders with equal objective: reversal (the first node has a smaller
        index than the last), and on a ring also rotation (node 0 at
        position 0; then the second node has a smaller index than the
        last).  The optimum value is unchanged.

    Returns
    -------
    pyomo.environ.ConcreteModel
        With ``x[i, v]`` (node v at position i), ``z[i, v, j, u]``, the
        weights ``w[k]``, constraints ``one_node``, ``one_position``,
        ``link_j``, ``link_i`` (and ``near``) and the objective ``obj``.

    Raises
    ------
    ValueError
        For a non-square or non-finite `D` or invalid `weights`.

    Examples
    --------
    >>> import numpy as np
    >>> from optalloc.models.ordering import build_ordering
    >>> D = np.abs(np.subtract.outer(np.arange(3), np.arange(3)))
    >>> m = build_ordering(D)
    >>> len(m.x), len(m.z), len(m.link_j)
    (9, 18, 9)
    >>> len(build_ordering(D, distance_constraint=True).near)
    4
    """
    D = validate_distances(D)
    n = len(D)
    c = rank_weight_table(n, weights, ring=ring)  # c[j - i] = w(r(i, j))
    kmax = n // 2 if ring else n - 1
    table = {}
    for k in range(1, n):
        table[min(k, n - k) if ring else k] = float(c[k])

    m = pyo.ConcreteModel(name="ordering")
    m.I = pyo.RangeSet(0, n - 1, doc="positions (ranks)")
    m.V = pyo.RangeSet(0, n - 1, doc="nodes")
    m.K = pyo.RangeSet(1, kmax, doc="rank distances")
    m.w = pyo.Param(m.K, initialize=table, default=0.0, doc="weight w(k) of rank distance k")
    m.pairs = pyo.Set(initialize=[(i, j) for i in range(n) for j in range(i + 1, n)], dimen=2, ordered=True,
                      doc="position pairs i < j")
    m.Z = pyo.Set(initialize=[(i, v, j, u) for i, j in m.pairs for v in range(n) for u in range(n) if u != v],
                  dimen=4, ordered=True, doc="(i, v, j, u): v at position i, u at position j, i < j")
    m.x = pyo.Var(m.I, m.V, domain=pyo.Binary, doc="1 if node v is at position i")
    m.z = pyo.Var(m.Z, bounds=(0, 1), doc="x[i, v] * x[j, u]")

    m.one_node = pyo.Constraint(m.I, rule=lambda m, i: sum(m.x[i, v] for v in m.V) == 1,
                                doc="one node per position")
    m.one_position = pyo.Constraint(m.V, rule=lambda m, v: sum(m.x[i, v] for i in m.I) == 1,
                                    doc="one position per node")
    m.link_j = pyo.Constraint(
        m.pairs, m.V, rule=lambda m, i, j, u: sum(m.z[i, v, j, u] for v in m.V if v != u) == m.x[j, u],
        doc="some node sits at position i when u sits at j")
    m.link_i = pyo.Constraint(
        m.pairs, m.V, rule=lambda m, i, j, v: sum(m.z[i, v, j, u] for u in m.V if u != v) == m.x[i, v],
        doc="some node sits at position j when v sits at i")
    if distance_constraint:
        m.far = pyo.Set(initialize=[t for t in m.Z if D[t[1], t[3]] > t[2] - t[0]], dimen=4, ordered=True,
                        doc="pairs farther apart in the network than in rank")
        m.near = pyo.Constraint(m.far, rule=lambda m, i, v, j, u: m.z[i, v, j, u] == 0,
                                doc="z = 0 when D[v, u] > j - i")

    m.symmetry = pyo.ConstraintList(doc="symmetry-breaking rows (reversal, ring rotation)")
    if break_symmetry and n > 2:
        def label(i):
            return sum(v * m.x[i, v] for v in m.V)

        if ring:
            # rotating a ring order keeps every rank distance
            m.symmetry.add(m.x[0, 0] == 1)
            m.symmetry.add(label(1) + 1 <= label(n - 1))
        else:
            # reading a linear order backwards keeps every rank distance
            m.symmetry.add(label(0) + 1 <= label(n - 1))

    def rank(i, j):
        return min(j - i, n - (j - i)) if ring else j - i

    m.obj = pyo.Objective(
        expr=sum(m.w[rank(i, j)] * float(D[v, u]) * m.z[i, v, j, u]
                 for i, v, j, u in m.Z if D[v, u] != 0 and c[j - i] != 0),
        sense=pyo.minimize, doc="sum over position pairs of w(rank distance) times node distance")
    return m


def order_from_model(m) -> np.ndarray:
    """The order held by the x values of a solved model: node at each position."""
    n = len(m.I)
    x = np.array([[pyo.value(m.x[i, v]) for v in range(n)] for i in range(n)])
    return np.argmax(x, axis=1)
