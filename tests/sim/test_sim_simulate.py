"""The simulate entry point: records, summary, hooks and output files."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from optalloc.ksubset import solve
from optalloc.sim import Job, Machine, read_swf, simulate

REPO = Path(__file__).resolve().parents[2]
SMALL = REPO / "instances" / "small.swf"
NASA = REPO.parent / "shared" / "data" / "traces" / "NASA-iPSC-1993-3.1-cln.swf"


@pytest.fixture(scope="module")
def small():
    return read_swf(SMALL)


def test_records_and_summary(small):
    res = simulate(small, "8x4", scheduler="easy", allocator="mc1x1")
    assert len(res.records) == len(small)
    assert [r.job_id for r in res.records] == [j.job_id for j in small.jobs]
    r = res.records[0]
    assert r.wait == r.start - r.submit and r.flow == r.end - r.submit
    assert r.slowdown == max(1.0, r.flow / max(r.run, 10.0))
    s = res.summary
    busy = sum(r.procs * r.run for r in res.records)
    span = max(r.end for r in res.records) - min(r.submit for r in res.records)
    assert s.makespan == span and s.utilisation == pytest.approx(busy / (32 * span))
    assert 0 < s.utilisation <= 1
    assert s.mean_wait == pytest.approx(np.mean([r.wait for r in res.records]))
    # MC1x1 reports its ties; the share counts decisions with more than one best candidate
    tied = [r.n_tied for r in res.records]
    assert s.tie_decisions == sum(t > 1 for t in tied)
    assert s.tie_share == pytest.approx(s.tie_decisions / len(tied))
    assert s.mean_tied == pytest.approx(np.mean([t for t in tied if t > 1]))
    assert res.machine == "8x4 mesh" and res.scheduler == "easy" and res.allocator == "mc1x1"


def test_no_tie_statistics_without_ties(small):
    s = simulate(small.head(20), "8x4", allocator="mm").summary
    assert s.tie_decisions is None and s.tie_share is None


def test_decision_hook_sees_the_free_set_before_placement(small):
    decisions = []
    res = simulate(small.head(40), "8x4", allocator="mc1x1", on_decision=decisions.append)
    assert len(decisions) == 40
    for d in decisions:
        # what a certifier does: re-solve the same state, compare
        again = solve(d.free_points, d.k, method="mc1x1", shape=d.shape)
        assert again.objective == d.result.objective
        assert d.result.indices.tolist() == d.indices.tolist()
        assert len(d.free_ids) >= d.k
    by_id = {r.job_id: r for r in res.records}
    assert all(by_id[d.job.job_id].nodes == tuple(d.nodes.tolist()) for d in decisions)
    with pytest.raises(ValueError):
        decisions[0].free_ids[0] = 5  # read-only


def test_record_hook_streams_every_job(small):
    got = []
    res = simulate(small.head(30), "8x4", record=got.append)
    assert sorted(got, key=lambda r: r.submit) == sorted(res.records, key=lambda r: r.submit)


def test_progress_callable(small):
    calls = []
    simulate(small.head(10), "8x4", progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (10, 10) and len(calls) == 10


def test_torus_metrics_use_wrap(small):
    mesh = simulate(small.head(50), "8x4", allocator="random", rng=0)
    torus = simulate(small.head(50), "8x4 torus", allocator="random", rng=0)
    assert [r.nodes for r in mesh.records] == [r.nodes for r in torus.records]
    assert all(t.W <= m.W for t, m in zip(torus.records, mesh.records))
    assert torus.summary.mean_W < mesh.summary.mean_W


def test_csv_and_jsonl(small, tmp_path):
    res = simulate(small.head(15), "8x4", allocator="1d:snake:best-fit")
    res.to_csv(tmp_path / "r.csv")
    res.to_jsonl(tmp_path / "r.jsonl")
    with open(tmp_path / "r.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 15 and int(rows[0]["job_id"]) == res.records[0].job_id
    assert rows[0]["nodes"] == " ".join(map(str, res.records[0].nodes))
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert len(lines) == 16
    assert json.loads(lines[0])["W"] == res.records[0].W
    assert json.loads(lines[-1])["summary"]["jobs"] == 15
    for write in (res.to_csv, res.to_jsonl):
        with pytest.raises(FileExistsError, match="overwrite=True"):
            write(tmp_path / ("r.csv" if write == res.to_csv else "r.jsonl"))
    res.to_csv(tmp_path / "r.csv", overwrite=True)


def test_column(small):
    res = simulate(small.head(10), "8x4")
    assert res.column("wait").shape == (10,)
    assert np.isnan(res.column("span")).all()
    with pytest.raises(ValueError, match="`name`"):
        res.column("nope")


def test_bad_arguments(small):
    with pytest.raises(ValueError, match="job 1 needs 8 processors, the machine has 4"):
        simulate([Job(1, 0, 5, 8)], "2x2")
    busy = Machine((2, 2))
    busy.allocate([0], owner=1)
    with pytest.raises(ValueError, match="`machine` must start all free"):
        simulate([Job(1, 0, 5, 1)], busy)
    with pytest.raises(ValueError, match="`on_decision`"):
        simulate([Job(1, 0, 5, 1)], "2x2", on_decision=3)
    with pytest.raises(ValueError, match="`trace`"):
        simulate(5, "2x2")
    with pytest.raises(ValueError, match="`ordering`"):
        simulate([Job(1, 0, 5, 1)], "2x2", ordering=[0, 1, 2])


def test_machine_is_free_again_after_a_run(small):
    m = Machine((8, 4))
    simulate(small.head(25), m)
    assert m.n_free == m.size


def test_explicit_ordering_gives_spans(small):
    res = simulate(small.head(20), "8x4", allocator="mm", ordering=np.arange(32))
    assert all(r.span >= r.procs for r in res.records)


@pytest.mark.slow
def test_nasa_trace_scaled_runs():
    if not NASA.exists():
        pytest.skip(f"shared data absent: {NASA} not found")
    t = read_swf(NASA, scale=4)
    res = simulate(t.head(2000), "8x4", scheduler="easy", allocator="mc1x1")
    assert res.summary.jobs == 2000 and res.summary.tie_decisions > 0
