"""Pictures of simulations and certifications (matplotlib, written to files).

- :func:`plot_machine`: the mesh with every running job in its own colour,
  at a given time of a simulation or for a :class:`Machine` as it stands
  (3D meshes: the z layers side by side);
- :func:`plot_gap_histogram`: the distribution of each allocator's ratio
  W / OPT over the decisions of a :class:`Certification`;
- :func:`plot_improvement_by_size`: the mean improvement of one allocator's
  W over another's per job-size bucket, with the number of jobs of each
  size (Johnson, Bunde and Leung, Fig. 9).

matplotlib is imported inside the functions, with the Agg backend, so that
importing :mod:`optalloc.sim` does not need it.  No function replaces an
existing file unless ``overwrite=True``.
"""

from __future__ import annotations

import os

import numpy as np

from ..machine import Machine, parse_machine

__all__ = ["plot_gap_histogram", "plot_improvement_by_size", "plot_machine"]


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ValueError("pictures need matplotlib: pip install 'optalloc[plot]' (or matplotlib)") from None

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _check_path(path, overwrite):
    path = os.fspath(path)
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"`path` must be in an existing folder, got {path!r}")
    return path


def _save(fig, plt, path):
    try:
        fig.savefig(path, dpi=120, bbox_inches="tight")
    finally:
        plt.close(fig)


def _owners_at(source, time):
    """Machine and owner job id per node (-1 free) from a source and a time."""
    from ._certify_result import Certification
    from ._simulate import SimulationResult

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


def plot_machine(source, path, *, time=None, overwrite=False, title=None, labels=True) -> str:
    """Draw the mesh with every job in its own colour, to an image file.

    Parameters
    ----------
    source : Machine, SimulationResult or Certification
        A machine as it stands (owners are the ids the simulator gave), or
        a simulation whose per-job records (start, end, nodes) give the jobs
        running at ``time``.
    path : str or path-like
        Image file (the extension picks the format: ``.png``, ``.svg``, ...).
    time : float, optional
        Simulated time; required for a simulation.  A job is drawn when
        ``start <= time < end``.
    overwrite : bool
        Replace an existing file.
    title : str, optional
    labels : bool
        Write the job id in each node (on meshes of at most 1024 nodes).

    Returns
    -------
    str
        The path written.

    Raises
    ------
    ValueError
        Bad source or time, a folder that does not exist.
    FileExistsError
        ``path`` exists and ``overwrite`` is False.

    Notes
    -----
    Node (x, y) is drawn at column x, row y (y upwards); for a 3D mesh the
    z layers are drawn side by side, z = 0 on the left.

    Examples
    --------
    >>> import os, tempfile
    >>> from optalloc.sim import Job, simulate, plot_machine
    >>> res = simulate([Job(1, 0, 10, 3), Job(2, 0, 10, 2)], "4x2")
    >>> path = os.path.join(tempfile.mkdtemp(), "mesh.png")
    >>> plot_machine(res, path, time=5) == path
    True
    """
    path = _check_path(path, overwrite)
    machine, owner, t = _owners_at(source, time)
    plt = _pyplot()
    from matplotlib.colors import ListedColormap

    shape = machine.shape
    if len(shape) == 1:
        shape = (shape[0], 1)
    layers = shape[2] if len(shape) == 3 else 1
    wx, wy = shape[0], shape[1]
    grid = owner.reshape(shape[::-1]).T  # ids run x fastest: grid[x, y(, z)]
    jobs = np.unique(owner[owner >= 0])
    colour_of = {int(j): i + 1 for i, j in enumerate(jobs)}
    base = plt.get_cmap("tab20").colors
    colours = [(0.93, 0.93, 0.93)] + [base[i % len(base)] for i in range(len(jobs))]
    cmap = ListedColormap(colours)
    size = max(2.0, min(6.0, 0.45 * wx))
    fig, axes = plt.subplots(1, layers, figsize=(size * layers + 0.5, max(1.5, size * wy / max(wx, 1)) + 0.6),
                             squeeze=False)
    for z in range(layers):
        ax = axes[0, z]
        layer = grid[:, :, z] if layers > 1 or len(machine.shape) == 3 else grid
        codes = np.vectorize(lambda o: colour_of.get(int(o), 0))(layer) if layer.size else layer
        ax.imshow(codes.T, origin="lower", cmap=cmap, vmin=0, vmax=len(colours) - 1, interpolation="nearest")
        ax.set_xticks(np.arange(-0.5, wx, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, wy, 1), minor=True)
        ax.grid(which="minor", color="white", linewidth=1.0)
        ax.tick_params(which="minor", length=0)
        ax.set_xticks(range(wx) if wx <= 32 else [])
        ax.set_yticks(range(wy) if wy <= 32 else [])
        if labels and machine.size <= 1024:
            for x in range(wx):
                for y in range(wy):
                    o = int(layer[x, y])
                    if o >= 0:
                        ax.text(x, y, str(o), ha="center", va="center", fontsize=7)
        if layers > 1:
            ax.set_title(f"z = {z}", fontsize=9)
    busy = int((owner >= 0).sum())
    head = title or (f"{machine.describe()}" + (f" at t = {t:g}" if t is not None else ""))
    fig.suptitle(f"{head}: {len(jobs)} job{'' if len(jobs) == 1 else 's'}, {busy}/{machine.size} nodes busy",
                 fontsize=10)
    _save(fig, plt, path)
    return path


def _certification(cert):
    from ._certify_result import Certification

    if not isinstance(cert, Certification):
        raise ValueError(f"`certification` must be a Certification, got {type(cert).__name__}")  # noqa: TRY004
    return cert


def plot_gap_histogram(certification, path, *, allocators=None, bins=20, overwrite=False, title=None) -> str:
    """Histogram of each allocator's ratio W / OPT over the decisions.

    Parameters
    ----------
    certification : Certification
    path : str or path-like
        Image file.
    allocators : sequence of str, optional
        Which allocators (default all).
    bins : int
        Bins between 1 and the largest finite ratio.
    overwrite : bool
    title : str, optional

    Returns
    -------
    str
        The path written.

    Notes
    -----
    A decision known only by a bracket is counted at its certified worst
    case W / LB; the legend gives each allocator's share of optimal
    decisions.

    Examples
    --------
    >>> import os, tempfile
    >>> from optalloc.sim import Job, certify, plot_gap_histogram
    >>> cert = certify([Job(1, 0, 10, 5), Job(2, 1, 10, 6)], "4x4", allocators=("mm", "mc1x1"))
    >>> path = os.path.join(tempfile.mkdtemp(), "gaps.png")
    >>> plot_gap_histogram(cert, path) == path
    True
    """
    cert = _certification(certification)
    names = list(cert.names if allocators is None else allocators)
    for n in names:
        cert._col(n)  # raises on unknown names
    bins = int(bins)
    if bins < 1:
        raise ValueError(f"`bins` must be at least 1, got {bins}")
    path = _check_path(path, overwrite)
    plt = _pyplot()
    summary = {s.name: s for s in cert.summary()}
    data = {n: cert.ratios(n)[:, 1] for n in names}
    finite = np.concatenate([v[np.isfinite(v)] for v in data.values()] + [np.array([1.0])])
    top = max(1.0 + 1e-3, float(finite.max()))
    edges = np.linspace(1.0, top, bins + 1)
    fig, ax = plt.subplots(figsize=(7, 4))
    for n in names:
        v = np.minimum(data[n], top)  # an infinite ratio (zero bound) lands in the last bin
        ax.hist(v, bins=edges, histtype="step", linewidth=1.5,
                label=f"{n} ({100 * summary[n].share_optimal:.0f}% optimal)")
    ax.set_yscale("log")
    ax.set_xlabel("ratio W / OPT (bracketed decisions at W / LB)")
    ax.set_ylabel("decisions")
    ax.legend(fontsize=8)
    ax.set_title(title or f"{len(cert)} decisions of {cert.driver} on {cert.simulation.machine}", fontsize=10)
    _save(fig, plt, path)
    return path


def plot_improvement_by_size(certification, path, *, baseline, other="optimum", buckets="each",
                             overwrite=False, title=None) -> str:
    """Mean improvement of W per job size, in percent of the baseline.

    Bars give ``100 (mean W_baseline - mean W_other) / mean W_baseline`` per
    job-size bucket, positive where ``other`` does better; marks on the
    right axis give the number of decisions of each size (Johnson, Bunde and
    Leung, Fig. 9, where the baseline is MC1x1 without tie-breaking).

    Parameters
    ----------
    certification : Certification
    path : str or path-like
    baseline : str
        An allocator of the certification.
    other : str
        Another allocator, or ``"optimum"`` for the certified optimum (its
        upper end where only a bracket is known).
    buckets : "each", "pow2" or sequence of int
        Job-size buckets, as in :meth:`Certification.by_size`.
    overwrite : bool
    title : str, optional

    Returns
    -------
    str
        The path written.

    Examples
    --------
    >>> import os, tempfile
    >>> from optalloc.sim import Job, certify, plot_improvement_by_size
    >>> cert = certify([Job(1, 0, 10, 5), Job(2, 1, 10, 6)], "4x4", allocators=("mm", "mc1x1"))
    >>> path = os.path.join(tempfile.mkdtemp(), "sizes.png")
    >>> plot_improvement_by_size(cert, path, baseline="mc1x1", other="mm") == path
    True
    """
    from ._certify_result import _size_buckets

    cert = _certification(certification)
    base = cert.W(baseline)
    if other == "optimum":
        oth = np.array([r.upper for r in cert.rows], dtype=float)
    else:
        oth = cert.W(other)
    ks = np.array([r.k for r in cert.rows], dtype=int)
    groups = _size_buckets(ks.tolist(), buckets)
    path = _check_path(path, overwrite)
    labels, gains, counts = [], [], []
    for lo, hi in groups:
        sel = (ks >= lo) & (ks <= hi)
        b = base[sel].mean()
        gains.append(100.0 * (b - oth[sel].mean()) / b if b > 0 else 0.0)
        counts.append(int(sel.sum()))
        labels.append(str(lo) if lo == hi else f"{lo}-{hi}")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(5.0, 0.45 * len(groups) + 2), 4))
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
    ax.set_title(title or f"{other} against {baseline}, {len(cert)} decisions on {cert.simulation.machine}",
                 fontsize=10)
    _save(fig, plt, path)
    return path
