"""Parameter sweeps of the trace simulator, stored in SQLite, resumable.

A *sweep* is a grid of simulations: trace x machine x scheduler x
allocator (x seed, for random allocators).  The allocator axis can itself
be a grid of options, e.g. the tie-breaking vectors (SR, AF, WF, BF) of
MC1x1 searched by Johnson, Bunde and Leung (sec. III, Figs. 8 and 15).

- :func:`load_sweep` reads a TOML file, :func:`make_sweep` builds the same
  from Python values; both check everything (keys, files, machines,
  schedulers, allocators) before anything runs.
- A sweep of kind ``"certify"`` (:func:`make_certify_sweep`, or
  ``kind = "certify"`` in the TOML file) runs :func:`certify` over traces x
  machines (tori and networks too) x schedulers x drivers, into the same
  store (``_certify_kind``).
- :func:`run_sweep` runs the configurations not yet in the database, in
  local processes (default), in this process (``workers=1``) or on a Dask
  cluster (``scheduler="tcp://HOST:PORT"``).  Only the calling process
  writes; each configuration's results go in one SQLite transaction.
- :func:`read_sweep` and :func:`read_jobs` read results back;
  :func:`format_sweep` prints them as a table.
- :func:`recover_sweep` copies what can still be read of a damaged store
  (which every other function refuses, untouched) into a new one.

Resuming.  Every configuration has a key: a hash of its canonical JSON,
which includes the SHA-256 of the trace file's content (a changed trace
gives new keys).  Its summary, optional per-job rows and the removal of an
earlier failure are committed together, in one transaction, when it ends;
the summary's PRIMARY KEY forbids a second copy.  A sweep killed at any
moment therefore leaves only whole configurations behind, and the same
sweep started again skips them and runs the rest.

Sharing and faults.  Several runs may use one store at once: each
configuration is claimed in the store before it starts, and runs once.
A write the store refuses (a full disk) stops the run with one line
naming the file, every stored configuration kept.  On Dask, configurations
lost with their workers wait for workers to return (``worker_timeout``).

Modules, one per concern: ``_spec`` (configuration types, validation and
grid expansion), ``_toml`` (reading TOML), ``_store`` (the SQLite store,
writing and reading back, checks), ``_claims`` (claims of running
configurations), ``_recover`` (saving a damaged store), ``_worker``
(simulating one configuration), ``_run`` (the runner, its pools and
resuming), ``_dask`` (the Dask pool), ``_report`` (the run report and
the results table).
"""

from ._certify_kind import make_certify_sweep
from ._recover import recover_sweep
from ._report import SweepReport, format_sweep
from ._run import run_sweep
from ._spec import Configuration, SweepConfig, make_sweep
from ._store import read_jobs, read_sweep
from ._toml import load_sweep

__all__ = [
    "Configuration",
    "SweepConfig",
    "SweepReport",
    "format_sweep",
    "load_sweep",
    "make_certify_sweep",
    "make_sweep",
    "read_jobs",
    "read_sweep",
    "recover_sweep",
    "run_sweep",
]
