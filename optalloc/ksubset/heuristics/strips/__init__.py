"""The strip-enumeration PTAS (Bender et al. 2005), in the plane and in d dimensions.

Every structure of slices per axis is enumerated by compiled loops, each
with its cell tables, and pruned by the best set found so far, which
starts from MM+Inc (from :mod:`..centres`).
"""

from ._ptas import ptas

__all__ = ["ptas"]
