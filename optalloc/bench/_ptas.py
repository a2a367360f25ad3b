"""The strip-enumeration PTAS at speed (``--suite ptas``): exact with
m = k on 12 to 16 points against brute force, m = 3 and 4 on 40 to 100
points against the exact solver, and the default m chosen by the cost
model against the same exact solve."""

from __future__ import annotations

import numpy as np

from optalloc.ksubset import brute, exact, ptas

from ._common import BenchRow, half_free_mesh

#: (points, k) of the m = k rows: the first free cells of a 6 x 6 mesh
EXACT_CASES = ((12, 4, 0), (12, 5, 0), (16, 4, 1), (16, 6, 1), (16, 8, 1))
#: (points, k, m, kind) of the rows against the exact solver
LARGE_CASES = ((40, 8, 3, "mesh"), (40, 12, 4, "mesh"), (60, 12, 4, "mesh"), (100, 8, 4, "mesh"),
               (100, 12, 3, "mesh"), (100, 12, 4, "mesh"), (100, 16, 4, "mesh"), (60, 12, 4, "random"),
               (100, 12, 4, "random"))
#: (points, k, kind) of the default-m rows
DEFAULT_CASES = ((40, 12, "mesh"), (100, 12, "mesh"), (100, 16, "random"))
QUICK_EXACT = ((12, 4, 0), (16, 6, 1))
QUICK_LARGE = ((40, 8, 3, "mesh"), (60, 12, 4, "mesh"))
QUICK_DEFAULT = ((40, 12, "mesh"),)


def _points(n: int, kind: str) -> tuple[np.ndarray, str]:
    if kind == "mesh":
        return half_free_mesh(16, 16, seed=0)[:n], f"{n} free cells of a 16x16 mesh"
    return np.random.default_rng(0).integers(0, 30, size=(n, 2)).astype(float), f"{n} random points of [0, 30)^2"


def _within(res, ref) -> bool:
    """The PTAS's set is no lighter than the exact solver's bound, and
    within its guarantee of the exact optimum when that is proven."""
    tol = 1e-9 * max(1.0, abs(ref.objective))
    if ref.bound is not None and res.objective < ref.bound - tol:
        return False
    if ref.status == "optimal" and res.guarantee is not None:
        return res.objective <= res.guarantee * ref.objective + tol
    return True


def run_ptas_suite(*, quick: bool = False, limit: float = 60.0, progress=None) -> list[BenchRow]:
    """The PTAS suite: m = k against brute force (agree: the same W), m = 3
    and 4 and the default m against :func:`optalloc.ksubset.exact` with
    ``limit`` seconds (agree: no lighter than its bound, within the
    guarantee of its optimum).  The first solve also compiles the PTAS's
    loops (or loads them from the cache), and the exact solver's: both
    run once before timing."""
    warm = half_free_mesh(6, 6, seed=0)[:8]
    ptas(warm, 3, m=2)
    ptas(warm, 3)
    exact(half_free_mesh(16, 16, seed=1)[:40], 8)
    rows = []
    for n, k, seed in QUICK_EXACT if quick else EXACT_CASES:
        pts = half_free_mesh(6, 6, seed=seed)[:n]
        inst = f"{n} free cells of a 6x6 mesh (seed {seed}), k={k}"
        if progress:
            progress(f"ptas m=k ({inst})")
        res = ptas(pts, k, m=k)
        ref = brute(pts, k)
        agree = res.status == "optimal" and abs(res.objective - ref.objective) <= 1e-9 * max(1.0, ref.objective)
        rows.append(BenchRow(f"ptas m={k} ({res.extra['combinations']} combinations)", inst, res.runtime,
                             "brute force", ref.runtime, bool(agree)))
    for n, k, m, kind in QUICK_LARGE if quick else LARGE_CASES:
        pts, where = _points(n, kind)
        inst = f"{where}, k={k}"
        if progress:
            progress(f"ptas m={m} ({inst})")
        res = ptas(pts, k, m=m)
        ref = exact(pts, k, time_limit=limit)
        rows.append(BenchRow(f"ptas m={m} (W/OPT {res.objective / ref.objective:.3f})", inst, res.runtime,
                             f"exact ({ref.status})", ref.runtime, _within(res, ref), ref.status != "optimal"))
    for n, k, kind in QUICK_DEFAULT if quick else DEFAULT_CASES:
        pts, where = _points(n, kind)
        inst = f"{where}, k={k}"
        if progress:
            progress(f"ptas default m ({inst})")
        res = ptas(pts, k)
        ref = exact(pts, k, time_limit=limit)
        case = f"ptas default m={res.extra['m']} (predicted {res.extra['predicted_seconds']:.2f} s)"
        rows.append(BenchRow(case, inst, res.runtime, f"exact ({ref.status})", ref.runtime, _within(res, ref),
                             ref.status != "optimal"))
    return rows
