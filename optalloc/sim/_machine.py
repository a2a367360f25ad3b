"""The simulated machine is :class:`optalloc.machine.Machine`."""

from ..machine import Machine, parse_machine

__all__ = ["Machine", "parse_machine"]
