"""The centre-based heuristics: Gen-Alg, MM (Manhattan Median) and MM+Inc.

Each takes, around every centre (Gen-Alg: every point; MM: every cell of
the product of the points' coordinates), its k nearest points and keeps
the set of least W; MM+Inc then swaps to a local minimum.  On lattice
points of at most three axes and on tori they run over the grid without a
distance matrix (compiled kernels, swap descent on the grid); in any other
metric over a distance matrix, and on dragonflies, fat trees and trees of
switches from the free counts per router or from the tree.
"""

from ._centres import GRID_TORUS_METHODS, mm_inc_torus_grid, mm_torus_grid
from ._median import gen_alg, gen_alg_guarantee, mm, mm_inc, swap_descent
from ._metric import centre_sets, metric_descent, set_weights
from ._network import hierarchy_gen_alg, tree_gen_alg

__all__ = ["GRID_TORUS_METHODS", "centre_sets", "gen_alg", "gen_alg_guarantee", "hierarchy_gen_alg",
           "metric_descent", "mm", "mm_inc", "mm_inc_torus_grid", "mm_torus_grid", "set_weights", "swap_descent",
           "tree_gen_alg"]
