"""Subcommands of ``optalloc`` for optalloc.sim (registered by optalloc.cli)."""

from __future__ import annotations


def register(sub) -> None:
    """Add this package's subcommands to the ``optalloc`` subparsers ``sub``."""
