"""QAPLIB instance and solution files."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .._files import output_file
from .._text import read_text
from ._common import integral_data
from ._core import objective


def _numbers(path) -> list[str]:
    return read_text(path).split()


def read_qaplib(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """Read a QAPLIB ``.dat`` file: n, then matrix A, then matrix B, as a
    stream of whitespace-separated numbers (rows may wrap).

    Returns (A, B); the objective of a permutation p is
    ``sum_ij A[i, j] B[p(i), p(j)]``, i.e. ``objective(A, B, p)``.  Some
    distributions put a second number on the first line (the best known
    value, as in a ``.sln`` header); it is recognised by the entry count
    and skipped.
    """
    tokens = _numbers(path)
    try:
        n = int(tokens[0])
        values = np.array([float(t) for t in tokens[1:]])
    except (ValueError, IndexError):
        raise ValueError(f"{path}: not a QAPLIB instance (expected n and two n x n matrices)") from None
    if n >= 1 and len(values) == 2 * n * n + 1:  # "n value" header line
        values = values[1:]
    if n < 1 or len(values) != 2 * n * n:
        raise ValueError(f"{path}: n = {n} needs {2 * n * n} matrix entries, found {len(values)}")
    return values[: n * n].reshape(n, n), values[n * n :].reshape(n, n)


def write_qaplib(path: str | os.PathLike, A, B, *, overwrite: bool = False) -> None:
    """Write A and B as a QAPLIB ``.dat`` file (refuses to overwrite unless asked)."""
    if os.path.exists(path) and not overwrite:
        raise ValueError(f"{path} exists; pass overwrite=True to replace it")
    A, B = np.asarray(A), np.asarray(B)
    fmt = (lambda v: f"{int(v)}") if integral_data(A, B) else repr
    with output_file(path, overwrite=True) as fh:  # whole or not at all
        fh.write(f"{len(A)}\n\n")
        fh.writelines("\n".join(" ".join(fmt(v) for v in row) for row in M) + "\n\n" for M in (A, B))


@dataclass(frozen=True)
class QAPSolution:
    """A QAPLIB solution, checked against its instance.

    Attributes
    ----------
    value : float
        The value the ``.sln`` file states.
    perm : numpy.ndarray
        The 0-based permutation that reaches it (task i on node perm[i]).
    inverted : bool
        True when the file's permutation reached the value only when read
        as its inverse (a known QAPLIB pitfall: kra30a, tho30, nug30, ...).
    zero_based : bool
        True when the file numbered the nodes from 0 (tai40a does).
    """

    value: float
    perm: np.ndarray
    inverted: bool
    zero_based: bool = False


def read_solution(path: str | os.PathLike, A=None, B=None) -> QAPSolution:
    """Read a QAPLIB ``.sln`` file (``n value`` then a 1-based permutation;
    a permutation of 0..n-1 is read as 0-based).

    With the instance matrices, the permutation is checked: if it misses the
    stated value but its inverse reaches it, the inverse is returned with
    ``inverted=True``; if neither does, ValueError.
    """
    tokens = _numbers(path)
    try:
        n, value = int(tokens[0]), float(tokens[1])
        perm = np.array([int(t) for t in tokens[2 : 2 + n]])
    except (ValueError, IndexError):
        raise ValueError(f"{path}: not a QAPLIB solution (expected n, value and a permutation)") from None
    zero = len(perm) == n and np.array_equal(np.sort(perm), np.arange(n))
    if not zero:
        perm = perm - 1
    if len(perm) != n or not np.array_equal(np.sort(perm), np.arange(n)):
        raise ValueError(f"{path}: the permutation is not a permutation of 1..{n}")
    if A is None:
        return QAPSolution(value, perm, False, zero)
    if len(A) != n:
        raise ValueError(f"{path}: solution for n = {n}, instance has n = {len(A)}")
    tol = 1e-9 * max(1.0, abs(value))
    if abs(objective(A, B, perm) - value) <= tol:
        return QAPSolution(value, perm, False, zero)
    inv = np.argsort(perm)
    if abs(objective(A, B, inv) - value) <= tol:
        return QAPSolution(value, inv, True, zero)
    raise ValueError(
        f"{path}: neither the permutation ({objective(A, B, perm):g}) nor its inverse "
        f"({objective(A, B, inv):g}) reaches the stated value {value:g}"
    )
