"""Machines: meshes of free and busy processors, and the files that describe them.

File formats
------------
points file
    One point per line, coordinates separated by spaces or commas; ``#``
    starts a comment.
mesh map
    ASCII art: ``.`` free, any other visible character busy; rows are y,
    columns x; 3-D layers (z) separated by a blank line.
"""

from ._io import Mesh, parse_mesh, parse_points, read_mesh, read_points

__all__ = ["Mesh", "parse_mesh", "parse_points", "read_mesh", "read_points"]
