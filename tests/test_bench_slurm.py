"""The Slurm benchmark's rows: the generated topology.conf and its checks."""

from __future__ import annotations

from optalloc.bench.networks._slurm import rows, topology_text
from optalloc.machine import parse_topology


def test_the_generated_topology_has_three_levels():
    m = parse_topology(topology_text(8, 4, 4))
    assert m.n == 32 and m.labels[0] == "cn00001" and m.labels[-1] == "cn00032"
    assert sorted(set(m.distances(list(range(0, 32, 4)))[0].tolist())) == [0.0, 4.0, 6.0]


def test_quick_rows_agree():
    out = rows(quick=True)
    assert len(out) == 4 and all(r.agree for r in out)
    assert out[0].case == "parse_topology" and all(r.seconds > 0 for r in out)
