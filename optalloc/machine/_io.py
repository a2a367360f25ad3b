"""Reading point files and ASCII mesh maps."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

FREE = "."


@dataclass(frozen=True)
class Mesh:
    """A mesh of processors, each free or busy.

    Attributes
    ----------
    free : numpy.ndarray of bool, shape (W, H) or (W, H, D)
        ``free[x, y]`` (or ``free[x, y, z]``) is True for a free processor.
    """

    free: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        """Extent per axis, (W, H) or (W, H, D)."""
        return tuple(int(s) for s in self.free.shape)

    def free_points(self) -> np.ndarray:
        """Coordinates (x, y[, z]) of the free processors, in file order
        (layer by layer, row by row, left to right)."""
        d = self.free.ndim
        # file order is z, then y, then x: transpose so argwhere walks it
        order = tuple(reversed(range(d)))
        idx = np.argwhere(self.free.transpose(order))
        return idx[:, ::-1].astype(np.int64)

    def to_text(self, busy: str = "#") -> str:
        """The ASCII map of this mesh (the format :func:`read_mesh` reads)."""
        grid = self.free if self.free.ndim == 3 else self.free[:, :, None]
        layers = []
        for z in range(grid.shape[2]):
            rows = ["".join(FREE if grid[x, y, z] else busy for x in range(grid.shape[0]))
                    for y in range(grid.shape[1])]
            layers.append("\n".join(rows))
        return "\n\n".join(layers) + "\n"


def _read_text(path) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read file ({exc.__class__.__name__}: {exc})") from None
    if not text.strip():
        raise ValueError(f"{path}: file is empty")
    return text


def parse_points(text: str, *, source: str = "points") -> np.ndarray:
    """Parse a points file: one point per line, coordinates separated by
    spaces or commas, ``#`` starts a comment.

    Examples
    --------
    >>> parse_points("# x y\\n0 0\\n1, 2  # a comment\\n").tolist()
    [[0.0, 0.0], [1.0, 2.0]]
    """
    rows, width = [], None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].replace(",", " ").split()
        if not line:
            continue
        try:
            values = [float(v) for v in line]
        except ValueError:
            raise ValueError(f"{source}, line {lineno}: not a number in {raw.strip()!r}") from None
        if not all(np.isfinite(values)):
            raise ValueError(f"{source}, line {lineno}: NaN or infinite coordinate in {raw.strip()!r}")
        if width is None:
            width = len(values)
        elif len(values) != width:
            raise ValueError(
                f"{source}, line {lineno}: {len(values)} coordinates, expected {width} like the first point"
            )
        rows.append(values)
    if not rows:
        raise ValueError(f"{source}: no points (only blank lines or comments)")
    return np.array(rows, dtype=np.float64)


def read_points(path: str | os.PathLike) -> np.ndarray:
    """Read a points file (see :func:`parse_points`); shape (n, d)."""
    return parse_points(_read_text(path), source=str(path))


def parse_mesh(text: str, *, source: str = "mesh") -> Mesh:
    """Parse an ASCII mesh map.

    ``.`` is a free processor, any other visible character a busy one; row
    i of a block is y = i and column j is x = j.  A 3-D mesh is several
    blocks (z = 0, 1, ...) separated by blank lines.  Trailing whitespace is
    ignored; every row and every layer must have the same size.

    Examples
    --------
    >>> m = parse_mesh("..#\\n#..\\n")
    >>> m.shape, m.free_points().tolist()
    ((3, 2), [[0, 0], [1, 0], [1, 1], [2, 1]])
    """
    layers: list[list[tuple[int, str]]] = [[]]
    for lineno, raw in enumerate(text.splitlines(), start=1):
        row = raw.rstrip()
        if not row:
            if layers[-1]:
                layers.append([])
            continue
        if any(ch.isspace() for ch in row):
            raise ValueError(f"{source}, line {lineno}: whitespace inside a mesh row")
        layers[-1].append((lineno, row))
    if not layers[-1]:
        layers.pop()
    if not layers:
        raise ValueError(f"{source}: no mesh rows")
    width = len(layers[0][0][1])
    height = len(layers[0])
    for z, layer in enumerate(layers):
        if len(layer) != height:
            raise ValueError(f"{source}: layer {z} has {len(layer)} rows, expected {height} like layer 0")
        for lineno, row in layer:
            if len(row) != width:
                raise ValueError(f"{source}, line {lineno}: row has {len(row)} columns, expected {width}")
    free = np.array([[[ch == FREE for ch in row] for _, row in layer] for layer in layers])  # (z, y, x)
    free = free.transpose(2, 1, 0)
    if free.shape[2] == 1:
        free = free[:, :, 0]
    return Mesh(free=np.ascontiguousarray(free))


def read_mesh(path: str | os.PathLike) -> Mesh:
    """Read an ASCII mesh map file (see :func:`parse_mesh`)."""
    return parse_mesh(_read_text(path), source=str(path))
