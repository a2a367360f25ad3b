"""Combinatorial searches for the k-subset optimum on lattice points.

Each search enumerates a structure an optimal set must have and prunes it
with bounds of its own:

- full boxes: :func:`box_optimum` (partitions of k into rows), its
  branch-and-bound :func:`search_box` with Lagrangian bounds, and the 3D
  :func:`cuboid_optimum`;
- busy machines in the plane: :func:`profile_search` over column and row
  profiles (with :func:`profile_bound`) and :func:`shape_search` over the
  shapes of level sets;
- tori and networks: the search over column and row counts on a 2D torus,
  and over the twin classes and blocks of a network (used by the exact
  engine through their modules).
"""

from ._box import box_bracket, box_optimum, partition_count
from ._boxsearch import search_box
from ._cuboid import cuboid_optimum
from ._profile import profile_bound, profile_search
from ._shapesearch import shape_search

__all__ = [
    "box_bracket",
    "box_optimum",
    "cuboid_optimum",
    "partition_count",
    "profile_bound",
    "profile_search",
    "search_box",
    "shape_search",
]
