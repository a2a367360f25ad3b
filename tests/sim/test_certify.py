"""Situation/decision mode and certified ratios (Bender et al. 2005, sec. 5)."""

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optalloc.ksubset import brute, weight
from optalloc.sim import (
    DEFAULT_ALLOCATORS,
    Certification,
    DecisionRow,
    Job,
    Trace,
    certify,
    read_swf,
    simulate,
)

REPO = Path(__file__).resolve().parents[2]
SMALL = REPO / "instances" / "small.swf"
TOL = 1e-9


@pytest.fixture(scope="module")
def small():
    return read_swf(SMALL)


@pytest.fixture(scope="module")
def cert(small):
    return certify(small, "8x4")


def _jobs_4x4(seed, n=25):
    rng = np.random.default_rng(seed)
    sizes = rng.choice([1, 2, 3, 4, 5, 6, 7, 8], size=n)
    submits = np.cumsum(rng.integers(0, 30, size=n))
    runs = rng.integers(20, 200, size=n)
    return [Job(i + 1, float(s), float(r), int(k)) for i, (s, r, k) in enumerate(zip(submits, runs, sizes))]


def _assert_certified(c: Certification):
    """Every ratio >= 1 against the proven bound; within the guarantee on proven decisions."""
    for r in c.rows:
        assert r.lower <= r.upper + TOL
        for name, w, g, (lo, hi) in zip(c.names, r.W, r.guarantee, r.ratios()):
            assert w >= r.lower - TOL * max(1.0, r.lower), (name, r)
            assert hi >= 1 - TOL and lo <= hi
            if r.proven:
                assert lo == hi
                if g is not None:
                    assert w <= g * r.upper + TOL * max(1.0, r.upper), (name, r)
    assert c.check() == []


def test_default_allocators_and_summary(cert, small):
    assert cert.names == DEFAULT_ALLOCATORS
    assert cert.driver == "mc1x1"
    assert len(cert) == len(small)
    assert cert.n_proven == len(cert)  # 32 nodes: the exact solver proves every decision
    summary = {s.name: s for s in cert.summary()}
    for s in summary.values():
        ratios = cert.ratios(s.name)[:, 1]
        assert s.decisions == len(cert)
        assert s.mean_ratio == pytest.approx(ratios.mean())
        assert s.max_ratio == pytest.approx(ratios.max())
        assert s.share_optimal == pytest.approx(np.mean(np.abs(ratios - 1) <= TOL))
        assert 1 - TOL <= s.mean_ratio <= s.max_ratio
    # MM+Inc improves on MM's choice, so it is never worse on the same free set
    assert np.all(cert.W("mm-inc") <= cert.W("mm") + TOL)


def test_ratios_within_guarantees(cert):
    _assert_certified(cert)
    g = [r.guarantee[cert.names.index("mm")] for r in cert.rows if r.k >= 2]
    assert all(x is not None and 1 <= x <= 7 / 4 for x in g)  # MM: min(7/4, 2 - 2/k) in 2D
    assert all(r.guarantee[cert.names.index("1d:gilbert:best-fit")] is None for r in cert.rows)


def test_driver_W_matches_simulation(cert, small):
    by_job = {rec.job_id: rec.W for rec in cert.simulation.records}
    j = cert.names.index("mc1x1")
    for r in cert.rows:
        assert r.W[j] == by_job[r.job_id]
    # evaluating the others does not change the machine: same records as a plain run
    assert cert.simulation.records == simulate(small, "8x4", allocator="mc1x1").records


def test_driver_added_when_not_listed(small):
    c = certify(Trace(small.jobs[:15], max_procs=32), "8x4", driver="mm", allocators=("mc1x1",))
    assert c.names == ("mm", "mc1x1") and c.driver == "mm"
    by_job = {rec.job_id: rec.W for rec in c.simulation.records}
    assert [r.W[0] for r in c.rows] == [by_job[r.job_id] for r in c.rows]


@pytest.mark.parametrize("seed", [0, 1])
def test_exact_matches_brute_force(seed):
    jobs = _jobs_4x4(seed)
    c = certify(jobs, "4x4", allocators=("mm", "mc1x1"))
    seen = []
    simulate(jobs, "4x4", allocator="mc1x1", on_decision=lambda d: seen.append((d.free_points, d.k)))
    assert len(seen) == len(c.rows)
    checked = 0
    for (pts, k), r in zip(seen, c.rows):
        assert r.n_free == len(pts) and r.k == k
        if math.comb(len(pts), k) <= 20000:
            assert r.proven and r.upper == brute(pts, k).objective
            checked += 1
    assert checked >= 10
    _assert_certified(c)


def test_cache_gives_identical_results(small):
    trace = Trace(small.jobs[:60], max_procs=32)
    a = certify(trace, "8x4", cache=True)
    b = certify(trace, "8x4", cache=False)
    key = [(r.job_id, r.k, r.W, r.lower, r.upper, r.status) for r in a.rows]
    assert key == [(r.job_id, r.k, r.W, r.lower, r.upper, r.status) for r in b.rows]
    assert a.cache_hits > 0 and b.cache_hits == 0
    assert sum(r.cached for r in a.rows) == a.cache_hits + a.symmetry_hits and not any(r.cached for r in b.rows)
    assert b.symmetry_hits == 0


def test_cheap_bounds_give_intervals(small, cert):
    trace = Trace(small.jobs[:60], max_procs=32)
    c = certify(trace, "8x4", exact=False)
    assert all(r.exact_seconds == 0 for r in c.rows) and c.cache_hits == 0
    assert {r.status for r in c.rows} <= {"optimal", "bracket"}
    for r, proven in zip(c.rows, cert.rows):
        assert r.lower <= proven.upper <= r.upper  # the bracket holds the optimum
    _assert_certified(c)
    assert "proven" in c.table()


def test_bracket_ratio_interval():
    r = DecisionRow(0, 7, 0.0, 4, 10, (12.0, 10.0), (2.0, None), 8.0, 10.0, "time_limit")
    assert not r.proven and r.optimum is None
    assert r.ratios() == [(1.2, 1.5), (1.0, 1.25)]
    assert r.best(("a", "b")) == ("b",)
    one = DecisionRow(0, 7, 0.0, 1, 10, (0.0,), (1.0,), 0.0, 0.0, "optimal")
    assert one.ratios() == [(1.0, 1.0)]


def test_time_limit_keeps_certificates(small):
    trace = Trace(small.jobs[:30], max_procs=32)
    c = certify(trace, "8x4", time_limit=0.5)
    assert c.time_limit == 0.5
    _assert_certified(c)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(5, 120), st.integers(1, 12)), min_size=1, max_size=12),
       st.sampled_from(["mc1x1", "mm", "gen-alg", "1d:snake:first-fit"]))
def test_property_certified(spec, driver):
    jobs, t = [], 0
    for i, (gap, run, k) in enumerate(spec):
        t += gap
        jobs.append(Job(i + 1, t, run, k))
    c = certify(jobs, "4x3", driver=driver, allocators=("mm", "gen-alg", "mc1x1", "mm-inc"))
    assert len(c) == len(jobs)
    _assert_certified(c)


def test_by_size(cert):
    sizes = {s.label for s in cert.by_size()}
    assert sizes <= {"1", "2", "3-4", "5-8", "9-16", "17-32"}
    each = cert.by_size("each")
    assert {s.k_min for s in each} == {r.k for r in cert.rows}
    total = sum(s.decisions for s in each if s.name == "mm")
    assert total == len(cert)
    mine = cert.by_size([4, 16])
    assert [s.label for s in mine if s.name == "mm"] == ["1-4", "5-16", "17-32"]
    one = [s for s in each if s.k_min == 1]
    assert all(s.mean_ratio == 1 and s.mean_W == 0 for s in one)  # one node: always optimal
    with pytest.raises(ValueError, match="buckets"):
        cert.by_size("logarithmic")


def test_progress(small, capsys):
    calls = []
    trace = Trace(small.jobs[:10], max_procs=32)
    certify(trace, "8x4", progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (10, 10) and len(calls) == 10
    certify(trace, "8x4", progress=True)
    assert "certify: 10/10 decisions" in capsys.readouterr().err


def test_writers(cert, tmp_path):
    p = tmp_path / "rows.csv"
    cert.to_csv(p)
    with open(p, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(cert)
    assert float(rows[0]["W[mc1x1]"]) == cert.rows[0].W[cert.names.index("mc1x1")]
    with pytest.raises(FileExistsError, match="overwrite"):
        cert.to_csv(p)
    cert.to_csv(p, overwrite=True)
    txt = tmp_path / "rows.txt"  # the writer decides the format, not the extension
    cert.to_csv(txt)
    assert txt.read_text().startswith("index,job_id,")
    q = tmp_path / "rows.jsonl"
    cert.to_jsonl(q)
    lines = [json.loads(x) for x in q.read_text().splitlines()]
    assert len(lines) == len(cert) + 1 and "summary" in lines[-1]
    assert lines[0]["W"]["mm"] == cert.rows[0].W[0]
    assert lines[-1]["summary"]["violations"] == []
    with pytest.raises(FileExistsError):
        cert.to_jsonl(q)
    json.dumps(cert.to_dict())


class _Stop(Exception):
    pass


def _stop_after(n):
    def progress(done, total):
        if done == n:
            raise _Stop
    return progress


def _without_seconds(row):
    # time and cache hits depend on what the run solved itself
    return {key: v for key, v in row.items() if key not in ("exact_seconds", "cached")}


@pytest.mark.parametrize("ext", [".csv", ".jsonl"])
def test_rows_streamed_and_resumed(small, tmp_path, ext):
    trace = Trace(small.jobs[:30], max_procs=32)
    path = tmp_path / f"rows{ext}"
    with pytest.raises(_Stop):
        certify(trace, "8x4", out=path, progress=_stop_after(12))
    text = path.read_text()
    lines = text.splitlines()
    assert len(lines) == 12 + (ext == ".csv")  # every certified row is on disk, no summary yet
    path.write_text(text + ("7,7,1" if ext == ".csv" else '{"index": 12, "jo'))  # a line cut short
    with pytest.raises(FileExistsError, match="overwrite"):
        certify(trace, "8x4", out=path)
    resumed = certify(trace, "8x4", out=path, resume=True)
    assert resumed.resumed == 12 and len(resumed) == 30 and "12 read back" in resumed.table()
    whole = certify(trace, "8x4", out=tmp_path / f"whole{ext}")
    assert [(r.W, r.lower, r.upper, r.status) for r in resumed.rows] == \
           [(r.W, r.lower, r.upper, r.status) for r in whole.rows]
    a, b = path.read_text().splitlines(), (tmp_path / f"whole{ext}").read_text().splitlines()
    assert len(a) == len(b) == 31
    if ext == ".csv":
        a, b = list(csv.DictReader(a)), list(csv.DictReader(b))
    else:  # the summary of the finished run is replaced by the new one
        assert json.loads(a[-1])["summary"]["resumed"] == 12 and json.loads(b[-1])["summary"]["resumed"] == 0
        a, b = [json.loads(x) for x in a[:-1]], [json.loads(x) for x in b[:-1]]
    assert [_without_seconds(r) for r in a] == [_without_seconds(r) for r in b]
    # resuming a finished file solves nothing and keeps one summary
    again = certify(trace, "8x4", out=path, resume=True)
    assert again.resumed == 30 and again.exact_seconds < whole.exact_seconds + 1
    assert len(path.read_text().splitlines()) == 31


def test_resume_refuses_another_run(small, tmp_path):
    trace = Trace(small.jobs[:10], max_procs=32)
    path = tmp_path / "rows.csv"
    certify(trace, "8x4", out=path)
    before = path.read_text()
    with pytest.raises(ValueError, match="columns"):
        certify(trace, "8x4", allocators=("mm",), out=path, resume=True)
    other = Trace(small.jobs[5:15], max_procs=32)
    with pytest.raises(ValueError, match="decision 0 differs"):
        certify(other, "8x4", out=path, resume=True)
    assert path.read_text() == before  # refused runs leave the file alone
    with pytest.raises(ValueError, match="`out`"):
        certify(trace, "8x4", resume=True)
    with pytest.raises(ValueError, match="one of them"):
        certify(trace, "8x4", out=path, resume=True, overwrite=True)
    with pytest.raises(ValueError, match=".csv, .jsonl"):
        certify(trace, "8x4", out=tmp_path / "rows.txt")
    (tmp_path / "bad.jsonl").write_text("not json\n")
    with pytest.raises(ValueError, match="not a JSON line"):
        certify(trace, "8x4", out=tmp_path / "bad.jsonl", resume=True)
    fresh = certify(trace, "8x4", out=tmp_path / "new.csv", resume=True)  # a missing file: a fresh start
    assert fresh.resumed == 0 and len((tmp_path / "new.csv").read_text().splitlines()) == 11


def test_table(cert):
    text = cert.table()
    for name in cert.names:
        assert name in text
    assert "mc1x1 (driver)" in text and "cache hits" in text


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"machine": "4x4 torus", "allocators": ("ptas",)}, "does not fit a 4x4 torus"),
    ({"allocators": ("mm", "mm")}, "twice"),
    ({"allocators": ("nope",)}, "unknown method"),
    ({"driver": "mc1x1:bogus=1"}, "does not take option"),
    ({"time_limit": -1}, "time_limit"),
    ({"time_limit": 1, "exact": False}, "time_limit"),
    ({"progress": 3}, "progress"),
])
def test_bad_input(kwargs, match):
    args = {"machine": "4x4", **kwargs}
    machine = args.pop("machine")
    with pytest.raises(ValueError, match=match):
        certify([Job(1, 0, 10, 2)], machine, **args)


def test_bad_trace():
    with pytest.raises(ValueError, match="trace"):
        certify(3, "4x4")
    # any iterable of jobs works, a generator too
    assert len(certify((Job(i, i, 10, 2) for i in range(1, 4)), "4x4")) == 3


def test_unknown_name(cert):
    with pytest.raises(ValueError, match="name"):
        cert.W("nope")


def test_weights_are_of_the_chosen_sets(small):
    # the W of every allocator is the weight of a k-subset of the free set: >= OPT, and
    # the optimum of a whole-machine job is the machine's W
    c = certify(Trace(small.jobs[:40], max_procs=32), "8x4")
    full = weight(np.array([(x, y) for x in range(8) for y in range(4)]))
    for r in c.rows:
        if r.k == 32:
            assert r.upper == full and all(w == full for w in r.W)


@pytest.mark.slow
def test_sim_bench_quick():
    from optalloc.bench import nasa_trace_path, run_sim_bench

    if not nasa_trace_path().is_file():
        pytest.skip("NASA trace not available")
    rows = run_sim_bench(quick=True)
    assert len(rows) == 2 and all(r.agree for r in rows)
