"""What a simulation measures: per-job records and summaries (wait, flow,
slowdown, utilisation), the locality of every allocation (Leung et al.
2002, sec. 3: span, bounding box, bounding cube, components) and fair share
and fair-start times (SAND2003-3702, ch. 7).
"""

from ._columns import RecordColumns
from ._fairness import (
    DEFAULT_HALF_LIFE,
    FairShare,
    FairStart,
    check_half_life,
    check_users,
    fair_start_summary,
    fair_start_time,
    user_key,
)
from ._locality import (
    LOCALITY_METRICS,
    LocalityContext,
    bounding_cube,
    components,
    job_locality,
    locality_context,
    locality_summary,
    min_bounding_cube,
)
from ._metrics import (
    SLOWDOWN_THRESHOLD,
    JobRecord,
    Summary,
    allocation_metrics,
    records_frame,
    require_pandas,
    summarise,
    write_batsim_csv,
    write_csv,
    write_jsonl,
)
from ._record import JobMetrics, network_weight

__all__ = [
    "DEFAULT_HALF_LIFE",
    "FairShare",
    "FairStart",
    "JobMetrics",
    "JobRecord",
    "LOCALITY_METRICS",
    "LocalityContext",
    "RecordColumns",
    "SLOWDOWN_THRESHOLD",
    "Summary",
    "allocation_metrics",
    "bounding_cube",
    "check_half_life",
    "check_users",
    "components",
    "fair_start_summary",
    "fair_start_time",
    "job_locality",
    "locality_context",
    "locality_summary",
    "min_bounding_cube",
    "network_weight",
    "records_frame",
    "require_pandas",
    "summarise",
    "user_key",
    "write_batsim_csv",
    "write_csv",
    "write_jsonl",
]
