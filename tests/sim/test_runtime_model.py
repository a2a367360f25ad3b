"""The time-per-distance runtime model against its formula."""

import pytest

from optalloc.machine import Machine
from optalloc.sim import Allocator, Job, TimePerDistance, parse_runtime_model, read_swf, simulate


def test_formula_on_a_line():
    # On an 8-node line the baseline of 2 processors is two neighbours
    # (average distance 1); a random allocation's distance d gives
    # T * (1 + a d^b) / (1 + a).
    a, b = 0.3, 0.7
    jobs = [Job(i, 50 * i, 40, 2) for i in range(1, 30)]
    res = simulate(jobs, Machine((8,)), allocator="random", rng=4, runtime_model=TimePerDistance(a, b),
                   kill_at_estimate=False)
    seen = set()
    for r in res.records:
        assert r.run == pytest.approx(40 * (1 + a * r.avg_l1 ** b) / (1 + a))
        seen.add(r.avg_l1)
    assert len(seen) > 1  # the allocations differ, so do the run times


def test_zero_weight_and_one_processor_keep_run_times():
    trace = read_swf("instances/small.swf").head(30)
    plain = simulate(trace, "8x4", allocator="mm")
    same = simulate(trace, "8x4", allocator="mm", runtime_model="time-per-distance:0")
    assert [r.end for r in plain.records] == [r.end for r in same.records]
    one = simulate([Job(1, 0, 10, 1)], "2x2", runtime_model=TimePerDistance(5.0, 1.0), kill_at_estimate=False)
    assert one.records[0].run == 10


def test_model_changes_the_schedule_and_is_seeded():
    trace = read_swf("instances/small.swf").head(40)
    kw = {"allocator": "random", "rng": 1, "kill_at_estimate": False}
    plain = simulate(trace, "8x4", **kw)
    model = simulate(trace, "8x4", runtime_model=TimePerDistance(0.2, 1.0, 0.3, seed=5), **kw)
    again = simulate(trace, "8x4", runtime_model=TimePerDistance(0.2, 1.0, 0.3, seed=5), **kw)
    assert [r.end for r in model.records] != [r.end for r in plain.records]
    assert [r.end for r in model.records] == [r.end for r in again.records]


@pytest.mark.parametrize("spec, msg", [("fast", "time-per-distance:A"), ("time-per-distance:", "time-per-distance"),
                                       ("time-per-distance:x", "time-per-distance"),
                                       ("time-per-distance:1,0", "b > 0"), ("time-per-distance:-1", "a >= 0"),
                                       ("time-per-distance:1,1,2", "c < b"), ("tpd:1,2,0.1,4", "at most three")])
def test_bad_models(spec, msg):
    with pytest.raises(ValueError, match=msg):
        parse_runtime_model(spec)



class Ends(Allocator):
    """The two ends of the line."""

    def select(self, machine, k):
        return [0, machine.size - 1][:k]


def test_a_stretched_job_is_cut_at_its_estimate():
    # two processors at the ends of an 8-node line: distance 7 against the
    # baseline's 1, run 40 * (1 + 7) / (1 + 1) = 160 s, cut at the estimate 100
    m = TimePerDistance(1.0, 1.0)
    r = simulate([Job(1, 0, 40, 2, 100)], Machine((8,)), allocator=Ends(), runtime_model=m).records[0]
    assert r.avg_l1 == 7 and r.run == 100 and r.killed
    free = simulate([Job(1, 0, 40, 2, 100)], Machine((8,)), allocator=Ends(), runtime_model=m,
                    kill_at_estimate=False).records[0]
    assert free.run == pytest.approx(160) and not free.killed
