"""What a simulation measures: per-job records and summaries (wait, flow,
slowdown, utilisation), the locality of every allocation (Leung et al.
2002, sec. 3: span, bounding box, bounding cube, components) and fair share
and fair-start times (SAND2003-3702, ch. 7).
"""

from ._fairness import DEFAULT_HALF_LIFE, FairShare, FairStart, fair_start_summary, fair_start_time
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
from ._metrics import SLOWDOWN_THRESHOLD, JobRecord, Summary, allocation_metrics, summarise

__all__ = [
    "DEFAULT_HALF_LIFE",
    "FairShare",
    "FairStart",
    "JobRecord",
    "LOCALITY_METRICS",
    "LocalityContext",
    "SLOWDOWN_THRESHOLD",
    "Summary",
    "allocation_metrics",
    "bounding_cube",
    "components",
    "fair_start_summary",
    "fair_start_time",
    "job_locality",
    "locality_context",
    "locality_summary",
    "min_bounding_cube",
    "summarise",
]
