"""Task mapping as a quadratic assignment problem (QAP).

Map n tasks with communication matrix W onto n nodes with cost matrix C,
minimising ``sum_ij W[i, j] C[p(i), p(j)]`` (Pascual et al.).  This module
holds the objective and the QAPLIB file formats; the solvers (GRASP, robust
tabu search, exact small cases) and the mapping layer are being built.
"""

from ._core import objective, validate_matrices, validate_permutation
from ._io import QAPSolution, read_qaplib, read_solution, write_qaplib

__all__ = ["objective", "validate_matrices", "validate_permutation", "read_qaplib", "read_solution",
           "write_qaplib", "QAPSolution"]
