"""The simulated machine: a 2D or 3D mesh or torus of nodes, each free or busy."""

from __future__ import annotations

import math
import operator
import re

import numpy as np

__all__ = ["Machine", "parse_machine"]

#: Largest machine simulated (allocators scan the free nodes at every decision).
SIZE_MAX = 1_000_000


class Machine:
    """A mesh or torus of nodes with a free/busy state.

    Node ``i`` has coordinates ``coords[i]``; ids run with x fastest
    (``id = x + W * (y + H * z)`` on a W x H x D mesh), the numbering of
    :class:`optalloc.qap.Topology`, so node ids pass between the simulator
    and the mapping tools unchanged.

    Parameters
    ----------
    shape : sequence of int
        Nodes per axis, 1 to 3 axes.
    torus : bool or sequence of bool
        Wrap-around links, for all axes or per axis.

    Raises
    ------
    ValueError
        Bad shape or torus flags.

    Notes
    -----
    :meth:`allocate` and :meth:`release` raise RuntimeError on a busy,
    repeated, unknown or foreign node: an allocator bug stops the run.

    Examples
    --------
    >>> m = Machine((4, 2))
    >>> m.size, m.coords[5].tolist()
    (8, [1, 1])
    >>> _ = m.allocate([0, 5], owner=7)
    >>> m.n_free
    6
    >>> _ = m.allocate([5], owner=8)
    Traceback (most recent call last):
    ...
    RuntimeError: node 5 is busy (job 7)
    """

    def __init__(self, shape, *, torus=False):
        try:
            shape = tuple(operator.index(s) for s in np.atleast_1d(shape).tolist())
        except TypeError:
            raise ValueError(f"`shape` must be a sequence of positive integers, got {shape!r}") from None
        if not 1 <= len(shape) <= 3 or min(shape) < 1:
            raise ValueError(f"`shape` must give 1 to 3 positive sizes, got {shape}")
        if isinstance(torus, (bool, np.bool_)):
            torus = (bool(torus),) * len(shape)
        else:
            torus = tuple(bool(t) for t in torus)
            if len(torus) != len(shape):
                raise ValueError(f"`torus` must be a bool or one flag per axis ({len(shape)}), got {torus}")
        if math.prod(shape) > SIZE_MAX:
            raise ValueError(f"`shape` {'x'.join(map(str, shape))} has {math.prod(shape)} nodes; the simulator "
                             f"handles at most {SIZE_MAX}")
        self.shape = shape
        self.torus = torus
        self.size = int(np.prod(shape))
        # x fastest: unravel over the reversed shape, then put x first
        coords = np.stack(np.unravel_index(np.arange(self.size), shape[::-1])[::-1], axis=1).astype(np.int64)
        coords.setflags(write=False)
        self.coords = coords
        self._owner = np.full(self.size, -1, dtype=np.int64)
        self._free = np.ones(self.size, dtype=bool)
        self._n_free = self.size
        self._cache = None

    @property
    def ndim(self) -> int:
        """Number of axes."""
        return len(self.shape)

    @property
    def is_torus(self) -> bool:
        """True when some axis wraps around."""
        return any(self.torus)

    @property
    def n_free(self) -> int:
        """Number of free nodes."""
        return self._n_free

    @property
    def free(self) -> np.ndarray:
        """Read-only free mask over node ids."""
        v = self._free.view()
        v.setflags(write=False)
        return v

    @property
    def owner(self) -> np.ndarray:
        """Read-only array: the owner of each node (-1 when free)."""
        v = self._owner.view()
        v.setflags(write=False)
        return v

    def _free_arrays(self):
        if self._cache is None:
            ids = np.flatnonzero(self._free)
            pts = self.coords[ids]
            ids.setflags(write=False)
            pts.setflags(write=False)
            self._cache = (ids, pts)
        return self._cache

    def free_ids(self) -> np.ndarray:
        """Ids of the free nodes, ascending (read-only, cached until a change)."""
        return self._free_arrays()[0]

    def free_points(self) -> np.ndarray:
        """Coordinates of the free nodes, rows matching :meth:`free_ids`."""
        return self._free_arrays()[1]

    def ids_of(self, points) -> np.ndarray:
        """Node ids of coordinate rows."""
        pts = np.asarray(points, dtype=np.int64).reshape(-1, self.ndim)
        if pts.size and (pts.min() < 0 or np.any(pts >= np.array(self.shape))):
            raise ValueError(f"`points` must lie on the machine of shape {self.shape}")
        return np.ravel_multi_index(pts.T[::-1], self.shape[::-1]).astype(np.int64)

    def _check_ids(self, ids) -> np.ndarray:
        arr = np.asarray(ids)
        if arr.dtype.kind not in "iu":
            if arr.size:
                raise RuntimeError(f"node ids must be integers, got {ids!r}")
            arr = arr.astype(np.int64)
        arr = arr.reshape(-1)
        if arr.size == 0:
            return arr.astype(np.int64)
        s = np.sort(arr)
        if s[0] < 0 or s[-1] >= self.size:
            bad = s[0] if s[0] < 0 else s[-1]
            raise RuntimeError(f"node {bad} does not exist (machine has {self.size} nodes)")
        rep = s[1:] == s[:-1]
        if rep.any():
            raise RuntimeError(f"node {s[1:][rep][0]} given twice in one allocation")
        return arr.astype(np.int64, copy=False)

    def allocate(self, ids, *, owner=0) -> np.ndarray:
        """Mark nodes busy for ``owner``; returns the ids as an array.

        Raises
        ------
        RuntimeError
            A node that is busy, unknown, or listed twice.
        """
        arr = self._check_ids(ids)
        busy = ~self._free[arr]
        if busy.any():
            node = int(arr[busy][0])
            raise RuntimeError(f"node {node} is busy (job {int(self._owner[node])})")
        self._free[arr] = False
        self._owner[arr] = owner
        self._n_free -= len(arr)
        self._cache = None
        return arr

    def release(self, ids, *, owner=0) -> None:
        """Free nodes held by ``owner``.

        Raises
        ------
        RuntimeError
            A node that is free, unknown, listed twice, or held by another job.
        """
        arr = self._check_ids(ids)
        wrong = self._owner[arr] != owner
        if wrong.any():
            node = int(arr[wrong][0])
            holder = int(self._owner[node])
            state = "free" if holder < 0 else f"held by job {holder}"
            raise RuntimeError(f"node {node} is {state}, not by job {owner}")
        self._free[arr] = True
        self._owner[arr] = -1
        self._n_free += len(arr)
        self._cache = None

    def reset(self) -> None:
        """Free every node."""
        self._free[:] = True
        self._owner[:] = -1
        self._n_free = self.size
        self._cache = None

    def axis_distances(self, a, b) -> np.ndarray:
        """Per-axis hop distance between coordinate arrays (wrap on torus axes)."""
        d = np.abs(np.asarray(a, dtype=np.int64) - np.asarray(b, dtype=np.int64))
        for ax, wrap in enumerate(self.torus):
            if wrap:
                d[..., ax] = np.minimum(d[..., ax], self.shape[ax] - d[..., ax])
        return d

    def distance(self, i, j) -> int:
        """Hop (L1) distance between nodes ``i`` and ``j``, wrapping on torus axes.

        Examples
        --------
        >>> Machine((8, 8), torus=True).distance(0, 7 * 8)
        1
        """
        return int(self.axis_distances(self.coords[i], self.coords[j]).sum())

    def describe(self) -> str:
        """Short text form, e.g. ``"16x8 mesh"`` or ``"8x8x8 torus"``."""
        dims = "x".join(map(str, self.shape))
        if all(self.torus):
            kind = "torus"
        elif any(self.torus):
            kind = "torus(" + "".join("t" if t else "m" for t in self.torus) + ")"
        else:
            kind = "mesh"
        return f"{dims} {kind}"

    def copy_empty(self) -> Machine:
        """A machine of the same shape and wrap, all nodes free."""
        return Machine(self.shape, torus=self.torus)

    def __repr__(self):
        return f"Machine({self.shape}, torus={self.torus if any(self.torus) else False})"


_SPEC = re.compile(r"^\s*(\d+(?:\s*x\s*\d+){0,2})\s*(mesh|torus|t|m)?\s*$", re.IGNORECASE)


def parse_machine(spec) -> Machine:
    """A machine from text: ``"16x8"`` (mesh), ``"8x8x8 torus"`` or ``"8x8t"``.

    Examples
    --------
    >>> parse_machine("16x8"), parse_machine("4x4x2 torus")
    (Machine((16, 8), torus=False), Machine((4, 4, 2), torus=(True, True, True)))
    """
    if isinstance(spec, Machine):
        return spec
    m = _SPEC.match(str(spec))
    if not m:
        raise ValueError(f"`machine` must look like '16x8', '8x8x8 torus' or '8x8t', got {spec!r}")
    shape = tuple(int(v) for v in re.split(r"\s*x\s*", m.group(1)))
    torus = (m.group(2) or "mesh").lower() in ("torus", "t")
    return Machine(shape, torus=torus)
