"""Certified optimality gaps along a trace (Bender et al. 2005, Table 1).

One allocator drives the simulation; at every decision the others run on
the same free set and the exact optimum of the state (in the machine's
metric, each state once up to symmetry; here, in local processes or on
Dask) certifies every allocator's ratio. ``Certification`` holds the rows
and summaries; ``read_certification`` reads a decision file back.
"""

from ._canonical import canonical_key
from ._certify import DEFAULT_ALLOCATORS, certify, default_allocators, default_driver
from ._dask_client import DaskClient, dask_client
from ._exact import EXACT_MAX_FREE, large_state_bound
from ._history import HISTORY, HistoryCertification, certify_history
from ._read import CertificationFile, read_certification
from ._result import AllocatorSummary, Certification, SizeSummary, size_buckets
from ._rows import TOL, DecisionRow

__all__ = [
    "AllocatorSummary",
    "Certification",
    "CertificationFile",
    "DEFAULT_ALLOCATORS",
    "DaskClient",
    "DecisionRow",
    "EXACT_MAX_FREE",
    "HISTORY",
    "HistoryCertification",
    "SizeSummary",
    "TOL",
    "canonical_key",
    "certify",
    "certify_history",
    "dask_client",
    "default_allocators",
    "default_driver",
    "large_state_bound",
    "read_certification",
    "size_buckets",
]
