"""Replaying a job history: free sets rebuilt from the jobs running, every
placement certified as certify certifies a simulated decision."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from optalloc import instance_path
from optalloc.machine import Machine, fat_tree, format_nodelist, read_topology
from optalloc.sim import certify, read_swf, work_multiple
from optalloc.sim.certification import HISTORY, certify_history


def _sacct(records, machine) -> str:
    lines = ["JobID|State|Start|End|NNodes|NodeList"]
    for r in records:
        lines.append(f"{r.job_id}|COMPLETED|{r.start:.6f}|{r.end:.6f}|{len(r.nodes)}|{format_nodelist(machine, r.nodes)}")
        lines.append(f"{r.job_id}.batch|COMPLETED|{r.start:.6f}|{r.end:.6f}|1|{format_nodelist(machine, r.nodes[:1])}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("driver", ["gen-alg", "slurm:tree"])
def test_round_trip_of_a_simulated_run(driver):
    m = read_topology(instance_path("topology.conf"))
    trace = work_multiple(read_swf(instance_path("small.swf")), 4)  # jobs wait: busy machines, shared starts
    cert = certify(trace, m, driver=driver, allocators=(driver, "gen-alg") if driver != "gen-alg" else (driver,))
    order = {r.job_id: i for i, r in enumerate(cert.rows)}  # jobs starting at one time: in decision order
    text = _sacct(sorted(cert.simulation.records, key=lambda r: order[r.job_id]), m)
    hist = certify_history(text, m, allocators=("gen-alg",))
    assert not hist.conflicts and hist.history_report.steps == len(cert.rows)
    assert len(hist.rows) == len(cert.rows) and hist.n_proven == len(hist.rows)
    ours = {r.job_id: r for r in hist.rows}
    d = cert.names.index(driver)
    g = cert.names.index("gen-alg")
    for r in cert.rows:
        h = ours[str(r.job_id)]
        assert (h.k, h.n_free) == (r.k, r.n_free)
        assert h.W[0] == pytest.approx(r.W[d]) and h.W[1] == pytest.approx(r.W[g])
        assert (h.lower, h.upper) == (r.lower, r.upper)
        assert h.ratios()[0] == pytest.approx(r.ratios()[d])
    assert hist.check() == []
    assert hist.names == (HISTORY, "gen-alg")


def _brute(D, free, k):
    return min(D[np.ix_(S, S)].sum() / 2 for S in itertools.combinations(free, k))


def test_free_sets_and_optima_against_brute_force():
    m = fat_tree(4)  # 16 hosts
    D = m.distances()
    rng = np.random.default_rng(3)
    lines = []
    busy_now, t = [], 0
    jobs = []
    for j in range(12):  # a random sequence without overlaps, built by hand
        t += int(rng.integers(1, 4))
        busy_now = [(e, ns) for e, ns in busy_now if e > t]
        taken = {v for _, ns in busy_now for v in ns}
        free = [v for v in range(m.size) if v not in taken]
        if not free:
            continue
        k = int(rng.integers(1, min(5, len(free)) + 1))
        ns = sorted(rng.choice(free, k, replace=False).tolist())
        end = t + int(rng.integers(1, 8))
        busy_now.append((end, ns))
        jobs.append((j, free, ns))
        lines.append({"job_id": j, "start": t, "end": end, "nodes": ns})  # node ids: the labels are tuples
    hist = certify_history(json.dumps(lines) + "\n", m, allocators=())
    assert len(hist.rows) == len(jobs)
    for r, (j, free, ns) in zip(hist.rows, jobs):
        assert r.job_id == str(j) and r.n_free == len(free)
        assert r.W[0] == pytest.approx(D[np.ix_(ns, ns)].sum() / 2)
        assert r.proven and r.upper == pytest.approx(_brute(D, free, len(ns)))


def test_overlaps_and_busy_nodes_are_reported():
    m = read_topology(instance_path("topology.conf"))
    text = ("JobID|Start|End|NNodes|NodeList\n1|0|100|4|cn[001-004]\n2|10|50|2|cn[004-005]\n"
            "3|100|150|2|cn[003-004]\n4|120|130|1|cn128\n")
    hist = certify_history(text, m, allocators=())
    assert [r.job_id for r in hist.rows] == ["1", "3", "4"]  # job 1 ends at 100 when job 3 starts
    assert hist.conflicts == (("2", "1", 1),)
    assert "1 jobs not certified" in hist.table()
    hist = certify_history(text, m, allocators=(), busy="cn[127-128]")
    assert hist.conflicts == (("2", "1", 1), ("4", "busy", 1)) and hist.busy == 2
    assert hist.rows[0].n_free == 126
    with pytest.raises(ValueError, match="not a node"):
        certify_history(text, m, busy="cn999")
    with pytest.raises(ValueError, match="twice"):
        certify_history(text, m, allocators=("gen-alg", "gen-alg"))


def test_a_torus_history_with_nid_numbers():
    m = Machine((4, 4), torus=True)
    text = 'job_id,start,end,nodes\n1,0,10,"nid[00000-00001,00004-00005]"\n2,1,5,nid00015\n3,2,9,nid[00002-00003]\n'
    hist = certify_history(text, m, allocators=("gen-alg",))
    assert [r.W[0] for r in hist.rows] == [8.0, 0.0, 1.0]
    assert all(r.proven for r in hist.rows) and hist.rows[0].upper == 8.0
    assert hist.to_dict()["placements"] == 3


def test_jobs_starting_together_take_their_free_sets_in_file_order():
    m = read_topology(instance_path("topology.conf"))
    text = "JobID|Start|End|NNodes|NodeList\n9|5|20|2|cn[001-002]\n3|5|20|1|cn003\n4|0|5|4|cn[001-004]\n"
    hist = certify_history(text, m, allocators=())
    assert [(r.job_id, r.n_free) for r in hist.rows] == [("4", 128), ("9", 128), ("3", 126)]


def test_unsorted_lines_progress_and_json():
    m = read_topology(instance_path("topology.conf"))
    text = ("JobID|Start|End|NNodes|NodeList\n"
            "3|2024-05-01T10:30:00|2024-05-01T12:00:00|2|cn[003-004]\n"
            "1|2024-05-01T10:00:00|2024-05-01T11:00:00|2|cn[001,017]\n"
            "2|2024-05-01T10:10:00|2024-05-01T10:20:00|3|cn[001,005-006]\n")
    seen = []
    hist = certify_history(text, m, allocators=("gen-alg",), progress=lambda done, total: seen.append((done, total)))
    assert [r.job_id for r in hist.rows] == ["1", "3"] and hist.rows[1].time - hist.rows[0].time == 1800
    assert seen and seen[-1][0] == seen[-1][1]
    d = json.loads(json.dumps(hist.to_dict()))
    assert d["conflicts"] == [{"job_id": "2", "overlaps": "1", "nodes": 1}]
    assert d["summary"][0]["name"] == "history" and d["placements"] == 2
    assert hist.rows[0].W[0] == 4.0 and hist.rows[0].upper == 2.0 and hist.rows[0].ratios()[0] == (2.0, 2.0)
    with pytest.raises(ValueError, match="progress"):
        certify_history(text, m, progress="yes")
    with pytest.raises(ValueError, match="time_limit"):
        certify_history(text, m, time_limit=-1)


def _key(cert):
    return [(r.job_id, r.k, r.n_free, r.W, r.lower, r.upper, r.status) for r in cert.rows]


@pytest.mark.slow
def test_workers_and_dask_equal_the_serial_run():
    m = Machine((6, 6))
    cert = certify(read_swf(instance_path("small.swf"), max_procs=36).head(40), m, driver="mc1x1", allocators=("mc1x1",))
    order = {r.job_id: i for i, r in enumerate(cert.rows)}
    lines = ["job_id,start,end,nodes"] + [
        f"{r.job_id},{r.start!r},{r.end!r},{' '.join(map(str, r.nodes))}"
        for r in sorted(cert.simulation.records, key=lambda r: order[r.job_id])]
    text = "\n".join(lines) + "\n"
    plain = certify_history(text, m, allocators=("gen-alg",))
    assert [(r.W[0], r.lower, r.upper) for r in plain.rows] == [(r.W[0], r.lower, r.upper) for r in cert.rows]
    assert _key(certify_history(text, m, allocators=("gen-alg",), workers=2)) == _key(plain)
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=":0") as cluster:
        assert _key(certify_history(text, m, allocators=("gen-alg",), cluster=cluster.scheduler_address)) == _key(plain)


def test_a_total_time_limit_keeps_a_bracket_for_every_placement():
    """A run stopped by its total time limit certifies every placement: the
    states not solved keep a bound at most the optimum the full run proves."""
    m = Machine((6, 6))
    cert = certify(read_swf(instance_path("small.swf"), max_procs=36).head(30), m, driver="mc1x1",
                   allocators=("mc1x1",))
    order = {r.job_id: i for i, r in enumerate(cert.rows)}
    lines = ["job_id,start,end,nodes"] + [
        f"{r.job_id},{r.start!r},{r.end!r},{' '.join(map(str, r.nodes))}"
        for r in sorted(cert.simulation.records, key=lambda r: order[r.job_id])]
    text = "\n".join(lines) + "\n"
    full = certify_history(text, m, allocators=())
    assert full.termination == "optimal" and full.total_time_limit is None
    short = certify_history(text, m, allocators=(), total_time_limit=1e-9)
    assert short.termination == "total_time_limit" and short.total_time_limit == 1e-9
    assert len(short.rows) == len(full.rows) and short.n_proven < len(full.rows)
    for r, f in zip(short.rows, full.rows):
        assert r.lower <= f.upper + 1e-9 <= r.upper + 2e-9
    assert "stopped at the total time limit" in short.table()
    assert json.loads(json.dumps(short.to_dict()))["termination"] == "total_time_limit"
    with pytest.raises(ValueError, match="total_time_limit"):
        certify_history(text, m, total_time_limit=0)
