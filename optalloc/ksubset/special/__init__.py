"""Exact k-subset in the special cases that need no search.

- :func:`line`: points on a line or a ring, O(n log n) by sliding windows
  (SAND2003-3702 sec. 5.1.1);
- :func:`k3`: k = 3 through each point's nearest neighbours;
- :func:`brute`: every k-subset, for small instances and as ground truth;
- :func:`tree_exact`: hosts on a tree of switches (a fat tree, a Slurm tree
  topology), by dynamic programming over the tree in O(N k) for N free hosts;
  :func:`network_tree` sees a network whose links form a tree as one.
"""

from ._line import line, window_weights
from ._small import BRUTE_LIMIT, brute, enumerate_subsets, k3
from ._tree import NETWORK_TREE_MAX_FREE, network_tree, tree_exact, tree_subset

__all__ = [
    "BRUTE_LIMIT",
    "NETWORK_TREE_MAX_FREE",
    "brute",
    "enumerate_subsets",
    "k3",
    "line",
    "network_tree",
    "tree_exact",
    "tree_subset",
    "window_weights",
]
