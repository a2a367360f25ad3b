"""The dragonfly allocators against plain node-by-node loops of their rules.

Every allocator returns k distinct free nodes; the deterministic ones give
exactly the nodes of a reference written as a loop over node ids in the
words of docs/networks.md (SST's scheduler element); the random ones keep
their defining property (one group or router when the first draw holds the
job) and repeat with a seed.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from optalloc.machine import Machine, dragonfly, fat_tree, processors_per_node
from optalloc.sim import (
    DRAGONFLY_ALLOCATORS,
    DragonflyLayout,
    check_allocator,
    dragonfly_layout,
    parse_allocator,
)

#: small dragonflies: (groups, routers, nodes, global_links, arrangement)
SHAPES = [(9, 4, 2, 2, "absolute"), (5, 2, 3, 2, "relative"), (3, 2, 1, 1, "absolute"), (5, 2, 2, 2, "circulant"),
          (4, 3, 2, 1, "absolute")]


def states(rng, shape, count):
    """(machine, busy mask) pairs: the machine empty, then random busy sets."""
    m = dragonfly(*shape)
    out = [(m, np.zeros(m.n, dtype=bool))]
    for _ in range(count):
        busy = rng.random(m.n) < rng.choice([0.2, 0.5, 0.8])
        mm = m.copy_empty()
        if busy.any():
            mm.allocate(np.flatnonzero(busy), owner=1)
        out.append((mm, busy))
    return out


# ---------------------------------------------------------------- references: one node id at a time


def ref_simple_spread(free, G, A, P, k):
    order = [(g * A + r) * P + p for r in range(A) for g in range(G) for p in range(P)]
    return [i for i in order if free[i]][:k]


def ref_rr_node(free, G, A, P, k):
    taken, g, out = set(), 0, []
    while len(out) < k:
        cand = [i for i in range(g * A * P, (g + 1) * A * P) if free[i] and i not in taken]
        if cand:
            out.append(cand[0])
            taken.add(cand[0])
        g = (g + 1) % G
    return out


def ref_rr_router(free, G, A, P, k):
    taken, g, out = set(), 0, []
    while len(out) < k:
        for r in range(A):
            nodes = [i for i in range((g * A + r) * P, (g * A + r + 1) * P) if free[i] and i not in taken]
            if nodes:
                for i in nodes[: k - len(out)]:
                    out.append(i)
                    taken.add(i)
                break
        g = (g + 1) % G
    return out


def router_free(free, A, P, G, taken=()):
    return [[i for i in range(r * P, (r + 1) * P) if free[i] and i not in taken] for r in range(G * A)]


def ref_slurm(free, G, A, P, k):
    routers = router_free(free, A, P, G)
    if k <= P:
        fit = [r for r in range(G * A) if len(routers[r]) >= k]
        if fit:
            best = min(fit, key=lambda r: (len(routers[r]), r))
            return routers[best][:k]
    out, taken = [], set()
    while len(out) < k:
        routers = router_free(free, A, P, G, taken)
        best = min((r for r in range(G * A) if routers[r]), key=lambda r: (len(routers[r]), r))
        for i in routers[best][: k - len(out)]:
            out.append(i)
            taken.add(i)
    return out


def ref_jokanovic(free, G, A, P, k):
    size = A * P
    ids = [i for i in range(G * size) if free[i]]
    if k > size:
        return ids[::-1][:k]
    for g in range(G):
        mine = [i for i in ids if i // size == g]
        if len(mine) >= k:
            return mine[:k]
    return ids[:k]


def ref_hybrid(free, G, A, P, k):
    routers = router_free(free, A, P, G)
    if k <= P:
        best = max(range(G * A), key=lambda r: (len(routers[r]), -r))
        if len(routers[best]) >= k:
            return routers[best][:k]
    size = A * P
    if k <= size:
        counts = [sum(free[g * size:(g + 1) * size]) for g in range(G)]
        g = max(range(G), key=lambda g: (counts[g], -g))
        if counts[g] >= k:
            taken, r, out = set(), 0, []
            while len(out) < k:
                nodes = [i for i in routers[g * A + r] if i not in taken]
                if nodes:
                    out.append(nodes[0])
                    taken.add(nodes[0])
                r = (r + 1) % A
            return out
    return ref_rr_node(free, G, A, P, k)


REFERENCES = {"simple-spread": ref_simple_spread, "rr-node": ref_rr_node, "rr-router": ref_rr_router,
              "slurm": ref_slurm, "jokanovic": ref_jokanovic, "hybrid": ref_hybrid}


@pytest.mark.parametrize("shape", SHAPES, ids=[",".join(map(str, s)) for s in SHAPES])
def test_every_allocator_gives_k_distinct_free_nodes(shape):
    rng = np.random.default_rng(sum(shape[:4]))
    for m, busy in states(rng, shape, 6):
        n_free = int((~busy).sum())
        if not n_free:
            continue
        for name in DRAGONFLY_ALLOCATORS:
            a = parse_allocator(f"dfly:{name}", rng=3)
            for k in sorted({1, min(2, n_free), n_free // 2 or 1, n_free}):
                nodes = np.asarray(a.select(m, k))
                assert len(nodes) == k and len(set(nodes.tolist())) == k, name
                assert not busy[nodes].any(), name


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_deterministic_allocators_match_their_rule(name):
    rng = np.random.default_rng(7)
    checked = 0
    for shape in SHAPES:
        G, A, P = shape[:3]
        for m, busy in states(rng, shape, 8):
            free = (~busy).tolist()
            n_free = sum(free)
            for k in range(1, n_free + 1, max(1, n_free // 9)):
                got = np.asarray(parse_allocator(f"dfly:{name}").select(m, k)).tolist()
                assert got == sorted(REFERENCES[name](free, G, A, P, k)), (shape, k)
                checked += 1
    assert checked > 100


def test_simple_spread_visits_router_0_of_every_group_first():
    m = dragonfly(9, 4, 2, 2)
    nodes = parse_allocator("dfly:simple-spread").select(m, 18)
    labels = [m.labels[i] for i in nodes]
    assert sorted({g for g, _, _ in labels}) == list(range(9))
    assert {r for _, r, _ in labels} == {0}


def test_random_group_and_router_stay_in_one_unit_when_it_fits():
    m = dragonfly()
    for seed in range(20):
        g = {m.labels[i][0] for i in parse_allocator(f"dfly:random-group:seed={seed}").select(m, 8)}
        assert len(g) == 1
        r = {m.labels[i][:2] for i in parse_allocator(f"dfly:random-router:seed={seed}").select(m, 2)}
        assert len(r) == 1
    # every group has only 3 free nodes: a job of 5 spans exactly two groups
    busy = [i for i in range(m.n) if m.labels[i][1] < 2 or m.labels[i][1:] == (2, 0)]
    m.allocate(busy, owner=1)
    for seed in range(10):
        g = {m.labels[i][0] for i in parse_allocator(f"dfly:random-group:seed={seed}").select(m, 5)}
        assert len(g) == 2


@pytest.mark.parametrize("name", [n for n, c in DRAGONFLY_ALLOCATORS.items() if c.random])
def test_random_allocators_repeat_with_a_seed(name):
    m = dragonfly()
    m.allocate(list(range(0, 72, 3)), owner=1)
    draws = [tuple(parse_allocator(f"dfly:{name}", rng=s).select(m, 6).tolist()) for s in range(12)]
    again = [tuple(parse_allocator(f"dfly:{name}:seed={s}").select(m, 6).tolist()) for s in range(12)]
    assert draws == again
    assert len(set(draws)) > 1


def test_layout_is_recognised_on_dragonflies_only():
    for shape in SHAPES:
        assert dragonfly_layout(dragonfly(*shape)) == DragonflyLayout(*shape[:3])
    for m in (fat_tree(4), Machine((4, 4)), processors_per_node(dragonfly(3, 2, 1, 1), 2),
              Machine.from_graph(nx.path_graph(8)), Machine.from_distances([(0, 0, 0), (0, 0, 1)], [[0, 1], [1, 0]])):
        assert dragonfly_layout(m) is None


def test_dragonfly_allocators_refuse_other_machines():
    for m in (fat_tree(4), Machine((8, 4)), Machine((4, 4), torus=True)):
        for name in DRAGONFLY_ALLOCATORS:
            with pytest.raises(ValueError, match=r"needs a dragonfly.*allocators that fit: .*gen-alg"):
                check_allocator(parse_allocator(f"dfly:{name}"), m)
