"""Box orderings by name: the open curves of :mod:`._boxes` and the closed
curves of tori of :mod:`._torus`."""

from __future__ import annotations

import numpy as np

from ._boxes import gilbert, hilbert, row_major, snake
from ._torus import CLOSED_ORDERS

__all__ = ["BOX_ORDERS", "box_order"]

#: The box orderings by name, as accepted by :func:`box_order`: the open
#: curves above and the closed ones of :mod:`optalloc.curves` (``moore``,
#: ``closed_snake``, ``closed_gilbert``).
BOX_ORDERS = {"row_major": row_major, "snake": snake, "hilbert": hilbert, "gilbert": gilbert, **CLOSED_ORDERS}


def box_order(shape, method: str = "gilbert") -> np.ndarray:
    """Order the nodes of a box by the named method.

    Parameters
    ----------
    shape : tuple of int or Machine
        ``(W, H)`` or ``(W, H, D)``, positive sides, or a mesh or torus
        Machine of that shape (the closed curves use its wrap links).
    method : {"gilbert", "hilbert", "snake", "row_major", "moore", "closed_snake", "closed_gilbert"}
        The ordering; see the function of that name.

    Returns
    -------
    numpy.ndarray
        Int array of shape ``(N, d)``: node coordinates in visiting order.

    Raises
    ------
    ValueError
        If `method` is unknown, or as the chosen ordering raises.

    Examples
    --------
    >>> from optalloc.curves import box_order
    >>> box_order((2, 2), "snake").tolist()
    [[0, 0], [1, 0], [1, 1], [0, 1]]
    >>> from optalloc.machine import Machine
    >>> m = Machine((2, 2), torus=True)
    >>> m.node_ids(box_order(m, "snake")).tolist()
    [0, 1, 3, 2]
    >>> box_order(Machine((3, 3), torus=True), "closed_gilbert")[[0, -1]].tolist()
    [[0, 0], [2, 0]]
    """
    try:
        fn = BOX_ORDERS[method]
    except (KeyError, TypeError):
        raise ValueError(f"`method` must be one of {sorted(BOX_ORDERS)}, got {method!r}") from None
    return fn(shape)
