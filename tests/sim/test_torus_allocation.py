"""The k-subset allocators on a torus choose with wrap distances."""

from __future__ import annotations

import numpy as np
import pytest

from optalloc.machine import Machine
from optalloc.sim import KSubsetAllocator, allocation_metrics, check_allocator, parse_allocator


def _edges_free():
    # an 8x8 torus with only the columns x = 0 and x = 7 free: neighbours across the wrap
    m = Machine((8, 8), torus=True)
    m.allocate([i for i in range(m.n) if m.coords[i][0] not in (0, 7)])
    return m


@pytest.mark.parametrize("method", ["mm", "mm-inc", "mc1x1", "gen-alg", "exact"])
def test_allocators_use_the_wrap(method):
    m = _edges_free()
    # the best L1 choice on the coordinates is 4 in one column (W 10); across the
    # wrap a 2x2 block has W 8 and a T of 4 has W 9
    a = KSubsetAllocator(method).select(m, 4)
    w = allocation_metrics(m, a.nodes)["W"]
    assert w <= 9 and set(m.coords[a.nodes][:, 0].tolist()) == {0, 7}
    if method in ("mm-inc", "exact"):
        assert w == 8


def test_tie_breaking_keeps_the_mesh_rules_on_a_torus():
    m = _edges_free()
    a = parse_allocator("mc1x1:tie=default")
    assert a.mesh_rules
    check_allocator(a, m)  # it fits: it chooses by L1 on the coordinates
    nodes = a.select(m, 4).nodes
    assert len(set(m.coords[nodes][:, 0].tolist())) == 1  # one column: the L1 choice
    assert allocation_metrics(m, nodes)["W"] == 10


def test_a_method_without_wrap_form_is_refused_on_a_torus():
    with pytest.raises(ValueError, match="no form with wrap distances"):
        check_allocator(KSubsetAllocator("ptas"), Machine((4, 4), torus=True))
    assert np.all(KSubsetAllocator("line").select(Machine((8,)), 3).nodes == [0, 1, 2])
