"""``parse_machine``: the one way from text to a :class:`Machine`."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from ._machine import DENSE_MAX, PAIRS_MAX, Machine
from ._specs import is_generated, parse_generated

__all__ = ["parse_machine"]

# "16x8", "8x8x8 torus", "8x8t", "16x8 mesh", "8x8 torus(tm)"
_SHAPE = re.compile(r"^\s*(\d+(?:\s*x\s*\d+)*)\s*(mesh|torus|t|m|torus\([tm]+\))?\s*$", re.IGNORECASE)
# "torus:8x8", "mesh:4x4x2"
_PREFIX = re.compile(r"^\s*(mesh|torus)\s*:\s*(\d+(?:\s*x\s*\d+)*)\s*$", re.IGNORECASE)

# "8x8 torus * 4", "8x8t*4 rows 0-3", "4x4 * 2 rows 0,2": processors per node
_PER_NODE = re.compile(r"^\s*(.+?)\s*\*\s*([+-]?\d+)\s*(?:rows?\s+(\S.*?))?\s*$", re.IGNORECASE)

_USAGE = ("a shape such as '16x8', '8x8x8 torus', '8x8t', 'torus:4x4', 'mesh:8x8', "
          "'8x8 torus * 4 rows 0-3' (processors per node), "
          "a generated network ('dragonfly', 'dragonfly:9,4,2,2', 'fattree:4'), "
          "a machine map file, a network file (.graphml, .json, edge list) or a Slurm topology.conf")


def parse_machine(spec, *, weight: str | None = None) -> Machine:
    """A machine from text or a file.

    Parameters
    ----------
    spec : str, os.PathLike or Machine
        A shape: ``"16x8"`` or ``"16x8 mesh"``, ``"8x8x8 torus"``,
        ``"8x8t"``, ``"torus:4x4"``, ``"mesh:8x8"``, ``"8x8 torus(tm)"``
        (wrap per axis: t wraps, m does not); a shape with processors per
        node: ``"8x8 torus * 4"`` (4 on every node), ``"8x8 torus * 4 rows
        0-3"`` (4 on each node of rows y = 0..3, none on the others, which
        still route; rows as ``0-3`` or ``0,2,4,6``), a network of one node
        per processor (:func:`processors_per_node`); a generated network:
        ``"dragonfly"`` (the defaults of :func:`dragonfly`),
        ``"dragonfly:G,R,N,L[,ARRANGEMENT]"`` (groups, routers per group,
        nodes per router, global links per router),
        ``"dragonfly:groups=9,routers=4,nodes=2,global=2,arrangement=absolute"``
        (any of the keywords), ``"fattree:K"`` or ``"fattree:k=K"``
        (:func:`fat_tree`; ``fat-tree`` is read too); or the path of a machine map
        (``.`` free, any other character busy: the busy nodes come busy), or
        of a network (``.graphml``, node-link ``.json``, or an edge list of
        ``u v [length]`` lines), or of a Slurm ``topology.conf``
        (:func:`read_topology`: tree or block topologies, host names as
        labels). A Machine is returned as it is.
    weight : str, optional
        For a network file: the edge attribute holding link lengths
        (default: hops; an edge list's lengths are the attribute
        ``"length"``, used when the list has any). Every edge must have
        it; any other ``spec`` (a shape, a generated network, a machine
        map) is refused with a weight, its links having no lengths to
        read (a Machine is returned as it is).

    Raises
    ------
    ValueError
        One line, when ``spec`` is none of these, or when ``weight`` is
        given for anything but a network file, or names an attribute that
        an edge of the file lacks (the message names the file, the
        attribute and such an edge).

    Examples
    --------
    >>> parse_machine("16x8"), parse_machine("4x4x2 torus")
    (Machine((16, 8), torus=False), Machine((4, 4, 2), torus=(True, True, True)))
    >>> parse_machine("torus:4x4").describe(), parse_machine("8x8 torus(tm)").torus
    ('4x4 torus', (True, False))
    >>> parse_machine("dragonfly:5,2,1,2").describe()
    'dragonfly:groups=5,routers=2,nodes=1,global=2,arrangement=absolute'
    >>> parse_machine("fattree:4").n, parse_machine("fattree:k=4").describe()
    (16, 'fattree:k=4')
    """
    if isinstance(spec, Machine):
        return spec
    if not isinstance(spec, (str, os.PathLike)):
        raise ValueError(f"`machine` must be {_USAGE}; got {type(spec).__name__}")
    if weight is not None and (not isinstance(weight, str) or not weight):
        raise ValueError(f"`weight` must be the name of an edge attribute, got {weight!r}")
    text = os.fspath(spec)
    m = _PREFIX.match(text)
    if m:
        _unweighted(weight, text, "a mesh or torus")
        return Machine(_sides(m.group(2)), torus=m.group(1).lower() == "torus")
    m = _SHAPE.match(text)
    if m:
        _unweighted(weight, text, "a mesh or torus")
        return Machine(_sides(m.group(1)), torus=_wrap(m.group(2), len(_sides(m.group(1)))))
    m = _PER_NODE.match(text)
    if m and not Path(text).is_file():
        _unweighted(weight, text, "a mesh or torus with processors per node")
        return _per_node(m.group(1), int(m.group(2)), m.group(3), text)
    if is_generated(text):  # "dragonfly:...", "fattree:K"
        _unweighted(weight, text, "a generated network")
        return parse_generated(text)
    path = Path(text)
    if path.is_file():
        return _read_file(path, weight)
    raise ValueError(f"`machine` must be {_USAGE}; got {text!r}")


def _unweighted(weight: str | None, text: str, what: str) -> None:
    """Refuse a ``weight`` for a machine that is not read from a network file."""
    if weight is not None:
        raise ValueError(f"`weight` names the link lengths of a network file; {text!r} is {what}, whose links all "
                         "have length 1")


def _per_node(base_text: str, count: int, rows: str | None, text: str) -> Machine:
    """``SHAPE * COUNT [rows LIST]``: a grid whose nodes hold COUNT processors each."""
    from ._generators import processors_per_node

    if count < 0:
        raise ValueError(f"`machine` {text!r}: the processor count per node must not be negative, got {count}")
    if count == 0:
        raise ValueError(f"`machine` {text!r}: the processor count per node must be at least 1")
    if _SHAPE.match(base_text) is None and _PREFIX.match(base_text) is None:
        raise ValueError(f"`machine` {text!r}: processors per node need a mesh or torus shape before '*', "
                         f"got {base_text!r}")
    base = parse_machine(base_text)
    if rows is None:
        try:
            return processors_per_node(base, count)  # the size is checked before anything is built
        except ValueError as err:
            raise ValueError(f"`machine` {text!r}: {err}") from None
    if base.ndim < 2:
        raise ValueError(f"`machine` {text!r}: rows need a machine of two or more axes")
    chosen = set()
    for piece in rows.replace(" ", "").split(","):
        lo, _, hi = piece.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ValueError(f"`machine` {text!r}: rows must be like 0-3 or 0,2,4, got {rows.strip()!r}")
        if int(hi or lo) >= base.shape[1]:  # before a range of any length is made
            raise ValueError(f"`machine` {text!r}: rows must lie in 0..{base.shape[1] - 1}, got {rows.strip()!r}")
        chosen.update(range(int(lo), int(hi or lo) + 1))
    if not chosen:
        raise ValueError(f"`machine` {text!r}: rows must lie in 0..{base.shape[1] - 1}, got {rows.strip()!r}")
    total = count * len(chosen) * (base.n // base.shape[1])
    if total > PAIRS_MAX:  # before a count per node
        raise ValueError(f"`machine` {text!r}: {total} processors; at most {PAIRS_MAX} (their distances are dense "
                         "and every pair of processors is a link)")
    counts = np.where(np.isin(base.coords[:, 1], sorted(chosen)), count, 0)
    return processors_per_node(base, counts)


def _sides(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in re.split(r"\s*[xX]\s*", text.strip()))


def _wrap(kind: str | None, d: int):
    kind = (kind or "mesh").lower()
    if kind.startswith("torus("):
        flags = kind[len("torus("):-1]
        if len(flags) != d:
            raise ValueError(f"`machine`: {kind} gives {len(flags)} wrap flags for {d} axes")
        return tuple(f == "t" for f in flags)
    return kind in ("torus", "t")


def _read_file(path: Path, weight: str | None) -> Machine:
    from .._text import plain_suffix, read_text
    from ._io import parse_map, read_graph
    from ._slurm import is_topology_text, parse_topology

    if plain_suffix(path) in (".graphml", ".json"):
        return _network(read_graph(path, max_nodes=DENSE_MAX), weight, path)
    text = read_text(path)
    if is_topology_text(text):  # Slurm's topology.conf: "SwitchName=..." or "BlockName=..." lines
        _unweighted(weight, str(path), "a Slurm topology.conf")
        return parse_topology(text, source=str(path))
    rows = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    if any(len(r.replace(",", " ").split()) > 1 for r in rows):  # "u v [length]": an edge list
        G = read_graph(path, max_nodes=DENSE_MAX)
        if weight is None and any("length" in d for _, _, d in G.edges(data=True)):
            weight = "length"  # the third column: on every line, or on none
        return _network(G, weight, path, edge_list=True)
    _unweighted(weight, str(path), "a machine map")
    return parse_map(text, source=str(path))


def _network(G, weight: str | None, path: Path, *, edge_list: bool = False) -> Machine:
    """The machine of a graph read from ``path``; every edge must hold ``weight``."""
    if weight is None:
        return Machine.from_graph(G)
    missing = [(u, v) for u, v, d in G.edges(data=True) if weight not in d]
    if not missing:
        return Machine.from_graph(G, weight=weight)
    u, v = missing[0]
    m = G.number_of_edges()
    if edge_list and weight == "length":
        lack = f"{len(missing)} of the {m} edges {'has' if len(missing) == 1 else 'have'} none"
        raise ValueError(f"{path}: edge ({u}, {v}) has no length, while other lines give one; give a length on "
                         f"every line or on none ({lack})")
    if len(missing) == m:
        held = sorted({str(k) for _, _, d in G.edges(data=True) for k in d})
        raise ValueError(f"{path}: no edge has the link length attribute {weight!r} (`weight`), edge ({u!r}, {v!r}) "
                         f"for one; the edges' attributes: {', '.join(map(repr, held)) if held else 'none'}")
    raise ValueError(f"{path}: edge ({u!r}, {v!r}) has no link length attribute {weight!r} (`weight`); "
                     f"{len(missing)} of the {m} edges lack it")
