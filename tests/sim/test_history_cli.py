"""optalloc history: the table, --json, --out, and bad input (exit 2, one line)."""

from __future__ import annotations

import json

from optalloc import instance_path
from optalloc.cli import main
from optalloc.machine import format_nodelist, read_topology
from optalloc.sim.certification import certify_history


def test_history_table_json_and_out(capsys, tmp_path):
    assert main(["history", "history-sacct.txt", "--machine", "topology.conf", "-q"]) == 0
    out = capsys.readouterr().out
    assert "history " in out and "gen-alg" in out and "job size" in out and "placements proven" in out
    assert main(["history", "history-sacct.txt", "--machine", "topology.conf", "-q", "--json",
                 "--allocators", "gen-alg,slurm:tree"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["allocators"] == ["history", "gen-alg", "slurm:tree"]
    assert data["placements"] == len(data["jobs"]) == data["proven"] == data["history_report"]["placements"]
    m = read_topology(instance_path("topology.conf"))
    cert = certify_history(instance_path("history-sacct.txt"), m, allocators=())
    assert [j["W"]["history"] for j in data["jobs"]] == [r.W[0] for r in cert.rows]
    out_file = tmp_path / "rows.csv"
    args = ["history", "history-sacct.txt", "--machine", "topology.conf", "-q", "--out", str(out_file)]
    assert main(args) == 0
    capsys.readouterr()
    assert len(out_file.read_text().splitlines()) == len(cert.rows) + 1
    assert main(args) == 2 and "exists" in capsys.readouterr().err
    assert main([*args, "--force"]) == 0
    png = tmp_path / "ratio.png"
    assert main(["history", "history-sacct.txt", "--machine", "topology.conf", "-q", "--plot", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_history_bad_input(capsys, tmp_path):
    m = read_topology(instance_path("topology.conf"))
    bad = tmp_path / "bad.txt"
    bad.write_text("JobID|Start|End|NNodes|NodeList\n1|0|10|1|cn999\n2|0|10|2|" + format_nodelist(m, [0, 1]) + "\n")
    base = ["history", str(bad), "--machine", "topology.conf", "-q"]
    for extra, message in (([], "'cn999' is not a node"), (["--allocators", "nonsense"], "unknown method"),
                           (["--busy", "cn[001"], "bad node list"), (["--workers", "0"], "--workers"),
                           (["--time-limit", "-1"], "--time-limit"),
                           (["--total-time-limit", "0"], "--total-time-limit")):
        code = main([*base, *extra] if not extra else [*base, "--skip-bad-lines", *extra])
        err = capsys.readouterr().err
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (extra, err)
    assert main([*base, "--skip-bad-lines", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["history_report"]["bad_lines"] == 1 and data["placements"] == 1
    assert main(["history", str(tmp_path / "none.txt"), "--machine", "topology.conf"]) == 2
    assert "no such file" in capsys.readouterr().err
