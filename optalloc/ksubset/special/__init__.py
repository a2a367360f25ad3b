"""Exact k-subset in the special cases that need no search.

- :func:`line`: points on a line or a ring, O(n log n) by sliding windows
  (SAND2003-3702 sec. 5.1.1);
- :func:`k3`: k = 3 through each point's nearest neighbours;
- :func:`brute`: every k-subset, for small instances and as ground truth.
"""

from ._line import line
from ._small import brute, k3

__all__ = ["brute", "k3", "line"]
