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
        if _is_reduction_iname(t.default_entrypoint, iname):
            return expand_sum(t, iname)
        return lp.tag_inames(t, {iname: "unr"})
    if isinstance(mode, int) and mode > 1:
        return lp.split_iname(t, iname, mode, inner_tag="unr")
    raise KnobError(f"unroll mode {mode!r} is not none, full, hint or a factor > 1")


def _is_reduction_iname(knl: lp.LoopKernel, iname: str) -> bool:
    return any(iname in insn.reduction_inames() for insn in knl.instructions) and not any(
        iname in insn.within_inames for insn in knl.instructions)


def expand_sum(t: lp.TranslationUnit, iname: str) -> lp.TranslationUnit:
    """Write ``sum(iname, body)`` out as ``body(first) + … + body(last)`` and drop the iname.

    Full unrolling of a reduction as an expression: afterwards the terms are ordinary operands
    of the instruction, so later transforms see every access with a constant offset (vector
    gathers can be hoisted, streamed planes indexed by constants). Reductions other than sums,
    and sums over a domain that is not a constant range, are tagged ``unr`` instead.
    """
    import pymbolic.primitives as prim
    from loopy.library.reduction import SumReductionOperation
    from loopy.symbolic import IdentityMapper, Reduction, SubstitutionMapper
    from pymbolic.mapper.substitutor import make_subst_func

    knl = t.default_entrypoint
    bounds = knl.get_iname_bounds(iname, constants_only=True)
    lower = bounds.lower_bound_pw_aff
    if not lower.is_cst():
        return lp.tag_inames(t, {iname: "unr"})
    first = int(lower.max_val().to_python())
    count = int(knl.get_constant_iname_length(iname))
    refused = []

    class Expand(IdentityMapper):
        def map_reduction(self, expr, *args, **kwargs):
            body = self.rec(expr.expr, *args, **kwargs)
            if iname not in expr.inames:
                return expr.copy(expr=body)
            if not isinstance(expr.operation, SumReductionOperation):
                refused.append(expr)
                return expr.copy(expr=body)
            terms = tuple(SubstitutionMapper(make_subst_func({iname: first + k}))(body)
                          for k in range(count))
            rest = tuple(n for n in expr.inames if n != iname)
            total = prim.Sum(terms)
            return Reduction(expr.operation, rest, total, expr.allow_simultaneous) if rest \
                else total

    mapper = Expand()
    insns = [insn.with_transformed_expressions(mapper) for insn in knl.instructions]
    if refused:
        return lp.tag_inames(t, {iname: "unr"})
    t = t.with_kernel(knl.copy(instructions=insns))
    return lp.remove_unused_inames(t, [iname])


def _apply(t: lp.TranslationUnit, value: Any, *, point: Any, iname: str):
    return unroll(t, iname, value)


def _check(value: Any) -> str | None:
    if value in MODES or (isinstance(value, int) and value > 1):
        return None
    return f"unroll must be one of {MODES} or an integer factor > 1"


TRANSFORM = Transform("unroll", _apply, _check)
