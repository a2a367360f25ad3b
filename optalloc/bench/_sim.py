"""Performance figures of the simulator and the certification, against baselines (``--suite sim``).

Two cases, each a :class:`~optalloc.bench.BenchRow`:

(a) ``simulate``: the NASA Ames iPSC/860 trace on a 16 x 8 mesh, EASY and
    MC1x1; baseline: the same simulation with the allocator's cache of
    repeated states off.  ``agree``: the two give the same records.
(b) ``certify``: the NASA trace scaled down by 4 on an 8 x 4 mesh (Bender et
    al. 2005, sec. 6), MC1x1 driving, MM, Gen-Alg, MC1x1, MM+Inc and
    best fit along a generalised Hilbert curve compared, the exact optimum of
    every decision with one shared :class:`~optalloc.ksubset.ExactSession`.
    Two rows: the first ``baseline_jobs`` jobs with and without every
    cache (no session, no allocator caches), measured; ``agree``: the same
    W for every allocator and the same optima, and no broken certificate.
    Then the whole trace, cached; its baseline is an *estimate*, the
    cached time times the slowdown measured on the first jobs (the row
    says so), since the uncached run of the whole trace would take several
    more minutes; ``agree``: no broken certificate.

The trace is looked for in ``../shared/data/traces/`` next to the
repository; when it is absent the cases are skipped with a note.
"""

from __future__ import annotations

import time
from pathlib import Path

from optalloc.sim import DEFAULT_ALLOCATORS, KSubsetAllocator, Trace, certify, read_swf, simulate

from ._common import BenchRow

NASA_TRACE = "NASA-iPSC-1993-3.1-cln.swf"


def nasa_trace_path() -> Path:
    """Where the NASA iPSC/860 trace is expected (it may be missing)."""
    import optalloc

    return Path(optalloc.__file__).resolve().parents[2] / "shared" / "data" / "traces" / NASA_TRACE


def _note(progress, text):
    if progress:
        progress(text)


def run_sim_bench(*, quick=False, progress=None, baseline_jobs=None) -> list[BenchRow]:
    """Time the simulator and the certification on the NASA trace.

    Parameters
    ----------
    quick : bool
        Small slices (the first 1500 jobs for (a), 300 for (b), whose
        whole-trace row is then left out): seconds.
    progress : callable, optional
        Called with a short text before each run (and with the note when
        the trace is missing).
    baseline_jobs : int, optional
        Jobs of the uncached certification baseline (default 2000; 300
        with ``quick``).

    Returns
    -------
    list of BenchRow
        Empty when the trace is missing.
    """
    path = nasa_trace_path()
    if not path.is_file():
        _note(progress, f"skipped: {path} not found")
        return []
    rows = []

    # (a) simulation, MC1x1 with and without its cache of repeated states
    trace = read_swf(path)
    if quick:
        trace = Trace(trace.jobs[:1500], max_procs=trace.max_procs)
    inst = f"NASA iPSC/860, {len(trace)} jobs, 16x8 mesh, EASY"
    _note(progress, "simulate (MC1x1, cached)")
    t = time.perf_counter()
    fast = simulate(trace, "16x8", scheduler="easy", allocator=KSubsetAllocator("mc1x1"))
    t_fast = time.perf_counter() - t
    _note(progress, "simulate (MC1x1, no cache)")
    t = time.perf_counter()
    slow = simulate(trace, "16x8", scheduler="easy", allocator=KSubsetAllocator("mc1x1", cache=0))
    t_slow = time.perf_counter() - t
    rows.append(BenchRow("simulate mc1x1", inst, t_fast, "allocator cache off", t_slow,
                         fast.records == slow.records))

    # (b) certification, Bender et al. 2005 sec. 6: NASA scaled by 4 on 32 processors
    trace = read_swf(path, scale=4)
    if quick:
        trace = Trace(trace.jobs[:300], max_procs=trace.max_procs)
    n_base = baseline_jobs if baseline_jobs is not None else (300 if quick else 2000)
    head = Trace(trace.jobs[:min(n_base, len(trace))], max_procs=trace.max_procs)
    names = DEFAULT_ALLOCATORS
    _note(progress, f"certify, first {len(head)} jobs (cached)")
    cached = certify(head, "8x4", driver="mc1x1", allocators=names)
    _note(progress, f"certify, first {len(head)} jobs (no cache)")
    plain = certify(head, "8x4", driver="mc1x1", allocators=names, cache=False)
    same = [(r.W, r.lower, r.upper) for r in plain.rows] == [(r.W, r.lower, r.upper) for r in cached.rows]
    rows.append(BenchRow(f"certify, first {len(head)} jobs ({cached.cache_hits} cache hits)",
                         f"NASA / 4, 8x4 mesh, EASY, {len(names)} allocators", cached.runtime,
                         "caches off", plain.runtime, same and not cached.check()))
    if len(trace) > len(head):
        _note(progress, f"certify, all {len(trace)} jobs (cached)")
        cert = certify(trace, "8x4", driver="mc1x1", allocators=names)
        factor = plain.runtime / cached.runtime
        rows.append(BenchRow(f"certify ({cert.n_proven}/{len(cert)} proven, {cert.cache_hits} cache hits)",
                             f"NASA / 4, {len(trace)} jobs, 8x4 mesh, EASY, {len(names)} allocators",
                             cert.runtime, f"caches off, estimated (x{factor:.2f} as on the first rows)",
                             cert.runtime * factor, not cert.check()))
    return rows
