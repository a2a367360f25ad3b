"""Points files and ASCII mesh maps."""

import numpy as np
import pytest

from optalloc.machine import Mesh, parse_mesh, parse_points, read_mesh, read_points


def test_points_separators_and_comments():
    pts = parse_points("# header\n0 0\n1,2\n 3 , 4 # trailing\n\n5\t6\n")
    np.testing.assert_array_equal(pts, [[0, 0], [1, 2], [3, 4], [5, 6]])


def test_points_one_dimensional():
    assert parse_points("1\n2\n").shape == (2, 1)


@pytest.mark.parametrize(
    "text, match",
    [
        ("0 0\n1\n", "line 2: 1 coordinates, expected 2"),
        ("0 0\nx 1\n", "line 2: not a number"),
        ("0 nan\n", "line 1: NaN or infinite"),
        ("0 inf\n", "NaN or infinite"),
        ("# only comments\n\n", "no points"),
    ],
)
def test_points_errors(text, match):
    with pytest.raises(ValueError, match=match):
        parse_points(text)


def test_mesh_axes_and_order():
    m = parse_mesh("..#\n#..\n")
    assert m.shape == (3, 2)
    assert m.free[0, 0] and not m.free[2, 0] and not m.free[0, 1] and m.free[2, 1]
    # file order: row by row, left to right
    assert m.free_points().tolist() == [[0, 0], [1, 0], [1, 1], [2, 1]]


def test_mesh_three_dimensional_layers():
    m = parse_mesh("..\n.#\n\n#.\n..\n")
    assert m.shape == (2, 2, 2)
    assert not m.free[1, 1, 0] and not m.free[0, 0, 1]
    assert m.free_points()[:3].tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]


def test_mesh_round_trip():
    rng = np.random.default_rng(3)
    for shape in [(5, 3), (4, 3, 2)]:
        free = rng.random(shape) < 0.5
        m = Mesh(free)
        back = parse_mesh(m.to_text())
        np.testing.assert_array_equal(back.free, free)


def test_mesh_trailing_whitespace_and_crlf():
    m = parse_mesh(".#  \r\n..\r\n")
    assert m.shape == (2, 2)


@pytest.mark.parametrize(
    "text, match",
    [
        ("...\n..\n", "line 2: row has 2 columns, expected 3"),
        (". .\n", "whitespace inside a mesh row"),
        ("..\n..\n\n..\n", "layer 1 has 1 rows, expected 2"),
        ("\n\n", "no mesh rows"),
    ],
)
def test_mesh_errors(text, match):
    with pytest.raises(ValueError, match=match):
        parse_mesh(text)


def test_read_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        read_points(tmp_path / "missing.txt")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError, match="file is empty"):
        read_mesh(empty)
    with pytest.raises(ValueError, match="is a directory"):
        read_points(tmp_path)
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    with pytest.raises(ValueError, match="cannot read"):
        read_points(binary)
