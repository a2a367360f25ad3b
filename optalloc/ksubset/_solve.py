"""One entry point for every k-subset method, by name."""

from __future__ import annotations

import functools
import inspect

import numpy as np

from ._metric import METRIC_METHODS, gen_alg_hierarchy, machine_problem
from .dragonfly import count_form_fits, dragonfly_exact, is_dragonfly
from .engine import exact
from .heuristics import TORUS_METHODS, gen_alg, mc1x1, mm, mm_inc, ptas
from .heuristics.centres import GRID_TORUS_METHODS
from .heuristics.mc import machine_mc1x1
from .special import brute, k3, line, network_tree, tree_exact

#: Method name -> function.  Names are what users and the CLI type.
METHODS = {
    "mm": mm,
    "gen-alg": gen_alg,
    "mc1x1": mc1x1,
    "mm-inc": mm_inc,
    "line": line,
    "k3": k3,
    "brute": brute,
    "exact": exact,
    "ptas": ptas,
}


def method_options(method: str) -> tuple[str, ...]:
    """Names of the keyword options a method accepts."""
    return _keywords(_lookup(method))


@functools.cache
def _keywords(func) -> tuple[str, ...]:
    """The keyword-only parameters of ``func`` (read once: a signature costs a tenth of a millisecond)."""
    return tuple(p.name for p in inspect.signature(func).parameters.values()
                 if p.kind is inspect.Parameter.KEYWORD_ONLY)


def _lookup(method):
    try:
        return METHODS[method]
    except (KeyError, TypeError):
        names = ", ".join(sorted(METHODS))
        raise ValueError(f"unknown method {method!r}; choose one of: {names}") from None


def _check_options(method, allowed, options):
    for name in options:
        if name not in allowed:
            hint = f"; it takes: {', '.join(allowed)}" if allowed else "; it takes no options"
            raise ValueError(f"method {method!r} does not take option {name!r}{hint}")


def _is_machine(obj) -> bool:
    from ..machine import Machine

    return isinstance(obj, Machine)


def machine_methods(machine) -> tuple[str, ...]:
    """The methods :func:`solve` runs on ``machine``: every method on a mesh;
    on a torus those that hold with wrap distances (``brute``, ``exact``,
    ``gen-alg``, ``mc1x1``, ``mm``, ``mm-inc``; MC1x1's tie-breaking and
    requested shapes are mesh-only); on a network ``brute``, ``exact`` and
    ``gen-alg`` (``exact`` is :func:`~optalloc.ksubset.tree_exact` when the
    network is a tree of switches, a fat tree included, or its links form a
    tree).

    >>> from optalloc.machine import Machine
    >>> machine_methods(Machine((4, 4), torus=True))
    ('brute', 'exact', 'gen-alg', 'mc1x1', 'mm', 'mm-inc')
    """
    if machine.kind == "mesh":
        return tuple(METHODS)
    return tuple(sorted({**METRIC_METHODS, **(TORUS_METHODS if machine.kind == "torus" else {})}))


def _solve_machine(machine, k, method, options):
    """k free nodes of ``machine``: the point methods on a mesh, the metric
    methods (:mod:`._metric`) on a torus or a network."""
    _lookup(method)
    if machine.kind == "mesh":
        # a mesh without wrap: the point path on the free coordinates
        func = METHODS[method]
        allowed = method_options(method)
        _check_options(method, allowed, options)
        from .._validate import as_int

        k = as_int(k, "k")
        if not 1 <= k <= machine.n_free:
            raise ValueError(f"`k` must be between 1 and the number of free nodes ({machine.n_free}) of the "
                             f"{machine.describe()}, got {k}")
        if "shape" in allowed and "shape" not in options:
            options = {**options, "shape": machine.shape}
        r = func(machine.free_points(), k, **options)
        return r.replace(indices=machine.free_ids()[r.indices].astype(r.indices.dtype))
    methods = {**METRIC_METHODS, **(TORUS_METHODS if machine.kind == "torus" else {})}
    if method not in methods:
        names = ", ".join(machine_methods(machine))
        raise ValueError(f"method {method!r} needs a mesh{'' if machine.is_grid else ' or torus'}; on a "
                         f"{machine.describe()} use one of: {names}")
    func = methods[method]
    keywords = _keywords(func)
    allowed = tuple(name for name in keywords if name not in ("ids", "coords", "axes"))
    if method in TORUS_METHODS and options:
        raise ValueError(f"method {method!r} takes no options on a torus (tie-breaking and requested shapes "
                         f"are defined on a mesh only), got {', '.join(sorted(options))}")
    _check_options(method, allowed, options)
    if method == "exact" and options.get("formulation", "auto") == "auto":
        if machine.tree is not None:
            return tree_exact(machine, k)  # hosts on a tree of switches: the dynamic program, any size
        as_tree = network_tree(machine)  # a network whose links form a tree (a path, a star)
        if as_tree is not None:
            return tree_exact(as_tree, k)
    if machine.kind == "torus" and method in GRID_TORUS_METHODS and machine.ndim <= 3:
        return _solve_grid(machine, k, method)
    # a dragonfly or fat tree: counts per router, no matrix (a table of block pairs: 2048 groups hold 34 MB)
    if method == "gen-alg" and ((machine.hierarchy is not None and machine.hierarchy.blocks <= 2048)
                                or (machine.hierarchy is None and machine.tree is not None)):
        return gen_alg_hierarchy(machine, k)
    if method == "mc1x1":  # from the free grid, without the distance matrix
        return machine_mc1x1(machine, k)
    if method == "exact" and is_dragonfly(machine) and count_form_fits(machine.hierarchy) and _counts_apply(options):
        # a dragonfly: the search over group and router counts, without a matrix
        return dragonfly_exact(machine, k, time_limit=options.get("time_limit"))
    inst = machine_problem(machine, k)
    if "axes" in keywords:
        options = {**options, "axes": inst.axes}
    return func(inst.D, inst.k, ids=inst.ids, coords=inst.coords, **options)


def _counts_apply(options) -> bool:
    """Whether exact's options leave the dragonfly's count search to run
    (not ``counts=False``, the pairwise MIP, a relative gap or the cut loop alone)."""
    return (options.get("counts", True) is True and options.get("formulation", "auto") == "auto"
            and options.get("profiles", True) is True and not options.get("rel_gap", 0.0))


def _solve_grid(machine, k, method):
    """Gen-Alg, MM or MM+Inc on a torus from the free nodes' coordinates,
    without a distance matrix."""
    from .._validate import as_int

    k = as_int(k, "k")
    if not 1 <= k <= machine.n_free:
        raise ValueError(f"`k` must be between 1 and the number of free nodes ({machine.n_free}) of the "
                         f"{machine.describe()}, got {k}")
    ids = np.asarray(machine.free_ids(), dtype=np.intp)
    coords = np.asarray(machine.free_points(), dtype=float)
    return GRID_TORUS_METHODS[method](None, k, ids=ids, coords=coords, axes=(tuple(machine.shape),
                                                                            tuple(machine.torus)))


def solve(points, k, *, method="mm", **options):
    """Solve the k-subset problem with the named method.

    On points: min-sum-L1.  On a :class:`~optalloc.machine.Machine`: k of
    its free nodes minimising the sum of pairwise machine distances; a mesh
    runs the point methods on its free coordinates, a torus or network the
    methods that hold in any metric (``brute``, ``exact``, ``gen-alg``).

    Parameters
    ----------
    points : array_like, shape (n, d), or Machine
        Candidate points (free processors), or a machine (its free nodes;
        the result's ``indices`` are node ids).
    k : int
        Number of points to choose.
    method : str
        One of ``"mm"``, ``"gen-alg"``, ``"mc1x1"``, ``"mm-inc"``,
        ``"line"``, ``"k3"``, ``"brute"``, ``"exact"``, ``"ptas"``.
    **options
        Keyword options of that method (see its function).

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        Unknown method, an option the method does not take, or bad input.

    Examples
    --------
    >>> from optalloc.ksubset import solve
    >>> solve([[0, 0], [0, 1], [5, 5]], 2, method="gen-alg").indices.tolist()
    [0, 1]
    >>> from optalloc.machine import Machine
    >>> r = solve(Machine((8, 8), torus=True), 2, method="exact")
    >>> r.indices.tolist(), r.objective
    ([0, 1], 1.0)
    """
    if _is_machine(points):
        return _solve_machine(points, k, method, options)
    func = _lookup(method)
    _check_options(method, method_options(method), options)
    return func(points, k, **options)
