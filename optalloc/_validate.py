"""Input checks shared by every package."""

from __future__ import annotations

import math
import operator


def validate_positive(value, name: str, *, allow_none=True, integer=False):
    """``value`` as a positive finite number (an int with ``integer=True``), or None when allowed.

    Integers go through ``operator.index``, so a float is never silently rounded.
    """
    if value is None and allow_none:
        return None
    try:
        value = operator.index(value) if integer else float(value)
    except (TypeError, ValueError):
        kind = "an integer" if integer else "a number"
        raise ValueError(f"`{name}` must be {kind}, got {value!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"`{name}` must be positive, got {value!r}")
    return value
