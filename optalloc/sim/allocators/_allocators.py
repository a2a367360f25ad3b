"""Allocators: which free nodes a starting job gets.

Subclass :class:`Allocator` and override :meth:`Allocator.select`, which
returns the chosen node ids, or an :class:`Allocation` that also carries the
solver's :class:`~optalloc.SubsetResult` (so tie counts and bounds reach the
records and the decision hook).

- :class:`KSubsetAllocator` runs any method of :func:`optalloc.ksubset.solve`
  on the free points (MM, Gen-Alg, MC1x1 with or without tie-breaking,
  MM+Inc, exact, ...; Bender et al. 2005 sec. 5 compares them on traces).
- :class:`RandomAllocator` takes k free nodes uniformly at random.
- :class:`FreeListAllocator` takes the k free nodes of lowest id: the
  cheapest allocator, for timing the simulator itself.
- :class:`OneDAllocator` ranks the nodes along an ordering (snake, Hilbert,
  ...) and applies a 1D strategy (Leung et al. 2002, sec. 2.3).

On a torus the k-subset methods see the plain coordinates: they minimise
mesh L1 distance and know nothing of the wrap links; the simulator's
metrics still measure the wrap distance.
"""

from __future__ import annotations

import hashlib
import operator
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import ksubset
from ..._jit import njit
from ..._result import SubsetResult

__all__ = [
    "Allocation",
    "Allocator",
    "FreeListAllocator",
    "KSubsetAllocator",
    "OneDAllocator",
    "RandomAllocator",
]


@dataclass(frozen=True)
class Allocation:
    """Node ids chosen for a job, with the solver's result when there is one."""

    nodes: np.ndarray
    result: SubsetResult | None = None


class Allocator:
    """Base class: choose ``k`` free nodes of a :class:`Machine`.

    Override :meth:`select`.  The simulator hands the choice to
    :meth:`Machine.allocate`, which raises RuntimeError on a busy node or a
    node given twice.
    """

    #: Name used in results; instances may set a more specific one.
    name = "allocator"

    def select(self, machine, k):
        """Node ids for a job of ``k`` processors (``k <= machine.n_free``).

        Returns
        -------
        array_like of int or Allocation
        """
        raise NotImplementedError

    def ordering(self, machine):
        """Node ids in rank order when the allocator follows an ordering, else None."""
        del machine  # no ordering here; 1D allocators override this

    def __repr__(self):
        return f"{type(self).__name__}()"


def _check_result(result, k, method):
    if not isinstance(result, SubsetResult):  # a faulty allocator: RuntimeError, as for busy nodes
        raise RuntimeError(  # noqa: TRY004
            f"method {method!r} returned {type(result).__name__}, not a SubsetResult")
    if result.status in ("infeasible", "none") or len(result.indices) != k:
        raise RuntimeError(f"method {method!r} gave no allocation of {k} nodes "
                           f"(termination {result.termination!r}: {result.message})")


class KSubsetAllocator(Allocator):
    """Allocate with a k-subset method on the free nodes.

    On a mesh the method minimises W in L1 over the free points; on a
    torus or a network it runs in the machine's own metric (wrap
    distances, shortest paths) through ``ksubset.solve(machine, k)``, for
    the methods that hold there (:func:`optalloc.ksubset.machine_methods`).
    On a torus, MC1x1 with tie-breaking or a requested shape keeps the
    mesh rules (L1 on the coordinates; the tie-breaking score is defined on
    a mesh): ``mesh_rules`` is then True.

    Parameters
    ----------
    method : str
        A method of :func:`optalloc.ksubset.solve` (``"mm"``, ``"gen-alg"``,
        ``"mc1x1"``, ``"mm-inc"``, ``"exact"``, ...).
    cache : int
        Remember the last ``cache`` decisions, keyed by the free set and k,
        and reuse them when a state repeats (an idle machine recurs often
        in traces).  0 turns it off; it is off for ``"exact"`` and
        ``"ptas"``, whose outcome may depend on time limits.
    **options
        Its options, checked now.  ``shape`` is filled with the machine's
        shape for methods that take it (MC1x1).

    Examples
    --------
    >>> from optalloc.sim import Machine
    >>> a = KSubsetAllocator("mc1x1", tie_break="default")
    >>> a.name
    'mc1x1:tie_break=default'
    >>> a.select(Machine((4, 4)), 3).nodes.tolist()
    [0, 1, 4]
    """

    def __init__(self, method="mc1x1", *, cache=4096, **options):
        allowed = ksubset.method_options(method)  # raises on unknown names
        for opt in options:
            if opt not in allowed:
                takes = f"it takes: {', '.join(allowed)}" if allowed else "it takes no options"
                raise ValueError(f"method {method!r} does not take option {opt!r}; {takes}")
        self.method = method
        self._func = ksubset.METHODS[method]
        self.options = dict(options)
        self._needs_shape = "shape" in allowed and "shape" not in options
        #: on a torus: choose by L1 on the coordinates (options defined on a mesh only)
        self.mesh_rules = method == "mc1x1" and bool(options)
        self.cache = 0 if method in ("exact", "ptas") else max(0, operator.index(cache))
        self._memo: OrderedDict = OrderedDict()
        self.hits = 0
        extra = ",".join(f"{k}={_fmt_opt(v)}" for k, v in self.options.items())
        self.name = f"{method}:{extra}" if extra else method

    def select(self, machine, k):
        if not machine.is_grid or (machine.is_torus and not self.mesh_rules):
            return self._select_metric(machine, k)
        ids = machine.free_ids()
        if self.cache:
            key = (machine.shape, k, np.packbits(machine.free).tobytes())
            hit = self._memo.get(key)
            if hit is not None:
                self._memo.move_to_end(key)
                self.hits += 1
                return hit
        opts = dict(self.options)
        if self._needs_shape:
            opts["shape"] = machine.shape
        # options were checked at construction: call the method directly (as solve would)
        result = self._func(machine.free_points(), k, **opts)
        _check_result(result, k, self.method)
        out = Allocation(ids[result.indices], result)
        if self.cache:
            self._memo[key] = out
            if len(self._memo) > self.cache:
                self._memo.popitem(last=False)
        return out

    def _select_metric(self, machine, k):
        """On a torus or a network: the method in the machine's own metric
        (``ksubset.solve(machine, k)``: wrap distances, shortest paths), for
        the methods that hold there."""
        key = None
        if self.cache:
            shape = (machine.shape, machine.torus) if machine.is_grid else _network_key(machine)
            key = ("metric", shape, k, np.packbits(machine.free).tobytes())
            hit = self._memo.get(key)
            if hit is not None:
                self._memo.move_to_end(key)
                self.hits += 1
                return hit
        result = ksubset.solve(machine, k, method=self.method, **self.options)
        _check_result(result, k, self.method)
        out = Allocation(np.asarray(result.indices, dtype=np.int64), result)
        if key is not None:
            self._memo[key] = out
            if len(self._memo) > self.cache:
                self._memo.popitem(last=False)
        return out

    def __repr__(self):
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"KSubsetAllocator({self.method!r}{opts})"


#: per network machine object: its node count and a digest of its structure
_NETWORK_KEYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _network_key(machine) -> tuple:
    """What identifies a network's metric in the allocators' caches: the
    node count and a digest of the machine's ``metric_key`` (its structure
    or links; computed once per machine object), so that two networks never
    share a cached allocation, even when one was built where the other was
    freed."""
    key = _NETWORK_KEYS.get(machine)
    if key is None:
        key = (machine.n, hashlib.blake2b(repr(machine.metric_key).encode(), digest_size=16).hexdigest())
        _NETWORK_KEYS[machine] = key
    return key


def _fmt_opt(v):
    if isinstance(v, (list, tuple)):
        return "(" + ",".join(map(str, v)) + ")"
    return str(v)


class RandomAllocator(Allocator):
    """k free nodes uniformly at random: a baseline with no locality.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        Seed or generator, used once at construction.

    Examples
    --------
    >>> from optalloc.sim import Machine
    >>> len(RandomAllocator(rng=1).select(Machine((4, 4)), 5))
    5
    """

    name = "random"

    def __init__(self, rng=None):
        if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
            self.name = f"random:seed={int(rng)}"  # two seeds are two allocators
        self.rng = np.random.default_rng(rng)

    def select(self, machine, k):
        ids = machine.free_ids()
        return np.sort(self.rng.choice(ids, size=k, replace=False))


class FreeListAllocator(Allocator):
    """The k free nodes of lowest id, on any machine.

    The free list of Cplant's first allocator kept in node order (Leung et
    al. 2002, sec. 2.1), with the ids as the order: on a mesh or torus the
    nodes in row-major order, x fastest, as ``"1d:row-major:free-list"``
    picks them.  Its ordering (for the span metrics) is the ids.  It costs
    one pass over the free mask per decision, which makes it the allocator
    to time the simulator itself with.

    Examples
    --------
    >>> from optalloc.sim import Machine
    >>> m = Machine((4, 4))
    >>> _ = m.allocate([0, 2])
    >>> FreeListAllocator().select(m, 3).tolist()
    [1, 3, 4]
    """

    name = "free-list"

    def select(self, machine, k):
        return _first_free(machine.free, k)

    def ordering(self, machine):
        return np.arange(machine.size, dtype=np.int64)


@njit(cache=True)
def _first_free(free, k):
    """The first ``k`` ids whose entry of the mask ``free`` is True."""
    out = np.empty(k, dtype=np.int64)
    t = 0
    for i in range(len(free)):
        if free[i]:
            out[t] = i
            t += 1
            if t == k:
                break
    return out


class OneDAllocator(Allocator):
    """1D allocation over an ordering of the machine (Leung et al. 2002).

    Nodes are ranked along ``order``; the job gets k free nodes chosen by
    their ranks with ``strategy`` (``optalloc.curves`` ``allocate_1d``).

    Parameters
    ----------
    order : str or array_like, shape (N, d)
        A box ordering name of ``optalloc.curves`` (``"hilbert"``,
        ``"gilbert"``, ``"snake"``, ``"row_major"``, and the closed curves
        ``"moore"``, ``"closed_gilbert"``, ``"closed_snake"``, which use a
        torus's wrap links; ``-`` may stand for ``_``) or node coordinates
        in visiting order.
    strategy : str
        ``"best-fit"``, ``"first-fit"``, ``"sum-of-squares"`` or
        ``"free-list"``.
    ring : bool
        Rank N - 1 neighbours rank 0.

    Notes
    -----
    On a power-of-two square ``"hilbert"`` is the classic curve; on other
    boxes pass ``"gilbert"`` (a generalised Hilbert curve).

    Examples
    --------
    >>> from optalloc.sim import Machine
    >>> a = OneDAllocator("snake", strategy="first-fit")
    >>> a.select(Machine((2, 2)), 3).nodes.tolist()
    [0, 1, 3]
    """

    def __init__(self, order="gilbert", *, strategy="best-fit", ring=False):
        from ... import curves

        if strategy not in curves.STRATEGIES:
            raise ValueError(f"`strategy` must be one of {', '.join(curves.STRATEGIES)}, got {strategy!r}")
        if isinstance(order, str):
            order = order.replace("-", "_")
            self.order_name = order
        else:
            order = np.asarray(order)
            self.order_name = "custom"
        self.order = order
        self.strategy = strategy
        self.ring = bool(ring)
        self.name = f"1d:{self.order_name}:{strategy}" + (":ring" if ring else "")
        self._cache: dict[Any, tuple] = {}

    def fits(self, machine) -> str | None:
        """Why the ordering cannot rank the machine's nodes (the curve's own
        words: the box curves order 2-D and 3-D boxes, Hilbert power-of-two
        squares and cubes only), or None; the
        ordering is then kept for the allocations that follow."""
        if not machine.is_grid:
            return "it orders mesh coordinates (use 1d:graph-ORDER:STRATEGY)"
        try:
            self._prepared(machine)
        except ValueError as exc:
            return f"its order: {exc}"
        return None

    def _prepared(self, machine):
        key = (machine.shape, machine.torus)
        if key not in self._cache:
            from ... import curves

            if isinstance(self.order, str):
                coords = curves.box_order(machine, self.order)
            else:
                coords = self.order
            ordering = curves.Ordering1D(coords)
            if ordering.n_ranks != machine.size:
                raise ValueError(f"`order` has {ordering.n_ranks} nodes, the machine {machine.size}")
            ranked_ids = machine.node_ids(ordering.order)
            self._cache[key] = (ordering, ranked_ids)
        return self._cache[key]

    def ordering(self, machine):
        return self._prepared(machine)[1]

    def select(self, machine, k):
        from ... import curves

        ordering, _ = self._prepared(machine)
        result = curves.allocate_1d(machine.free_points(), k, order=ordering, strategy=self.strategy,
                                     ring=self.ring)
        _check_result(result, k, self.name)
        return Allocation(machine.free_ids()[result.indices], result)

    def __repr__(self):
        return f"OneDAllocator({self.order_name!r}, strategy={self.strategy!r}, ring={self.ring})"


