"""Orderings of networks: space-filling curves and the ordering integer program.

A one-dimensional allocator ranks the processors of a machine once and then
allocates by rank (SAND2003-3702, sec. 4).  This package builds such
orderings and measures how well they keep network locality.

Orderings of a 2D or 3D box (mesh), as coordinates in visiting order:

``row_major``
    x fastest, then y, then z (the baseline Cplant order).
``snake``
    boustrophedon; every step joins neighbours.
``hilbert``
    the classic Hilbert curve, power-of-two squares and cubes; unit steps.
``gilbert``
    a generalised Hilbert curve for any box; in 2D at most one diagonal
    step, and only when the side parities force it.
``box_order``
    any of the above or below by name.

Closed curves, whose last node neighbours the first, for tori and for
1D allocation with ring span (the wrap links close them where needed):

``moore``
    the Moore curve (a closed Hilbert curve), power-of-two squares.
``closed_snake``
    a comb, any 2D or 3D box.
``closed_gilbert``
    two generalised Hilbert halves joined at both ends, any 2D box.
``closed_curve_exists``
    whether a closed unit-step curve exists (the node count is even or an
    odd side wraps, in two or more dimensions).

The ordering objective of SAND2003-3702 sec. 4.2, ``sum over rank pairs
i < j of w(r(i, j)) * D[v_i, v_j]``, with linear or ring rank distance r:

``order_objective``, ``curve_objective``, ``mesh_distances``, ``rank_weights``
    evaluate it in O(N^2);
``locality``
    step lengths, stretch and window compactness of an ordering;
``order_ip``
    the exact optimum of the integer program (HiGHS, small networks).

Orderings of any connected NetworkX graph:

``order_graph``
    methods "qap" (the ordering as a quadratic assignment, solved by the
    robust tabu search of :mod:`optalloc.qap` from curve, spectral and
    greedy starts, with the Gilmore-Lawler bound), "brute" and "ip"
    (exact, small graphs), the box curves over node coordinates, and the
    starts alone.

One-dimensional allocators over an ordering (Leung et al. 2002;
SAND2003-3702 sec. 4.3): ``free_list``, ``first_fit``, ``best_fit``,
``sum_of_squares`` (each falls back to the allocation of minimum span),
``allocate_1d`` by name, ``Ordering1D`` (the rank map built once),
``allocate_ranks`` on ranks alone, and ``span``.
"""

from ._alloc1d import allocate_1d, best_fit, first_fit, free_list, sum_of_squares
from ._boxes import gilbert, hilbert, row_major, snake
from ._graph import GRAPH_METHODS, graph_distances, order_graph
from ._ip import MAX_IP_NODES, order_ip
from ._objective import (
    Locality,
    curve_objective,
    default_weight,
    locality,
    mesh_distances,
    order_objective,
    rank_weights,
)
from ._ordering1d import Ordering1D
from ._orders import BOX_ORDERS, box_order
from ._ranks import STRATEGIES, Allocation1D, allocate_ranks, span
from ._torus import CLOSED_ORDERS, closed_curve_exists, closed_gilbert, closed_snake, moore

__all__ = [
    "BOX_ORDERS",
    "CLOSED_ORDERS",
    "GRAPH_METHODS",
    "MAX_IP_NODES",
    "STRATEGIES",
    "Allocation1D",
    "Locality",
    "Ordering1D",
    "allocate_1d",
    "allocate_ranks",
    "best_fit",
    "box_order",
    "closed_curve_exists",
    "closed_gilbert",
    "closed_snake",
    "curve_objective",
    "default_weight",
    "first_fit",
    "free_list",
    "gilbert",
    "graph_distances",
    "hilbert",
    "locality",
    "mesh_distances",
    "moore",
    "order_graph",
    "order_ip",
    "order_objective",
    "rank_weights",
    "row_major",
    "snake",
    "span",
    "sum_of_squares",
]
