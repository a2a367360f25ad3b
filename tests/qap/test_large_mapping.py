"""Mapping at scale: sparse traffic in the metrics and the mapper, the
traffic bound against brute force, the multilevel mapper's output checked
independently, and its bad input."""

import numpy as np
import pytest
from scipy import sparse

from optalloc.machine import Machine
from optalloc.qap import (
    brute,
    cost_matrix,
    dilation,
    hop_bytes,
    link_loads,
    map_tasks,
    mapping_report,
    objective,
    random_sparse,
    ring,
    stencil,
    transpose,
)
from optalloc.qap.large import mapping_bound, mapping_cost, multilevel

MACHINES = [Machine((2, 3)), Machine((3, 2), torus=True), Machine((2, 2, 2), torus=True), Machine(7, torus=True),
            Machine((4, 2), torus=(True, False)), Machine((2, 4))]


def _random_machine_case(seed):
    rng = np.random.default_rng(seed)
    machine = MACHINES[seed % len(MACHINES)]
    t = int(rng.integers(2, machine.n + 1))
    W = rng.integers(0, 5, size=(t, t)).astype(float) * (rng.random((t, t)) < 0.5)
    np.fill_diagonal(W, 0.0)
    return rng, machine, W


@pytest.mark.parametrize("seed", range(12))
def test_sparse_metrics_equal_the_dense_ones(seed):
    rng, machine, W = _random_machine_case(seed)
    perm = rng.permutation(machine.n)[: len(W)]
    S = sparse.csr_matrix(W)
    assert hop_bytes(S, machine, perm) == hop_bytes(W, machine, perm)
    assert dilation(S, machine, perm) == dilation(W, machine, perm)
    dense, thin = link_loads(W, machine, perm), link_loads(S, machine, perm)
    assert np.array_equal(dense.loads, thin.loads) and (dense.max, dense.mean) == (thin.max, thin.mean)
    assert mapping_report(S, machine, perm) == mapping_report(W, machine, perm)
    for crit in ("classic", "td"):
        # the QAP objective over the whole machine, tasks padded with silent ones
        pad = np.zeros((machine.n, machine.n))
        pad[: len(W), : len(W)] = W
        full = np.concatenate((perm, np.setdiff1d(np.arange(machine.n), perm)))
        want = objective(pad, cost_matrix(machine, crit), full)
        assert mapping_cost(S, machine, perm, crit) == pytest.approx(want)
        assert mapping_cost(W, machine, perm, crit) == pytest.approx(want)


def test_sparse_patterns_equal_the_dense_ones():
    for dense, thin in [(stencil((4, 3, 2)), stencil((4, 3, 2), sparse=True)), (ring(7), ring(7, sparse=True)),
                        (stencil((5, 2), periodic=False), stencil((5, 2), periodic=False, sparse=True)),
                        (transpose(4), transpose(4, sparse=True))]:
        assert sparse.issparse(thin) and np.array_equal(dense, thin.toarray())


def test_sparse_random_pattern_is_symmetric_seeded_and_dense_enough():
    for n, p in [(2, 1.0), (9, 1.0), (30, 0.2), (400, 0.01)]:
        W = random_sparse(n, p, rng=3, sparse=True)
        A = W.toarray()
        assert np.array_equal(A, A.T) and not A.diagonal().any()
        assert np.array_equal(A, random_sparse(n, p, rng=3, sparse=True).toarray())
        assert ((A > 0) & (A >= 1) & (A <= 100) | (A == 0)).all()
        if p == 1.0:
            assert (A[np.triu_indices(n, 1)] > 0).all()
    pairs = random_sparse(2000, 0.005, rng=0, sparse=True).nnz / 2
    assert abs(pairs - 0.005 * 2000 * 1999 / 2) < 5 * np.sqrt(0.005 * 2000 * 1999 / 2)


@pytest.mark.parametrize("seed", range(40))
def test_traffic_bound_never_exceeds_the_brute_force_optimum(seed):
    rng, machine, W = _random_machine_case(seed)
    crit = ("classic", "td")[seed % 2]
    # on the whole machine, and on a random partition that still holds the tasks
    size = int(rng.integers(len(W), machine.n + 1))
    nodes = np.sort(rng.choice(machine.n, size=size, replace=False))
    for part in (None, nodes):
        ids = np.arange(machine.n) if part is None else part
        pad = np.zeros((len(ids), len(ids)))
        pad[: len(W), : len(W)] = W
        best = brute(pad, cost_matrix(machine, crit, nodes=ids)).objective
        bound = mapping_bound(sparse.csr_matrix(W), machine, nodes=part, criterion=crit)
        assert bound <= best + 1e-9
        assert bound >= 0.0


def test_traffic_bound_is_at_least_the_trivial_one_and_tight_on_matching_stencils():
    W = stencil((4, 4, 4), sparse=True)
    assert mapping_bound(W, "torus:4x4x4") == W.sum() == hop_bytes(W, "torus:4x4x4", range(64))
    A = random_sparse(30, 0.5, rng=1)
    assert mapping_bound(A, "torus:6x5") >= A.sum()
    assert mapping_bound(A, "torus:6x5") > A.sum()  # 29 partners cannot all sit one hop away


def _check(res, W, machine, crit="classic"):
    perm = res.permutation
    n = W.shape[0]
    assert perm.dtype.kind == "i" and len(perm) == n and len(np.unique(perm)) == n
    assert res.objective == pytest.approx(mapping_cost(W, machine, perm, crit))
    # and by the dense QAP objective over plain loops: sum_ij W[i, j] C[p(i), p(j)]
    C = cost_matrix(machine, crit)
    if C.shape[0] == n:
        A = W.toarray() if sparse.issparse(W) else np.asarray(W, dtype=float)
        dense = sum(A[i, j] * C[perm[i], perm[j]] for i in range(n) for j in range(n) if A[i, j])
        assert res.objective == pytest.approx(dense)
    assert res.bound <= res.objective + 1e-9


@pytest.mark.parametrize("shape,machine", [((8, 8, 4), "torus:4x4x16"), ((4, 4, 4), "torus:2x4x8"),
                                           ((6, 6), "6x6 mesh"), ((4, 8), "torus:8x4")])
def test_multilevel_is_a_valid_mapping_no_worse_than_consecutive(shape, machine):
    W = stencil(shape, sparse=True)
    res = multilevel(W, machine, rng=0)
    _check(res, W, machine)
    assert res.objective <= hop_bytes(W, machine, range(W.shape[0]))
    assert res.extra["consecutive"] == hop_bytes(W, machine, range(W.shape[0]))
    again = multilevel(W, machine, rng=0)
    assert np.array_equal(again.permutation, res.permutation)


def test_multilevel_beats_consecutive_where_the_shapes_differ():
    W = stencil((8, 8, 4), sparse=True)
    res = multilevel(W, "torus:4x4x16", rng=0)
    assert res.objective < 0.8 * hop_bytes(W, "torus:4x4x16", range(256))


def test_multilevel_reaches_the_brute_force_optimum_on_tiny_cases():
    for W, machine in [(ring(8), "torus:8"), (stencil((2, 4)), "torus:4x2"), (stencil((2, 2, 2)), "torus:2x2x2"),
                       (ring(6), "3x2 mesh")]:
        res = multilevel(W, machine, rng=1)
        best = brute(W, cost_matrix(machine, "classic")).objective
        assert res.objective == best
        _check(res, W, machine)


def test_multilevel_on_partitions_networks_and_td():
    W = random_sparse(12, 0.3, rng=2, sparse=True)
    nodes = [0, 1, 2, 5, 6, 7, 9, 10, 11, 13, 14, 15, 3]
    res = multilevel(W, "torus:4x4", nodes=nodes, rng=0)
    assert set(res.permutation.tolist()) <= set(nodes)
    _check(res, W, "torus:4x4")
    td = multilevel(W, "torus:4x4", criterion="td", rng=0)
    _check(td, W, "torus:4x4", "td")
    net = Machine.from_distances(list(range(12)), cost_matrix("6x2 mesh"))
    res = multilevel(W, net, rng=0)
    _check(res, W, net)


def test_map_tasks_auto_and_multilevel():
    W = stencil((4, 4, 2), sparse=True)
    res = map_tasks(W, "torus:2x4x4", method="auto", criterion="classic", rng=0, time_limit=2)
    assert res.method == "tabu" and res.objective == res.bound == 160.0  # 32 tasks: the dense engine
    big = stencil((16, 16, 4), sparse=True)
    res = map_tasks(big, "torus:8x8x16", method="auto", criterion="classic", rng=0)
    assert res.method == "multilevel" and res.bound == 6144.0
    _check(res, big, "torus:8x8x16")
    small = map_tasks(ring(6), "torus:6", method="auto", criterion="classic")
    assert small.method == "exact" and small.objective == 12.0


@pytest.mark.parametrize("call,message", [
    (lambda: multilevel(np.ones((3, 2)), "torus:4"), "square"),
    (lambda: multilevel(-np.eye(3), "torus:4"), "non-negative"),
    (lambda: multilevel(sparse.csr_matrix(np.array([[0, -1.0], [0, 0]])), "torus:4"), "non-negative"),
    (lambda: multilevel(sparse.csr_matrix(np.array([[0, np.nan], [0, 0]])), "torus:4"), "NaN"),
    (lambda: multilevel(ring(5), "torus:4"), "do not fit"),
    (lambda: multilevel(ring(4), "torus:4", criterion="hops"), "criterion"),
    (lambda: multilevel(ring(4), "torus:4", tries=0), "tries"),
    (lambda: map_tasks(ring(4), "torus:4", method="nope"), "unknown method"),
    (lambda: map_tasks(ring(4), cost=np.ones((4, 4)), method="multilevel"), "machine"),
    (lambda: map_tasks(stencil((16, 16, 20), sparse=True), "torus:16x16x20", method="tabu"), "at most"),
    (lambda: mapping_cost(ring(4), "torus:4", [0, 1, 2, 2]), "perm"),
])
def test_bad_input_is_one_line(call, message):
    with pytest.raises(ValueError, match=message) as info:
        call()
    assert "\n" not in str(info.value)


def test_map_command_multilevel_json_and_bad_method(capsys):
    import json

    from optalloc.cli import main

    assert main(["map", "--pattern", "stencil:8x8x4", "--machine", "torus:4x4x16", "--method", "multilevel",
                 "--criterion", "classic", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["result"]["method"] == "multilevel" and out["result"]["bound"] == 1536.0
    assert out["result"]["objective"] <= out["consecutive_objective"] == 4096.0
    assert out["report"]["hop_bytes"] == out["result"]["objective"]
    assert main(["map", "--pattern", "stencil:4x4", "--machine", "torus:4x4", "--method", "bogus"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_read_matrix_keeps_a_sparse_matrix_market_file_sparse(tmp_path):
    from scipy.io import mmwrite

    from optalloc.qap import read_matrix

    W = stencil((4, 3), sparse=True)
    mmwrite(str(tmp_path / "w.mtx"), W)
    thin = read_matrix(tmp_path / "w.mtx", sparse=True)
    assert sparse.issparse(thin) and np.array_equal(thin.toarray(), W.toarray())
    assert np.array_equal(read_matrix(tmp_path / "w.mtx"), W.toarray())
    (tmp_path / "w.csv").write_text("0,2\n2,0\n")
    assert read_matrix(tmp_path / "w.csv", sparse=True).toarray().tolist() == [[0, 2], [2, 0]]
    mmwrite(str(tmp_path / "bad.mtx"), sparse.csr_matrix(np.array([[0, -1.0], [1, 0]])))
    with pytest.raises(ValueError, match="non-negative"):
        read_matrix(tmp_path / "bad.mtx", sparse=True)


def test_refinement_kicks_keep_a_valid_mapping_and_never_raise_the_cost():
    from optalloc.qap.large._flows import symmetric_graph
    from optalloc.qap.large._levels import grid_level
    from optalloc.qap.large._multilevel import _cost, _refine

    machine = Machine((4, 4, 4), torus=True)
    A = symmetric_graph(random_sparse(64, 0.1, rng=5, sparse=True))
    level = grid_level(machine, np.arange(64), False)
    rng = np.random.default_rng(0)
    pos = rng.permutation(64).astype(np.int64)
    before = _cost(A, level, pos)
    _refine(A, level, pos, rng)
    after = _cost(A, level, pos)
    _refine(A, level, pos, rng, kicks=300)
    assert sorted(pos.tolist()) == list(range(64))
    assert _cost(A, level, pos) <= after <= before
    W = A.toarray() / 2
    assert _cost(A, level, pos) == pytest.approx(hop_bytes(W, machine, pos))
