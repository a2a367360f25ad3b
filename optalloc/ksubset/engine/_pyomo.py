"""Solving a Pyomo formulation of the k-subset problem with any solver by name."""

from __future__ import annotations

import math

import numpy as np

from ..._pyomo import get_solver, load_solution, solve_quietly
from .._common import make_result

# Relative MIP gap option names of common solvers.
_GAP_OPTION = {"highs": "mip_rel_gap", "appsi_highs": "mip_rel_gap", "gurobi": "MIPGap", "gurobi_direct": "MIPGap",
               "cplex": "mipgap", "cbc": "ratioGap", "glpk": "mipgap", "scip": "limits/gap"}


def _builder(formulation: str):
    from optalloc import models

    return {
        "pairwise": models.build_pairwise,
        "auto": models.build_pairwise,
        "glover": models.build_glover,
        "axis": models.build_axis,
        "qp": models.build_qp,
    }[formulation]


def solve_formulation(pts, k, *, solver, formulation, time_limit, rel_gap, start, verbose=False):
    """Build the model, solve it as a MIP, map the outcome to a Result.

    The one place that maps options (time limit, relative gap) and reads the
    termination condition and the dual bound before touching values.  The
    solver prints nothing on standard output; its log goes to standard
    error when ``verbose``.
    """
    import pyomo.environ as pyo
    from pyomo.opt import TerminationCondition as TC

    opt = get_solver(solver)
    model = _builder(formulation)(pts, k)
    kwargs = {"load_solutions": False}
    options = {}
    if time_limit is not None:
        kwargs["timelimit"] = time_limit
    if rel_gap and solver in _GAP_OPTION:
        options[_GAP_OPTION[solver]] = rel_gap
    if options:
        kwargs["options"] = options
    results = solve_quietly(opt, model, verbose=verbose, **kwargs)
    tc = results.solver.termination_condition
    lower = results.problem.lower_bound
    bound = float(lower) if lower is not None and math.isfinite(float(lower)) else None
    chosen = None
    if load_solution(model, results):
        x = np.array([pyo.value(model.x[i]) for i in range(len(pts))])
        cand = np.flatnonzero(x > 0.5)
        if len(cand) == k:
            chosen = cand
    extra = {"solver": solver, "formulation": formulation, "termination": str(tc)}
    if chosen is None:
        from ..heuristics import mm_inc

        chosen = mm_inc(pts, k).indices
        extra["incumbent"] = "mm-inc (the solver returned no solution)"
    if tc == TC.optimal and (not rel_gap):
        termination = "optimal"
    elif tc == TC.maxTimeLimit:
        termination = "time_limit"
    elif tc in (TC.maxIterations, TC.maxEvaluations):
        termination = "iteration_limit"
    elif tc == TC.infeasible:
        termination = "infeasible"
    elif tc == TC.optimal:
        termination = "gap_limit"  # "optimal" when the bound meets the objective
    else:
        termination = "error" if bound is None else "completed"
    return make_result(pts, chosen, method="exact", start=start, bound=bound, termination=termination,
                       message=f"{solver}: {tc}", extra=extra, exact=True)
