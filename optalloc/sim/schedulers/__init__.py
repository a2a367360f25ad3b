"""Schedulers: which waiting jobs start now. FCFS, EASY and conservative
backfilling, the Cplant queue of Leung et al. (2002) and the Cplant
schedulers of SAND2003-3702 ch. 7; ``make_scheduler`` builds any of them
by name.
"""

from ._cplant import (
    Cplant,
    CplantCap72,
    CplantConservative,
    CplantDynamic,
    CplantNoHog,
    CplantQueue,
    CplantStarve72,
    CplantTweaks,
)
from ._names import SCHEDULERS, make_scheduler
from ._schedulers import EASY, FCFS, Conservative, Scheduler

__all__ = [
    "Conservative",
    "Cplant",
    "CplantCap72",
    "CplantConservative",
    "CplantDynamic",
    "CplantNoHog",
    "CplantQueue",
    "CplantStarve72",
    "CplantTweaks",
    "EASY",
    "FCFS",
    "SCHEDULERS",
    "Scheduler",
    "make_scheduler",
]
