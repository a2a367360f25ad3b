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

The ordering of a network (SAND2003-3702 sec. 4.2) and task mapping (a
quadratic assignment problem) have one each:

``ordering.build_ordering``
    the ordering integer program (x_iv, z_ivjw, rank weights w);
``qap.build_adams_johnson``
    the Adams-Johnson linearisation of the QAP.
"""

from .axis import build_axis
from .glover import build_glover
from .ordering import build_ordering
from .pairwise import add_triangle, build_pairwise
from .qap import build_adams_johnson
from .qp import build_qp

__all__ = ["build_qp", "build_pairwise", "add_triangle", "build_glover", "build_axis", "build_ordering",
           "build_adams_johnson"]
