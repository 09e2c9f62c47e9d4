"""Streaming (2.5-D blocking): each work item sweeps a chunk of an outer axis in a sequential loop.

``stream(t, "k", 16)`` splits iname ``k`` into ``k_outer`` (the chunk index, left for the
work-group knob to map onto a group axis) and ``k_stream`` (a sequential loop over the chunk's
planes inside one work item). With ``registers=True`` (the default) every *column* of a read-only
array that the loop body reads at several offsets along the streamed axis — the accesses that
differ only in that axis, e.g. ``u[k-1, j, i]``, ``u[k, j, i]``, ``u[k+1, j, i]`` — moves into a
private rotating buffer of ``span + 1`` planes:

* before the loop, the first ``span`` planes of the chunk are loaded (prologue);
* each iteration loads the one new plane (``k + max offset``), computes, then shifts the buffer
  down by one plane (register moves; the OpenCL compiler renames them away when it unrolls);

so each input point of a column is read from global memory about once per work item, not
``span + 1`` times. loopy 2025.2 has no rolling-buffer transform (``add_prefetch``/``precompute``
into private memory with a sequential sweep re-fetch the whole footprint every iteration), so the
buffer is built here as plain loopy instructions: the loop-carried reuse is expressed by the body
order load → compute → shift inside one ``k_stream`` loop.

With ``registers=False`` the loop alone remains: neighbour planes are reused through the caches.

Accesses whose offset along the streamed axis depends on a loop (``u[k + s, j, i]`` over a
radius loop ``s``) index the buffer by that loop; unroll the loop (the unroll knob, applied before
this one) or the buffer lives in (slow) private memory that the compiler cannot keep in registers.
Inames of a column that are unrolled or vectorized (register blocking, vector width, applied
before this knob) become axes of the buffer; the other inames of a column must end up parallel
(mapped to work-group axes), as the work-group knob after this one does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import islpy as isl
import loopy as lp
import pymbolic.primitives as prim

from gencl.errors import KnobError
from gencl.generate.knobs._base import Transform
from gencl.generate.knobs.vector import split_lanes

# {{{ affine helpers

def affine_terms(expr: Any) -> dict[str | int, int] | None:
    """*expr* as {iname: coefficient, 1: constant} with integer coefficients, or None."""
    from pymbolic.mapper.coefficient import CoefficientCollector
    from pymbolic.mapper.evaluator import evaluate

    try:
        coeffs = CoefficientCollector()(expr)
        out: dict[str | int, int] = {}
        for var, c in coeffs.items():
            value: Any = evaluate(c)
            if int(value) != value:
                return None
            if int(value):
                out[var.name if isinstance(var, prim.Variable) else 1] = int(value)
        return out
    except Exception:  # noqa: BLE001 -- floor division, products of inames: not affine
        return None


def _variables(expr: Any) -> set[str]:
    from loopy.symbolic import get_dependencies
    return set(get_dependencies(expr))


def _iname_tags(knl: lp.LoopKernel, iname: str) -> set[type]:
    return {type(tag) for tag in knl.iname_tags(iname)}


def _private_axis_inames(knl: lp.LoopKernel) -> tuple[set[str], set[str]]:
    """Inames that live inside one work item as straight-line lanes: (unrolled, vectorized)."""
    from loopy.kernel.data import UnrolledIlpTag, UnrollTag, VectorizeTag

    unrolled, vectorized = set(), set()
    for name in knl.all_inames():
        tags = knl.iname_tags(name)
        if any(isinstance(t, VectorizeTag) for t in tags):
            vectorized.add(name)
        elif any(isinstance(t, UnrollTag | UnrolledIlpTag) for t in tags):
            unrolled.add(name)
    return unrolled, vectorized

# }}}


@dataclass
class _Column:
    """One column: the accesses of *array* that differ only along the streamed axis."""

    array: str
    axis: int
    key: tuple[Any, ...]   # the other axes' index expressions
    offsets: list[Any]     # offset expressions along the axis (relative to the streamed iname)
    lo: int = 0
    hi: int = 0


def _offset_range(knl: lp.LoopKernel, offset: Any) -> tuple[int, int] | None:
    """Smallest and largest value of an affine *offset* over its inames' constant bounds."""
    terms = affine_terms(offset)
    if terms is None:
        return None
    lo = hi = terms.get(1, 0)
    for var, c in terms.items():
        if not isinstance(var, str):
            continue
        try:
            bounds = knl.get_iname_bounds(var, constants_only=True)
            first = int(bounds.lower_bound_pw_aff.max_val().to_python())
            last = first + int(bounds.size.max_val().to_python()) - 1
        except Exception:  # noqa: BLE001 -- a bound that is not a constant
            return None
        lo += min(c * first, c * last)
        hi += max(c * first, c * last)
    return lo, hi


def _find_columns(knl: lp.LoopKernel, arrays: Sequence[str], inner: str,
                  stream_expr: Any) -> tuple[dict[tuple, _Column], list[str]]:
    """Columns read in instructions inside loop *inner* (offsets relative to *stream_expr*)."""
    from loopy.symbolic import WalkMapper

    columns: dict[tuple, _Column] = {}
    readers: list[str] = []

    class Walk(WalkMapper):
        def map_subscript(self, expr, *args):
            name = expr.aggregate.name
            if name in arrays:
                index = expr.index_tuple
                along = [ax for ax, e in enumerate(index) if inner in _variables(e)]
                if len(along) == 1:
                    ax = along[0]
                    key = (name, ax, tuple(index[:ax]) + tuple(index[ax + 1:]))
                    col = columns.setdefault(key, _Column(name, ax, key[2], []))
                    col.offsets.append(index[ax] - stream_expr)
            return super().map_subscript(expr, *args)

    for insn in knl.instructions:
        if inner not in insn.within_inames:
            continue
        before = sum(len(c.offsets) for c in columns.values())
        insn.with_transformed_expressions(lambda e: (Walk()(e), e)[1])
        if sum(len(c.offsets) for c in columns.values()) > before:
            readers.append(insn.id)
    return columns, readers


def _rotating_columns(knl: lp.LoopKernel, columns: Mapping[tuple, _Column],
                      outer_and_inner: set[str]) -> dict[tuple, _Column]:
    """The columns worth a rotating buffer: constant offset range with span ≥ 1, index of the
    other axes free of the streamed inames, and whole vectors (a column off the vector grid,
    ``x[..., i - 1]`` at width 4, would be loaded lane by lane into its buffer: as many loads as
    without the buffer, and several times the code; it is left to the caches)."""
    _, vectorized = _private_axis_inames(knl)
    keep = {}
    for key, col in columns.items():
        ranges = [_offset_range(knl, off) for off in col.offsets]
        if any(r is None for r in ranges):
            continue
        if any(_variables(e) & outer_and_inner for e in col.key):
            continue
        if any(_variables(e) & vectorized and not (
                isinstance(e, prim.Variable) and e.name in vectorized) for e in col.key):
            continue
        col.lo = min(r[0] for r in ranges)  # type: ignore[index]
        col.hi = max(r[1] for r in ranges)  # type: ignore[index]
        if col.hi > col.lo:
            keep[key] = col
    return keep


def stream(t: lp.TranslationUnit, iname: str, chunk: int, *, registers: bool = True,
           arrays: Sequence[str] | None = None) -> lp.TranslationUnit:
    """Split *iname* into chunks of *chunk* planes swept sequentially by one work item.

    *arrays*: the read-only arrays whose columns may go into rotating buffers (default: every
    global array the kernel only reads). ``chunk == 1`` leaves the program as it is.
    """
    if chunk == 1:
        return t
    if chunk < 1:
        raise KnobError(f"stream chunk {chunk} must be ≥ 1")
    knl = t.default_entrypoint
    known = knl.all_inames()
    if iname not in known:
        raise KnobError(f"streaming: no iname {iname!r} (apply it before splitting {iname})")
    bounds = knl.get_iname_bounds(iname)
    lower = bounds.lower_bound_pw_aff
    if not (lower.is_cst() and lower.max_val().to_python() == 0):
        raise KnobError(f"streaming: iname {iname} must start at 0 (it starts at {lower})")
    outer, inner = f"{iname}_outer", f"{iname}_stream"
    t = lp.split_iname(t, iname, chunk, outer_iname=outer, inner_iname=inner)
    if not registers:
        return t
    knl = t.default_entrypoint
    written = knl.get_written_variables()
    if arrays is None:
        arrays = [a.name for a in knl.args
                  if isinstance(a, lp.ArrayArg) and a.name not in written]
    else:
        clash = [a for a in arrays if a in written]
        if clash:
            raise KnobError(f"streaming: {', '.join(clash)} written by the kernel, cannot rotate")
    stream_expr = prim.Variable(outer) * chunk + prim.Variable(inner)
    columns, readers = _find_columns(knl, arrays, inner, stream_expr)
    rotate = _rotating_columns(knl, columns, {outer, inner})
    if not rotate:
        return t
    return _add_rotating_buffers(t, rotate, readers, outer, inner, chunk)


def _add_rotating_buffers(t: lp.TranslationUnit, columns: Mapping[tuple, _Column],
                          readers: Sequence[str], outer: str, inner: str,
                          chunk: int) -> lp.TranslationUnit:
    from loopy.symbolic import IdentityMapper

    knl = t.default_entrypoint
    unrolled, vectorized = _private_axis_inames(knl)
    insn_ids = knl.get_instruction_id_generator()
    var_names = knl.get_var_name_generator()
    base = prim.Variable(outer) * chunk
    here = base + prim.Variable(inner)
    by_reader = {i: knl.id_to_insn[i] for i in readers}

    new_insns, new_temps, new_domains, new_tags = [], {}, [], {}
    replace: dict[tuple, tuple[str, list[Any], list[Any]]] = {}
    loads: list[str] = []
    for key, col in columns.items():
        arg = knl.arg_dict[col.array]
        key_vars = set().union(*(_variables(e) for e in col.key)) if col.key else set()
        lanes = sorted(key_vars & unrolled)
        vec = sorted(key_vars & vectorized)
        lane_sizes = [int(knl.get_constant_iname_length(n)) for n in lanes + vec]
        span = col.hi - col.lo
        name = var_names(f"{col.array}_col")
        shape = (*lane_sizes[:len(lanes)], span + 1, *lane_sizes[len(lanes):])
        dim_tags = ",".join(["c"] * (len(lanes) + 1) + ["vec"] * len(vec))
        new_temps[name] = lp.TemporaryVariable(
            name, arg.dtype, shape=shape, dim_tags=dim_tags,
            address_space=lp.AddressSpace.PRIVATE)
        lane_idx = [prim.Variable(n) for n in lanes]
        vec_idx = [prim.Variable(n) for n in vec]
        replace[key] = (name, lane_idx, vec_idx)

        def global_at(plane: Any, col=col) -> prim.Subscript:
            index = list(col.key)
            index.insert(col.axis, plane)
            return prim.Subscript(prim.Variable(col.array), tuple(index))

        def buf_at(slot: Any, lane_idx=lane_idx, vec_idx=vec_idx, name=name) -> prim.Subscript:
            return prim.Subscript(prim.Variable(name), (*lane_idx, slot, *vec_idx))

        # the buffer belongs to one work item's column: its loads and shifts run inside just
        # the inames the column's index depends on (and the chunk), once per plane
        outside = frozenset(key_vars & knl.all_inames())
        p, q = var_names(f"{name}_p"), var_names(f"{name}_q")
        new_domains += [isl.BasicSet(f"{{ [{p}]: 0 <= {p} < {span} }}"),
                        isl.BasicSet(f"{{ [{q}]: 0 <= {q} < {span} }}")]
        new_tags[p] = "unr"
        new_tags[q] = "unr"
        prologue_id = insn_ids(f"{name}_prologue")
        load_id = insn_ids(f"{name}_load")
        shift_id = insn_ids(f"{name}_shift")
        new_insns.append(lp.Assignment(
            buf_at(prim.Variable(p)), global_at(base + col.lo + prim.Variable(p)),
            id=prologue_id, within_inames=outside | {p, outer}))
        new_insns.append(lp.Assignment(
            buf_at(span), global_at(here + col.hi), id=load_id,
            within_inames=outside | {outer, inner}, depends_on=frozenset({prologue_id})))
        new_insns.append(lp.Assignment(
            buf_at(prim.Variable(q)), buf_at(prim.Variable(q) + 1), id=shift_id,
            within_inames=outside | {outer, inner, q},
            depends_on=frozenset(readers) | {load_id}))
        loads.append(load_id)

    class Replace(IdentityMapper):
        def map_subscript(self, expr, *args):
            name = expr.aggregate.name
            if name in {c.array for c in columns.values()}:
                index = expr.index_tuple
                for key, col in columns.items():
                    if col.array != name or len(index) != len(col.key) + 1:
                        continue
                    rest = tuple(index[:col.axis]) + tuple(index[col.axis + 1:])
                    if rest != col.key:
                        continue
                    buf, lane_idx, vec_idx = replace[key]
                    slot = index[col.axis] - here - col.lo
                    return prim.Subscript(prim.Variable(buf), (*lane_idx, slot, *vec_idx))
            return super().map_subscript(expr, *args)

    mapper = Replace()
    insns = []
    for insn in knl.instructions:
        if insn.id in by_reader:
            insn = insn.with_transformed_expressions(mapper)
            insn = insn.copy(depends_on=insn.depends_on | frozenset(loads))
        insns.append(insn)
    knl = knl.copy(instructions=insns + new_insns, domains=[*knl.domains, *new_domains],
                   temporary_variables={**knl.temporary_variables, **new_temps})
    t = lp.tag_inames(t.with_kernel(knl), new_tags)
    for name in sorted(vectorized):  # loads of columns off the vector grid: one per lane
        t = split_lanes(t, name)
    return t


def _apply(t: lp.TranslationUnit, value: int, *, point: Any, iname: str,
           registers: bool = True, arrays: Sequence[str] | None = None):
    return stream(t, iname, int(value), registers=registers, arrays=arrays)


def _check(value: Any) -> str | None:
    return None if isinstance(value, int) and value >= 1 else "stream chunk must be an int ≥ 1"


TRANSFORM = Transform("streaming", _apply, _check)
