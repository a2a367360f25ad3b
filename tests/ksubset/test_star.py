"""The star bound (a Lagrangian bound without an LP) against enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from optalloc.bench import half_free_mesh
from optalloc.ksubset import brute, exact
from optalloc.ksubset.engine._star import star_bound


def instance(rng, dim):
    """A small random instance: free cells of a lattice box (2D or 3D),
    sometimes real-valued points, sometimes repeated points."""
    kind = rng.integers(4)
    if kind == 0:  # real coordinates
        pts = rng.uniform(0, 6, size=(int(rng.integers(4, 11)), dim))
    else:
        sides = rng.integers(2, 5, size=dim)
        cells = np.array(list(itertools.product(*(range(int(s)) for s in sides))))
        keep = rng.random(len(cells)) < rng.uniform(0.4, 1.0)
        pts = cells[keep][:10]
        if kind == 3 and len(pts) >= 2:  # repeated points
            pts = np.concatenate([pts, pts[: int(rng.integers(1, 3))]])[:10]
    return pts.astype(float)


def all_weights(dist, k):
    """Every k-subset (as a boolean matrix) and its W, by enumeration."""
    n = len(dist)
    sets = np.array(list(itertools.combinations(range(n), k)))
    w = np.array([dist[np.ix_(s, s)].sum() / 2 for s in sets])
    member = np.zeros((len(sets), n), dtype=bool)
    member[np.arange(len(sets))[:, None], sets] = True
    return member, w


def check_many(count, seed, steps):
    rng = np.random.default_rng(seed)
    checked = 0
    for t in range(count):
        pts = instance(rng, 2 + t % 2)
        n = len(pts)
        if n < 3:
            continue
        k = int(rng.integers(2, n))
        dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
        member, w = all_weights(dist, k)
        opt = w.min()
        # the cutoff: the optimum itself (no excluded point may be in an
        # optimal set) or a value above it
        cutoff = opt if rng.random() < 0.5 else opt + rng.uniform(0, 0.2) * max(opt, 1.0)
        res = star_bound(dist, k, upper=opt + rng.uniform(0, 3), cutoff=cutoff, steps=steps)
        assert res.value <= opt + 1e-7 * max(1.0, opt), (pts.tolist(), k, res.value, opt)
        # the lightest set among the stars' choices is a k-set of that W
        if res.indices is not None:
            assert len(set(res.indices.tolist())) == k
            assert abs(dist[np.ix_(res.indices, res.indices)].sum() / 2 - res.found) <= 1e-9 * max(1.0, opt)
            assert res.found >= opt - 1e-9 * max(1.0, opt)
        # every k-set weighs at least the sum of its points' values, and the
        # bound is the sum of the k least
        if res.values is not None:
            assert (member @ res.values <= w + 1e-7 * max(1.0, opt)).all(), (pts.tolist(), k)
            assert abs(np.sort(res.values)[:k].sum() - res.value) <= 1e-6 * max(1.0, opt)
        # an excluded point is in no set at or below the cutoff
        light = member[w <= cutoff + 1e-9]
        assert not (light[:, res.excluded]).any(), (pts.tolist(), k, cutoff)
        checked += 1
    return checked


def test_star_bound_never_exceeds_the_optimum_2d_and_3d():
    # 300 random instances, 2D and 3D, lattice, real and repeated points:
    # the bound at or below the optimum, the excluded points in no set at
    # or below the cutoff (every optimal set when the cutoff is the optimum)
    assert check_many(300, seed=0, steps=40) > 250


@pytest.mark.slow
def test_star_bound_never_exceeds_the_optimum_many():
    assert check_many(6000, seed=1, steps=80) > 5000


def test_star_bound_rises_prices_triangles_and_excludes_far_points():
    pts = half_free_mesh(6, 6, seed=0).astype(float)
    far = np.array([[40.0, 40.0], [41.0, 40.0]])  # two outliers no light set takes
    pts = np.concatenate([pts, far])
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
    k = 8
    opt = brute(pts, k).objective
    first = star_bound(dist, k, steps=1).value
    level1 = star_bound(dist, k, upper=opt, steps=300, triangles=False)
    best = star_bound(dist, k, upper=opt, cutoff=opt, steps=300)
    assert first < level1.value <= best.value <= opt
    assert best.value > level1.value + 1  # the triangle rows raise it (here to the optimum, 71)
    assert np.ceil(best.value) == opt
    assert best.excluded[-2:].all()


def test_exact_takes_the_star_bound_beside_the_lp(monkeypatch):
    # the star bound runs beside the cut loop from STAR_MIN_POINTS points
    # on (lowered here so that brute force can check the answer)
    from optalloc.ksubset.engine import _exact

    monkeypatch.setattr(_exact, "STAR_MIN_POINTS", 10)
    pts = half_free_mesh(7, 7, seed=0)
    k = 8
    opt = brute(pts, k).objective
    res = exact(pts, k, profiles=False)
    assert res.status == "optimal" and res.objective == opt
    assert res.extra["star_bound"] <= opt
    assert "star_bound" not in exact(pts, k, profiles=False, star=False).extra


def test_star_option_must_be_a_bool():
    with pytest.raises(ValueError, match="`star` must be True or False"):
        exact(half_free_mesh(6, 6, seed=0), 6, star="yes")


def test_a_star_proof_ends_the_lp(monkeypatch):
    # when the star bound proves the incumbent optimal it cancels the LP
    # and the run ends with phase "star"; here the LP waits for it
    import time

    from optalloc.ksubset.engine import _exact
    from optalloc.ksubset.engine._pairlp import _PairLP

    monkeypatch.setattr(_exact, "STAR_MIN_POINTS", 10)
    solve = _PairLP.solve

    def slow_solve(self, time_left):
        end = time.perf_counter() + 20
        while time.perf_counter() < end and not getattr(self.h, "_cancelled", False):
            time.sleep(0.01)
        return solve(self, time_left)

    cancel = []

    def watch(self, lp):
        original = lp.h.cancelSolve

        def cancel_solve():
            lp.h._cancelled = True
            cancel.append(1)
            return original()

        lp.h.cancelSolve = cancel_solve
        StarRace_watch(self, lp)

    from optalloc.ksubset.engine._star import StarRace

    StarRace_watch = StarRace.watch
    monkeypatch.setattr(StarRace, "watch", watch)
    monkeypatch.setattr(_PairLP, "solve", slow_solve)
    pts = np.concatenate([half_free_mesh(6, 6, seed=0), [[40, 40], [41, 40]]])
    res = exact(pts, 8, profiles=False)
    assert res.status == "optimal" and res.objective == brute(pts, 8).objective
    assert res.extra["phase"] == "star" and cancel


def test_the_lp_takes_the_rows_the_star_prices_once():
    # the star's priced triangle rows (apex i, legs j and l in either order)
    # go into the pairwise LP unless it holds them already
    from optalloc.ksubset.engine._cutloop import _add_star_rows
    from optalloc.ksubset.engine._pairlp import _PairLP

    pts = half_free_mesh(6, 6, seed=0)
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2).astype(float)
    lp = _PairLP(dist, 6, "simplex")
    lp.add_triangles(np.array([[0, 1, 2], [3, 4, 5]]))
    tri = np.array([[0, 2, 1], [3, 4, 5], [1, 0, 2], [7, 8, 9]])  # two held (one with its legs swapped)
    assert _add_star_rows(lp, tri) == 2
    held = {(int(i), *sorted((int(j), int(l)))) for i, j, l in lp.triangles()}
    assert held == {(0, 1, 2), (3, 4, 5), (1, 0, 2), (7, 8, 9)} and len(lp.triangles()) == 4
    assert _add_star_rows(lp, tri) == 0 and _add_star_rows(lp, np.empty((0, 3), dtype=np.int64)) == 0


def test_exact_with_the_stars_rows_in_the_lp_equals_brute(monkeypatch):
    # the triangle rows hold for every set (y_ij = x_i x_j), so the LP may
    # take any of them: with the star beside the LP on small inputs (its own
    # proofs switched off, so that the LP runs its rounds), the rows it
    # prices join the LP and every answer is still the optimum
    from optalloc.ksubset.engine import _exact
    from optalloc.ksubset.engine._star import StarRace

    monkeypatch.setattr(_exact, "STAR_MIN_POINTS", 10)
    monkeypatch.setattr(StarRace, "prove", lambda self: None)
    added = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        pts = half_free_mesh(7, 7, seed=seed)
        k = int(rng.integers(6, 10))
        res = exact(pts, k, profiles=False)
        assert res.status == "optimal" and res.objective == brute(pts, k).objective
        assert res.bound <= res.objective
        added += res.extra.get("star_rows", 0)
    assert added > 0


def _numpy_stars(dist, k, A, prices):
    """The stars' values, each row's k - 1 least entries (ascending) and C,
    as numpy finds them (the reference of the compiled rows): C with an
    infinite diagonal, its rows sorted."""
    if prices is not None:
        C, apex = (dist + prices[0]) / 2.0 + A, prices[1]
    else:
        C, apex = dist / 2.0 + A, np.zeros(len(dist))
    np.fill_diagonal(C, np.inf)
    least = np.sort(C, axis=1)[:, : k - 1]
    return least.sum(axis=1) - apex, least, C


@pytest.mark.parametrize("levels", ["fresh", "low", "carried"])
def test_star_values_equal_a_partial_sort_of_the_rows(levels):
    """Whatever the levels the rows are gathered from (none, too low, or
    carried along a sequence of calls as an ascent does), each star takes
    the k - 1 least entries of its row off the diagonal: the same values
    as a sort, distinct partners, and v their sum less the apex price.
    Lattice distances give many ties."""
    from optalloc.ksubset.engine._star import RowLevels, star_values

    rng = np.random.default_rng(41)
    for trial in range(150):
        n = int(rng.integers(2, 80))
        k = int(rng.integers(2, n + 1))
        pts = rng.integers(0, 5, size=(n, 2))
        dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=-1).astype(float)
        kept = RowLevels.fresh(n)
        A = np.zeros((n, n))
        for call in range(4):
            move = rng.normal(size=(n, n)) * (0.3 if call % 2 else 0.01) * (trial % 3 != 0)
            A = A + move - move.T
            prices = (rng.normal(size=(n, n)) * (trial % 4 == 1), rng.random(n)) if trial % 2 else None
            if levels == "fresh":
                kept = None
            elif levels == "low":
                kept = RowLevels(np.full(n, -np.inf), np.zeros(n))
            v, part = star_values(dist, k, A, prices, kept)
            want, least, C = _numpy_stars(dist, k, A, prices)
            assert np.allclose(v, want, rtol=1e-12, atol=1e-9), (trial, call)
            assert np.array_equal(np.sort(np.take_along_axis(C, part, axis=1), axis=1), least), (trial, call)
            assert all(len(set(row)) == k - 1 and i not in row for i, row in enumerate(part.tolist()))


def _numpy_separate(chosen, part, Z, most):
    """The violated triangle rows as numpy finds them (the reference of the
    compiled separation)."""
    found, viol = [], []
    for i in chosen:
        N = part[i]
        yi = (Z[i, N] + Z[N, i]) / 2.0
        sub = Z[np.ix_(N, N)]
        T = yi[:, None] + yi[None, :] - (sub + sub.T) / 2.0 - 1.0
        a, b = np.nonzero(np.triu(T, 1) > 1e-9)
        if len(a):
            found.append(np.stack([np.full(len(a), i), N[a], N[b]], axis=1))
            viol.append(T[a, b])
    if not found:
        return np.empty((0, 3), dtype=np.int64)
    return np.concatenate(found)[np.argsort(-np.concatenate(viol), kind="stable")[:most]]


def test_separation_finds_the_rows_numpy_finds_in_its_order():
    """The violated rows of a star solution (random picks Z, some partners
    picking each other back), the most violated first, ties in the order
    found, cut at ``most``: as numpy's version of the separation."""
    from optalloc.ksubset.engine._star import _separate

    rng = np.random.default_rng(5)
    for trial in range(200):
        n = int(rng.integers(3, 40))
        k = int(rng.integers(2, n + 1))
        part = np.array([rng.permutation(np.delete(np.arange(n), i))[: k - 1] for i in range(n)], dtype=np.int64)
        chosen = rng.choice(n, size=k, replace=False)
        Z = np.zeros((n, n))
        rows = np.repeat(chosen, k - 1)
        Z[rows, part[chosen].ravel()] = 1.0
        back = rng.random(n) < 0.5  # some points pick their pickers (two-way picks)
        for i in np.flatnonzero(back):
            Z[i, rng.choice(n, size=min(k - 1, n - 1), replace=False)] = 1.0
        np.fill_diagonal(Z, 0.0)
        most = int(rng.integers(1, 3 * n))
        got, want = _separate(chosen, part, Z, most), _numpy_separate(chosen, part, Z, most)
        assert np.array_equal(got, want), trial


def test_pair_prices_add_each_priced_row_to_its_three_pairs_and_its_apex():
    """The prices of the triangle rows (apex i, legs j and l, price tau):
    +tau on (i, j) and (i, l) both ways, -tau on (j, l) both ways, tau off
    the apex; as a weighted count of those entries."""
    from optalloc.ksubset.engine._star import _pair_prices

    rng = np.random.default_rng(8)
    for n, rows in [(5, 12), (30, 500), (64, 4000)]:
        tri = rng.integers(0, n, size=(rows, 3))
        tau = np.abs(rng.normal(size=rows)) * (rng.random(rows) < 0.7)
        i, j, l = (np.ascontiguousarray(c) for c in tri.T)
        P, apex = _pair_prices(i, j, l, tau, n)
        cells = np.concatenate([i * n + j, j * n + i, i * n + l, l * n + i, j * n + l, l * n + j])
        weights = np.concatenate([tau, tau, tau, tau, -tau, -tau])
        assert np.allclose(P, np.bincount(cells, weights=weights, minlength=n * n).reshape(n, n))
        assert np.allclose(apex, np.bincount(i, weights=tau, minlength=n))
