"""Orderings of networks: space-filling curves, the ordering integer program, 1D allocation."""

__all__ = []
