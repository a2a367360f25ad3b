"""The ``optalloc`` command line: a thin layer over the public API.

Exit codes: 0 success, 1 no solution found, 2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np

from . import __version__
from .ksubset import METHODS, gap, method_options, solve
from .ksubset._common import rows_by_point
from .machine import read_mesh, read_points

EXIT_OK, EXIT_NO_SOLUTION, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    """Bad command-line input: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line instead of usage + message
        raise UsageError(message)


# ---------------------------------------------------------------- helpers


def _parse_shape(text: str, option: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(p) for p in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"{option} must look like 16x16 or 8x8x4, got {text!r}") from None
    if not shape or min(shape) < 1:
        raise UsageError(f"{option} must give positive sizes, got {text!r}")
    return shape


def _parse_tie_break(text: str | None):
    if text is None or text == "off":
        return None
    if text == "default":
        return "default"
    parts = text.split(",")
    if len(parts) != 4:
        raise UsageError(f"--tie-break must be 'default', 'off' or SR,AF,WF,BF, got {text!r}")
    try:
        return (int(parts[0]), *(float(p) for p in parts[1:]))
    except ValueError:
        raise UsageError(f"--tie-break must be 'default', 'off' or SR,AF,WF,BF with an integer SR, got {text!r}") from None


def _load(args) -> tuple[np.ndarray, tuple[int, ...] | None]:
    """Points and mesh shape from --points/--mesh (and --shape)."""
    if args.mesh is not None:
        mesh = read_mesh(args.mesh)
        pts = mesh.free_points()
        if len(pts) == 0:
            raise UsageError(f"{args.mesh}: the mesh has no free node")
        shape = mesh.shape
        if getattr(args, "shape", None):
            raise UsageError("--shape is taken from the mesh file; give it only with --points")
        return pts.astype(np.float64), shape
    pts = read_points(args.points)
    shape = _parse_shape(args.shape, "--shape") if getattr(args, "shape", None) else None
    return pts, shape


def _add_instance(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--points", metavar="FILE", help="points file: one point per line, '#' comments")
    src.add_argument("--mesh", metavar="FILE", help="ASCII mesh map: '.' free, any other character busy")


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        if not math.isfinite(x):
            return "inf"
        return f"{x:.6g}"
    return str(x)


def _print_rows(rows) -> None:
    """A two-column table: names left-aligned, values after two spaces."""
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")


def _print_json(obj) -> None:
    print(json.dumps(obj, indent=None, sort_keys=False))


def _write_points(path: str, pts: np.ndarray, force: bool) -> None:
    if os.path.exists(path) and not force:
        raise UsageError(f"{path} exists; pass --force to overwrite it")
    with open(path, "w", encoding="utf-8") as fh:
        for p in pts:
            fh.write(" ".join(_fmt(float(c)) for c in p) + "\n")


# ---------------------------------------------------------------- solve


def _cmd_solve(args) -> int:
    pts, shape = _load(args)
    options = {}
    accepted = method_options(args.method)  # argparse checked the name
    wanted = {
        "time_limit": args.time_limit,
        "shape": shape if (args.method == "mc1x1" or args.shape) else None,
        "tie_break": _parse_tie_break(args.tie_break),
        "request": _parse_shape(args.request, "--request") if args.request else None,
        "ring_length": args.ring_length,
        "m": args.strips,
        "verbose": True if args.progress else None,
    }
    flags = {"time_limit": "--time-limit", "tie_break": "--tie-break", "request": "--request",
             "ring_length": "--ring-length", "shape": "--shape", "m": "--strips", "verbose": "--progress"}
    for name, value in wanted.items():
        if value is None:
            continue
        if name not in accepted:
            raise UsageError(f"{flags[name]} does not apply to method {args.method!r}")
        options[name] = value
    if args.method == "mc1x1" and "shape" not in options:
        raise UsageError("method 'mc1x1' needs the mesh extent: use --mesh, or --shape with --points")
    result = solve(pts, args.k, method=args.method, **options)
    if args.out:
        _write_points(args.out, result.points, args.force)
    if args.json:
        _print_json(result.to_dict())
    else:
        rows = [
            ("method", result.method),
            ("k", result.k),
            ("objective", f"W = {_fmt(result.objective)} (average {result.average:.4g} hops per pair)"),
            ("bound", _fmt(result.bound) + (f" (gap {100 * result.gap:.2f}%)" if result.gap is not None else "")),
            ("guarantee", _fmt(result.guarantee)),
            ("status", result.status),
            ("time", f"{result.wall_time:.4f} s"),
        ]
        rows += [(k, _fmt(v)) for k, v in result.extra.items()]
        if result.message:
            rows.append(("message", result.message))
        _print_rows(rows)
        print("chosen:")
        for p in result.points:
            print("  " + " ".join(_fmt(float(c)) for c in p))
    return EXIT_OK if result.status in ("optimal", "feasible", "time_limit") else EXIT_NO_SOLUTION


# ---------------------------------------------------------------- gap


def _match_chosen(pts: np.ndarray, chosen: np.ndarray, path: str) -> np.ndarray:
    if chosen.shape[1] != pts.shape[1]:
        raise UsageError(f"{path}: points have {chosen.shape[1]} coordinates, the instance has {pts.shape[1]}")
    index = rows_by_point(pts)
    out = []
    for j, p in enumerate(map(tuple, chosen)):
        free = index.get(p)
        coords = " ".join(_fmt(c) for c in p)
        if free is None:
            raise UsageError(f"{path}: chosen point {j + 1} ({coords}) is not a free point of the instance")
        if not free:
            raise UsageError(f"{path}: chosen point {j + 1} ({coords}) is listed more often than it is free")
        out.append(free.pop(0))  # a repeated point takes the next copy, if any
    return np.array(out, dtype=np.int64)


def _cmd_gap(args) -> int:
    pts, _ = _load(args)
    chosen = _match_chosen(pts, read_points(args.chosen), args.chosen)
    if args.time_limit is not None and not args.time_limit > 0:
        raise UsageError(f"--time-limit must be positive, got {args.time_limit}")
    rep = gap(pts, chosen, time_limit=args.time_limit if args.time_limit is not None else 10.0)
    if args.json:
        _print_json(rep.to_dict())
        return EXIT_OK
    rows = [
        ("k", rep.k),
        ("objective", f"W = {_fmt(rep.objective)} (average {rep.average:.4g} hops per pair)"),
        ("optimum", _fmt(rep.upper) if rep.optimal else f"in [{_fmt(rep.lower)}, {_fmt(rep.upper)}]"),
        ("ratio", _fmt(rep.ratio_max) if rep.optimal else
         f"between {_fmt(rep.ratio_min)} and {_fmt(rep.ratio_max)} (certified)"),
        ("reference", f"{rep.reference.method}: W = {_fmt(rep.reference.objective)}"),
        ("bounds", ", ".join(f"{k} {_fmt(v)}" for k, v in rep.bounds.items())),
        ("time", f"{rep.wall_time:.4f} s"),
    ]
    _print_rows(rows)
    return EXIT_OK


# ---------------------------------------------------------------- bench


def _cmd_bench(args) -> int:
    from . import bench

    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, got {args.repeat}")
    def progress(name):
        if not args.json:
            print(f"running {name} ...", file=sys.stderr, flush=True)

    if args.limit is not None and args.suite == "heuristics":
        raise UsageError("--limit applies to --suite exact, qap or all")
    if args.limit is not None and not args.limit > 0:
        raise UsageError(f"--limit must be positive, got {args.limit}")
    rows = []
    if args.suite in ("heuristics", "all"):
        rows += bench.run(quick=args.quick, repeat=args.repeat, progress=progress)
    if args.suite in ("exact", "all"):
        if args.limit is not None and not args.limit > 0:
            raise UsageError(f"--limit must be positive, got {args.limit}")
        ks, seeds = ((8,), (0,)) if args.quick else ((8, 16, 32), (0, 1, 2))
        rows += bench.run_exact(ks=ks, seeds=seeds, limit=args.limit or 60.0, side=8 if args.quick else 16,
                                progress=progress)
        rows += bench.run_profiles(cases=((8, 8, 4, 32, 0, "any"),) if args.quick else bench.PROFILE_CASES,
                                   limit=args.limit or 60.0, progress=progress)
        rows += bench.run_box(cases=((12, 12, 64),) if args.quick else bench.BOX_CASES, progress=progress)
        rows += bench.run_ptas(ms=(1, 2) if args.quick else (1, 2, 3), space_ms=(1,) if args.quick else (1, 2),
                               progress=progress)
    tables = []  # (rows, formatter, all good)
    if rows:
        tables.append((rows, bench.format_table, all(r.agree for r in rows)))
    if args.suite in ("qap", "all"):
        from .qap._bench import format_qap_table, run_qap

        qap_rows = run_qap(quick=args.quick, limit=args.limit or 2.0, progress=progress)
        tables.append((qap_rows, format_qap_table, True))
    if args.suite in ("sim", "all"):
        from .sim._bench import run_sim_bench

        sim_rows = run_sim_bench(quick=args.quick, progress=progress)
        if sim_rows:
            tables.append((sim_rows, bench.format_table, all(r.agree for r in sim_rows)))
    if args.suite in ("curves", "all"):
        from .curves._bench import format_curves_table, run_curves

        curve_rows = run_curves(quick=args.quick, limit=args.limit or 30.0, progress=progress)
        tables.append((curve_rows, format_curves_table, all(r.ok for r in curve_rows)))
    if args.json:
        _print_json([r.to_dict() for t in tables for r in t[0]])
    else:
        print("\n\n".join(fmt(rows) for rows, fmt, _ in tables))
    return EXIT_OK if all(t[2] for t in tables) else EXIT_NO_SOLUTION


# ---------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="optalloc", description="Communication-aware processor allocation: exact and "
                     "approximate solvers, with certificates.")
    parser.add_argument("--version", action="version", version=f"optalloc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("solve", help="choose k free processors of least total pairwise hop distance",
                       description="Solve the k-subset min-sum-L1 problem on a mesh map or a points file.")
    _add_instance(p)
    p.add_argument("--k", type=int, required=True, help="number of processors to choose")
    p.add_argument("--method", default="mm", choices=sorted(METHODS), metavar="NAME",
                   help="one of: " + ", ".join(sorted(METHODS)) + " (default: mm)")
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds (methods that take a time limit)")
    p.add_argument("--shape", metavar="WxH", help="mesh extent for --points input (mc1x1)")
    p.add_argument("--tie-break", metavar="V", help="mc1x1: 'default', 'off' or SR,AF,WF,BF")
    p.add_argument("--request", metavar="AxB", help="mc1x1: requested shape of shell 0 (MC)")
    p.add_argument("--ring-length", type=float, metavar="L", help="line: circumference of a ring")
    p.add_argument("--strips", type=int, metavar="M", help="ptas: strips per axis (default min(k, 4))")
    p.add_argument("--progress", action="store_true", help="exact: one line per cut round on standard error")
    p.add_argument("--out", metavar="FILE", help="write the chosen points to FILE (a points file)")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("gap", help="how far a given allocation is from optimal",
                       description="Evaluate an allocation against the optimum or proven bounds.")
    _add_instance(p)
    p.add_argument("--chosen", metavar="FILE", required=True, help="the allocation, as a points file")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="seconds for the exact solver on large instances (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_gap)

    p = sub.add_parser("bench", help="performance figures as ratios against baselines",
                       description="Time the solvers against baselines run in the same process.")
    p.add_argument("--quick", action="store_true", help="small instances (seconds)")
    p.add_argument("--repeat", type=int, default=5,
                   help="repetitions of each side of a heuristics case (the best is kept; 3 s budget per side)")
    p.add_argument("--suite", choices=("heuristics", "exact", "qap", "curves", "sim", "all"), default="heuristics",
                   help="heuristics (seconds, default), exact (the exact solver against the plain "
                   "pairwise MIP: up to 2 x 9 x --limit seconds), qap (GRASP and tabu over 10 seeds on "
                   "QAPLIB and mapping instances against scipy: about 15 minutes), curves (reference values and order_graph "
                   "against the curves: about 2 minutes), sim (the NASA trace: simulation and certification, "
                   "a few minutes) or all")
    p.add_argument("--limit", type=float, metavar="S",
                   help="time limit per exact solve (default 60), per QAP run (default 2) or per order_graph "
                   "search (default 30)")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=_cmd_bench)

    from .curves._cli import register as register_curves
    from .qap._cli import register as register_qap
    from .sim._cli import register as register_sim
    from .sim.sweep import register_sweep

    register_curves(sub)
    register_qap(sub)
    register_sim(sub)
    register_sweep(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.func(args)
    except (UsageError, ValueError) as exc:
        print(f"optalloc: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # output piped into a reader that stopped (head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:  # a file that exists, cannot be read or written
        print(f"optalloc: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        print("optalloc: error: not enough memory for this instance; try a smaller one", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("optalloc: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
