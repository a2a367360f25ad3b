"""Subcommands ``optalloc solve`` and ``optalloc gap``: the k-subset problem
on the free nodes of a machine or on a points file."""

from __future__ import annotations

import argparse
import math
import os

import numpy as np

from optalloc.ksubset import METHODS, gap, machine_methods, method_options, solve
from optalloc.machine import parse_nodelist, read_map, read_points

from ._common import (
    EXIT_NO_SOLUTION,
    EXIT_OK,
    UsageError,
    add_input,
    add_machine,
    add_quiet,
    check_out,
    fmt,
    grid_machine,
    machine_option,
    parse_shape,
    point_text,
    print_json,
    print_rows,
    progress_for,
    rows_by_point,
    say_why,
    write_lines,
)

#: solve option -> the flag that gives it
FLAGS = {"time_limit": "--time-limit", "tie_break": "--tie-break", "request": "--request",
         "ring_length": "--ring-length", "shape": "--shape", "m": "--strips", "verbose": "--verbose"}
#: parameters of solve and gap -> the options that give them (for the library's messages)
SOLVE_FLAGS = {**FLAGS, "k": "--k", "chosen": "--chosen"}


#: solve methods that can run for long: progress on standard error (unless --quiet)
LONG_METHODS = ("exact", "brute", "ptas")

#: ``--time-limit`` of ``solve --method exact`` when not given (seconds)
EXACT_TIME_LIMIT = 60.0
#: ``--time-limit`` of ``gap`` when not given (seconds; the default of optalloc.ksubset.gap)
GAP_TIME_LIMIT = 10.0


def parse_time_limit(text: str | None, default: float | None) -> float | None:
    """``--time-limit``: positive seconds, ``none`` for no limit (None), or
    ``default`` when the flag is not given."""
    if text is None:
        return default
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise UsageError(f"--time-limit must be positive seconds or 'none' (no limit), got {text!r}")
    return value


def parse_tie_break(text: str | None):
    """``default``, ``off`` or ``SR,AF,WF,BF`` as mc1x1 takes it."""
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


def _source(args) -> str:
    """The option that gave the instance: ``--points``, ``--map`` or ``--machine``."""
    return "--points" if args.points is not None else "--map" if args.map is not None else "--machine"


def _given_machine(args):
    """The machine of ``--map`` or ``--machine`` (with ``--weight``; None with ``--points``)."""
    if args.machine is not None:
        return machine_option(args)
    if args.weight is not None:
        raise UsageError(f"--weight names the link lengths of a network file given by --machine, not "
                         f"{'--map' if args.map is not None else '--points'}")
    return read_map(args.map) if args.map is not None else None


def load_instance(args, machine=None) -> tuple[np.ndarray, tuple[int, ...] | None]:
    """Candidate points and mesh extent from ``--points`` (with ``--shape``),
    ``--map`` or ``--machine`` (the free nodes of a mesh; ``machine``: the
    one already read from them)."""
    if args.points is not None:
        pts = read_points(args.points)
        shape = parse_shape(args.shape, "--shape") if getattr(args, "shape", None) else None
        return pts, shape
    option, source = ("--map", args.map) if args.map is not None else ("--machine", args.machine)
    if machine is None:
        machine = _given_machine(args)
    grid_machine(machine, option, args.command)
    if getattr(args, "shape", None):
        raise UsageError(f"--shape is taken from {option}; give it only with --points")
    pts = machine.free_points()
    if len(pts) == 0:
        raise UsageError(f"{option} {source}: the machine has no free node")
    return pts.astype(np.float64), machine.shape


def add_instance(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    add_input(src, "--points", metavar="FILE", example="points-plane.txt",
              help="points file: one point per line, '#' comments")
    add_input(src, "--map", metavar="FILE", example="mesh16x16.txt",
              help="machine map: '.' free, any other character busy; the candidates are its free nodes")
    add_machine(p, group=src, example="mesh16x16.txt", help="the machine whose free nodes are the candidates: a "
                "mesh (16x16, 8x8x4; every node free) or a machine map file; on a torus or network (a network file, "
                "a Slurm topology.conf, a generated one) in the machine's own metric")


# ---------------------------------------------------------------- solve


def _solve_on_machine(args, machine) -> int:
    """``solve`` on a torus or network: ``ksubset.solve(machine, k)``, the
    chosen nodes as coordinates (torus) or labels (network)."""
    methods = machine_methods(machine)
    if args.method not in methods:
        raise UsageError(f"method {args.method!r} needs a mesh{'' if machine.is_grid else ' or torus'}; on a "
                         f"{machine.describe()} use one of: {', '.join(methods)}")
    for name in ("shape", "tie_break", "request", "ring_length", "strips"):
        if getattr(args, name, None) is not None:
            raise UsageError(f"{FLAGS.get(name, '--' + name.replace('_', '-'))} does not apply on a "
                             f"{machine.describe()}")
    options = {"verbose": True} if args.verbose and args.method == "exact" else {}
    if args.time_limit is not None and args.method not in ("exact", "brute"):
        raise UsageError(f"--time-limit does not apply to method {args.method!r}")
    if args.method in ("exact", "brute"):
        limit = parse_time_limit(args.time_limit, EXACT_TIME_LIMIT if args.method == "exact" else None)
        if limit is not None:
            options["time_limit"] = limit
    check_out(args.out, args.force)
    with progress_for(args, f"solve {args.method}", enabled=args.method in LONG_METHODS) as progress:
        result = solve(machine, args.k, method=args.method, **options)
        say_why(progress, result)
    if machine.is_grid:
        chosen = [point_text(p) for p in result.points]
    else:
        chosen = [str(machine.labels[i]) if machine.labels is not None else str(i) for i in result.indices]
    return _report(args, result, options, chosen)


def cmd_solve(args) -> int:
    args.flags = {**args.flags, "points": _source(args)}  # the library's messages about the points
    machine = _given_machine(args)
    if machine is not None and machine.kind != "mesh":  # a torus or network: solved in its own metric
        return _solve_on_machine(args, machine)
    pts, shape = load_instance(args, machine)
    accepted = method_options(args.method)  # argparse checked the name
    wanted = {
        "time_limit": parse_time_limit(args.time_limit, EXACT_TIME_LIMIT if args.method == "exact" else None),
        "shape": shape if (args.method == "mc1x1" or args.shape) else None,
        "tie_break": parse_tie_break(args.tie_break),
        "request": parse_shape(args.request, "--request") if args.request else None,
        "ring_length": args.ring_length,
        "m": args.strips,
        # --verbose (and --progress, kept for one release): exact's detailed log, one line per cut round
        "verbose": True if (args.verbose or args.progress) and "verbose" in accepted else None,
    }
    options = {}
    for name, value in wanted.items():
        if value is None:
            continue
        if name not in accepted:
            raise UsageError(f"{FLAGS[name]} does not apply to method {args.method!r}")
        options[name] = value
    if args.method == "mc1x1" and "shape" not in options:
        raise UsageError("method 'mc1x1' needs the mesh extent: use --map or --machine, or --shape with --points")
    check_out(args.out, args.force)
    shown = args.method in LONG_METHODS and "verbose" not in options  # the detailed log replaces it
    with progress_for(args, f"solve {args.method}", enabled=shown) as progress:
        if "progress" in accepted:
            options["progress"] = progress
        result = solve(pts, args.k, method=args.method, **options)
        say_why(progress, result)
    return _report(args, result, options, [point_text(p) for p in result.points])


def _report(args, result, options, chosen) -> int:
    """Write ``--out``, print the result (JSON or rows and the chosen lines)."""
    if args.out and result.status in ("optimal", "feasible"):
        write_lines(args.out, [line + "\n" for line in chosen], args.force)
    if args.json:
        print_json(result.to_dict())
    else:
        gap_text = f" (gap {100 * result.gap:.2f}%)" if result.gap is not None else ""
        rows = [
            ("method", result.method),
            ("k", result.k),
            ("objective", f"W = {fmt(result.objective)} (average {result.average:.4g} hops per pair)"),
            ("bound", fmt(result.bound) + gap_text),
            ("guarantee", fmt(result.guarantee)),
            ("status", result.status),
            ("termination", result.termination),
            ("time", f"{result.runtime:.4f} s"),
        ]
        rows += [(k, fmt(v)) for k, v in result.extra.items()]
        if result.message:
            rows.append(("message", result.message))
        if result.termination == "time_limit":
            known = (f"the optimum is in [{fmt(result.bound)}, {fmt(result.objective)}]" if result.bound is not None
                     else "the best set found is shown")
            limit = fmt(options.get("time_limit"))
            rows.append(("stopped", f"at the time limit of {limit} s (--time-limit S, or none for no limit): {known}"))
        print_rows(rows)
        print("chosen:")
        for line in chosen:
            print("  " + line)
    return EXIT_OK if result.status in ("optimal", "feasible") else EXIT_NO_SOLUTION


# ---------------------------------------------------------------- gap


def match_chosen(pts: np.ndarray, chosen: np.ndarray, path: str) -> np.ndarray:
    """Row indices in ``pts`` of the points of ``chosen`` (a repeated point
    takes the next copy); a UsageError naming the first point that is not free."""
    if chosen.shape[1] != pts.shape[1]:
        raise UsageError(f"{path}: points have {chosen.shape[1]} coordinates, the instance has {pts.shape[1]}")
    index = rows_by_point(pts)
    out = []
    for j, p in enumerate(map(tuple, chosen.tolist())):
        free = index.get(p)
        if free is None:
            raise UsageError(f"{path}: chosen point {j + 1} ({point_text(p)}) is not a free point of the instance")
        if not free:
            raise UsageError(f"{path}: chosen point {j + 1} ({point_text(p)}) is listed more often than it is free")
        out.append(free.pop(0))
    return np.array(out, dtype=np.int64)


def chosen_nodes(machine, path: str) -> np.ndarray:
    """Node ids of the ``--chosen`` file on a torus (one point per line) or a
    network (one node label per line, as the graph file writes it, or a
    Slurm node list such as ``cn[001-004]``)."""
    if machine.is_grid:
        pts = read_points(path)
        if pts.shape[1] != machine.ndim:
            raise UsageError(f"{path}: points have {pts.shape[1]} coordinates, the machine has {machine.ndim}")
        try:
            return machine.node_ids(pts)
        except ValueError:
            raise UsageError(f"{path}: a chosen point is not a node of the {machine.describe()}") from None
    by_label = {str(label): i for i, label in enumerate(machine.labels)}
    out = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            if text in by_label:
                out.append(by_label[text])
                continue
            try:  # a node list: "cn[001-004,017]"
                out.extend(parse_nodelist(machine, text).tolist())
            except ValueError as err:
                raise UsageError(f"{path}: line {lineno}: {text!r} is not a node label of the "
                                 f"{machine.describe()} ({err})") from None
    return np.array(out, dtype=np.int64)


def chosen_option(machine, chosen: str) -> np.ndarray:
    """Node ids of ``--chosen`` on a torus or network: a file, or a Slurm
    node list (``cn[001-004,017]``) naming the machine's nodes."""
    if os.path.isfile(chosen):
        ids = chosen_nodes(machine, chosen)
        if len(set(ids.tolist())) != len(ids):
            raise UsageError(f"{chosen}: a node is listed twice")
        return ids
    try:
        return parse_nodelist(machine, chosen)
    except ValueError as err:
        raise UsageError(f"--chosen {chosen!r}: no such file, and not a node list of the machine: {err}") from None


def cmd_gap(args) -> int:
    args.flags = {**args.flags, "points": _source(args)}  # the library's messages about the points
    time_limit = parse_time_limit(args.time_limit, GAP_TIME_LIMIT)
    machine = _given_machine(args)
    if machine is not None and machine.kind != "mesh":
        ids = chosen_option(machine, args.chosen)
        with progress_for(args, "gap") as progress:
            rep = gap(machine, ids, time_limit=time_limit, progress=progress)
            say_why(progress, rep.reference)
        return print_gap(rep, args)
    pts, _ = load_instance(args, machine)
    chosen = match_chosen(pts, read_points(args.chosen), args.chosen)
    with progress_for(args, "gap") as progress:
        rep = gap(pts, chosen, time_limit=time_limit, progress=progress)
        say_why(progress, rep.reference)
    return print_gap(rep, args)


def print_gap(rep, args) -> int:
    if args.json:
        print_json(rep.to_dict())
        return EXIT_OK
    print_rows([
        ("k", rep.k),
        ("objective", f"W = {fmt(rep.objective)} (average {rep.average:.4g} hops per pair)"),
        ("optimum", fmt(rep.upper) if rep.optimal else f"in [{fmt(rep.lower)}, {fmt(rep.upper)}]"),
        ("ratio", fmt(rep.ratio_max) if rep.optimal else
         f"between {fmt(rep.ratio_min)} and {fmt(rep.ratio_max)} (certified)"),
        ("reference", f"{rep.reference.method}: W = {fmt(rep.reference.objective)}"),
        ("bounds", ", ".join(f"{k} {fmt(v)}" for k, v in rep.bounds.items())),
        *([("metric", f"{rep.metric} ({rep.machine})")] if rep.metric != "l1" else []),
        ("time", f"{rep.runtime:.4f} s"),
    ])
    return EXIT_OK


# ---------------------------------------------------------------- parsers


def register(sub) -> None:
    """Add ``solve`` and ``gap`` to the ``optalloc`` subparsers ``sub``."""
    p = sub.add_parser("solve", help="choose k free processors of least total pairwise hop distance",
                       description="Solve the k-subset min-sum-L1 problem on the free nodes of a mesh "
                       "(--map, --machine) or on a points file (--points).")
    add_instance(p)
    p.add_argument("--k", type=int, required=True, help="number of processors to choose")
    p.add_argument("--method", default="mm", choices=sorted(METHODS), metavar="NAME",
                   help="one of: " + ", ".join(sorted(METHODS)) + " (default: mm)")
    p.add_argument("--time-limit", metavar="S", help="seconds (methods that take a time limit); exact: default "
                   f"{EXACT_TIME_LIMIT:g}, 'none' for no limit")
    p.add_argument("--shape", metavar="WxH", help="mesh extent for --points input (mc1x1)")
    p.add_argument("--tie-break", metavar="V", help="mc1x1: 'default', 'off' or SR,AF,WF,BF")
    p.add_argument("--request", metavar="AxB", help="mc1x1: requested shape of shell 0 (MC)")
    p.add_argument("--ring-length", type=float, metavar="L", help="line: circumference of a ring")
    p.add_argument("--strips", type=int, metavar="M", help="ptas: strips per axis (default: the largest whose time, "
                   "by the PTAS's cost model, fits its budget)")
    add_quiet(p, verbose=True, progress_help="kept for one release: progress is now shown by default (--quiet hides "
              "it); with --method exact it asks for the detailed log instead, as --verbose does")
    p.add_argument("--out", metavar="FILE", help="write the chosen points to FILE (a points file)")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_solve, flags=SOLVE_FLAGS)

    p = sub.add_parser("gap", help="how far a given allocation is from optimal",
                       description="Evaluate an allocation against the optimum or proven bounds, in the "
                       "machine's own metric (L1 on a mesh or points, wrap distance on a torus, shortest "
                       "paths on a network: --machine '8x8 torus', --machine net.graphml).")
    add_instance(p)
    add_input(p, "--chosen", metavar="FILE", required=True, example="chosen-plane.txt",
              help="the allocation, as a points file (on a network: one node label per line); on a torus or "
              "network also a Slurm node list such as 'cn[001-004,017]' (hostlist expression of node labels)")
    p.add_argument("--time-limit", metavar="S",
                   help=f"seconds for the exact solver on large instances (default {GAP_TIME_LIMIT:g}; "
                   "'none': no limit)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_quiet(p)
    p.set_defaults(func=cmd_gap, flags=SOLVE_FLAGS)
