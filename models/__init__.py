"""Pyomo formulations of optalloc's problems, one module per model.

Installed as ``optalloc.models``.  Each builder takes data and returns a
``pyomo.environ.ConcreteModel``; none of them solves.  The k-subset
min-sum-L1 problem has four:

``qp.build_qp``
    the natural binary quadratic program (for MIQP-capable solvers);
``pairwise.build_pairwise``
    the pairwise linearisation with level-1 RLT rows and a ``cuts`` list
    for triangle inequalities;
``glover.build_glover``
    Glover's compact linearisation;
``axis.build_axis``
    the per-axis cut formulation that exploits the L1 structure.
"""

from .axis import build_axis
from .glover import build_glover
from .pairwise import add_triangle, build_pairwise
from .qp import build_qp

__all__ = ["build_qp", "build_pairwise", "add_triangle", "build_glover", "build_axis"]
