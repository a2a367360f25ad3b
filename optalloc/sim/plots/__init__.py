"""Pictures of simulations, certifications and sweeps (matplotlib, imported
when a function is called; each takes ``ax=`` and returns the Axes).
"""

from ._history import plot_history
from ._lines import plot_sweep_lines
from ._network import plot_network
from ._plots import plot_gap_histogram, plot_improvement_by_size, plot_machine, plot_sweep

__all__ = [
    "plot_gap_histogram",
    "plot_history",
    "plot_improvement_by_size",
    "plot_machine",
    "plot_network",
    "plot_sweep",
    "plot_sweep_lines",
]
