"""Reading and writing Standard Workload Format traces."""

from pathlib import Path

import pytest

from optalloc.sim import Job, Trace, TraceReport, read_swf, write_swf

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
NASA = DATA / "traces" / "NASA-iPSC-1993-3.1-cln.swf"


def line(job, submit, run, procs, req_time=-1, alloc=None, req_procs=None):
    """One SWF line; ``alloc`` and ``req_procs`` default to ``procs``."""
    alloc = procs if alloc is None else alloc
    req_procs = procs if req_procs is None else req_procs
    f = [job, submit, -1, run, alloc, -1, -1, req_procs, req_time, -1, 1, 1, 1, -1, 0, -1, -1, -1]
    return " ".join(str(v) for v in f)


def write(tmp_path, body, header="; Version: 2.2\n; MaxProcs: 16\n", name="t.swf"):
    path = tmp_path / name
    path.write_text(header + "\n".join(body) + "\n")
    return path


def test_header_fields(tmp_path):
    header = ("; Version: 2.2\n; Computer: test box\n; Information: http://a.b/\n;    http://c.d/\n"
              "; MaxNodes: 64\n; MaxProcs: 32\n; Note: first\n; Note: second\n;\n")
    t = read_swf(write(tmp_path, [line(1, 0, 10, 4)], header=header))
    assert t.header["Computer"] == "test box"
    assert t.header["Information"] == "http://a.b/\nhttp://c.d/"  # a URL line is a continuation
    assert t.header["Note"] == "first\nsecond"
    assert t.max_procs == 32  # MaxProcs wins over MaxNodes


def test_max_nodes_when_no_max_procs(tmp_path):
    t = read_swf(write(tmp_path, [line(1, 0, 10, 4)], header="; MaxNodes: 8\n"))
    assert t.max_procs == 8


def test_no_header_means_no_limit(tmp_path):
    t = read_swf(write(tmp_path, [line(1, 0, 10, 400)], header=""))
    assert t.max_procs is None and t.jobs[0].procs == 400


def test_unknown_fields_and_float_times(tmp_path):
    body = [line(1, 0.5, 10.25, 4, req_time=30.5), line(2, 3, 7, 2)]
    t = read_swf(write(tmp_path, body))
    j1, j2 = t.jobs
    assert (j1.submit, j1.runtime, j1.estimate) == (0.5, 10.25, 30.5)
    assert j2.estimate == 7.0
    assert t.report.estimate_filled == 1


def test_missing_estimate_factor(tmp_path):
    t = read_swf(write(tmp_path, [line(1, 0, 10, 4)]), missing_estimate_factor=3)
    assert t.jobs[0].estimate == 30.0 and t.report.estimate_filled == 1
    with pytest.raises(ValueError, match="missing_estimate_factor"):
        read_swf(write(tmp_path, [line(1, 0, 10, 4)]), missing_estimate_factor=0)


def test_runtime_over_estimate_is_noted_not_changed(tmp_path):
    t = read_swf(write(tmp_path, [line(1, 0, 100, 4, req_time=50)]))
    assert t.jobs[0].runtime == 100 and t.jobs[0].estimate == 50
    assert t.report.runtime_over_estimate == 1


def test_unsorted_lines_are_sorted_stably(tmp_path):
    body = [line(1, 10, 5, 1), line(2, 0, 5, 1), line(3, 10, 5, 1), line(4, 5, 5, 1)]
    t = read_swf(write(tmp_path, body))
    assert [j.job_id for j in t.jobs] == [2, 4, 1, 3]
    assert t.report.out_of_order == 2


def test_trace_iterates_and_indexes_its_sorted_jobs():
    t = Trace([Job(7, 5, 10, 1), Job(3, 0, 10, 2), Job(9, 2, 10, 1)], max_procs=4)
    assert [j.job_id for j in t] == [3, 9, 7]
    assert t[0].job_id == 3 and t[-1].job_id == 7
    assert [j.job_id for j in t[1:]] == [9, 7]
    assert list(t.head(2)) == list(t)[:2]


def test_skipped_jobs_are_counted(tmp_path):
    body = [
        line(1, 0, 10, 4),
        line(2, 1, -1, 4),               # run time unknown
        line(3, 2, 0, 4),                # run time zero
        line(4, 3, -5, 4),               # negative run time
        line(5, 4, 10, -1, alloc=-1),    # no processor count
        line(6, -1, 10, 4),              # no submit time
        line(7, 5, 10, 17),              # larger than MaxProcs 16
    ]
    t = read_swf(write(tmp_path, body))
    r = t.report
    assert [j.job_id for j in t.jobs] == [1]
    assert (r.runtime_unknown, r.runtime_nonpositive, r.no_processors, r.no_submit, r.oversize_skipped) == (
        1, 2, 1, 1, 1)
    assert r.lines == 7 and r.jobs == 1 and r.skipped == 6


def test_oversize_clip_and_error(tmp_path):
    path = write(tmp_path, [line(1, 0, 10, 40), line(2, 1, 10, 4)])
    t = read_swf(path, oversize="clip")
    assert [j.procs for j in t.jobs] == [16, 4] and t.report.oversize_clipped == 1
    t = read_swf(path, max_procs=50)
    assert t.max_procs == 50 and len(t) == 2
    with pytest.raises(ValueError, match="job 1 needs 40 processors"):
        read_swf(path, oversize="error")
    with pytest.raises(ValueError, match="`oversize`"):
        read_swf(path, oversize="drop")


def test_processor_field_choice(tmp_path):
    path = write(tmp_path, [line(1, 0, 10, 4, alloc=8, req_procs=4), line(2, 1, 10, 4, alloc=6, req_procs=-1)])
    assert [j.procs for j in read_swf(path).jobs] == [4, 6]  # auto: requested when known
    assert [j.procs for j in read_swf(path, processors="allocated").jobs] == [8, 6]
    t = read_swf(path, processors="requested")
    assert [j.procs for j in t.jobs] == [4] and t.report.no_processors == 1
    with pytest.raises(ValueError, match="`processors`"):
        read_swf(path, processors="used")


def test_scaling(tmp_path):
    path = write(tmp_path, [line(1, 0, 10, 16), line(2, 1, 10, 5), line(3, 2, 10, 1), line(4, 3, 10, 4)])
    t = read_swf(path, scale=4)
    assert [j.procs for j in t.jobs] == [4, 2, 1, 1]  # ceil, at least 1
    assert t.max_procs == 4  # header MaxProcs 16 scaled too
    assert t.report.scaled == 3  # 1 stays 1
    with pytest.raises(ValueError, match="`scale`"):
        read_swf(path, scale=0)


def test_malformed_line_strict_and_lenient(tmp_path):
    body = [line(1, 0, 10, 4), "2 5 -1 10 4", line(3, 9, 10, 4), "4 x -1 10 4 -1 -1 4 -1 -1 1 1 1 -1 0 -1 -1 -1"]
    path = write(tmp_path, body)
    with pytest.raises(ValueError, match=r"t\.swf:4: malformed SWF line \(expected 18 fields, got 5\)"):
        read_swf(path)
    t = read_swf(path, strict=False)
    assert [j.job_id for j in t.jobs] == [1, 3]
    assert t.report.bad_lines == 2 and t.report.bad_line_numbers == (4, 6)


def test_missing_file():
    with pytest.raises(ValueError, match="no such file"):
        read_swf("/nonexistent/trace.swf")


def test_round_trip(tmp_path):
    body = [line(3, 7.5, 12.125, 3, req_time=20), line(1, 0, 10, 4), line(2, 1, 100, 40)]
    t = read_swf(write(tmp_path, body), oversize="clip", missing_estimate_factor=2)
    out = tmp_path / "out.swf"
    write_swf(t, out)
    back = read_swf(out)
    assert back == t
    assert back.max_procs == t.max_procs and back.header["Version"] == "2.2"
    assert back.report.estimate_filled == 0 and back.report.oversize_clipped == 0


def test_write_never_overwrites(tmp_path):
    t = Trace([Job(1, 0, 10, 2)], max_procs=4)
    out = tmp_path / "t.swf"
    write_swf(t, out)
    with pytest.raises(FileExistsError, match="overwrite=True"):
        write_swf(t, out)
    write_swf(t, out, overwrite=True)
    assert read_swf(out).jobs == t.jobs


def test_hand_built_job_checks():
    with pytest.raises(ValueError, match="`runtime` must be positive"):
        Job(1, 0, 0, 2)
    with pytest.raises(ValueError, match="`procs` must be at least 1"):
        Job(1, 0, 5, 0)
    with pytest.raises(ValueError, match="`estimate` must be positive"):
        Job(1, 0, 5, 2, -3)


def test_report_summary_mentions_every_nonzero_count():
    text = TraceReport(lines=5, jobs=3, runtime_unknown=1, no_processors=1, estimate_filled=2).summary()
    assert "runtime_unknown: 1" in text and "no_processors: 1" in text and "estimate_filled: 2" in text


def test_bundled_small_trace():
    t = read_swf(REPO / "instances" / "small.swf")
    assert len(t) == 120 and t.max_procs == 32 and t.report.skipped == 0
    assert t.report.estimate_filled == 21


def test_nasa_trace_job_count():
    if not NASA.exists():
        pytest.skip(f"shared data absent: {NASA} not found")
    t = read_swf(NASA)
    # README and header: 18,239 jobs on 128 nodes; 173 lines have run time 0
    assert t.report.lines == 18239
    assert t.max_procs == 128
    assert len(t) + t.report.skipped == 18239
    assert t.report.runtime_nonpositive == 173 and len(t) == 18066
    assert t.report.estimate_filled == len(t)  # requested time unknown throughout


def test_header_without_space_and_byte_order_mark(tmp_path):
    path = tmp_path / "bom.swf"
    body = ";MaxProcs:128\n" + line(1, 0, 10, 4) + "\n" + line(2, 1, 10, 200) + "\n"
    path.write_text(body, encoding="utf-8-sig")
    t = read_swf(path)
    assert t.max_procs == 128
    assert len(t.jobs) == 1 and t.report.oversize_skipped == 1
