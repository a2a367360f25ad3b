"""Job traces: the Standard Workload Format (reading, cleaning, writing) and
the workload transforms of Leung et al. (2002, sec. 3): the work multiple
and the replication factor.
"""

from ._swf import Job, Trace, TraceReport, read_swf, write_swf
from ._transforms import copy_stride, replicate, work_multiple

__all__ = [
    "Job",
    "Trace",
    "TraceReport",
    "copy_stride",
    "read_swf",
    "replicate",
    "work_multiple",
    "write_swf",
]
