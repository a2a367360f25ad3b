"""Reading job histories with node lists: sacct --parsable2, CSV, JSON."""

from __future__ import annotations

import json
import math

import pytest

from optalloc import instance_path
from optalloc.machine import Machine, read_topology
from optalloc.sim.workload import read_history, read_sacct


@pytest.fixture(scope="module")
def tree():
    return read_topology(instance_path("topology.conf"))


SACCT = """JobID|JobName|State|Start|End|NNodes|NodeList
100|a|COMPLETED|2024-05-01T10:00:00|2024-05-01T11:00:00|4|cn[001-004]
100.batch|batch|COMPLETED|2024-05-01T10:00:00|2024-05-01T11:00:00|1|cn001
100.extern|extern|COMPLETED|2024-05-01T10:00:00|2024-05-01T11:00:00|4|cn[001-004]
100.0|step|COMPLETED|2024-05-01T10:00:05|2024-05-01T10:59:00|4|cn[001-004]
101_3|arr|COMPLETED|2024-05-01T09:30:00|2024-05-01T10:30:00|2|cn[017,033]
101_[4-9]|arr|PENDING|Unknown|Unknown|1|None assigned
102|c|CANCELLED by 0|None|2024-05-01T10:10:00|0|None assigned
103|r|RUNNING|2024-05-01T10:45:00|Unknown|1|cn128

"""


def test_sacct_steps_arrays_unknown(tree):
    h = read_sacct(SACCT, tree)
    assert [p.job_id for p in h] == ["101_3", "100", "103"]  # start order
    assert h[0].nodes == (16, 32)
    assert h[1].nodes == (0, 1, 2, 3) and h[1].end - h[1].start == 3600
    assert h[2].end == math.inf and h[2].nodes == (127,)
    r = h.report
    assert (r.lines, r.placements, r.steps, r.not_started, r.still_running, r.bad_lines) == (8, 3, 3, 2, 1, 0)


def test_sacct_file_and_trailing_bar(tree, tmp_path):
    p = tmp_path / "h.txt"
    p.write_text("JobID|Start|End|NNodes|NodeList|\n1|0|10|2|cn[001-002]|\n")
    h = read_history(p, tree)
    assert [(p.job_id, p.start, p.end, p.nodes) for p in h] == [("1", 0.0, 10.0, (0, 1))]


@pytest.mark.parametrize(("line", "message"), [
    ("1|0|10|2", "fields where the header"),
    ("1|0|10|2|cn[001-002]|x", "fields where the header"),
    ("1|10|5|1|cn001", "ends before it starts"),
    ("1|0|10|1|cn999", "'cn999' is not a node"),
    ("1|0|10|3|cn[001-002]", "NNodes 3"),
    ("1|soon|10|1|cn001", "Start must be a date"),
    ("1|0|10|2|cn[001,001]", "twice"),
    ("1|0|10|1|cn[001", "bad node list"),
])
def test_sacct_bad_lines(tree, line, message):
    text = "JobID|Start|End|NNodes|NodeList\n" + line + "\n2|0|10|1|cn005\n"
    with pytest.raises(ValueError, match=message) as err:
        read_sacct(text, tree)
    assert "\n" not in str(err.value) and "line 2" in str(err.value)
    h = read_sacct(text, tree, strict=False)
    assert [p.job_id for p in h] == ["2"] and h.report.bad_lines == 1


def test_sacct_header_needed(tree):
    with pytest.raises(ValueError, match="missing NodeList"):
        read_sacct("JobID|Start|End\n1|0|1\n", tree)
    with pytest.raises(ValueError, match="empty history"):
        read_sacct("\n\n", tree)
    with pytest.raises(ValueError, match="no such file"):
        read_history("/nonexistent/h.txt", tree)


def test_csv_and_json_on_a_mesh(tmp_path):
    m = Machine((4, 4))
    (tmp_path / "h.csv").write_text('job_id,start,end,nodes\n1,0,10,"nid[00000-00003]"\n2,5,9,4 5\n')
    h = read_history(tmp_path / "h.csv", m)
    assert [(p.job_id, p.nodes) for p in h] == [("1", (0, 1, 2, 3)), ("2", (4, 5))]
    jobs = [{"job_id": 1, "start": 0, "end": 10, "nodes": [0, 1, 2, 3]},
            {"job_id": 2, "start": 5, "end": None, "nodes": "nid[00004-00005]"},
            {"job_id": 3, "start": None, "end": None, "nodes": []}]
    (tmp_path / "h.json").write_text(json.dumps(jobs))
    (tmp_path / "h.jsonl").write_text("\n".join(json.dumps(j) for j in jobs))
    for name in ("h.json", "h.jsonl"):
        h = read_history(tmp_path / name, m)
        assert [(p.job_id, p.nodes, p.end) for p in h] == [("1", (0, 1, 2, 3), 10.0), ("2", (4, 5), math.inf)]
        assert (h.report.not_started, h.report.still_running) == (1, 1)
    with pytest.raises(ValueError, match="not a node of the"):
        read_history('job_id,start,end,nodes\n1,0,10,16\n', m)
    with pytest.raises(ValueError, match="missing nodes"):
        read_history('job_id,start,end\n1,0,10\n', m)


def test_node_ids_on_a_generated_fat_tree():
    from optalloc.machine import fat_tree

    m = fat_tree(4)  # labels are tuples: node ids name the nodes
    h = read_history("job_id,start,end,nodes\n1,0,10,3 15\n", m)
    assert h[0].nodes == (3, 15)
    with pytest.raises(ValueError, match="not a node"):
        read_history("job_id,start,end,nodes\n1,0,10,16\n", m)
