"""Results as data: DataFrames (pandas, optional) and the Batsim / evalys job CSV."""

import csv
import dataclasses
import sys
from pathlib import Path

import pytest

from optalloc.sim import Job, JobRecord, certify, make_sweep, read_sweep, run_sweep, simulate

SMALL = Path(__file__).resolve().parents[2] / "instances" / "small.swf"

#: Columns of Batsim's _jobs.csv (Batsim docs/output-jobs.rst), in order.
BATSIM = ["job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
          "requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time",
          "waiting_time", "turnaround_time", "stretch", "consumed_energy", "allocated_resources", "metadata"]


def hand_checked():
    """Three jobs on a 2x2 mesh, EASY, MC1x1.

    Job 1 (3 nodes, 10 s) starts at 0 on nodes 0-2; job 2 (2 nodes) waits for
    it; job 3 (1 node, runs 8 s, estimate 4 s) arrives at 1, backfills on node
    3 (it ends by its estimate, 5 <= 10) and is killed at its estimate; job 2
    starts at 10 on nodes 0-1 and ends at 20.
    """
    jobs = [Job(1, 0, 10, 3), Job(2, 0, 10, 2), Job(3, 1, 8, 1, 4)]
    return simulate(jobs, "2x2", scheduler="easy", allocator="mc1x1")


def read_rows(path):
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        return reader.fieldnames, list(reader)


def test_batsim_csv_hand_checked(tmp_path):
    res = hand_checked()
    path = tmp_path / "out_jobs.csv"
    res.to_batsim_csv(path, workload_name="tiny")
    head, rows = read_rows(path)
    assert head == BATSIM
    want = [
        # job, submit, k, req, success, state, start, exec, finish, wait, turnaround, stretch, nodes
        ("1", 0, "3", 10, "1", "COMPLETED_SUCCESSFULLY", 0, 10, 10, 0, 10, 1, "0-2"),
        ("2", 0, "2", 10, "1", "COMPLETED_SUCCESSFULLY", 10, 10, 20, 10, 20, 2, "0-1"),
        ("3", 1, "1", 4, "0", "COMPLETED_WALLTIME_REACHED", 1, 4, 5, 0, 4, 1, "3"),
    ]
    for row, w in zip(rows, want, strict=True):
        got = (row["job_id"], float(row["submission_time"]), row["requested_number_of_resources"],
               float(row["requested_time"]), row["success"], row["final_state"], float(row["starting_time"]),
               float(row["execution_time"]), float(row["finish_time"]), float(row["waiting_time"]),
               float(row["turnaround_time"]), float(row["stretch"]), row["allocated_resources"])
        assert got == w
        assert row["workload_name"] == "tiny" and row["profile"] == "" and row["metadata"] == ""
        assert float(row["consumed_energy"]) == -1


def test_batsim_csv_interval_sets_match_the_nodes(tmp_path):
    res = simulate(list(_small_jobs(40)), "8x4", allocator="random:seed=3")
    path = tmp_path / "jobs.csv"
    res.to_batsim_csv(path)
    _, rows = read_rows(path)
    for rec, row in zip(res.records, rows, strict=True):
        ids = set()
        for part in row["allocated_resources"].split(" "):
            lo, _, hi = part.partition("-")
            ids.update(range(int(lo), int(hi or lo) + 1))
        assert ids == set(rec.nodes) and len(ids) == int(row["requested_number_of_resources"])
        assert row["workload_name"] == "w0"


def _small_jobs(n):
    from optalloc.sim import read_swf

    return read_swf(SMALL, max_procs=32).jobs[:n]


def test_batsim_csv_never_overwrites(tmp_path):
    res = hand_checked()
    path = tmp_path / "jobs.csv"
    path.write_text("keep me\n")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        res.to_batsim_csv(path)
    assert path.read_text() == "keep me\n"
    res.to_batsim_csv(path, overwrite=True)
    assert read_rows(path)[0] == BATSIM
    with pytest.raises(ValueError, match="workload_name"):
        res.to_batsim_csv(tmp_path / "x.csv", workload_name="a,b")


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # evalys' own use of pandas
def test_evalys_reads_the_batsim_csv(tmp_path):
    jobset = pytest.importorskip("evalys.jobset", reason="evalys is not installed (pip install evalys)")
    res = simulate(list(_small_jobs(30)), "8x4")
    path = tmp_path / "out_jobs.csv"
    res.to_batsim_csv(path)
    js = jobset.JobSet.from_csv(str(path))
    assert len(js.df) == 30
    assert list(js.df["proc_alloc"]) == [r.procs for r in res.records]
    assert list(js.df["jobID"]) == [str(r.job_id) for r in res.records]
    for procs, rec in zip(js.df["allocated_resources"], res.records, strict=True):
        assert sorted(procs) == sorted(rec.nodes)  # evalys parsed the interval sets
    assert 0 <= js.res_bounds[0] and js.res_bounds[1] <= 31


# ---------------------------------------------------------------- DataFrames


def test_simulation_to_pandas():
    pd = pytest.importorskip("pandas")
    res = simulate(list(_small_jobs(25)), "8x4", allocator="1d:gilbert:best-fit")
    df = res.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == [f.name for f in dataclasses.fields(JobRecord)] and len(df) == 25
    for i, rec in enumerate(res.records):
        for name in ("job_id", "submit", "start", "end", "wait", "procs", "killed", "W", "span"):
            assert df[name].iloc[i] == getattr(rec, name)
        assert df["nodes"].iloc[i] == rec.nodes and df["bbox"].iloc[i] == rec.bbox
    assert str(df["n_tied"].dtype) == "Int64" and df["n_tied"].isna().all()  # 1D allocators report no ties
    assert df["wait"].mean() == pytest.approx(res.summary.mean_wait)
    empty = simulate([], "2x2").to_pandas()
    assert len(empty) == 0 and list(empty.columns) == list(df.columns)


def test_certification_to_pandas():
    pytest.importorskip("pandas")
    jobs = list(_small_jobs(12))
    cert = certify(jobs, "8x4", allocators=("mm", "mc1x1", "gen-alg"))
    df = cert.to_pandas()
    assert list(df.columns) == list(cert.FRAME_COLUMNS)
    assert len(df) == 3 * len(cert.rows)
    assert list(df["allocator"][:3]) == ["mm", "mc1x1", "gen-alg"]
    assert df.loc[df.driver, "allocator"].unique().tolist() == ["mc1x1"]
    for s in cert.summary():
        part = df[df.allocator == s.name]
        assert part["ratio_high"].mean() == pytest.approx(s.mean_ratio)
        assert part["ratio_high"].max() == pytest.approx(s.max_ratio)
        assert part["optimal"].mean() == pytest.approx(s.share_optimal)
        assert part["best"].mean() == pytest.approx(s.share_best)
        assert part["W"].tolist() == cert.W(s.name).tolist()
    wide = df.pivot(index="decision", columns="allocator", values="ratio_high")
    assert wide.shape == (len(cert.rows), 3)


def test_read_sweep_as_frame(tmp_path):
    pytest.importorskip("pandas")
    db = tmp_path / "s.sqlite"
    run_sweep(make_sweep(traces=[{"path": str(SMALL), "limit": 10}], machines=["8x4"], allocators=["mm"]),
              db, workers=1)
    both = make_sweep(traces=[{"path": str(SMALL), "limit": 10}], machines=["8x4"], allocators=["mm", "mc1x1"])
    rows = read_sweep(db, both)
    df = read_sweep(db, both, as_frame=True)
    assert len(df) == 2 and "summary" not in df.columns
    assert set(rows[0]) - {"summary"} <= set(df.columns)
    assert set(rows[0]["summary"]) <= set(df.columns)
    assert df["status"].tolist() == ["done", "pending"]
    assert df.loc[0, "jobs"] == 10 and df.loc[0, "mean_wait"] == pytest.approx(rows[0]["summary"]["mean_wait"])
    assert df["jobs"].isna().tolist() == [False, True]
    assert df.loc[0, "key"] == rows[0]["key"] and df.loc[1, "allocator"] == "mc1x1"


def test_without_pandas_a_one_line_import_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    res = hand_checked()
    cert = certify([Job(1, 0, 10, 2)], "2x2", allocators=("mm",))
    db = tmp_path / "s.sqlite"
    run_sweep(make_sweep(traces=[{"path": str(SMALL), "limit": 3}], machines=["8x4"], allocators=["mm"]),
              db, workers=1)
    for call in (res.to_pandas, cert.to_pandas, lambda: read_sweep(db, as_frame=True)):
        with pytest.raises(ImportError, match=r"needs pandas: pip install pandas") as info:
            call()
        assert "\n" not in str(info.value)
    assert read_sweep(db)[0]["status"] == "done"  # the list form needs no pandas
