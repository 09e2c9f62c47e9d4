"""Fresh names for what a scheme adds to a program (inames, tiles, instruction ids)."""

from __future__ import annotations

from typing import Any


def fresh_prefix(knl: Any, base: str = "tb") -> str:
    """A prefix no name of *knl* starts with (variables, inames, instruction ids)."""
    taken = set(knl.all_variable_names()) | set(knl.all_inames()) | {
        i.id for i in knl.instructions}
    prefix, n = f"{base}_", 0
    while any(name.startswith(prefix) for name in taken):
        n += 1
        prefix = f"{base}{n}_"
    return prefix
