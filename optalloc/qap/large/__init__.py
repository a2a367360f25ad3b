"""Task mapping at the size of real jobs: sparse traffic, multilevel mapping, bounds.

Communication matrices may be scipy.sparse (CSR) anywhere in the mapping
layer; costs between nodes come from coordinates (meshes, tori) or from
the machine's pair distances (networks), never from an n x n matrix.
:func:`multilevel` maps thousands of tasks (see the module docs of the
mapper); :func:`mapping_cost` measures a mapping under the classic or
Traffic Distribution criterion; :func:`mapping_bound` is a proven lower
bound on the cost of every mapping.
"""

from ._api import mapping_bound, mapping_cost, multilevel
from ._flows import check_flows, message_list

__all__ = ["check_flows", "mapping_bound", "mapping_cost", "message_list", "multilevel"]
