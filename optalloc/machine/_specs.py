"""Text forms of the generated networks: ``dragonfly:...`` and ``fattree:...``.

``parse_machine`` reads them and :meth:`Machine.describe` writes them back,
so a machine built by :func:`dragonfly` or :func:`fat_tree` round-trips
through its description (a certificate or a sweep records it).

Forms (case-insensitive, spaces allowed around ``:``, ``,`` and ``=``):

``dragonfly``
    the defaults (9 groups of 4 routers, 2 nodes per router, 2 global links
    per router, absolute arrangement).
``dragonfly:G,R,N,L[,ARRANGEMENT]``
    groups, routers per group, nodes per router, global links per router,
    and optionally the arrangement.
``dragonfly:groups=9,routers=4,nodes=2,global=2,arrangement=absolute``
    any of the keywords, the others at their defaults (``global_links``
    may stand for ``global``).
``fattree:K``, ``fattree:k=K``
    the k-ary fat tree (``fat-tree`` and ``fat_tree`` are read too).
"""

from __future__ import annotations

import re

from ._generators import dragonfly, fat_tree

__all__ = ["is_generated", "parse_generated"]

_GENERATED = re.compile(r"^\s*(dragonfly|fat[-_]?tree)\s*(?::\s*(.*?))?\s*$", re.IGNORECASE | re.DOTALL)
_DRAGONFLY_KEYS = ("groups", "routers", "nodes", "global_links", "arrangement")
_ALIASES = {"global": "global_links", "g": "groups", "a": "routers", "p": "nodes", "h": "global_links"}
_DRAGONFLY_FORM = "'dragonfly:G,R,N,L[,ARRANGEMENT]' or 'dragonfly:groups=9,routers=4,nodes=2,global=2'"


def _integer(spec: str, name: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"`machine` {spec!r}: {name} must be an integer, got {text!r}") from None


def _dragonfly(spec: str, body: str | None):

    params: dict = {}
    if body:
        items = [t.strip() for t in body.split(",")]
        if any(not t for t in items):
            raise ValueError(f"`machine` {spec!r}: empty field; use {_DRAGONFLY_FORM}")
        named = ["=" in t for t in items]
        if any(named) and not all(named):
            raise ValueError(f"`machine` {spec!r}: give every field by position or every field by name; "
                             f"use {_DRAGONFLY_FORM}")
        if all(named):
            for t in items:
                key, value = (s.strip() for s in t.split("=", 1))
                key = _ALIASES.get(key.lower(), key.lower())
                if key not in _DRAGONFLY_KEYS:
                    raise ValueError(f"`machine` {spec!r}: unknown field {key!r}; fields are groups, routers, "
                                     "nodes, global, arrangement")
                if key in params:
                    raise ValueError(f"`machine` {spec!r}: {key} given twice")
                params[key] = value
        else:
            if len(items) > len(_DRAGONFLY_KEYS):
                raise ValueError(f"`machine` {spec!r}: at most 5 fields; use {_DRAGONFLY_FORM}")
            params = dict(zip(_DRAGONFLY_KEYS, items))
    for key in _DRAGONFLY_KEYS[:4]:
        if key in params:
            params[key] = _integer(spec, key, params[key])
    if "arrangement" in params:
        params["arrangement"] = params["arrangement"].lower()
    try:
        return dragonfly(**params)
    except ValueError as err:
        raise ValueError(f"`machine` {spec!r}: {err}") from None


def _fat_tree(spec: str, body: str | None):

    if not body:
        raise ValueError(f"`machine` {spec!r}: give the arity, as in 'fattree:4' or 'fattree:k=4'")
    text = body
    if "=" in body:
        key, text = (s.strip() for s in body.split("=", 1))
        if key.lower() != "k":
            raise ValueError(f"`machine` {spec!r}: a fat tree takes only k, as in 'fattree:k=4'")
    try:
        return fat_tree(_integer(spec, "k", text))
    except ValueError as err:
        if str(err).startswith("`machine`"):
            raise
        raise ValueError(f"`machine` {spec!r}: {err}") from None


def is_generated(text: str) -> bool:
    """Whether the text names a generated network (``dragonfly...``, ``fattree...``)."""
    return _GENERATED.match(text) is not None


def parse_generated(text: str):
    """The Machine a ``dragonfly...`` or ``fattree...`` text describes, or
    None when the text is neither; a one-line ValueError for a bad one."""
    m = _GENERATED.match(text)
    if not m:
        return None
    kind, body = m.group(1).lower(), m.group(2)
    if kind == "dragonfly":
        return _dragonfly(text, body)
    return _fat_tree(text, body)
