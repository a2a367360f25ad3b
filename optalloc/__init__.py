"""optalloc: exact and approximate solvers for communication-aware processor
allocation and task mapping on supercomputers.

Subpackages
-----------
ksubset
    The k-subset min-sum-L1 problem: choose k free processors of least total
    pairwise hop distance (MM, Gen-Alg, MC1x1, MM+Inc, exact special cases).
machine
    The one machine type (meshes, tori, networks, free/busy state) and
    ``parse_machine``; reading machine maps, point and network files.
curves
    Orderings of meshes and networks (snake, Hilbert, generalised Hilbert,
    ``order_graph`` with a proven bound), the ordering integer program, and
    1D allocators over an ordering.
qap
    Task mapping as a quadratic assignment problem: GRASP, robust tabu
    search, exact small cases, topologies, cost criteria, mapping metrics.
sim
    Trace simulation (SWF traces, FCFS/EASY/conservative backfilling,
    pluggable allocators), certification of every allocation decision
    against the exact optimum, resumable parameter sweeps.
models
    The Pyomo formulations (``optalloc.models``).
"""

from ._instances import instance_names, instance_path
from ._result import STATUSES, TERMINATIONS, MappingResult, OrderResult, Result, SubsetResult

__version__ = "0.1.0"

__all__ = ["instance_names", "instance_path", "MappingResult", "OrderResult", "Result", "STATUSES", "SubsetResult",
           "TERMINATIONS", "__version__"]
