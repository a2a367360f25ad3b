"""Rerun the simulation study of Leung et al. (2002, sec. 3) on the NASA
iPSC/860 trace and draw the figures of docs/leung-study.md.

    python scripts/leung_study.py [--db leung.sqlite] [--workers 2] [--force]

1. The sweep of docs/examples/leung-nasa.toml (20 simulations: four 1D
   allocators x work multiples 1, 1.25, ..., 2 on a 16x8 mesh with the
   Cplant queue), then Leung's Fig. 1: the average bounding cube over the
   smallest one, and the average span, against the work multiple
   (docs/figures/leung-fig1.png).
2. SAND2003-3702 sec. 4.5 (Figs. 4 and 5): a job stream like the Zermatt
   test (91 jobs of 2 processors, 33 of 5, 31 of 25, 33 of 30, each size
   with one run time), simulated with the time-per-distance runtime model
   under four allocators; the run time of the 30-processor jobs against
   their average hops, span and bounding-box half perimeter
   (docs/figures/sand-correlation.png).

3. With --fairness: SAND2003-3702 ch. 7 on the same trace, work multiple
   1.5: the share of jobs missing their fair-start time under EASY and the
   Cplant schedulers (a Markdown table on standard output).

Run from the root of the repository; the trace is read from
../shared/data/traces/.  Figures are not replaced without --force.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from optalloc.sim import Job, load_sweep, plot_sweep_lines, read_sweep, run_sweep, simulate

TOML = os.path.join(ROOT, "docs", "examples", "leung-nasa.toml")
FIG1 = os.path.join(ROOT, "docs", "figures", "leung-fig1.png")
CORR = os.path.join(ROOT, "docs", "figures", "sand-correlation.png")
ALLOCATORS = ("1d:row_major:free-list", "1d:gilbert:free-list", "1d:gilbert:first-fit", "1d:gilbert:best-fit")


def zermatt_stream(seed=0):
    """SAND sec. 4.5's job stream: sizes 2, 5, 25, 30 (91, 33, 31, 33 jobs), in a seeded order,
    large jobs first; one run time per size (seconds)."""
    rng = np.random.default_rng(seed)
    run = {2: 300.0, 5: 600.0, 25: 1800.0, 30: 2400.0}
    sizes = [2] * 91 + [5] * 33 + [25] * 31 + [30] * 33
    order = [25, 30, 25, 30] + list(rng.permutation(sizes[:-2]))  # the stream starts with large jobs
    jobs, t = [], 0.0
    for i, k in enumerate(order[: len(sizes)]):
        jobs.append(Job(i + 1, t, run[int(k)], int(k), user=0))
        t += float(rng.exponential(120.0))
    return jobs


def figure_one(rows, path):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 7.6), layout="constrained")
    top, bottom = fig.subplots(2, 1)
    plot_sweep_lines(rows, "mean_bbox_cube_ratio", ax=top,
                     title="average bounding cube / smallest bounding cube")
    plot_sweep_lines(rows, "mean_ring_span", ax=bottom, title="average span")
    fig.suptitle("NASA iPSC/860 on a 16x8 mesh, Cplant queue", fontsize=10)
    fig.savefig(path, dpi=100, bbox_inches="tight")


def correlation(path):
    from matplotlib.figure import Figure

    jobs = zermatt_stream()
    recs = []
    for a in ALLOCATORS:
        res = simulate(jobs, "16x8", scheduler="fcfs", allocator=a, kill_at_estimate=False,
                       runtime_model="time-per-distance:0.25,1,0.2")
        recs += [r for r in res.records if r.procs == 30]
    run = np.array([r.run for r in recs])
    fig = Figure(figsize=(10.5, 3.4))
    for ax, (field, label) in zip(fig.subplots(1, 3), (("avg_l1", "average hops"),
                                                     ("ring_span", "span (along each allocator's order)"),
                                                     ("bbox_half_perimeter", "bounding-box half perimeter"))):
        x = np.array([np.nan if getattr(r, field) is None else getattr(r, field) for r in recs], dtype=float)
        ok = ~np.isnan(x)
        ax.scatter(x[ok], run[ok], s=10, alpha=0.6)
        rho = np.corrcoef(x[ok], run[ok])[0, 1]
        ax.set_xlabel(label)
        ax.set_title(f"r = {rho:.2f}", fontsize=9)
        ax.grid(color="0.9")
    fig.axes[0].set_ylabel("run time of 30-processor jobs (s)")
    fig.suptitle("time-per-distance:0.25,1,0.2 on a 16x8 mesh, four 1D allocators", fontsize=10)
    fig.savefig(path, dpi=100, bbox_inches="tight")


SCHEDULERS = ("easy", "cplant", "cplant-cap72", "cplant-starve72", "cplant-nohog", "cplant-tweaks",
              "cplant-conservative", "cplant-dynamic")


def fairness_table():
    from optalloc.sim import read_swf, work_multiple

    path = os.path.join(ROOT, "..", "shared", "data", "traces", "NASA-iPSC-1993-3.1-cln.swf")
    trace = work_multiple(read_swf(path, max_procs=128), 1.5)
    print("| scheduler | jobs missing their fair start | mean lateness of those | mean wait | max wait | "
          "utilisation | CPU |")
    print("|---|---|---|---|---|---|---|")
    for name in SCHEDULERS:
        t0 = time.process_time()
        s = simulate(trace, "16x8", scheduler=name, allocator="1d:gilbert:best-fit", fair_start=True).summary
        print(f"| `{name}` | {100 * s.fair_start_missed_share:.1f} % | {s.fair_start_mean_miss / 3600:.1f} h | "
              f"{s.mean_wait / 3600:.2f} h | {s.max_wait / 3600:.1f} h | {s.utilisation:.3f} | "
              f"{time.process_time() - t0:.1f} s |", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", help="sweep database (default: a temporary file)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--force", action="store_true", help="replace existing figures")
    p.add_argument("--fairness", action="store_true", help="only print the fairness table of SAND ch. 7")
    args = p.parse_args(argv)
    if args.fairness:
        fairness_table()
        return 0
    for path in (FIG1, CORR):
        if os.path.exists(path) and not args.force:
            print(f"{path} exists; pass --force to replace it", file=sys.stderr)
            return 2
    config = load_sweep(TOML)
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or os.path.join(tmp, "leung.sqlite")
        t0 = time.perf_counter()
        report = run_sweep(config, db, workers=args.workers, progress=True)
        print(f"sweep: {report.run} run, {report.skipped} stored before, {time.perf_counter() - t0:.1f} s",
              file=sys.stderr)
        rows = read_sweep(db, config)
    figure_one(rows, FIG1)
    correlation(CORR)
    for r in rows:
        s = r["summary"]
        print(f"{r['allocator']:24s} x{r['spec'].get('work_multiple', 1):<5g} util {s['utilisation']:.3f} "
              f"cube ratio {s['mean_bbox_cube_ratio']:.3f} span {s['mean_ring_span']:.2f} "
              f"components {s['mean_components']:.3f} wait {s['mean_wait']:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
