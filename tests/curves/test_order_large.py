"""Orderings without a distance matrix: the sparse objective, the relaxed
Gilmore-Lawler bound (against brute force), the swap search and the
``sparse`` method that ``auto`` picks on large machines."""

import json

import networkx as nx
import numpy as np
import pytest

from optalloc.cli import main
from optalloc.curves import order_graph, order_objective, rank_weights
from optalloc.curves._large import SPARSE_FROM
from optalloc.curves._scalable import (
    _deltas,
    _grid_profiles,
    _network_profiles,
    rank_bound,
    rank_offsets,
    sparse_objective,
)
from optalloc.machine import Machine, dragonfly, fat_tree

WEIGHTS = [None, lambda d: 1.0 / d, np.concatenate([[0.0, 3.0, 1.0, 0.0, 0.5, 0.25], np.full(94, 0.1)])]


def small_machines():
    G = nx.cycle_graph(7)
    G.add_edge(0, 3)
    W = nx.path_graph(6)
    for k, (u, v) in enumerate(W.edges):
        W.edges[u, v]["length"] = 1 + k % 3
    return [Machine((3, 3)), Machine((4, 2), torus=True), Machine((2, 2, 2)), Machine((3, 3), torus=True),
            Machine((3, 2), torus=(True, False)), Machine((8,), torus=True), Machine.from_graph(G),
            Machine.from_graph(nx.star_graph(5)), Machine.from_graph(W, weight="length"),
            Machine.from_graph(nx.gnm_random_graph(8, 12, seed=3))]


def profiles(m, width):
    if m.is_grid:
        return _grid_profiles(m, width)
    return _network_profiles(m.pair_distances, m.n, width, 3)[0]


@pytest.mark.parametrize("ring", [False, True])
@pytest.mark.parametrize("wi", range(len(WEIGHTS)))
def test_sparse_objective_matches_the_matrix(ring, wi):
    rng = np.random.default_rng(wi)
    for m in small_machines() + [fat_tree(4), dragonfly(), Machine((5, 4, 3), torus=(True, False, True))]:
        D = m.distances()
        flows = rank_offsets(m.n, rank_weights(m.n, WEIGHTS[wi], ring=ring), ring)
        for _ in range(3):
            o = rng.permutation(m.n)
            want = order_objective(D, o, weights=WEIGHTS[wi], ring=ring)
            assert sparse_objective(m.pair_distances, o, flows) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("ring", [False, True])
def test_bound_never_exceeds_the_brute_force_optimum(ring):
    for wi, weights in enumerate(WEIGHTS):
        for m in small_machines():
            flows = rank_offsets(m.n, rank_weights(m.n, weights, ring=ring), ring)
            bound = rank_bound(flows, profiles(m, 2 * len(flows.offsets)))
            best = order_graph(m, method="brute", weights=weights, ring=ring).objective
            assert 0 < bound <= best + 1e-9, (m.describe(), wi)


def test_bound_is_below_the_full_gilmore_lawler_bound_and_equal_on_a_torus():
    for m, equal in ((Machine((5, 4)), False), (Machine((4, 4), torus=True), True), (fat_tree(4), False)):
        dense = order_graph(m, method="qap", iterations=1, rng=0).bound
        sparse = order_graph(m, method="sparse", iterations=1, rng=0).bound
        assert sparse <= dense + 1e-9
        if equal:  # every node alike: the relaxation loses nothing
            assert sparse == pytest.approx(dense, rel=1e-9)


@pytest.mark.parametrize("shape,torus", [((5, 4), False), ((7, 3, 4), False), ((6, 5), (True, False)),
                                         ((4, 4, 3), True), ((2, 9), False), ((1, 6), False)])
def test_grid_profiles_are_the_sorted_distance_rows(shape, torus):
    m = Machine(shape, torus=torus)
    D = m.distances()
    width = m.n + 3
    rows = {tuple(np.sort(D[v])[1:]) for v in range(m.n)}
    got = _grid_profiles(m, width)
    assert {tuple(r[np.isfinite(r)]) for r in got} == rows


def test_swap_deltas_match_the_objective():
    rng = np.random.default_rng(5)
    for ring in (False, True):
        for m in (Machine((5, 4), torus=True), fat_tree(4), Machine((9,))):
            flows = rank_offsets(m.n, rank_weights(m.n, None, ring=ring), ring)
            D = m.distances()
            o = rng.permutation(m.n)
            a, b = rng.integers(m.n, size=40), rng.integers(m.n, size=40)
            a, b = a[a != b], b[a != b]
            got = _deltas(m.pair_distances, o, a, b, flows)
            base = order_objective(D, o, ring=ring)
            for t in range(len(a)):
                p = o.copy()
                p[[a[t], b[t]]] = p[[b[t], a[t]]]
                assert got[t] == pytest.approx(order_objective(D, p, ring=ring) - base, abs=1e-9)


@pytest.mark.parametrize("machine", [Machine((6, 6)), Machine((5, 4), torus=True), fat_tree(4), dragonfly()])
def test_sparse_method_reports_its_order_objective_and_a_bound(machine):
    D = machine.distances()
    for ring in (False, True):
        res = order_graph(machine, method="sparse", ring=ring, rng=1)
        assert sorted(res.order.tolist()) == list(range(machine.n))
        assert res.objective == pytest.approx(order_objective(D, res.order, ring=ring), rel=1e-12)
        assert res.objective <= min(res.extra["starts"].values()) + 1e-9
        assert res.bound <= res.objective
        assert res.method == "sparse"


def test_same_seed_same_order():
    m = Machine((30, 20))
    a, b = order_graph(m, rng=4), order_graph(m, rng=4)
    assert a.order.tolist() == b.order.tolist()


def test_auto_is_sparse_above_the_dense_size_and_builds_no_matrix(monkeypatch):
    m = Machine((SPARSE_FROM // 8 + 1, 8), torus=True)

    def refuse(*args, **kwargs):
        raise AssertionError("a dense distance matrix was built")

    monkeypatch.setattr(Machine, "distances", refuse)
    monkeypatch.setattr("optalloc.curves._graph.graph_distances", refuse)
    res = order_graph(m, rng=0, iterations=2000)
    assert res.method == "sparse" and res.bound <= res.objective
    snake = order_graph(m, method="snake")
    assert snake.bound == res.bound and snake.labels[:3] == [(0, 0), (1, 0), (2, 0)]
    monkeypatch.undo()
    assert order_graph(Machine((4, 4)), rng=0, iterations=10).method == "qap"


def test_networkx_graph_above_the_dense_size():
    G = nx.grid_2d_graph(20, 15)
    res = order_graph(G, rng=0, iterations=3000)
    assert res.method == "sparse" and res.bound <= res.objective
    D = Machine.from_graph(G).distances()
    assert res.objective == pytest.approx(order_objective(D, res.order), rel=1e-12)
    assert res.labels[0] == list(G.nodes)[res.order[0]]


def test_bad_input():
    with pytest.raises(ValueError, match="rank pairs"):
        order_graph(Machine((100, 100)), weights=lambda d: np.ones_like(d, dtype=float))
    with pytest.raises(ValueError, match="spectral"):
        order_graph(fat_tree(12), method="spectral")


def test_cli_order_large_machine(capsys):
    assert main(["order", "--machine", "24x12 torus", "--iterations", "4000", "--json"]) == 0
    out, err = capsys.readouterr()
    res = json.loads(out)
    assert res["method"] == "sparse" and res["bound"] <= res["objective"] and len(res["order"]) == 288
    assert main(["order", "--machine", "24x12", "--method", "hilbert"]) == 0
    out, _ = capsys.readouterr()
    assert "bound" in out


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["32x32x32 torus", "fattree:16", "dragonfly:33,8,4,4"])
def test_large_machines_in_under_a_minute(spec, capsys):
    assert main(["order", "--machine", spec, "--json"]) == 0
    out, err = capsys.readouterr()
    res = json.loads(out)
    assert res["runtime"] < 60 and 0 < res["bound"] <= res["objective"]
    assert sorted(res["order"]) == list(range(len(res["order"])))


@pytest.mark.parametrize("ring", [False, True])
def test_curve_objective_without_a_matrix_matches_the_matrix(ring, monkeypatch):
    from optalloc.curves import curve_objective, gilbert, mesh_distances

    rng = np.random.default_rng(2)
    cases = [(gilbert((7, 6, 5)), (7, 6, 5)), (gilbert((9, 8)), (9, None)), (rng.integers(0, 5, (40, 3)), None)]
    want = [order_objective(mesh_distances(c, torus=t), np.arange(len(c)), weights=w, ring=ring)
            for c, t in cases for w in WEIGHTS[:2]]
    monkeypatch.setattr("optalloc.curves._objective.CURVE_DENSE_MAX", 10)
    got = [curve_objective(c, torus=t, weights=w, ring=ring) for c, t in cases for w in WEIGHTS[:2]]
    assert got == pytest.approx(want, rel=1e-12)


def test_cli_refuses_spectral_on_a_large_network(capsys):
    assert main(["order", "--machine", "fattree:12", "--method", "spectral"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "spectral" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_scale_bench_rows_agree():
    from optalloc.bench.scale._order import rows

    out = rows(quick=True)
    assert len(out) == 4 and all(r.agree for r in out)
