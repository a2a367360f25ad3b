"""Exact k-subset on dragonflies: a search over group and router counts.

On a dragonfly W depends only on how many chosen nodes sit on each router
(and on which routers hold the global links between the groups), so the
exact solver searches count vectors, not node sets, with bounds of its own
(:mod:`._tables` states the count form and the tables, :mod:`._search` the
search and its bounds). :func:`optalloc.ksubset.solve` runs it for
``method="exact"`` on a dragonfly.
"""

from ._solve import dragonfly_exact
from ._tables import MAX_ROUTERS, count_form_fits, is_dragonfly

__all__ = ["MAX_ROUTERS", "count_form_fits", "dragonfly_exact", "is_dragonfly"]
