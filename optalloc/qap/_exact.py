"""Exact QAP for small n: enumeration, and the Adams-Johnson model with a MIP solver."""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._pyomo import get_solver, load_solution, solve_quietly
from ._bounds import _gl
from ._common import Stopwatch, positive_int, qap_result
from ._core import validate_matrices

#: Largest n enumerated (8! = 40320 permutations).
BRUTE_MAX = 8
#: Largest n given to the MIP without a time limit.
MIP_MAX = 10


def brute(W, C, *, limit: int = BRUTE_MAX):
    """Optimal permutation by enumerating all n! of them (n <= ``limit``).

    The permutations are taken in lexicographic order and the first one of
    least objective is kept, so ties always go to the same permutation.

    Parameters
    ----------
    W, C : array_like, shape (n, n)
        Flows and costs.
    limit : int, default 8
        Largest n enumerated (9! = 362880 permutations take under a second).

    Returns
    -------
    MappingResult
        ``permutation``, ``objective``, ``bound`` (the optimum), status and
        termination ``"optimal"``; ``extra["permutations"]`` = n!.

    Examples
    --------
    >>> from optalloc.qap import brute
    >>> res = brute([[0, 5, 0], [5, 0, 1], [0, 1, 0]], [[0, 1, 2], [1, 0, 1], [2, 1, 0]])
    >>> res.objective, res.status
    (12.0, 'optimal')
    """
    clock = Stopwatch(None)
    A, B = validate_matrices(W, C)
    n = len(A)
    limit = positive_int(limit, "limit")
    if n > limit:
        raise ValueError(f"brute force enumerates n! permutations; n = {n} is above `limit` = {limit}")
    p, value = _enumerate(A, B)
    return qap_result(A, B, p, method="brute", start=clock.start, bound=value, exact=True,
                      message=f"all {math.factorial(n)} permutations", extra={"permutations": math.factorial(n)})


def _enumerate(A, B, chunk: int = 5040):
    n = len(A)
    best_v, best_p = np.inf, None
    perms = itertools.permutations(range(n))
    while True:
        block = np.array(list(itertools.islice(perms, chunk)), dtype=np.intp)
        if len(block) == 0:
            break
        costs = np.einsum("ij,mij->m", A, B[block[:, :, None], block[:, None, :]])
        j = int(np.argmin(costs))
        if costs[j] < best_v:
            best_v, best_p = float(costs[j]), block[j].copy()
    return best_p, best_v


def exact(W, C, *, formulation: str = "auto", solver: str = "highs", time_limit: float | None = None,
          rel_gap: float = 0.0, rng=None, verbose: bool = False):
    """Optimal task mapping for small n, or a certified bracket.

    n <= 8 is enumerated.  Larger instances are solved as the Adams-Johnson
    linearisation (:func:`optalloc.models.qap.build_adams_johnson`) by a
    MIP solver through Pyomo; a robust tabu search supplies the incumbent
    and the Gilmore-Lawler bound a floor under the solver's bound.

    Parameters
    ----------
    W, C : array_like, shape (n, n)
        Flows and costs.
    formulation : {"auto", "brute", "adams-johnson"}
        "auto" enumerates when n <= 8 and uses the Adams-Johnson model
        otherwise.
    solver : str, default "highs"
        Any MIP solver Pyomo knows by name.
    time_limit : float, optional
        Seconds for the solver; required above n = 10.
    rel_gap : float, default 0
        Stop the solver at this relative gap (termination ``"gap_limit"``).
    rng : None, int or numpy.random.Generator
        Seed of the tabu search that gives the incumbent.
    verbose : bool
        Show the solver log, on standard error (standard output carries
        results only).

    Returns
    -------
    MappingResult
        Status ``"optimal"`` with a proof; otherwise status ``"feasible"``
        with ``bound`` and ``gap``, and ``termination`` saying why the
        solver stopped (``"time_limit"``, ``"iteration_limit"``,
        ``"gap_limit"``, or ``"completed"`` when it ended without a proof).
        ``extra["termination"]`` is the solver's own termination condition.

    Examples
    --------
    >>> from optalloc.qap import exact
    >>> exact([[0, 5, 0], [5, 0, 1], [0, 1, 0]], [[0, 1, 2], [1, 0, 1], [2, 1, 0]]).objective
    12.0
    """
    clock = Stopwatch(time_limit)
    A, B = validate_matrices(W, C)
    n = len(A)
    if formulation not in ("auto", "brute", "adams-johnson"):
        raise ValueError(f"unknown formulation {formulation!r}; choose 'auto', 'brute' or 'adams-johnson'")
    if formulation == "brute" or (formulation == "auto" and n <= BRUTE_MAX):
        res = brute(A, B)
        return res.replace(method="exact", runtime=clock.elapsed())
    if time_limit is None and n > MIP_MAX:
        raise ValueError(f"the exact QAP model grows as n^4; n = {n} needs a `time_limit` (limit without one: "
                         f"{MIP_MAX})")
    from ._tabu import tabu

    inc = tabu(A, B, iterations=200 * n, rng=rng)
    bound = _gl(A, B)
    p, value = inc.permutation, inc.objective
    if formulation == "auto" and bound >= value - 1e-9 * max(1.0, abs(value)):
        return qap_result(A, B, p, method="exact", start=clock.start, bound=bound, exact=True,
                          message="tabu search met the Gilmore-Lawler bound", extra={"bound_source": "gilmore-lawler"})
    from pyomo.opt import TerminationCondition as TC

    from optalloc.models.qap import build_adams_johnson

    opt = get_solver(solver)
    model = build_adams_johnson(A, B)
    for (i, k), var in model.x.items():   # the incumbent, for solvers that take a start
        var.value = 1.0 if p[i] == k else 0.0
    kwargs = {"load_solutions": False}
    remaining = clock.remaining()
    if remaining is not None:
        kwargs["timelimit"] = max(1.0, remaining)
    if rel_gap:
        kwargs["options"] = {"mip_rel_gap": float(rel_gap)} if solver.endswith("highs") else {}
    results = solve_quietly(opt, model, verbose=verbose, **kwargs)
    tc = results.solver.termination_condition
    lower = results.problem.lower_bound
    if lower is not None and math.isfinite(float(lower)):
        bound = max(bound, float(lower))
    if load_solution(model, results):
        q = np.full(n, -1, dtype=np.intp)
        for (i, k), var in model.x.items():
            if var.value is not None and var.value > 0.5:
                q[i] = k
        if np.array_equal(np.sort(q), np.arange(n)):
            qv = float((A * B[np.ix_(q, q)]).sum())
            if qv < value:
                p, value = q, qv
    if tc == TC.optimal and not rel_gap:
        bound = max(bound, value) if bound >= value - 1e-6 * max(1.0, abs(value)) else bound
    termination = None
    if bound < value - 1e-9 * max(1.0, abs(value)):
        termination = {TC.maxTimeLimit: "time_limit", TC.maxIterations: "iteration_limit"}.get(
            tc, "gap_limit" if rel_gap else "completed")
    return qap_result(A, B, p, method="exact", start=clock.start, bound=min(bound, value), termination=termination,
                      exact=True, message=f"{solver}: {tc}", extra={"solver": solver, "termination": str(tc)})
