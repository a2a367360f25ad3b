"""The exact engine: screening, the cut loop on the pairwise LP, then MIP.

:func:`exact` proves the optimum of lattice points under L1; the same
phases run over a distance matrix for tori and networks. Its parts: the
pairwise LP held in HiGHS between rounds, the triangle-cut loop with its
Lagrangian bound and branch-and-bound, the star bound and the
combinatorial searches raced in threads beside it, and the
:class:`ExactSession` that carries cuts and results between solves on one
machine. Any Pyomo solver can take the formulation instead of HiGHS.
"""

from ._exact import exact
from ._metric import solve_metric_exact
from ._session import ExactSession

__all__ = ["ExactSession", "exact", "solve_metric_exact"]
