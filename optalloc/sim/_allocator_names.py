"""``parse_allocator``: every allocator from a short text (the k-subset
methods, random, 1D over a curve or a network ordering, the dragonfly
allocators)."""

from __future__ import annotations

import ast

from .. import ksubset
from ._allocators import Allocator, KSubsetAllocator, OneDAllocator, RandomAllocator
from ._dragonfly import DRAGONFLY_ALLOCATORS, parse_dragonfly_allocator
from ._netalloc import GRAPH_ORDERS, NetworkOneDAllocator

__all__ = ["parse_allocator"]

_ALIASES = {"tie": "tie_break", "tb": "tie_break"}


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


def parse_allocator(spec, *, rng=None) -> Allocator:
    """An allocator from a short text, as a command line would give it.

    Forms: ``"METHOD"`` or ``"METHOD:opt=value:opt=value"`` for a k-subset
    method (``tie`` stands for ``tie_break``; values are Python literals,
    a comma list is a tuple), ``"random"`` (seeded by ``rng``, or
    ``"random:seed=3"``), and ``"1d:ORDER:STRATEGY"`` with an optional
    ``":ring"``.  An :class:`Allocator` is returned unchanged.

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
    head = parts[0].lower()
    if head == "random":
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
    if head == "dfly":

        return parse_dragonfly_allocator(spec, rng=rng)
    if head in ("1d", "oned") and len(parts) > 1 and parts[1].lower().startswith("graph-"):
        return _parse_graph_1d(spec, parts)
    if head in ("1d", "oned"):
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
    if parts[0] not in ksubset.METHODS:
        raise ValueError(f"unknown method {parts[0]!r}; {_allocator_forms()}")
    options = {}
    for p in parts[1:]:
        if "=" not in p:
            raise ValueError(f"`allocator` options must be name=value, got {p!r} in {spec!r}")
        key, value = p.split("=", 1)
        key = key.strip()
        options[_ALIASES.get(key, key)] = _parse_value(value)
    return KSubsetAllocator(parts[0], **options)


def _parse_graph_1d(spec, parts):
    """``1d:graph-METHOD[:STRATEGY][:ring][:seed=N]``: a NetworkOneDAllocator."""

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


def _one_d_names():
    """The orders (``-`` for ``_``) and strategies of ``1d:ORDER:STRATEGY``."""
    from .. import curves

    return tuple(sorted(o.replace("_", "-") for o in curves.BOX_ORDERS)), tuple(sorted(curves.STRATEGIES))


def _allocator_forms() -> str:
    """Every form :func:`parse_allocator` accepts, in one line (for error messages)."""

    orders, strategies = _one_d_names()
    methods = []
    for name in sorted(ksubset.METHODS):
        opts = [_SHORT.get(o, o) for o in ksubset.method_options(name) if o not in _NOT_IN_SPECS]
        methods.append(f"{name}[:{'|'.join(opts)}=V]" if opts else name)
    return ("choose one of: a k-subset method METHOD[:option=value...], "
            f"{', '.join(methods)} (e.g. mc1x1:tie=default); 1d:ORDER:STRATEGY[:ring] with ORDER one of "
            f"{', '.join(orders)} and STRATEGY one of {', '.join(strategies)} "
            f"(e.g. 1d:gilbert:best-fit); 1d:graph-ORDER:STRATEGY[:ring][:seed=N] over an ordering of any "
            f"network, ORDER one of {', '.join(GRAPH_ORDERS)}; random[:seed=N]; on a dragonfly dfly:NAME with "
            f"NAME one of {', '.join(DRAGONFLY_ALLOCATORS)}")


#: option names as a spec may shorten them
_SHORT = {"tie_break": "tie"}
#: options that a spec does not give (filled in by the allocator, or objects)
_NOT_IN_SPECS = ("shape", "warm_start", "verbose", "progress")
