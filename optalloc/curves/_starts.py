"""Starting orders of any connected network: a box curve over the nodes'
coordinates, and the Fiedler vector of the graph Laplacian."""

from __future__ import annotations

import operator

import numpy as np

#: The box curves among the methods of ``order_graph`` (``-`` for ``_``), the closed ones last.
_CURVES = ("gilbert", "hilbert", "snake", "row-major", "moore", "closed-gilbert", "closed-snake")


def _coordinates(labels):
    """Integer coordinates when every label is a tuple of 2 or 3 integers, else None."""
    try:
        pts = np.array([tuple(operator.index(c) for c in v) for v in labels], dtype=np.int64)
    except TypeError:
        return None
    if pts.ndim != 2 or pts.shape[1] not in (2, 3):
        return None
    return pts


def curve_start(labels, method: str) -> np.ndarray:
    """Order the nodes along a box curve over their coordinates' bounding box.

    The curve visits the box; nodes absent from the graph are skipped.
    ``hilbert`` pads the box to a power-of-two square or cube (as Slurm
    does); ``gilbert`` needs no padding.
    """
    from ._orders import box_order

    pts = _coordinates(labels)
    if pts is None:
        raise ValueError(f"method {method!r} needs nodes labelled by integer coordinates (x, y) or (x, y, z), "
                         "as nx.grid_2d_graph gives")
    lo = pts.min(axis=0)
    rel = pts - lo
    shape = tuple(int(s) for s in rel.max(axis=0) + 1)
    if method in ("hilbert", "moore"):
        side = 1 << max(0, int(np.ceil(np.log2(max(shape)))))
        shape = (side,) * len(shape)
    curve = np.asarray(box_order(shape, method.replace("-", "_")), dtype=np.int64)
    where = {tuple(p): i for i, p in enumerate(map(tuple, rel))}
    return np.array([where[t] for t in map(tuple, curve) if t in where], dtype=np.intp)


def spectral_start(G, rng=None) -> np.ndarray:
    """Order by the Fiedler vector of the graph Laplacian (ties by index).

    Ranks follow ``list(G.nodes)``; the eigensolver is seeded by ``rng``.
    """
    import networkx as nx

    n = G.number_of_nodes()
    if n < 3:
        return np.arange(n, dtype=np.intp)
    seed = int(np.random.default_rng(rng).integers(2**31))
    vals = np.asarray(nx.fiedler_vector(G, normalized=False, seed=seed, method="tracemin_lu"))
    return np.lexsort((np.arange(n), vals)).astype(np.intp)
