"""Job traces: the Standard Workload Format (reading, cleaning, writing) and
the workload transforms of Leung et al. (2002, sec. 3): the work multiple
and the replication factor; scaling a trace up to a larger machine; and
synthetic traces of the Lublin-Feitelson model (2003) for a machine of any
size.
"""

from ._history import History, HistoryReport, Placement, history_nodes, read_history, read_sacct
from ._lublin import LUBLIN_CLASSES, LublinClass, lublin_workload
from ._swf import Job, Trace, TraceReport, read_swf, write_swf
from ._transforms import copy_stride, replicate, scale_up, work_multiple

__all__ = [
    "LUBLIN_CLASSES",
    "History",
    "HistoryReport",
    "Job",
    "LublinClass",
    "Placement",
    "Trace",
    "TraceReport",
    "copy_stride",
    "history_nodes",
    "lublin_workload",
    "read_history",
    "read_sacct",
    "read_swf",
    "replicate",
    "scale_up",
    "work_multiple",
    "write_swf",
]
