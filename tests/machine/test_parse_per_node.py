"""Machine specs with processors per node: ``SHAPE * COUNT [rows LIST]``."""

import numpy as np
import pytest

from optalloc.machine import Machine, parse_machine, processors_per_node


def test_zermatt_like_machine():
    # an 8x8 torus of switches, 4 processors on each switch of rows 0-3: 128 processors
    m = parse_machine("8x8 torus * 4 rows 0-3")
    base = Machine((8, 8), torus=True)
    switches = [i for i in range(64) if base.coords[i][1] <= 3]
    owner = np.repeat(switches, 4)
    assert m.n == 128
    assert np.array_equal(m.distances(), base.distances()[np.ix_(owner, owner)])
    assert m.distance(0, 3) == 0 and m.distance(0, 4) == 1


def test_every_node_and_row_lists():
    assert parse_machine("4x4t*2").n == 32
    assert parse_machine("torus:4x4 * 1").n == 16
    m = parse_machine("4x4 * 3 rows 0,2")
    assert m.n == 24 and m.distance(0, 12) == 2  # row 0 to row 2 through row 1's switches


def test_zero_counts_route_but_hold_no_processor():
    m = processors_per_node(Machine((3,)), [1, 0, 1])
    assert m.n == 2 and m.distance(0, 1) == 2


@pytest.mark.parametrize("spec, msg", [
    ("8x8 torus * -4", "must not be negative, got -4"),
    ("8x8 * 0", "at least 1"),
    ("8x8 * 2 rows 8", r"rows must lie in 0..7"),
    ("8x8 * 2 rows a-b", "rows must be like"),
    ("8 * 2 rows 0", "two or more axes"),
    ("nowhere * 2", "need a mesh or torus shape"),
])
def test_bad_specs(spec, msg):
    with pytest.raises(ValueError, match=msg):
        parse_machine(spec)


def test_negative_count_in_a_list():
    with pytest.raises(ValueError, match="non-negative integers .*got -1"):
        processors_per_node(Machine((2,)), [1, -1])
    with pytest.raises(ValueError, match="all zero"):
        processors_per_node(Machine((2,)), [0, 0])
