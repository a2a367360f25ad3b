"""Job histories: replaying and certifying what a scheduler placed.

Each case simulates a trace with an allocator standing in for a site's
scheduler, writes the placements as ``sacct --parsable2`` text, and times
:func:`~optalloc.sim.certification.certify_history` on that text against
:func:`~optalloc.sim.certify` on the same trace with that allocator as
driver (today's way to the same certificates: simulation, allocators and
optima).  ``agree``: every job has the same W, free nodes and bracket of
the optimum on both sides (the round trip of the history).

Cases: the bundled ``small.swf`` (work multiple 4) on the bundled
``topology.conf``; without ``quick``, a 10,000-job Lublin trace on
``fattree:32`` (8,192 hosts), placed by ``slurm:tree``, whose states
are all proven by the tree's dynamic program; and a 10,000-job Lublin
trace on ``dragonfly:33,8,4,4`` (1,056 nodes) placed by ``dfly:slurm``,
certified within a total time limit of 540 s on 2 workers, against the
10-minute target (its row's baseline; ``agree``: every job replayed
without a conflict, within the target).
"""

from __future__ import annotations

import time

from optalloc import instance_path
from optalloc.machine import format_nodelist, parse_machine, read_topology
from optalloc.sim import certify, lublin_workload, read_swf, simulate, work_multiple
from optalloc.sim.certification import certify_history

from .._common import BenchRow

__all__ = ["rows"]


def _note(progress, text):
    if progress:
        progress(text)


def _sacct(records, machine, labels: bool) -> str:
    lines = ["JobID|State|Start|End|NNodes|NodeList"]
    for r in records:
        nodes = sorted(r.nodes)
        text = format_nodelist(machine, nodes) if labels else " ".join(map(str, nodes))
        lines.append(f"{r.job_id}|COMPLETED|{r.start!r}|{r.end!r}|{len(nodes)}|{text}")
    return "\n".join(lines) + "\n"


def _history_text(trace, machine, driver, labels) -> str:
    records = simulate(trace, machine, allocator=driver).records
    if labels:
        return _sacct(records, machine, labels)
    # ids separated by spaces: the CSV layout of read_history (a generated fat tree's labels are tuples)
    return "job_id,start,end,nodes\n" + "\n".join(
        f"{r.job_id},{r.start!r},{r.end!r},{' '.join(map(str, sorted(r.nodes)))}" for r in records) + "\n"


def _case(name, trace, machine, driver, labels, workers):
    text = _history_text(trace, machine, driver, labels)
    head = list(trace)[:50]  # both sides once on the first jobs, untimed: compiled kernels and caches warm
    certify_history(_history_text(head, machine, driver, labels), machine, allocators=("gen-alg",))
    certify(head, machine, driver=driver, allocators=(driver, "gen-alg"))
    t0 = time.perf_counter()
    hist = certify_history(text, machine, allocators=("gen-alg",), workers=workers)
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    cert = certify(trace, machine, driver=driver, allocators=(driver, "gen-alg"), workers=workers)
    theirs = time.perf_counter() - t0
    by_job = {r.job_id: r for r in hist.rows}
    agree = len(hist.rows) == len(cert.rows) and not hist.conflicts
    for r in cert.rows:
        h = by_job.get(str(r.job_id))
        agree = agree and h is not None and (h.k, h.n_free, h.lower, h.upper) == (r.k, r.n_free, r.lower, r.upper) \
            and abs(h.W[0] - r.W[0]) <= 1e-9 * max(1.0, r.W[0])
    return BenchRow(f"history replay and certification ({len(hist.rows)} jobs, {hist.n_proven} proven, "
                    f"workers {workers})", name, ours, "certify on the simulated run", theirs, bool(agree))


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """The history cases (see the module notes); ``quick``: the bundled one only."""
    _note(progress, "history: small.swf on topology.conf")
    tree = read_topology(instance_path("topology.conf"))
    small = work_multiple(read_swf(instance_path("small.swf")), 4)
    out = [_case("topology.conf, small.swf x4 work, slurm:tree", small, tree, "slurm:tree", True, 1)]
    if not quick:
        _note(progress, "history: 10,000 Lublin jobs on fattree:32")
        fat = parse_machine("fattree:32")
        trace = lublin_workload(fat.size, 10_000, seed=1)
        out.append(_case("fattree:32 (8,192 hosts), 10,000 Lublin jobs, slurm:tree", trace, fat, "slurm:tree",
                         False, 2))
        _note(progress, "history: 10,000 Lublin jobs on dragonfly:33,8,4,4 (about 10 minutes)")
        out.append(_dragonfly())
    return out


#: the history target (seconds) and the total time limit the dragonfly case is given within it
TARGET = 600.0
DRAGONFLY_TOTAL = 540.0


def _dragonfly() -> BenchRow:
    machine = parse_machine("dragonfly:33,8,4,4")
    trace = lublin_workload(machine.size, 10_000, seed=1)
    text = _history_text(trace, machine, "dfly:slurm", False)
    t0 = time.perf_counter()
    hist = certify_history(text, machine, allocators=("gen-alg",), workers=2, time_limit=5.0,
                           total_time_limit=DRAGONFLY_TOTAL)
    took = time.perf_counter() - t0
    ok = not hist.conflicts and len(hist.rows) == 10_000 and took <= TARGET
    return BenchRow(f"history replay and certification (10,000 jobs, {hist.n_proven} proven, mean gap "
                    f"{100 * hist.mean_gap:.2f}%, workers 2)", "dragonfly:33,8,4,4, 10,000 Lublin jobs, dfly:slurm",
                    took, "target", TARGET, bool(ok))
