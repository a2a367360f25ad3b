"""Pictures of simulations, certifications and sweeps (matplotlib).

- :func:`plot_machine`: the mesh with every running job in its own colour,
  at a given time of a simulation or for a :class:`Machine` as it stands
  (3D meshes: the z layers side by side);
- :func:`plot_gap_histogram`: the distribution of each allocator's
  certified ratio W / LB over the decisions of a :class:`Certification`
  (or of its file, :func:`read_certification`), one box per allocator side
  by side, or one ECDF per allocator;
- :func:`plot_improvement_by_size`: the mean improvement of one allocator's
  W over another's per job-size bucket, with the number of jobs of each
  size (Johnson, Bunde and Leung, Fig. 9);
- :func:`plot_sweep`: a summary metric of every allocator of a sweep
  (:func:`read_sweep` rows).

They follow matplotlib's conventions: each draws into the Axes given as
``ax`` (or a new figure) and returns that Axes; ``path`` also writes the
figure to a file, never over an existing one unless ``overwrite=True``.
Nothing changes matplotlib's backend or other global state: the figure made
for a ``path`` is a bare :class:`matplotlib.figure.Figure`, outside pyplot;
without ``ax`` and ``path`` it is a pyplot figure (``plt.subplots``), to
show or to save.  matplotlib is imported inside the functions, so that
importing :mod:`optalloc.sim` does not need it.
"""

from __future__ import annotations

import os

import numpy as np

from ..._files import output_path
from ...machine import Machine, parse_machine
from ..certification import TOL

__all__ = ["plot_gap_histogram", "plot_improvement_by_size", "plot_machine", "plot_sweep"]

#: Colours of the allocators (matplotlib's tab10), in the order given.
_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf")


def _matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise ValueError("pictures need matplotlib: pip install 'optalloc[plot]' (or matplotlib)") from None
    return matplotlib


def _check_path(path, overwrite):
    if path is None:
        return None
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"`path` must be in an existing folder, got {path!r}")
    return path


def _axes(ax, path, figsize):
    """The caller's Axes, or one on a new figure: a bare Figure for a file, else pyplot's."""
    _matplotlib()
    if ax is not None:
        from matplotlib.axes import Axes

        if not isinstance(ax, Axes):
            raise ValueError(f"`ax` must be a matplotlib Axes, got {type(ax).__name__}")
        return ax
    if path is not None:
        from matplotlib.figure import Figure

        return Figure(figsize=figsize).add_subplot()
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize)[1]


def _write(ax, path):
    """Save the figure of ``ax`` (the whole figure, a subfigure's root) to ``path``."""
    if path is None:
        return
    try:
        fig = ax.get_figure(root=True)
    except TypeError:  # matplotlib before 3.10: ax.figure is the root
        fig = ax.figure
    with output_path(path, overwrite=True) as tmp:  # whole or not at all; _check_path refused a file before
        fig.savefig(tmp, dpi=120, bbox_inches="tight")


def _owners_at(source, time):
    """Machine and owner job id per node (-1 free) from a source and a time."""
    from ..certification import Certification
    from ..engine import SimulationResult

    if isinstance(source, Certification):
        source = source.simulation
    if isinstance(source, Machine):
        if time is not None:
            raise ValueError("`time` applies to a simulation result, not to a Machine")
        return source, source.owner.copy(), None
    if not isinstance(source, SimulationResult):
        raise ValueError(  # noqa: TRY004 (bad input: one-line ValueError, as everywhere)
            "`source` must be a Machine, a SimulationResult or a Certification, "
                         f"got {type(source).__name__}")
    if time is None:
        raise ValueError("`time` is needed to draw a simulation (a job runs over [start, end))")
    t = float(time)
    machine = parse_machine(source.machine.split()[0])  # the shape is all a picture needs
    owner = np.full(machine.size, -1, dtype=np.int64)
    for r in source.records:
        if r.start <= t < r.end:
            owner[list(r.nodes)] = r.job_id
    return machine, owner, t


def plot_machine(source, path=None, *, time=None, ax=None, overwrite=False, title=None, labels=True):
    """Draw the mesh with every job in its own colour.

    Parameters
    ----------
    source : Machine, SimulationResult or Certification
        A machine as it stands (owners are the ids the simulator gave), or
        a simulation whose per-job records (start, end, nodes) give the jobs
        running at ``time``.
    path : str or path-like, optional
        Also write the figure to this image file (the extension picks the
        format: ``.png``, ``.svg``, ...).
    time : float, optional
        Simulated time; required for a simulation.  A job is drawn when
        ``start <= time < end``.
    ax : matplotlib Axes, optional
        Draw into it (default: a new figure).
    overwrite : bool
        Replace an existing file at ``path``.
    title : str, optional
    labels : bool
        Write the job id in each node (on meshes of at most 1024 nodes).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn into.

    Raises
    ------
    ValueError
        Bad source or time, a folder that does not exist.
    FileExistsError
        ``path`` exists and ``overwrite`` is False.

    Notes
    -----
    Node (x, y) is drawn at column x, row y (y upwards); for a 3D mesh the
    z layers are drawn side by side in the one Axes, z = 0 on the left.

    Examples
    --------
    >>> from optalloc.sim import Job, simulate, plot_machine
    >>> res = simulate([Job(1, 0, 10, 3), Job(2, 0, 10, 2)], "4x2")
    >>> ax = plot_machine(res, time=5)
    >>> ax.get_title()
    '4x2 mesh at t = 5: 2 jobs, 5/8 nodes busy'
    """
    path = _check_path(path, overwrite)
    machine, owner, t = _owners_at(source, time)
    mpl = _matplotlib()
    from matplotlib.colors import ListedColormap

    shape = machine.shape if len(machine.shape) > 1 else (machine.shape[0], 1)
    wx, wy = shape[0], shape[1]
    layers = shape[2] if len(shape) == 3 else 1
    grid = owner.reshape(shape[::-1]).T.reshape(wx, wy, layers)  # ids run x fastest: grid[x, y, z]
    jobs = np.unique(owner[owner >= 0])
    colour_of = {int(j): i + 1 for i, j in enumerate(jobs)}
    base = mpl.colormaps["tab20"].colors
    cmap = ListedColormap([(0.93, 0.93, 0.93)] + [base[i % len(base)] for i in range(len(jobs))]).with_extremes(
        bad=(1.0, 1.0, 1.0, 0.0))  # bad: the gap between z layers
    width = layers * wx + layers - 1  # layers side by side, one empty column apart
    image = np.full((width, wy), np.nan)
    for z in range(layers):
        codes = [[colour_of.get(int(o), 0) for o in col] for col in grid[:, :, z]]
        image[z * (wx + 1): z * (wx + 1) + wx] = codes
    cell = max(0.2, min(0.45, 6.0 / max(width, 1)))
    ax = _axes(ax, path, figsize=(max(2.5, cell * width + 0.8), max(1.5, cell * wy + 1.0)))
    ax.imshow(image.T, origin="lower", cmap=cmap, vmin=0, vmax=len(jobs), interpolation="nearest")
    ax.set_xticks(np.arange(-0.5, width, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, wy, 1), minor=True)
    ax.grid(which="minor", color="white", linewidth=1.0)
    ax.tick_params(which="minor", length=0)
    if width <= 48:
        ax.set_xticks([z * (wx + 1) + x for z in range(layers) for x in range(wx)])
        ax.set_xticklabels([str(x) for _ in range(layers) for x in range(wx)], fontsize=7)
    else:
        ax.set_xticks([])
    ax.set_yticks(range(wy) if wy <= 32 else [])
    ax.tick_params(labelsize=7)
    ax.set_xlabel("x")
    ax.set_ylabel("y" if wy > 1 else "")
    if labels and machine.size <= 1024:
        for z in range(layers):
            for x in range(wx):
                for y in range(wy):
                    o = int(grid[x, y, z])
                    if o >= 0:
                        ax.text(z * (wx + 1) + x, y, str(o), ha="center", va="center", fontsize=7)
    if layers > 1:
        for z in range(layers):
            ax.text(z * (wx + 1) + (wx - 1) / 2, 1.01, f"z = {z}", transform=ax.get_xaxis_transform(),
                    ha="center", va="bottom", fontsize=8)
    busy = int((owner >= 0).sum())
    head = title or (f"{machine.describe()}" + (f" at t = {t:g}" if t is not None else ""))
    ax.set_title(f"{head}: {len(jobs)} job{'' if len(jobs) == 1 else 's'}, {busy}/{machine.size} nodes busy",
                 fontsize=10, pad=16 if layers > 1 else 6)
    _write(ax, path)
    return ax


def _certification(cert):
    from ..certification import Certification, CertificationFile

    if not isinstance(cert, (Certification, CertificationFile)):
        raise ValueError(  # noqa: TRY004
            f"`certification` must be a Certification or a CertificationFile, got {type(cert).__name__}")
    if not len(cert):
        raise ValueError("the certification holds no decisions")
    return cert


def _where(cert) -> str:
    """' on MACHINE' (and the driver) where the certification knows them."""
    sim = getattr(cert, "simulation", None)
    machine = sim.machine if sim is not None else getattr(cert, "machine", None)
    parts = [f"driver {cert.driver}"] if cert.driver else []
    if machine:
        parts.append(str(machine))
    return f" ({', '.join(parts)})" if parts else ""


def _share_optimal(cert, name) -> float:
    j = cert.names.index(name)
    return sum(r.proven and r.W[j] <= r.upper + TOL * max(1.0, r.upper) for r in cert.rows) / len(cert.rows)


def plot_gap_histogram(certification, path=None, *, ax=None, allocators=None, kind="box", points=True,
                       overwrite=False, title=None):
    """The distribution of each allocator's certified ratio W / LB, side by side.

    ``kind="box"`` (the default) draws one box per allocator, side by side:
    the median and quartiles of its ratios, whiskers from the smallest to
    the largest, a triangle at the mean and (``points``) every decision as
    a dot, jittered sideways; the tick label gives the allocator's share of
    optimal decisions. ``kind="ecdf"`` draws one empirical distribution
    function per allocator on one Axes, with a legend: the share of
    decisions whose ratio is at most x (its height at 1 is the share
    optimal; allocators with the same ratios draw the same curve). A
    dashed line marks ratio 1, the optimum.

    Parameters
    ----------
    certification : Certification or CertificationFile
        A :func:`certify` result, or its file read back with
        :func:`read_certification`.
    path : str or path-like, optional
        Also write the figure to this image file.
    ax : matplotlib Axes, optional
        Draw into it (default: a new figure).
    allocators : sequence of str, optional
        Which allocators, in this order (default all).
    kind : "box" or "ecdf"
    points : bool
        Box plot: draw every decision as a dot.
    overwrite : bool
        Replace an existing file at ``path``.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn into.  Box plot: one box patch per allocator (in
        ``ax.patches``, in order) and, with ``points``, one scatter
        collection per allocator whose ``gid`` is the allocator's name and
        whose y values are its ratios; ECDF: one line per allocator,
        labelled ``"NAME (P% optimal)"``.

    Notes
    -----
    A decision known only by a bracket [LB, UB] is drawn at its certified
    worst case W / LB (W / OPT when the optimum is proven).  A ratio with
    a zero lower bound is infinite: it is left out of the box and counted
    under the allocator's name (``unbounded``).

    Examples
    --------
    >>> from optalloc.sim import Job, certify, plot_gap_histogram
    >>> cert = certify([Job(1, 0, 10, 5), Job(2, 1, 10, 6)], "4x4", allocators=("mm", "mc1x1"))
    >>> ax = plot_gap_histogram(cert)
    >>> len(ax.patches), [t.get_text().split()[0] for t in ax.get_xticklabels()]
    (2, ['mm', 'mc1x1'])
    """
    cert = _certification(certification)
    names = list(cert.names if allocators is None else allocators)
    if not names:
        raise ValueError("`allocators` must name at least one allocator")
    for n in names:
        if n not in cert.names:
            raise ValueError(f"`allocators` must be among {', '.join(cert.names)}, got {n!r}")
    if kind not in ("box", "ecdf"):
        raise ValueError(f"`kind` must be 'box' or 'ecdf', got {kind!r}")
    path = _check_path(path, overwrite)
    data = {n: cert.ratios(n)[:, 1] for n in names}
    share = {n: _share_optimal(cert, n) for n in names}
    figsize = (max(5.0, 1.25 * len(names) + 1.5), 4.2) if kind == "box" else (6.5, 4.2)
    ax = _axes(ax, path, figsize)
    colours = [_COLOURS[i % len(_COLOURS)] for i in range(len(names))]
    if kind == "box":
        _boxes(ax, names, data, share, colours, points)
    else:
        _ecdfs(ax, names, data, share, colours)
    ax.set_title(title or f"Certified ratio W / LB per allocator: {len(cert)} decisions{_where(cert)}", fontsize=10,
                 pad=22 if kind == "box" else 6)
    _write(ax, path)
    return ax


def _boxes(ax, names, data, share, colours, points):
    pos = np.arange(1, len(names) + 1)
    finite = [v[np.isfinite(v)] for v in data.values()]
    ax.axhline(1.0, color="0.2", linestyle="--", linewidth=0.9, zorder=1, label="ratio 1: optimal")
    box = ax.boxplot([v if v.size else [np.nan] for v in finite], positions=pos, widths=0.55, whis=(0, 100),
                     patch_artist=True, showfliers=False, showmeans=True, manage_ticks=False,
                     medianprops={"color": "black", "linewidth": 1.5},
                     meanprops={"marker": "^", "markerfacecolor": "white", "markeredgecolor": "black",
                                "markersize": 7})
    for patch, c in zip(box["boxes"], colours):
        patch.set_facecolor(c)
        patch.set_alpha(0.35)
        patch.set_edgecolor(c)
    if points:
        rng = np.random.default_rng(0)
        for p, n, v, c in zip(pos, names, finite, colours):
            size = 10 if v.size <= 500 else 4
            ax.scatter(p + rng.uniform(-0.2, 0.2, v.size), v, s=size, color=c, alpha=0.5, linewidths=0,
                       zorder=3, gid=n)
    labels = []
    for n, v in zip(names, data.values()):
        lab = f"{n}\n{100 * share[n]:.0f}% optimal"
        unbounded = int(np.sum(~np.isfinite(v)))
        labels.append(lab + (f"\n{unbounded} unbounded" if unbounded else ""))
    ax.set_xticks(pos)
    ax.set_xticklabels(labels, fontsize=8, rotation=20 if len(names) > 6 else 0,
                       ha="right" if len(names) > 6 else "center")
    ax.set_xlim(0.4, len(names) + 0.6)
    ax.set_xlabel("allocator")
    ax.set_ylabel("certified ratio W / LB (1 = optimal)")
    from matplotlib.lines import Line2D

    mean = Line2D([], [], linestyle="", marker="^", markerfacecolor="white", markeredgecolor="black",
                  label="mean")
    handles = [ax.get_lines()[0], mean]
    if points:
        handles.append(Line2D([], [], linestyle="", marker="o", color="grey", alpha=0.6, markersize=4,
                              label="one decision"))
    ax.legend(handles=handles, fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(handles),
              frameon=False)


def _ecdfs(ax, names, data, share, colours):
    finite_max = max([float(v[np.isfinite(v)].max()) for v in data.values() if np.isfinite(v).any()] + [1.0])
    right = finite_max + max(0.02 * (finite_max - 1.0), 1e-3)
    styles = ("-", (0, (5, 3)), "-.", ":")  # a curve on top of an equal one lets it show through
    ax.axvline(1.0, color="0.2", linestyle="--", linewidth=0.9, zorder=1, label="ratio 1: optimal")
    low = 1.0
    for i, (n, v) in enumerate(data.items()):
        x = np.sort(v[np.isfinite(v)])
        y = np.arange(1, x.size + 1) / v.size  # unbounded ratios keep the curve below 1
        low = min(low, float(np.sum(x <= 1.0 + TOL)) / v.size)
        ax.step(np.r_[1.0, x, right], np.r_[0.0, y, y[-1] if y.size else 0.0], where="post", color=colours[i],
                linestyle=styles[i % len(styles)], linewidth=1.8, label=f"{n} ({100 * share[n]:.0f}% optimal)")
    ax.set_xlim(1.0 - 0.02 * (right - 1.0), right)
    ax.set_ylim(max(0.0, np.floor(10 * low - 0.5) / 10), 1.01)  # from just below the least share at ratio 1
    ax.set_xlabel("certified ratio W / LB (1 = optimal)")
    ax.set_ylabel("share of decisions with ratio at most x")
    ax.legend(fontsize=8, loc="lower right")


def plot_improvement_by_size(certification, path=None, *, baseline, other="optimum", buckets="each", ax=None,
                             overwrite=False, title=None):
    """Mean improvement of W per job size, in percent of the baseline.

    Bars give ``100 (mean W_baseline - mean W_other) / mean W_baseline`` per
    job-size bucket, positive where ``other`` does better; marks on a right
    axis give the number of decisions of each size (Johnson, Bunde and
    Leung, Fig. 9, where the baseline is MC1x1 without tie-breaking).

    Parameters
    ----------
    certification : Certification or CertificationFile
    path : str or path-like, optional
        Also write the figure to this image file.
    baseline : str
        An allocator of the certification.
    other : str
        Another allocator, or ``"optimum"`` for the certified optimum (its
        upper end where only a bracket is known).
    buckets : "each", "pow2" or sequence of int
        Job-size buckets, as in :meth:`Certification.by_size`.
    ax : matplotlib Axes, optional
        Draw into it (default: a new figure).
    overwrite : bool
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        The Axes of the bars; the counts are on its twin (``ax.twinx()``),
        the figure's other Axes.

    Examples
    --------
    >>> from optalloc.sim import Job, certify, plot_improvement_by_size
    >>> cert = certify([Job(1, 0, 10, 5), Job(2, 1, 10, 6)], "4x4", allocators=("mm", "mc1x1"))
    >>> ax = plot_improvement_by_size(cert, baseline="mc1x1", other="mm")
    >>> len(ax.patches), ax.get_xlabel()
    (2, 'job size (processors)')
    """
    from ..certification import size_buckets

    cert = _certification(certification)
    base = cert.W(baseline)
    if other == "optimum":
        oth = np.array([r.upper for r in cert.rows], dtype=float)
    else:
        oth = cert.W(other)
    ks = np.array([r.k for r in cert.rows], dtype=int)
    groups = size_buckets(ks.tolist(), buckets)
    path = _check_path(path, overwrite)
    labels, gains, counts = [], [], []
    for lo, hi in groups:
        sel = (ks >= lo) & (ks <= hi)
        b = base[sel].mean()
        gains.append(100.0 * (b - oth[sel].mean()) / b if b > 0 else 0.0)
        counts.append(int(sel.sum()))
        labels.append(str(lo) if lo == hi else f"{lo}-{hi}")
    ax = _axes(ax, path, figsize=(max(5.0, 0.45 * len(groups) + 2), 4))
    x = np.arange(len(groups))
    ax.bar(x, gains, color=["tab:green" if g >= 0 else "tab:red" for g in gains], width=0.6)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=90 if len(groups) > 16 else 0, fontsize=8)
    ax.set_xlabel("job size (processors)")
    ax.set_ylabel(f"% improvement of mean W over {baseline}")
    right = ax.twinx()
    right.plot(x, counts, "k+", markersize=8)
    right.set_ylabel("decisions")
    right.set_ylim(bottom=0)
    ax.set_title(title or f"{other} against {baseline}: {len(cert)} decisions{_where(cert)}", fontsize=10)
    _write(ax, path)
    return ax


def _metric_names(done) -> list[str]:
    names = set()
    for r in done:
        names |= {k for k, v in r["summary"].items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return sorted(names)


def plot_sweep(rows, metric, path=None, *, ax=None, overwrite=False, title=None):
    """A summary metric of every allocator of a sweep, as a dot plot.

    One row per allocator (in the order of the sweep), one marker per
    setting (trace, machine, scheduler) at the metric's mean over the
    seeds, with a line from the least to the largest seed's value when
    there are several; a legend names the settings when there are more
    than one.

    Parameters
    ----------
    rows : list of dict
        :func:`read_sweep` rows; those not done are left out.
    metric : str
        A number of the summary: ``mean_avg_l1``, ``mean_W``,
        ``mean_wait``, ``utilisation``, ``tie_share``, ... (the fields of
        :class:`Summary`).
    path : str or path-like, optional
        Also write the figure to this image file.
    ax : matplotlib Axes, optional
        Draw into it (default: a new figure).
    overwrite : bool
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn into: one scatter collection per setting, whose y
        values are the allocators' positions (0 at the top).

    Raises
    ------
    ValueError
        No finished configuration, or an unknown metric (the message
        lists the known ones), or a metric none of them has.

    Examples
    --------
    >>> import os, tempfile
    >>> from optalloc.sim import make_sweep, run_sweep, read_sweep, plot_sweep
    >>> cfg = make_sweep(traces=[{"path": "instances/small.swf", "limit": 20}], machines=["8x4"],
    ...                  allocators=["mm", "mc1x1"])
    >>> db = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = run_sweep(cfg, db, workers=1)
    >>> ax = plot_sweep(read_sweep(db), "mean_avg_l1")
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['mm', 'mc1x1']
    """
    done = [r for r in rows if r.get("status") == "done" and r.get("summary")]
    if not done:
        raise ValueError("the sweep holds no finished configuration")
    known = _metric_names(done)
    if metric not in known:
        raise ValueError(f"`metric` must be one of {', '.join(known)}, got {metric!r}")
    allocs, settings, values = [], [], {}
    for r in done:
        v = r["summary"].get(metric)
        if v is None:
            continue
        a, s = r["allocator"], (os.path.basename(str(r["trace"])), r["machine"], r["scheduler"])
        if a not in allocs:
            allocs.append(a)
        if s not in settings:
            settings.append(s)
        values.setdefault((a, s), []).append(float(v))
    if not values:
        raise ValueError(f"no finished configuration has a value of {metric!r}")
    path = _check_path(path, overwrite)
    ax = _axes(ax, path, figsize=(7.0, max(2.5, 0.4 * len(allocs) + 1.4)))
    step = min(0.6 / len(settings), 0.15) if len(settings) > 1 else 0.0
    for i, s in enumerate(settings):
        c = _COLOURS[i % len(_COLOURS)]
        here = [(j, values[(a, s)]) for j, a in enumerate(allocs) if (a, s) in values]
        y = np.array([j for j, _ in here], dtype=float) + (i - (len(settings) - 1) / 2) * step
        for yy, (_, vs) in zip(y, here):
            if len(vs) > 1:
                ax.plot([min(vs), max(vs)], [yy, yy], color=c, linewidth=1.5, alpha=0.7)
        ax.scatter([np.mean(vs) for _, vs in here], y, color=c, s=36, zorder=3,
                   label=f"{s[0]} on {s[1]}, {s[2]}", gid=f"{s[0]} on {s[1]}, {s[2]}")
    ax.set_yticks(range(len(allocs)))
    ax.set_yticklabels(allocs, fontsize=8)
    ax.set_ylim(len(allocs) - 0.5, -0.5)  # the first allocator at the top
    ax.grid(axis="y", color="0.9", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.set_xlabel(metric + (" (mean over seeds; line: least to largest)" if any(len(v) > 1 for v in
                                                                                  values.values()) else ""))
    ax.set_ylabel("allocator")
    if len(settings) > 1:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # outside: no marker hidden
    sweep = done[0].get("sweep")
    where = "" if len(settings) > 1 else f": {settings[0][0]} on {settings[0][1]}, {settings[0][2]}"
    ax.set_title(title or f"{metric} per allocator" + (f", sweep {sweep}" if sweep else "") + where, fontsize=10)
    _write(ax, path)
    return ax
