"""optalloc: exact and approximate solvers for communication-aware processor
allocation and task mapping on supercomputers.

Subpackages
-----------
ksubset
    The k-subset min-sum-L1 problem: choose k free processors of least total
    pairwise hop distance (MM, Gen-Alg, MC1x1, MM+Inc, exact special cases).
machine
    Meshes and free sets: reading mesh maps and point files.
"""

from ._result import STATUSES, Result

__version__ = "0.1.0"

__all__ = ["Result", "STATUSES", "__version__"]
