"""Register blocking: each work item computes several consecutive points along one axis."""

from __future__ import annotations

from typing import Any

import loopy as lp

from gencl.generate.knobs._base import Transform


def block_points(t: lp.TranslationUnit, iname: str, factor: int) -> lp.TranslationUnit:
    """Split *iname* by *factor* and unroll the inner part: *factor* points per work item.

    Applied before the work-group mapping, so the work-group knob maps the outer part (it follows
    the ``_outer`` chain); an earlier split (the vector knob) is followed the same way, so along a
    vectorized axis a work item computes *factor* consecutive vectors. Unrolled (not a loop) so
    the neighbour loads shared by adjacent points are visible to the OpenCL compiler at once.
    """
    if factor == 1:
        return t
    known = t.default_entrypoint.all_inames()
    while iname not in known and f"{iname}_outer" in known:
        iname = f"{iname}_outer"
    return lp.split_iname(t, iname, int(factor), inner_tag="unr",
                          inner_iname=f"{iname}_blk", outer_iname=f"{iname}_outer")


def _apply(t: lp.TranslationUnit, value: int, *, point: Any, iname: str):
    return block_points(t, iname, int(value))


def _check(value: Any) -> str | None:
    return None if isinstance(value, int) and 1 <= value <= 16 else "points per item must be 1…16"


TRANSFORM = Transform("register_block", _apply, _check)
