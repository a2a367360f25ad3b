"""Bad input raises ValueError with a message naming the argument and the rule."""

from __future__ import annotations

import numpy as np
import pytest

from optalloc.ksubset import METHODS, method_options, solve, weight

# Free cells of a 4 x 3 mesh, and positions on a line (or a ring of length 10).
MESH = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [3, 2]])
LINE = np.array([0.0, 2.0, 3.0, 7.0, 9.0])

#: A valid call per method: (points, k, options).
VALID = {
    "mm": (MESH, 2, {}),
    "gen-alg": (MESH, 2, {}),
    "mm-inc": (MESH, 2, {}),
    "mc1x1": (MESH, 2, {"shape": (4, 3)}),
    "line": (LINE, 2, {}),
    "k3": (MESH, 3, {}),
    "brute": (MESH, 2, {}),
}
ALL = sorted(VALID)
K_GENERIC = [m for m in ALL if m != "k3"]  # k3 has its own rule for k


def test_methods_under_test_exist():
    # Methods added later (e.g. ``exact``) are not covered by this file.
    assert set(VALID) <= set(METHODS)


@pytest.mark.parametrize("method", ALL)
def test_valid_call_runs(method):
    pts, k, opts = VALID[method]
    assert solve(pts, k, method=method, **opts).k == k


def _with_points(method, bad_2d, bad_1d):
    pts, k, opts = VALID[method]
    return (bad_1d if method == "line" else bad_2d), k, opts


# ---------------------------------------------------------------------------
# points


BAD_POINTS = {
    # name: (2-D version, 1-D version for 'line', message)
    "nan": (np.array([[0.0, 0.0], [np.nan, 1.0], [2.0, 2.0], [3, 1]]), np.array([0.0, np.nan, 2.0, 3.0]),
            r"`points` contains NaN or infinite"),
    "inf": (np.array([[0.0, 0.0], [np.inf, 1.0], [2.0, 2.0], [3, 1]]), np.array([0.0, -np.inf, 2.0, 3.0]),
            r"`points` contains NaN or infinite"),
    "empty": (np.zeros((0, 2)), np.zeros(0), r"`points` is empty"),
    "3d-array": (np.zeros((4, 2, 2)), np.zeros((4, 1, 2)), r"`points` must have shape \(n, d\).*3 dimensions"),
    "scalar": (np.float64(3.0), np.float64(3.0), r"`points` must have shape \(n, d\).*0 dimensions"),
    "no-coordinates": (np.zeros((4, 0)), np.zeros((4, 0)), r"`points` must have at least 1 coordinate"),
    "text": (np.array([["a", "b"]] * 4), np.array(["a"] * 4), r"`points` must be a numeric array"),
    "ragged": ([[0, 1], [2], [3, 4], [5, 6]], [[0], [1, 2], [3], [4]], r"`points` must be a numeric array"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_POINTS))
@pytest.mark.parametrize("method", ALL)
def test_bad_points(method, case):
    bad_2d, bad_1d, message = BAD_POINTS[case]
    pts, k, opts = _with_points(method, bad_2d, bad_1d)
    with pytest.raises(ValueError, match=message):
        solve(pts, k, method=method, **opts)


# ---------------------------------------------------------------------------
# k


@pytest.mark.parametrize("k", [0, -1, 6, 100])
@pytest.mark.parametrize("method", K_GENERIC)
def test_k_out_of_range(method, k):
    pts, _, opts = VALID[method]
    with pytest.raises(ValueError, match=rf"`k` must be between 1 and the number of points \(5\), got {k}"):
        solve(pts, k, method=method, **opts)


@pytest.mark.parametrize("k", [2.0, 2.5, "2", None, np.float64(2.0)], ids=repr)
@pytest.mark.parametrize("method", K_GENERIC)
def test_k_not_an_integer(method, k):
    pts, _, opts = VALID[method]
    with pytest.raises(ValueError, match=r"`k` must be an integer"):
        solve(pts, k, method=method, **opts)


@pytest.mark.parametrize("method", K_GENERIC)
def test_numpy_integer_k_is_accepted(method):
    pts, k, opts = VALID[method]
    assert solve(pts, np.int64(k), method=method, **opts).k == k


@pytest.mark.parametrize("k", [0, 1, 2, 4, 5])
def test_k3_needs_k_equal_3(k):
    with pytest.raises(ValueError, match=rf"method 'k3' solves k = 3 only, got k = {k}"):
        solve(MESH, k, method="k3")


def test_k3_with_too_few_points():
    with pytest.raises(ValueError, match=r"`k` must be between 1 and the number of points \(2\), got 3"):
        solve(MESH[:2], 3, method="k3")


@pytest.mark.parametrize("k", [3.0, np.float64(3.0)], ids=repr)
def test_k3_rejects_float_k(k):
    with pytest.raises(ValueError, match=r"`k` must be an integer"):
        solve(MESH, k, method="k3")


# ---------------------------------------------------------------------------
# method and options


@pytest.mark.parametrize("method", ["nope", "MM", "gen_alg", "", None, ["mm"]], ids=repr)
def test_unknown_method(method):
    names = ", ".join(sorted(METHODS))  # every registered name, sorted
    with pytest.raises(ValueError, match=rf"unknown method .*; choose one of: {names}$"):
        solve(MESH, 2, method=method)


NOT_TAKEN = {
    "mm": "shape",
    "gen-alg": "tie_break",
    "mm-inc": "shape",
    "mc1x1": "ring_length",
    "line": "shape",
    "k3": "limit",
    "brute": "shape",
}


@pytest.mark.parametrize("method", ALL)
def test_option_the_method_does_not_take(method):
    pts, k, opts = VALID[method]
    option = NOT_TAKEN[method]
    assert option not in method_options(method)
    with pytest.raises(ValueError, match=rf"method '{method}' does not take option '{option}'"):
        solve(pts, k, method=method, **opts, **{option: (4, 4)})


def test_mm_with_shape_lists_that_it_takes_no_options():
    with pytest.raises(ValueError, match=r"method 'mm' does not take option 'shape'; it takes no options"):
        solve(MESH, 2, method="mm", shape=(4, 4))


def test_unknown_option_names_the_accepted_ones():
    with pytest.raises(ValueError, match=r"it takes: limit, time_limit"):
        solve(MESH, 2, method="brute", time=3)


# ---------------------------------------------------------------------------
# mc1x1: the mesh


def test_mc1x1_without_shape():
    with pytest.raises(ValueError, match=r"method 'mc1x1' needs the mesh extent: pass `shape`"):
        solve(MESH, 2, method="mc1x1")


@pytest.mark.parametrize(
    "points, shape",
    [(MESH, (3, 3)), (MESH, (4, 2)), (MESH - 1, (4, 3)), (np.array([[0, 0], [0, 5]]), (4, 3))],
    ids=["x-too-big", "y-too-big", "negative", "far"],
)
def test_mc1x1_points_off_the_mesh(points, shape):
    with pytest.raises(ValueError, match=r"a point lies outside the mesh of shape"):
        solve(points, 1, method="mc1x1", shape=shape)


def test_mc1x1_repeated_cells():
    with pytest.raises(ValueError, match=r"mesh points must be distinct"):
        solve(np.array([[0, 0], [1, 1], [0, 0]]), 2, method="mc1x1", shape=(4, 3))


@pytest.mark.parametrize("points", [MESH + 0.5, np.array([[0.0, 0.0], [1.0, 0.25]])], ids=["shifted", "one"])
def test_mc1x1_non_integer_cells(points):
    with pytest.raises(ValueError, match=r"mesh points must have integer coordinates"):
        solve(points, 2, method="mc1x1", shape=(4, 3))


@pytest.mark.parametrize(
    "shape, message",
    [
        ((4,), r"`shape` must give 2 positive sizes"),
        ((4, 3, 2), r"`shape` must give 2 positive sizes"),
        ((4, 0), r"`shape` must give 2 positive sizes"),
        ((4.5, 3), r"`shape` must be a sequence of positive integers"),
        ("ab", r"`shape` must be a sequence of positive integers"),
    ],
    ids=repr,
)
def test_mc1x1_bad_shape(shape, message):
    with pytest.raises(ValueError, match=message):
        solve(MESH, 2, method="mc1x1", shape=shape)


@pytest.mark.parametrize(
    "tie_break, message",
    [
        ("best", r"`tie_break` must be None, 'default' or \(SR, AF, WF, BF\)"),
        ("DEFAULT", r"`tie_break` must be None, 'default'"),
        ((1, 2, 3), r"`tie_break` must be \(SR, AF, WF, BF\) with an integer SR"),
        ((1, 2, 3, 4, 5), r"`tie_break` must be \(SR, AF, WF, BF\)"),
        ((1.5, 2, 3, 4), r"`tie_break` must be \(SR, AF, WF, BF\) with an integer SR"),
        ((1, "x", 3, 4), r"`tie_break` must be \(SR, AF, WF, BF\)"),
        (5, r"`tie_break` must be \(SR, AF, WF, BF\)"),
        (True, r"`tie_break` must be \(SR, AF, WF, BF\)"),
        ((-1, 2, 3, 4), r"`tie_break` needs SR >= 0 and finite factors"),
        ((1, np.nan, 3, 4), r"`tie_break` needs SR >= 0 and finite factors"),
        ((1, 2, np.inf, 4), r"`tie_break` needs SR >= 0 and finite factors"),
    ],
    ids=repr,
)
def test_mc1x1_bad_tie_break(tie_break, message):
    with pytest.raises(ValueError, match=message):
        solve(MESH, 2, method="mc1x1", shape=(4, 3), tie_break=tie_break)


@pytest.mark.parametrize(
    "request_, message",
    [
        ((0, 1), r"`request` must give 2 positive sizes"),
        ((2,), r"`request` must give 2 positive sizes"),
        ((1.5, 1), r"`request` must be a sequence of positive integers"),
        (2, r"`request` must be a sequence of positive integers"),
    ],
    ids=repr,
)
def test_mc1x1_bad_request(request_, message):
    with pytest.raises(ValueError, match=message):
        solve(MESH, 2, method="mc1x1", shape=(4, 3), request=request_)


# ---------------------------------------------------------------------------
# line


def test_line_with_2d_points():
    with pytest.raises(ValueError, match=r"`points` must be one-dimensional for method 'line', got 2 coordinates"):
        solve(MESH, 2, method="line")


@pytest.mark.parametrize(
    "positions", [[0.0, 1.0, 10.0], [-1.0, 1.0, 5.0], [0.0, 12.0, 3.0], [-0.001, 5.0]], ids=repr
)
def test_ring_positions_outside_the_ring(positions):
    with pytest.raises(ValueError, match=r"ring positions must lie in \[0, ring_length=10\)"):
        solve(np.array(positions), 2, method="line", ring_length=10)


@pytest.mark.parametrize(
    "length, message",
    [
        (0, r"`ring_length` must be positive"),
        (-3.0, r"`ring_length` must be positive"),
        (np.inf, r"`ring_length` must be positive"),
        (np.nan, r"`ring_length` must be positive"),
        ("ten", r"`ring_length` must be a number"),
    ],
    ids=repr,
)
def test_bad_ring_length(length, message):
    with pytest.raises(ValueError, match=message):
        solve(LINE, 2, method="line", ring_length=length)


# ---------------------------------------------------------------------------
# brute and mm-inc


def test_brute_over_the_default_limit():
    with pytest.raises(ValueError, match=r"brute force over C\(60, 30\) = .* subsets exceeds the limit of 5e\+06"):
        solve(np.arange(60.0), 30, method="brute")


def test_brute_over_a_given_limit():
    # C(5, 2) = 10 subsets.
    with pytest.raises(ValueError, match=r"brute force over C\(5, 2\) = 10 subsets exceeds the limit of 9"):
        solve(MESH, 2, method="brute", limit=9)
    assert solve(MESH, 2, method="brute", limit=10).status == "optimal"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"limit": 0}, r"`limit` must be positive"),
        ({"limit": 2.5}, r"`limit` must be an integer"),
        ({"limit": None}, r"`limit` must be an integer"),
        ({"time_limit": -1}, r"`time_limit` must be positive"),
        ({"time_limit": 0}, r"`time_limit` must be positive"),
        ({"time_limit": "soon"}, r"`time_limit` must be a number"),
    ],
    ids=repr,
)
def test_brute_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        solve(MESH, 2, method="brute", **options)


@pytest.mark.parametrize(
    "max_swaps, message",
    [(0, r"`max_swaps` must be positive"), (-2, r"`max_swaps` must be positive"),
     (1.5, r"`max_swaps` must be an integer")],
    ids=repr,
)  # fmt: skip
def test_mm_inc_bad_max_swaps(max_swaps, message):
    with pytest.raises(ValueError, match=message):
        solve(MESH, 2, method="mm-inc", max_swaps=max_swaps)


@pytest.mark.parametrize(
    "descents, message",
    [(-1, r"`descents` must be at least 0"), (1.5, r"`descents` must be an integer"),
     ("4", r"`descents` must be an integer")],
    ids=repr,
)  # fmt: skip
def test_gen_alg_bad_descents(descents, message):
    with pytest.raises(ValueError, match=message):
        solve(MESH, 2, method="gen-alg", descents=descents)


# ---------------------------------------------------------------------------
# weight


@pytest.mark.parametrize(
    "points, message",
    [
        (np.zeros((0, 2)), r"`points` is empty"),
        (np.array([[0.0, np.nan]]), r"`points` contains NaN or infinite"),
        (np.zeros((2, 2, 2)), r"`points` must have shape \(n, d\)"),
    ],
    ids=["empty", "nan", "3d-array"],
)
def test_weight_bad_points(points, message):
    with pytest.raises(ValueError, match=message):
        weight(points)
