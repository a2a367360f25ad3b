"""Machines, allocators and allocation metrics."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optalloc.ksubset import weight
from optalloc.sim import (
    Allocation,
    Allocator,
    Job,
    KSubsetAllocator,
    Machine,
    OneDAllocator,
    RandomAllocator,
    allocation_metrics,
    parse_allocator,
    parse_machine,
    simulate,
)

ALLOCATORS = ["mm", "gen-alg", "mc1x1", "mc1x1:tie=default", "mm-inc", "random", "1d:snake:best-fit",
              "1d:gilbert:first-fit:ring"]


def test_machine_coordinates_and_ids():
    m = Machine((4, 3, 2))
    assert m.size == 24 and m.ndim == 3
    assert m.node_ids(m.coords).tolist() == list(range(24))
    assert m.free_ids().tolist() == list(range(24))


def test_machine_rejects_bad_allocations_loudly():
    m = Machine((4, 4))
    m.allocate([0, 1], owner=3)
    with pytest.raises(RuntimeError, match="node 1 is busy"):
        m.allocate([1, 2], owner=4)
    with pytest.raises(RuntimeError, match="node 5 given twice"):
        m.allocate([5, 5], owner=4)
    with pytest.raises(RuntimeError, match="node 16 does not exist"):
        m.allocate([16], owner=4)
    with pytest.raises(RuntimeError, match="node ids must be integers"):
        m.allocate([0.5], owner=4)
    with pytest.raises(RuntimeError, match="node 2 is free"):
        m.release([2], owner=3)
    with pytest.raises(RuntimeError, match="held by job 3"):
        m.release([0], owner=9)
    assert m.n_free == 14  # failed calls changed nothing
    m.release([0, 1], owner=3)
    assert m.n_free == 16


def test_machine_arguments():
    with pytest.raises(ValueError, match="`shape`"):
        Machine((4, 0))
    with pytest.raises(ValueError, match="`torus`"):
        Machine((4, 4), torus=(True,))
    assert parse_machine("8x8x8 torus").torus == (True, True, True)
    assert parse_machine("16 x 8").shape == (16, 8)
    with pytest.raises(ValueError, match="`machine`"):
        parse_machine("16by8")


def test_torus_distances_and_metrics():
    m = Machine((8, 4), torus=True)
    a, b = m.node_ids([[0, 0], [7, 3]])
    assert m.distance(a, b) == 2
    met = allocation_metrics(m, m.node_ids([[0, 0], [7, 0], [1, 0]]))
    assert met["W"] == 1 + 1 + 2 and met["bbox"] == (3, 1)
    mesh = allocation_metrics(Machine((8, 4)), Machine((8, 4)).node_ids([[0, 0], [7, 0], [1, 0]]))
    assert mesh["W"] == 7 + 1 + 6 and mesh["bbox"] == (8, 1)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_metrics_match_brute_force(seed, torus):
    rng = np.random.default_rng(seed)
    m = Machine((5, 4, 3), torus=torus)
    k = int(rng.integers(1, 12))
    ids = rng.choice(m.size, k, replace=False)
    met = allocation_metrics(m, ids)
    w = sum(m.distance(i, j) for x, i in enumerate(ids) for j in ids[x + 1:])
    assert met["W"] == w
    if not torus:
        assert met["W"] == weight(m.coords[ids])
        box = m.coords[ids].max(axis=0) - m.coords[ids].min(axis=0) + 1
        assert met["bbox"] == tuple(box.tolist())


def test_spans_follow_leung():
    m = Machine((8,))
    ranks = np.arange(8)
    met = allocation_metrics(m, [0, 1, 7], ranks)
    # linear: 7 - 0 + 1; ring: 8 minus the largest free gap (ranks 2..6, 5 of them)
    assert (met["span"], met["ring_span"]) == (8, 3)


class Sloppy(Allocator):
    """Gives a busy node: the first node, whatever its state."""

    def select(self, machine, k):
        return np.arange(k)


class Twice(Allocator):
    def select(self, machine, k):
        return np.repeat(machine.free_ids()[:1], k)


class Short(Allocator):
    def select(self, machine, k):
        return machine.free_ids()[: k - 1]


@pytest.mark.parametrize("bad, match", [(Sloppy(), "is busy"), (Twice(), "given twice"),
                                        (Short(), "allocator 'Short' gave 1 nodes for job 1 of 2")])
def test_simulation_stops_on_bad_allocator(bad, match):
    jobs = [Job(1, 0, 10, 2), Job(2, 1, 10, 2)]
    with pytest.raises(RuntimeError, match=match):
        simulate(jobs, "2x2", scheduler="fcfs", allocator=bad)


def trace_for(seed, n=40, size=32):
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.exponential(4.0, n))
    return [Job(i + 1, float(submit[i]), float(rng.integers(1, 50)), int(rng.integers(1, size + 1)))
            for i in range(n)]


@pytest.mark.parametrize("spec", ALLOCATORS)
@pytest.mark.parametrize("seed", [0, 1])
def test_allocators_give_free_distinct_nodes(spec, seed):
    # the Machine checks every allocation; also check each decision directly
    seen = []

    def check(d):
        assert len(d.nodes) == d.k == d.job.procs
        assert len(set(d.nodes.tolist())) == d.k
        assert np.isin(d.nodes, d.free_ids).all()
        assert (d.free_points[d.indices] == Machine((8, 4)).coords[np.sort(d.nodes)]).all()
        seen.append(d.index)

    res = simulate(trace_for(seed), "8x4", scheduler="easy", allocator=spec, on_decision=check, rng=seed)
    assert seen == list(range(len(res.records)))


@pytest.mark.parametrize("spec", ALLOCATORS)
def test_same_seed_same_records(spec):
    a = simulate(trace_for(5), "8x4", allocator=spec, rng=7)
    b = simulate(trace_for(5), "8x4", allocator=spec, rng=7)
    assert a.records == b.records and a.summary == b.summary


def test_random_allocator_seed_matters():
    a = simulate(trace_for(5), "8x4", allocator="random", rng=1)
    b = simulate(trace_for(5), "8x4", allocator="random", rng=2)
    assert a.records != b.records


def test_ksubset_allocator_matches_solve_and_reports_ties():
    from optalloc.ksubset import solve

    m = Machine((6, 4))
    m.allocate([0, 7, 13], owner=1)
    out = KSubsetAllocator("mc1x1").select(m, 5)
    ref = solve(m.free_points(), 5, method="mc1x1", shape=(6, 4))
    assert out.nodes.tolist() == m.free_ids()[ref.indices].tolist()
    assert out.result.extra["n_tied"] == ref.extra["n_tied"]


def test_ksubset_cache_gives_the_same_choice():
    m = Machine((6, 4))
    a = KSubsetAllocator("mm")
    first = a.select(m, 7)
    again = a.select(m, 7)
    assert again is first and a.hits == 1
    assert KSubsetAllocator("exact").cache == 0


def test_ksubset_allocator_checks_options():
    with pytest.raises(ValueError, match="unknown method 'nope'"):
        KSubsetAllocator("nope")
    with pytest.raises(ValueError, match="does not take option 'tie_break'"):
        KSubsetAllocator("mm", tie_break="default")


def test_parse_allocator():
    assert parse_allocator("mc1x1").options == {}
    assert parse_allocator("mc1x1:tie=default").options == {"tie_break": "default"}
    assert parse_allocator("mc1x1:tie_break=(1, 2, 3, 4)").options == {"tie_break": (1, 2, 3, 4)}
    assert isinstance(parse_allocator("random:seed=3"), RandomAllocator)
    one = parse_allocator("1d:hilbert:sum-of-squares:ring")
    assert isinstance(one, OneDAllocator) and one.ring and one.strategy == "sum-of-squares"
    assert parse_allocator("1d:row-major").order == "row_major"
    with pytest.raises(ValueError, match="name=value"):
        parse_allocator("mm:fast")
    with pytest.raises(ValueError, match="`strategy`"):
        parse_allocator("1d:snake:worst-fit")
    with pytest.raises(ValueError, match="`allocator`"):
        parse_allocator("")


def test_one_d_allocator_gives_spans():
    res = simulate(trace_for(2), "8x4", allocator="1d:snake:best-fit")
    assert all(r.span is not None and r.span >= r.procs for r in res.records)
    assert res.summary.mean_span is not None


def test_custom_allocator_returning_allocation():
    class Lowest(Allocator):
        name = "lowest"

        def select(self, machine, k):
            return Allocation(machine.free_ids()[:k])

    res = simulate([Job(1, 0, 5, 3)], "2x2", allocator=Lowest())
    assert res.records[0].nodes == (0, 1, 2) and res.allocator == "lowest"
