"""Quality and time of the QAP solvers on QAPLIB and mapping instances, against scipy (``--suite qap``).

Each row runs one method with several seeds under a time budget per run and
reports the gap to the best known value (mean and best over the seeds), how
many runs reached it, and the mean time; scipy's ``quadratic_assignment``
(FAQ, best of 30 starts, no local search) runs in the same process on the
same instance.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from optalloc.machine import Machine
from optalloc.qap import cost_matrix, grasp, read_qaplib, read_solution, solve, stencil

from ._common import text_table

#: QAPLIB instances of the bench (classic, n <= 30).
SMALL = ("nug12", "had12", "rou12", "scr12", "tai12a", "chr12a", "esc16a", "nug15", "rou15", "chr15a", "tai15a")
MEDIUM = ("had20", "nug20", "rou20", "scr20", "tai20a", "chr20a", "els19")
LARGE = ("nug30", "kra30a", "tho30", "tai30a")


@dataclass
class QAPBenchRow:
    """One method on one instance over several seeds (gaps are relative to the best known value)."""

    instance: str
    n: int
    best_known: float
    method: str
    runs: int
    hits: int
    mean_gap: float
    best_gap: float
    seconds: float
    scipy_gap: float
    scipy_seconds: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def qaplib_dir() -> Path:
    """Where the QAPLIB instances are looked for: ``../shared/data/qaplib``
    beside the repository (they may be missing)."""
    import optalloc

    return Path(optalloc.__file__).resolve().parents[2] / "shared" / "data" / "qaplib"


def _instances(names):
    folder = qaplib_dir()
    for name in names:
        dat, sln = folder / f"{name}.dat", folder / f"{name}.sln"
        if dat.is_file() and sln.is_file():
            W, C = read_qaplib(dat)
            yield name, W, C, read_solution(sln, W, C).value


def _mapping_instances():
    W = stencil((8, 8))
    torus = Machine((8, 8), torus=True)
    for crit, per_message in (("classic", 1), ("td", 2)):
        # every message crosses at least one link; td charges 2 per hop pair
        yield f"stencil 8x8 on torus 8x8 ({crit})", W, cost_matrix(torus, crit), per_message * W.sum()


def _scipy(W, C, rng):
    from scipy.optimize import quadratic_assignment

    t = time.perf_counter()
    best = min(quadratic_assignment(W, C, method="faq", options={"rng": rng, "P0": "randomized" if s else
                                                                  "barycenter"}).fun for s in range(30))
    return float(best), time.perf_counter() - t


def run_qap(*, quick: bool = False, seeds: int = 10, limit: float = 2.0, progress=None) -> list[QAPBenchRow]:
    """Gaps of ``grasp`` (paper settings) and ``tabu`` (strong mode) over seeds.

    ``quick`` runs a few small instances with 3 seeds and 0.5 s per run.
    Every run stops when it reaches the best known value (time to target).
    """
    if quick:
        seeds, limit = 3, 0.5
        cases = list(_instances(("nug12", "chr12a", "had20"))) + list(_mapping_instances())[:1]
    else:
        cases = list(_instances(SMALL + MEDIUM + LARGE)) + list(_mapping_instances())
    rows = []
    for name, W, C, known in cases:
        W = np.asarray(W, dtype=np.float64)
        C = np.asarray(C, dtype=np.float64)
        if progress:
            progress(name)
        sp, sp_t = _scipy(W, C, np.random.default_rng(0))
        for method in ("grasp", "tabu"):
            gaps, times = [], []
            for seed in range(seeds):
                t = time.perf_counter()
                if method == "grasp":  # Pascual et al.: 50 iterations, alpha = 20%
                    res = grasp(W, C, iterations=50, alpha=0.2, rng=seed, time_limit=limit, target=known)
                else:
                    res = solve(W, C, method="tabu", rng=seed, time_limit=limit, target=known)
                times.append(time.perf_counter() - t)
                gaps.append((res.objective - known) / known if known else res.objective)
            gaps = np.array(gaps)
            rows.append(QAPBenchRow(name, len(W), float(known), method, seeds, int((gaps <= 1e-12).sum()),
                                    float(gaps.mean()), float(gaps.min()), float(np.mean(times)),
                                    (sp - known) / known if known else sp, sp_t))
    return rows


def format_qap_table(rows: list[QAPBenchRow]) -> str:
    """The text table of :class:`QAPBenchRow` rows."""
    head = ("instance", "n", "best known", "method", "hits", "mean gap", "best gap", "time/run", "scipy faq30 gap",
            "scipy time")
    body = [(r.instance, r.n, f"{r.best_known:.0f}", r.method, f"{r.hits}/{r.runs}", f"{100 * r.mean_gap:.3f}%",
             f"{100 * r.best_gap:.3f}%", f"{r.seconds:.2f} s", f"{100 * r.scipy_gap:.2f}%", f"{r.scipy_seconds:.2f} s")
            for r in rows]
    return text_table(head, body)
