"""One registry of the simulator's allocators: names, options, the machines
they fit.

Every allocator belongs to one *family* (:class:`Family`): the k-subset
methods, 1D allocation over a curve, 1D allocation over an ordering of any
network, random placement, the dragonfly policies of SST's scheduler and
Slurm's topology/tree and topology/block placement.
A family knows the texts it reads (``form``), how to build an allocator
from one (``parse``), the specs of its allocators that run on a machine
(``specs``) and why one of its allocators cannot run on a machine
(``misfit``).  Callers ask the registry once:

- :func:`parse_allocator`: an allocator from a text, as a command line or
  a sweep file gives it;
- :func:`fitting_allocators`: the specs that run on a machine;
- :func:`misfit` and :func:`check_allocator`: whether an allocator runs on
  a machine, and the one-line error naming those that do.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from ... import ksubset
from ._allocators import Allocator, FreeListAllocator, KSubsetAllocator, OneDAllocator, RandomAllocator
from ._dragonfly import DRAGONFLY_ALLOCATORS, DragonflyAllocator, dragonfly_layout, parse_dragonfly_allocator
from ._network import GRAPH_ORDERS, NETWORK_METHODS, NetworkOneDAllocator
from ._slurm import SLURM_ALLOCATORS, SlurmAllocator, parse_slurm_allocator, slurm_misfit

__all__ = ["ALLOCATOR_FAMILIES", "Family", "check_allocator", "fitting_allocators", "misfit", "parse_allocator"]


@dataclass(frozen=True)
class Family:
    """One family of allocators in the registry.

    Attributes
    ----------
    name : str
        The family's name (``"k-subset"``, ``"1d"``, ``"1d-graph"``,
        ``"random"``, ``"dfly"``).
    cls : type
        The :class:`Allocator` class its allocators are instances of.
    form : str
        The texts it reads, for messages (``"1d:ORDER:STRATEGY[:ring]"``).
    claims : callable
        ``claims(parts) -> bool``: the text split at ``:`` is one of this
        family's.
    parse : callable
        ``parse(spec, parts, rng) -> Allocator``.
    specs : callable
        ``specs(machine) -> list[str]``: the specs of this family that run
        on the machine (empty when none does).
    misfit : callable
        ``misfit(alloc, machine) -> str | None``: why ``alloc`` cannot run
        on the machine, or None.
    """

    name: str
    cls: type
    form: str
    claims: Callable[[list[str]], bool]
    parse: Callable[..., Allocator]
    specs: Callable[..., list[str]]
    misfit: Callable[..., str | None]


def _head(parts) -> str:
    return parts[0].lower()


def _is_1d(parts) -> bool:
    return _head(parts) in ("1d", "oned")


def _is_graph_1d(parts) -> bool:
    return _is_1d(parts) and len(parts) > 1 and parts[1].lower().startswith("graph-")


# ---- the k-subset methods -------------------------------------------------------------------

_ALIASES = {"tie": "tie_break", "tb": "tie_break"}
#: option names as a spec may shorten them
_SHORT = {"tie_break": "tie"}
#: options that a spec does not give (filled in by the allocator, or objects)
_NOT_IN_SPECS = ("shape", "warm_start", "verbose", "progress")


def _parse_value(text):
    text = text.strip()
    if text.lower() in ("none", "off", "false"):
        return None
    if "," in text and not text.startswith(("(", "[")):
        text = f"({text})"
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _parse_ksubset(spec, parts, rng):
    del rng  # the k-subset methods are deterministic
    options = {}
    for p in parts[1:]:
        if "=" not in p:
            raise ValueError(f"`allocator` options must be name=value, got {p!r} in {spec!r}")
        key, value = p.split("=", 1)
        key = key.strip()
        options[_ALIASES.get(key, key)] = _parse_value(value)
    return KSubsetAllocator(parts[0], **options)


def _ksubset_specs(machine):
    return sorted(ksubset.machine_methods(machine)) if machine.is_grid else list(NETWORK_METHODS)


def _ksubset_misfit(alloc, machine):
    if machine.kind == "torus":
        if alloc.method not in ksubset.machine_methods(machine) and not alloc.mesh_rules:
            return "it has no form with wrap distances"
        return None
    if not machine.is_grid and alloc.method not in NETWORK_METHODS:
        return "it places jobs by mesh coordinates"
    return None


def _ksubset_form() -> str:
    methods = []
    for name in sorted(ksubset.METHODS):
        opts = [_SHORT.get(o, o) for o in ksubset.method_options(name) if o not in _NOT_IN_SPECS]
        methods.append(f"{name}[:{'|'.join(opts)}=V]" if opts else name)
    return f"a k-subset method METHOD[:option=value...], {', '.join(methods)} (e.g. mc1x1:tie=default)"


# ---- 1D over a curve ------------------------------------------------------------------------

def _one_d_names():
    """The orders (``-`` for ``_``) and strategies of ``1d:ORDER:STRATEGY``."""
    from ... import curves

    return tuple(sorted(o.replace("_", "-") for o in curves.BOX_ORDERS)), tuple(sorted(curves.STRATEGIES))


def _parse_1d(spec, parts, rng):
    del rng  # curve orderings are fixed
    rest = parts[1:]
    ring = False
    if rest and rest[-1].lower() == "ring":
        ring, rest = True, rest[:-1]
    if len(rest) > 2:
        raise ValueError(f"`allocator` must look like '1d:ORDER:STRATEGY[:ring]', got {spec!r}")
    order = rest[0] if rest else "gilbert"
    strategy = rest[1] if len(rest) > 1 else "best-fit"
    orders, strategies = _one_d_names()
    if order.replace("_", "-") not in orders:
        raise ValueError(f"`allocator` {spec!r}: `order` must be one of {', '.join(orders)}, got {order!r} "
                         f"(1d:ORDER:STRATEGY[:ring], STRATEGY one of {', '.join(strategies)})")
    if strategy not in strategies:
        raise ValueError(f"`allocator` {spec!r}: `strategy` must be one of {', '.join(strategies)}, got "
                         f"{strategy!r} (1d:ORDER:STRATEGY[:ring], ORDER one of {', '.join(orders)})")
    return OneDAllocator(order, strategy=strategy, ring=ring)


def _1d_specs(machine):
    # the box curves order 2-D and 3-D boxes
    return ["1d:ORDER:STRATEGY"] if machine.is_grid and machine.ndim in (2, 3) else []


def _1d_form() -> str:
    orders, strategies = _one_d_names()
    return (f"1d:ORDER:STRATEGY[:ring] with ORDER one of {', '.join(orders)} and STRATEGY one of "
            f"{', '.join(strategies)} (e.g. 1d:gilbert:best-fit)")


# ---- 1D over an ordering of any network -----------------------------------------------------

def _parse_graph_1d(spec, parts, rng):
    """``1d:graph-METHOD[:STRATEGY][:ring][:seed=N]``: a NetworkOneDAllocator."""
    del rng  # the ordering's seed is an option of the spec
    method = parts[1][len("graph-"):].lower()
    strategy, ring, opts = "best-fit", False, {}
    _, strategies = _one_d_names()
    for p in parts[2:]:
        if p.lower() == "ring":
            ring = True
        elif "=" in p:
            key, value = (v.strip() for v in p.split("=", 1))
            if key not in ("seed", "iterations", "time_limit"):
                raise ValueError(f"`allocator` {spec!r}: options are seed=N, iterations=N, time_limit=S, got {key!r}")
            opts[key] = _parse_value(value)
        elif p in strategies:
            strategy = p
        else:
            raise ValueError(f"`allocator` {spec!r}: `strategy` must be one of {', '.join(strategies)}, got {p!r}")
    if method not in GRAPH_ORDERS:
        raise ValueError(f"`allocator` {spec!r}: the ordering must be graph-METHOD with METHOD one of "
                         f"{', '.join(GRAPH_ORDERS)}, got {parts[1]!r}")
    return NetworkOneDAllocator(method, strategy=strategy, ring=ring, **opts)


# ---- random ---------------------------------------------------------------------------------

def _parse_random(spec, parts, rng):
    opts = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
    bad = [p for p in parts[1:] if "=" not in p] + [k for k in opts if k != "seed"]
    if bad:
        raise ValueError(f"`allocator` 'random' takes only seed=N, got {spec!r}")
    if "seed" in opts:
        try:
            return RandomAllocator(int(opts["seed"]))
        except ValueError:
            raise ValueError(f"`allocator` 'random': seed must be an integer, got {opts['seed']!r}") from None
    return RandomAllocator(rng)


# ---- the free list ------------------------------------------------------------------------

def _parse_free_list(spec, parts, rng):
    del rng  # deterministic
    if len(parts) > 1:
        raise ValueError(f"`allocator` 'free-list' takes no options, got {spec!r}")
    return FreeListAllocator()


# ---- dragonflies ----------------------------------------------------------------------------

def _dfly_specs(machine):
    if machine.is_grid or dragonfly_layout(machine) is None:
        return []
    return [f"dfly:{name}" for name in DRAGONFLY_ALLOCATORS]


def _slurm_specs(machine):
    if machine.is_grid or slurm_misfit(machine) is not None:
        return []
    return [f"slurm:{name}" for name in SLURM_ALLOCATORS]


def _fits_anywhere(alloc, machine):
    del alloc, machine
    return None


#: The families, in the order :func:`fitting_allocators` lists them.
ALLOCATOR_FAMILIES = (
    Family("k-subset", KSubsetAllocator, "", lambda parts: parts[0] in ksubset.METHODS,
           _parse_ksubset, _ksubset_specs, _ksubset_misfit),
    Family("1d", OneDAllocator, "1d:ORDER:STRATEGY[:ring]", lambda parts: _is_1d(parts) and not _is_graph_1d(parts),
           _parse_1d, _1d_specs,
           lambda alloc, machine: alloc.fits(machine)),
    Family("1d-graph", NetworkOneDAllocator, "1d:graph-ORDER:STRATEGY[:ring][:seed=N]", _is_graph_1d,
           _parse_graph_1d, lambda machine: ["1d:graph-ORDER:STRATEGY"], _fits_anywhere),
    Family("random", RandomAllocator, "random[:seed=N]", lambda parts: _head(parts) == "random",
           _parse_random, lambda machine: ["random"], _fits_anywhere),
    Family("free-list", FreeListAllocator, "free-list", lambda parts: _head(parts) == "free-list",
           _parse_free_list, lambda machine: ["free-list"], _fits_anywhere),
    Family("dfly", DragonflyAllocator, "dfly:NAME[:seed=N]", lambda parts: _head(parts) == "dfly",
           lambda spec, parts, rng: parse_dragonfly_allocator(spec, rng=rng), _dfly_specs,
           lambda alloc, machine: alloc.fits(machine)),
    Family("slurm", SlurmAllocator, "slurm:tree|slurm:block[:sizes=B0,B1,...]", lambda parts: _head(parts) == "slurm",
           lambda spec, parts, rng: parse_slurm_allocator(spec), _slurm_specs,
           lambda alloc, machine: alloc.fits(machine)),
)


def _family_of(alloc) -> Family | None:
    for family in ALLOCATOR_FAMILIES:
        if isinstance(alloc, family.cls):
            return family
    return None


def parse_allocator(spec, *, rng=None) -> Allocator:
    """An allocator from a short text, as a command line would give it.

    Forms: ``"METHOD"`` or ``"METHOD:opt=value:opt=value"`` for a k-subset
    method (``tie`` stands for ``tie_break``; values are Python literals,
    a comma list is a tuple), ``"random"`` (seeded by ``rng``, or
    ``"random:seed=3"``), ``"1d:ORDER:STRATEGY"`` with an optional
    ``":ring"``, ``"1d:graph-ORDER:STRATEGY"`` over an ordering of any
    network, ``"free-list"`` (the k free nodes of lowest id) and
    ``"dfly:NAME"`` on a dragonfly, ``"slurm:tree"`` and ``"slurm:block"``
    on a tree of switches (Slurm's topology plugins).  An :class:`Allocator` is
    returned unchanged.

    Examples
    --------
    >>> parse_allocator("mc1x1:tie=default")
    KSubsetAllocator('mc1x1', tie_break='default')
    >>> parse_allocator("mc1x1:tie=2,13,20,6").options
    {'tie_break': (2, 13, 20, 6)}
    >>> parse_allocator("1d:hilbert:best-fit")
    OneDAllocator('hilbert', strategy='best-fit', ring=False)

    An unknown name gets the list of every form:

    >>> parse_allocator("nonsense")
    Traceback (most recent call last):
    ...
    ValueError: unknown method 'nonsense'; choose one of: a k-subset method ...
    """
    if isinstance(spec, Allocator):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"`allocator` must be an Allocator or a text such as 'mc1x1', got {spec!r}")
    parts = [p.strip() for p in spec.strip().split(":")]
    for family in ALLOCATOR_FAMILIES:
        if family.claims(parts):
            return family.parse(spec, parts, rng)
    raise ValueError(f"unknown method {parts[0]!r}; {allocator_forms()}")


def allocator_forms() -> str:
    """Every form :func:`parse_allocator` accepts, in one line (for error messages)."""
    return ("choose one of: " + _ksubset_form() + "; " + _1d_form() + "; "
            f"1d:graph-ORDER:STRATEGY[:ring][:seed=N] over an ordering of any network, ORDER one of "
            f"{', '.join(GRAPH_ORDERS)}; random[:seed=N]; free-list; on a dragonfly dfly:NAME with NAME one of "
            f"{', '.join(DRAGONFLY_ALLOCATORS)}; on a tree of switches slurm:tree or slurm:block[:sizes=B0,B1,...]")


def fitting_allocators(machine) -> list[str]:
    """The allocator specs that run on ``machine`` (for messages and menus).

    Examples
    --------
    >>> from optalloc.machine import fat_tree
    >>> fitting_allocators(fat_tree(4))[:4]
    ['brute', 'exact', 'gen-alg', '1d:graph-ORDER:STRATEGY']
    """
    return [spec for family in ALLOCATOR_FAMILIES for spec in family.specs(machine)]


def misfit(alloc, machine) -> str | None:
    """Why ``alloc`` cannot run on ``machine``, or None when it can.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> misfit(parse_allocator("1d:hilbert:best-fit"), Machine((4, 4))) is None
    True
    """
    family = _family_of(alloc)
    return None if family is None else family.misfit(alloc, machine)


def check_allocator(alloc, machine) -> None:
    """Raise a one-line ValueError when ``alloc`` does not fit ``machine``,
    naming the allocators that do (``fitting_allocators``).

    Examples
    --------
    >>> from optalloc.machine import dragonfly
    >>> check_allocator(parse_allocator("mc1x1"), dragonfly())
    Traceback (most recent call last):
    ...
    ValueError: allocator 'mc1x1' does not fit a dragonfly:groups=9,routers=4,nodes=2,global=2,arrangement=absolute (it places jobs by mesh coordinates); ...
    """
    why = misfit(alloc, machine)
    if why is None:
        return
    _, strategies = _one_d_names()
    fits = ", ".join(fitting_allocators(machine)).replace("STRATEGY", f"{{{'|'.join(strategies)}}}")
    orders = "|".join(GRAPH_ORDERS)
    raise ValueError(f"allocator {getattr(alloc, 'name', repr(alloc))!r} does not fit a {machine.describe()} "
                     f"({why}); allocators that fit: {fits} (graph ORDER one of {orders})")
