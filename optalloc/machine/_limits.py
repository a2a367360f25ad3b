"""What the machine's modules share below :class:`Machine`: the size of a
network listed pair by pair, and the node-id strides of a grid."""

from __future__ import annotations

import numpy as np

#: Largest network given by its distances alone (:meth:`Machine.from_distances`
#: without ``edges``: processors per node), each pair of its nodes a link.
PAIRS_MAX = 4096


def _strides(shape) -> np.ndarray:
    # node id of (x, y, z) = x + W * (y + H * z): x varies fastest
    return np.concatenate(([1], np.cumprod(shape[:-1]))).astype(np.int64)
