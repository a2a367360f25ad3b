"""Numba kernels compiled on first use, not at import.

Importing numba costs more than a tenth of a second, so the modules with
compiled loops mark them with this module's :func:`njit` instead of
numba's.  A marked function becomes a :class:`Kernel`: nothing of numba is
imported until one is called.  The first call of a kernel imports numba
and turns every kernel of its module into a numba dispatcher
(``numba.njit(**options)``, so ``cache=True`` keeps its on-disk cache).
The module's globals are swapped for the dispatchers, and so are the names
that other modules of the package imported, so compiled code calls
compiled code as before and Python callers reach the dispatcher itself
from then on, at the same cost per call as before (a reference kept
elsewhere goes through the :class:`Kernel`, one more Python call).  numba
is a dependency; should its import fail, the first kernel call raises
that ImportError.

numba's on-disk cache checks only the source file of the function it
compiled, while a kernel's machine code holds the kernels it calls from
other modules: after an edit or a ``git pull`` that changes only such a
callee, the cache would hand back the old code.  So where the package's
directory is writable (an editable install or a checkout), the kernels
are cached in its ``__pycache__/numba``, which is emptied whenever the
package's sources change (:func:`source_cache`).  An installed,
read-only package keeps numba's own cache, as does a user who sets
``NUMBA_CACHE_DIR``.

:data:`objmode` is numba's ``objmode`` context inside kernels (swapped in
with them) and a no-op context in plain Python.

A kernel called from another with a constant argument, or with a variable
whose first value is a constant (a counter set to 0 before its loop), is
compiled once for that literal value besides its general version (numba
types the call before it has widened the variable): seconds of compiling
for a large kernel.  Such call sites pass ``np.int64(0)`` or
``np.bool_(True)``, which numba types as plain integers and booleans,
where one version serves (the comments there say so).

>>> @njit
... def twice(x):
...     return 2 * x
>>> twice(21)
42
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import os
import sys
import threading

_lock = threading.RLock()
_resolved: set[str] = set()
_numba = None  # the numba module once loaded
_cache_dirs: dict[str, str | None] = {}  # per top-level package: :func:`source_cache`
_STAMP = "sources.sha1"


def _objmode(**types):
    """A no-op context in plain Python (numba's ``objmode`` in a kernel)."""
    return contextlib.nullcontext()


#: numba's ``objmode`` inside a kernel, a no-op context in plain Python
objmode = _objmode


def _load():
    """The numba module, imported at the first call."""
    global _numba
    if _numba is None:
        numba = importlib.import_module("numba")
        _watch_compiling(numba)
        _numba = numba
    return _numba


#: ``module.name`` of the kernels numba is compiling now, outermost first
#: (numba compiles one at a time, under its compiler lock)
_compiling: list[str] = []


def compiling() -> str | None:
    """``module.name`` of the kernel whose compiling is under way in this
    process (the outermost, when compiling it compiles the kernels it
    calls), or None.  A kernel loaded from numba's cache is not compiled.
    Any thread may ask (the command line's progress lines say it)."""
    try:
        return _compiling[0]
    except IndexError:
        return None


def _watch_compiling(numba) -> None:
    """Keep :data:`_compiling` with numba's compile events."""
    from numba.core import event

    class _Compiling(event.Listener):
        def on_start(self, ev):
            fn = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
            _compiling.append(f"{fn.__module__}.{fn.__qualname__}" if fn is not None else "?")

        def on_end(self, ev):
            if _compiling:
                _compiling.pop()

    event.register("numba:compile", _Compiling())


class Kernel:
    """A function to compile with ``numba.njit(**options)`` when first called."""

    def __init__(self, fn, options: dict):
        self.py_func = fn
        self.options = options
        self._compiled = None
        functools.update_wrapper(self, fn)

    def dispatcher(self):
        """The numba dispatcher."""
        if self._compiled is None:
            with _lock:
                if self._compiled is None:
                    _resolve(self.__module__)
                if self._compiled is None:  # bound to no global of its module
                    self._compiled = _compile(_load(), self)
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
                    value._compiled = _compile(numba, value)
                else:
                    value.dispatcher()
            namespace[key] = value._compiled
        elif value is _objmode:
            namespace[key] = numba.objmode
    root = name.partition(".")[0] + "."
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith(root) and module is not None:
            space = vars(module)
            for key, value in list(space.items()):
                if isinstance(value, Kernel) and value._compiled is not None:
                    space[key] = value._compiled


def source_cache(root: str) -> str | None:
    """The numba cache directory of the package whose sources are in
    ``root``: ``root/__pycache__/numba``, emptied of compiled kernels when
    the SHA-1 of the package's ``.py`` files differs from the one recorded
    there.  None (numba's own cache) when ``root`` is not writable, when
    the user set ``NUMBA_CACHE_DIR`` or on any error of the file system."""
    if os.environ.get("NUMBA_CACHE_DIR") or not os.access(root, os.W_OK):
        return None
    digest = hashlib.sha1()
    try:
        for top, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(top, name)
                    digest.update(os.path.relpath(path, root).encode() + b"\0")
                    with open(path, "rb") as fh:
                        digest.update(fh.read())
        cache = os.path.join(root, "__pycache__", "numba")
        os.makedirs(cache, exist_ok=True)
        stamp = os.path.join(cache, _STAMP)
        with contextlib.suppress(FileNotFoundError), open(stamp) as fh:
            if fh.read() == digest.hexdigest():
                return cache
        for top, _dirs, files in os.walk(cache):
            for name in files:
                if name.endswith((".nbi", ".nbc")):
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(os.path.join(top, name))
        fresh = f"{stamp}.{os.getpid()}"
        with open(fresh, "w") as fh:
            fh.write(digest.hexdigest())
        os.replace(fresh, stamp)
    except OSError:
        return None
    return cache


def _package_cache(module: str) -> str | None:
    """:func:`source_cache` of the top-level package of ``module``, once per process."""
    package = module.partition(".")[0]
    if package not in _cache_dirs:
        init = getattr(sys.modules.get(package), "__file__", None)
        _cache_dirs[package] = source_cache(os.path.dirname(os.path.abspath(init))) if init else None
    return _cache_dirs[package]


def _compile(numba, kernel: Kernel):
    """The numba dispatcher of ``kernel``; with ``cache=True`` its cache
    goes to its package's :func:`source_cache` when there is one."""
    cache = _package_cache(kernel.__module__) if kernel.options.get("cache") else None
    saved = numba.config.CACHE_DIR
    if cache is not None:
        numba.config.CACHE_DIR = cache  # read when the dispatcher sets up its cache, here
    try:
        return numba.njit(**kernel.options)(kernel.py_func)
    finally:
        numba.config.CACHE_DIR = saved


def njit(fn=None, **options):
    """``numba.njit`` compiled on first call (:class:`Kernel`).  Use as
    ``@njit(cache=True)`` or ``njit(...)(fn)``."""

    def mark(f):
        return Kernel(f, options)

    return mark if fn is None else mark(fn)


__all__ = ["Kernel", "njit", "objmode", "source_cache"]
