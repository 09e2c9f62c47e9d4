"""The automatic space: knob axes derived from a program that binds none.

A user's tuning spec may declare no knobs at all. Its untransformed loopy program says what can
be tuned, and ``analyse_program`` reads it:

* the **outputs**: the global arrays the kernel writes, each by one instruction and all at the
  same point, each axis indexed by one iname plus a constant (``u_new[k + 1, j + 1, i + 16]``;
  a curl's ``wx``, ``wy``, ``wz`` at one subscript): those inames are the parallel axes,
  outermost first, the one indexing the last (contiguous) axis last;
* the **neighbour offsets** per axis: the range of ``index − iname`` of every read over the
  instruction's domain (loopy's access map as an isl piecewise affine function), relative to the
  output's own offset: the stencil's halo;
* which arrays can take a **vector axis**: those whose last axis the contiguous iname indexes;
  a width is offered when the outputs and every such array keep whole vectors aligned (last-axis
  offset and row length multiples of the width, the extent a size parameter plus a multiple)
  and share one type that is not an integer narrower than 32 bits;
* **short loops** (constant trip count ≤ 16, e.g. a radius loop), and which of them move the
  read offset along the outermost axis.

``derive_space`` turns that into ``Knob`` axes over the registered transforms, applied in this
order: unrolling of each short loop (a sum over a radius is written out), vector width along the
contiguous axis (unaligned neighbours gathered lane by lane), points per work item along the middle
axis of a 3-D stencil (register blocking), streaming along the outermost axis (a chunk of planes
per work item, the ±r planes of each column in rotating registers), the work-group shape over the
parallel axes (contiguous axis first, powers of two) and a ``__local`` tile of the widest-halo
input with its halo. Constraints come with it: the device's work-group size and local memory, tiles
no larger than the timing sizes, vector widths that divide the sizes a variant runs at, and the
combinations the transforms cannot do. Nothing here knows a kernel's or an array's name: everything
is read off the program.

``with_derived_space(spec)`` is the one call a loader makes; ``describe_space(spec)`` prints the
axes (``gencl space X --list``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gencl.spec import BenchmarkSpec, Knob

if TYPE_CHECKING:
    import loopy as lp

#: groups whose specs get a derived space when they bind no knobs (benchmarks in specs/ declare
#: their group and keep the space they declare, even an empty one)
AUTO_GROUPS = ("application", "misc")
#: loops this short (constant trip count) are offered for full unrolling
SHORT_LOOP = 16
VECTOR_WIDTHS = (1, 2, 4, 8)
BLOCKS = (1, 2, 4)
#: points one work item computes per plane (vector lanes × blocked rows): more spills registers
#: and makes loopy's code generation slow (a 27-point box at 8 × 4 takes 40 s to generate)
MAX_POINTS_PER_ITEM = 8
STREAM_CHUNKS = (1, 4, 8, 16, 32)
#: work-group extents: the contiguous axis a multiple of a warp, the next one small; 128 to 512
#: work items (Jacobi on the H200: every shape in that range within 5 % of the best)
GROUP_X = (32, 64, 128, 256)
GROUP_Y = (1, 2, 4, 8)
GROUP_ITEMS = (128, 512)
#: the sum order is offered where a balanced tree shortens the update's chain of dependent
#: operations by this many at least. Measured (docs/stencils.md, 2026-11-27): where the tree
#: saved 14 (mehrstellen3d, 21 → 7) it took 0.94× the time at the median variant of the whole
#: space on the H200 (0.96× on an H100); where it saved 7 (edge3d19, box3d27) or 3
#: (star3d_r4, biharm2d) it was even at the median of a slice and ±10 % per variant, its best
#: 1–3 % slower
MIN_PATH_SAVED = 10


# {{{ analysis

@dataclass(frozen=True)
class Axis:
    """A parallel axis of the output: its iname, extent and the stencil's halo along it."""

    iname: str
    extent: str                  # expression over the size parameters
    param: str | None            # the size parameter the extent is, up to a constant
    extent_offset: int           # extent − param
    starts_at_zero: bool
    halo: tuple[int, int]        # lowest, highest read offset relative to the output point


@dataclass(frozen=True)
class Stencil:
    """What ``analyse_program`` read off a program (see the module docstring)."""

    outputs: tuple[str, ...]                        # written point by point, in program order
    axes: tuple[Axis, ...]                          # outermost → contiguous
    reads: tuple[str, ...]                          # global arrays the kernel only reads
    halos: Mapping[str, tuple[tuple[int, int], ...]]  # per read array, per axis
    tile_array: str | None
    vector_arrays: tuple[str, ...]
    vector_widths: tuple[int, ...]
    temporaries: tuple[str, ...]
    short_loops: tuple[tuple[str, int], ...]
    stream_loops: tuple[str, ...]    # short loops that move reads along the outermost axis
    vector_loops: tuple[str, ...]    # reductions around reads along the contiguous axis
    itemsize: int
    notes: tuple[str, ...] = field(default=())
    #: the update reads its neighbours under a branch (``if(boundary, u, stencil)``): no
    #: transform that loads them ahead of it (vector gathers, streamed columns, a local tile)
    guarded: bool = False
    #: short loops in a streamed column's other subscripts (``u[j + a, i + b]``'s b): the
    #: column's buffer is loaded inside them, which loopy cannot nest in the streamed loop
    column_loops: tuple[str, ...] = ()
    #: the outputs' updates: dependent operations on the longest path as written, and with the
    #: sums balanced (short loops written out; ``knobs.sum_order``)
    update_paths: tuple[int, int] = (0, 0)

    @property
    def ndim(self) -> int:
        return len(self.axes)

    @property
    def output(self) -> str:
        """The first output (the one array of a ping-pong update, which the temporal
        schemes take)."""
        return self.outputs[0]


class NotAStencil(Exception):
    """The program has no shape the automatic space knows (the message says why)."""


def _affine(expr: Any) -> dict[Any, int] | None:
    from gencl.generate.knobs.streaming import affine_terms
    return affine_terms(expr)


def _reads(knl: lp.LoopKernel) -> list[tuple[Any, Any, frozenset[str]]]:
    """(instruction, subscript, inames in scope) of every read of a global array."""
    import loopy as lp
    from loopy.symbolic import WalkMapper

    arrays = {a.name for a in knl.args if isinstance(a, lp.ArrayArg)}
    found = []

    class Walk(WalkMapper):
        def __init__(self, insn):
            super().__init__()
            self.insn = insn

        def map_subscript(self, expr, *args):
            if expr.aggregate.name in arrays:
                scope = self.insn.within_inames | self.insn.reduction_inames()
                found.append((self.insn, expr, frozenset(scope)))
            return super().map_subscript(expr, *args)

    for insn in knl.instructions:
        if isinstance(insn, lp.Assignment):
            Walk(insn)(insn.expression)
    return found


def _offset_range(knl: lp.LoopKernel, expr: Any, scope: frozenset[str]) -> tuple[int, int]:
    """Min and max of an affine *expr* over the domain of the inames *scope* (isl)."""
    from loopy.symbolic import pwaff_from_expr

    domain = knl.get_inames_domain(scope)
    pw = pwaff_from_expr(domain.space, expr, ()).intersect_domain(domain)
    lo, hi = pw.min_val(), pw.max_val()
    if not (lo.is_int() and hi.is_int()):
        raise NotAStencil(f"read offset {expr} is unbounded")
    return int(lo.to_python()), int(hi.to_python())


def _extent(knl: lp.LoopKernel, iname: str) -> tuple[str, str | None, int, bool]:
    from loopy.symbolic import pw_aff_to_expr

    bounds = knl.get_iname_bounds(iname)
    size = pw_aff_to_expr(bounds.size)
    lower = bounds.lower_bound_pw_aff
    starts_at_zero = lower.is_cst() and lower.max_val().to_python() == 0
    terms = _affine(size) or {}
    params = [v for v in terms if v != 1]
    param = params[0] if len(params) == 1 and terms[params[0]] == 1 else None
    return str(size), param, int(terms.get(1, 0)) if param else 0, starts_at_zero


def _last_axis_ok(knl: lp.LoopKernel, name: str, param: str, width: int) -> bool:
    """Whether *name*'s row length keeps whole vectors when *param* is a multiple of *width*."""
    from pymbolic import parse

    shape = knl.arg_dict[name].shape
    terms = _affine(parse(str(shape[-1]))) if shape else None
    if not terms:
        return False
    others = {v: c for v, c in terms.items() if v != 1}
    # param itself is assumed a multiple of the width; any other term must be one
    return (all(c % width == 0 for v, c in others.items() if v != param)
            and terms.get(1, 0) % width == 0)


def _unaligned(knl: lp.LoopKernel, last: Axis, out_offset: int, arrays: list[str],
               transposed: bool) -> str:
    """Why no vector of two keeps the contiguous axis's accesses whole (the first reason)."""
    if not last.param:
        return "its extent is not a size parameter plus a constant"
    if transposed:
        return "an array reads its index along another axis"
    if out_offset % 2:
        return (f"the output starts {out_offset} element(s) into its rows (pad the rows so the "
                "written points start on a vector)")
    if last.extent_offset % 2:
        return f"the extent {last.param} {last.extent_offset:+d} is odd"
    rows = [n for n in arrays if not _last_axis_ok(knl, n, last.param, 2)]
    return f"the rows of {', '.join(rows)} are not a multiple of 2 elements long"


def _memory_order(arg: Any) -> list[int]:
    """*arg*'s axes from outermost to contiguous in memory (loopy's layout nesting levels);
    subscript order where its strides are not fixed."""
    from loopy.kernel.array import FixedStrideArrayDimTag

    tags = getattr(arg, "dim_tags", None) or ()
    if not tags or not all(isinstance(t, FixedStrideArrayDimTag) for t in tags):
        return list(range(len(arg.shape or ())))
    return sorted(range(len(tags)), key=lambda d: -tags[d].layout_nesting_level)


def analyse_program(t: lp.TranslationUnit) -> Stencil:
    """Read the stencil shape off an untransformed program.

    Raises:
        NotAStencil: the program is not arrays written point by point over parallel inames.
    """
    import loopy as lp
    import numpy as np
    import pymbolic.primitives as prim

    knl = t.default_entrypoint
    globals_ = {a.name: a for a in knl.args if isinstance(a, lp.ArrayArg)
                and a.address_space == lp.AddressSpace.GLOBAL}
    written = [n for n in knl.get_written_variables() if n in globals_]
    if not written:
        raise NotAStencil("writes no global array")
    # the outputs in program order, each written by one instruction at one subscript
    assigned = [(i.assignee.aggregate.name, i.assignee.index_tuple) for i in knl.instructions
                if isinstance(i, lp.Assignment) and isinstance(i.assignee, prim.Subscript)
                and getattr(i.assignee.aggregate, "name", None) in written]
    outputs = tuple(dict.fromkeys([name for name, _ in assigned] + written))
    for output in outputs:
        count = sum(name == output for name, _ in assigned)
        if count != 1:
            raise NotAStencil(f"{output} is written by {count} instructions (needs one)")
    indices = dict(assigned)
    output = outputs[0]
    index = indices[output]
    apart = [n for n in outputs[1:] if indices[n] != index]
    if apart:
        raise NotAStencil(f"{apart[0]}[{', '.join(map(str, indices[apart[0]]))}] is not written "
                          f"at {output}'s point [{', '.join(map(str, index))}] (the derived space "
                          "needs every output at one point)")
    inames, out_offsets = [], []
    for expr in index:
        terms = _affine(expr)
        names = [v for v in (terms or {}) if v != 1]
        if not terms or len(names) != 1 or terms[names[0]] != 1 or names[0] not in knl.all_inames():
            raise NotAStencil(f"{output}[{', '.join(map(str, index))}]: every axis must be "
                              "an iname plus a constant")
        inames.append(names[0])
        out_offsets.append(terms.get(1, 0))
    if len(set(inames)) != len(inames):
        raise NotAStencil(f"{output} indexes two axes with one iname")
    if len(inames) > 3:
        raise NotAStencil(f"{output} has {len(inames)} axes: a work-group maps three at most "
                          "(loop the outer ones in the program, or bind knobs by hand)")
    # outermost → contiguous in memory, not in subscript order: a column-major output
    # (order="F") has its first index contiguous, and the work-group's first axis must run along it
    order = _memory_order(globals_[output])
    inames, out_offsets = [inames[d] for d in order], [out_offsets[d] for d in order]
    axis_of = {name: d for d, name in enumerate(inames)}

    # halo: per read array and axis, the offsets relative to the output point
    reads = sorted({sub.aggregate.name for _, sub, _ in _reads(knl)} - set(written))
    halos: dict[str, list[list[int]]] = {}
    stream_loops: set[str] = set()
    # per read array and subscript of the other axes (a streamed column's key): the outermost
    # axis's offset range and the loops in those other subscripts
    columns: dict[tuple, list] = {}
    wrapped: dict[str, set[str]] = {}  # read array → the axes it indexes off a constant offset
    accesses: dict[str, int] = {}
    for _insn, sub, scope in _reads(knl):
        name = sub.aggregate.name
        if name not in reads:
            continue
        accesses[name] = accesses.get(name, 0) + 1
        per_axis = halos.setdefault(name, [[0, 0] for _ in inames])
        key, along, key_loops = [], None, set()
        for expr in sub.index_tuple:
            affine = _affine(expr)
            if affine is None and _deps(expr) & set(axis_of):
                # a wrapped index (u[j, (i + 1) % nx], a periodic boundary): no constant offset
                wrapped.setdefault(name, set()).update(_deps(expr) & set(axis_of))
            terms = affine or {}
            hit = [v for v in terms if v in axis_of]
            if len(hit) != 1 or terms[hit[0]] != 1 or axis_of[hit[0]] != 0:
                key.append(str(expr))
                key_loops |= _deps(expr) - set(axis_of)
            if len(hit) != 1 or terms[hit[0]] != 1:
                continue
            d = axis_of[hit[0]]
            outside = sorted(_deps(expr) - scope - set(
                knl.get_inames_domain(scope).get_var_dict()))
            if outside:  # a run-time shift (u[j, i + s]): no constant halo to tile or stream
                raise NotAStencil(f"{name}[..., {expr}, ...]: the offset depends on "
                                  f"{', '.join(outside)}, not on the loop indices alone (the "
                                  "derived space needs constant offsets)")
            lo, hi = _offset_range(knl, expr - _var(hit[0]), scope)
            per_axis[d][0] = min(per_axis[d][0], lo - out_offsets[d])
            per_axis[d][1] = max(per_axis[d][1], hi - out_offsets[d])
            if d == 0:
                stream_loops |= {v for v in terms if v not in axis_of and v != 1}
                along = (lo, hi)
        if along is not None:
            seen = columns.setdefault((name, tuple(key)), [along[0], along[1], key_loops])
            seen[0], seen[1] = min(seen[0], along[0]), max(seen[1], along[1])
    # a column read at several planes is streamed through a buffer its key's loops would wrap
    column_loops = set().union(*(loops for lo, hi, loops in columns.values() if hi > lo))
    halo_arrays = {n: tuple((h[0], h[1]) for h in hs) for n, hs in halos.items()}
    axes = []
    for d, name in enumerate(inames):
        extent, param, offset, zero = _extent(knl, name)
        lo = min((h[d][0] for h in halo_arrays.values()), default=0)
        hi = max((h[d][1] for h in halo_arrays.values()), default=0)
        axes.append(Axis(name, extent, param, offset, zero, (lo, hi)))

    # vector widths along the contiguous axis
    last = axes[-1]
    vec_arrays = sorted(n for n in globals_ if any(
        last.iname in _deps(sub.index_tuple[-1]) for _, sub, _ in _reads(knl)
        if sub.aggregate.name == n) or n in outputs)
    transposed = any(last.iname in _deps(e) for _, sub, _ in _reads(knl)
                     if sub.aggregate.name in vec_arrays for e in sub.index_tuple[:-1])
    # OpenCL C converts no vector type into another implicitly (a uint8 image's uchar2 times a
    # float), and narrow integers' vector arithmetic wraps where scalar C promotes to int
    dtypes = {n: np.dtype(globals_[n].dtype.numpy_dtype) for n in vec_arrays}
    mixed = len(set(dtypes.values())) > 1 or any(
        d.kind in "iu" and d.itemsize < 4 for d in dtypes.values())
    notes: tuple[str, ...] = ()
    if mixed:
        notes += (f"contiguous axis {last.iname}: no vector width, "
                  + ", ".join(f"{n} {d.name}" for n, d in sorted(dtypes.items()))
                  + " (OpenCL C converts no vector type implicitly, and narrow integers' "
                  "vector arithmetic wraps where scalar C promotes them)",)
    # the vector knob splits an array's last axis: only where that axis is the contiguous one
    column = sorted(n for n, a in globals_.items()
                    if _memory_order(a) != list(range(len(a.shape or ()))))
    if column:
        notes += (f"contiguous axis {last.iname}: no vector width, {', '.join(column)} "
                  "column-major (the vector knob splits an array's last axis)",)
    wraps = sorted(n for n, names in wrapped.items() if last.iname in names)
    if wraps:
        notes += (f"contiguous axis {last.iname}: no vector width, {', '.join(wraps)} read at "
                  "a wrapped index along it (a modulo: no whole vector to load)",)
    if wrapped:
        notes += (f"{', '.join(sorted(wrapped))} read at wrapped indices: no local tile of "
                  "them (their footprint is not a box with a halo)",)
    guarded = _reads_under_branch(knl, set(written))
    if guarded:
        notes += ("the update reads its neighbours under a branch: no vector width, stream or "
                  "local tile (each would load them ahead of it, out of bounds at the edges)",)
    widths = []
    for w in VECTOR_WIDTHS[1:] + (16,):
        if (last.param and not transposed and not mixed and not column and not guarded
                and not wraps and last.extent_offset % w == 0 and out_offsets[-1] % w == 0
                and all(_last_axis_ok(knl, n, last.param, w) for n in vec_arrays)):
            widths.append(w)
    if not widths and not (mixed or column or guarded or wraps):
        notes += (f"contiguous axis {last.iname}: no vector width, "
                  + _unaligned(knl, last, out_offsets[-1], vec_arrays, transposed),)
    temporaries = tuple(sorted(
        name for name, tv in knl.temporary_variables.items()
        if not tv.shape and any(last.iname in i.within_inames for i in knl.instructions
                                if name in i.assignee_var_names())))

    # short loops: every other iname with a small constant trip count
    short = []
    for name in sorted(knl.all_inames() - set(inames)):
        length = _constant_length(knl, name)
        if length is not None and length <= SHORT_LOOP:
            short.append((name, length))
    vector_loops = _reductions_reading(knl, last.iname, set(vec_arrays))
    if vector_loops - {s for s, _ in short}:
        widths = []  # a reduction that cannot be written out keeps unaligned reads inside it
    tile_array = None if guarded else max(
        (n for n in halo_arrays
         if any(h != (0, 0) for h in halo_arrays[n]) and n not in wrapped),
        key=lambda n: accesses[n], default=None)
    return Stencil(
        outputs=outputs, axes=tuple(axes), reads=tuple(reads), halos=halo_arrays,
        tile_array=tile_array, vector_arrays=tuple(vec_arrays), vector_widths=tuple(widths),
        temporaries=temporaries, short_loops=tuple(short),
        stream_loops=tuple(sorted(stream_loops & {s for s, _ in short})),
        column_loops=tuple(sorted((column_loops - stream_loops) & {s for s, _ in short})),
        vector_loops=tuple(sorted(vector_loops)), notes=notes, guarded=guarded,
        itemsize=int(np.dtype(globals_[output].dtype.numpy_dtype).itemsize),
        update_paths=_update_paths(t, outputs, short))


def _update_paths(t: lp.TranslationUnit, outputs: tuple[str, ...],
                  short: list[tuple[str, int]]) -> tuple[int, int]:
    """(as written, balanced) critical paths of the instructions writing *outputs*, the
    longest of each, their short loops' sums written out as full unrolling writes them."""
    import loopy as lp

    from gencl.generate.knobs.sum_order import balance, critical_path
    from gencl.generate.knobs.unroll import unroll

    for name, _ in short:
        try:
            t = unroll(t, name, "full")
        except Exception:  # noqa: BLE001 -- a loop full unrolling cannot take stays a loop
            pass
    updates = [i.expression for i in t.default_entrypoint.instructions
               if isinstance(i, lp.Assignment) and set(outputs) & set(i.assignee_var_names())]
    return (max(critical_path(update) for update in updates),
            max(critical_path(balance(update)) for update in updates))


def _constant_length(knl: lp.LoopKernel, iname: str) -> int | None:
    try:
        return int(knl.get_constant_iname_length(iname))
    except Exception:  # noqa: BLE001 -- loopy raises several kinds for a bound that is not constant
        return None


def _reductions_reading(knl: lp.LoopKernel, iname: str, arrays: set[str]) -> set[str]:
    """Inames of reductions whose body reads *arrays* along *iname*: the vector knob cannot
    hoist those reads out of the reduction, so the reduction must be written out first."""
    from loopy.symbolic import WalkMapper

    found: set[str] = set()

    class Walk(WalkMapper):
        def __init__(self):
            super().__init__()
            self.inside: list[tuple[str, ...]] = []

        def map_reduction(self, expr, *args):
            self.inside.append(tuple(expr.inames))
            self.rec(expr.expr, *args)
            self.inside.pop()

        def map_subscript(self, expr, *args):
            if (expr.aggregate.name in arrays and expr.index_tuple
                    and iname in _deps(expr.index_tuple[-1])):
                for names in self.inside:
                    found.update(names)
            return super().map_subscript(expr, *args)

    for insn in knl.instructions:
        if hasattr(insn, "expression"):
            Walk()(insn.expression)
    return found


def _reads_under_branch(knl: lp.LoopKernel, written: set[str]) -> bool:
    """Whether an instruction reads a global array it does not write inside a branch of an
    ``if(c, a, b)`` expression or under an instruction predicate."""
    import loopy as lp
    import pymbolic.primitives as prim
    from loopy.symbolic import WalkMapper

    arrays = {a.name for a in knl.args if isinstance(a, lp.ArrayArg)} - written
    found = []

    class Walk(WalkMapper):
        def __init__(self, inside: bool) -> None:
            super().__init__()
            self.inside = inside

        def map_if(self, expr, *args):
            self.rec(expr.condition, *args)
            branch = Walk(True)
            branch(expr.then)
            branch(expr.else_)

        def map_subscript(self, expr, *args):
            if self.inside and isinstance(expr.aggregate, prim.Variable) \
                    and expr.aggregate.name in arrays:
                found.append(expr)
            return super().map_subscript(expr, *args)

    for insn in knl.instructions:
        if hasattr(insn, "expression"):
            Walk(bool(insn.predicates))(insn.expression)
    return bool(found)


def _var(name: str) -> Any:
    import pymbolic.primitives as prim
    return prim.Variable(name)


def _deps(expr: Any) -> set[str]:
    from loopy.symbolic import get_dependencies
    return set(get_dependencies(expr))

# }}}


# {{{ the derived space

@dataclass(frozen=True)
class DerivedSpace:
    """Knob axes and constraints derived from a program, and how they were chosen."""

    knobs: dict[str, Knob]
    constraints: tuple[Callable[[Any, Any], str | None], ...]
    stencil: Stencil | None
    reason: str = ""   # why there is no space, when there is none

    def names(self) -> dict[str, str]:
        """Role → knob name (vector, block, stream, workgroup, local, unroll:<iname>)."""
        return _roles(self.stencil) if self.stencil else {}


def _roles(st: Stencil) -> dict[str, str]:
    roles: dict[str, str] = {}
    for name, _ in st.short_loops:
        roles[f"unroll:{name}"] = f"unroll_{name}"
    if st.update_paths[0] - st.update_paths[1] >= MIN_PATH_SAVED:
        roles["sum_order"] = "sum_order"
    if st.vector_widths:
        roles["vector"] = "vector_width"
    if st.ndim == 3:
        roles["block"] = f"block_{st.axes[1].iname}"
    if st.ndim >= 2 and st.axes[0].starts_at_zero and not st.guarded:
        roles["stream"] = f"stream_{st.axes[0].iname}"
    roles["workgroup"] = "workgroup"
    if st.tile_array:
        roles["local"] = f"local_{st.tile_array}"
    return roles


def _workgroups(ndim: int) -> tuple[tuple[int, ...], ...]:
    """Work-group shapes, contiguous axis first; (32, 4) leads (the default point)."""
    if ndim == 1:
        return tuple((x,) for x in (64, 128, 256, 32, 512, 1024))
    shapes = [(x, y) for x in GROUP_X for y in GROUP_Y
              if GROUP_ITEMS[0] <= x * y <= GROUP_ITEMS[1]]
    shapes.sort(key=lambda s: s != (32, 4))
    pad = (1,) * (ndim - 2)  # the outer axes: one plane per work item along them
    return tuple(s + pad for s in shapes)


def knobs_for(st: Stencil) -> dict[str, Knob]:
    """The knob axes of a stencil, in application order."""
    roles = _roles(st)
    knobs: dict[str, Knob] = {}
    last = st.axes[-1]
    for name, _ in st.short_loops:
        knobs[roles[f"unroll:{name}"]] = Knob("unroll", ("none", "full"), {"iname": name})
    if "sum_order" in roles:  # after unrolling: a written-out radius sum is balanced too
        from gencl.generate.knobs.sum_order import ORDERS

        knobs[roles["sum_order"]] = Knob("sum_order", ORDERS, {})
    if "vector" in roles:
        knobs[roles["vector"]] = Knob("vector", tuple(
            w for w in VECTOR_WIDTHS if w == 1 or w in st.vector_widths), {
            "iname": last.iname, "arrays": st.vector_arrays, "temporaries": st.temporaries,
            "size": last.param, "gather": True})
    if "block" in roles:
        knobs[roles["block"]] = Knob("register_block", BLOCKS, {"iname": st.axes[1].iname})
    if "stream" in roles:
        knobs[roles["stream"]] = Knob("streaming", STREAM_CHUNKS, {"iname": st.axes[0].iname})
    knobs[roles["workgroup"]] = Knob("workgroup", _workgroups(st.ndim), {
        "inames": tuple(a.iname for a in reversed(st.axes))})
    if "local" in roles:
        knobs[roles["local"]] = Knob("local_tile", ("none", "static"), {"array": st.tile_array})
    return knobs


def tile(st: Stencil, roles: Mapping[str, str], point: Mapping[str, Any]) -> list[int]:
    """Points one work-group covers per axis (outermost first)."""
    shape = list(point[roles["workgroup"]])  # contiguous first
    out = []
    for d, _axis in enumerate(st.axes):
        extent = shape[st.ndim - 1 - d]
        if d == st.ndim - 1 and "vector" in roles:
            extent *= point[roles["vector"]]
        if d == 1 and st.ndim == 3 and "block" in roles:
            extent *= point[roles["block"]]
        if d == 0 and "stream" in roles:
            extent *= point[roles["stream"]]
        out.append(extent)
    return out


def local_tile_bytes(st: Stencil, roles: Mapping[str, str], point: Mapping[str, Any],
                     itemsize: int) -> int:
    """Bytes of the ``__local`` tile (the work-group's points plus the tile array's halo), as
    loopy's bounding-box prefetch sizes it; 0 without a tile."""
    if "local" not in roles or point[roles["local"]] == "none":
        return 0
    halo = st.halos[st.tile_array]  # type: ignore[index]
    return itemsize * math.prod(t + hi - lo for t, (lo, hi) in zip(tile(st, roles, point), halo))


def _evaluate(expr: str, sizes: Mapping[str, Any]) -> int | None:
    """*expr* at *sizes*, or None when the sizes do not name its parameters."""
    import pymbolic
    try:
        return int(pymbolic.evaluate(pymbolic.parse(expr), dict(sizes)))
    except Exception:  # noqa: BLE001 -- an unknown variable
        return None


def _constraints(spec: BenchmarkSpec, st: Stencil) -> tuple[Callable[[Any, Any], str | None], ...]:
    roles = _roles(st)
    itemsizes: dict[str, int] = {}

    def itemsize(point: Mapping[str, Any]) -> int:
        key = repr(sorted((k, point[k]) for k in spec.params))
        if key not in itemsizes:  # the dtype is usually a program parameter
            try:
                itemsizes[key] = analyse_program(spec.program(dict(point))).itemsize
            except Exception:  # noqa: BLE001 -- the program is checked elsewhere
                itemsizes[key] = st.itemsize
        return itemsizes[key]

    def transforms(point, device):
        local = roles.get("local")
        if local and point[local] != "none":
            if roles.get("stream") and point[roles["stream"]] != 1:
                return "a local tile with streaming: the prefetch would cover the whole chunk"
            if roles.get("vector") and point[roles["vector"]] != 1:
                return ("local tile of a vector-typed array: loopy 2025.2 add_prefetch cannot "
                        "box its footprint")
        vector = roles.get("vector")
        if vector and point[vector] != 1:
            for loop in st.vector_loops:
                if point[roles[f"unroll:{loop}"]] != "full":
                    return (f"vector reads inside the sum over {loop} need {loop} written out "
                            "(unrolled)")
        stream = roles.get("stream")
        if stream and point[stream] != 1:
            for loop in st.stream_loops:
                if point.get(roles[f"unroll:{loop}"], "full") != "full":
                    return (f"streamed planes indexed by loop {loop} stay in slow private memory "
                            f"unless {loop} is unrolled")
            for loop in st.column_loops:
                if point.get(roles[f"unroll:{loop}"], "full") != "full":
                    return (f"streamed columns read at offsets set by loop {loop} need {loop} "
                            "unrolled (their buffers' loads cannot be nested in a kept loop)")
        return None

    def per_item(point, device):
        w = point[roles["vector"]] if "vector" in roles else 1
        b = point[roles["block"]] if "block" in roles else 1
        if w * b > MAX_POINTS_PER_ITEM:
            return f"{w * b} points per work item and plane > {MAX_POINTS_PER_ITEM}"
        return None

    def divides(point, device):
        vector = roles.get("vector")
        if not vector or point[vector] == 1:
            return None
        w, param = point[vector], st.axes[-1].param
        runs = [("quick", spec.sizes(point, device, True))]
        if spec.verify_sizes is not None:
            runs.append(("verification", spec.verify_sizes(point, device)))
        if device is not None:
            runs.append(("timing", spec.sizes(point, device, False)))
        for what, sizes in runs:
            if param in sizes and (sizes[param] + st.axes[-1].extent_offset) % w:
                return f"vector width {w} does not divide {param} = {sizes[param]} ({what} sizes)"
        return None

    def fits_device(point, device):
        if device is None:
            return None
        items = math.prod(point[roles["workgroup"]])
        if items > device.max_work_group_size:
            return f"work-group {items} > device max {device.max_work_group_size}"
        nbytes = local_tile_bytes(st, roles, point, itemsize(point))
        if nbytes > device.local_mem_bytes:
            return f"local tile {nbytes} B > device local memory {device.local_mem_bytes} B"
        sizes = spec.sizes(point, device, False)
        for axis, extent in zip(st.axes, tile(st, roles, point)):
            size = _evaluate(axis.extent, sizes)
            if size is not None and extent > size:
                return f"tile {extent} along {axis.iname} larger than its extent {size}"
        return None

    return (transforms, per_item, divides, fits_device)


def derive_space(spec: BenchmarkSpec) -> DerivedSpace:
    """The automatic space of *spec*'s program (at its default parameters); never raises: a
    program it cannot read gives an empty space with the reason. A program with a ping-pong
    pair that temporal blocking can take gets the temporal axes first (``temporal_axes``)."""
    try:
        t = spec.program(spec.complete({}))
        st = analyse_program(t)
    except NotAStencil as exc:
        return DerivedSpace({}, (), None, str(exc))
    except Exception as exc:  # noqa: BLE001 -- a broken program is reported by validation
        return DerivedSpace({}, (), None, f"{type(exc).__name__}: {exc}".splitlines()[0])
    knobs, constraints = knobs_for(st), _constraints(spec, st)
    temporal = temporal_axes(spec, st, t, knobs)
    if temporal is not None:
        knobs = {**temporal[0], **knobs}
        constraints = (temporal[1], *constraints)
    return DerivedSpace(knobs, constraints, st)


def temporal_axes(spec: BenchmarkSpec, st: Stencil, t: Any, knobs: Mapping[str, Knob]
                  ) -> tuple[dict[str, Knob], Callable[[Any, Any], str | None]] | None:
    """The temporal axes and their constraint, when *spec* declares ping-pong pairs and its
    program can be blocked in time; the other transforms stay at their first (identity)
    values on a temporal point."""
    from gencl.generate.temporal import (
        NotTemporal, offered, read_temporal_form, temporal_constraint, temporal_knobs)

    if not spec.hooks.ping_pong:
        return None
    try:
        read_temporal_form(t, spec.hooks.ping_pong)
    except NotTemporal:
        return None
    roles = _roles(st)
    plain = {knob: knobs[knob].values[0] for role, knob in roles.items() if role != "workgroup"}
    axes = temporal_knobs(st.ndim, spec.hooks.ping_pong)
    rule = temporal_constraint(spec.program, spec.hooks.ping_pong, params=tuple(spec.params),
                               defaults=plain, sizes=spec.sizes, workgroup=roles["workgroup"],
                               workgroups=knobs[roles["workgroup"]].values)
    base = {**spec.complete({}), **plain}
    wg = roles["workgroup"]
    offered_axes = offered(axes, rule, base, wg, knobs[wg].values)
    if offered_axes is None:
        return None
    return offered_axes, rule


def wants_derived_space(spec: BenchmarkSpec) -> bool:
    """A kernel that binds no knobs (and is not a runtime benchmark) gets a derived space."""
    return not spec.knobs and spec.runner is None and spec.group in AUTO_GROUPS


def with_derived_space(spec: BenchmarkSpec) -> BenchmarkSpec:
    """*spec* with its derived knobs and constraints when it declares none; else *spec*.

    The loader calls this once per load (``gencl.spec.load_spec``); an in-memory spec handed to
    the Python API goes through it the same way. The knobs are a pure function of the program,
    so a reload (a generation worker) derives the same axes.
    """
    if not wants_derived_space(spec):
        return spec
    derived = derive_space(spec)
    if not derived.knobs:
        return spec
    return dataclasses.replace(spec, knobs=derived.knobs,
                               constraints=(*spec.constraints, *derived.constraints))


def describe_space(spec: BenchmarkSpec, device: Any = None) -> list[str]:
    """Printable lines: each axis with its transform, values and binding; for a derived space
    also what the analysis read off the program. *device* (limits) adds the valid point count."""
    lines: list[str] = []
    derived = derive_space(spec) if wants_derived_space(spec) or _is_derived(spec) else None
    st = derived.stencil if derived else None
    if derived is not None and st is None:
        lines.append(f"{spec.name}: no knobs declared and no space derived: {derived.reason}")
    elif st is not None:
        out = st.axes
        lines.append(f"{spec.name}: space derived from the program ({st.ndim}-D stencil writing "
                     f"{', '.join(st.outputs)}; reads {', '.join(st.reads)})")
        lines.append("  axes, outermost first: " + "; ".join(
            f"{a.iname} over {a.extent}, halo {a.halo[0]:+d}..{a.halo[1]:+d}" for a in out))
        if st.vector_arrays and st.vector_widths:
            lines.append(f"  contiguous axis {out[-1].iname}: vector widths "
                         f"{', '.join(map(str, st.vector_widths))} keep "
                         f"{', '.join(st.vector_arrays)} aligned")
        lines.extend(f"  {note}" for note in st.notes)
        if st.short_loops:
            lines.append("  short loops: " + ", ".join(f"{n} ({k} trips)" for n, k in
                                                       st.short_loops))
    else:
        lines.append(f"{spec.name}: knobs declared by the spec")
    for name, values in spec.params.items():
        lines.append(f"  {name:<18} parameter       {', '.join(map(_text, values))}")
    for name, knob in spec.knobs.items():
        binding = ", ".join(f"{k}={_text(v)}" for k, v in knob.options.items()
                            if v not in ((), None, ""))
        lines.append(f"  {name:<18} {knob.transform:<15} {', '.join(map(_text, knob.values))}"
                     f"   [{binding}]")
    total = math.prod(len(v) for v in spec.axes.values()) if spec.axes else 0
    lines.append(f"  {total} points before constraints")
    if device is not None:
        valid = sum(1 for _ in spec.points(device))
        lines.append(f"  {valid} points within the constraints on {device.name}")
    return lines


def _is_derived(spec: BenchmarkSpec) -> bool:
    """Whether *spec*'s knobs are the derived ones (a spec already through the loader)."""
    if spec.runner is not None or spec.group not in AUTO_GROUPS or not spec.knobs:
        return False
    derived = derive_space(dataclasses.replace(spec, knobs={}))
    return derived.knobs == dict(spec.knobs)


def _text(value: Any) -> str:
    if isinstance(value, tuple | list):
        return "x".join(map(str, value)) if all(isinstance(v, int) for v in value) else \
            "(" + ", ".join(map(str, value)) + ")"
    return str(value)

# }}}
