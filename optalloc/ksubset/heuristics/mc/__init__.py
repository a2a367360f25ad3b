"""MC1x1: the shells around each free node, with tie-breaking.

On a mesh the shells are counted with prefix sums of the occupancy grid
(point by point on a sparse mesh); on a torus, or on a mesh machine, from
its occupancy grid with wrap, without a distance matrix.  The torus
form's guarantee is d times Gen-Alg's (from :mod:`..centres`).
"""

from ._mc import mc1x1
from ._mctorus import coords_mc1x1, machine_mc1x1

__all__ = ["coords_mc1x1", "machine_mc1x1", "mc1x1"]
