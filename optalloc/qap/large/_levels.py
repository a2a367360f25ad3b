"""The nodes of a mapping in the form the compiled refinement takes.

The nodes of a grid (``sides``, wrap flags, and a length per axis,
``scale``), or, on a network, the nodes of the partition with their
distance matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Level:
    """The nodes of one level, in the form the kernels take."""

    coords: np.ndarray  # (m, d) int64 coordinates (grids), (m, 1) zeros (networks)
    sides: np.ndarray  # (d,) int64
    wrap: np.ndarray  # (d,) bool
    scale: np.ndarray  # (d,) float64: fine hops per coarse hop along each axis
    active: np.ndarray  # (d,) bool: axes of side > 1 on the finest level (TD's spread)
    td: bool  # add the axis spread (Traffic Distribution)
    D: np.ndarray  # (m, m) distances on a network, (1, 1) unused on a grid
    use_d: bool
    nptr: np.ndarray  # CSR of each node's neighbours (its links)
    nidx: np.ndarray

    @property
    def m(self) -> int:
        return len(self.coords)

    def args(self) -> tuple:
        """The node arguments of the kernels, in their order."""
        return (self.coords, self.sides, self.wrap, self.scale, self.active, self.td, self.D, self.use_d)


def _strides(sides) -> np.ndarray:
    return np.concatenate(([1], np.cumprod(sides[:-1]))).astype(np.int64)


def grid_level(machine, ids: np.ndarray, td: bool, sides=None, scale=None) -> Level:
    """The nodes ``ids`` of a mesh or torus (or a coarse grid of ``sides``)."""
    shape = np.asarray(machine.shape if sides is None else sides, dtype=np.int64)
    wrap = np.asarray(machine.torus, dtype=bool)
    active = np.asarray(machine.shape, dtype=np.int64) > 1
    td = bool(td and active.sum() >= 2)
    strides = _strides(shape)
    coords = (ids[:, None] // strides) % shape
    total = int(np.prod(shape))
    slot = np.full(total, -1, dtype=np.int64)
    slot[ids] = np.arange(len(ids))
    rows, cols = [], []
    for k, side in enumerate(shape):
        if side < 2:
            continue
        for step in (1, -1):
            x = coords[:, k] + step
            ok = (x >= 0) & (x < side) if not wrap[k] else np.ones(len(ids), bool)
            if wrap[k] and side == 2 and step == -1:
                continue  # the same neighbour as +1
            nb = ids + ((x % side) - coords[:, k]) * strides[k]
            nb_local = slot[nb[ok]]
            good = nb_local >= 0
            rows.append(np.nonzero(ok)[0][good])
            cols.append(nb_local[good])
    nptr, nidx = _csr(len(ids), rows, cols)
    return Level(coords=coords, sides=shape, wrap=wrap,
                 scale=np.ones(len(shape)) if scale is None else np.asarray(scale, dtype=np.float64),
                 active=active, td=td, D=np.zeros((1, 1)), use_d=False, nptr=nptr, nidx=nidx)


def network_level(machine, ids: np.ndarray) -> Level:
    """The nodes ``ids`` of a network, with their distance matrix and links."""
    D = np.ascontiguousarray(machine.distances(ids), dtype=np.float64)
    slot = np.full(machine.n, -1, dtype=np.int64)
    slot[ids] = np.arange(len(ids))
    links = np.asarray(machine.links(), dtype=np.int64).reshape(-1, 2)
    a, b = slot[links[:, 0]], slot[links[:, 1]]
    ok = (a >= 0) & (b >= 0)
    nptr, nidx = _csr(len(ids), [a[ok], b[ok]], [b[ok], a[ok]])
    one = np.ones(1, dtype=np.int64)
    return Level(coords=np.zeros((len(ids), 1), dtype=np.int64), sides=one, wrap=np.zeros(1, bool),
                 scale=np.ones(1), active=np.zeros(1, bool), td=False, D=D, use_d=True, nptr=nptr, nidx=nidx)


def _csr(m: int, rows, cols) -> tuple[np.ndarray, np.ndarray]:
    r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    pairs = np.unique(np.stack((r, c), axis=1), axis=0) if len(r) else np.zeros((0, 2), np.int64)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    nptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(pairs[:, 0], minlength=m), out=nptr[1:])
    return nptr, np.ascontiguousarray(pairs[:, 1], dtype=np.int64)
