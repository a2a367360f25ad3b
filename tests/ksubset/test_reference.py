"""The vectorised solvers choose exactly what the plain-Python references choose."""

import numpy as np
import pytest

from optalloc.bench import half_free_mesh
from optalloc.bench._reference import (
    gen_alg_reference,
    line_reference,
    mc1x1_reference,
    mm_reference,
    weight_reference,
)
from optalloc.ksubset import gen_alg, line, mc1x1, mm, weight


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [2, 5, 11])
def test_same_sets_as_references(seed, k):
    pts = half_free_mesh(7, 6, seed=seed)
    assert mm(pts, k).indices.tolist() == mm_reference(pts, k)[0]
    assert gen_alg(pts, k).indices.tolist() == gen_alg_reference(pts, k)[0]
    res = mc1x1(pts, k, shape=(7, 6))
    ref_set, ref_score = mc1x1_reference(pts, k)
    assert res.indices.tolist() == ref_set and res.extra["score"] == ref_score


def test_weight_and_line_references():
    rng = np.random.default_rng(0)
    cloud = rng.integers(0, 50, size=(60, 3))
    assert weight(cloud) == weight_reference(cloud)
    q = rng.integers(0, 400, size=200)
    assert line(q, 17).objective == line_reference(q, 17)
