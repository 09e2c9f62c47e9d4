"""Unroll: none, a factor, full, or a hint left to the OpenCL compiler."""

from __future__ import annotations

from typing import Any

import loopy as lp

from gencl.errors import KnobError
from gencl.generate.knobs._base import Transform

MODES = ("none", "full", "hint")


def unroll(t: lp.TranslationUnit, iname: str, mode: str | int) -> lp.TranslationUnit:
    """Unroll loop *iname*.

    ``"none"`` keeps the loop, ``"full"`` emits straight-line code (the trip count must be a
    compile-time constant), ``"hint"`` emits ``opencl_unroll_hint``, an int *f* splits the loop by
    *f* and unrolls the inner part (long chains stay cheap to generate: the notes saw 122 s for a
    fully unrolled 1024-chain, 0.26 s split by 16).
    """
    if mode == "none":
        return t
    if mode == "hint":
        return lp.tag_inames(t, {iname: "unr_hint"})
    if mode == "full":
        try:
            t.default_entrypoint.get_constant_iname_length(iname)
        except Exception:  # noqa: BLE001 -- loopy raises several kinds for a non-constant bound
            raise KnobError(f"full unroll of {iname} needs a constant trip count") from None
        return lp.tag_inames(t, {iname: "unr"})
    if isinstance(mode, int) and mode > 1:
        return lp.split_iname(t, iname, mode, inner_tag="unr")
    raise KnobError(f"unroll mode {mode!r} is not none, full, hint or a factor > 1")


def _apply(t: lp.TranslationUnit, value: Any, *, point: Any, iname: str):
    return unroll(t, iname, value)


def _check(value: Any) -> str | None:
    if value in MODES or (isinstance(value, int) and value > 1):
        return None
    return f"unroll must be one of {MODES} or an integer factor > 1"


TRANSFORM = Transform("unroll", _apply, _check)
