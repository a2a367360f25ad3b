"""The allocators used on real machines, and the approximation scheme.

- :func:`mc1x1`: MC1x1 (shells around each free node), with tie-breaking;
- :func:`gen_alg`, :func:`mm`, :func:`mm_inc`: centre-based heuristics
  (Gen-Alg, Manhattan Median, MM+Inc), with their proven factors;
- :func:`ptas`: the strip-enumeration PTAS (Bender et al. 2005);
- the same centre-based heuristics with wrap on a torus, and swap descent
  in any metric (used by ``solve`` on tori and networks).
"""

from ._mc import mc1x1
from ._median import gen_alg, mm, mm_inc
from ._ptas import ptas

__all__ = ["gen_alg", "mc1x1", "mm", "mm_inc", "ptas"]
