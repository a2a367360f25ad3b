"""Reading point files, machine maps and network files."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

from .._text import plain_suffix, read_text
from ._machine import MAP_OWNER, Machine

FREE = "."
#: the start of a GraphML node element, counted before the file is parsed
_GRAPHML_NODE = re.compile(r"<(?:\w+:)?node[\s/>]")


def parse_points(text: str, *, source: str = "points") -> np.ndarray:
    """Parse a points file: one point per line, coordinates separated by
    spaces or commas, ``#`` starts a comment.

    Examples
    --------
    >>> parse_points("# x y\\n0 0\\n1, 2  # a comment\\n").tolist()
    [[0.0, 0.0], [1.0, 2.0]]
    """
    rows, width = [], None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].replace(",", " ").split()
        if not line:
            continue
        try:
            values = [float(v) for v in line]
        except ValueError:
            raise ValueError(f"{source}, line {lineno}: not a number in {raw.strip()!r}") from None
        if not all(np.isfinite(values)):
            raise ValueError(f"{source}, line {lineno}: NaN or infinite coordinate in {raw.strip()!r}")
        if width is None:
            width = len(values)
        elif len(values) != width:
            raise ValueError(
                f"{source}, line {lineno}: {len(values)} coordinates, expected {width} like the first point"
            )
        rows.append(values)
    if not rows:
        raise ValueError(f"{source}: no points (only blank lines or comments)")
    return np.array(rows, dtype=np.float64)


def read_points(path: str | os.PathLike) -> np.ndarray:
    """Read a points file (see :func:`parse_points`); shape (n, d)."""
    return parse_points(read_text(path), source=str(path))


def parse_map(text: str, *, source: str = "map") -> Machine:
    """A mesh from a machine map, with the busy nodes it marks.

    ``.`` is a free node, any other visible character a busy one; row i of
    a block is y = i and column j is x = j. A 3-D machine is several blocks
    (z = 0, 1, ...) separated by blank lines. Trailing whitespace is
    ignored; every row and every layer must have the same size. Busy nodes
    are held by owner ``-2``.

    Examples
    --------
    >>> m = parse_map("..#\\n#..\\n")
    >>> m.shape, m.free_points().tolist()
    ((3, 2), [[0, 0], [1, 0], [1, 1], [2, 1]])
    """
    layers: list[list[tuple[int, str]]] = [[]]
    for lineno, raw in enumerate(text.splitlines(), start=1):
        row = raw.rstrip()
        if not row:
            if layers[-1]:
                layers.append([])
            continue
        if any(ch.isspace() for ch in row):
            raise ValueError(f"{source}, line {lineno}: whitespace inside a map row")
        layers[-1].append((lineno, row))
    if not layers[-1]:
        layers.pop()
    if not layers:
        raise ValueError(f"{source}: no map rows")
    width = len(layers[0][0][1])
    height = len(layers[0])
    for z, layer in enumerate(layers):
        if len(layer) != height:
            raise ValueError(f"{source}: layer {z} has {len(layer)} rows, expected {height} like layer 0")
        for lineno, row in layer:
            if len(row) != width:
                raise ValueError(f"{source}, line {lineno}: row has {len(row)} columns, expected {width}")
    shape = (width, height) if len(layers) == 1 else (width, height, len(layers))
    machine = Machine(shape)
    # ids run x fastest, then y, then z: the order of the characters in the file
    busy = np.flatnonzero([ch != FREE for layer in layers for _, row in layer for ch in row])
    machine.allocate(busy, owner=MAP_OWNER)
    return machine


def read_map(path: str | os.PathLike) -> Machine:
    """Read a machine map file (see :func:`parse_map`)."""
    return parse_map(read_text(path), source=str(path))


def read_graph(path: str | os.PathLike, *, max_nodes: int | None = None):
    """A NetworkX graph from an edge list, GraphML (``.graphml``) or JSON
    node-link (``.json``) file, plain or gzipped (``net.graphml.gz``: the
    format is told by the suffix before ``.gz``).

    ``max_nodes``, when given, refuses a file of more nodes with a one-line
    ValueError before the graph is built (an edge list: at the line that
    passes it; GraphML and JSON: from their node elements).

    An edge list has one link ``u v`` or ``u v length`` per line (``#``
    comments); lengths go to the edge attribute ``"length"`` (of repeated
    links the shortest counts).  Node-link JSON may hold its links under
    ``"links"`` (what ``networkx.node_link_data`` wrote by default before
    networkx 3.6) or ``"edges"`` (its default from 3.6 on).
    """
    import networkx as nx

    path = Path(path)
    text = read_text(path)
    suffix = plain_suffix(path)
    try:
        if suffix == ".graphml":
            _at_most(len(_GRAPHML_NODE.findall(text)), max_nodes, path)
            G = nx.parse_graphml(text)
        elif suffix == ".json":
            data = json.loads(text)
            if isinstance(data, dict) and isinstance(data.get("nodes"), list):
                _at_most(len(data["nodes"]), max_nodes, path)
            G = _node_link_graph(nx, data)
        else:
            G = _parse_edge_list(text, path, max_nodes)
    except (json.JSONDecodeError, nx.NetworkXError, KeyError, TypeError, AttributeError, SyntaxError) as exc:
        raise ValueError(f"{path}: not a {suffix or 'graph'} file networkx can read ({exc})") from None
    if G.number_of_nodes() == 0:
        raise ValueError(f"{path}: the graph has no node")
    return G


def _node_link_graph(nx, data):
    """``nx.node_link_graph`` on data whose links are under ``"links"`` or
    ``"edges"`` (the ``edges=`` keyword needs networkx 3.4, the floor in
    pyproject.toml)."""
    if isinstance(data, dict) and "links" not in data and "edges" in data:
        data = {**data, "links": data["edges"]}
    return nx.node_link_graph(data, edges="links")


def _at_most(n: int, max_nodes: int | None, path, line: int | None = None) -> None:
    """Refuse more than ``max_nodes`` nodes (an edge list: at the line that passes it)."""
    if max_nodes is not None and n > max_nodes:
        what = f"{path}: {n} nodes" if line is None else f"{path}:{line}: more than {max_nodes} nodes"
        raise ValueError(f"{what}; a network machine holds at most {max_nodes} (its distance matrix is dense)")


def _parse_edge_list(text: str, path, max_nodes: int | None = None):
    import networkx as nx

    G = nx.Graph()
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.replace(",", " ").split()
        if len(parts) not in (2, 3):
            raise ValueError(f"{path}:{lineno}: expected 'u v' or 'u v length', got {line!r}")
        u, v = (_label(x) for x in parts[:2])
        if len(parts) == 3:
            try:
                length = float(parts[2])
            except ValueError:
                raise ValueError(f"{path}:{lineno}: length must be a number, got {parts[2]!r}") from None
            if G.has_edge(u, v):
                length = min(length, G.edges[u, v].get("length", length))
            G.add_edge(u, v, length=length)
        else:
            G.add_edge(u, v)
        if max_nodes is not None and len(G) > max_nodes:
            _at_most(len(G), max_nodes, path, lineno)
    return G


def _label(text: str):
    """An integer when the text reads back the same ("7"), else the text ("07", "n7")."""
    try:
        value = int(text)
    except ValueError:
        return text
    return value if str(value) == text else text
