"""A knob is a named loopy transform with the domain of values it accepts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Transform:
    """One knob kind.

    Args:
        name: registry name a spec uses in ``Knob(transform=...)``.
        apply: ``(t_unit, value, *, point, **options) -> t_unit``; pure, returns a new program.
        check: ``value -> problem or None``; the domain, checked when a spec is loaded.
    """

    name: str
    apply: Callable[..., Any]
    check: Callable[[Any], str | None]


def one_of(*allowed: Any) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if value in allowed else f"not one of {allowed}"
    return check
