"""Trace simulation of job scheduling and allocation, with certified gaps."""

__all__ = []
