"""Every k-subset method through the same checks, against brute force.

``KSubsetCommonTests`` holds the checks (STYLE.md, "Tests"; scipy's
``QAPCommonTests``); each ``Test...`` subclass names one method, its options
and the instances it applies to.  Ground truth is ``ksubset_truth``: the
naive double loop for W and enumeration of all subsets for OPT.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
from ksubset_truth import at_most, close, l1, naive_weight, optimal_subsets, optimum, ring_weight

from optalloc import STATUSES, Result
from optalloc.ksubset import METHODS, brute, k3, line, solve


@dataclass(frozen=True)
class Instance:
    label: str
    points: np.ndarray
    k: int
    shape: tuple[int, ...] | None = None  # mesh extent when points are distinct mesh cells

    @property
    def n(self) -> int:
        return len(self.points)

    @property
    def d(self) -> int:
        return self.points.shape[1]


def _mesh(label, seed, shapes, count, n_max=10):
    """Random free subsets of small meshes (distinct integer cells)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        shape = shapes[i % len(shapes)]
        cells = math.prod(shape)
        n = int(rng.integers(1, min(cells, n_max) + 1))
        flat = rng.choice(cells, size=n, replace=False)
        pts = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64)
        out.append(Instance(f"{label}-{i}", pts, int(rng.integers(1, n + 1)), shape))
    return out


def _free(label, seed, count, d, make, n_max=10, k=None):
    """Points that are not mesh cells (real or repeated coordinates)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.integers(3 if k == 3 else 1, n_max + 1))
        pts = make(rng, n, d)
        kk = k if k is not None else int(rng.integers(1, n + 1))
        out.append(Instance(f"{label}-{i}", pts, kk))
    return out


def _real(rng, n, d):
    return rng.uniform(-5.0, 5.0, size=(n, d))


def _small_ints(rng, n, d):  # many duplicates and shared coordinates
    return rng.integers(0, 3, size=(n, d)).astype(np.int64)


def _line_points(rng, n, d):  # integers with repeats, or reals rounded to 0.5
    if rng.random() < 0.5:
        return rng.integers(-4, 5, size=(n, d)).astype(np.int64)
    return np.round(rng.uniform(0.0, 6.0, size=(n, d)) * 2) / 2


INSTANCES = (
    _mesh("mesh2d", 1, [(3, 3), (4, 4), (2, 5), (5, 3)], 16)
    + _mesh("mesh3d", 2, [(2, 2, 2), (3, 3, 2), (2, 3, 4)], 9)
    + _mesh("mesh1d", 3, [(6,), (10,)], 4)
    + _free("real2d", 4, 10, 2, _real)
    + _free("real3d", 5, 6, 3, _real)
    + _free("dup2d", 6, 8, 2, _small_ints)
    + _free("dup3d", 7, 4, 3, _small_ints)
    + _free("line", 8, 10, 1, _line_points)
    + _free("k3-real", 9, 4, 2, _real, k=3)
    + _free("k3-dup", 10, 4, 2, _small_ints, k=3)
    + _free("k3-3d", 11, 3, 3, _small_ints, k=3)
    + _free("k3-1d", 12, 3, 1, _line_points, k=3)
    + [
        Instance("single-point", np.array([[2.0, 3.0]]), 1),
        Instance("all-points", np.array([[0, 0], [0, 2], [3, 1], [1, 1]]), 4, (4, 3)),
        Instance("all-same", np.zeros((5, 2)), 3),
    ]
)
assert len({inst.label for inst in INSTANCES}) == len(INSTANCES)


def pytest_generate_tests(metafunc):
    """Parametrise ``instance`` with the instances the test class applies to.

    Checks of the solution run on all of them; checks of the interface
    (frozen result, list input, ...) take ``sample``, every fourth one.
    """
    if metafunc.cls is None or not hasattr(metafunc.cls, "applies"):
        return
    chosen = [inst for inst in INSTANCES if metafunc.cls.applies(inst)]
    for name, insts in (("instance", chosen), ("sample", chosen[::4])):
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, insts, ids=[inst.label for inst in insts])


_OPT: dict[str, float] = {}


def opt_of(inst: Instance) -> float:
    if inst.label not in _OPT:
        _OPT[inst.label] = optimum(inst.points, inst.k)
    return _OPT[inst.label]


def mm_factor(d: int, k: int) -> float:
    """MM's documented factor: exact for k <= 3, else the better of 2 - 1/(2d)
    (Bender et al. 2005, Theorems 1 and 3) and 2 - 2/k (SAND2003 Theorem 6)."""
    return 1.0 if k <= 3 else min(2.0 - 1.0 / (2 * d), 2.0 - 2.0 / k)


def k_nearest(points, centre, k) -> list[int]:
    """The k points L1-nearest to ``centre``, ties to the lower index (documented rule)."""
    order = sorted(range(len(points)), key=lambda i: (l1(centre, points[i]), i))
    return sorted(order[:k])


def shell(cell, centre, request) -> int:
    """MC shell number: L-inf distance of ``cell`` to the request box of ``centre``."""
    lo = [c - (r - 1) // 2 for c, r in zip(centre, request)]
    return max(max(a - x, x - (a + r - 1), 0) for x, a, r in zip(cell, lo, request))


class KSubsetCommonTests:
    """Checks shared by every method; subclasses set the class attributes."""

    method: str
    exact: bool = False

    @classmethod
    def applies(cls, inst: Instance) -> bool:
        return True

    def options(self, inst: Instance) -> dict:
        return {}

    def expected_guarantee(self, inst: Instance) -> float | None:
        """The factor the docstring promises (1 for exact methods)."""
        return 1.0

    def run(self, inst: Instance, points=None) -> Result:
        pts = inst.points if points is None else points
        return solve(pts, inst.k, method=self.method, **self.options(inst))

    # -- validity -----------------------------------------------------------

    def test_result_is_valid(self, instance):
        res = self.run(instance)
        assert isinstance(res, Result)
        idx = res.indices
        assert np.issubdtype(idx.dtype, np.integer)
        assert idx.shape == (instance.k,) and res.k == instance.k
        assert np.all(np.diff(idx) > 0), f"indices not sorted and distinct: {idx}"
        assert idx.min() >= 0 and idx.max() < instance.n
        np.testing.assert_array_equal(res.points, np.asarray(instance.points, dtype=float)[idx])
        w = naive_weight(instance.points[idx])
        assert close(res.objective, w), (res.objective, w)
        pairs = math.comb(instance.k, 2)
        assert close(res.average, w / pairs if pairs else 0.0)
        assert res.method == self.method
        assert res.status in STATUSES
        assert res.runtime >= 0.0
        assert isinstance(res.extra, dict)

    def test_bound_and_gap_are_consistent(self, sample):
        res = self.run(sample)
        if res.bound is None:
            assert res.gap is None
            return
        assert at_most(res.bound, res.objective)
        expected_gap = 0.0 if res.objective == 0 else max(0.0, (res.objective - res.bound) / res.objective)
        assert close(res.gap, expected_gap)

    def test_result_is_frozen(self, sample):
        res = self.run(sample)
        with pytest.raises(dataclasses.FrozenInstanceError):
            res.objective = -1.0

    # -- ground truth -------------------------------------------------------

    def test_documented_guarantee(self, sample):
        assert self.run(sample).guarantee == self.expected_guarantee(sample)

    def test_objective_against_brute_force(self, instance):
        res, opt = self.run(instance), opt_of(instance)
        if self.exact:
            assert close(res.objective, opt), (res.objective, opt)
            assert res.status == "optimal"
            return
        assert at_most(opt, res.objective), f"below the optimum: {res.objective} < {opt}"
        if res.guarantee is not None:
            assert at_most(res.objective, res.guarantee * opt), (res.objective, res.guarantee, opt)

    def test_bound_is_below_optimum(self, instance):
        res = self.run(instance)
        if res.bound is not None:
            assert at_most(res.bound, opt_of(instance)), (res.bound, opt_of(instance))

    def test_optimal_status_is_true(self, instance):
        res = self.run(instance)
        if res.status == "optimal":
            assert close(res.objective, opt_of(instance))
            assert res.bound is not None and close(res.bound, res.objective)
            assert res.gap == 0.0

    # -- behaviour ----------------------------------------------------------

    def test_deterministic(self, instance):
        first, second = self.run(instance), self.run(instance)
        np.testing.assert_array_equal(first.indices, second.indices)
        assert first.objective == second.objective

    def test_input_is_not_modified(self, sample):
        pts = sample.points.copy()
        self.run(sample, points=pts)
        np.testing.assert_array_equal(pts, sample.points)

    def test_function_and_solve_agree(self, sample):
        direct = METHODS[self.method](sample.points, sample.k, **self.options(sample))
        np.testing.assert_array_equal(direct.indices, self.run(sample).indices)

    def test_list_input_same_as_array(self, sample):
        res = self.run(sample, points=sample.points.tolist())
        np.testing.assert_array_equal(res.indices, self.run(sample).indices)


# ---------------------------------------------------------------------------
# Heuristics


class TestMM(KSubsetCommonTests):
    method = "mm"

    def expected_guarantee(self, inst):
        return mm_factor(inst.d, inst.k)

    def test_matches_definition(self, instance):
        # MM = least W of the k nearest around every point of the coordinate grid.
        pts, k = instance.points, instance.k
        axes = [sorted(set(pts[:, a].tolist())) for a in range(instance.d)]
        best = min(naive_weight(pts[k_nearest(pts, c, k)]) for c in itertools.product(*axes))
        res = self.run(instance)
        assert close(res.objective, best)
        centre = res.extra["centre"]
        assert all(centre[a] in axes[a] for a in range(instance.d))
        assert close(naive_weight(pts[k_nearest(pts, centre, k)]), res.objective)


class TestGenAlg(KSubsetCommonTests):
    method = "gen-alg"

    def expected_guarantee(self, inst):
        return max(1.0, 2.0 - 2.0 / inst.k)  # Krumke et al.; SAND2003 Theorem 6

    def test_matches_definition(self, instance):
        # Gen-Alg = least W of the k nearest around every input point.
        pts, k = instance.points, instance.k
        best = min(naive_weight(pts[k_nearest(pts, p, k)]) for p in pts)
        res = self.run(instance)
        assert close(res.objective, best)
        centre = res.extra["centre_index"]
        assert res.extra["centre"] == pts[centre].tolist()
        assert k_nearest(pts, pts[centre], k) == res.indices.tolist()


class TestMMInc(KSubsetCommonTests):
    method = "mm-inc"

    def expected_guarantee(self, inst):
        return mm_factor(inst.d, inst.k)  # "as MM": swaps only lower W

    def test_never_worse_than_mm(self, instance):
        res = self.run(instance)
        base = solve(instance.points, instance.k, method="mm")
        assert at_most(res.objective, base.objective)
        assert res.extra["mm_objective"] == base.objective


class TestMC1x1(KSubsetCommonTests):
    method = "mc1x1"

    @classmethod
    def applies(cls, inst):
        return inst.shape is not None

    def options(self, inst):
        return {"shape": inst.shape}

    def expected_guarantee(self, inst):
        # d (2 - 2/k): the winner's L1 star is at most d times its L-inf
        # star (its score), at most the score of the OPT member of least
        # star (<= 2 OPT / k), and W <= (k - 1) star.  1 for k = 1.
        return 1.0 if inst.k == 1 else inst.d * (2.0 - 2.0 / inst.k)

    def test_score_matches_definition(self, instance):
        # Candidate c scores the sum of the k smallest shell numbers; the
        # winner has the least score, and takes every point of the inner
        # shells plus part of the last one.
        pts, k = instance.points.tolist(), instance.k
        request = self.options(instance).get("request", (1,) * instance.d)
        shells = [[shell(p, c, request) for p in pts] for c in pts]
        scores = [sum(sorted(row)[:k]) for row in shells]
        tied = [i for i, s in enumerate(scores) if s == min(scores)]
        res = self.run(instance)
        winner = res.extra["centre_index"]
        assert res.extra["centre"] == pts[winner]
        assert res.extra["score"] == min(scores)
        assert res.extra["n_tied"] == len(tied)
        assert winner in tied
        if "tie_break" not in self.options(instance):
            assert winner == tied[0]  # first candidate in input order
        row = np.array(shells[winner])
        last = int(np.sort(row)[k - 1])
        assert res.extra["last_shell"] == last
        assert set(np.flatnonzero(row < last)) <= set(res.indices.tolist())
        assert np.all(row[res.indices] <= last)


class TestMC1x1TieBreak(TestMC1x1):
    def options(self, inst):
        return {"shape": inst.shape, "tie_break": "default"}

    def test_tie_break_keeps_the_best_score(self, instance):
        # Tie-breaking only chooses among candidates of the best shell score.
        plain = solve(instance.points, instance.k, method="mc1x1", shape=instance.shape)
        res = self.run(instance)
        assert res.extra["score"] == plain.extra["score"]
        assert res.extra["n_tied"] == plain.extra["n_tied"]
        assert res.extra["tie_break"] == [round(instance.shape[0] / 5), 13.0, 20.0, 6.0]


class TestMCRequest(TestMC1x1):
    """MC with a requested shape: valid, never below OPT, no guarantee."""

    def options(self, inst):
        return {"shape": inst.shape, "request": (2,) * inst.d}

    def expected_guarantee(self, inst):
        return None


# ---------------------------------------------------------------------------
# Exact methods


class TestLine(KSubsetCommonTests):
    method = "line"
    exact = True

    @classmethod
    def applies(cls, inst):
        return inst.d == 1

    def test_flat_input_same_as_column(self, sample):
        flat = line(sample.points[:, 0], sample.k)
        np.testing.assert_array_equal(flat.indices, self.run(sample).indices)

    def test_optimum_is_a_run_of_sorted_values(self, instance):
        # SAND2003 Theorem 4: the chosen values are consecutive in sorted order.
        res = self.run(instance)
        values = np.sort(instance.points[:, 0])
        chosen = np.sort(res.points[:, 0])
        starts = [s for s in range(instance.n - instance.k + 1) if np.array_equal(values[s : s + instance.k], chosen)]
        assert starts


class TestK3(KSubsetCommonTests):
    method = "k3"
    exact = True

    @classmethod
    def applies(cls, inst):
        return inst.k == 3


class TestBrute(KSubsetCommonTests):
    method = "brute"
    exact = True

    def test_ties_go_to_first_subset_in_lexicographic_order(self, instance):
        best = min(optimal_subsets(instance.points, instance.k))
        assert tuple(self.run(instance).indices.tolist()) == best


# ---------------------------------------------------------------------------
# Method-specific cases


class TestLineRing:
    """``line(..., ring_length=L)`` against brute force with min(|a-b|, L-|a-b|)."""

    @staticmethod
    def _cases():
        rng = np.random.default_rng(21)
        for i in range(60):
            length = [6.0, 7.5, 10.0, 13.0][i % 4]
            n = int(rng.integers(1, 10))
            if i % 2:
                pos = rng.integers(0, int(length), size=n).astype(float)  # repeats, antipodes
            else:
                pos = rng.uniform(0.0, length, size=n)
            yield pos, int(rng.integers(1, n + 1)), length

    def test_ring_against_brute_force(self):
        for pos, k, length in self._cases():
            res = line(pos, k, ring_length=length)
            opt = optimum(pos, k, ring_length=length)
            where = (pos.tolist(), k, length)
            assert close(res.objective, opt), where
            assert close(ring_weight(pos[res.indices], length), res.objective), where
            pairs = math.comb(k, 2)
            assert close(res.average, res.objective / pairs if pairs else 0.0), where
            assert res.status == "optimal" and res.bound == res.objective and res.gap == 0.0
            assert np.all(np.diff(res.indices) > 0)
            np.testing.assert_array_equal(res.points[:, 0], pos[res.indices])

    def test_wraparound_is_used(self):
        # Points 9, 0, 1 are one step apart across the wrap; 0, 1, 5 are not.
        pos = np.array([0.0, 1.0, 5.0, 9.0])
        res = line(pos, 3, ring_length=10)
        assert res.indices.tolist() == [0, 1, 3]
        assert res.objective == 4.0  # 1 + 1 + 2

    def test_long_ring_is_a_line(self):
        # With L at least twice the span no pair is nearer the other way round.
        rng = np.random.default_rng(22)
        for _ in range(20):
            pos = rng.uniform(0.0, 5.0, size=8)
            k = int(rng.integers(1, 9))
            assert close(line(pos, k, ring_length=10.0).objective, line(pos, k).objective)

    def test_ring_through_solve(self):
        pos = np.array([0.0, 2.0, 3.0, 7.0])
        res = solve(pos, 2, method="line", ring_length=8.0)
        assert close(res.objective, optimum(pos, 2, ring_length=8.0))


class TestK3Ties:
    """k3 where the order-3 Voronoi view is fragile: full meshes, duplicates."""

    @pytest.mark.parametrize("shape", [(2, 2), (3, 3), (4, 4), (6, 6), (1, 7), (2, 2, 2), (3, 3, 3), (4, 3, 2)])
    def test_full_mesh(self, shape):
        cells = np.argwhere(np.ones(shape, dtype=bool))
        rng = np.random.default_rng(len(cells))
        for pts in (cells, cells[::-1], cells[rng.permutation(len(cells))]):
            res = k3(pts)
            assert close(res.objective, optimum(pts, 3))
            # Every cell has a neighbour; the best triple is a path of two
            # unit steps, W = 1 + 1 + 2.
            assert res.objective == 4.0
            assert close(naive_weight(pts[res.indices]), res.objective)

    def test_triple_duplicate_weighs_nothing(self):
        rng = np.random.default_rng(31)
        pts = rng.integers(0, 20, size=(30, 2))
        pts[[4, 17, 25]] = [7, 7]
        res = k3(pts)
        assert res.objective == 0.0
        assert np.all(res.points == res.points[0])

    def test_duplicates_and_shared_coordinates(self):
        rng = np.random.default_rng(32)
        for i in range(40):
            d = 1 + i % 3
            n = int(rng.integers(3, 16))
            rows = rng.integers(0, 3, size=(4, d)) * rng.uniform(0.5, 2.0, size=d)
            pts = rows[rng.integers(0, 4, size=n)]  # few distinct points, many copies
            pts[: n // 3, 0] = pts[0, 0]  # and a shared first coordinate
            res = k3(pts)
            assert close(res.objective, optimum(pts, 3)), pts.tolist()

    def test_points_on_a_few_lines(self):
        rng = np.random.default_rng(33)
        for _ in range(20):
            n = 30
            pts = np.stack([rng.choice([0, 5, 6], size=n), rng.integers(0, 40, size=n)], axis=1)
            assert close(k3(pts).objective, optimum(pts, 3))

    def test_brute_and_k3_agree_on_sparse_clusters(self):
        rng = np.random.default_rng(34)
        for _ in range(10):
            centres = rng.uniform(0, 100, size=(5, 2))
            pts = centres[rng.integers(0, 5, size=25)] + rng.normal(scale=0.5, size=(25, 2))
            assert close(k3(pts).objective, brute(pts, 3).objective)


def test_brute_time_limit_returns_best_so_far():
    # C(30, 5) = 142506 subsets are enumerated in more than one block; a
    # tiny time limit stops after the first and says so through the status.
    pts = np.random.default_rng(41).integers(0, 50, size=(30, 2))
    res = brute(pts, 5, time_limit=1e-9)
    assert res.termination == "time_limit"
    assert res.bound is None and res.gap is None
    assert "of 142506 subsets" in res.message
    assert 0 < res.extra["subsets"] < 142506
    assert close(res.objective, naive_weight(pts[res.indices]))
    assert len(set(res.indices.tolist())) == 5


@pytest.mark.parametrize("max_swaps", [1, 2])
def test_mm_inc_max_swaps(max_swaps):
    rng = np.random.default_rng(42)
    for _ in range(20):
        pts = rng.uniform(0, 10, size=(9, 2))
        k = int(rng.integers(2, 8))
        full = solve(pts, k, method="mm-inc")
        capped = solve(pts, k, method="mm-inc", max_swaps=max_swaps)
        assert capped.extra["swaps"] <= max_swaps
        assert at_most(capped.objective, capped.extra["mm_objective"])
        if full.extra["swaps"] <= max_swaps:  # the cap was not reached
            np.testing.assert_array_equal(capped.indices, full.indices)


@pytest.mark.parametrize("method", ["mm", "gen-alg", "mm-inc", "brute"])
def test_integer_and_float_paths_agree(method):
    # Small integer coordinates take an int32 fast path; large or fractional
    # ones the float64 path.  Scaling and translating preserve every
    # distance comparison exactly, hence the chosen indices.
    rng = np.random.default_rng(43)
    for _ in range(25):
        d = int(rng.integers(1, 4))
        pts = rng.integers(0, 4, size=(int(rng.integers(1, 10)), d))
        k = int(rng.integers(1, len(pts) + 1))
        base = solve(pts, k, method=method).indices
        for other in (pts * 2**27 + 3, pts + 0.5, pts * 2.0**-10, pts + 2**40):
            np.testing.assert_array_equal(solve(other, k, method=method).indices, base)
