"""Numba kernels compiled on first use, not at import.

Importing numba costs more than a tenth of a second, so the modules with
compiled loops mark them with this module's :func:`njit` instead of
numba's.  With numba installed a marked function becomes a :class:`Kernel`:
nothing of numba is imported until one is called.  The first call of a
kernel imports numba and turns every kernel of its module into a numba
dispatcher (``numba.njit(**options)``, so ``cache=True`` keeps its on-disk
cache).  The module's globals are swapped for the dispatchers, and so are
the names that other modules of the package imported, so compiled code
calls compiled code as before and Python callers reach the dispatcher
itself from then on, at the same cost per call as before (a reference kept
elsewhere goes through the :class:`Kernel`, one more Python call).
Without numba :func:`njit` returns the function unchanged (plain Python).

:data:`objmode` is numba's ``objmode`` context inside kernels (swapped in
with them) and a no-op context in plain Python.

>>> @njit
... def twice(x):
...     return 2 * x
>>> twice(21)
42
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import sys
import threading
import warnings

#: True when numba can be imported (found on the path; not imported here).
AVAILABLE: bool = importlib.util.find_spec("numba") is not None

_lock = threading.RLock()
_resolved: set[str] = set()
_numba = None  # the numba module once loaded; False when its import failed


def _objmode(**types):
    """A no-op context in plain Python (numba's ``objmode`` in a kernel)."""
    return contextlib.nullcontext()


#: numba's ``objmode`` inside a kernel, a no-op context in plain Python
objmode = _objmode


def _load():
    """numba, or None (with a warning) when it is found but fails to import."""
    global _numba
    if _numba is None:
        try:
            _numba = importlib.import_module("numba")
        except ImportError as err:  # pragma: no cover - a broken numba install
            warnings.warn(f"numba failed to import ({err}); running its kernels as plain Python", stacklevel=3)
            _numba = False
    return _numba or None


class Kernel:
    """A function to compile with ``numba.njit(**options)`` when first called."""

    def __init__(self, fn, options: dict):
        self.py_func = fn
        self.options = options
        self._compiled = None
        functools.update_wrapper(self, fn)

    def dispatcher(self):
        """The numba dispatcher (the plain function if numba fails to import)."""
        if self._compiled is None:
            with _lock:
                if self._compiled is None:
                    _resolve(self.__module__)
                if self._compiled is None:  # bound to no global of its module
                    numba = _load()
                    self._compiled = numba.njit(**self.options)(self.py_func) if numba else self.py_func
        return self._compiled

    def __call__(self, *args, **kwargs):
        compiled = self._compiled
        if compiled is None:
            compiled = self.dispatcher()
        return compiled(*args, **kwargs)

    def __getattr__(self, name):  # the dispatcher's attributes (signatures, ...)
        return getattr(self.dispatcher(), name)

    def __repr__(self):
        return f"<lazy numba kernel {self.__module__}.{self.__qualname__}>"


def _resolve(name: str) -> None:
    """Turn the kernels of module ``name`` into dispatchers, in its globals
    (with the kernels it imported from other modules: theirs first) and in
    the globals of the modules of its package that imported them."""
    if name in _resolved:
        return
    _resolved.add(name)
    numba = _load()
    namespace = vars(sys.modules[name])
    for key, value in list(namespace.items()):
        if isinstance(value, Kernel):
            if value._compiled is None:
                if value.__module__ == name:
                    value._compiled = numba.njit(**value.options)(value.py_func) if numba else value.py_func
                else:
                    value.dispatcher()
            namespace[key] = value._compiled
        elif value is _objmode and numba:
            namespace[key] = numba.objmode
    root = name.partition(".")[0] + "."
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith(root) and module is not None:
            space = vars(module)
            for key, value in list(space.items()):
                if isinstance(value, Kernel) and value._compiled is not None:
                    space[key] = value._compiled


def njit(fn=None, **options):
    """``numba.njit`` compiled on first call (:class:`Kernel`); the function
    itself without numba.  Use as ``@njit(cache=True)`` or ``njit(...)(fn)``."""

    def mark(f):
        return Kernel(f, options) if AVAILABLE else f

    return mark if fn is None else mark(fn)


__all__ = ["AVAILABLE", "Kernel", "njit", "objmode"]
