"""The certified ratio of a job history's placements, by job size and over time."""

from __future__ import annotations

import numpy as np

from ._plots import _COLOURS, _check_path, _matplotlib, _write

__all__ = ["plot_history"]


def plot_history(certification, path=None, *, overwrite=False):
    """Two panels: the certified ratio W / LB of every placement of a
    history against its job size (with the mean per size, and the same for
    each allocator compared), and against its start time (hours since the
    first start).

    Parameters
    ----------
    certification : HistoryCertification
        From :func:`~optalloc.sim.certification.certify_history`.
    path : str or path, optional
        Save the figure there (``.png``, ``.svg``, ``.pdf``); an existing
        file only with ``overwrite``.

    Returns
    -------
    tuple of matplotlib Axes
        (by size, over time).

    Examples
    --------
    >>> from optalloc import instance_path
    >>> from optalloc.machine import read_topology
    >>> from optalloc.sim.certification import certify_history
    >>> cert = certify_history(instance_path("history-sacct.txt"), read_topology(instance_path("topology.conf")))
    >>> left, right = plot_history(cert)
    >>> left.get_xlabel(), right.get_xlabel()
    ('job size (nodes)', 'hours since the first start')
    """
    cert = certification
    if not hasattr(cert, "conflicts") or not cert.rows:
        raise ValueError("`certification` must be a history's certification with placements (certify_history)")
    path = _check_path(path, overwrite)
    _matplotlib()
    if path is not None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(11, 4.2))
    else:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(11, 4.2))
    left, right = fig.subplots(1, 2)
    k = np.array([r.k for r in cert.rows], dtype=float)
    t = np.array([r.time for r in cert.rows], dtype=float)
    t = (t - t.min()) / 3600.0
    for j, name in enumerate(cert.names):
        ratio = cert.ratios(name)[:, 1]
        ok = np.isfinite(ratio)
        c = _COLOURS[j % len(_COLOURS)]
        sizes = np.unique(k[ok])
        means = [ratio[ok][k[ok] == s].mean() for s in sizes]
        if j == 0:
            left.scatter(k[ok], ratio[ok], s=8, color=c, alpha=0.35, linewidths=0)
            right.scatter(t[ok], ratio[ok], s=8, color=c, alpha=0.5, linewidths=0, label=name)
        left.plot(sizes, means, color=c, marker="o", markersize=3, linewidth=1.2, label=f"{name}: mean")
    for ax in (left, right):
        ax.axhline(1.0, color="0.2", linestyle="--", linewidth=0.9)
        ax.set_ylabel("certified ratio W / OPT")
    if k.max() > 8:
        left.set_xscale("log", base=2)
    left.set_xlabel("job size (nodes)")
    right.set_xlabel("hours since the first start")
    left.legend(fontsize=8)
    right.legend(fontsize=8)
    left.set_title(f"By job size: {len(cert.rows)} placements on {cert.machine_text}", fontsize=9)
    right.set_title("Over time: the history's placements", fontsize=9)
    _write(left, path)
    return left, right
