"""Allocators: which free nodes a starting job gets.

The k-subset methods (``KSubsetAllocator``), 1D strategies over a curve or
a network ordering (``OneDAllocator``, ``NetworkOneDAllocator``), random
placement, the free list (``FreeListAllocator``), the dragonfly policies of SST's scheduler
(``DragonflyAllocator``) and Slurm's topology/tree and topology/block placement on a tree of
switches (``SlurmTreeAllocator``, ``SlurmBlockAllocator``). ``parse_allocator`` reads any of them from text;
One registry (``ALLOCATOR_FAMILIES``: each family's forms, parser and the
machines it fits) answers every question about them:
``fitting_allocators`` lists those that run on a machine, ``misfit`` says
why one does not and ``check_allocator`` refuses it in one line.
"""

from ._allocators import Allocation, Allocator, FreeListAllocator, KSubsetAllocator, OneDAllocator, RandomAllocator
from ._dragonfly import DRAGONFLY_ALLOCATORS, DragonflyAllocator, DragonflyLayout, dragonfly_layout
from ._network import GRAPH_ORDERS, NETWORK_METHODS, NetworkOneDAllocator
from ._registry import ALLOCATOR_FAMILIES, Family, check_allocator, fitting_allocators, misfit, parse_allocator
from ._slurm import SLURM_ALLOCATORS, SlurmBlockAllocator, SlurmTreeAllocator

__all__ = [
    "ALLOCATOR_FAMILIES",
    "Allocation",
    "Allocator",
    "DRAGONFLY_ALLOCATORS",
    "DragonflyAllocator",
    "DragonflyLayout",
    "Family",
    "FreeListAllocator",
    "GRAPH_ORDERS",
    "KSubsetAllocator",
    "NETWORK_METHODS",
    "NetworkOneDAllocator",
    "OneDAllocator",
    "RandomAllocator",
    "SLURM_ALLOCATORS",
    "SlurmBlockAllocator",
    "SlurmTreeAllocator",
    "check_allocator",
    "dragonfly_layout",
    "fitting_allocators",
    "misfit",
    "parse_allocator",
]
