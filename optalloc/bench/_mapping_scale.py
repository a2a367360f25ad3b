"""Task mapping at the size of real jobs, against Scotch and Mt-KaHyPar (``--suite mapping``).

Each case maps a communication pattern onto a torus of the same size but
another shape and reports hop-bytes (bytes times torus hops) as a multiple
of the traffic bound (:func:`optalloc.qap.large.mapping_bound`, at least
the trivial one hop per message), with the time, for: the
consecutive mapping (task i on node i), the multilevel mapper
(``map_tasks(..., method="multilevel")``, seeded), Scotch (PyPI
``pyscotch``: ``Graph.map`` onto its 3-D torus architecture, the best of a
few strategies with no imbalance allowed) and Mt-KaHyPar (PyPI
``mtkahypar``: ``map_onto_graph`` onto the torus as a target graph, one
thread, no imbalance).  Peers run in a child process, one at a time, under
a time cap; a peer that is not installed is skipped with a word.  Every
mapping is checked to be one task per node; a peer's that is not (an
over-full node) is repaired by moving the extra tasks to the nearest free
nodes, and the row says so.  ``agree`` in a :class:`BenchRow` is true when
both mappings are one task per node and ours is no worse than the peer's.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from optalloc._table import text_table
from optalloc.machine import Machine
from optalloc.qap import hop_bytes, map_tasks, random_sparse, stencil

from ._common import BenchRow

PEERS = ("scotch", "mtkahypar")
#: Seconds a peer may take on one case (a quick run: less).
PEER_CAP = 150.0


def cg_pattern(rows: int, cols: int, *, weight: float = 1.0):
    """NPB CG's shape: a square rows x cols grid of tasks; each reduces
    along its row by recursive doubling (partners col XOR 2^k, cols a power
    of two) and swaps with its transpose partner (sparse CSR)."""
    from scipy import sparse

    if rows != cols or cols & (cols - 1):
        raise ValueError(f"CG's grid must be square with a power-of-two side, got {rows}x{cols}")
    n = rows * cols
    ids = np.arange(n)
    r, c = ids // cols, ids % cols
    src, dst = [], []
    k = 1
    while k < cols:
        src.append(ids)
        dst.append(r * cols + (c ^ k))
        k *= 2
    t = c * cols + r
    keep = t != ids
    src.append(ids[keep])
    dst.append(t[keep])
    s, d = np.concatenate(src), np.concatenate(dst)
    W = sparse.csr_matrix((np.full(len(s), weight), (s, d)), shape=(n, n))
    W = ((W + W.T) > 0).astype(np.float64) * weight
    return W.tocsr()


def mg_pattern(shape, *, weight: float = 1024.0):
    """NPB MG's shape: a periodic 3-D grid; on level l every task exchanges
    ``weight / 4**l`` bytes with the tasks 2**l away along each axis (the
    halo exchanges of the coarser grids), sparse CSR."""
    from scipy import sparse

    sides = np.asarray(shape)
    n = int(np.prod(sides))
    ids = np.arange(n)
    strides = np.concatenate(([1], np.cumprod(sides[:-1])))
    coords = (ids[:, None] // strides) % sides
    src, dst, val = [], [], []
    level = 0
    while (1 << level) < sides.max():
        step = 1 << level
        for k in range(len(sides)):
            if step >= sides[k]:
                continue
            for sgn in (1, -1):
                c = coords.copy()
                c[:, k] = (c[:, k] + sgn * step) % sides[k]
                src.append(ids)
                dst.append(c @ strides)
                val.append(np.full(n, weight / 4**level))
        level += 1
    s, d, v = np.concatenate(src), np.concatenate(dst), np.concatenate(val)
    keep = s != d
    return sparse.coo_matrix((v[keep], (s[keep], d[keep])), shape=(n, n)).tocsr()


def cases(quick: bool = False) -> list[tuple[str, object, tuple[int, ...]]]:
    """(name, W, torus shape) of the suite; quick: the ones up to 4,096 tasks."""
    out = [
        ("stencil 16x16x4", lambda: stencil((16, 16, 4), sparse=True), (8, 8, 16)),
        ("stencil 16x16x16", lambda: stencil((16, 16, 16), sparse=True), (8, 16, 32)),
        ("stencil 64x64 (2-D)", lambda: stencil((64, 64), sparse=True), (16, 16, 16)),
        ("stencil 32x32x16", lambda: stencil((32, 32, 16), sparse=True), (16, 32, 32)),
        ("stencil 128x128 (2-D)", lambda: stencil((128, 128), sparse=True), (16, 32, 32)),
        ("CG 32x32", lambda: cg_pattern(32, 32), (8, 8, 16)),
        ("MG 16x16x16", lambda: mg_pattern((16, 16, 16)), (8, 16, 32)),
        ("random 4096, degree 8", lambda: random_sparse(4096, 8 / 4095, rng=7, sparse=True), (16, 16, 16)),
    ]
    return [c for c in out if not quick or math.prod(c[2]) <= 1024]


@dataclass
class ScaleRow:
    """One case: hop-bytes (times the trivial bound) and seconds of every mapper."""

    case: str
    tasks: int
    torus: str
    bound: float
    results: dict = field(default_factory=dict)  # name -> {"hop_bytes", "seconds", "note"}

    def to_dict(self) -> dict:
        return dict(self.__dict__)


_PEER_CODE = r"""
import json, os, sys, time
import numpy as np
data = np.load(sys.argv[2])
indptr, indices, weights, shape = data["indptr"], data["indices"], data["weights"], [int(s) for s in data["shape"]]
n = len(indptr) - 1
name, seed = sys.argv[1], int(sys.argv[4])
t0 = time.perf_counter()
if name == "scotch":
    import pyscotch
    from pyscotch.arch import Architecture
    from pyscotch.graph import Graph
    from pyscotch.strategy import Strategy, StrategyFlags as F
    best, best_note = None, ""
    for label, flags in (("default", F.DEFAULT), ("quality", F.QUALITY), ("balance", F.BALANCE),
                         ("quality+balance", F.QUALITY | F.BALANCE)):
        g = Graph()
        g.build(indptr.astype(np.int64), indices.astype(np.int64), edlotab=np.maximum(1, weights).astype(np.int64))
        a = Architecture()
        a.torus3d(*shape)
        s = Strategy()
        s.request_mapping(flags, balance=0.0)
        try:
            pyscotch.random_reset()
        except Exception:
            pass
        part = np.asarray(g.map(a, s), dtype=np.int64)
        np.save(sys.argv[3] + "." + label + ".npy", part)
    out = {"strategies": ["default", "quality", "balance", "quality+balance"]}
else:
    import mtkahypar
    mtkahypar.set_seed(seed)
    init = mtkahypar.initialize(int(os.environ.get("OPTALLOC_PEER_THREADS", "1")))
    ctx = init.context_from_preset(mtkahypar.PresetType.DEFAULT)
    ctx.set_partitioning_parameters(n, 0.0, mtkahypar.Objective.KM1)
    ctx.logging = False
    rows = np.repeat(np.arange(n), np.diff(indptr))
    keep = rows < indices
    edges = list(zip(rows[keep].tolist(), indices[keep].tolist()))
    g = init.create_graph(ctx, n, len(edges), edges, [1] * n,
                          np.maximum(1, weights[keep]).astype(np.int64).tolist())
    sides = np.asarray(shape)
    strides = np.concatenate(([1], np.cumprod(sides[:-1])))
    ids = np.arange(n)
    coords = (ids[:, None] // strides) % sides
    tedges = set()
    for k in range(3):
        c = coords.copy()
        c[:, k] = (c[:, k] + 1) % sides[k]
        for u, v in zip(ids.tolist(), (c @ strides).tolist()):
            if u != v:
                tedges.add((min(u, v), max(u, v)))
    tedges = sorted(tedges)
    target = init.create_target_graph(ctx, n, len(tedges), tedges, [1] * len(tedges))
    mapped = g.map_onto_graph(target, ctx)
    part = np.asarray([mapped.block_id(v) for v in range(n)], dtype=np.int64)
    np.save(sys.argv[3] + ".default.npy", part)
    out = {"strategies": ["default"]}
out["seconds"] = time.perf_counter() - t0
print(json.dumps(out))
"""


#: The PyPI package of each peer.
PACKAGES = {"scotch": "pyscotch", "mtkahypar": "mtkahypar"}


def installed(peer: str) -> bool:
    """Whether the peer's Python package can be imported."""
    import importlib.util

    if peer not in PACKAGES:
        raise ValueError(f"unknown peer {peer!r}; choose one of {', '.join(PACKAGES)}")
    return importlib.util.find_spec(PACKAGES[peer]) is not None


def repair(part: np.ndarray, machine: Machine) -> tuple[np.ndarray, int]:
    """One task per node: extra tasks of an over-full node go to the nearest free nodes; (mapping, moved)."""
    part = np.asarray(part, dtype=np.int64).copy()
    seen = np.zeros(machine.n, dtype=bool)
    extra = []
    for t, v in enumerate(part):
        if v < 0 or v >= machine.n or seen[v]:
            extra.append(t)
        else:
            seen[v] = True
    free = list(np.nonzero(~seen)[0])
    for t in extra:
        here = part[t] if 0 <= part[t] < machine.n else 0
        d = machine.pair_distances(np.full(len(free), here), np.asarray(free))
        part[t] = free.pop(int(np.argmin(d)))
    return part, len(extra)


def run_peer(peer: str, A, shape, *, cap: float, seed: int = 0) -> dict:
    """Map with a peer in a child process: {"hop_bytes", "seconds", "note"} (no hop_bytes when capped)."""
    if not installed(peer):
        raise ValueError(f"peer {peer!r} is not installed: pip install {PACKAGES[peer]} (or optalloc[peers])")
    machine = Machine(shape, torus=True)
    with tempfile.TemporaryDirectory() as tmp:
        graph, out = os.path.join(tmp, "g.npz"), os.path.join(tmp, "part")
        np.savez(graph, indptr=A.indptr, indices=A.indices, weights=A.data, shape=np.asarray(shape))
        t = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, "-c", _PEER_CODE, peer, graph, out, str(seed)],
                                  capture_output=True, check=False, text=True, timeout=cap)
        except subprocess.TimeoutExpired:
            return {"hop_bytes": None, "seconds": cap, "note": f"not done in {cap:.0f} s"}
        if proc.returncode != 0:
            last = re.sub(r"\x1b\[[0-9;]*m", "", (proc.stderr.strip().splitlines() or ["failed"])[-1]).strip()
            return {"hop_bytes": None, "seconds": time.perf_counter() - t, "note": f"failed: {last[:80]}"}
        info = json.loads(proc.stdout.strip().splitlines()[-1])
        best = None
        for label in info["strategies"]:
            part, moved = repair(np.load(f"{out}.{label}.npy"), machine)
            value = hop_bytes(A, machine, part)
            if best is None or value < best[0]:
                best = (value, label, moved)
    note = f"strategy {best[1]}" if peer == "scotch" else ""
    if best[2]:
        note += f"{', ' if note else ''}{best[2]} tasks moved off over-full nodes"
    return {"hop_bytes": best[0], "seconds": info["seconds"], "note": note}


def measure(quick: bool = False, progress=None, peers=PEERS, cap: float | None = None,
            only: list | None = None) -> list[ScaleRow]:
    """Every case (or those of ``only``, as :func:`cases` lists them) with
    every mapper; ``progress(message)`` before each case."""
    from optalloc.qap.large import mapping_bound

    for peer in peers:
        installed(peer)  # an unknown name raises
    cap = (30.0 if quick else PEER_CAP) if cap is None else cap
    out = []
    for name, make, shape in cases(quick) if only is None else only:
        if progress is not None:
            progress(name)
        A = make()
        n = A.shape[0]
        machine = Machine(shape, torus=True)
        row = ScaleRow(case=name, tasks=n, torus="x".join(map(str, shape)),
                       bound=mapping_bound(A, machine, criterion="classic"))
        t = time.perf_counter()
        cons = hop_bytes(A, machine, np.arange(n))
        row.results["consecutive"] = {"hop_bytes": cons, "seconds": time.perf_counter() - t, "note": ""}
        t = time.perf_counter()
        res = map_tasks(A, machine, method="multilevel", criterion="classic", rng=0)
        took = time.perf_counter() - t
        assert len(np.unique(res.permutation)) == n
        row.results["multilevel"] = {"hop_bytes": hop_bytes(A, machine, res.permutation), "seconds": took,
                                     "note": f"bound {res.bound:.0f}"}
        for peer in peers:
            if not installed(peer):
                row.results[peer] = {"hop_bytes": None, "seconds": 0.0,
                                     "note": f"not installed (pip install {PACKAGES[peer]}): skipped"}
                continue
            row.results[peer] = run_peer(peer, A, shape, cap=cap)
        out.append(row)
    return out


def rows(*, quick: bool = False, progress=None) -> list[BenchRow]:
    """The suite as :class:`BenchRow` rows: ours against each peer that ran."""
    out = []
    for r in measure(quick=quick, progress=progress):
        ours = r.results["multilevel"]
        for peer in ("consecutive", *PEERS):
            other = r.results.get(peer)
            if other is None or (other["hop_bytes"] is None and not other["note"].startswith("not done")):
                continue
            capped = other["hop_bytes"] is None
            out.append(BenchRow(case=f"mapping {r.case}", instance=f"{r.tasks} tasks -> {r.torus} torus",
                                seconds=ours["seconds"], baseline=peer, baseline_seconds=other["seconds"],
                                agree=capped or ours["hop_bytes"] <= other["hop_bytes"] + 1e-9,
                                baseline_capped=capped))
    return out


def format_scale(results: list[ScaleRow]) -> str:
    """Side by side: hop-bytes as a multiple of the traffic bound, and seconds, per mapper."""
    names = ("consecutive", "multilevel", *PEERS)
    head = ("case", "tasks -> torus", *names, "ours vs best other")
    body = []
    for r in results:
        cells = []
        for name in names:
            x = r.results.get(name)
            if x is None:
                cells.append("-")
            elif x["hop_bytes"] is None:
                cells.append(x["note"])
            else:
                cells.append(f"{x['hop_bytes'] / r.bound:.2f}x, {x['seconds']:.1f} s")
        others = [r.results[k]["hop_bytes"] for k in names if k != "multilevel" and k in r.results
                  and r.results[k]["hop_bytes"] is not None]
        ours = r.results["multilevel"]["hop_bytes"]
        body.append((r.case, f"{r.tasks} -> {r.torus}", *cells, f"{(ours / min(others) - 1) * 100:+.1f}%"))
    return text_table(head, body)


def print_scale(*, quick: bool = False, file=None) -> list[ScaleRow]:
    """Run the suite and print the side-by-side table (progress on stderr)."""
    results = measure(quick=quick, progress=lambda m: print(f"mapping: {m}", file=sys.stderr, flush=True))
    print(format_scale(results), file=file or sys.stdout)
    return results
