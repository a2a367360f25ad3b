"""A summary metric of a sweep against a workload parameter, one line per
allocator: Fig. 1 of Leung et al. (2002), the average bounding cube ratio
and the average span against the work multiple."""

from __future__ import annotations

import os

import numpy as np

from ._plots import _COLOURS, _axes, _check_path, _metric_names, _write

__all__ = ["plot_sweep_lines"]

#: Sweep parameters a line plot can have on its x axis, with their defaults.
X_PARAMETERS = {"work_multiple": 1.0, "replication": 1}


def plot_sweep_lines(rows, metric, path=None, *, x="work_multiple", ax=None, overwrite=False, title=None):
    """A summary metric against a sweep parameter, one line per allocator.

    Parameters
    ----------
    rows : list of dict
        :func:`read_sweep` rows; those not done are left out.
    metric : str
        A number of the summary (``mean_bbox_cube_ratio``,
        ``mean_ring_span``, ``mean_wait``, ...).
    path : str or path-like, optional
        Also write the figure to this image file.
    x : str
        ``"work_multiple"`` (default) or ``"replication"``.
    ax : matplotlib Axes, optional
    overwrite : bool
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        One line per allocator (and per trace, machine and scheduler when a
        sweep has several), at the mean over seeds.

    Raises
    ------
    ValueError
        No finished configuration, an unknown metric or ``x``.

    Examples
    --------
    >>> import os, tempfile
    >>> from optalloc.sim import make_sweep, run_sweep, read_sweep
    >>> cfg = make_sweep(traces=[{"path": "instances/small.swf", "limit": 20}], machines=["8x4"],
    ...                  allocators=["mm", "mc1x1"], work_multiple=[1.0, 2.0])
    >>> db = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = run_sweep(cfg, db, workers=1)
    >>> ax = plot_sweep_lines(read_sweep(db), "mean_bbox_cube")
    >>> [line.get_label() for line in ax.get_lines()], ax.get_lines()[0].get_xdata().tolist()
    (['mm', 'mc1x1'], [1.0, 2.0])
    """
    if x not in X_PARAMETERS:
        raise ValueError(f"`x` must be one of {', '.join(map(repr, X_PARAMETERS))}, got {x!r}")
    done = [r for r in rows if r.get("status") == "done" and r.get("summary")]
    if not done:
        raise ValueError("the sweep holds no finished configuration")
    known = _metric_names(done)
    if metric not in known:
        raise ValueError(f"`metric` must be one of {', '.join(known)}, got {metric!r}")
    settings = {(os.path.basename(str(r["trace"])), r["machine"], r["scheduler"]) for r in done}
    lines, values = [], {}
    for r in done:
        v = r["summary"].get(metric)
        if v is None:
            continue
        s = (os.path.basename(str(r["trace"])), r["machine"], r["scheduler"])
        label = r["allocator"] if len(settings) == 1 else f"{r['allocator']} ({s[0]} on {s[1]}, {s[2]})"
        if label not in lines:
            lines.append(label)
        xv = float((r.get("spec") or {}).get(x, X_PARAMETERS[x]))
        values.setdefault(label, {}).setdefault(xv, []).append(float(v))
    if not values:
        raise ValueError(f"no finished configuration has a value of {metric!r}")
    path = _check_path(path, overwrite)
    ax = _axes(ax, path, figsize=(6.4, 4.2))
    markers = "os^vD<>ph*"
    for i, label in enumerate(lines):
        pts = sorted(values[label].items())
        ax.plot([p for p, _ in pts], [float(np.mean(v)) for _, v in pts], marker=markers[i % len(markers)],
                color=_COLOURS[i % len(_COLOURS)], label=label, linewidth=1.5, markersize=5)
    ax.set_xlabel(x.replace("_", " "))
    ax.set_ylabel(metric)
    ax.grid(color="0.9", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.legend(fontsize=8)
    where = ""
    if len(settings) == 1:
        (t, m, s), = settings
        where = f": {t} on {m}, {s}"
    ax.set_title(title or f"{metric} against {x.replace('_', ' ')}{where}", fontsize=10)
    _write(ax, path)
    return ax
