"""Optimal orderings of small networks: the integer program of SAND2003-3702 sec. 4.2."""

from __future__ import annotations

import math
import time

import numpy as np

from optalloc._pyomo import get_solver, load_solution, solve_quietly
from optalloc._result import OrderResult, status_of
from optalloc._validate import validate_distances

from ._objective import order_objective, rank_weights

__all__ = ["MAX_IP_NODES", "order_ip"]

#: Largest network :func:`order_ip` accepts without a time limit.
MAX_IP_NODES = 12


def order_ip(D, *, weights=None, ring=False, time_limit=None, distance_constraint=False) -> OrderResult:
    """Optimal ordering of a small network by the integer program of SAND2003-3702.

    Parameters
    ----------
    D : array_like, shape (N, N)
        Node distances (hop counts, for example).
    weights : callable, array_like or None
        ``w(k)`` per rank distance k >= 1, as for :func:`rank_weights`;
        None gives ``2**-(k - 1)``.
    ring : bool
        Rank distance ``min(j - i, N - (j - i))`` instead of ``j - i``.
    time_limit : float or None
        Seconds given to the solver.  Without it, networks of more than
        ``MAX_IP_NODES`` (12) nodes are refused.
    distance_constraint : bool
        Add the paper's ``z_ivju = 0`` when ``D[v, u] > j - i``.  This
        restricts the search to orders whose consecutive nodes are at
        distance at most 1 (Hamiltonian paths for hop counts); without
        such an order the result is ``"infeasible"``.  See
        :mod:`optalloc.models.ordering`.

    Returns
    -------
    OrderResult
        ``order`` is the order (``order[i]`` is the node at rank
        i), ``objective`` its value of :func:`order_objective`, ``average``
        the objective divided by the sum of the weights over all position
        pairs (a weighted mean distance, 1 when every weighted pair is at
        distance 1), ``bound`` the dual bound proven by HiGHS, ``gap``,
        ``guarantee`` 1 when optimal (None otherwise), ``termination``
        ``"optimal"``, ``"time_limit"`` or ``"infeasible"``, ``method``
        ``"ip"``.  ``extra`` holds the solver's termination condition,
        ``ring`` and ``distance_constraint``.

    Raises
    ------
    ValueError
        For invalid `D`, `weights` or `time_limit`, more than 12 nodes
        without a time limit, or when HiGHS is not available to Pyomo.

    Notes
    -----
    The model (:func:`optalloc.models.ordering.build_ordering`) has N^2
    binary and about N^4 / 2 continuous variables and is solved by HiGHS
    through Pyomo, with rows that remove the reversal (and ring rotation)
    symmetry.  The problem is NP-hard (it contains Hamiltonian path [1]_),
    and the linearisation is weak, so the solve time grows steeply with N.
    The distance constraint, when the network has a Hamiltonian path,
    makes solving much faster.  It is a QAP with flow
    ``w(r(i, j))`` between positions and distance ``D`` between nodes.

    References
    ----------
    .. [1] V. Leung et al., "Algorithmic support for commodity-based parallel
       computing systems", SAND2003-3702, sec. 4.2.

    Examples
    --------
    A path of 4 nodes given in a scrambled labelling:

    >>> import numpy as np
    >>> from optalloc.curves import order_ip
    >>> pos = np.array([2, 0, 3, 1])  # node v sits at pos[v] on the path
    >>> D = np.abs(np.subtract.outer(pos, pos))
    >>> r = order_ip(D)
    >>> r.status, r.objective, pos[r.order].tolist() in ([0, 1, 2, 3], [3, 2, 1, 0])
    ('optimal', 5.75, True)
    """
    start = time.perf_counter()
    D = validate_distances(D)
    n = len(D)
    if time_limit is not None:
        time_limit = float(time_limit)
        if not time_limit > 0:
            raise ValueError(f"`time_limit` must be positive, got {time_limit}")
    elif n > MAX_IP_NODES:
        raise ValueError(f"`D` has {n} nodes; order_ip solves at most {MAX_IP_NODES} without a `time_limit` "
                         "(the model has about N**4 / 2 variables)")
    c = rank_weights(n, weights, ring=ring)
    total_weight = float(np.dot(c, n - np.arange(n)))  # sum over position pairs
    extra = {"solver": "highs", "ring": bool(ring), "distance_constraint": bool(distance_constraint)}
    if n <= 2:
        order = np.arange(n)
        obj = order_objective(D, order, weights=c, ring=False)
        return _result(order, obj, obj, "optimal", total_weight, "trivial: at most two nodes", start, extra)

    from pyomo.opt import TerminationCondition as TC

    from optalloc.models.ordering import build_ordering, order_from_model

    opt = get_solver("highs")
    model = build_ordering(D, weights, ring=ring, distance_constraint=distance_constraint, break_symmetry=True)
    kwargs = {"load_solutions": False}
    if time_limit is not None:
        kwargs["timelimit"] = time_limit
    results = solve_quietly(opt, model, **kwargs)
    tc = results.solver.termination_condition
    extra["termination"] = str(tc)
    lower = results.problem.lower_bound
    bound = float(lower) if lower is not None and math.isfinite(float(lower)) else None
    message = f"highs: {tc}"
    if tc == TC.infeasible:
        return _result(None, math.inf, None, "infeasible", total_weight,
                       message + " (no order keeps every pair within its rank distance)", start, extra)
    order = None
    if load_solution(model, results):
        cand = order_from_model(model)
        if np.array_equal(np.sort(cand), np.arange(n)):
            order = cand
    if order is None:
        order = np.arange(n)
        extra["incumbent"] = "identity order (the solver returned no solution)"
    obj = order_objective(D, order, weights=c, ring=False)
    if tc == TC.optimal:
        termination = "optimal"
    elif tc == TC.maxTimeLimit:
        termination = "time_limit"
    elif tc in (TC.maxIterations, TC.maxEvaluations):
        termination = "iteration_limit"
    else:
        termination = "error"
    if termination == "optimal" and bound is None:
        bound = obj
    return _result(order, obj, bound, termination, total_weight, message, start, extra)


def _result(order, obj, bound, termination, total_weight, message, start, extra) -> OrderResult:
    if bound is not None and math.isfinite(obj):
        bound = min(bound, obj)  # the solver's tolerance may put it a hair above
    average = obj / total_weight if total_weight > 0 and math.isfinite(obj) else (0.0 if obj == 0 else math.inf)
    return OrderResult(
        order=np.zeros(0, dtype=np.intp) if order is None else np.asarray(order, dtype=np.intp),
        objective=float(obj),
        average=float(average),
        bound=bound,
        guarantee=1.0 if termination == "optimal" else None,
        status=status_of(termination, has_answer=order is not None),
        termination=termination,
        method="ip",
        message=message,
        runtime=time.perf_counter() - start,
        extra=extra,
    )
