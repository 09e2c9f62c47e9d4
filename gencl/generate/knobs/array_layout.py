"""Array layout: rows strided by the whole launch, or each work-group's elements in one block.

An array ``a[r, i]`` read by work item ``i`` in row ``r`` is, as written, ``R`` rows of ``n``
elements: successive reads of one work item are ``n`` apart (clpeak's "global offset"). The
``blocked`` layout keeps the same program and index expressions but stores the elements of one
work-group, all rows, contiguously: block ``g`` holds ``R`` rows of the group's ``L`` elements, so
successive reads are ``L`` apart (clpeak's "local offset"). On a CPU each core then streams one
region; a GPU sees the same coalesced rows either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import loopy as lp
from loopy.kernel.array import VectorArrayDimTag

from gencl.generate.knobs._base import Transform, one_of

LAYOUTS = ("strided", "blocked")


def block_by_workgroup(t: lp.TranslationUnit, arrays: Sequence[str], axis: int,
                       group_items: int) -> lp.TranslationUnit:
    """Store *axis* of each of *arrays* in blocks of *group_items*, the block index slowest.

    *axis* indexes work items (after any vector split, whose ``vec`` axis stays last and
    fastest); *group_items* is the work-group size along it. Axes before *axis* (the rows) keep
    their order inside a block.
    """
    for name in arrays:
        knl = t.default_entrypoint
        arr = knl.arg_dict.get(name) or knl.temporary_variables[name]
        vec = bool(arr.dim_tags) and isinstance(arr.dim_tags[-1], VectorArrayDimTag)
        t = lp.split_array_axis(t, name, axis, group_items)
        # after the split: rows (axis of them), block, in-block index, [vec]
        tags = [f"N{axis - j}" for j in range(axis)] + [f"N{axis + 1}", "N0"]
        t = lp.tag_array_axes(t, name, ",".join(tags + (["vec"] if vec else [])))
    return t


def _apply(t: lp.TranslationUnit, value: str, *, point: Any, arrays: Sequence[str], axis: int,
           group: str = "workgroup"):
    if value == "strided":
        return t
    return block_by_workgroup(t, arrays, axis, int(point[group]))


TRANSFORM = Transform("array_layout", _apply, one_of(*LAYOUTS))
