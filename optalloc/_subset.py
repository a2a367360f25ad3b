"""The result of a chosen subset of processors, shared by every package.

A k-subset solver and a 1D allocator both choose k of n points; both
report the choice as a :class:`~optalloc.SubsetResult` whose objective is
W, the sum of pairwise L1 distances of the chosen points.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ._result import SubsetResult, status_of

__all__ = ["is_integral", "is_proven_optimal", "metric_subset_result", "subset_result", "weights_sorted"]

# Relative tolerance used to compare objective values computed along
# different summation orders.
_RTOL = 1e-9


def weights_sorted(sorted_sets: np.ndarray) -> np.ndarray:
    """W of many point sets, each sorted along every axis: shape (m, k, d) -> (m,).

    The i-th smallest of k values appears with sign + in i pairs and with
    sign - in k - 1 - i pairs, so ``W = sum_axes sum_i c_(i) * (2 i - k + 1)``.

    >>> weights_sorted(np.array([[[0.0], [1.0], [3.0]]])).tolist()
    [6.0]
    """
    k = sorted_sets.shape[1]
    coef = 2.0 * np.arange(k) - (k - 1)
    return np.einsum("mkd,k->m", sorted_sets, coef)


def is_integral(points: np.ndarray) -> bool:
    """True when every coordinate is an integer (then W is an integer)."""
    return bool(np.all(points == np.round(points)))


def is_proven_optimal(objective: float, bound: float | None, integral: bool) -> bool:
    """True when ``bound`` proves ``objective`` optimal (up to rounding; an
    integer W is proven by a bound above W - 1)."""
    if bound is None:
        return False
    tol = _RTOL * max(1.0, abs(objective))
    if integral:
        # W is an integer: a bound above W - 1 proves optimality.
        return bound > objective - 1 + tol or bound >= objective - tol
    return bound >= objective - tol


def subset_result(
    points: np.ndarray,
    indices,
    *,
    method: str,
    start: float,
    guarantee: float | None = None,
    bound: float | None = None,
    termination: str | None = None,
    message: str = "",
    extra: dict | None = None,
    exact: bool = False,
) -> SubsetResult:
    """Assemble a :class:`~optalloc.SubsetResult` for a chosen subset of ``points``.

    ``points`` is the validated (n, d) float array, ``indices`` the chosen
    rows, ``start`` the ``time.perf_counter()`` at which the method began.
    ``termination`` says why the method stopped (default ``"completed"``);
    a ``"completed"`` or ``"gap_limit"`` run whose bound meets the objective
    is reported ``"optimal"``.
    With ``exact=True`` (an exact method) the guarantee is 1 when the
    outcome is proven optimal and None otherwise.

    >>> pts = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 5.0]])
    >>> r = subset_result(pts, [1, 0], method="demo", start=time.perf_counter(), bound=0.5)
    >>> r.indices.tolist(), r.objective, r.status, r.termination, r.bound
    ([0, 1], 1.0, 'optimal', 'optimal', 1.0)
    """
    idx = np.sort(np.asarray(indices, dtype=np.intp))
    chosen = points[idx]
    objective = float(weights_sorted(np.sort(chosen, axis=0)[None])[0]) if len(idx) else 0.0
    return _assemble(idx, chosen, objective, is_integral(points), method=method, start=start, guarantee=guarantee,
                     bound=bound, termination=termination, message=message, extra=extra, exact=exact)


def metric_subset_result(
    dist: np.ndarray,
    rows,
    *,
    ids: np.ndarray,
    coords: np.ndarray | None,
    method: str,
    start: float,
    guarantee: float | None = None,
    bound: float | None = None,
    termination: str | None = None,
    message: str = "",
    extra: dict | None = None,
    exact: bool = False,
    weight: tuple[float, bool] | None = None,
) -> SubsetResult:
    """:func:`subset_result` in a given metric: W is the sum of ``dist`` over
    the chosen pairs instead of L1 on points.

    ``dist`` is the (n, n) distance matrix of the candidates, ``rows`` the
    chosen rows of it, ``ids`` the candidates' node ids (the result's
    ``indices`` are ``ids[rows]``, sorted) and ``coords`` their coordinates
    (None: the result's ``points`` is an empty (k, 0) array, as for a
    network).  Bound, termination and guarantee follow :func:`subset_result`.
    ``weight = (W, integral)``: the chosen set's W, worked out by the caller
    without a matrix, and whether every distance is an integer (``dist``
    is then not read and may be None).

    >>> D = np.array([[0.0, 1, 2], [1, 0, 1], [2, 1, 0]])
    >>> r = metric_subset_result(D, [2, 1], ids=np.array([4, 5, 9]), coords=None, method="demo",
    ...                          start=time.perf_counter(), bound=1.0)
    >>> r.indices.tolist(), r.points.shape, r.objective, r.status
    ([5, 9], (2, 0), 1.0, 'optimal')
    """
    rows = np.asarray(rows, dtype=np.intp)
    rows = rows[np.argsort(np.asarray(ids)[rows], kind="stable")]
    k = len(rows)
    if weight is None:
        weight = (float(dist[np.ix_(rows, rows)].sum() / 2.0) if k else 0.0, is_integral(dist))
    objective, integral = float(weight[0]), bool(weight[1])
    chosen = np.asarray(coords)[rows] if coords is not None else np.empty((k, 0))
    return _assemble(np.asarray(ids, dtype=np.intp)[rows], chosen, objective, integral, method=method,
                     start=start, guarantee=guarantee, bound=bound, termination=termination, message=message,
                     extra=extra, exact=exact)


def _assemble(indices, chosen, objective: float, integral: bool, *, method: str, start: float, guarantee, bound,
              termination, message: str, extra, exact: bool) -> SubsetResult:
    """The SubsetResult of a chosen set whose W is ``objective``: the bound
    checked and rounded up when W is an integer, the termination (optimal
    when the bound meets W) and the guarantee of an exact method."""
    k = len(indices)
    pairs = k * (k - 1) / 2
    average = objective / pairs if pairs else 0.0
    if bound is not None:
        bound = float(bound)
        if integral:
            bound = float(math.ceil(bound - _RTOL * max(1.0, abs(bound))))
        if bound > objective + _RTOL * max(1.0, abs(objective)):
            raise RuntimeError(f"internal error: lower bound {bound} exceeds objective {objective}")
        bound = min(bound, objective)
    if termination in (None, "completed", "gap_limit") and is_proven_optimal(objective, bound, integral):
        termination = "optimal"
    termination = termination or "completed"
    if termination == "optimal":
        bound = objective
    if exact:
        guarantee = 1.0 if termination == "optimal" else None
    return SubsetResult(
        indices=indices,
        points=chosen,
        objective=objective,
        average=average,
        bound=bound,
        guarantee=guarantee,
        status=status_of(termination),
        termination=termination,
        method=method,
        message=message,
        runtime=time.perf_counter() - start,
        extra=dict(extra or {}),
    )
