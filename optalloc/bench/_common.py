"""The row and table of the ratio benchmarks, timing, and the generated
instances the suites (and the docs' examples) share."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from optalloc._table import text_table


@dataclass
class BenchRow:
    """One case: our time against a baseline's on the same instance.

    Attributes
    ----------
    case, instance : str
        What runs, and on what.
    seconds : float
        Our time.
    baseline : str
        What runs on the other side.
    baseline_seconds : float
        Its time.
    agree : bool
        Both sides are consistent (the same answer, or bounds that do not
        cross): the check of the case.
    baseline_capped : bool
        The baseline hit its time limit (its time, and the ratio, are
        lower bounds).
    """

    case: str
    instance: str
    seconds: float
    baseline: str
    baseline_seconds: float
    agree: bool
    baseline_capped: bool = False

    @property
    def ratio(self) -> float:
        """``baseline_seconds / seconds``: how many times faster we are."""
        return self.baseline_seconds / self.seconds if self.seconds > 0 else math.inf

    def to_dict(self) -> dict:
        return {**self.__dict__, "ratio": self.ratio}


def run_parts(package: str, all_parts: tuple, parts, *, quick: bool, progress) -> list[BenchRow]:
    """The rows of the given parts (default ``all_parts``) of a suite
    whose parts are the modules ``package._<part>``, each with
    ``rows(*, quick, progress)``; ValueError for an unknown part."""
    import importlib

    chosen = all_parts if parts is None else tuple(parts)
    unknown = [p for p in chosen if p not in all_parts]
    if unknown:
        raise ValueError(f"unknown part {unknown[0]!r}; choose from {', '.join(all_parts)}")
    out: list[BenchRow] = []
    for part in chosen:
        out.extend(importlib.import_module(f"{package}._{part}").rows(quick=quick, progress=progress))
    return out


def format_table(rows: list[BenchRow]) -> str:
    """The text table of :class:`BenchRow` rows (times, ratio, agreement)."""
    head = ("case", "instance", "time", "baseline", "baseline time", "baseline/ours", "agree")

    def ms(t):
        return f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s"

    body = [
        (r.case, r.instance, ms(r.seconds), r.baseline,
         ("> " if r.baseline_capped else "") + ms(r.baseline_seconds),
         ("> " if r.baseline_capped else "") + f"{r.ratio:.1f}x", "yes" if r.agree else "NO")
        for r in rows
    ]
    return text_table(head, body)


def best_time(func, repeat: int, budget: float = 3.0) -> tuple[float, object]:
    """Best of ``repeat`` runs of ``func()``, fewer when they exceed
    ``budget`` seconds: ``(seconds, last output)``."""
    best, out, spent = math.inf, None, 0.0
    for _ in range(max(1, repeat)):
        t = time.perf_counter()
        out = func()
        took = time.perf_counter() - t
        best, spent = min(best, took), spent + took
        if spent > budget:
            break
    return best, out


def half_free_mesh(width: int, height: int, seed: int = 0) -> np.ndarray:
    """Free cells (x, y) of a width x height mesh with half the nodes busy at random.

    Examples
    --------
    >>> half_free_mesh(4, 4, seed=1).shape
    (8, 2)
    """
    rng = np.random.default_rng(seed)
    cells = np.array([(x, y) for y in range(height) for x in range(width)])
    keep = np.sort(rng.choice(len(cells), len(cells) // 2, replace=False))
    return cells[keep]


def nearly_empty_mesh(width: int, height: int, busy: int, seed: int = 0, *, where: str = "edge") -> np.ndarray:
    """Free cells of a width x height mesh with ``busy`` nodes taken at
    random, on the boundary (``where="edge"``, as allocators leave a nearly
    empty machine) or anywhere (``"any"``)."""
    rng = np.random.default_rng(seed)
    cells = np.array([(x, y) for y in range(height) for x in range(width)])
    pool = np.arange(len(cells))
    if where == "edge":
        x, y = cells.T
        pool = np.flatnonzero((x == 0) | (x == width - 1) | (y == 0) | (y == height - 1))
    return np.delete(cells, rng.choice(pool, busy, replace=False), axis=0)


def random_free_mesh(sides, free: float = 0.5, seed: int = 0) -> np.ndarray:
    """Free cells of a mesh with sides ``sides`` (2 or 3 of them) when a
    random share ``free`` of its nodes is free (``int(free * nodes)`` of
    them), x fastest; ``random_free_mesh((w, h), 0.5, s)`` is
    ``half_free_mesh(w, h, s)``.

    Examples
    --------
    >>> random_free_mesh((4, 4, 2), 0.25, seed=1).shape
    (8, 3)
    >>> bool((random_free_mesh((6, 5), 0.5, 3) == half_free_mesh(6, 5, 3)).all())
    True
    """
    sides = tuple(int(s) for s in sides)
    if len(sides) not in (2, 3) or min(sides) < 1:
        raise ValueError(f"a mesh has 2 or 3 positive sides, got {sides}")
    if not 0 < free <= 1:
        raise ValueError(f"`free` must be in (0, 1], got {free}")
    rng = np.random.default_rng(seed)
    axes = np.meshgrid(*(np.arange(s) for s in sides[::-1]), indexing="ij")
    cells = np.stack([a.ravel() for a in axes[::-1]], axis=1)  # x fastest
    keep = np.sort(rng.choice(len(cells), int(len(cells) * free), replace=False))
    return cells[keep]
