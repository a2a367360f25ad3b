"""Exact k-subset on a tree of switches, by dynamic programming over the tree.

On a machine whose hosts hang on a tree of switches (a Slurm tree
topology, a fat tree seen as host - edge switch - pod - core, any tree a
user gives; :attr:`optalloc.machine.Machine.tree`), the distance of two
hosts is the length of the one path between them. A link e (from a vertex
to its parent) lies on the path of a pair of chosen hosts exactly when one
of the two is below e and the other is not, so for a set S of k hosts

    W(S) = sum_e length(e) c_e (k - c_e),

with ``c_e`` the number of hosts of S below e. W depends on S only through
these counts. Write ``f_v(j)`` for the least sum of ``length(e) c_e (k -
c_e)`` over the links inside the subtree of v, over the sets of j free
hosts of that subtree. The links inside the subtree of v are those of its
children c (each with ``c_e = j_c``, the hosts chosen below c) and those
inside their subtrees, which depend only on the hosts chosen there; so

    f_v(j) = min over j_v + sum_c j_c = j of sum_c [f_c(j_c) + length(c) j_c (k - j_c)],

with ``j_v`` in {0, 1} when v is itself a free host (else 0) and ``0 <= j_c
<= min(k, free hosts below c)``. This is exact: every set of j hosts below
v splits into such counts, and the cost of each part depends on its own
subtree only. The optimum is ``f_root(k)``. The children are merged one at
a time (a min-plus product, capped at k), and the split chosen at each
merge kept, so the set is recovered from the root down.

Children that are free hosts with no children of their own (the leaves of
a switch) cost ``length(c) (k - 1)`` each when chosen and nothing
otherwise, so the best t of them are the t with the shortest links: they
are taken together, in order of link length and then node id (so an edge
switch whose links are equal gives its lowest ids), in O(m log m) for m
leaves. The other children go through the min-plus merge, each merge
costing (entries so far) x (entries of the child), both capped at k + 1;
summed over the tree this is O(N k) for N free hosts (the usual count of
the tree knapsack: two groups of hosts are paired in a merge only while
both hold fewer than k, so each host meets at most O(k) others in small
merges, and a merge of two full tables happens at most N / k times). Ties
go to the split that gives the later child fewer hosts, so the earlier
(lower-numbered) children and the leaves fill first: the answer is
deterministic. On ``fattree:32`` (8,192 hosts, 512 edge switches, 32 pods)
with half the hosts free and k = 1,024 the work is about 32 merges of
1,025 x 257 entries at the core.

With integer link lengths every sum is an integer below 2^53 and the
floating-point minimum is exact.
"""

from __future__ import annotations

import time

import numpy as np

from ..._jit import njit
from ..._subset import metric_subset_result
from ..._validate import as_int

__all__ = ["NETWORK_TREE_MAX_FREE", "network_tree", "tree_exact", "tree_subset"]


@njit(cache=True)
def _leaf_order(v, child, child_ptr, is_leaf, length):  # pragma: no cover - compiled
    """The free leaf children of v, by link length then id (a stable sort of the ascending ids)."""
    m = 0
    for p in range(child_ptr[v], child_ptr[v + 1]):
        if is_leaf[child[p]]:
            m += 1
    ids = np.empty(m, dtype=np.int64)
    lens = np.empty(m, dtype=np.float64)
    m = 0
    for p in range(child_ptr[v], child_ptr[v + 1]):
        c = child[p]
        if is_leaf[c]:
            ids[m] = c
            lens[m] = length[c]
            m += 1
    for i in range(1, m):
        if lens[i] < lens[i - 1]:
            return ids[np.argsort(lens, kind="mergesort")]
    return ids  # already by length (equal links: a switch's leaves), then id


@njit(cache=True)
def _tree_dp(order, child, child_ptr, length, free, k):  # pragma: no cover - compiled
    """The least W of k free hosts and the hosts, by the merge of the module notes.

    ``free`` marks the free vertices (hosts only). Returns (W, chosen ids)."""
    V = order.shape[0]
    cnt = np.zeros(V, dtype=np.int64)
    for t in range(V - 1, -1, -1):
        v = order[t]
        s = 1 if free[v] else 0
        for p in range(child_ptr[v], child_ptr[v + 1]):
            s += cnt[child[p]]
        cnt[v] = s
    is_leaf = np.zeros(V, dtype=np.bool_)
    for v in range(V):
        is_leaf[v] = free[v] and child_ptr[v] == child_ptr[v + 1]
    cap = np.minimum(cnt, k)
    # offsets of each vertex's table f_v, and of each merged child's choices
    foff = np.zeros(V + 1, dtype=np.int64)
    for v in range(V):
        foff[v + 1] = foff[v] + cap[v] + 1
    coff = np.full(V, -1, dtype=np.int64)
    total = 0
    for v in range(V):
        acc = 1 if free[v] else 0
        for p in range(child_ptr[v], child_ptr[v + 1]):
            if is_leaf[child[p]]:
                acc += 1
        acc = min(acc, k)
        for p in range(child_ptr[v], child_ptr[v + 1]):
            c = child[p]
            if cnt[c] > 0 and not is_leaf[c]:
                acc = min(k, acc + cap[c])
                coff[c] = total
                total += acc + 1
    f = np.empty(foff[V], dtype=np.float64)
    choice = np.empty(total, dtype=np.int32)
    cur = np.empty(k + 1, dtype=np.float64)
    nxt = np.empty(k + 1, dtype=np.float64)
    g = np.empty(k + 1, dtype=np.float64)
    inf = np.inf
    for t in range(V - 1, -1, -1):
        v = order[t]
        if cnt[v] == 0 or child_ptr[v] == child_ptr[v + 1]:  # nothing below, or a host alone: f = 0
            for j in range(cap[v] + 1):
                f[foff[v] + j] = 0.0
            continue
        # the host v itself (cost 0) and the leaves, cheapest first
        size = 0
        cur[0] = 0.0
        if free[v]:
            size = 1
            cur[1] = 0.0
        leaves = _leaf_order(v, child, child_ptr, is_leaf, length)
        for i in range(leaves.shape[0]):
            if size == k:
                break
            cur[size + 1] = cur[size] + length[leaves[i]] * (k - 1)
            size += 1
        for p in range(child_ptr[v], child_ptr[v + 1]):
            c = child[p]
            if cnt[c] == 0 or is_leaf[c]:
                continue
            cc = cap[c]
            lc = length[c]
            for b in range(cc + 1):
                g[b] = f[foff[c] + b] + lc * b * (k - b)
            new = min(k, size + cc)
            base = coff[c]
            for j in range(new + 1):
                best = inf
                arg = 0
                lo = max(0, j - size)
                hi = min(j, cc)
                for b in range(lo, hi + 1):
                    val = cur[j - b] + g[b]
                    if val < best:
                        best = val
                        arg = b
                nxt[j] = best
                choice[base + j] = arg
            for j in range(new + 1):
                cur[j] = nxt[j]
            size = new
        for j in range(size + 1):
            f[foff[v] + j] = cur[j]
    # recover the set from the root down
    need = np.zeros(V, dtype=np.int64)
    root = order[0]
    need[root] = k
    out = np.empty(k, dtype=np.int64)
    m = 0
    for t in range(V):
        v = order[t]
        j = need[v]
        if j == 0:
            continue
        for p in range(child_ptr[v + 1] - 1, child_ptr[v] - 1, -1):
            c = child[p]
            if cnt[c] == 0 or is_leaf[c]:
                continue
            b = choice[coff[c] + j]
            need[c] = b
            j -= b
        if free[v] and j > 0:
            out[m] = v
            m += 1
            j -= 1
        if j > 0 and child_ptr[v] < child_ptr[v + 1]:
            leaves = _leaf_order(v, child, child_ptr, is_leaf, length)
            for i in range(j):
                out[m] = leaves[i]
                m += 1
    return f[foff[root] + k], out[:m]


def tree_subset(tree, free, k) -> tuple[np.ndarray, float]:
    """The k free hosts of a tree of switches with the least W, and that W.

    Parameters
    ----------
    tree : SwitchTree
        The tree (:attr:`optalloc.machine.Machine.tree`): hosts are
        vertices ``0 .. n-1``.
    free : array_like of int
        The free hosts (distinct ids in ``0 .. n-1``).
    k : int
        1 <= k <= number of free hosts.

    Returns
    -------
    nodes : (k,) int array
        The chosen hosts, ascending.
    weight : float
        Their W, read back from the tree (``tree.weight(nodes)``).

    Raises
    ------
    ValueError
        One line: k out of range, or a free id that is not a host.

    Examples
    --------
    >>> import networkx as nx
    >>> from optalloc.machine import Machine
    >>> G = nx.Graph([("top", "s1"), ("top", "s2"), ("s1", "a"), ("s1", "b"), ("s2", "c"), ("s2", "d")])
    >>> m = Machine.from_tree(G, ["a", "b", "c", "d"])
    >>> nodes, w = tree_subset(m.tree, [0, 2, 3], 2)
    >>> nodes.tolist(), w  # c and d, on one switch
    ([2, 3], 2.0)
    """
    free = np.asarray(free, dtype=np.int64).reshape(-1)
    if len(free) and (free.min() < 0 or free.max() >= tree.n):
        raise ValueError(f"free hosts must be ids 0 .. {tree.n - 1}")
    mask = np.zeros(tree.V, dtype=np.bool_)
    mask[free] = True
    n_free = int(np.count_nonzero(mask))
    k = as_int(k, "k")
    if not 1 <= k <= n_free:
        raise ValueError(f"`k` must be between 1 and the number of free hosts ({n_free}), got {k}")
    _, nodes = _tree_dp(tree.order, tree.child, tree.child_ptr, tree.length, mask, k)
    nodes = np.sort(nodes)
    return nodes, tree.weight(nodes)


def tree_exact(machine, k):
    """Exact k-subset on a machine whose hosts hang on a tree of switches.

    The dynamic program over the tree of the module notes: polynomial,
    O(N k) merges for N free hosts, with the set recovered from the root
    down. :func:`~optalloc.ksubset.solve` runs it for ``method="exact"``
    on any machine whose :attr:`~optalloc.machine.Machine.tree` is not
    None (a tree built with ``Machine.from_tree``, a fat tree).

    Parameters
    ----------
    machine : Machine
        A tree machine (``machine.tree`` is not None); its free nodes are
        the candidates.
    k : int
        1 <= k <= number of free nodes.

    Returns
    -------
    SubsetResult
        ``status="optimal"``, ``bound == objective``; ``indices`` are node
        ids, ascending.

    Raises
    ------
    ValueError
        One line: not a tree machine, or k out of range.

    Examples
    --------
    >>> from optalloc.machine import fat_tree
    >>> from optalloc.ksubset import tree_exact
    >>> m = fat_tree(4)  # 16 hosts, 2 per edge switch, 4 per pod
    >>> _ = m.allocate([0, 2], owner=1)
    >>> r = tree_exact(m, 3)
    >>> r.indices.tolist(), r.objective, r.status
    ([4, 5, 6], 10.0, 'optimal')
    """
    start = time.perf_counter()
    tree = getattr(machine, "tree", None)
    if tree is None:
        raise ValueError("`machine` is not a tree of switches (its `tree` is None): use method 'exact'")
    k = as_int(k, "k")
    n = machine.n_free
    if not 1 <= k <= n:
        raise ValueError(f"`k` must be between 1 and the number of free nodes ({n}) of the "
                         f"{machine.describe()}, got {k}")
    nodes, w = tree_subset(tree, machine.free_ids(), k)
    integral = bool(np.all(tree.length == np.round(tree.length)))
    return metric_subset_result(None, np.arange(k), ids=nodes, coords=None, method="exact", start=start,
                                bound=w, termination="optimal", exact=True, weight=(w, integral),
                                message="dynamic program over the tree of switches",
                                extra={"tree": True, "switches": int(tree.V - tree.n)})



#: free nodes up to which a network whose links form a tree is checked against the tree's distances
#: (the check reads the (n, n) distances of the free nodes, as the general exact solver would)
NETWORK_TREE_MAX_FREE = 4096


def network_tree(machine):
    """The machine as a tree of switches when it is a network whose links
    form a tree on its nodes (a path, a star, any tree read from a file):
    a ``Machine.from_tree`` of its links with the same free nodes, once
    its distances between the free nodes are checked to be the machine's;
    else None (not a network, not a tree, other distances, more than
    :data:`NETWORK_TREE_MAX_FREE` free nodes).

    Examples
    --------
    >>> import networkx as nx
    >>> from optalloc.machine import Machine
    >>> t = network_tree(Machine.from_graph(nx.path_graph(5)))
    >>> t.tree is not None, t.n_free
    (True, 5)
    >>> network_tree(Machine.from_graph(nx.cycle_graph(5))) is None
    True
    """
    from ...machine import Machine

    if machine.kind != "network" or machine.tree is not None or machine.hierarchy is not None:
        return None
    free = machine.free_ids()
    if len(free) > NETWORK_TREE_MAX_FREE:
        return None
    try:
        edges = machine.edges
    except ValueError:  # too many nodes to list the pairs of a structured network
        return None
    n = machine.n
    if edges is None or len(edges) != n - 1:
        return None
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(edges)
    if not nx.is_tree(G):
        return None
    try:
        t = Machine.from_tree(G, list(range(n)), weight="weight")
    except ValueError:  # a link of length 0
        return None
    if not np.allclose(_columns(t.tree, free), machine.distances(free), rtol=1e-12, atol=0.0):
        return None
    busy = np.flatnonzero(~np.asarray(machine.free, dtype=bool))
    if len(busy):
        t.allocate(busy, owner=-2)
    return t


def _columns(tree, cols) -> np.ndarray:
    """The tree distances between the vertices ``cols`` (ascending), row by
    row from the parent's row in O(V |cols|): a child's row is its parent's
    plus the link, less twice the link for the columns below the child
    (a contiguous run in preorder)."""
    V = tree.V
    tin = np.empty(V, dtype=np.int64)
    tout = np.empty(V, dtype=np.int64)
    stack, clock = [(tree.root, False)], 0
    while stack:  # preorder entry and exit times
        v, done = stack.pop()
        if done:
            tout[v] = clock
            continue
        tin[v] = clock
        clock += 1
        stack.append((v, True))
        stack.extend((int(c), False) for c in tree.child[tree.child_ptr[v]:tree.child_ptr[v + 1]][::-1])
    by = np.argsort(tin[cols], kind="stable")
    keys = tin[cols][by]
    rows = np.empty((V, len(cols)))
    rows[tree.root] = tree.depth[cols][by]
    for v in tree.order[1:]:
        p, length = tree.parent[v], tree.length[v]
        lo, hi = np.searchsorted(keys, [tin[v], tout[v]])
        np.add(rows[p], length, out=rows[v])
        rows[v, lo:hi] -= 2.0 * length
    out = np.empty((len(cols), len(cols)))
    out[:, by] = rows[cols][:, :]
    return out
