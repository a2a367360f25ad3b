"""Gen-Alg on the hosts of a tree of switches, from the tree (no matrix),
against the matrix path on random trees: the same set, centre and W where
the link lengths are integers, the same W (to rounding) otherwise."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from optalloc import ksubset
from optalloc.ksubset._metric import gen_alg_metric, machine_problem
from optalloc.machine import Machine


def _random_tree(rng, integer: bool) -> Machine:
    switches = [f"s{i}" for i in range(int(rng.integers(1, 8)))]
    G = nx.Graph()
    G.add_node(switches[0])
    for i in range(1, len(switches)):
        G.add_edge(switches[i], switches[int(rng.integers(0, i))])
    hosts = [f"h{i}" for i in range(int(rng.integers(2, 30)))]
    for i, h in enumerate(hosts):
        if i and rng.random() < 0.15:  # now and then a host inside the tree: under another host
            G.add_edge(h, hosts[int(rng.integers(0, i))])
        else:
            G.add_edge(h, switches[int(rng.integers(0, len(switches)))])
    for u, v in G.edges:
        G.edges[u, v]["w"] = float(rng.integers(1, 4)) if integer else float(rng.uniform(0.5, 2.0))
    m = Machine.from_tree(G, hosts, weight="w")
    busy = rng.random(m.size) < rng.uniform(0, 0.6)
    busy[int(rng.integers(m.size))] = False
    if busy.any():
        m.allocate(np.flatnonzero(busy))
    return m


@pytest.mark.parametrize("integer", [True, False])
def test_tree_gen_alg_is_the_matrix_path(integer):
    rng = np.random.default_rng(17 + integer)
    for _ in range(150):
        m = _random_tree(rng, integer)
        k = int(rng.integers(1, m.n_free + 1))
        ours = ksubset.solve(m, k, method="gen-alg")
        inst = machine_problem(m, k)
        theirs = gen_alg_metric(inst.D, k, ids=inst.ids)
        assert ours.extra["centres"] == m.n_free and np.asarray(m.free)[ours.indices].all()
        if integer:
            assert ours.indices.tolist() == theirs.indices.tolist()
            assert ours.objective == theirs.objective and ours.extra["centre"] == theirs.extra["centre"]
        else:  # near-ties between centres follow the rounding of each path: the same W, and a centre's own set
            assert ours.objective == pytest.approx(theirs.objective, rel=1e-9)
            c = ours.extra["centre"]
            ids = inst.ids
            near = np.sort(ids[np.argsort(m.distances(ids)[list(ids).index(c)], kind="stable")[:k]])
            assert ours.indices.tolist() == near.tolist()
        assert ours.objective == pytest.approx(m.distances(ours.indices).sum() / 2, rel=1e-12)
        assert ours.bound <= ours.objective
