"""Certify the whole NASA iPSC trace on a 32x32 mesh, processor counts times 8.

The NASA Ames iPSC/860 log (Parallel Workloads Archive, cleaned) ran on 128
nodes; with every job's processor count multiplied by 8 it fills a 32x32
mesh (1,024 nodes) as it filled the iPSC.  MC1x1 drives; at every decision
MM, Gen-Alg, MC1x1, MM+Inc and Hilbert best fit are compared with the exact
optimum (or the bracket a time limit leaves).  The decisions' optima are
solved in ``--workers`` local processes, or on a Dask cluster
(``--scheduler-address``); ``--out`` keeps every row as it is certified, and
``--resume`` continues a stopped run.

Usage, from the root of the repository::

    python scripts/certify_nasa.py --workers 2 --out nasa32.jsonl
    python scripts/certify_nasa.py --jobs 500 --time-limit 20 --total-time-limit 600
    python scripts/certify_nasa.py --no-exact     # cheap bounds only

It prints the certification table and one summary line: decisions, proven,
mean gap, decisions per second and, for a part of the trace, the projected
time of the whole at the same rate.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

from optalloc.sim import Trace, certify, read_swf

TRACE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "traces",
                     "NASA-iPSC-1993-3.1-cln.swf")


def nasa_trace(path: str, factor: int, limit: int | None) -> Trace:
    """The trace with every processor count multiplied by ``factor``."""
    base = read_swf(path)
    jobs = tuple(replace(j, procs=j.procs * factor) for j in base.jobs)
    if limit is not None:
        jobs = jobs[:limit]
    return Trace(jobs, max_procs=base.max_procs * factor, report=base.report, source=base.source)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trace", default=TRACE, help="the NASA iPSC SWF file (default ../shared/data/traces/...)")
    p.add_argument("--machine", default="32x32")
    p.add_argument("--factor", type=int, default=8, help="multiply processor counts by this (default 8)")
    p.add_argument("--jobs", type=int, help="only the first N jobs")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per exact solve (default 60)")
    p.add_argument("--total-time-limit", type=float, help="seconds for the whole run")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--scheduler-address", help="a Dask scheduler (tcp://HOST:PORT)")
    p.add_argument("--out", help="rows as .csv or .jsonl, written as they are certified")
    p.add_argument("--resume", action="store_true", help="continue --out")
    p.add_argument("--allocators", default="mm,gen-alg,mc1x1,mm-inc,1d:hilbert:best-fit")
    p.add_argument("--no-exact", action="store_true", help="cheap lower bounds only (no exact solves)")
    args = p.parse_args(argv)
    if not os.path.isfile(args.trace):
        print(f"certify_nasa: {args.trace}: no such file (../shared/data is absent?)", file=sys.stderr)
        return 2
    trace = nasa_trace(args.trace, args.factor, args.jobs)
    t0 = time.perf_counter()
    cert = certify(trace, args.machine, allocators=args.allocators.split(","), exact=not args.no_exact,
                   time_limit=args.time_limit,
                   total_time_limit=args.total_time_limit, workers=args.workers,
                   cluster=args.scheduler_address, out=args.out, resume=args.resume, progress=True)
    wall = time.perf_counter() - t0
    print(cert.table())
    n = len(cert)
    rate = n / wall if wall > 0 else float("nan")
    full = len(nasa_trace(args.trace, args.factor, None))
    print(f"nasa x{args.factor} on {args.machine}: {n} decisions, {cert.n_proven} proven, mean gap "
          f"{100 * cert.mean_gap:.4f}%, termination {cert.termination}, {wall:.1f} s ({rate:.2f} decisions/s; "
          f"{cert.cache_hits} repeats, {cert.symmetry_hits} symmetric), "
          f"whole trace ({full} jobs) projected {full / rate / 60:.1f} min at this rate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
