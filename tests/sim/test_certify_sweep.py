"""Sweeps of kind "certify": the grid, the store, resuming, and the same figures as certify().

Ground truth: each stored certification equals a direct
``certify(trace, machine, driver=..., allocators=...)`` of the same
configuration; a second run of the sweep skips every stored
configuration; bad grids stop before anything runs, naming the entry.
"""

from __future__ import annotations

import json
import os

import networkx as nx
import pytest

from optalloc.sim import certify, format_sweep, load_sweep, make_certify_sweep, read_sweep, read_swf, run_sweep

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SMALL = os.path.join(ROOT, "instances", "small.swf")


@pytest.fixture
def ring(tmp_path):
    path = tmp_path / "ring.json"
    path.write_text(json.dumps(nx.node_link_data(nx.cycle_graph(12), edges="links")))
    return path


def test_certify_sweep_stores_what_certify_gives_and_resumes(tmp_path, ring):
    cfg = make_certify_sweep(traces=[{"path": SMALL, "limit": 12}], machines=["8x4", "4x4 torus", str(ring)],
                             drivers=["gen-alg", "random"], time_limit=30)
    assert len(cfg) == 6
    db = tmp_path / "c.sqlite"
    first = run_sweep(cfg, db, workers=1)
    assert (first.run, first.failed) == (6, 0)
    again = run_sweep(cfg, db, workers=1)
    assert (again.skipped, again.run) == (6, 0)
    rows = read_sweep(db, cfg)
    assert [r["certification"]["metric"] for r in rows] == ["l1", "l1", "torus", "torus", "network", "network"]
    for r, c in zip(rows, cfg.configurations):
        assert r["status"] == "done"
        if c.machine == str(ring):
            continue
        trace = read_swf(SMALL, max_procs=32 if c.machine == "8x4" else 16).head(12)
        direct = certify(trace, c.machine, driver=c.spec["driver"], allocators=c.spec["allocators"], time_limit=30)
        stored = r["certification"]
        assert stored["proven"] == direct.n_proven and stored["decisions"] == len(direct)
        assert [s["mean_ratio"] for s in stored["summary"]] == pytest.approx(
            [s.mean_ratio for s in direct.summary()])
    table = format_sweep(rows)
    assert "mean_gap" in table and "network" in table


def test_certify_sweep_from_toml(tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text(f'[sweep]\nkind = "certify"\ntraces = [{{path = "{SMALL}", limit = 10}}]\nmachines = ["4x4"]\n'
                    'drivers = ["mc1x1", "gen-alg"]\nexact = false\n')
    cfg = load_sweep(toml)
    assert [c.allocator for c in cfg.configurations] == ["mc1x1", "gen-alg"]
    rep = run_sweep(cfg, tmp_path / "c.sqlite", workers=1)
    assert (rep.run, rep.failed) == (2, 0)
    assert {r["certification"]["termination"] for r in read_sweep(tmp_path / "c.sqlite")} == {"bounds"}


@pytest.mark.parametrize(("text", "match"), [
    ('kind = "certify"\ndrivers = ["ptas"]\nmachines = ["4x4 torus"]', r"drivers\[0\]: 'ptas' on machine '4x4 torus'"),
    ('kind = "certify"\nallocators = ["ptas"]\nmachines = ["4x4 torus"]', r"allocators\[0\].*does not fit"),
    ('kind = "certify"\njob_records = true\nmachines = ["4x4"]', r"unknown key 'job_records'"),
    ('kind = "certify"\ntime_limit = -1\nmachines = ["4x4"]', r"time_limit: must be a positive number"),
    ('kind = "verify"\nmachines = ["4x4"]', r"`kind` must be 'simulate' or 'certify'"),
])
def test_bad_certify_sweeps(tmp_path, text, match):
    toml = tmp_path / "bad.toml"
    toml.write_text(f'[sweep]\ntraces = [{{path = "{SMALL}", limit = 5}}]\n{text}\n')
    with pytest.raises(ValueError, match=match):
        load_sweep(toml)
