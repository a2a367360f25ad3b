"""Machines: meshes, tori and networks of free and busy nodes, and the files
that describe them.

:class:`Machine` is the one machine type of optalloc: the simulator, the
k-subset solvers, task mapping and orderings all take it. Build one with
``Machine(shape, torus=...)``, :meth:`Machine.from_graph`,
:meth:`Machine.from_distances` or :func:`parse_machine`; the networks people
run come from :func:`dragonfly` and :func:`fat_tree`, nodes with several
processors from :func:`processors_per_node`.

File formats
------------
points file
    One point per line, coordinates separated by spaces or commas; ``#``
    starts a comment.
machine map
    ASCII art: ``.`` free, any other visible character busy; rows are y,
    columns x; 3-D layers (z) separated by a blank line.
network
    GraphML, node-link JSON, or an edge list of ``u v [length]`` lines.
topology.conf
    Slurm's description of a tree of switches (``SwitchName=``) or of
    blocks (``BlockName=``): :func:`read_topology`; node lists in hostlist
    expressions (``cn[001-004]``) with :func:`parse_nodelist`.
"""

from ._generators import dragonfly, dragonfly_graph, fat_tree, fat_tree_graph, processors_per_node
from ._io import parse_map, parse_points, read_graph, read_map, read_points
from ._machine import Machine
from ._parse import parse_machine
from ._slurm import format_nodelist, parse_nodelist, parse_topology, read_topology

__all__ = ["Machine", "dragonfly", "dragonfly_graph", "fat_tree", "fat_tree_graph", "parse_machine", "parse_map", "parse_points", "read_graph", "read_map", "read_points",
           "processors_per_node", "format_nodelist", "parse_nodelist", "parse_topology", "read_topology"]
