"""Figures at the size of today's machines (``--suite scale``): one module
per part, each a ``rows(*, quick, progress)`` of :class:`~optalloc.bench.BenchRow`
against today's straightforward implementation run in the same process."""
