"""The example instances shipped with optalloc (a job trace, machine maps,
point sets, a sweep description), found inside the installed package."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["instance_path"]


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
    folder = resources.files("optalloc") / "instances"
    path = folder / str(name)
    if not path.is_file():
        names = sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
        raise ValueError(f"no bundled instance {name!r}; there are: {', '.join(names)}")
    return Path(str(path))
