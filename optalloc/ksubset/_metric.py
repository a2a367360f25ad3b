"""k-subset in any metric: the methods that hold over a distance matrix.

On a torus or a network the distance between two nodes is the machine's
own (wrap distance, shortest path), not L1 on coordinates, so only the
methods whose proofs use nothing but the triangle inequality apply:

``brute``
    enumeration of all C(n, k) subsets of the free nodes;
``gen-alg``
    Krumke et al.: around every free node, its k nearest free nodes (ties
    by node id); the best of these n sets.  In any metric W <= (2 - 2/k)
    OPT: for an optimal set S* the stars of its k points sum to 2 OPT, so
    one of them, around c, is at most 2 OPT / k; the k nearest around c
    have a star no larger, and the triangle inequality gives
    W <= (k - 1) * star(c);
``exact``
    the cut loop of the L1 solver over the distance matrix (the pairwise
    LP x_i, y_ij with the level-1 RLT rows, linking and triangle rows, its
    Lagrangian bound and reduced-cost fixing, then branch-and-bound in
    HiGHS), started from swap descent around the best Gen-Alg centres.
    Its cheap bounds are those that hold in the metric at hand: the star
    bound in any metric, Gen-Alg's W / (2 - 2/k) in any metric, and on a
    mesh or torus the sum over axes of the 1D (line or ring) optimum.  On
    a 2D torus an exact search over column and row counts (W splits into
    a column part and a row part) runs before the cut loop.
    ``formulation="pairwise"`` solves the plain pairwise MIP instead.

Each function takes the (n, n) distance matrix of the candidates, their
node ids (ascending) and their coordinates (None on a network) and returns
a :class:`~optalloc.SubsetResult` whose ``indices`` are node ids.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from .._pyomo import silent_highs, solver_output
from .._subset import metric_subset_result
from .._validate import validate_positive
from .bounds import BOUND_NODES_3D, axis_metric, gen_alg_holds, neighbour_metric, partition_metric
from .engine import solve_metric_exact
from .heuristics.centres import centre_sets, gen_alg_guarantee, set_weights
from .search import torus_cuboid_optimum
from .special import BRUTE_LIMIT, enumerate_subsets

__all__ = ["METRIC_METHODS", "MetricInstance", "metric_lower_bound", "brute_metric", "exact_metric", "gen_alg_metric", "gen_alg_hierarchy", "machine_problem"]


class MetricInstance(NamedTuple):
    """The free nodes of a machine as a k-subset instance: their distance
    matrix, node ids (ascending), coordinates (None on a network), k, and
    ``axes = (shape, torus)`` on a mesh or torus (None on a network)."""

    D: np.ndarray
    ids: np.ndarray
    coords: np.ndarray | None
    k: int
    axes: tuple | None


def machine_problem(machine, k) -> MetricInstance:
    """The :class:`MetricInstance` of the free nodes of ``machine``; a
    one-line ValueError when k is not in 1 .. number of free nodes."""
    from .._validate import as_int

    k = as_int(k, "k")
    n = machine.n_free
    if not 1 <= k <= n:
        raise ValueError(f"`k` must be between 1 and the number of free nodes ({n}) of the "
                         f"{machine.describe()}, got {k}")
    ids = np.asarray(machine.free_ids(), dtype=np.intp)
    D = np.asarray(machine.distances(ids), dtype=float)
    coords = np.asarray(machine.free_points(), dtype=float) if machine.is_grid else None
    axes = (tuple(machine.shape), tuple(machine.torus)) if machine.is_grid else None
    return MetricInstance(D, ids, coords, k, axes)


def _chunk(k: int) -> int:
    return max(1, (1 << 20) // max(1, k * (k - 1) // 2))


def brute_metric(D, k, *, ids, coords=None, limit=BRUTE_LIMIT, time_limit=None):
    """Exact optimum by enumerating all C(n, k) subsets, in the metric D.

    Same limit and time limit as :func:`~optalloc.ksubset.brute`: more than
    ``limit`` subsets is a ValueError; on expiry of ``time_limit`` the best
    subset seen is returned with termination ``"time_limit"``.  Ties: the
    first subset in lexicographic order of node ids.

    >>> D = np.array([[0.0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]])  # a 4-ring
    >>> brute_metric(D, 3, ids=np.arange(4)).objective
    4.0
    """
    start = time.perf_counter()
    n = len(D)
    limit = validate_positive(limit, "limit", allow_none=False, integer=True)
    time_limit = validate_positive(time_limit, "time_limit")
    best, done, total, termination = enumerate_subsets(n, k, lambda sets: set_weights(D, sets), chunk=_chunk(k),
                                                       limit=limit, time_limit=time_limit, start=start)
    return metric_subset_result(D, best, ids=ids, coords=coords, method="brute", start=start,
                                guarantee=1.0 if termination == "optimal" else None, termination=termination,
                                message=f"enumerated {done} of {total} subsets", extra={"subsets": done})


def _gen_alg_rows(D: np.ndarray, k: int) -> tuple[np.ndarray, int, float]:
    """Gen-Alg's best set (rows), its centre row and its W."""
    near, ws = centre_sets(D, k)  # the first least W: ties by node id
    best_c = int(np.argmin(ws))
    return near[best_c], best_c, float(ws[best_c])


def gen_alg_metric(D, k, *, ids, coords=None):
    """Gen-Alg in the metric D: the k nearest free nodes around every free
    node, the best set kept; ``guarantee = 2 - 2/k`` (1 for k <= 2) and
    ``bound = W / guarantee``; ``extra["centre"]`` is the centre's node id.

    >>> D = np.array([[0.0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]])
    >>> r = gen_alg_metric(D, 3, ids=np.arange(4))
    >>> r.indices.tolist(), r.objective, round(r.guarantee, 4)
    ([0, 1, 3], 4.0, 1.3333)
    """
    start = time.perf_counter()
    rows, centre, w = _gen_alg_rows(D, k)
    g = gen_alg_guarantee(k)
    return metric_subset_result(D, rows, ids=ids, coords=coords, method="gen-alg", start=start, guarantee=g,
                                bound=w / g, extra={"centre": int(ids[centre]), "centres": len(D)})


def gen_alg_hierarchy(machine, k):
    """Gen-Alg on a dragonfly or fat tree from the free counts per router
    (edge switch), or on the hosts of a tree of switches from the tree,
    without a matrix: the set, centre and W of :func:`gen_alg_metric` over
    the machine's free nodes."""
    from .._validate import as_int
    from .heuristics.centres import hierarchy_gen_alg, tree_gen_alg

    start = time.perf_counter()
    k = as_int(k, "k")
    if not 1 <= k <= machine.n_free:
        raise ValueError(f"`k` must be between 1 and the number of free nodes ({machine.n_free}) of the "
                         f"{machine.describe()}, got {k}")
    if machine.hierarchy is not None:  # hops: integers
        nodes, centre, w = hierarchy_gen_alg(machine.hierarchy, np.asarray(machine.free), k)
        integral = True
    else:
        tree = machine.tree
        nodes, centre, w = tree_gen_alg(tree, np.asarray(machine.free), k)
        integral = bool(np.all(tree.length == np.round(tree.length)))
    g = gen_alg_guarantee(k)
    return metric_subset_result(None, np.arange(k), ids=nodes, coords=None, method="gen-alg", start=start,
                                guarantee=g, bound=w / g, extra={"centre": centre, "centres": machine.n_free},
                                weight=(float(w), integral))


def exact_metric(D, k, *, ids, coords=None, axes=None, time_limit=None, rel_gap=0.0, formulation="auto",
                 profiles=True, verbose=False, counts=True):
    """The exact optimum in the metric D, with a proven bound.

    ``formulation="auto"`` runs the cut loop of the L1 solver over D (the
    pairwise LP with triangle rows, its Lagrangian bound and reduced-cost
    fixing, then branch-and-bound), started from swap descent around the
    best Gen-Alg centres and the bounds that hold in the metric (see
    :mod:`optalloc.ksubset`); ``"pairwise"`` hands the plain pairwise MIP to
    HiGHS (the baseline).  With ``time_limit`` seconds the best set found
    and the proven bound are returned with termination ``"time_limit"``;
    ``rel_gap`` stops at that relative gap (termination ``"gap_limit"``).

    ``axes`` is ``(shape, torus)`` when D is the mesh or torus distance of
    ``coords`` (:func:`solve` passes it for a machine): it adds the bound
    summed over axes and, on two axes, the search over column and row
    counts (before the cut loop; on an idle machine also beside it); on a
    3D torus, the optimum of the idle machine (a bound for every state,
    and optimal where a translate of its set is free). On a
    network whose free nodes fall into twin classes and blocks (a
    dragonfly's routers and groups, a fat tree's edge switches and pods)
    the search over block and class counts runs first, for half the time
    left. ``profiles=False`` skips these searches. ``counts`` is read by
    :func:`solve` on a dragonfly, whose own search over group and router
    counts runs instead of this function unless ``counts=False``.

    >>> D = np.array([[0.0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]])
    >>> r = exact_metric(D, 3, ids=np.arange(4))
    >>> r.objective, r.status
    (4.0, 'optimal')
    """
    time_limit = validate_positive(time_limit, "time_limit")
    rel_gap = float(rel_gap)
    if not 0 <= rel_gap < 1:
        raise ValueError(f"`rel_gap` must be in [0, 1), got {rel_gap}")
    if formulation == "pairwise":
        return _pairwise_mip(D, k, ids=ids, coords=coords, time_limit=time_limit)
    if formulation != "auto":
        raise ValueError(f"formulation must be 'auto' or 'pairwise' in a metric, got {formulation!r}")
    if not isinstance(profiles, bool):
        raise ValueError(f"`profiles` must be True or False, got {profiles!r}")  # noqa: TRY004
    return solve_metric_exact(D, k, ids=ids, coords=coords, axes=axes, time_limit=time_limit, rel_gap=rel_gap,
                              profiles=profiles, verbose=bool(verbose))


def _pairwise_mip(D, k, *, ids, coords=None, time_limit=None):
    """The plain pairwise MIP over D in HiGHS, started from Gen-Alg's set."""
    start = time.perf_counter()
    n = len(D)
    g_rows, _, g_w = _gen_alg_rows(D, k)
    g = gen_alg_guarantee(k)
    if k <= 2 or k == n:  # Gen-Alg is exact for k <= 2; k = n has one answer
        return metric_subset_result(D, g_rows if k < n else np.arange(n), ids=ids, coords=coords, method="exact",
                                    start=start, termination="optimal", exact=True,
                                    message="solved without the MIP (k <= 2 or k = n)")
    import highspy

    iu, ju = np.triu_indices(n, 1)
    m = len(iu)
    pid = np.zeros((n, n), dtype=np.int64)
    pid[iu, ju] = pid[ju, iu] = np.arange(m)
    h = silent_highs()
    inf = highspy.kHighsInf
    none = np.array([], dtype=np.int32)
    h.addCols(n, np.zeros(n), np.zeros(n), np.ones(n), 0, none, none, np.array([]))
    h.addCols(m, D[iu, ju].astype(float), np.zeros(m), np.ones(m), 0, none, none, np.array([]))
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.array([highspy.HighsVarType.kInteger] * n))
    # sum x = k
    h.addRow(k, k, n, np.arange(n, dtype=np.int32), np.ones(n))
    # x_i + x_j - y_ij <= 1
    idx = np.column_stack([iu, ju, n + np.arange(m)]).astype(np.int32).ravel()
    val = np.tile([1.0, 1.0, -1.0], m)
    h.addRows(m, np.full(m, -inf), np.ones(m), 3 * m, (3 * np.arange(m)).astype(np.int32), idx, val)
    # RLT rows: sum_{j != i} y_ij - (k - 1) x_i = 0
    others = np.array([np.delete(np.arange(n), i) for i in range(n)]).reshape(n, n - 1)
    ridx = np.column_stack([np.arange(n), n + pid[np.arange(n)[:, None], others]]).astype(np.int32).ravel()
    rval = np.tile(np.concatenate(([-(k - 1.0)], np.ones(n - 1))), n)
    h.addRows(n, np.zeros(n), np.zeros(n), n * n, (n * np.arange(n)).astype(np.int32), ridx, rval)
    h.setOptionValue("mip_rel_gap", 0.0)
    if time_limit is not None:
        h.setOptionValue("time_limit", max(0.01, time_limit - (time.perf_counter() - start)))
    x0 = np.zeros(n + m)
    x0[g_rows] = 1.0
    x0[n + pid[g_rows[:, None], g_rows[None, :]][np.triu_indices(k, 1)]] = 1.0
    sol = highspy.HighsSolution()
    sol.col_value = x0.tolist()
    with solver_output():
        h.setSolution(sol)
        h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    rows, bound = g_rows, g_w / g
    if info.primal_solution_status == 2:  # a feasible MIP solution
        x = np.array(h.getSolution().col_value[:n])
        cand = np.flatnonzero(x > 0.5)
        if len(cand) == k and D[np.ix_(cand, cand)].sum() / 2.0 < g_w:
            rows = cand
    S = highspy.HighsModelStatus
    if status == S.kOptimal:
        termination, msg = "optimal", "MIP solved to optimality"
    elif status == S.kTimeLimit:
        termination, msg = "time_limit", f"time limit of {time_limit} s reached"
        if np.isfinite(info.mip_dual_bound):
            bound = max(bound, float(info.mip_dual_bound))
        bound = min(bound, float(D[np.ix_(rows, rows)].sum() / 2.0))  # HiGHS' tolerances
    else:
        termination, msg = "error", f"HiGHS stopped: {h.modelStatusToString(status)}"
    return metric_subset_result(D, rows, ids=ids, coords=coords, method="exact", start=start,
                                bound=None if termination == "error" else bound, termination=termination,
                                message=msg, exact=True, extra={"nodes": int(info.mip_node_count)})


def metric_lower_bound(machine, k, *, quick=False) -> dict[str, float]:
    """Cheap proven lower bounds on the optimum of k free nodes of ``machine``,
    in the machine's own metric, by name (see the module notes for the
    metrics each holds for).

    On a mesh the bounds of :func:`lower_bound` apply to the free points;
    this function serves tori and networks and returns only bounds that
    hold there: ``neighbour`` always, ``axis`` on a torus, ``partition``
    on a 2D torus (up to 200,000 partitions of k), ``box`` on a 3D torus
    (the optimum of the idle machine, when its search ends within the
    cheap budget of the 3D box bound), ``gen-alg`` where the distances
    are known to be a metric.

    Parameters
    ----------
    machine : Machine
        Its free nodes are the candidates.
    k : int
        1 <= k <= number of free nodes.
    quick : bool
        Only the neighbour bound (O(n^2) for n free nodes): for many
        states in little time.

    Returns
    -------
    dict of str to float

    Raises
    ------
    ValueError
        ``machine`` is not a Machine, or k is out of range.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> from optalloc.ksubset import metric_lower_bound, solve
    >>> m = Machine((4, 4), torus=True)
    >>> b = metric_lower_bound(m, 5)
    >>> sorted(b), max(b.values()) <= solve(m, 5, method="brute").objective
    (['axis', 'gen-alg', 'neighbour', 'partition'], True)
    """
    from ..machine import Machine

    if not isinstance(machine, Machine):
        raise ValueError(f"`machine` must be a Machine, got {type(machine).__name__}")  # noqa: TRY004
    inst = machine_problem(machine, k)
    D, k = inst.D, inst.k
    out = {"neighbour": neighbour_metric(D, k)}
    if quick:
        return out
    if machine.is_grid:
        out["axis"] = axis_metric(inst.coords, k, *inst.axes)
        bound = partition_metric(inst.coords, k, *inst.axes)
        if bound is not None:
            out["partition"] = bound
        if machine.ndim == 3 and any(machine.torus):
            found = torus_cuboid_optimum(machine.shape, machine.torus, k, nodes=BOUND_NODES_3D)
            if found is not None:
                out["box"] = found[0]
    if k >= 2 and gen_alg_holds(D, machine.is_grid):
        _, _, w = _gen_alg_rows(D, k)
        out["gen-alg"] = float(w) / gen_alg_guarantee(k)
    return out


#: Methods that hold in any metric: name -> function over (D, k, ids=, coords=).
METRIC_METHODS = {"brute": brute_metric, "exact": exact_metric, "gen-alg": gen_alg_metric}
