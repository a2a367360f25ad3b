"""Workload axes of a sweep: the stored results are those of simulate on
the transformed trace; the new fields reach the SQLite store, CSV and JSON."""

import csv
import json

import pytest

from optalloc import instance_path
from optalloc.sim import (
    make_sweep,
    read_jobs,
    read_sweep,
    read_swf,
    run_sweep,
    simulate,
    work_multiple,
)

SMALL = str(instance_path("small.swf"))


def test_sweep_rows_equal_simulations_of_the_transformed_trace(tmp_path):
    cfg = make_sweep(traces=[{"path": SMALL, "limit": 25}], machines=["8x4"], schedulers=["cplant"],
                     allocators=["1d:snake:first-fit"], work_multiple=[1.0, 1.5], fair_start=True, job_records=True)
    assert [c.spec.get("work_multiple", 1.0) for c in cfg.configurations] == [1.0, 1.5]
    db = tmp_path / "s.sqlite"
    run_sweep(cfg, db, workers=1, progress=False)
    rows = read_sweep(db, cfg)
    trace = read_swf(SMALL, max_procs=32).head(25)
    for row, f in zip(rows, (1.0, 1.5)):
        res = simulate(work_multiple(trace, f), "8x4", scheduler="cplant", allocator="1d:snake:first-fit",
                       fair_start=True)
        want = res.summary.to_dict()
        got = row["summary"]
        for name in ("mean_wait", "mean_components", "mean_bbox_cube", "sum_sq_ring_span", "per_proc_components",
                     "fair_start_missed_share", "fair_start_mean_miss", "mean_stretch_span"):
            assert got[name] == pytest.approx(want[name]), name
        jobs = read_jobs(db, row["key"])
        by_id = {r.job_id: r for r in res.records}
        for j in jobs:
            r = by_id[j["job_id"]]
            assert (j["components"], j["bbox_cube"], j["user"]) == (r.components, r.bbox_cube, r.user)
            assert j["fair_start"] == pytest.approx(r.fair_start)


def test_default_workload_keeps_the_old_keys():
    a = make_sweep(traces=[SMALL], machines=["8x4"], allocators=["mm"])
    b = make_sweep(traces=[SMALL], machines=["8x4"], allocators=["mm"], work_multiple=1, replication=[1],
                   runtime_model="none")
    assert a.keys == b.keys
    assert not {"work_multiple", "replication", "runtime_model", "fair_start"} & set(a.configurations[0].spec)


def test_csv_and_json_lines_carry_the_new_fields(tmp_path):
    res = simulate(read_swf(SMALL).head(10), "8x4", allocator="1d:snake:best-fit", fair_start=True)
    res.to_csv(tmp_path / "j.csv")
    res.to_jsonl(tmp_path / "j.jsonl")
    with open(tmp_path / "j.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    lines = [json.loads(x) for x in (tmp_path / "j.jsonl").read_text().splitlines()]
    for r, row, line in zip(res.records, rows, lines):
        assert int(row["components"]) == r.components == line["components"]
        assert float(row["fair_start"]) == r.fair_start == line["fair_start"]
        assert float(row["stretch_span"]) == r.stretch_span
    assert lines[-1]["summary"]["mean_components"] == res.summary.mean_components


def test_a_store_written_before_the_new_fields_gets_their_columns(tmp_path):
    import sqlite3

    db = tmp_path / "old.sqlite"
    first = make_sweep(traces=[{"path": SMALL, "limit": 5}], machines=["8x4"], allocators=["mm"], job_records=True)
    run_sweep(first, db, workers=1, progress=False)
    with sqlite3.connect(db) as conn:  # the layout of a store from before the new fields
        for table, column in (("jobs", "fair_start"), ("jobs", "components"), ("summaries", "mean_components")):
            conn.execute(f'ALTER TABLE {table} DROP COLUMN "{column}"')
    second = make_sweep(traces=[{"path": SMALL, "limit": 5}], machines=["8x4"], allocators=["mc1x1"],
                        job_records=True, fair_start=True)
    run_sweep(second, db, workers=1, progress=False)
    row = read_sweep(db, second)[0]
    assert row["status"] == "done" and row["summary"]["mean_components"] >= 1
    jobs = read_jobs(db, row["key"])
    assert all(j["components"] >= 1 and j["fair_start"] is not None for j in jobs)
    old = read_jobs(db, read_sweep(db, first)[0]["key"])
    assert all(j["components"] is None for j in old)  # rows stored before keep NULL
