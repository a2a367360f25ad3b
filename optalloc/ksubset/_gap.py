"""Certified quality of a given allocation."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .._progress import check_progress, library_progress
from .._result import Result
from ._common import is_integral, validate_points, validate_positive, weights_of_sets
from .bounds import axis_bound, box_bound, neighbour_bound, town_bound
from .engine import exact
from .search import profile_bound
from .special import brute, k3, line

#: Instances with at most this many subsets are solved by enumeration.
GAP_BRUTE_LIMIT = 200_000


@dataclass(frozen=True)
class GapReport:
    """How far an allocation is from optimal, with a certificate.

    Attributes
    ----------
    k : int
        Size of the allocation.
    objective : float
        W of the given allocation.
    average : float
        W / C(k, 2) of the given allocation.
    lower : float
        Proven lower bound on the optimum.
    upper : float
        Best W known (a feasible set: the given one or a solver's).
    optimal : bool
        True when ``lower == upper``, i.e. the optimum is known.
    ratio_max : float
        Certified: the allocation is at most this factor from optimal
        (``objective / lower``; inf when lower is 0 and objective > 0).
    ratio_min : float
        The allocation is at least this factor from optimal
        (``objective / upper``).
    reference : Result
        The best solver result (its set reaches ``upper`` unless the given
        allocation is better).
    bounds : dict
        Every lower bound computed, by name.
    runtime : float
        Seconds spent.
    metric : str
        The distance W is measured in: ``"l1"`` (points, meshes),
        ``"torus"`` (wrap distance) or ``"network"`` (shortest paths).
    machine : str or None
        The machine's description when a Machine was given.
    """

    k: int
    objective: float
    average: float
    lower: float
    upper: float
    optimal: bool
    ratio_max: float
    ratio_min: float
    reference: Result
    bounds: dict = field(default_factory=dict)
    runtime: float = 0.0
    metric: str = "l1"
    machine: str | None = None

    def to_dict(self) -> dict:
        out = {name: getattr(self, name) for name in
               ("k", "objective", "average", "lower", "upper", "optimal", "ratio_max", "ratio_min", "runtime",
                "metric", "machine")}
        if not math.isfinite(out["ratio_max"]):
            out["ratio_max"] = None
        out["bounds"] = dict(self.bounds)
        out["reference"] = self.reference.to_dict()
        return out


def _ratio(num: float, den: float) -> float:
    if den > 0:
        return num / den
    return 1.0 if num <= 0 else math.inf


def gap(points, chosen, *, time_limit=10.0, brute_limit=GAP_BRUTE_LIMIT, progress=None):
    """Evaluate an allocation against the optimum, or a certified bracket.

    Small instances (at most ``brute_limit`` subsets), k = 3 in any
    dimension and one-dimensional instances are solved by enumeration or
    their exact special-case algorithms.  Otherwise :func:`exact` runs for
    at most ``time_limit`` seconds; its incumbent (or the given set, if
    better) is the upper side and the largest of its proven bound (which
    includes MM+Inc's and Gen-Alg's W divided by their guarantees), the
    neighbour bound (which dominates k/2 times the shortest star) and the
    per-axis one-dimensional bound is the lower side.

    On a :class:`~optalloc.machine.Machine` the allocation is given by node
    ids: a mesh runs the above on its free points; on a torus or a network
    W is the machine's own distance, the reference is
    ``solve(machine, k, method="brute")`` when at most ``brute_limit``
    subsets (on a tree of switches or a fat tree always
    :func:`~optalloc.ksubset.tree_exact`, exact at any size), else
    ``method="exact"`` within ``time_limit``, and the lower
    side is the largest of its proven bound and
    :func:`metric_lower_bound` (bounds that hold in that metric only).

    Parameters
    ----------
    points : array_like, shape (n, d), or Machine
        Free processors, or a machine (its free nodes).
    chosen : array_like of int
        Indices (rows of ``points``) of the allocation, distinct; node ids
        (free nodes) on a Machine.
    time_limit : float or None, optional
        Seconds for the exact solver (default 10; None for no limit).
    brute_limit : int, optional
        Enumerate when C(n, k) is at most this.
    progress : bool or callable, optional
        Passed to :func:`exact` when it runs (a callable gets ``(round,
        bound, incumbent)``); True: progress on stderr.  Default: silent.

    Returns
    -------
    GapReport

    Examples
    --------
    >>> from optalloc.ksubset import gap
    >>> pts = [[0, 0], [1, 0], [2, 0], [0, 1], [5, 5]]
    >>> rep = gap(pts, [0, 1, 4])
    >>> rep.objective, rep.upper, rep.optimal, round(rep.ratio_max, 3)
    (20.0, 4.0, True, 5.0)
    """
    start = time.perf_counter()
    if _is_machine(points):
        return _machine_gap(points, chosen, time_limit=time_limit, brute_limit=brute_limit, progress=progress,
                            start=start)
    pts = validate_points(points)
    n, d = pts.shape
    try:
        idx = np.asarray(chosen).astype(np.int64, casting="safe")
    except TypeError:
        raise ValueError("`chosen` must be integer row indices into `points`") from None
    idx = idx.ravel()
    if len(idx) == 0:
        raise ValueError("`chosen` is empty")
    if idx.min() < 0 or idx.max() >= n:
        raise ValueError(f"`chosen` holds an index outside 0..{n - 1}")
    if len(np.unique(idx)) != len(idx):
        raise ValueError("`chosen` repeats a point")
    time_limit = validate_positive(time_limit, "time_limit")
    check_progress(progress)
    k = len(idx)
    objective = float(weights_of_sets(pts, idx[None])[0])
    bounds: dict[str, float] = {}
    if math.comb(n, k) <= brute_limit:
        ref = brute(pts, k)
    elif k == 3:
        ref = k3(pts)
    elif d == 1:
        ref = line(pts, k)
    else:
        ref = None
    if ref is not None:
        lower = upper = ref.objective
        bounds["exact"] = ref.objective
    else:
        # exact starts from MM+Inc and Gen-Alg and folds their W / guarantee
        # into its bound
        bounds["neighbour"] = neighbour_bound(pts, k)
        bounds["axis"] = axis_bound(pts, k)
        bounds["town"] = town_bound(pts, k)
        bounds["box"] = box_bound(pts, k)
        profile = profile_bound(pts, k)
        if profile is not None:
            bounds["profile"] = profile
        report, scope = library_progress(progress, label="gap")
        with scope:
            ref = exact(pts, k, time_limit=time_limit, progress=report)
        bounds["exact"] = ref.bound
        lower = max(bounds.values())
        if is_integral(pts):
            lower = math.ceil(lower - 1e-9 * max(1.0, lower))
        upper = min(ref.objective, objective)
        lower = min(lower, upper)
    pairs = k * (k - 1) / 2
    return GapReport(
        k=k,
        objective=objective,
        average=objective / pairs if pairs else 0.0,
        lower=float(lower),
        upper=float(upper),
        optimal=bool(lower >= upper),
        ratio_max=_ratio(objective, lower),
        ratio_min=_ratio(objective, upper),
        reference=ref,
        bounds=bounds,
        runtime=time.perf_counter() - start,
    )


def _is_machine(obj) -> bool:
    from ..machine import Machine

    return isinstance(obj, Machine)


def _machine_gap(machine, chosen, *, time_limit, brute_limit, progress, start) -> GapReport:
    """:func:`gap` on a Machine: ``chosen`` are free node ids."""
    from dataclasses import replace

    from ._metric import metric_lower_bound
    from ._solve import solve

    try:
        ids = machine.check_nodes(chosen, name="chosen")
    except ValueError as exc:
        raise ValueError(str(exc).splitlines()[0]) from None
    if len(ids) == 0:
        raise ValueError("`chosen` is empty")
    busy = ids[~machine.free[ids]]
    if len(busy):
        raise ValueError(f"`chosen` holds node {int(busy[0])}, which is not free")
    free = machine.free_ids()
    if machine.kind == "mesh":
        rows = np.searchsorted(free, ids)
        rep = gap(machine.free_points(), rows, time_limit=time_limit, brute_limit=brute_limit, progress=progress)
        return replace(rep, machine=machine.describe(), runtime=time.perf_counter() - start)
    time_limit = validate_positive(time_limit, "time_limit")
    check_progress(progress)
    k = len(ids)
    tree = machine.tree
    objective = tree.weight(ids) if tree is not None else float(np.asarray(machine.distances(ids)).sum() / 2.0)
    bounds: dict[str, float] = {}
    if tree is not None:  # a tree of switches: the dynamic program is exact at any size
        ref = solve(machine, k, method="exact")
        lower = upper = float(ref.objective)
        bounds["exact"] = lower
    elif math.comb(len(free), k) <= brute_limit:
        ref = solve(machine, k, method="brute")
        lower = upper = float(ref.objective)
        bounds["exact"] = lower
    else:
        bounds.update(metric_lower_bound(machine, k))
        ref = solve(machine, k, method="exact", time_limit=time_limit)
        if ref.bound is not None:
            bounds["exact"] = float(ref.bound)
        lower = max(bounds.values())
        if machine.hierarchy is not None or is_integral(np.asarray(machine.distances(free))):
            lower = math.ceil(lower - 1e-9 * max(1.0, lower))
        upper = min(float(ref.objective), objective)
        lower = min(float(lower), upper)
    pairs = k * (k - 1) / 2
    return GapReport(k=k, objective=objective, average=objective / pairs if pairs else 0.0, lower=float(lower),
                     upper=float(upper), optimal=bool(lower >= upper), ratio_max=_ratio(objective, lower),
                     ratio_min=_ratio(objective, upper), reference=ref, bounds=bounds,
                     runtime=time.perf_counter() - start, metric=machine.kind, machine=machine.describe())


__all__ = ["gap", "GapReport", "GAP_BRUTE_LIMIT"]
