"""Branch layout: how work items map to branches, fixed at compile time."""

from __future__ import annotations

from typing import Any

import loopy as lp

from gencl.generate.knobs._base import Transform


def layout_branches(t: lp.TranslationUnit, param: str, items_per_branch: int) -> lp.TranslationUnit:
    """Fix *param*, the number of consecutive work items that take the same branch.

    The program selects its branch as ``(lid / param) % branches``; a compile-time *param* lets the
    compiler see the layout (seed 000 §V-D ``convItems``).
    """
    return lp.fix_parameters(t, **{param: items_per_branch})


def _apply(t: lp.TranslationUnit, value: int, *, point: Any, param: str):
    return layout_branches(t, param, int(value))


def _check(value: Any) -> str | None:
    return None if isinstance(value, int) and value >= 1 else "items per branch must be ≥ 1"


TRANSFORM = Transform("branch", _apply, _check)
