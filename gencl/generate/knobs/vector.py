"""Vector width: compute W consecutive elements as one OpenCL floatW value."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import loopy as lp

from gencl.errors import KnobError
from gencl.generate.knobs._base import Transform

WIDTHS = (1, 2, 4, 8, 16)


def vectorize(t: lp.TranslationUnit, iname: str, width: int, *, arrays: Sequence[str] = (),
              temporaries: Sequence[str] = (), size: str | None = None,
              per_instruction: bool = False) -> lp.TranslationUnit:
    """Split *iname* by *width* with a ``vec`` inner iname and give *arrays* a vector axis.

    The last axis of every array in *arrays* must be indexed by *iname*: it is split and tagged
    ``vec`` so loopy emits floatW pointers and vector arithmetic. Private *temporaries* written
    per element become floatW. *size* names the extent parameter, assumed divisible by *width*
    (otherwise loopy falls back to per-lane code, which is not what this knob promises).

    *per_instruction* gives every instruction its own copy of the vector iname. loopy's scheduler
    nests an iname around every loop whose instructions are a strict subset of its own, and a
    ``vec`` iname gets none of the slack an ``ilp`` one does: a vector iname shared by an init, a
    loop body and a store is entered outside the body's loops, and the ``ilp`` chains inside
    them are emitted one after another instead of interleaved (chain spec, loopy 2025.2). With
    a copy per instruction the vector iname nests innermost, where vector code belongs.
    """
    if width == 1:
        return t
    if width not in WIDTHS:
        raise KnobError(f"vector width {width} is not one of {WIDTHS}")
    if size:
        t = lp.assume(t, f"{size} mod {width} = 0 and {size} >= {width}")
    t = lp.split_iname(t, iname, width, inner_tag="vec")
    knl = t.default_entrypoint
    for name in arrays:
        ndim = len(knl.arg_dict[name].shape) if name in knl.arg_dict else \
            len(knl.temporary_variables[name].shape)
        t = lp.split_array_axis(t, name, ndim - 1, width)
        t = lp.tag_array_axes(t, name, ",".join(["c"] * ndim + ["vec"]))
    for name in temporaries:
        t = lp.privatize_temporaries_with_inames(t, f"{iname}_inner", name)
        ndim = len(t.default_entrypoint.temporary_variables[name].shape)
        t = lp.tag_array_axes(t, name, ",".join(["c"] * (ndim - 1) + ["vec"]))
    if per_instruction:
        inner = f"{iname}_inner"
        users = [insn.id for insn in t.default_entrypoint.instructions
                 if inner in insn.within_inames]
        for insn_id in users[1:]:  # the first keeps the original
            t = lp.duplicate_inames(t, inner, within=f"id:{insn_id}", tags={inner: "vec"})
    return t


def _apply(t: lp.TranslationUnit, value: int, *, point: Any, iname: str, **options: Any):
    return vectorize(t, iname, int(value), **options)


def _check(value: Any) -> str | None:
    return None if value in WIDTHS else f"vector width must be one of {WIDTHS}"


TRANSFORM = Transform("vector", _apply, _check)
