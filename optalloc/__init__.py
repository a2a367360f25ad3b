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


def set_threads(n: int) -> int:
    """Use ``n`` threads in the loops that share their work out (the
    centres of Gen-Alg, MM, MM+Inc and MC1x1 on a grid); returns the
    previous count. The default is ``OPTALLOC_THREADS`` or the usable
    cores, and 1 in a worker of a process pool; results are the same for
    every count.

    >>> import optalloc
    >>> before = optalloc.set_threads(1)
    >>> optalloc.set_threads(before)
    1
    """
    from ._threads import set_threads as _set

    return _set(n)

__all__ = ["instance_names", "instance_path", "MappingResult", "OrderResult", "Result", "STATUSES", "SubsetResult",
           "TERMINATIONS", "__version__", "set_threads"]
