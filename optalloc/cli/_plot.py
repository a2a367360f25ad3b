"""Subcommand ``optalloc plot``: figures from the files of ``certify`` and ``sweep``.

- ``optalloc plot gaps CERT.csv -o gaps.png``: the certified ratio of every
  allocator, side by side (``--kind ecdf``: one curve per allocator);
- ``optalloc plot sizes CERT.csv --baseline mc1x1 -o sizes.png``: the
  improvement of mean W per job size;
- ``optalloc plot sweep DB.sqlite --metric mean_avg_l1 -o fig.png``: a
  summary metric of every allocator of a sweep.

CERT is the ``--out`` file of ``optalloc certify`` (CSV or JSON lines);
the figure's format follows the extension of ``-o`` (.png, .svg, .pdf), and
an existing file is replaced only with ``--force``.
"""

from __future__ import annotations

import os

from optalloc.sim import (
    plot_gap_histogram,
    plot_improvement_by_size,
    plot_sweep,
    read_certification,
    read_sweep,
)

from ._common import EXIT_OK, Parser, UsageError, add_input, check_out
from ._sim import split_allocators

FIGURE_EXTS = (".png", ".svg", ".pdf")
#: parameters of the plot functions -> the options that give them (for the library's messages)
PLOT_FLAGS = {"allocators": "--allocators", "kind": "--kind", "baseline": "--baseline", "other": "--other",
              "buckets": "--buckets", "metric": "--metric", "title": "--title", "path": "-o",
              "db": "the file", "certification": "CERT", "out": "--out"}


def _input(path: str, what: str) -> str:
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such {what} file")
    return path


def _allocator(cert, name: str, option: str, *others: str) -> str:
    """``name`` when it is an allocator of ``cert`` (or one of ``others``); a
    UsageError naming ``option`` otherwise."""
    if name not in (*cert.names, *others):
        raise UsageError(f"{option} must be one of {', '.join((*cert.names, *others))}, got {name!r}")
    return name


def _buckets(text: str):
    if text in ("each", "pow2"):
        return text
    try:
        return [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise UsageError(f"--buckets must be each, pow2 or upper sizes like 4,16,64, got {text!r}") from None


def cmd_plot(args) -> int:
    check_out(args.out, args.force, option="-o", exts=FIGURE_EXTS)
    if args.figure == "sweep":
        rows = read_sweep(_input(args.file, "sweep database"))
        plot_sweep(rows, args.metric, args.out, overwrite=args.force, title=args.title)
        what = f"{args.metric} per allocator"
    else:
        cert = read_certification(_input(args.file, "certification"))
        if args.figure == "gaps":
            names = split_allocators(args.allocators) if args.allocators else None
            plot_gap_histogram(cert, args.out, allocators=names, kind=args.kind, overwrite=args.force,
                               title=args.title)
            what = f"ratios of {len(names or cert.names)} allocators over {len(cert)} decisions"
        else:
            _allocator(cert, args.baseline, "--baseline")
            _allocator(cert, args.other, "--other", "optimum")
            plot_improvement_by_size(cert, args.out, baseline=args.baseline, other=args.other,
                                     buckets=_buckets(args.buckets), overwrite=args.force, title=args.title)
            what = f"{args.other} against {args.baseline} over {len(cert)} decisions"
    print(f"{what} written to {args.out}")
    return EXIT_OK


def _common(p) -> None:
    p.add_argument("-o", "--out", required=True, metavar="FIGURE", help="image file: .png, .svg or .pdf")
    p.add_argument("--force", action="store_true", help="overwrite an existing image file")
    p.add_argument("--title", help="the figure's title (default: what it shows)")
    p.set_defaults(func=cmd_plot, flags=PLOT_FLAGS)


def register(sub) -> None:
    """Add ``plot`` (gaps, sizes, sweep) to the ``optalloc`` subparsers ``sub``."""
    p = sub.add_parser("plot", help="figures from a certify --out file or a sweep database",
                       description="Draw a figure from the decisions file of 'optalloc certify --out' "
                       "(gaps, sizes) or from the SQLite file of 'optalloc sweep' (sweep) into an image "
                       "file; an existing image is replaced only with --force.")
    figures = p.add_subparsers(dest="figure", metavar="FIGURE", parser_class=Parser)
    figures.required = True

    q = figures.add_parser("gaps", help="the certified ratio W / LB of every allocator, side by side",
                           description="One box per allocator of its certified ratios W / LB over the "
                           "decisions, every decision as a dot, ratio 1 (optimal) marked; --kind ecdf: one "
                           "distribution curve per allocator on one plot.")
    add_input(q, "file", metavar="CERT", example="decisions.csv",
              help="the --out file of optalloc certify (.csv or .jsonl)")
    q.add_argument("--allocators", metavar="LIST", help="comma-separated allocators of the file, in this "
                   "order (default all)")
    q.add_argument("--kind", default="box", choices=("box", "ecdf"), help="default box")
    _common(q)

    q = figures.add_parser("sizes", help="improvement of mean W per job size over a baseline allocator",
                           description="Bars of the improvement of mean W of --other (an allocator, or the "
                           "certified optimum) over --baseline per job size, in percent, with the number of "
                           "decisions of each size (Johnson, Bunde and Leung, Fig. 9).")
    add_input(q, "file", metavar="CERT", example="decisions.csv",
              help="the --out file of optalloc certify (.csv or .jsonl)")
    q.add_argument("--baseline", required=True, metavar="NAME", help="an allocator of the file")
    q.add_argument("--other", default="optimum", metavar="NAME",
                   help="another allocator of the file, or optimum (default)")
    q.add_argument("--buckets", default="each", metavar="B",
                   help="job-size buckets: each (default), pow2, or upper sizes like 4,16,64")
    _common(q)

    q = figures.add_parser("sweep", help="a summary metric of every allocator of a sweep",
                           description="One row per allocator of the sweep database, one marker per "
                           "trace, machine and scheduler at the metric's mean over the seeds.")
    add_input(q, "file", metavar="DB", help="the SQLite file of optalloc sweep")
    q.add_argument("--metric", required=True, metavar="NAME",
                   help="a summary field: mean_avg_l1, mean_W, mean_wait, utilisation, tie_share, ...")
    _common(q)
