"""Temporal blocking: k sweeps of a ping-pong update per launch (``gencl.generate.temporal``).

The ``temporal`` knob names the scheme (``none`` leaves the program as it is, ``tile`` or
``stream``); it reads the sweeps, the points per work item and the work-group shape from the
point's axes named by its options (``sweeps``, ``temporal_points``, ``workgroup`` by default),
which are knobs of their own: ``temporal_parameter`` axes, no-ops here, so every axis of the
space is a knob the generator applies. The temporal program maps its axes onto work-groups
itself; the work-group knob after it leaves such a program alone. Apply it first: the other
transforms run on its output at their defaults (the space's constraints see to that).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import loopy as lp

from gencl.errors import KnobError
from gencl.generate.knobs._base import Transform
from gencl.generate.temporal._geometry import SCHEMES as BLOCKED
from gencl.spec import NO_TEMPORAL

SCHEMES = (NO_TEMPORAL, *BLOCKED)


def block_in_time(t: lp.TranslationUnit, scheme: str, *, ping_pong: Sequence[tuple[str, str]],
                  sweeps: int, workgroup: Sequence[int],
                  points: Sequence[int]) -> lp.TranslationUnit:
    """*t* with *sweeps* sweeps per launch by *scheme* (``none``: *t* itself)."""
    if scheme == "none":
        return t
    from gencl.generate.temporal import NotTemporal, temporal_program

    try:
        return temporal_program(t, ping_pong, scheme=scheme, sweeps=int(sweeps),
                                workgroup=tuple(workgroup), points=tuple(points))
    except NotTemporal as exc:
        raise KnobError(f"temporal {scheme}: {exc}") from None


def _apply(t: lp.TranslationUnit, value: str, *, point: Any,
           ping_pong: Sequence[tuple[str, str]], sweeps: str = "sweeps",
           points: str = "temporal_points", workgroup: str = "workgroup"):
    if value == "none":
        return t
    return block_in_time(t, value, ping_pong=ping_pong, sweeps=point[sweeps],
                         workgroup=point[workgroup], points=point[points])


def _check(value: Any) -> str | None:
    return None if value in SCHEMES else f"temporal must be one of {SCHEMES}"


def _check_parameter(value: Any) -> str | None:
    values = value if isinstance(value, tuple | list) else (value,)
    if values and all(isinstance(v, int) and v >= 1 for v in values):
        return None
    return "a positive integer or a tuple of them"


TRANSFORM = Transform("temporal", _apply, _check)
#: an axis the temporal knob reads (sweeps, points per work item): nothing to apply by itself
PARAMETER_TRANSFORM = Transform("temporal_parameter", lambda t, value, *, point: t,
                                _check_parameter)
