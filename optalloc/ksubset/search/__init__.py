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
  engine).
"""

from ._blocksearch import block_search, block_structure
from ._box import box_bracket, box_optimum, fit_in, partition_count
from ._boxsearch import search_box
from ._cuboid import cuboid_optimum, torus_cuboid_optimum
from ._profile import (
    ProfileGrid,
    profile_bound,
    profile_bound_grid,
    profile_grid,
    profile_search,
    profile_search_grid,
)
from ._profilesearch import deadline_array, now
from ._ring import free_grid, idle_optimum, partition_bound
from ._shapesearch import ShapeGrid, shape_grid, shape_search, shape_search_grid
from ._torusnarrow import torus_narrow
from ._torusprofile import torus_profile_search

__all__ = [
    "ProfileGrid",
    "ShapeGrid",
    "block_search",
    "block_structure",
    "box_bracket",
    "box_optimum",
    "cuboid_optimum",
    "deadline_array",
    "fit_in",
    "free_grid",
    "idle_optimum",
    "now",
    "partition_bound",
    "partition_count",
    "profile_bound",
    "profile_bound_grid",
    "profile_grid",
    "profile_search",
    "profile_search_grid",
    "search_box",
    "shape_grid",
    "shape_search",
    "shape_search_grid",
    "torus_cuboid_optimum",
    "torus_narrow",
    "torus_profile_search",
]
