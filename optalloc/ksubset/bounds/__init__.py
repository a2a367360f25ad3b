"""Cheap proven lower bounds on the k-subset optimum.

Each bound states the metrics it holds for and is checked against brute
force (tests/ksubset): the axis, box, neighbour and town bounds of lattice
points under L1 (:func:`lower_bound` takes the best of them), and the
bounds in a machine's own metric (wrap distance on a torus, shortest paths
on a network) that ``metric_lower_bound`` combines.
"""

from ._lattice import (
    BOUND_NODES,
    BOUND_NODES_3D,
    TOWN_2D,
    TOWN_3D,
    axis_bound,
    box_bound,
    box_start,
    heuristic_bound,
    known_box_lower,
    lower_bound,
    neighbour_bound,
    town_bound,
)
from ._metric import axis_metric, gen_alg_holds, neighbour_metric, partition_metric

__all__ = [
    "BOUND_NODES",
    "BOUND_NODES_3D",
    "TOWN_2D",
    "TOWN_3D",
    "axis_bound",
    "axis_metric",
    "box_bound",
    "box_start",
    "gen_alg_holds",
    "heuristic_bound",
    "known_box_lower",
    "lower_bound",
    "neighbour_bound",
    "neighbour_metric",
    "partition_metric",
    "town_bound",
]
