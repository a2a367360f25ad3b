"""Slurm's ``topology.conf`` and node lists: machines whose labels are host names.

Slurm describes a cluster's network in ``topology.conf``; two of its forms
are read here into a :class:`Machine` on a tree of switches
(:meth:`Machine.from_tree`), so that the exact solvers and the
certificates of optalloc run on the machine Slurm schedules:

``topology/tree``
    One line per switch, ``SwitchName=NAME [Switches=LIST] [Nodes=LIST]
    [LinkSpeed=N]``: a switch and its child switches or nodes, the lists
    in Slurm's hostlist expressions (``s[0-3]``, ``cn[001-032,040]``).
    The hosts hang from their leaf switches, the switches from their
    parents; the distance of two hosts is the number of links between
    them (host - leaf switch - ... - switch - ... - host): 2 under one leaf
    switch, 4 under one switch above two leaves, and so on. ``LinkSpeed``
    is read and not used (Slurm does not use it either). Switches with no
    common parent (several top switches, which Slurm allows) are joined
    under one added root switch named ``(root)``, one link above each top
    switch: two hosts under different top switches are then the sum of
    their depths below the root apart.
``topology/block``
    One line per block, ``BlockName=NAME Nodes=LIST``, and optionally
    ``BlockSizes=B0,B1,...`` (the planning base block size, then the
    larger block sizes that Slurm enforces, each a power of two times
    B0). A block is a set of nodes with fast links among them (one
    switch, or one NVLink domain) and blocks meet through a slower
    network above them, so the machine is a tree of two levels: the nodes
    of a block under one block switch, the block switches under one root;
    two nodes of one block are 2 links apart, of two blocks 4. The
    aggregates of 2, 4, ... consecutive blocks that ``BlockSizes`` names
    are a rule of Slurm's placement (which blocks a job may share), not
    links of the network, so they are not levels of the tree; the
    ``slurm:block`` allocator reads them from ``machine.tree.block_sizes``.

Node ids follow the order in which the nodes first appear in the file.
Parameter names are case insensitive, ``#`` starts a comment and a line
ending in ``\\`` continues on the next, as in Slurm's configuration files.

Node lists (a job's ``NodeList``, ``cn[001-004,017]``) are read with the
``python-hostlist`` package: :func:`parse_nodelist` gives the node ids of
an expression on a machine whose labels are host names, and
:func:`format_nodelist` writes ids back as one expression.
"""

from __future__ import annotations

import itertools
import os

import hostlist
import numpy as np

__all__ = ["format_nodelist", "is_topology_text", "parse_nodelist", "parse_topology", "read_topology"]

#: the name of the switch added above several top switches
ADDED_ROOT = "(root)"
_TREE_KEYS = {"switchname", "switches", "nodes", "linkspeed"}
_BLOCK_KEYS = {"blockname", "nodes"}


def _expand(text: str, where: str) -> list[str]:
    """A hostlist expression's names, in order, repeats kept; ValueError naming ``where``."""
    try:
        return hostlist.expand_hostlist(text, allow_duplicates=True)
    except hostlist.BadHostlist as err:
        raise ValueError(f"{where}: bad hostlist expression {text!r} ({err})") from None


def _logical_lines(text: str):
    """``(line number, fields)`` of every line that is not blank: comments
    dropped, a trailing backslash joining the next line (numbered as the
    first)."""
    pending, start = "", 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not pending:
            start = lineno
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = pending + line, ""
        if line.strip():
            yield start, line.split()
    if pending.strip():
        yield start, pending.split()


def _fields(words, lineno: int, source: str, allowed) -> dict[str, str]:
    out: dict[str, str] = {}
    for word in words:
        key, eq, value = word.partition("=")
        key = key.lower()
        if not eq or not value:
            raise ValueError(f"{source}: line {lineno}: expected NAME=VALUE, got {word!r}")
        if key not in allowed:
            raise ValueError(f"{source}: line {lineno}: unknown parameter {word.partition('=')[0]!r} (this "
                             f"topology reads {', '.join(sorted(allowed))})")
        if key in out:
            raise ValueError(f"{source}: line {lineno}: {word.partition('=')[0]} is given twice")
        out[key] = value
    return out


def is_topology_text(text: str) -> bool:
    """Whether ``text`` reads as a ``topology.conf`` (its first line that is
    not blank or a comment starts with ``SwitchName=``, ``BlockName=`` or
    ``BlockSizes=``)."""
    for _, words in _logical_lines(text):
        return words[0].lower().startswith(("switchname=", "blockname=", "blocksizes="))
    return False


def parse_topology(text: str, *, source: str = "topology.conf"):
    """The machine of a Slurm ``topology.conf`` given as text.

    Parameters
    ----------
    text : str
        The file's text: ``SwitchName=`` lines (topology/tree) or
        ``BlockName=`` lines with an optional ``BlockSizes=`` line
        (topology/block), not both.
    source : str
        The name messages give the text.

    Returns
    -------
    Machine
        A machine on a tree of switches (:meth:`Machine.from_tree`) whose
        labels are the host names, in the order they first appear; its
        ``tree.switch_labels`` are the switch (block) names.

    Raises
    ------
    ValueError
        One line naming the line of the text: a switch or block named
        twice, a switch or node under two parents, a cycle of switches, a
        switch that is listed and never defined, a switch without children,
        a name used for a switch and a node, a bad hostlist expression, an
        unknown parameter, bad ``BlockSizes``.

    Notes
    -----
    See the module's text for the distances (hops between hosts on the
    tree; an added root above several top switches; blocks as a tree of
    two levels).

    Examples
    --------
    >>> m = parse_topology('''
    ... SwitchName=s0 Nodes=cn[1-2]
    ... SwitchName=s1 Nodes=cn[3-4]
    ... SwitchName=top Switches=s[0-1]
    ... ''')
    >>> m.labels, m.pair_distances([0, 0], [1, 2]).tolist()
    (('cn1', 'cn2', 'cn3', 'cn4'), [2.0, 4.0])
    >>> b = parse_topology("BlockName=b1 Nodes=n[1-2]\\nBlockName=b2 Nodes=n[3-4]\\nBlockSizes=2,4")
    >>> b.pair_distances([0, 0], [1, 2]).tolist(), b.tree.block_sizes
    ([2.0, 4.0], (2, 4))
    """
    if not isinstance(text, str):
        raise ValueError(f"`text` must be the text of a topology.conf, got {type(text).__name__}")  # noqa: TRY004
    lines = list(_logical_lines(text))
    if not lines:
        raise ValueError(f"{source}: no SwitchName= or BlockName= line")
    kinds = {words[0].partition("=")[0].lower() for _, words in lines}
    if "switchname" in kinds and kinds & {"blockname", "blocksizes"}:
        raise ValueError(f"{source}: both SwitchName= (topology/tree) and BlockName= (topology/block) lines; a "
                         "topology.conf describes one of them")
    if "switchname" in kinds:
        return _tree(lines, source)
    return _blocks(lines, source)


def read_topology(path):
    """The machine of a Slurm ``topology.conf`` file (:func:`parse_topology`).

    Parameters
    ----------
    path : str or os.PathLike
        The file (gzipped or not).

    Returns
    -------
    Machine
        As :func:`parse_topology` gives it; messages name the file.

    Raises
    ------
    ValueError
        One line: no such file, or what :func:`parse_topology` refuses.

    Examples
    --------
    >>> from optalloc import instance_path
    >>> m = read_topology(instance_path("topology.conf"))
    >>> m.n, m.labels[:2], m.tree.switch_labels[-3:]
    (128, ('cn001', 'cn002'), ('top0', 'top1', 'core'))
    """
    from .._text import read_text

    path = os.fspath(path)
    return parse_topology(read_text(path), source=str(path))


def _tree(lines, source: str):
    defined: dict[str, int] = {}  # switch -> its line
    kids: dict[str, list[str]] = {}
    hosts: list[str] = []
    host_line: dict[str, tuple[str, int]] = {}  # host -> (its switch, the line)
    parent: dict[str, tuple[str, int]] = {}  # switch -> (its parent, the line)
    listed: dict[str, int] = {}  # switch -> first line listing it as a child
    for lineno, words in lines:
        f = _fields(words, lineno, source, _TREE_KEYS)
        if "switchname" not in f:
            raise ValueError(f"{source}: line {lineno}: a line of topology/tree starts with SwitchName=, got "
                             f"{words[0]!r}")
        name = f["switchname"]
        where = f"{source}: line {lineno}"
        if name in defined:
            raise ValueError(f"{where}: switch {name!r} is named twice (first on line {defined[name]})")
        defined[name] = lineno
        if "switches" not in f and "nodes" not in f:
            raise ValueError(f"{where}: switch {name!r} has no Switches= or Nodes= (no children)")
        if "linkspeed" in f:
            try:
                float(f["linkspeed"])
            except ValueError:
                raise ValueError(f"{where}: LinkSpeed must be a number, got {f['linkspeed']!r}") from None
        children = []
        for child in _expand(f.get("switches", ""), where):
            if child in parent:
                other, at = parent[child]
                raise ValueError(f"{where}: switch {child!r} has two parents, {other!r} (line {at}) and {name!r}")
            parent[child] = (name, lineno)
            listed.setdefault(child, lineno)
            children.append(child)
        for host in _expand(f.get("nodes", ""), where):
            if host in host_line:
                other, at = host_line[host]
                raise ValueError(f"{where}: node {host!r} is under two switches, {other!r} (line {at}) and "
                                 f"{name!r}")
            host_line[host] = (name, lineno)
            hosts.append(host)
            children.append(host)
        kids[name] = children
    for child, lineno in listed.items():
        if child not in defined:
            raise ValueError(f"{source}: line {lineno}: switch {child!r} is listed under {parent[child][0]!r} and "
                             "never defined (no SwitchName= line)")
    both = [h for h in hosts if h in defined]
    if both:
        raise ValueError(f"{source}: line {host_line[both[0]][1]}: {both[0]!r} names a node and a switch")
    for name in defined:  # walk up from every switch: a cycle never reaches a top switch
        seen, v = {name}, name
        while v in parent:
            v = parent[v][0]
            if v in seen:
                raise ValueError(f"{source}: line {defined[v]}: switch {v!r} is in a cycle of switches (each "
                                 "listed under the next)")
            seen.add(v)
    if not hosts:
        raise ValueError(f"{source}: no switch lists any Nodes=")
    tops = [s for s in defined if s not in parent]
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(hosts)
    G.add_nodes_from(defined)  # switches in file order
    for name, children in kids.items():
        G.add_edges_from((name, c) for c in children)
    root = tops[0]
    if len(tops) > 1:
        root = ADDED_ROOT
        while root in G:
            root = "(" + root + ")"
        G.add_edges_from((root, t) for t in tops)
    from ._machine import Machine

    m = Machine.from_tree(G, hosts, root=root)
    m._text = f"Slurm tree topology of {len(hosts)} nodes and {len(defined)} switches" + (
        f" ({len(tops)} top switches under an added root)" if len(tops) > 1 else "")
    return m


def _blocks(lines, source: str):
    blocks: dict[str, list[str]] = {}
    block_line: dict[str, int] = {}
    host_line: dict[str, tuple[str, int]] = {}
    hosts: list[str] = []
    sizes, sizes_line = None, 0
    for lineno, words in lines:
        where = f"{source}: line {lineno}"
        head = words[0].partition("=")[0].lower()
        if head == "blocksizes":
            if len(words) != 1:
                raise ValueError(f"{where}: BlockSizes= stands on a line of its own")
            if sizes is not None:
                raise ValueError(f"{where}: BlockSizes is given twice (first on line {sizes_line})")
            sizes, sizes_line = _block_sizes(words[0].partition("=")[2], where), lineno
            continue
        f = _fields(words, lineno, source, _BLOCK_KEYS)
        if "blockname" not in f:
            raise ValueError(f"{where}: a line of topology/block starts with BlockName= or BlockSizes=, got "
                             f"{words[0]!r}")
        name = f["blockname"]
        if name in blocks:
            raise ValueError(f"{where}: block {name!r} is named twice (first on line {block_line[name]})")
        if "nodes" not in f:
            raise ValueError(f"{where}: block {name!r} has no Nodes=")
        members = _expand(f["nodes"], where)
        for host in members:
            if host in host_line:
                other, at = host_line[host]
                raise ValueError(f"{where}: node {host!r} is in two blocks, {other!r} (line {at}) and {name!r}")
            host_line[host] = (name, lineno)
            hosts.append(host)
        blocks[name], block_line[name] = members, lineno
    if not blocks:
        raise ValueError(f"{source}: BlockSizes= without any BlockName= line")
    if sizes is not None:
        small = [b for b, members in blocks.items() if len(members) < sizes[0]]
        if small:
            raise ValueError(f"{source}: line {block_line[small[0]]}: block {small[0]!r} has "
                             f"{len(blocks[small[0]])} nodes, fewer than the base block size {sizes[0]} "
                             f"(BlockSizes, line {sizes_line})")
    names = set(hosts)
    clash = [b for b in blocks if b in names]
    if clash:
        raise ValueError(f"{source}: line {block_line[clash[0]]}: {clash[0]!r} names a block and a node")
    n, nb = len(hosts), len(blocks)
    import networkx as nx

    root = ADDED_ROOT
    while root in names or root in blocks:
        root = "(" + root + ")"
    G = nx.Graph()
    G.add_nodes_from(hosts)
    G.add_nodes_from(blocks)
    G.add_node(root)
    for name, members in blocks.items():
        G.add_edges_from((name, h) for h in members)
        G.add_edge(root, name)
    from ._machine import Machine

    m = Machine.from_tree(G, hosts, root=root)
    m.tree.block_sizes = sizes if sizes is not None else None
    m._text = f"Slurm block topology of {n} nodes in {nb} blocks"
    return m


def _block_sizes(text: str, where: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"{where}: BlockSizes must be positive integers separated by commas, got {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise ValueError(f"{where}: BlockSizes must be positive integers separated by commas, got {text!r}")
    for a, b in itertools.pairwise(sizes):
        ratio = b // sizes[0]
        if b % sizes[0] or ratio & (ratio - 1) or b <= a:
            raise ValueError(f"{where}: each of BlockSizes must be a power of two times the first and larger than "
                             f"the one before, got {text!r}")
    return sizes


def _host_index(machine) -> dict[str, int]:
    if machine.labels is None:
        return {str(i): i for i in range(machine.n)}
    return {str(label): i for i, label in enumerate(machine.labels)}


def parse_nodelist(machine, text: str) -> np.ndarray:
    """The node ids of a Slurm node list on ``machine``, in the list's order.

    Parameters
    ----------
    machine : Machine
        A machine whose labels name its nodes (one read from a
        ``topology.conf``, a network file or a generated network); on a
        machine without labels (a mesh or torus) the names are node ids.
    text : str
        A hostlist expression, ``"cn[001-004,017]"``, ``"cn001,cn007"``,
        ``"[0-3]"`` (node labels or ids that are numbers).

    Raises
    ------
    ValueError
        One line: a malformed expression, a name that is not a node of the
        machine, a node named twice, an empty list.

    Examples
    --------
    >>> from optalloc import instance_path
    >>> m = read_topology(instance_path("topology.conf"))
    >>> parse_nodelist(m, "cn[001-004,017]").tolist()
    [0, 1, 2, 3, 16]
    """
    if not isinstance(text, str):
        raise ValueError(  # noqa: TRY004
            f"a node list must be a hostlist expression such as 'cn[001-004]', got {text!r}")
    names = _expand(text.strip(), "node list")
    if not names:
        raise ValueError(f"node list {text!r} names no node")
    index = _host_index(machine)
    out = np.empty(len(names), dtype=np.int64)
    for t, name in enumerate(names):
        i = index.get(name)
        if i is None:
            raise ValueError(f"node list {text!r}: {name!r} is not a node of the {machine.describe()}")
        out[t] = i
    if len(np.unique(out)) != len(out):
        _, first, counts = np.unique(out, return_index=True, return_counts=True)
        twice = names[int(first[np.argmax(counts > 1)])]
        raise ValueError(f"node list {text!r} names {twice!r} twice")
    return out


def format_nodelist(machine, nodes) -> str:
    """One hostlist expression of the nodes ``nodes`` of ``machine`` (their labels).

    Raises
    ------
    ValueError
        A node id out of range, or labels that a hostlist cannot hold
        (a dragonfly's ``(group, router, node)``).

    Examples
    --------
    >>> from optalloc import instance_path
    >>> m = read_topology(instance_path("topology.conf"))
    >>> format_nodelist(m, [0, 1, 2, 3, 16])
    'cn[001-004,017]'
    """
    nodes = np.asarray(nodes, dtype=np.int64).reshape(-1)
    if len(nodes) and (nodes.min() < 0 or nodes.max() >= machine.n):
        raise ValueError(f"`nodes` must be node ids 0 .. {machine.n - 1}")
    labels = [str(machine.labels[i]) if machine.labels is not None else str(i) for i in nodes.tolist()]
    try:
        return hostlist.collect_hostlist(labels)
    except hostlist.BadHostlist as err:
        raise ValueError(f"the labels of the {machine.describe()} are not host names a node list can hold "
                         f"({labels[0]!r} for one: {err})") from None
