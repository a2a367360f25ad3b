"""The k-subset min-sum-L1 problem.

Given n points of R^d (the free processors of a mesh) and an integer k,
choose k of them minimising W, the sum of pairwise L1 distances (the
average number of hops between the processors of a job, times C(k, 2)).

Methods (``solve(points, k, method=NAME)``):

============  ============================================  ==================
name          algorithm                                     guarantee
============  ============================================  ==================
``mm``        Manhattan Median: k nearest around every      min(2 - 1/(2d),
              point of the coordinate grid                  2 - 2/k); 7/4 (2D)
``gen-alg``   k nearest around every input point            2 - 2/k
``mc1x1``     shells by L-inf distance, optional            d (2 - 2/k),
              tie-breaking; MC with a requested shape       4 in 2D as k grows
``mm-inc``    MM then improving swaps                       as MM
``line``      sliding window, 1D and ring                   exact
``k3``        k = 3 via nearest neighbours                  exact
``brute``     enumeration of all subsets                    exact
``exact``     triangle-cut loop on the pairwise LP, then    exact (proven),
              branch-and-bound (HiGHS); any Pyomo solver    or a bracket
``ptas``      strip enumeration (any d), m strips per axis  1/(1 - 1/(2(m-2))
                                                            - 2/(m-1)); m = k:
                                                            exact
============  ============================================  ==================

On a :class:`~optalloc.machine.Machine` (``solve(machine, k, ...)``) the
free nodes are chosen in the machine's own metric: a mesh runs the point
methods; a torus ``brute``, ``gen-alg`` (2 - 2/k in any metric), ``mm`` and
``mm-inc`` (2 - 2/k with wrap), ``mc1x1`` (d (2 - 2/k)) and ``exact`` (the
same cut loop over the distance matrix, with the bounds that hold there);
a network ``brute``, ``gen-alg`` and ``exact`` (on a dragonfly
``dragonfly_exact``, the search over group and router counts).

``weight`` evaluates W in O(d k log k); ``lower_bound`` gives cheap proven
bounds (``metric_lower_bound`` those that hold on a torus or network); ``gap`` certifies how far a given allocation is from optimal;
``profile_search`` is the exact search over column and row profiles that
``exact`` runs first on nearly full 2D free sets, ``shape_search`` the one
over the shapes of optimal sets that it runs beside the LP on 2D free sets
with busy cells among them; ``box_optimum`` and
``cuboid_optimum`` are the optima of full 2D and 3D boxes (empty machines).

The code sits in rooms by role, each importing only those below it:
``engine`` (the exact solver), ``dragonfly`` (the exact search over a
dragonfly's group and router counts), ``heuristics`` (MC1x1, MM, Gen-Alg, MM+Inc,
the PTAS), ``bounds`` (proven lower bounds), ``search`` (the combinatorial
searches over boxes, profiles, shapes, torus counts and blocks) and
``special`` (1D, ring, k = 3, brute force).

``BOX_SEARCH_AVAILABLE`` is deprecated: it is always True (numba, which
compiles the box search, is a dependency) and reading it warns.
"""

import warnings

from ._common import weight
from ._gap import GapReport, gap
from ._metric import metric_lower_bound
from ._solve import METHODS, machine_methods, method_options, solve
from .bounds import axis_bound, box_bound, lower_bound, neighbour_bound, town_bound
from .dragonfly import dragonfly_exact
from .engine import ExactSession, exact
from .heuristics import gen_alg, mc1x1, mm, mm_inc, ptas
from .search import (
    box_bracket,
    box_optimum,
    cuboid_optimum,
    partition_count,
    profile_bound,
    profile_search,
    search_box,
    shape_search,
)
from .special import brute, k3, line, tree_exact

__all__ = [
    "weight",
    "solve",
    "machine_methods",
    "METHODS",
    "method_options",
    "mm",
    "gen_alg",
    "mc1x1",
    "mm_inc",
    "line",
    "k3",
    "brute",
    "tree_exact",
    "exact",
    "dragonfly_exact",
    "ptas",
    "ExactSession",
    "lower_bound",
    "metric_lower_bound",
    "neighbour_bound",
    "axis_bound",
    "town_bound",
    "box_bound",
    "box_bracket",
    "box_optimum",
    "search_box",
    "partition_count",
    "cuboid_optimum",
    "profile_bound",
    "profile_search",
    "shape_search",
    "gap",
    "GapReport",
]


def __getattr__(name):
    # deprecated names, kept readable (PEP 562)
    if name == "BOX_SEARCH_AVAILABLE":
        warnings.warn("optalloc.ksubset.BOX_SEARCH_AVAILABLE is deprecated and always True: numba, which compiles "
                      "the box search, is a dependency", DeprecationWarning, stacklevel=2)
        return True
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
