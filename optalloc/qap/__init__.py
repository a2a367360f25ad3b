"""Task mapping as a quadratic assignment problem (QAP).

Map n tasks with communication matrix W onto n nodes with cost matrix C,
minimising ``sum_ij W[i, j] C[p(i), p(j)]`` (Pascual et al.); the solution
is a permutation, task i on node ``p[i]``.

Solvers (each returns an :class:`optalloc.MappingResult` with ``permutation``):

==================  ===============================================  ============
function            algorithm                                        outcome
==================  ===============================================  ============
``grasp``           GRASP as in Pascual et al.: Li-Pardalos-Resende  heuristic
                    construction + best-improvement 2-swap descent
``tabu``            robust tabu search (Taillard) with restarts      heuristic
                    from greedy constructions
``local_search``    best-improvement 2-swap descent from a given     local optimum
                    permutation
``faq``             scipy's FAQ, polished by 2-swap descent          heuristic
``exact``           enumeration (n <= 8), Adams-Johnson MIP          optimal or a
                                                                     bracket
``brute``           all n! permutations                              optimal
``gilmore_lawler``  Gilmore-Lawler lower bound                       bound
==================  ===============================================  ============

The mapping layer takes the one machine type,
:class:`optalloc.machine.Machine` (meshes and tori with wrap on any axes,
networks), or a spec that :func:`optalloc.machine.parse_machine` reads:
:func:`cost_matrix` builds C ("classic" hop or "td" Traffic Distribution
costs), :func:`map_tasks` solves the mapping, the metrics measure it
(hop-bytes, dilation, link loads under dimension-order routing), and the
pattern generators give W (dense, or scipy.sparse with ``sparse=True``).
Jobs of thousands of tasks: :mod:`optalloc.qap.large` (sparse traffic,
the multilevel mapper, ``map_tasks(..., method="multilevel")`` or
``"auto"``, costs and a proven bound without n x n matrices).
"""

from ._bounds import gilmore_lawler
from ._core import objective, validate_matrices, validate_permutation
from ._cost import CRITERIA, cost_matrix
from ._exact import brute, exact
from ._grasp import grasp
from ._io import QAPSolution, read_qaplib, read_solution, write_qaplib
from ._mapping import MAP_METHODS, METHODS, faq, map_tasks, solve
from ._matrix_io import parse_matrix, read_matrix
from ._metrics import (
    Dilation,
    LinkLoads,
    MappingReport,
    dilation,
    hop_bytes,
    link_loads,
    mapping_report,
)
from ._patterns import (
    PATTERNS,
    all_to_all,
    parse_pattern,
    random_sparse,
    ring,
    stencil,
    transpose,
)
from ._search import local_search
from ._tabu import tabu

__all__ = [
    "CRITERIA",
    "MAP_METHODS",
    "METHODS",
    "PATTERNS",
    "Dilation",
    "LinkLoads",
    "MappingReport",
    "QAPSolution",
    "all_to_all",
    "brute",
    "cost_matrix",
    "dilation",
    "exact",
    "faq",
    "gilmore_lawler",
    "grasp",
    "hop_bytes",
    "link_loads",
    "local_search",
    "map_tasks",
    "mapping_report",
    "objective",
    "parse_matrix",
    "parse_pattern",
    "random_sparse",
    "read_matrix",
    "read_qaplib",
    "read_solution",
    "ring",
    "solve",
    "stencil",
    "tabu",
    "transpose",
    "validate_matrices",
    "validate_permutation",
    "write_qaplib",
]
