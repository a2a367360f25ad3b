"""Shared data preparation for the k-subset models."""

from __future__ import annotations

import numpy as np


def distances(points) -> tuple[np.ndarray, np.ndarray]:
    """Points as an (n, d) float array and their L1 distance matrix."""
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim == 1:
        pts = pts[:, None]
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
    return pts, dist


def check_k(k, n: int) -> int:
    k = int(k)
    if not 1 <= k <= n:
        raise ValueError(f"`k` must be between 1 and the number of points ({n}), got {k}")
    return k
