"""Trip count: a loop bound fixed at compile time, or left as a kernel argument."""

from __future__ import annotations

from typing import Any

import loopy as lp

from gencl.generate.knobs._base import Transform


def fix_trip_count(t: lp.TranslationUnit, param: str, value: int) -> lp.TranslationUnit:
    """Make loop bound *param* the compile-time constant *value* (seed 000 Fig. 6 'constant')."""
    return lp.fix_parameters(t, **{param: value})


def _apply(t: lp.TranslationUnit, value: str, *, point: Any, param: str, source: str):
    # "dynamic": the bound stays a kernel argument, passed at launch from the sizes
    return fix_trip_count(t, param, int(point[source])) if value == "constant" else t


def _check(value: Any) -> str | None:
    return None if value in ("constant", "dynamic") else "trip count is constant or dynamic"


TRANSFORM = Transform("trip_count", _apply, _check)
