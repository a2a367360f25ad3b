"""The ordering of a large machine (:func:`optalloc.curves.order_graph`
above :data:`SPARSE_FROM` nodes, or ``method="sparse"``): starts, the swap
search and the bound of :mod:`._scalable`, every distance read pair by
pair, no N x N matrix."""

from __future__ import annotations

import time

import numpy as np

from .._clock import Stopwatch
from .._progress import Progress
from .._result import OrderResult, status_of
from ..machine import Machine
from ._scalable import (
    _grid_profiles,
    _network_profiles,
    greedy_path,
    neighbour_lists,
    rank_bound,
    rank_offsets,
    sparse_objective,
    swap_search,
)
from ._starts import _CURVES, curve_start, spectral_start

#: ``method="auto"`` orders machines of more nodes by the sparse search
#: (the QAP search's dense matrices and its O(N^2) moves grow past a minute).
SPARSE_FROM = 256
#: Methods that run on a large machine.
SPARSE_METHODS = ("sparse", "gilbert", "hilbert", "snake", "row-major", "moore", "closed-gilbert", "closed-snake",
                  "spectral", "greedy")
#: Nearest nodes kept per node of a network (the swap search's candidates).
NEAR = 16


def _int_labels(labels) -> bool:
    """Every label a tuple of integers (as the generated networks give)."""
    return all(isinstance(v, tuple) and all(isinstance(c, (int, np.integer)) for c in v) for v in labels)


def _starts(machine: Machine, method: str, dist, nbr, labels):
    """The start orders of ``method``, by name."""
    from ._orders import box_order

    n = machine.n
    grid = machine.is_grid and machine.ndim in (2, 3)
    if method in _CURVES:
        if method in _CURVES[4:] and grid:
            return {method: machine.node_ids(box_order(machine, method.replace("-", "_")))}
        return {method: curve_start(labels, method).astype(np.int64)}
    if method == "greedy":
        return {"greedy": greedy_path(dist, n, nbr)}
    if method == "spectral":
        if not machine.is_grid:
            raise ValueError(f"method 'spectral' needs the links of the network; above {SPARSE_FROM} nodes it "
                             "runs on meshes and tori (use 'sparse' or 'greedy')")
        import networkx as nx

        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_edges_from(machine.links().tolist())
        return {"spectral": spectral_start(G).astype(np.int64)}
    # "sparse": the curves on a grid, the labels' order and a greedy path elsewhere
    out = {}
    if grid:
        for name in ("gilbert", "snake"):
            out[name] = curve_start(labels, name).astype(np.int64)
        if machine.is_torus and machine.ndim == 2:
            out["closed-gilbert"] = machine.node_ids(box_order(machine, "closed_gilbert"))
    else:
        out["node-id"] = np.arange(n, dtype=np.int64)
        if _int_labels(labels):
            by_label = np.array(sorted(range(n), key=labels.__getitem__), dtype=np.int64)
            if not np.array_equal(by_label, out["node-id"]):
                out["labels"] = by_label
        out["greedy"] = greedy_path(dist, n, nbr)
    return out


def order_large(G, method, weights, ring, weight, rng, time_limit, iterations, progress, start_time):
    """:func:`optalloc.curves.order_graph` without a distance matrix (see there)."""
    from ._objective import rank_weights

    if not isinstance(G, Machine):
        G = Machine.from_graph(G, weight=weight)
    elif weight is not None:
        raise ValueError("`weight` names an edge attribute of a networkx graph; a Machine carries its own "
                         "link lengths")
    machine = G
    n = machine.n
    clock = Stopwatch(time_limit)
    rng = np.random.default_rng(rng)
    labels = ([tuple(r) for r in machine.coords.tolist()] if machine.is_grid
              else list(machine.labels))
    c = rank_weights(n, weights, ring=ring)
    flows = rank_offsets(n, c, ring)
    dist = machine.pair_distances
    width = 2 * len(flows.offsets)
    show = progress if isinstance(progress, Progress) else None
    if machine.is_grid:
        profiles = _grid_profiles(machine, width)
        nbr = neighbour_lists(machine, radius=2 if machine.ndim <= 3 else 1)
    else:
        if show is not None:
            show.stage("distances", total=n)
        step = None if show is None else (lambda done: show.track(done))
        profiles, nbr = _network_profiles(dist, n, width, min(NEAR, n - 1), progress=step)
    bound = rank_bound(flows, profiles)
    if show is not None:
        show.stage("starts")
    starts = _starts(machine, method, dist, nbr, labels)
    values = {name: sparse_objective(dist, p, flows) for name, p in starts.items()}
    best_name = min(values, key=values.get)
    order, value = starts[best_name], values[best_name]
    extra: dict = {"starts": values, "best_start": best_name, "offsets": len(flows.offsets),
                   "weight_left_out": flows.tail,
                   "bound_kind": "Gilmore-Lawler, each rank's term minimised over the nodes"}
    message = ""
    if method == "sparse" and n > 1 and value > bound and not clock.expired():
        evaluations = 20 * n if iterations is None else int(iterations)
        if show is not None:
            show.stage("search", total=evaluations, estimate=False)
            show.setdefaults(unit="swaps")
            on_round = lambda done, best: show.track(done, best=best)
        else:
            on_round = progress
        order, value, done = swap_search(dist, order, flows, value, nbr=nbr, rng=rng, evaluations=evaluations,
                                         clock=clock, target=bound, progress=on_round)
        extra["evaluations"] = done
        if show is not None:  # the search may stop before its count: no gain left in reach
            show.track(done, total=max(done, 1), best=value)
        message = f"swap search from the {best_name} start"
    value = sparse_objective(dist, order, flows)
    termination = "completed"
    if bound >= value - 1e-9 * max(1.0, abs(value)):
        termination, bound = "optimal", min(bound, value)
    ks = np.arange(n)
    total = float(np.dot(c, n - ks))
    return OrderResult(
        order=np.asarray(order, dtype=np.intp), labels=[labels[i] for i in order], objective=value,
        average=value / total if total else 0.0, bound=bound,
        guarantee=1.0 if termination == "optimal" else None, status=status_of(termination),
        termination=termination, method=method, message=message,
        runtime=time.perf_counter() - start_time, extra=extra)
