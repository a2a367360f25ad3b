"""The example instances shipped with optalloc (a job trace, machine maps,
point sets, networks, matrices, sweep descriptions, and the example files
of every format), found inside the installed package."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["instance_names", "instance_path"]


def _folder():
    return resources.files("optalloc") / "instances"


def instance_names() -> list[str]:
    """The names of the bundled instances, sorted.

    Each is a name that :func:`instance_path` takes, and that the command
    line takes in place of an input file's path.

    Examples
    --------
    >>> from optalloc import instance_names
    >>> "small.swf" in instance_names(), "mesh16x16.txt" in instance_names()
    (True, True)
    """
    return sorted(p.name for p in _folder().iterdir() if p.is_file() and not p.name.startswith("."))


def instance_path(name: str) -> Path:
    """The path of a bundled instance, e.g. ``instance_path("small.swf")``.

    Raises
    ------
    ValueError
        No bundled instance of that name (the message lists them).

    Examples
    --------
    >>> from optalloc import instance_path
    >>> instance_path("small.swf").name
    'small.swf'
    """
    path = _folder() / str(name)
    if not path.is_file():
        raise ValueError(f"no bundled instance {name!r}; there are: {', '.join(instance_names())}")
    return Path(str(path))
