"""Hop-bytes, dilation and dimension-order link loads, against hand-routed
examples, the QAP objective and a hop-by-hop reference router."""

import dataclasses
import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.machine import Machine
from optalloc.qap import (
    Dilation,
    MappingReport,
    cost_matrix,
    dilation,
    hop_bytes,
    link_loads,
    mapping_report,
    objective,
    random_sparse,
    stencil,
)


def reference_loads(W, shape, torus, perm, order):
    """Route every message hop by hop with plain Python (DOR, + way on ties);
    ``torus`` a bool or one wrap flag per axis."""
    torus = (torus,) * len(shape) if isinstance(torus, bool) else tuple(torus)
    loads = {}
    strides = [1]
    for s in shape[:-1]:
        strides.append(strides[-1] * s)

    def coord(u):
        return [(u // st_) % s for st_, s in zip(strides, shape)]

    def ident(c):
        return sum(x * st_ for x, st_ in zip(c, strides))

    n = len(W)
    for i in range(n):
        for j in range(n):
            if i == j or W[i][j] <= 0:
                continue
            cur, dst = coord(perm[i]), coord(perm[j])
            for k in order:
                s = shape[k]
                while cur[k] != dst[k]:
                    if torus[k]:
                        fwd = (dst[k] - cur[k]) % s
                        step = 1 if fwd <= s - fwd else -1
                    else:
                        step = 1 if dst[k] > cur[k] else -1
                    nxt = list(cur)
                    nxt[k] = (cur[k] + step) % s
                    key = (ident(cur), ident(nxt))
                    loads[key] = loads.get(key, 0.0) + W[i][j]
                    cur = nxt
    return loads


def as_nonzero_dict(result):
    return {k: v for k, v in result.as_dict().items() if v}


# -- hand-routed examples -------------------------------------------------------------

def test_hand_routed_mesh_3x3():
    # nodes: id = x + 3 y
    #   6 7 8
    #   3 4 5
    #   0 1 2
    t = Machine((3, 3))
    perm = [0, 8, 1, 5, 7, 4]  # tasks 0..5 on these nodes
    W = np.zeros((6, 6))
    W[0, 3] = 5   # (0,0) -> (2,1): x 0->1->2, then y 2->5
    W[1, 5] = 7   # (2,2) -> (1,1): x 8->7, then y 7->4
    W[2, 4] = 11  # (1,0) -> (1,2): y 1->4->7
    W[0, 5] = 2   # (0,0) -> (1,1): x 0->1, then y 1->4
    r = link_loads(W, t, perm)
    assert as_nonzero_dict(r) == {(0, 1): 7.0, (1, 2): 5.0, (2, 5): 5.0, (8, 7): 7.0, (7, 4): 7.0,
                                  (1, 4): 13.0, (4, 7): 11.0}
    assert r.max == 13.0
    assert len(r.links) == 24  # 12 mesh edges, both ways
    total = 5 * 3 + 7 * 2 + 11 * 2 + 2 * 2
    assert r.mean == pytest.approx(total / 24)
    assert hop_bytes(W, t, perm) == total
    # y first: (0,0) -> (2,1) goes 0->3, then 3->4->5
    ry = link_loads(W, t, perm, order="yx")
    assert as_nonzero_dict(ry)[(0, 3)] == 7.0 and as_nonzero_dict(ry)[(3, 4)] == 7.0
    assert as_nonzero_dict(ry)[(4, 5)] == 5.0
    assert as_nonzero_dict(link_loads(W, t, perm, order=(1, 0))) == as_nonzero_dict(ry)


def test_hand_routed_torus_4x4_wrap_and_tie():
    t = Machine((4, 4), torus=True)
    # tasks: 0 at (0,0)=0, 1 at (3,0)=3, 2 at (2,0)=2, 3 at (3,1)=7, 4 at (0,3)=12
    perm = [0, 3, 2, 7, 12]
    W = np.zeros((5, 5))
    W[0, 1] = 4  # (0,0) -> (3,0): 1 hop the - way round: 0 -> 3
    W[0, 2] = 3  # (0,0) -> (2,0): tie (2 each way), + way: 0 -> 1 -> 2
    W[3, 4] = 6  # (3,1) -> (0,3): x +1 via wrap 7 -> 4; y tie, + way: 4 -> 8 -> 12
    W[4, 0] = 1  # (0,3) -> (0,0): y +1 via wrap 12 -> 0
    r = link_loads(W, t, perm)
    assert as_nonzero_dict(r) == {(0, 3): 4.0, (0, 1): 3.0, (1, 2): 3.0, (7, 4): 6.0, (4, 8): 6.0,
                                  (8, 12): 6.0, (12, 0): 1.0}
    assert r.max == 6.0 and len(r.links) == 64
    assert r.mean == pytest.approx((4 + 6 + 18 + 1) / 64)
    assert sum(r.loads) == hop_bytes(W, t, perm)


def test_ring_of_two_and_single_node():
    r = link_loads([[0, 2], [3, 0]], Machine(2, torus=True), [0, 1])
    assert r.as_dict() == {(0, 1): 2.0, (1, 0): 3.0}
    one = link_loads([[5]], Machine((1, 1)), [0])
    assert one.max == 0.0 and one.mean == 0.0 and len(one.links) == 0


# -- against the objective and the reference router -------------------------------------

@pytest.mark.parametrize("topo", [Machine((4, 4), torus=True), Machine((3, 5)), Machine((3, 2, 2), torus=True),
                                  Machine.from_graph(nx.petersen_graph())])
def test_hop_bytes_is_the_classic_objective(topo):
    rng = np.random.default_rng(7)
    n = topo.n
    for _ in range(5):
        W = rng.integers(0, 20, (n, n)) * (rng.random((n, n)) < 0.4)
        p = rng.permutation(n)
        assert hop_bytes(W, topo, p) == pytest.approx(objective(W, cost_matrix(topo, "classic"), p))


def test_hop_bytes_on_a_partition():
    t = Machine((8, 8), torus=True)
    rng = np.random.default_rng(3)
    for nodes in (t.box_nodes((6, 2), (4, 4)), rng.choice(64, 16, replace=False)):
        W = random_sparse(16, 0.3, rng=rng)
        p = rng.permutation(16)
        C = cost_matrix(t, "classic", nodes=nodes)
        assert hop_bytes(W, t, nodes[p]) == pytest.approx(objective(W, C, p))
        r = link_loads(W, t, nodes[p])
        assert r.loads.sum() == pytest.approx(hop_bytes(W, t, nodes[p]))


@settings(max_examples=30, deadline=None)
@given(axes=st.lists(st.tuples(st.integers(1, 5), st.booleans()), min_size=1, max_size=3),
       seed=st.integers(0, 2**32 - 1), data=st.data())
def test_link_loads_match_reference_router(axes, seed, data):
    # wrap per axis: meshes, tori and machines that wrap on some axes only
    shape, torus = tuple(s for s, _ in axes), tuple(w for _, w in axes)
    t = Machine(shape, torus=torus)
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, t.n + 1))
    perm = rng.choice(t.n, m, replace=False)
    W = rng.integers(0, 9, (m, m)) * (rng.random((m, m)) < 0.5)
    order = tuple(data.draw(st.permutations(range(len(shape)))))
    r = link_loads(W, t, perm, order=order)
    assert as_nonzero_dict(r) == reference_loads(W.tolist(), shape, torus, perm.tolist(), order)
    assert r.loads.sum() == pytest.approx(hop_bytes(W, t, perm))
    assert r.mean == (pytest.approx(r.loads.sum() / len(t.links())) if len(t.links()) else 0.0)


def test_link_loads_in_chunks(monkeypatch):
    import optalloc.qap._metrics as metrics

    t = Machine((5, 4), torus=True)
    W = random_sparse(20, 0.5, rng=1)
    whole = link_loads(W, t, range(20))
    monkeypatch.setattr(metrics, "_CHUNK", 7)
    np.testing.assert_array_equal(link_loads(W, t, range(20)).loads, whole.loads)


# -- dilation and the report ---------------------------------------------------------------

@pytest.mark.parametrize("shape", [(8, 8), (4, 4, 4)])
def test_stencil_on_matching_torus_has_dilation_one(shape):
    t = Machine(shape, torus=True)
    W = stencil(shape, weight=3.0)
    d = dilation(W, t, range(t.n))
    assert d == Dilation(1.0, 1.0, 1.0, int((W > 0).sum()))
    r = link_loads(W, t, range(t.n))
    assert np.all(r.loads == 3.0)  # every link carries exactly one neighbour message


def test_dilation_hand_values():
    t = Machine(4)
    W = np.zeros((3, 3))
    W[0, 1], W[1, 2], W[2, 2] = 1, 3, 100  # the diagonal is no communication
    d = dilation(W, t, [0, 3, 1])
    assert d.max == 3 and d.mean == 2.5 and d.weighted_mean == pytest.approx((1 * 3 + 3 * 2) / 4)
    assert d.pairs == 2
    assert dilation(np.zeros((2, 2)), t, [0, 1]) == Dilation(0.0, 0.0, 0.0, 0)


def test_mapping_report_fields_and_dict():
    t = Machine((4, 4), torus=True)
    W = stencil((4, 4))
    rng = np.random.default_rng(0)
    p = rng.permutation(16)
    r = mapping_report(W, t, p)
    assert isinstance(r, MappingReport)
    assert r.machine == "4x4 torus" and r.tasks == 16 and r.total_bytes == W.sum()
    assert r.hop_bytes == hop_bytes(W, t, p)
    d = dilation(W, t, p)
    assert (r.max_dilation, r.mean_dilation, r.weighted_dilation) == (d.max, d.mean, d.weighted_mean)
    loads = link_loads(W, t, p)
    assert (r.max_link_load, r.mean_link_load) == (loads.max, loads.mean)
    out = r.to_dict()
    assert set(out) == {f.name for f in dataclasses.fields(MappingReport)}
    json.dumps(out)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.hop_bytes = 0


def test_network_has_no_link_loads():
    g = Machine.from_graph(nx.cycle_graph(6))
    W = stencil(6)
    with pytest.raises(ValueError, match="`machine` must be a mesh or torus"):
        link_loads(W, g, range(6))
    r = mapping_report(W, g, range(6))
    assert r.max_link_load is None and r.mean_link_load is None and r.max_dilation == 1.0


# -- validation -------------------------------------------------------------------------------

T44 = Machine((4, 4), torus=True)


@pytest.mark.parametrize("W, perm, rule", [
    (np.ones((2, 3)), [0, 1], "`W` must be a square matrix"),
    ([[0, -1], [1, 0]], [0, 1], "`W` flows must be non-negative"),
    ([[0, np.nan], [1, 0]], [0, 1], "`W` contains NaN"),
    (np.ones((17, 17)), list(range(17)), "`W` has 17 tasks but the 4x4 torus has only 16 nodes"),
    (np.ones((2, 2)), [0], "`perm` must hold 2 node ids"),
    (np.ones((2, 2)), [3, 3], "`perm` ids must be distinct"),
    (np.ones((2, 2)), [0, 16], r"`perm` ids must be in 0\.\.15"),
    (np.ones((2, 2)), [0.0, 1.0], "`perm` must be a 1-D sequence of integer"),
])
@pytest.mark.parametrize("fn", [hop_bytes, dilation, link_loads, mapping_report])
def test_validation(fn, W, perm, rule):
    with pytest.raises(ValueError, match=rule):
        fn(W, T44, perm)


@pytest.mark.parametrize("order", ["xz", "xx", (0,), (0, 2), "ab", 3])
def test_order_validation(order):
    with pytest.raises(ValueError, match="`order`"):
        link_loads(np.ones((2, 2)), T44, [0, 1], order=order)


def test_machine_specs():
    W, p = stencil((4, 4)), np.random.default_rng(2).permutation(16)
    for fn in (hop_bytes, dilation, mapping_report):
        assert fn(W, "torus:4x4", p) == fn(W, T44, p)
    np.testing.assert_array_equal(link_loads(W, "torus:4x4", p).loads, link_loads(W, T44, p).loads)
    with pytest.raises(ValueError, match="`machine` must be"):
        hop_bytes(np.ones((2, 2)), "ring:4", [0, 1])
    with pytest.raises(ValueError, match="`machine` must be"):
        hop_bytes(np.ones((2, 2)), 42, [0, 1])


def test_hand_routed_mixed_wrap():
    # 4 x 3 wrapping on x only: (0, 0) -> (3, 2) goes 0 -> 3 round x, then 3 -> 7 -> 11 along y
    m = Machine((4, 3), torus=(True, False))
    r = link_loads([[0, 2], [0, 0]], m, [0, 11])
    assert as_nonzero_dict(r) == {(0, 3): 2.0, (3, 7): 2.0, (7, 11): 2.0}
    assert len(r.links) == len(m.links()) == 2 * (3 * 4 + 4 * 2)
    assert hop_bytes([[0, 2], [0, 0]], m, [0, 11]) == 6.0
