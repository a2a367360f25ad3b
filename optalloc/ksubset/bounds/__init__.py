"""Cheap proven lower bounds on the k-subset optimum.

Each bound states the metrics it holds for and is checked against brute
force (tests/ksubset): the axis, box, neighbour and town bounds of lattice
points under L1 (:func:`lower_bound` takes the best of them), and the
bounds in a machine's own metric (wrap distance on a torus, shortest paths
on a network) that ``metric_lower_bound`` combines.
"""

from ._lattice import axis_bound, box_bound, lower_bound, neighbour_bound, town_bound

__all__ = ["axis_bound", "box_bound", "lower_bound", "neighbour_bound", "town_bound"]
