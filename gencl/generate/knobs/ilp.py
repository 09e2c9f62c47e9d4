"""ILP: independent chains per work item, interleaved by loopy's ``ilp`` tag."""

from __future__ import annotations

from typing import Any

import loopy as lp

from gencl.generate.knobs._base import Transform


def interleave_chains(t: lp.TranslationUnit, iname: str, chains: int, *,
                      param: str) -> lp.TranslationUnit:
    """Fix the chain count *param* to *chains* and tag the chain iname ``ilp``.

    The program writes its chains as an explicit accumulator array indexed by *iname*
    (never a ``sum()`` over an ilp iname: loopy 2025.2 fails on that nondeterministically), so
    ``ilp`` unrolls and interleaves the independent updates.
    """
    t = lp.fix_parameters(t, **{param: chains})
    return lp.tag_inames(t, {iname: "ilp"})


def _apply(t: lp.TranslationUnit, value: int, *, point: Any, iname: str, param: str):
    return interleave_chains(t, iname, int(value), param=param)


def _check(value: Any) -> str | None:
    return None if isinstance(value, int) and 1 <= value <= 64 else "chains must be 1…64"


TRANSFORM = Transform("ilp", _apply, _check)
