"""The allocators used on real machines, and the approximation scheme.

- :func:`mc1x1`: MC1x1 (shells around each free node), with tie-breaking
  (sub-package ``mc``);
- :func:`gen_alg`, :func:`mm`, :func:`mm_inc`: centre-based heuristics
  (Gen-Alg, Manhattan Median, MM+Inc), with their proven factors
  (sub-package ``centres``);
- :func:`ptas`: the strip-enumeration PTAS (Bender et al. 2005; sub-package
  ``strips``);
- the same centre-based heuristics with wrap on a torus, and swap descent
  in any metric (used by ``solve`` on tori and networks; ``centres``, and
  the table of torus methods in ``_torus``).
"""

from ._torus import TORUS_METHODS
from .centres import gen_alg, mm, mm_inc
from .mc import mc1x1
from .strips import ptas

__all__ = ["TORUS_METHODS", "gen_alg", "mc1x1", "mm", "mm_inc", "ptas"]
