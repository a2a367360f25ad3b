"""The exact solver and its parts against baselines (``--suite exact``):
the pairwise MIP, the solver without its profile search, scoring every
partition of a full box, brute force for the PTAS, and the proven gaps on
16 x 16, 32 x 32 and 8 x 8 x 8 meshes (:mod:`._goals`)."""

from __future__ import annotations

import time

import numpy as np

from optalloc.ksubset import box_optimum, brute, exact, partition_count, ptas, search_box

from ._common import BenchRow, half_free_mesh, nearly_empty_mesh
from ._goals import GOAL_CASES, QUICK_GOAL_CASES, run_goals


def run_exact(*, ks=(8, 16, 32), seeds=(0, 1, 2), limit: float = 60.0, side: int = 16,
              progress=None) -> list[BenchRow]:
    """The exact solver against the plain pairwise MIP (HiGHS through Pyomo).

    Instances: ``side`` x ``side`` meshes with half the nodes free.  Both
    sides run under ``limit`` seconds; a baseline that hits it is reported
    as "> limit", and the ratio as a lower bound.  ``agree`` means the two
    results are consistent: neither side's proven bound exceeds the other's
    objective (the status column says which side proved optimality).
    """
    rows = []
    for k in ks:
        for seed in seeds:
            pts = half_free_mesh(side, side, seed=seed)
            inst = f"{side}x{side}, 50% free (seed {seed}), k={k}"
            if progress:
                progress(f"exact k={k} seed={seed}")
            ours = exact(pts, k, time_limit=limit)
            base = exact(pts, k, formulation="pairwise", time_limit=limit)
            capped = base.status != "optimal"
            tol = 1e-9 * max(1.0, ours.objective)
            agree = (ours.bound is None or ours.bound <= base.objective + tol) and (
                base.bound is None or base.bound <= ours.objective + tol)
            rows.append(BenchRow(f"exact ({ours.status})", inst, ours.runtime, "pairwise MIP, HiGHS",
                                 base.runtime, agree, capped))
    return rows


#: (width, height, busy nodes, k, seed, where) of the profile-search rows
PROFILE_CASES = ((16, 8, 4, 64, 0, "edge"), (16, 8, 4, 64, 2, "edge"), (16, 8, 4, 64, 3, "edge"),
                 (16, 8, 4, 64, 0, "any"), (16, 8, 4, 64, 2, "any"))


def run_profiles(*, cases=PROFILE_CASES, limit: float = 60.0, progress=None) -> list[BenchRow]:
    """The exact solver with its profile search against the same solver
    without it (``profiles=False``: straight to the LP), on nearly empty
    meshes (``PROFILE_CASES``).  The edge seeds are those whose empty-box
    optimum does not fit (the others close in the box phase either way);
    with busy nodes inside the mesh the search finishes on seed 0 but not
    on seed 2, where it costs its time slice before the LP."""
    rows = []
    for width, height, busy, k, seed, where in cases:
        pts = nearly_empty_mesh(width, height, busy, seed, where=where)
        inst = f"{width}x{height}, {busy} busy ({where}, seed {seed}), k={k}"
        if progress:
            progress(f"exact profiles {inst}")
        ours = exact(pts, k, time_limit=limit)
        base = exact(pts, k, profiles=False, time_limit=limit)
        tol = 1e-9 * max(1.0, ours.objective)
        agree = ours.bound <= base.objective + tol and base.bound <= ours.objective + tol
        rows.append(BenchRow(f"exact ({ours.status}, phase {ours.extra['phase']})", inst, ours.runtime,
                             "exact, profiles=False", base.runtime, agree, base.status != "optimal"))
    return rows


#: full boxes (width, height, k) beyond the 50,000-partition tables
BOX_CASES = ((13, 13, 56), (16, 16, 64), (16, 16, 100))


def run_box(*, cases=BOX_CASES, progress=None) -> list[BenchRow]:
    """The optimum of a full box by the compiled branch-and-bound
    (:func:`optalloc.ksubset.search_box`) against scoring every partition
    (:func:`optalloc.ksubset.box_optimum` with its enumeration limit raised
    to the count and the search off)."""
    search_box(3, 3, 4)  # compile (or load the compiled loops) outside the timing
    box_optimum(3, 3, 4, nodes=0)
    rows = []
    for width, height, k in cases:
        count = partition_count(k, height, width)
        inst = f"full {width}x{height} box, k={k} ({count:,} partitions)"
        if progress:
            progress(f"box optimum {inst}")
        t0 = time.perf_counter()
        value, _, nodes = search_box(width, height, k)
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        base_value, _ = box_optimum(width, height, k, limit=count, nodes=0)
        base = time.perf_counter() - t0
        rows.append(BenchRow(f"box search ({nodes:,} nodes)", inst, ours, "score every partition", base,
                             value == base_value))
    return rows


def run_ptas(*, n: int = 10, k: int = 6, ms=(1, 2, 3), seed: int = 0, space_ms=(1, 2),
             progress=None) -> list[BenchRow]:
    """PTAS running time as m grows, against brute force on the same instance:
    ``n`` free cells of a 6 x 6 mesh with ``k``, then (``space_ms``) 8 free
    cells of a 3 x 3 x 3 mesh with k = 4.

    ``agree`` means the PTAS met its guarantee (exact for m = k; feasible,
    at least the optimum, where no factor applies)."""
    rng = np.random.default_rng(seed)
    cube = np.array([(x, y, z) for z in range(3) for y in range(3) for x in range(3)], dtype=float)
    cases = [(half_free_mesh(6, 6, seed=seed)[:n], k, ms, f"{n} free cells of a 6x6 mesh, k={k}"),
             (cube[np.sort(rng.choice(len(cube), 8, replace=False))], 4, space_ms,
              "8 free cells of a 3x3x3 mesh, k=4")]
    rows = []
    for pts, kk, mms, inst in cases:
        t0 = time.perf_counter()
        opt = brute(pts, kk).objective
        t_brute = time.perf_counter() - t0
        for m in mms:
            if progress:
                progress(f"ptas m={m} ({inst})")
            res = ptas(pts, kk, m=m)
            ok = opt - 1e-9 <= res.objective <= (res.guarantee or float("inf")) * opt + 1e-9
            rows.append(BenchRow(f"ptas m={m} (W/OPT {res.objective / opt:.3f})", inst, res.runtime,
                                 "brute force", t_brute, bool(ok)))
    return rows


def run_exact_suite(*, quick: bool = False, limit: float | None = None, progress=None) -> list[BenchRow]:
    """Every case of the exact suite; ``quick``: one instance of each kind."""
    limit = limit or 60.0
    ks, seeds = ((8,), (0,)) if quick else ((8, 16, 32), (0, 1, 2))
    rows = run_exact(ks=ks, seeds=seeds, limit=limit, side=8 if quick else 16, progress=progress)
    rows += run_profiles(cases=((8, 8, 4, 32, 0, "any"),) if quick else PROFILE_CASES, limit=limit,
                         progress=progress)
    rows += run_box(cases=((12, 12, 64),) if quick else BOX_CASES, progress=progress)
    rows += run_ptas(ms=(1, 2) if quick else (1, 2, 3), space_ms=(1,) if quick else (1, 2), progress=progress)
    rows += run_goals(cases=QUICK_GOAL_CASES if quick else GOAL_CASES, limit=limit, progress=progress)
    return rows
