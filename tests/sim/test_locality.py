"""Leung's locality metrics against direct computations: connected
components against networkx, bounding cubes by enumeration, aggregates
recomputed from the records."""

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.machine import Machine, parse_machine, processors_per_node
from optalloc.sim import (
    LOCALITY_METRICS,
    allocation_metrics,
    components,
    job_locality,
    locality_context,
    min_bounding_cube,
    read_swf,
    simulate,
)


@st.composite
def allocations(draw):
    d = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=d, max_size=d)))
    torus = tuple(draw(st.lists(st.booleans(), min_size=d, max_size=d)))
    m = Machine(shape, torus=torus)
    nodes = draw(st.lists(st.integers(0, m.size - 1), min_size=1, max_size=m.size, unique=True))
    return m, nodes


@settings(max_examples=60, deadline=None)
@given(allocations())
def test_components_against_networkx(case):
    m, nodes = case
    G = nx.Graph()
    G.add_nodes_from(nodes)
    inside = set(nodes)
    G.add_edges_from((int(u), int(v)) for u, v in m.links() if u in inside and v in inside)
    expected = nx.number_connected_components(G)
    assert components(m, nodes) == expected
    met = allocation_metrics(m, nodes)
    assert job_locality(locality_context(m), nodes, bbox=met["bbox"], ring_span=None)["components"] == expected


def _wrap_extent(c, n, wrap):
    """Shortest interval (an arc on a wrapped axis) holding the coordinates, by enumeration."""
    best = n
    for lo in range(n):
        for length in range(1, n + 1):
            if not wrap and lo + length > n:
                break
            if all(((x - lo) % n if wrap else x - lo) < length and (wrap or x >= lo) for x in c):
                best = min(best, length)
                break
    return best


@settings(max_examples=60, deadline=None)
@given(allocations())
def test_bounding_cube_and_half_perimeter_by_enumeration(case):
    m, nodes = case
    ext = [_wrap_extent(set(m.coords[nodes][:, a].tolist()), n, w) for a, (n, w) in enumerate(zip(m.shape, m.torus))]
    # the smallest cube holding the job: enumerate sides s and all corners
    s_min = next(s for s in itertools.count(1) if all(e <= s for e in ext))
    met = allocation_metrics(m, nodes)
    loc = job_locality(locality_context(m), nodes, bbox=met["bbox"], ring_span=None)
    assert loc["bbox_cube"] == s_min ** m.ndim
    assert loc["bbox_half_perimeter"] == sum(ext)
    assert loc["bbox_cube_ratio"] >= 1.0


@pytest.mark.parametrize("shape", [(3, 2), (4,), (2, 2, 2), (5, 2)])
def test_smallest_bounding_cube_by_enumerating_subsets(shape):
    m = Machine(shape)
    coords = m.coords
    for k in range(1, m.size + 1):
        best = min(max(int(np.ptp(coords[list(c)], axis=0).max()) + 1, 1) ** m.ndim
                   for c in itertools.combinations(range(m.size), k))
        assert min_bounding_cube(shape, k) == best


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 4), st.integers(1, 3), st.data())
def test_components_per_processor_machine_against_networkx(side, per, data):
    base = Machine((side, side), torus=True)
    m = processors_per_node(base, per)
    nodes = data.draw(st.lists(st.integers(0, m.size - 1), min_size=1, max_size=m.size, unique=True))
    switch = np.repeat(np.arange(base.size), per)
    linked = {(int(u), int(v)) for u, v in base.links()}
    G = nx.Graph()
    G.add_nodes_from(nodes)
    G.add_edges_from((a, b) for a, b in itertools.combinations(nodes, 2)
                     if switch[a] == switch[b] or (int(switch[a]), int(switch[b])) in linked)
    assert components(m, nodes) == nx.number_connected_components(G)
    loc = job_locality(locality_context(m), nodes, bbox=None, ring_span=None)
    assert loc["bbox_cube"] is None and loc["components"] == components(m, nodes)


def test_aggregates_recomputed_from_the_records():
    trace = read_swf("instances/small.swf").head(60)
    res = simulate(trace, "8x4", allocator="1d:snake:first-fit")
    recs, s = res.records, res.summary
    for m in LOCALITY_METRICS:
        v = np.array([getattr(r, m) for r in recs], dtype=float)
        run = np.array([r.run for r in recs])
        k = np.array([r.procs for r in recs])
        assert getattr(s, f"max_{m}") == v.max()
        assert math.isclose(getattr(s, f"sum_sq_{m}"), float((v ** 2).sum()))
        assert math.isclose(getattr(s, f"run_weighted_{m}"), float((v * run).sum() / run.sum()))
        assert math.isclose(getattr(s, f"per_proc_{m}"), float((v / k).mean()))
    for r in recs:
        assert r.stretch_span == r.ring_span / r.procs
        assert r.bbox_half_perimeter == sum(r.bbox)
    assert math.isclose(s.mean_stretch_span, np.mean([r.stretch_span for r in recs]))
    assert math.isclose(s.mean_components, np.mean([r.components for r in recs]))
    assert s.mean_stretch_span == s.per_proc_ring_span


def test_without_an_ordering_span_metrics_are_none():
    res = simulate(read_swf("instances/small.swf").head(10), "8x4", allocator="mc1x1")
    assert res.records[0].stretch_span is None and res.summary.max_ring_span is None
    assert res.summary.mean_bbox_cube is not None


def test_simulation_allocates_per_processor_on_a_machine_of_switches():
    from optalloc.sim import Job

    # 2x2 torus of switches, two processors each: a job of two processors
    # fits in one switch (distance 0, one component), one of three needs two
    # neighbouring switches (one component)
    m = processors_per_node(Machine((2, 2), torus=True), 2)
    res = simulate([Job(1, 0, 10, 2), Job(2, 0, 10, 3)], m, allocator="gen-alg")
    a, b = res.records
    assert a.W == 0 and a.components == 1 and len(a.nodes) == 2
    assert b.components == 1 and len(set(a.nodes) | set(b.nodes)) == 5


def test_a_zermatt_like_machine_runs_a_trace():
    m = parse_machine("8x8 torus * 4 rows 0-3")
    assert m.n == 128
    res = simulate(read_swf("instances/small.swf").head(30), m, allocator="gen-alg")
    assert len(res.records) == 30
    for r in res.records:
        ids = np.asarray(r.nodes)
        assert r.W == pytest.approx(m.distances(ids).sum() / 2)
