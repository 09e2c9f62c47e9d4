"""Scheme "stream" (AN5D-style): the k time levels pipelined along the outermost axis.

A work-group tiles the inner axes (2-D: a strip of columns, 3-D: an x-y tile): its work items
cover the loaded tile L = W × P exactly and the group owns the inner part T = L − k·(lo + hi)
per inner axis (overlapped like the tile scheme); it walks a chunk of C planes (the outermost
entry of the points) of the outermost axis, starting k·lo planes early (chunks overlap by the
warm-up). Time level 0 is the input, loaded one plane per step; at step t level s computes the
plane t − s·delay from level s − 1, the levels of a step in order, one barrier per step, and
level k writes the output. Each level below k keeps its last planes twice: the work item's own
points in private registers (the update reads its own column, the point and its neighbours
along the walked axis, from them, the newest written by the level below in the same step) and
the plane in a ``__local`` ring (read for the inner-axis neighbours only, planes of earlier
steps); delay and ring sizes follow from the update's reads (``pipeline``: a star stencil of
radius 1 trails by one step and keeps two ``__local`` planes per level, a box stencil two and
four). The step loop is unrolled by both rings, so every slot is a constant. Outside
the interior a level carries the value below (the boundary, loaded once) in the same
assignment. What does not change along the walk (a point inside the interior along the inner
axes, still valid at a level) is computed once per owned point before the steps; what changes
per step (which levels run, their plane inside the interior) once per step. Read-only arrays
read at the point are read from global memory at the plane a level needs (they hit the
caches: k reads per point and launch).

With ``copy = "async"`` (scheme ``stream_async``) the input planes go from global memory into
level 0's ``__local`` ring directly, ``lead`` steps ahead, and level 0's registers are read from
the ring: on NVIDIA GPUs (compute capability 8.0 and later) a ``cp.async`` copy in inline PTX,
which holds no register while in flight, one commit group per step, and a wait for the group of
``lead − 1`` steps ago before the step barrier; elsewhere the same program with a plain load and
store (``async_copy_preamble``), so a build for another device stays correct.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import loopy as lp
import numpy as np
import pymbolic.primitives as prim
from pymbolic import parse
from pymbolic.mapper.substitutor import SubstitutionMapper, make_subst_func

from gencl.generate.temporal._form import TemporalForm
from gencl.generate.temporal._geometry import Geometry
from gencl.generate.temporal._names import fresh_prefix
from gencl.generate.temporal._tile import (
    _and, arguments_and_domains, blocked_kernel, hardware_tags)
from gencl.generate.temporal._update import place_update


def stream_program(form: TemporalForm, geo: Geometry) -> lp.TranslationUnit:
    """The stream scheme's program (see the module docstring)."""
    knl = form.kernel
    v = fresh_prefix(knl)
    n, k, c = form.ndim, geo.sweeps, geo.points[0]
    lo0, hi0, ring, delay, unroll = geo.lo[0], geo.hi[0], geo.ring, geo.delay, geo.unroll
    lead = geo.lead  # steps a plane is loaded before level 0 shares it (the load in flight)
    var = prim.Variable
    dtype = knl.arg_dict[form.output].dtype
    args, domains = arguments_and_domains(form, geo, v)
    inner = range(1, n)
    for d in inner:
        domains.append(f"{{[{v}q{d}]: 0 <= {v}q{d} < {geo.owned[d]}}}")
        domains.append(f"{{[{v}h{d}]: 0 <= {v}h{d} < {geo.owned[d]}}}")
    # the step loop, unrolled by both rings: t = unroll·to + ti, every ring slot a constant
    domains.append(f"{{[{v}to]: 0 <= {v}to < {geo.steps // unroll}}}")
    domains.append(f"{{[{v}ti]: 0 <= {v}ti < {unroll}}}")
    step = unroll * var(f"{v}to") + var(f"{v}ti")
    steps = frozenset({f"{v}to", f"{v}ti"})
    hw = frozenset(hardware_tags(geo, v))
    qs = frozenset(f"{v}q{d}" for d in inner)
    q = tuple(var(f"{v}q{d}") for d in inner)
    within = frozenset(hw | steps | qs)
    tt = {d: var(f"{v}l{d}") + geo.group[d] * var(f"{v}q{d}") for d in inner}
    # interior coordinates: plane rp (relative to the chunk's first loaded plane), inner points
    first = c * var(f"{v}g0") - k * lo0 if k * lo0 else c * var(f"{v}g0")
    xs = {d: geo.tile[d] * var(f"{v}g{d}") + (tt[d] - k * geo.lo[d] if k * geo.lo[d] else tt[d])
          for d in inner}
    rings = [f"{v}ring{s}" for s in range(k)]
    ring_sizes = [geo.input_ring] + [ring] * (k - 1)
    temps = [lp.TemporaryVariable(name, dtype, shape=(size, *geo.loaded[1:]),
                                  address_space=lp.AddressSpace.LOCAL)
             for name, size in zip(rings, ring_sizes)]
    insns: list[Any] = []
    per_item: set[str] = set()  # conditions of a work item's own points: once, before the steps
    per_step: set[str] = {f"{v}bar_step"}  # a step's slots and plane conditions

    def flag(name: str, cond: Any, *, hoisted: bool, shape: tuple[int, ...] = ()) -> Any:
        """A private int holding *cond* (per owned point when hoisted), as a predicate."""
        if cond is True:
            return None
        temps.append(lp.TemporaryVariable(name, np.int32, shape=shape,
                                          address_space=lp.AddressSpace.PRIVATE))
        # hoisted: over the owned points by loops of their own (q is nested in the steps)
        target = var(name)[tuple(var(f"{v}h{d}") for d in inner)] if shape else var(name)
        if hoisted:
            cond = SubstitutionMapper(make_subst_func(
                {f"{v}q{d}": var(f"{v}h{d}") for d in inner}))(cond)
        insns.append(lp.Assignment(
            target, cond, id=name, within_inames=hw | (
                {f"{v}h{d}" for d in inner} if hoisted else steps),
            depends_on=frozenset() if hoisted else frozenset({f"{v}bar_step"})))
        (per_item if hoisted else per_step).add(name)
        return var(name)[q] if shape else var(name)

    def item_flag(name: str, conds: list[Any]) -> Any:
        return flag(f"{v}{name}", _and(conds), hoisted=True, shape=geo.owned[1:])

    def step_flag(name: str, conds: list[Any]) -> Any:
        return flag(f"{v}{name}", _and(conds), hoisted=False)

    def plane(s: int) -> Any:  # the relative plane level s works on at this step
        return step - (lead + s * delay) if lead + s * delay else step

    def coords(s: int) -> list[Any]:
        return [first + plane(s), *(xs[d] for d in inner)]

    def needed(s: int) -> list[Any]:
        """Level s computes the planes the levels above need: [s·lo, C + k·lo + (k−s)·hi)."""
        shift = lead + s * delay
        lo_t, hi_t = s * lo0 + shift, c + k * lo0 + (k - s) * hi0 + shift
        out = [prim.Comparison(step, "<", hi_t)]
        if lo_t:
            out.append(prim.Comparison(step, ">=", lo_t))
        return out

    def live(s: int) -> list[Any]:
        out = []
        for d in inner:
            if geo.lo[d] * s:
                out.append(prim.Comparison(tt[d], ">=", geo.lo[d] * s))
            if geo.hi[d] * s:
                out.append(prim.Comparison(tt[d], "<", geo.loaded[d] - geo.hi[d] * s))
        return out

    def within_extent(d: int, x: Any, lo: int = 0, hi: Any = None) -> list[Any]:
        return [prim.Comparison(x, ">=", lo), prim.Comparison(
            x, "<", hi if hi is not None else parse(form.extents[d]))]

    # ring slots: relative plane p sits in slot p mod ring; the plane j steps ahead of t in
    # slot (ti + j) mod ring (ti + j ≥ 0: a plain remainder, a constant once ti is unrolled)
    ti = var(f"{v}ti")

    def slot(j: int, size: int) -> Any:
        return prim.Remainder(ti + j % size, size) if size < unroll or j % size else ti

    # a level's values at the work item's own points, the last ring planes: the update reads
    # its own column's planes (the vertical neighbours and the point) from these registers and
    # only the inner-axis neighbours from the __local ring (AN5D)
    own = [f"{v}own{s}" for s in range(k)]
    temps += [lp.TemporaryVariable(name, dtype, shape=(geo.own_ring, *geo.owned[1:]),
                                   address_space=lp.AddressSpace.PRIVATE) for name in own]

    def mine(level: int, s: int, off0: int = 0) -> Any:
        """Level *level*'s register of the plane level *s* works on (plus *off0*)."""
        return var(own[level])[(slot(off0 - s * delay - lead, geo.own_ring),) + q]

    def at(level: int, s: int, offsets: tuple[Any, ...] = ()) -> Any:
        """Level *level*'s ring at the plane level *s* works on (plus *offsets*)."""
        off0 = offsets[0] if offsets else 0
        size = ring_sizes[level]
        if isinstance(off0, int):
            index = slot(off0 - s * delay - lead, size)
        else:  # a radius loop moves the plane: its slot computed here (kept non-negative)
            shift = size * -(-(s * delay + lead + lo0) // size) - s * delay - lead
            index = prim.Remainder(step + off0 + shift, size)
        idx = [index]
        idx += [tt[d] + offsets[d] if offsets and offsets[d] != 0 else tt[d] for d in inner]
        return var(rings[level])[tuple(idx)]

    # per owned point (hoisted): inside the interior and the buffer along the inner axes, and
    # still valid at each level; per step (group-uniform): which levels run, their planes inside
    inner_in = item_flag("inner_in", [cmp for d in inner for cmp in within_extent(d, xs[d])])
    inner_buf = item_flag("inner_buf", [cmp for d in inner for cmp in within_extent(
        d, xs[d] + form.out_offsets[d], 0, parse(form.shape[d]))])
    lives = {s: item_flag(f"live{s}", live(s)) for s in range(1, k + 1)}
    runs = {s: step_flag(f"run{s}", needed(s)) for s in range(k + 1)}
    runs[-1] = step_flag("run_load", [prim.Comparison(step, "<", c + k * (lo0 + hi0))])
    plane_in = {s: step_flag(f"plane_in{s}", within_extent(0, coords(s)[0]))
                for s in range(1, k + 1)}
    loading = coords(0)[0] + lead  # the plane loaded at this step
    plane_buf = step_flag("plane_buf", within_extent(
        0, loading + form.out_offsets[0], 0, parse(form.shape[0])))

    def preds(*flags: Any) -> frozenset[Any]:
        return frozenset(f for f in flags if f is not None)

    insns.insert(0, lp.BarrierInstruction(
        f"{v}bar_step", synchronization_kind="local", mem_kind="local",
        within_inames=steps))
    after = frozenset(per_item | per_step)
    # level 0: the input plane, zero outside the buffer, loaded ``lead`` steps before it is
    # shared (its latency hidden behind a step)
    buf = [x + form.out_offsets[d] for d, x in enumerate([loading, *coords(0)[1:]])]
    in_buffer = _and([f for f in (inner_buf, plane_buf) if f is not None])
    if geo.copy == "async":
        # the copies over the owned points by a loop of their own (inames c), all before the
        # step's other work (as in the hand-written form)
        for d in inner:
            domains.append(f"{{[{v}c{d}]: 0 <= {v}c{d} < {geo.owned[d]}}}")
        to_c = SubstitutionMapper(make_subst_func({f"{v}q{d}": var(f"{v}c{d}") for d in inner}))
        copies, copy_temps = async_copy(
            v, form, src=[to_c(b) for b in buf], ok=to_c(in_buffer),
            dst=to_c(at(0, 0, (lead, *[0] * (n - 1)))),
            dst_shape=(geo.input_ring, *geo.loaded[1:]), depends_on=after,
            within=hw | steps | {f"{v}c{d}" for d in inner}, steps=steps | hw,
            run=preds(runs[-1]))
        insns += copies
        temps += copy_temps
        # level 0's registers are read from the ring, where the copy landed ``lead`` steps ago
        # after the step's commit: every copy of the step issued first (as in the hand-written
        # form), no dependency on the ring itself (that would make loopy add a barrier)
        insns.append(lp.Assignment(
            mine(0, 0), at(0, 0), id=f"{v}load", depends_on=after | {f"{v}copy_commit"},
            within_inames=within, predicates=preds(runs[0])))
    else:
        insns.append(lp.Assignment(
            mine(0, 0, lead), prim.If(in_buffer, var(form.input)[tuple(buf)], 0),
            id=f"{v}load", depends_on=after, within_inames=within, predicates=preds(runs[-1])))
        insns.append(lp.Assignment(
            at(0, 0), mine(0, 0), id=f"{v}share0", depends_on=after | {f"{v}load"},
            within_inames=within, predicates=preds(runs[0])))
    temporaries: list[tuple[str, str]] = []
    # a level reads the register the level below writes in the same step when the delay is no
    # more than the reach along the walked axis (``pipeline``: then its own column reaches it)
    same_step = delay <= hi0
    below_last = f"{v}load"  # the instruction that writes the level below's register
    for s in range(1, k + 1):
        x = coords(s)
        inside = [f for f in (inner_in, plane_in[s]) if f is not None]
        if s < k:
            result = mine(s, s)
        else:
            result = var(form.output)[tuple(x[d] + form.out_offsets[d] for d in range(n))]
        named: dict[str, str] = {}

        def below(off: tuple[Any, ...], s: int = s) -> Any:
            if all(isinstance(o, int) for o in off) and not any(off[1:]):
                return mine(s - 1, s, off[0])  # the own column: a register
            return at(s - 1, s, off)

        def register(name: str, x: list[Any] = x) -> Any:
            return var(name)[tuple(x[d] + form.registers[name][d] for d in range(n))]

        update, last = place_update(
            form, prefix=f"{v}s{s}_", coords={form.inames[d]: x[d] for d in range(n)},
            read_input=below, read_register=register, result=result, within=within,
            predicates=preds(runs[s], lives[s]),
            depends_on=after | ({below_last} if same_step else set()),
            temporaries=named)
        temporaries += named.items()
        for insn in update:
            if insn.id == last and s < k:
                # outside the interior the level below's value (the boundary) carries over:
                # one assignment, no second instruction under the negated condition
                insn = insn.copy(expression=prim.If(_and(inside), insn.expression,
                                                    mine(s - 1, s)))
            elif insn.id == last or insn.read_dependency_names() & set(knl.arg_dict):
                insn = insn.copy(predicates=insn.predicates | frozenset(inside))
            insns.append(insn)
        if s < k:  # the new plane, shared with the neighbours
            insns.append(lp.Assignment(
                at(s, s), mine(s, s), id=f"{v}share{s}", depends_on=after | {last},
                within_inames=within, predicates=preds(runs[s], lives[s])))
        below_last = last
    # the levels of a step: in order where a level reads a register of this step, else in any;
    # never a ring plane written in this step
    if geo.copy == "async":  # the step barrier waits for the copies of ``lead − 1`` steps ago
        insns = [i.copy(depends_on=i.depends_on | {f"{v}copy_wait"})
                 if i.id == f"{v}bar_step" else i for i in insns]
        # the copy writes a ring slot no instruction of its step touches (the step barrier
        # orders it): loopy is told not to sync it with them
        insns = [i.copy(no_sync_with=i.no_sync_with | {(f"{v}copy", "any")})
                 if i.id != f"{v}copy" else i for i in insns]
    t = blocked_kernel(knl, domains, insns, args, temps, temporaries)
    if geo.copy == "async":
        entry = t.default_entrypoint
        t = t.with_kernel(entry.copy(preambles=(
            *entry.preambles, ("90_gencl_async_copy",
                               async_copy_preamble(form.itemsize, geo.lead)))))
    # levels of one step touch different planes of a ring; a plane written at one step is read
    # at later ones, after the step barrier: an order loopy's check cannot see across steps
    t = lp.set_options(t, enforce_variable_access_ordered="no_check")
    # the global reads are guarded by flags computed ahead (the conditions hoisted out of the
    # step loop), which loopy's bounds check does not follow; the tests read NaN pads
    t = lp.set_options(t, enforce_array_accesses_within_bounds="no_check")
    t = lp.tag_inames(t, hardware_tags(geo, v))
    t = lp.tag_inames(t, {f"{v}{c}{d}": "unr" for d in inner
                          for c in ("qhc" if geo.copy == "async" else "qh")})
    t = lp.tag_inames(t, {f"{v}ti": "unr"})
    return lp.prioritize_loops(t, ",".join([f"{v}to", f"{v}ti"] +
                                           [f"{v}q{d}" for d in inner]))


def async_copy_preamble(itemsize: int, lead: int) -> str:
    """``GENCL_COPY(ring, at, base, index, ok)``: *base*[*index*] (zero where not *ok*) into
    *ring*[*at*] (``__local``); ``GENCL_COPY_COMMIT()`` closes a step's copies,
    ``GENCL_COPY_WAIT()`` waits for those of ``lead − 1`` steps ago. ``cp.async`` where the
    compiler is NVIDIA's (its extension macro ``cl_nv_pragma_unroll``), a plain load and store
    elsewhere.

    The shared address is the ring's 32-bit address plus the byte offset, not the element's
    pointer cast to 32 bits: cast per element, NVVM hoists one 32-bit address per (slot, point)
    out of the step loop (8 registers for laplace3d's 1×2 points, 4 slots), where a 32-bit sum
    leaves ptxas an immediate offset per slot (H200: 54 → 48 registers at 1×2×171, 246 → 235 µs
    per sweep at 1×3×128, no spills)."""
    return f"""#ifdef cl_nv_pragma_unroll
#define GENCL_COPY(ring, at, base, index, ok) asm volatile( \
    "cp.async.ca.shared.global [%0], [%1], {itemsize}, %2;" :: \
    "r"((uint) (size_t) (ring) + {itemsize}u * (uint) (at)), \
    "l"((ok) ? (base) + (index) : (base)), "r"((ok) ? {itemsize} : 0) : "memory")
#define GENCL_COPY_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define GENCL_COPY_WAIT() asm volatile("cp.async.wait_group {lead - 1};" ::: "memory")
#else
#define GENCL_COPY(ring, at, base, index, ok) ((ring)[at] = (ok) ? (base)[index] : 0)
#define GENCL_COPY_COMMIT()
#define GENCL_COPY_WAIT()
#endif"""


def _flat(index: Sequence[Any], strides: Sequence[Any]) -> Any:
    """The linear offset of *index* at *strides* (elements)."""
    terms = [i if st == 1 else i * st for i, st in zip(index, strides)]
    return prim.Sum(tuple(terms)) if len(terms) > 1 else terms[0]


def async_copy(v: str, form: TemporalForm, *, src: Sequence[Any], ok: Any, dst: Any,
               dst_shape: Sequence[int], depends_on: frozenset[str], within: frozenset[str],
               steps: frozenset[str], run: frozenset[Any]) -> tuple[list[Any], list[Any]]:
    """The copy of one owned point's input into level 0's ring (C code: loopy has no
    instruction for it; its offsets and condition in private scalars assigned just before it),
    the step's commit after its copies, and the wait before the next step's barrier.
    Returns (instructions, temporaries)."""
    strides = [tag.stride for tag in form.kernel.arg_dict[form.input].dim_tags]
    dst_strides = [int(np.prod(dst_shape[d + 1:])) for d in range(len(dst_shape))]
    names = {"dst": f"{v}cp_dst", "src": f"{v}cp_src", "ok": f"{v}cp_ok"}
    values = {"dst": _flat(dst.index_tuple, dst_strides), "src": _flat(list(src), strides),
              "ok": 1 if ok is True else ok}
    temps = [lp.TemporaryVariable(name, np.int32, shape=(),
                                  address_space=lp.AddressSpace.PRIVATE)
             for name in names.values()]
    insns: list[Any] = [
        lp.Assignment(prim.Variable(names[key]), values[key], id=names[key],
                      depends_on=depends_on, within_inames=within, predicates=run)
        for key in names]
    insns.append(lp.CInstruction(
        (), f"GENCL_COPY({dst.aggregate.name}, {names['dst']}, {form.input}, {names['src']}, "
        f"{names['ok']});", read_variables=frozenset({form.input, *names.values()}),
        assignees=(dst,), id=f"{v}copy", depends_on=frozenset(names.values()),
        within_inames=within, predicates=run))
    insns.append(lp.CInstruction((), "GENCL_COPY_COMMIT();", id=f"{v}copy_commit",
                                 depends_on=frozenset({f"{v}copy"}), within_inames=steps))
    insns.append(lp.CInstruction((), "GENCL_COPY_WAIT();", id=f"{v}copy_wait",
                                 within_inames=steps))
    return insns, temps

