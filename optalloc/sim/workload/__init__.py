"""Job traces: the Standard Workload Format (reading, cleaning, writing) and
the workload transforms of Leung et al. (2002, sec. 3): the work multiple
and the replication factor; scaling a trace up to a larger machine; and
synthetic traces of the Lublin-Feitelson model (2003) for a machine of any
size.
"""

from ._history import History, HistoryReport, Placement, history_nodes, read_history, read_sacct
from ._lublin import LUBLIN_CLASSES, LublinClass, lublin_workload
from ._swf import Job, Trace, TraceReport, decode_swf, parse_swf_text, read_swf, write_swf
from ._transforms import (
    cap_runtime,
    check_replication,
    check_work_multiple,
    copy_stride,
    replicate,
    scale_up,
    work_multiple,
)

__all__ = [
    "LUBLIN_CLASSES",
    "History",
    "HistoryReport",
    "Job",
    "LublinClass",
    "Placement",
    "Trace",
    "TraceReport",
    "cap_runtime",
    "check_replication",
    "check_work_multiple",
    "copy_stride",
    "decode_swf",
    "history_nodes",
    "lublin_workload",
    "parse_swf_text",
    "read_history",
    "read_sacct",
    "read_swf",
    "replicate",
    "scale_up",
    "work_multiple",
    "write_swf",
]
