"""The mapping-at-scale bench: its patterns, its repair of peers' mappings,
its table, and peers that are missing."""

import numpy as np
import pytest

from optalloc.bench import _mapping_scale as bench
from optalloc.machine import Machine
from optalloc.qap import stencil


def test_cg_and_mg_patterns_have_their_shapes():
    W = bench.cg_pattern(8, 8).toarray()
    assert np.array_equal(W, W.T) and not W.diagonal().any()
    # row partners by recursive doubling (3 of them) and the transpose partner off the diagonal
    assert (W[1] > 0).sum() == 4 and W[1, 8] > 0 and (W[0] > 0).sum() == 3
    M = bench.mg_pattern((8, 8, 8)).toarray()
    assert np.array_equal(M, M.T) and M[0, 1] == 1024.0 and M[0, 2] == 256.0 and M[0, 4] == 128.0
    with pytest.raises(ValueError, match="square"):
        bench.cg_pattern(4, 8)


def test_repair_puts_one_task_per_node_moving_only_extras():
    machine = Machine((4, 4), torus=True)
    part, moved = bench.repair(np.array([0, 0, 5, 5, 5, 2]), machine)
    assert moved == 3 and len(np.unique(part)) == 6 and list(part[[0, 2, 5]]) == [0, 5, 2]


def test_measure_prints_side_by_side_and_skips_missing_peers(monkeypatch):
    monkeypatch.setattr(bench, "installed", lambda peer: False)
    only = [("stencil 4x4x4", lambda: stencil((4, 4, 4), sparse=True), (2, 4, 8))]
    rows = bench.measure(only=only, peers=("scotch",))
    r = rows[0]
    assert r.bound == 448.0 and r.results["consecutive"]["hop_bytes"] >= r.results["multilevel"]["hop_bytes"]
    assert "not installed" in r.results["scotch"]["note"]
    text = bench.format_scale(rows)
    assert "stencil 4x4x4" in text and "not installed" in text


def test_a_requested_peer_that_is_missing_or_unknown_is_a_one_line_error(monkeypatch):
    with pytest.raises(ValueError, match="unknown peer"):
        bench.installed("metis")
    monkeypatch.setattr(bench, "installed", lambda peer: False)
    with pytest.raises(ValueError, match="not installed: pip install pyscotch") as info:
        bench.run_peer("scotch", stencil((2, 2), sparse=True), (2, 2, 1), cap=1)
    assert "\n" not in str(info.value)
