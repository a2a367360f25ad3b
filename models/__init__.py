"""Pyomo formulations of optalloc's problems, one module per model.

Installed as ``optalloc.models``.  Each builder takes data and returns a
``pyomo.environ.ConcreteModel``; none of them solves.
"""

__all__: list[str] = []
