"""Plain-text tables for the command line and the benchmarks."""

from __future__ import annotations


def text_table(head, body, *, rule: bool = True) -> str:
    """Left-aligned columns two spaces apart; a dashed rule under ``head`` when ``rule``.

    Examples
    --------
    >>> print(text_table(("a", "bb"), [(1, "x"), (22, "y")]))
    a   bb
    --  --
    1   x
    22  y
    """
    rows = [[str(c) for c in row] for row in [head, *body]]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    if rule:
        lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
