"""Allocators on any machine: 1D allocation over an ordering of the network.

:class:`NetworkOneDAllocator` ranks the nodes of any machine (mesh, torus
or network) once with :func:`optalloc.curves.order_graph` and then
allocates by rank with the 1D strategies of :mod:`optalloc.curves`
(``allocate_ranks``): spec ``"1d:graph-METHOD:STRATEGY[:ring][:seed=N]"``,
METHOD one of :data:`GRAPH_ORDERS`.

Which allocators fit which machine is the registry's to say
(:mod:`._registry`).
"""

from __future__ import annotations

import time

import numpy as np

from ..._subset import metric_subset_result
from ._allocators import Allocation, Allocator

__all__ = ["GRAPH_ORDERS", "NETWORK_METHODS", "NetworkOneDAllocator"]

#: Orderings of ``1d:graph-METHOD``: the methods of ``order_graph`` that take any network.
GRAPH_ORDERS = ("qap", "spectral", "greedy", "brute", "ip", "auto")

#: k-subset methods that run on a network or torus in the machine's own metric
#: (``ksubset.solve(machine, k)``; the others need mesh coordinates).
NETWORK_METHODS = ("brute", "exact", "gen-alg")


class NetworkOneDAllocator(Allocator):
    """1D allocation over an ordering of any machine, computed once per machine.

    Parameters
    ----------
    method : str
        A method of :func:`optalloc.curves.order_graph` that orders any
        network: ``"qap"`` (tabu search on the ordering QAP from curve,
        spectral and greedy starts), ``"spectral"`` (Fiedler vector),
        ``"greedy"`` (nearest-neighbour path), ``"brute"`` (every order, up
        to 9 nodes), ``"ip"`` (the ordering IP, small machines) or
        ``"auto"``.
    strategy : str
        ``"best-fit"``, ``"first-fit"``, ``"sum-of-squares"`` or ``"free-list"``.
    ring : bool
        Rank N - 1 neighbours rank 0 (the ordering and the runs).
    seed : int
        Seed of the ordering search (``qap``, ``spectral``), so that a run
        repeats.
    iterations, time_limit : optional
        Passed to ``order_graph``.

    Notes
    -----
    The ordering is computed at the first allocation on a machine and kept
    for the machine's links (a copy of the machine shares them). The
    result's ``objective`` is W in the machine's metric; ``extra`` holds the
    ranks and spans as :func:`optalloc.curves.allocate_1d` reports them.
    The fit strategies give k consecutive ranks when a run holds them, and
    otherwise the k free ranks of least span: their span is always the
    least of any k free ranks.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> import networkx as nx
    >>> a = NetworkOneDAllocator("greedy", strategy="first-fit")
    >>> a.name, a.select(Machine.from_graph(nx.path_graph(5)), 2).nodes.tolist()
    ('1d:graph-greedy:first-fit', [0, 1])
    """

    def __init__(self, method="qap", *, strategy="best-fit", ring=False, seed=0, iterations=None,
                 time_limit=None):
        from ... import curves

        if method not in GRAPH_ORDERS:
            raise ValueError(f"`method` must be one of {', '.join(GRAPH_ORDERS)}, got {method!r}")
        if strategy not in curves.STRATEGIES:
            raise ValueError(f"`strategy` must be one of {', '.join(curves.STRATEGIES)}, got {strategy!r}")
        for opt, value in (("seed", seed), ("iterations", iterations)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))
                                      or value < (0 if opt == "seed" else 1)):
                raise ValueError(f"`{opt}` must be a {'non-negative' if opt == 'seed' else 'positive'} integer, "
                                 f"got {value!r}")
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                       or not time_limit > 0):
            raise ValueError(f"`time_limit` must be a positive number of seconds, got {time_limit!r}")
        self.method = method
        self.strategy = strategy
        self.ring = bool(ring)
        self.seed = seed
        self.iterations = iterations
        self.time_limit = time_limit
        self.order_name = f"graph-{method}"
        self.name = f"1d:graph-{method}:{strategy}" + (":ring" if ring else "")
        self.order_result = None
        self._key = None
        self._ranked = None
        self._rank_of = None

    def _prepared(self, machine):
        key = machine.metric_key
        if self._key is None or not (self._key is key or self._key == key):
            from ... import curves

            res = curves.order_graph(machine, method=self.method, ring=self.ring, rng=self.seed,
                                     iterations=self.iterations, time_limit=self.time_limit)
            ranked = np.asarray(res.order, dtype=np.int64)
            rank_of = np.empty(machine.n, dtype=np.int64)
            rank_of[ranked] = np.arange(machine.n)
            ranked.setflags(write=False)
            self._key, self._ranked, self._rank_of, self.order_result = key, ranked, rank_of, res
        return self._ranked, self._rank_of

    def ordering(self, machine):
        return self._prepared(machine)[0]

    def select(self, machine, k):
        from ... import curves

        t0 = time.perf_counter()
        ranked, rank_of = self._prepared(machine)
        a = curves.allocate_ranks(rank_of[machine.free_ids()], k, machine.n, strategy=self.strategy,
                                  ring=self.ring)
        nodes = np.sort(ranked[a.ranks])
        n_ranks = machine.n
        extra = {"ranks": a.ranks, "start": a.start, "span": a.span,
                 "linear_span": int(a.ranks[-1] - a.ranks[0] + 1),
                 "ring_span": curves.span(a.ranks, n_ranks, ring=True), "contiguous": bool(a.contiguous),
                 "fallback": a.fallback, "run_length": a.run_length, "strategy": self.strategy,
                 "ring": self.ring, "n_ranks": n_ranks}
        coords = machine.coords[nodes].astype(float) if machine.is_grid else None
        result = metric_subset_result(machine.distances(nodes), np.arange(k), ids=nodes, coords=coords,
                                      method=self.strategy, start=t0, extra=extra,
                                      message=f"{self.strategy} over the {self.order_name} ordering, "
                                              f"span {a.span}")
        return Allocation(nodes, result)

    def __repr__(self):
        return f"NetworkOneDAllocator({self.method!r}, strategy={self.strategy!r}, ring={self.ring})"
