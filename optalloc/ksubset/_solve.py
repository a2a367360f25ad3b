"""One entry point for every k-subset method, by name."""

from __future__ import annotations

import inspect

from ._exact import exact
from ._line import line
from ._mc import mc1x1
from ._median import gen_alg, mm, mm_inc
from ._ptas import ptas
from ._small import brute, k3

#: Method name -> function.  Names are what users and the CLI type.
METHODS = {
    "mm": mm,
    "gen-alg": gen_alg,
    "mc1x1": mc1x1,
    "mm-inc": mm_inc,
    "line": line,
    "k3": k3,
    "brute": brute,
    "exact": exact,
    "ptas": ptas,
}


def method_options(method: str) -> tuple[str, ...]:
    """Names of the keyword options a method accepts."""
    sig = inspect.signature(_lookup(method))
    return tuple(p.name for p in sig.parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY)


def _lookup(method):
    try:
        return METHODS[method]
    except (KeyError, TypeError):
        names = ", ".join(sorted(METHODS))
        raise ValueError(f"unknown method {method!r}; choose one of: {names}") from None


def solve(points, k, *, method="mm", **options):
    """Solve the k-subset min-sum-L1 problem with the named method.

    Parameters
    ----------
    points : array_like, shape (n, d)
        Candidate points (free processors).
    k : int
        Number of points to choose.
    method : str
        One of ``"mm"``, ``"gen-alg"``, ``"mc1x1"``, ``"mm-inc"``,
        ``"line"``, ``"k3"``, ``"brute"``, ``"exact"``, ``"ptas"``.
    **options
        Keyword options of that method (see its function).

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        Unknown method, an option the method does not take, or bad input.

    Examples
    --------
    >>> from optalloc.ksubset import solve
    >>> solve([[0, 0], [0, 1], [5, 5]], 2, method="gen-alg").indices.tolist()
    [0, 1]
    """
    func = _lookup(method)
    allowed = method_options(method)
    for name in options:
        if name not in allowed:
            hint = f"; it takes: {', '.join(allowed)}" if allowed else "; it takes no options"
            raise ValueError(f"method {method!r} does not take option {name!r}{hint}")
    return func(points, k, **options)
