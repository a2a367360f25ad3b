"""Exact k-subset on a line and on a ring (SAND2003 sec. 5.1.1)."""

from __future__ import annotations

import time

import numpy as np

from .._common import is_integral, make_result, validate_k, validate_points, validate_positive

# Windows whose floating-point weight is within this relative distance of the
# minimum are re-evaluated exactly before one is chosen.
_VERIFY_RTOL = 1e-9


def window_weights(q: np.ndarray, k: int) -> np.ndarray:
    """W of every window of k consecutive values of the sorted array ``q``.

    With prefix sums P0 of q_t and P1 of t * q_t, the window starting at s
    has ``W = 2 (P1[s+k] - P1[s]) - (2 s + k - 1) (P0[s+k] - P0[s])``: the
    i-th smallest of k values enters with coefficient 2i - k + 1.  This is
    the sliding recurrence of SAND2003 sec. 5.1.1 written in closed form.
    Integer input is summed exactly in int64.
    """
    n = len(q)
    if is_integral(q) and np.abs(q).max(initial=0) * n * n < 2**62:
        v = q.astype(np.int64)
        t = np.arange(n, dtype=np.int64)
    else:
        v = q - q[n // 2]  # centre to limit cancellation
        t = np.arange(n, dtype=np.float64)
    p0 = np.concatenate(([0], np.cumsum(v)))
    p1 = np.concatenate(([0], np.cumsum(t * v)))
    s = t[: n - k + 1]
    return (2 * (p1[k:] - p1[:-k]) - (2 * s + k - 1) * (p0[k:] - p0[:-k])).astype(np.float64)


def _ring_weight_direct(pos: np.ndarray, length: float) -> float:
    d = np.abs(pos[:, None] - pos[None, :])
    return float(np.minimum(d, length - d).sum() / 2)


def _ring_window_weights(q: np.ndarray, k: int, length) -> np.ndarray:
    """Ring W of each arc of k consecutive points (sorted ``q`` in [0, length)).

    Window s holds points s, ..., s+k-1 of the doubled sequence
    ``q_0..q_{n-1}, q_0+L, ..., q_{n-1}+L`` (SAND2003 sec. 5.1.1, ring).  The
    ring distance of two points at arc offset D is min(D, L - D).  Sliding
    from window s to s+1 removes the pairs of point s and adds the pairs of
    point s+k; each is one point against a run of consecutive points, split
    by a binary search into the pairs nearer along the arc and those nearer
    the other way round, and summed with prefix sums in O(1).
    """
    n = len(q)
    exact = is_integral(q) and float(length).is_integer() and length * n * n < 2**62
    if exact:
        q2 = np.concatenate((q, q + length)).astype(np.int64)
        half2 = int(length)  # compare 2 * D <= L in integers
    else:
        q2 = np.concatenate((q, q + length)).astype(np.float64)
    m = len(q2)
    p0 = np.concatenate(([0], np.cumsum(q2)))

    def run_sum(lo, hi):  # sum of q2[lo:hi], elementwise for arrays
        return p0[hi] - p0[lo]

    if exact:
        # last index j with 2 (q2[j] - q2[i]) <= L
        up = np.searchsorted(2 * q2, 2 * q2 + half2, side="right") - 1
        # first index j with 2 (q2[i] - q2[j]) <= L
        down = np.searchsorted(2 * q2, 2 * q2 - half2, side="left")
    else:
        up = np.searchsorted(q2, q2 + length / 2, side="right") - 1
        down = np.searchsorted(q2, q2 - length / 2, side="left")

    def forward(i, e):
        """Sum of ring distances from point i to points i+1..e (e >= i)."""
        u = np.minimum(up[i], e)
        near = run_sum(i + 1, u + 1) - (u - i) * q2[i]
        far = (e - u) * (length + q2[i]) - run_sum(u + 1, e + 1)
        return near + far

    def backward(i, b):
        """Sum of ring distances from point i to points b..i-1 (b <= i)."""
        v = np.maximum(down[i], b)
        near = (i - v) * q2[i] - run_sum(v, i)
        far = run_sum(b, v) + (v - b) * (length - q2[i])
        return near + far

    first = 0
    for j in range(1, k):
        first += backward(np.intp(j), np.intp(0))
    s = np.arange(n - 1)
    delta = backward(s + k, s + 1) - forward(s, s + k - 1)
    del m
    out = np.empty(n, dtype=np.float64)
    out[0] = first
    out[1:] = first + np.cumsum(delta)
    return out


def line(points, k, *, ring_length=None):
    """Exact k-subset on a line, or on a ring of circumference ``ring_length``.

    On a line an optimal set is a run of consecutive points in sorted order
    (SAND2003 Theorem 4), and all n - k + 1 runs are evaluated in O(1) each.
    On a ring (a one-dimensional torus) the optimum is an arc of
    consecutive points in circular order; the doubled-sequence trick of the
    same section turns arcs into windows.

    Parameters
    ----------
    points : array_like, shape (n,) or (n, 1)
        Positions on the line (or on the ring, in ``[0, ring_length)``).
    k : int
        Number of points to choose, ``1 <= k <= n``.
    ring_length : float, optional
        Circumference of the ring; distances are ``min(|a-b|, L-|a-b|)``.

    Returns
    -------
    Result
        ``status="optimal"``, ``guarantee=1``.

    Raises
    ------
    ValueError
        Points not one-dimensional, k out of range, positions outside the
        ring.

    Notes
    -----
    O(n) after an O(n log n) sort.  Ties go to the leftmost window (on the
    ring, the window starting at the smallest position).

    References
    ----------
    SAND2003-3702, sec. 5.1.1; Bender et al. (2005), sec. 1.

    Examples
    --------
    >>> from optalloc.ksubset import line
    >>> r = line([0, 10, 11, 13, 30], 3)
    >>> r.indices.tolist(), r.objective
    ([1, 2, 3], 6.0)
    >>> line([0, 1, 3, 9], 3, ring_length=10).indices.tolist()
    [0, 1, 3]
    """
    start = time.perf_counter()
    pts = validate_points(points)
    if pts.shape[1] != 1:
        raise ValueError(f"`points` must be one-dimensional for method 'line', got {pts.shape[1]} coordinates")
    n = len(pts)
    k = validate_k(k, n)
    q = pts[:, 0]
    order = np.argsort(q, kind="stable")
    qs = q[order]
    if ring_length is None:
        w = window_weights(qs, k)
        best = _pick_min(w, lambda s: _line_weight(qs[s : s + k]))
        chosen = order[best : best + k]
        extra = {"window": [float(qs[best]), float(qs[best + k - 1])]}
        res = make_result(pts, chosen, method="line", start=start, guarantee=1.0, termination="optimal", extra=extra)
        return res
    length = validate_positive(ring_length, "ring_length", allow_none=False)
    if qs[0] < 0 or qs[-1] >= length:
        raise ValueError(f"ring positions must lie in [0, ring_length={length:g}), got [{qs[0]:g}, {qs[-1]:g}]")
    w = _ring_window_weights(qs, k, length)
    arcs = lambda s: np.arange(s, s + k) % n  # noqa: E731
    best = _pick_min(w, lambda s: _ring_weight_direct(qs[arcs(s)], length))
    chosen = order[arcs(best)]
    objective = _ring_weight_direct(qs[arcs(best)], length)
    res = make_result(pts, chosen, method="line", start=start, guarantee=1.0, termination="optimal")
    # W on the ring differs from the straight-line W of the same positions.
    pairs = k * (k - 1) / 2
    return res.replace(
        objective=objective,
        average=objective / pairs if pairs else 0.0,
        bound=objective,
        extra={"ring_length": length, "arc_start": float(qs[best])},
    )


def _line_weight(v):
    return float(window_weights(np.asarray(v, dtype=float), len(v))[0])


def _pick_min(w: np.ndarray, exact) -> int:
    """Index of the smallest window, re-checking near-ties exactly for floats."""
    lo = w.min()
    near = np.flatnonzero(w <= lo + _VERIFY_RTOL * max(1.0, abs(lo)))
    if len(near) == 1:
        return int(near[0])
    if len(near) > 64:  # many ties: on integer data w is exact already
        return int(near[0])
    vals = [exact(int(s)) for s in near]
    return int(near[int(np.argmin(vals))])
