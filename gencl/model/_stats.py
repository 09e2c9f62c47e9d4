"""Loopy statistics of one variant, post-processed into per-launch counts the model can use.

loopy's counters need care (see shared/notes/loopy.md): op counts are per sub-group (multiplied
back by its size here), vector lanes are counted one by one (kept: throughput is per lane, the
access *granularity* comes from the array's vec axis), predicates are ignored (both branches are
counted; divergence is estimated separately from the predicates of the instructions), and memory
entries count accesses, not DRAM traffic (the model turns them into traffic with the footprint).
Counting is slow, so the evaluated statistics are cached on disk per variant id and sizes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gencl._json import dumps_json

# (28 and 29 were offline trials' versions, 32 to 34 earlier forms of the gather counts (no count
# of the groups sampled; no runs of groups; no reason where not counted): their cached
# statistics may linger in a cache; 36: the compiler's unrolled loops in the item trace but not
# yet in the register walk's load lanes; 38: reloaded stores counted in kept loops' passes only;
# 39: a sub-group's lines counted in the ragged second of two work-groups along an axis; 41: a
# sub-group's lines counted alone, not as its work-group's share; 42: every variant's
# subgroup_lines counted, gaps or not; 44: the loops an item's code keeps, extra["kept_loops"];
# 45: a square counted as the multiplication its code does, not a pow; 46: a scalar array
# read in vector code at an index free of the lanes counted once an instruction, not a lane)
STATS_VERSION = "46"


@dataclass(frozen=True)
class Access:
    """One memory access site (array, direction) with its count of lane accesses per launch."""

    array: str
    space: str            # "global" | "local"
    direction: str        # "load" | "store"
    itemsize: int
    vec_width: int        # lanes moved by one instruction (the array's vec axis)
    count: float          # lane accesses per launch
    lid0_stride: float | None  # elements between neighbouring work items; None: not affine
    per_lane: bool = False     # a vector access loopy emitted lane by lane (_per_lane_insns):
    #                            each lane is its own instruction on the vector's chunk
    lane_vectors: bool = False  # the whole vectors the lanes of lane-by-lane instructions
    #                             reach (_lane_vector_loads): each counted once already
    gather: bool = False  # a load whose index the data gives (x[col[k]]): its lines and
    #                       sectors come from the data (extra["gathers"], gencl.model._gathers)

    @property
    def bytes(self) -> float:
        return self.count * self.itemsize

    @property
    def instruction_bytes(self) -> int:
        """Bytes one work item's instruction of this site moves: the whole vector, or one lane
        where the access is emitted lane by lane."""
        return self.itemsize * (1 if self.per_lane else self.vec_width)

    @property
    def leaves_gaps(self) -> bool:
        """A whole-vector global access whose neighbouring lanes lie further apart than the
        vector it moves: each instruction touches lines it uses only part of."""
        return self.space == "global" and not self.per_lane and self.lid0_stride is not None \
            and abs(self.lid0_stride) > self.vec_width


@dataclass(frozen=True)
class KernelStats:
    """Per-launch statistics of a variant at given sizes."""

    work_items: int
    group_size: int
    groups: int
    ops: dict[str, float]          # "float32:add" -> lane operations per launch
    accesses: tuple[Access, ...]
    footprint: dict[str, float]    # global array -> bytes of the whole array
    barriers_per_item: float
    divergent_fraction: float      # share of instructions under work-item-dependent predicates
    static_local_bytes: int = 0
    local_size: tuple[int, ...] = ()   # work-group shape, axis 0 first
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KernelStats:
        d = dict(data)
        d["accesses"] = tuple(Access(**a) for a in d["accesses"])
        d["local_size"] = tuple(d.get("local_size", ()))
        return cls(**d)


def _value(expr: Any, env: Mapping[str, int]) -> float:
    import pymbolic

    if isinstance(expr, int | float | np.integer | np.floating):
        return float(expr)
    return float(pymbolic.evaluate(expr, dict(env)))


def _count(poly: Any, env: Mapping[str, int]) -> float:
    return float(poly.eval_with_dict(dict(env)))


def _vec_width(arg: Any, env: Mapping[str, int]) -> int:
    import loopy as lp

    for tag, extent in zip(arg.dim_tags or (), arg.shape or ()):
        if isinstance(tag, lp.kernel.array.VectorArrayDimTag):
            return int(_value(extent, env))
    return 1


def _vector_inames(knl: Any) -> set[str]:
    """The inames tagged ``vec`` (a vector's lanes, one instruction)."""
    import loopy as lp

    return {name for name, tags in knl.inames.items()
            if any(isinstance(t, lp.kernel.data.VectorizeTag) for t in tags.tags)}


def _element_strides(arg: Any, env: Mapping[str, int]) -> list[int]:
    """Elements between neighbours along each axis of a global array (a vector axis: 1)."""
    import loopy as lp

    return [1 if isinstance(t, lp.kernel.array.VectorArrayDimTag) else int(_value(t.stride, env))
            for t in arg.dim_tags]


def _divergent_fraction(knl: Any) -> float:
    """Share of instructions guarded by a predicate on a work-item index (data-dependent
    conditions are not counted: their outcome is unknown before a run)."""
    from pymbolic.mapper.dependency import DependencyMapper

    hw = {name for name, tags in knl.inames.items()
          if any(type(t).__name__ in ("LocalInameTag", "GroupInameTag") for t in tags.tags)}
    insns = list(knl.instructions)
    if not insns:
        return 0.0
    dep = DependencyMapper(composite_leaves=False)
    divergent = 0
    for insn in insns:
        names = set()
        for pred in insn.predicates:
            names |= {str(v) for v in dep(pred)}
        expr = getattr(insn, "expression", None)
        if expr is not None and type(expr).__name__ == "If":
            names |= {str(v) for v in dep(expr.condition)}
        if names & hw:
            divergent += 1
    return divergent / len(insns)


def _per_lane_insns(t_unit: Any) -> frozenset[str]:
    """Instructions inside a vectorized loop that loopy emits lane by lane, not as vector code.

    loopy falls back to one scalar copy per lane when an instruction cannot be vectorized: when
    its ``VectorizabilityChecker`` raises (it then warns "vectorize_failed"), when a scalar LHS
    takes a vector RHS, and — silently — when the instruction's predicates depend on the vector
    iname. The same checks are run here on the transformed program (as its code generation
    runs them, without generating code). Such an access is one instruction per lane, not one
    per vector (seed 003's branch-form vecN). NVIDIA's compiler turns each such lane access
    into a 16-byte access of the chunk holding it, and a lane store into a read-modify-write of
    that chunk (seen in the PTX of the H200 Jacobi variants).
    """
    from loopy.codegen import UnvectorizableError
    from loopy.expression import VectorizabilityChecker
    from loopy.symbolic import pw_aff_to_expr
    from pymbolic.mapper.dependency import DependencyMapper

    from gencl.generate._generate import square_products

    knl = t_unit.default_entrypoint
    dep = DependencyMapper(composite_leaves=False)
    found = set()
    for name in sorted(_vector_inames(knl)):
        length = int(pw_aff_to_expr(knl.get_iname_bounds(name).size))
        for insn in knl.instructions:
            if name not in insn.within_inames:
                continue
            if any(name in {str(v) for v in dep(p)} for p in insn.predicates):
                found.add(insn.id)
                continue
            check = VectorizabilityChecker(knl, name, length)
            try:  # on the squares as the code generator writes them (it has no rule for x**2)
                if check(square_products(insn.expression)) and not check(insn.assignee):
                    found.add(insn.id)
            except UnvectorizableError:
                found.add(insn.id)
    return frozenset(found)


def _lane_vector_loads(knl: Any, ids: frozenset[str]
                       ) -> dict[str, dict[str, tuple[int, int, tuple[str, ...]]]]:
    """Loads of lane-by-lane instructions that run as whole-vector loads: instruction id →
    array → (its subscripts of the array, the vectors they load, each of those vectors as
    ``"<lanes>:<the lanes read>"``, as ``_liveness._Walk.load_lanes`` states them).

    An instruction loopy emits lane by lane with no predicate on the vector iname (a shifted
    neighbour, ``w[k] = u[j, k - 1]``) is one run of scalar statements in one basic block.
    NVIDIA's compiler loads each vector those lanes read once, whole, and shares it with the
    vector instructions of the same loop nest that load it: the PTX of the H200 Jacobi
    variants holds only ``ld.global.nc.v4`` loads, six per float8 block of the padded form
    (centre, both neighbours, north, south, f), where one per lane would be 16 more. So its
    loads are the vectors its lanes reach that no vector instruction of its loop nest (nor an
    earlier such instruction) loads: one for a shift by less than a vector. Which vector a
    lane reaches is the subscript's other axes with the vector iname set to that lane,
    compared at random integer values of the rest (the subscripts are affine with floor
    divisions by constants). Lanes under a predicate on the vector iname (the branch form)
    are statements of their own and keep one access each.
    """
    import random

    import loopy as lp
    from loopy.kernel.array import VectorArrayDimTag
    from loopy.symbolic import pw_aff_to_expr
    from pymbolic import evaluate, substitute
    from pymbolic.mapper.dependency import DependencyMapper
    from pymbolic.primitives import Variable

    vec = sorted(_vector_inames(knl))
    if len(vec) != 1 or not ids:
        return {}
    lane_iname = vec[0]
    length = int(pw_aff_to_expr(knl.get_iname_bounds(lane_iname).size))
    axis = {}
    for arg in knl.args:
        if isinstance(arg, lp.ArrayArg) and arg.address_space == lp.AddressSpace.GLOBAL:
            tags = [i for i, t in enumerate(arg.dim_tags or ()) if isinstance(t, VectorArrayDimTag)]
            if tags:
                axis[arg.name] = tags[0]
    dep = DependencyMapper(composite_leaves=False)
    rng = random.Random(0)
    names = set(knl.all_inames()) | set(knl.all_params())
    values = [{n: rng.randrange(1 << 10, 1 << 20) for n in names} for _ in range(2)]

    def vector(name: str, index: tuple, lane: int | None = None) -> tuple:
        rest = [e for i, e in enumerate(index) if i != axis[name]]
        if lane is not None:
            rest = [substitute(e, {lane_iname: lane}) for e in rest]
        return tuple(tuple(int(evaluate(e, v)) for e in rest) for v in values)

    def position(name: str, index: tuple, lane: int) -> int:
        """The lane of its vector that lane *lane* of the instruction reads."""
        return int(evaluate(substitute(index[axis[name]], {lane_iname: lane}), values[0]))

    loaded: set[tuple] = set()
    for insn in knl.instructions:
        if insn.id in ids or lane_iname not in insn.within_inames:
            continue
        for name, index in _global_subscripts(insn.expression, axis):
            if index[axis[name]] == Variable(lane_iname):
                loaded.add((name, insn.within_inames, vector(name, index)))
    found: dict[str, dict[str, tuple[int, int, tuple[str, ...]]]] = {}
    for insn in knl.instructions:
        if insn.id not in ids or any(lane_iname in {str(v) for v in dep(p)}
                                     for p in insn.predicates):
            continue
        per: dict[str, tuple[int, int, tuple[str, ...]]] = {}
        for name, index in _global_subscripts(insn.expression, axis, every=True):
            lanes: dict[tuple, set[int]] = {}
            for lane in range(length):
                reached = (name, insn.within_inames, vector(name, index, lane))
                lanes.setdefault(reached, set()).add(position(name, index, lane))
            new = [key for key in lanes if key not in loaded]
            subscripts, vectors, patterns = per.get(name, (0, 0, ()))
            per[name] = (subscripts + 1, vectors + len(new), patterns + tuple(
                f"{length}:{','.join(map(str, sorted(lanes[key])))}" for key in new))
            loaded |= set(lanes)
        if per:
            found[insn.id] = per
    return found



#: line sizes the sub-group footprint is counted at (devices' first-level lines: 64 B on CPUs,
#: 128 B on NVIDIA; 32 B sectors)
FOOTPRINT_LINE_BYTES = (32, 64, 128)


def _global_subscripts(expr: Any, arrays: Mapping[str, Any], *,
                       every: bool = False) -> list[tuple[str, tuple]]:
    """(array, index tuple) of each distinct subscript of a global array in *expr*; with
    *every*, of each occurrence, as loopy's counters count them (loopy's walker caches what
    it visited, so a subscript an expression repeats, aniso2d's centre five times, is
    otherwise seen once)."""
    from loopy.symbolic import WalkMapper
    from pymbolic.primitives import Variable

    found: list[tuple[str, tuple]] = []

    class Subscripts(WalkMapper):
        def get_cache_key(self, e: Any, *args: Any, **kwargs: Any) -> Any:
            return object() if every else super().get_cache_key(e, *args, **kwargs)

        def map_subscript(self, e: Any, *args: Any) -> None:
            if isinstance(e.aggregate, Variable) and e.aggregate.name in arrays:
                found.append((e.aggregate.name,
                              e.index if isinstance(e.index, tuple) else (e.index,)))
            super().map_subscript(e, *args)

    Subscripts()(expr)
    return found


def _broadcast_lanes(knl: Any, per_lane: frozenset[str]) -> dict[str, int]:
    """Scalar global arrays a vector-typed instruction reads at an index free of its lanes
    (``w[a, b] * u`` under a ``vec`` iname of u's width): array → the lanes loopy counts each
    read for, where the code loads it once an instruction (one scalar, broadcast). A 5 × 5
    convolution's weight array in ``float4`` items was counted four times over: 1,600 loads an
    item against 800 instructions of arithmetic, priced 2.9× its EPYC time. Only where every
    read of the array is such a read, in instructions of one lane count, none lane by lane."""
    import loopy as lp
    from loopy.symbolic import get_dependencies

    vector = _vector_inames(knl)
    arrays = {a.name: a for a in knl.args
              if isinstance(a, lp.ArrayArg) and _vec_width(a, {}) == 1} if vector else {}
    lanes: dict[str, set[int]] = {}
    for insn in knl.instructions if arrays else ():
        expression = getattr(insn, "expression", None)
        reads = _global_subscripts(expression, arrays) if expression is not None else []
        if not reads:
            continue
        own = insn.within_inames & vector
        try:
            count = int(np.prod([int(knl.get_constant_iname_length(v)) for v in own]))
        except Exception:  # noqa: BLE001 -- lanes of no constant count: left as counted
            count = 1
        count = count if insn.id not in per_lane else 1
        for name, index in reads:
            free = not (get_dependencies(index) & vector)
            lanes.setdefault(name, set()).add(count if free else 1)
    return {name: n.pop() for name, n in lanes.items() if len(n) == 1 and 1 not in n}


def _folded_powers(knl: Any) -> dict[str, tuple[int, int, int]]:
    """insn id → (squares, identities, powers) of its expression outside subscripts (what
    ``count_within_subscripts=False`` counts), where it has a power loopy's code generator does
    not emit as a call: ``x**2`` becomes ``x * x`` (a multiplication), ``x**1`` and ``x**0`` no
    operation at all. loopy's op counter calls every power ``pow``, which the model would price
    at the special functions' rate (a user's gradient magnitude, three squares a point: 494 of
    its 1,073 µs of predicted compute on the EPYC)."""
    from loopy.symbolic import WalkMapper
    from pymbolic.primitives import is_constant

    out: dict[str, tuple[int, int, int]] = {}

    class Powers(WalkMapper):
        def __init__(self) -> None:
            super().__init__()
            self.counts = [0, 0, 0]

        def map_subscript(self, e: Any, *args: Any) -> None:
            pass  # an index's arithmetic is not counted (count_within_subscripts=False)

        def map_power(self, e: Any, *args: Any) -> None:
            self.counts[2] += 1
            if is_constant(e.exponent) and e.exponent == 2:
                self.counts[0] += 1
            elif is_constant(e.exponent) and e.exponent in (0, 1):
                self.counts[1] += 1
            self.rec(e.base, *args)
            self.rec(e.exponent, *args)

    for insn in knl.instructions:
        expression = getattr(insn, "expression", None)
        if expression is None:
            continue
        walk = Powers()
        walk(expression)
        if walk.counts[0] or walk.counts[1]:
            out[insn.id] = (walk.counts[0], walk.counts[1], walk.counts[2])
    return out


def _group_lanes(knl: Any, local_size: tuple[int, ...], groups_per_axis: tuple[int, ...]
                 ) -> dict[str, tuple[int, int]]:
    """iname → [lo, hi] of every local id of an interior work-group: group 1 along every axis
    that has more than two, group 0 along one that has two (the second of two is the ragged one
    where the groups overhang the domain: branch-form Jacobi's 8,194 columns in 8,192-wide
    groups leave it two columns, and its sub-groups would count the lines of those alone)."""
    ranges = {}
    for name, tags in knl.inames.items():
        for t in tags.tags:
            kind = type(t).__name__
            if kind == "LocalInameTag" and int(t.axis) < len(local_size):
                ranges[name] = (0, int(local_size[int(t.axis)]) - 1)
            elif kind == "GroupInameTag":
                axis = int(t.axis)
                g = 1 if axis < len(groups_per_axis) and groups_per_axis[axis] > 2 else 0
                ranges[name] = (g, g)
    return ranges


def _fixed_domain(knl: Any, insn: Any, env: Mapping[str, int]) -> Any:
    """The isl domain of *insn*'s inames with the parameters *env* gives fixed."""
    import islpy as isl

    domain = knl.get_inames_domain(insn.within_inames)
    for i in range(domain.dim(isl.dim_type.param)):
        name = domain.get_dim_name(isl.dim_type.param, i)
        if name in env:
            domain = domain.fix_val(isl.dim_type.param, i, int(env[name]))
    return domain


def global_arrays(knl: Any) -> dict[str, Any]:
    """The kernel's global array arguments by name."""
    import loopy as lp

    return {a.name: a for a in knl.args
            if isinstance(a, lp.ArrayArg) and a.address_space == lp.AddressSpace.GLOBAL}


def hardware_inames(knl: Any) -> dict[str, tuple[bool, int]]:
    """iname → (is a group iname, axis) of the inames tagged to a local or group axis."""
    hw: dict[str, tuple[bool, int]] = {}
    for name, tags in knl.inames.items():
        for t in tags.tags:
            kind = type(t).__name__
            if kind in ("LocalInameTag", "GroupInameTag"):
                hw[name] = (kind == "GroupInameTag", int(t.axis))
    return hw


def _instruction_domain(knl: Any, insn: Any, env: Mapping[str, int]) -> tuple[Any, list[str]]:
    """*insn*'s own domain (``_fixed_domain``, the inames it does not run in projected out) and
    its dimensions' names."""
    import islpy as isl

    domain = _fixed_domain(knl, insn, env)
    for i in reversed(range(domain.dim(isl.dim_type.set))):
        if domain.get_dim_name(isl.dim_type.set, i) not in insn.within_inames:
            domain = domain.project_out(isl.dim_type.set, i, 1)
    return domain, [domain.get_dim_name(isl.dim_type.set, i)
                    for i in range(domain.dim(isl.dim_type.set))]


def _subgroup_footprint(knl: Any, ids: frozenset[str], env: Mapping[str, int],
                        local_size: tuple[int, ...], groups_per_axis: tuple[int, ...],
                        subgroup_size: int, nest: tuple[str, ...] = ()) -> dict[str, float]:
    """Distinct lines (per ``FOOTPRINT_LINE_BYTES``) a sub-group holds in global memory
    through the instructions *ids* (its lane-by-lane ones; all) in one pass of the loops around
    them: the lines of a whole work-group over its sub-groups. The sub-groups of one group run
    on one compute unit at once and share its first level, so a row two of them read (the
    row below one sub-group is the row above the next in a 32 × 4 group) is held once: Jacobi's
    branch-form ``float4`` rows of two vectors an item hold 43 lines a sub-group alone, 30 a
    sub-group of a 32 × 4 group and 41 of a 128 × 1 one, whose sub-groups share no row (those
    measure 688 and 842 µs on the H200).

    A lane-by-lane vector access reads a chunk once per lane in successive instructions, and
    a register-blocked row whose lanes lie more than a vector apart leaves gaps the next
    block's instruction fills, so the lines of one pass (one blocked row or column: every
    sequential iname but the vector's at its first value) are requested again; whether they
    are still in the first-level cache then depends on how many lines the resident sub-groups
    hold (gencl.model._cache_reuse). Counted exactly with isl on an interior work-group
    (predicates ignored); {} where an access is not affine.

    With *nest* (the sequential inames in the order the code enters them, outermost first) the
    pass is one iteration of the loop whose next iteration fills the gaps: an instruction's
    gap-filling iname moves one of its accesses by less than the step between neighbouring
    lanes (a register-blocked column), and the loops the code nests inside it (blocked rows
    under a blocked column: loopy puts the column unroll outside the row unroll of the vector
    Jacobi) run whole before the gaps are filled, so their lines count too. Where the
    gap-filling loop is the innermost (the one-wide Jacobi's column unroll sits inside its row
    unroll) the pass is the same as without *nest*."""
    import islpy as isl
    from loopy.symbolic import get_access_map

    arrays = global_arrays(knl)
    order = {name: k for k, name in enumerate(sorted(arrays))}
    lanes = _group_lanes(knl, local_size, groups_per_axis)
    group = int(np.prod(local_size))
    subgroups = -(-group // max(1, min(subgroup_size, group)))
    # every other iname stays at its first value: one pass
    walked = set(lanes) | _vector_inames(knl)
    lane0 = next((n for n, t in knl.inames.items() if n in lanes and any(
        type(x).__name__ == "LocalInameTag" and int(x.axis) == 0 for x in t.tags)), None)
    offsets: set[int] = set()
    try:
        for insn in knl.instructions:
            if insn.id not in ids:
                continue
            subs = _global_subscripts(insn.expression, arrays)
            subs += _global_subscripts(insn.assignee, arrays)
            if not subs:
                continue
            domain = _fixed_domain(knl, insn, env)
            for i in range(domain.dim(isl.dim_type.set)):
                name = domain.get_dim_name(isl.dim_type.set, i)
                if name in lanes:
                    lo, hi = lanes[name]
                    domain = domain.lower_bound_val(isl.dim_type.set, i, lo) \
                        .upper_bound_val(isl.dim_type.set, i, hi)
            # one pass of the sequential loops around the lanes: the lines reused from lane to
            # lane are those of one iteration (a blocked row, a blocked column), not all of them
            first = domain.lexmin()
            walk = walked | _nested_in_gap_loop(insn, subs, arrays, domain, first, env, lane0,
                                                nest)
            for i in range(domain.dim(isl.dim_type.set)):
                if domain.get_dim_name(isl.dim_type.set, i) not in walk:
                    domain = domain.fix_val(isl.dim_type.set, i, first.dim_min_val(i))
            for name, index in subs:
                arg = arrays[name]
                strides = _element_strides(arg, env)
                size = np.dtype(arg.dtype.numpy_dtype).itemsize
                base = order[name] << 48  # arrays never share lines
                touched = get_access_map(domain, index).range().project_out_all_params()

                def add(point: Any, strides: list[int] = strides, size: int = size,
                        base: int = base) -> None:
                    idx = [point.get_coordinate_val(isl.dim_type.set, k).to_python()
                           for k in range(len(strides))]
                    offsets.add(base + size * sum(i * s for i, s in zip(idx, strides)))

                touched.foreach_point(add)
    except Exception:  # noqa: BLE001 -- not affine, or an index isl cannot state: no figure
        return {}
    return {str(line): len({o // line for o in offsets}) / subgroups
            for line in FOOTPRINT_LINE_BYTES}


def _nested_in_gap_loop(insn: Any, subs: list[tuple[str, tuple]], arrays: Mapping[str, Any],
                        domain: Any, first: Any, env: Mapping[str, int], lane0: str | None,
                        nest: tuple[str, ...]) -> set[str]:
    """The sequential inames *insn* runs nested inside its outermost gap-filling loop (see
    ``_subgroup_footprint``; *first*: the domain's lexmin, *lane0*: the iname of local axis 0):
    empty where none of its accesses leaves gaps. A step is the change of an access's element
    offset when one iname goes one past its first value."""
    import islpy as isl

    names = [domain.get_dim_name(isl.dim_type.set, i) for i in range(domain.dim(isl.dim_type.set))]
    at = {n: first.dim_min_val(i).to_python() for i, n in enumerate(names)}
    inner = [n for n in nest if n in insn.within_inames and n in at]
    if lane0 is None or not inner:
        return set()
    try:
        gap = _gap_iname(subs, arrays, env, at, lane0, inner)
    except Exception:  # noqa: BLE001 -- an index pymbolic cannot evaluate: one pass as before
        return set()
    return set(inner[inner.index(gap) + 1:]) if gap is not None else set()


def _gap_iname(subs: list[tuple[str, tuple]], arrays: Mapping[str, Any], env: Mapping[str, int],
               at: Mapping[str, int], lane0: str, inner: list[str]) -> str | None:
    """The outermost of *inner* that moves an access of *subs* by less than the lane step."""
    from pymbolic import evaluate

    def offset(name: str, index: tuple, values: Mapping[str, int]) -> int:
        point = {**env, **values}
        return sum(int(evaluate(e, point)) * s
                   for e, s in zip(index, _element_strides(arrays[name], env)))

    def step(name: str, index: tuple, iname: str) -> int:
        return abs(offset(name, index, {**at, iname: at[iname] + 1}) - offset(name, index, at))

    for name, index in subs:
        lane_step = step(name, index, lane0)
        gap = next((n for n in inner if 0 < step(name, index, n) < lane_step), None)
        if gap is not None:
            return gap
    return None


def _points(bset: Any) -> list[list[int]]:
    """The integer points of an isl set, as coordinate lists."""
    import islpy as isl

    points: list[list[int]] = []
    n = bset.dim(isl.dim_type.set)
    whole = bset.to_set() if hasattr(bset, "to_set") else bset  # islpy 2026 drops the implicit
    whole.foreach_point(lambda p: points.append(
        [p.get_coordinate_val(isl.dim_type.set, j).to_python() for j in range(n)]))
    return points


def _item_extents(domains: list[tuple[Any, list[str]]], hw: Mapping[str, tuple[bool, int]],
                  groups_per_axis: tuple[int, ...], local_size: tuple[int, ...]) -> list[int]:
    """Items along each axis that run an instruction, from the instructions' (domain, its
    dimension names) (the launched grid rounds up to whole work-groups: an item past the
    array's edge reads nothing, and a neighbour that far along a row is no neighbour)."""
    import islpy as isl

    extents = [0] * len(local_size)
    for domain, names in domains:
        for d in range(len(local_size)):
            keep = [n for n in names if n in hw and hw[n][1] == d]
            if not keep:
                continue
            axis = domain
            for i in reversed(range(len(names))):
                if names[i] not in keep:
                    axis = axis.project_out(isl.dim_type.set, i, 1)
            extents[d] = max(extents[d], int(axis.count_val().to_python()))
    return [e or g * n for e, g, n in zip(extents, groups_per_axis, local_size)]


#: one access of a work item's trace: (order key: the iteration of every loop around it, then
#: the instruction and its access, array, byte offset, is a load, the iteration of the loops the
#: code keeps, the instruction's conditions with the values of the inames they name, how often
#: the instruction names that subscript)
TraceRow = tuple[tuple, str, int, bool, tuple, tuple, int]


#: one run of an instruction: its place in the linearized kernel, the instruction, the loops
#: around it (place entered, iname), outermost first
InstructionRun = tuple[int, Any, tuple[tuple[int, str], ...]]


def _instruction_runs(lin: Any, vector: set[str]) -> list[InstructionRun]:
    """Each run of an assignment in *lin*'s linearized order: (its place, the instruction, the
    loops around it, outermost first, as (place entered, iname)); a loop's place tells sibling
    loops of one iname apart, and a *vector* iname is no loop (its lanes are one position)."""
    runs: list[InstructionRun] = []
    stack: list[tuple[int, str]] = []
    insns = {i.id: i for i in lin.instructions}
    for k, item in enumerate(lin.linearization):
        kind = type(item).__name__
        if kind == "EnterLoop" and item.iname not in vector:
            stack.append((k, item.iname))
        elif kind == "LeaveLoop" and item.iname not in vector:
            stack.pop()
        elif kind == "RunInstruction" and hasattr(insns[item.insn_id], "expression"):
            runs.append((k, insns[item.insn_id], tuple(stack)))
    return runs


#: the most iterations of a loop with constant bounds that the OpenCL compilers are taken to
#: unroll whole although loopy keeps it a loop (LLVM's full unroll of a small known trip count:
#: star3d_r4's 4-step radius loop, kept, times and uses registers as unrolled on the H200 and
#: the H100; spmv_ell's 8-slot loop as well). Larger constant loops are not assumed unrolled.
FULL_UNROLL_MAX_TRIPS = 8


def _constant_trips(knl: Any, name: str) -> int | None:
    """Iterations of the loop over *name* where its bounds are constants in the code (every
    constraint of its domain that names it names nothing else: no parameter, no other iname);
    None otherwise."""
    import islpy as isl

    domain = knl.get_inames_domain(frozenset([name]))
    pieces = [domain] if isinstance(domain, isl.BasicSet) else domain.get_basic_sets()
    for piece in pieces:
        for c in piece.get_constraints():
            named = {k for k, v in c.get_coefficients_by_name().items()
                     if k != 1 and not v.is_zero()}
            if name in named and len(named) > 1:
                return None
    size = knl.get_iname_bounds(name).size
    if size.n_piece() != 1 or not size.is_cst():
        return None
    return int(size.get_pieces()[0][1].get_constant_val().to_python())


def unrolled_inames(lin: Any, vector: set[str],
                    runs: list[InstructionRun] | None = None) -> set[str]:
    """The inames whose loops the compiled code unrolls: those loopy tags ``unr``/``ilp.unr``,
    and each innermost loop loopy keeps whose bounds are constants and whose trip count is at
    most ``FULL_UNROLL_MAX_TRIPS`` (the compiler unrolls it: its iterations' loads issue
    together, one load round, not one a pass). Innermost: no loop the code keeps runs inside
    it (a fetch loop of constant length around loops with run-time bounds stays a loop).
    *runs*: ``_instruction_runs(lin, vector)`` where the caller has them already."""
    tagged = {name for name, tags in lin.inames.items()
              if any("Unroll" in type(t).__name__ for t in tags.tags)}
    hw = hardware_inames(lin)
    kept = set(lin.all_inames()) - tagged - vector - set(hw)
    outer: set[str] = set()  # kept loops with a kept loop inside
    for _, _, loops in runs if runs is not None else _instruction_runs(lin, vector):
        names = [n for _, n in loops if n in kept]
        outer.update(names[:-1])
    small = {n for n in kept - outer
             if (trips := _constant_trips(lin, n)) is not None
             and trips <= FULL_UNROLL_MAX_TRIPS}
    return tagged | small


def _rounds(keys: list[tuple]) -> int:
    """Rounds of a sequence of loads' round keys in program order: a new one wherever the key
    changes."""
    return int(bool(keys)) + sum(a != b for a, b in zip(keys, keys[1:]))


def _load_rounds(trace: list[TraceRow]) -> int:
    """Load rounds of a trace in program order: a new one wherever the next load is in another
    iteration of the kept loops than the last (the code's straight-line stretches between
    them are one round each)."""
    return _rounds([row[4] for row in trace if row[3]])


#: the blocks an unrolled copy of a loop of t passes runs: ptxas unrolls a tile's fetch loop
#: (global loads copied into local memory; a loop of run-time bounds loopy keeps) by four and
#: ends it with a block of two passes and one of one, each block's loads issued before its
#: stores (SASS of Jacobi's local tiles, H200, driver 580.159.04, CUDA 13.0's ptxas)
FETCH_UNROLL = 4


def _fetch_blocks(passes: int) -> list[tuple[str, int]]:
    """The unrolled blocks a fetch loop of *passes* iterations runs, in order: a block of
    ``FETCH_UNROLL`` passes while that many are left, then one of two, then one of one."""
    blocks = [("whole", j) for j in range(passes // FETCH_UNROLL)]
    rest = passes % FETCH_UNROLL
    return blocks + ([("pair", 0)] if rest >= 2 else []) + ([("single", 0)] if rest % 2 else [])


def _in_local_memory(var: Any) -> bool:
    """Whether a kernel argument or temporary lives in local memory: a static tile is a
    temporary, a dynamic one (``__local`` argument) an argument loopy counts as global."""
    import loopy as lp

    return getattr(var, "address_space", None) == lp.AddressSpace.LOCAL


def _copies_into_local(lin: Any, insn: Any, arrays: Mapping[str, Any]) -> bool:
    """Whether *insn* stores a global array's element into local memory (a tile's fetch)."""
    from loopy.symbolic import get_dependencies

    name = insn.assignee_var_names()[0]
    target = lin.temporary_variables.get(name) or lin.arg_dict.get(name)
    return _in_local_memory(target) and bool(get_dependencies(insn.expression) & set(arrays))


def _fetch_unrolled_rounds(traces: Sequence[list[TraceRow]], fetch_runs: set[int]) -> int:
    """Load rounds of a work-group's slowest sub-group where the compiler unrolls its tile's
    fetch loops (``_fetch_blocks``): outside them as ``_load_rounds`` counts (the largest of
    *traces*' items), and in each pass of the loops around a fetch loop one round a block that
    any of the items runs. The items stand for the sub-group's lanes (its first, which takes a
    tile's extra columns, and its last along the row, which does not): lanes that run
    different blocks (three passes where the others run two: a pair, then a single pass) run
    them one after the other.
    *fetch_runs*: the instruction runs (``TraceRow`` order key's second last entry) that copy a
    global load into local memory inside the innermost loop the code keeps."""
    outside = 0
    union: dict[tuple, set[tuple[str, int]]] = {}
    for trace in traces:
        keys: list[tuple] = []
        passes: dict[tuple, set[int]] = {}
        for row in trace:
            if not row[3]:
                continue
            if row[0][-2] in fetch_runs and row[4]:
                outer, inner = row[4][:-1], row[4][-1]
                passes.setdefault(outer, set()).add(inner)
                keys.append(outer + ("fetch",))
            else:
                keys.append(row[4])
        outside = max(outside, _rounds(keys) - len(passes))
        for outer, inner in passes.items():
            union.setdefault(outer, set()).update(_fetch_blocks(len(inner)))
    return outside + sum(len(blocks) for blocks in union.values())


def _chained_load_rounds(lin: Any, env: Mapping[str, int]) -> int:
    """Load rounds of a work item whose loads wait for one another's data: 0 where no global
    load's subscript reads a value a global load gave in an earlier pass of its loop (a chase,
    ``idx = nxt[idx]``), nor in straight-line code outside every loop the code keeps.

    A chase cannot issue a step before the last one returned, however the compiler unrolls or
    reorders the loop: each pass of the loops the code keeps around it (and each copy an
    unrolled loop around them makes) is a round, and one more for each load in the same pass
    its address waits for; loop nests one after another add. A gather whose index a load of
    the same pass gives (``x[col[k]]``) is not counted: its passes do not wait for one another,
    so the compiler may overlap them (NVIDIA's does: spmv_ell's 8-slot loop measures the same
    kept as unrolled) and Little's law prices it with the other loads. The item trace counts
    rounds of affine loads only (``_load_rounds``): an index read from memory has no access
    map, and there the trace is None."""
    import islpy as isl
    from loopy.symbolic import get_dependencies

    arrays = global_arrays(lin)
    kept: set[str] = set()    # sequential loops in the code (not unrolled copies)
    vector: set[str] = set()
    for name, tags in lin.inames.items():
        kinds = {type(t).__name__ for t in tags.tags}
        if "VectorizeTag" in kinds:
            vector.add(name)
        elif not kinds & {"LocalInameTag", "GroupInameTag"} \
                and not any("Unroll" in k for k in kinds):
            kept.add(name)
    runs = _instruction_runs(lin, vector)
    order = {insn.id: k for k, insn, _ in runs}

    def nest(loops: tuple[tuple[int, str], ...]) -> tuple[tuple[int, str], ...]:
        """The loops whose every iteration is a pass of its own: up to the innermost kept one
        (unrolled loops inside it are copies within one pass)."""
        kept_at = [i for i, (_, name) in enumerate(loops) if name in kept]
        return loops[:kept_at[-1] + 1] if kept_at else ()

    writers: dict[str, list[Any]] = {}
    for _, insn, _ in runs:
        for name in insn.assignee_var_names():
            if name not in arrays:
                writers.setdefault(name, []).append(insn)
    nests = {insn.id: nest(loops) for _, insn, loops in runs}
    depth: dict[str, int] = {}   # instruction → depth of the value it writes (0: no load)

    def deepest(insn: Any, names: set[str]) -> tuple[int, bool]:
        """The deepest load depth among *names*' writers earlier in *insn*'s pass, and whether
        a load of the same loops gave one in the pass before (*insn* itself included: a
        loop-carried chain)."""
        best, carried = 0, False
        for name in names:
            for w in writers.get(name, ()):
                if nests[w.id] != nests[insn.id]:
                    continue  # written before or after these loops: no wait in a pass
                if order[w.id] < order[insn.id]:
                    best = max(best, depth.get(w.id, 0))
                elif nests[insn.id]:
                    carried = carried or bool(_global_subscripts(w.expression, arrays))
        return best, carried

    chained: dict[str, int] = {}  # load instruction → its depth, where it waits for one
    for _, insn, _ in runs:  # program order: a writer later in the order is the last pass's
        subscripts = _global_subscripts(insn.expression, arrays)
        index_reads = set().union(*(get_dependencies(i) for _, i in subscripts)) \
            if subscripts else set()
        index_depth, carried = deepest(insn, index_reads)
        # a subscript read from memory in the same expression (x[col[k]]): its load first
        index_depth = max(index_depth, max((_nested_load_depth(i, arrays)
                                            for _, i in subscripts), default=0))
        if subscripts and (carried or (not nests[insn.id] and index_depth)):
            chained[insn.id] = index_depth + 1
        value_depth, _ = deepest(insn, get_dependencies(insn.expression) - index_reads)
        depth[insn.id] = max(value_depth, index_depth + 1 if subscripts else index_depth)
    greatest: dict[tuple[tuple[int, str], ...], int] = {}
    passes: dict[tuple[tuple[int, str], ...], int] = {}
    for _, insn, _ in runs:
        if insn.id not in chained:
            continue
        loops = nests[insn.id]
        greatest[loops] = max(greatest.get(loops, 0), chained[insn.id])
        if loops not in passes:
            counted = {name for _, name in loops}
            domain = _fixed_domain(lin, insn, env)
            for i in reversed(range(domain.dim(isl.dim_type.set))):
                if domain.get_dim_name(isl.dim_type.set, i) not in counted:
                    domain = domain.project_out(isl.dim_type.set, i, 1)
            passes[loops] = int(domain.count_val().to_python()) if counted else 1
    return sum(passes[loops] * d for loops, d in greatest.items())


def _nested_load_depth(index: tuple, arrays: Mapping[str, Any]) -> int:
    """Global loads one after another inside *index* (``col[k]`` in ``x[col[k]]``: 1)."""
    return max((1 + _nested_load_depth(i, arrays) for _, i in _global_subscripts(index, arrays)),
               default=0)


def _issued_load_share(trace: list[TraceRow]) -> dict[str, float]:
    """Per array, the share of an item's loads the compiler issues: a load of an address
    another instruction loaded in the same iteration of the loops the code keeps, under the
    same conditions, is a register's value again (a ``__restrict__`` array the kernel does not
    store to: the vector stencils load a neighbour column once for each use, and a blocked
    row's neighbour is the next copy's own row: the SASS of the H200 suite loads laplace3d's,
    box3d27's and Jacobi's rows blocked by two once each). Loads under other conditions stay
    (the branch form's, each under its own element's interior test: a compiler does not move a
    load out of its condition). loopy counts every one, also each time one expression repeats
    a subscript. Rows of no count (the lane-by-lane instructions, whose loads
    ``_lane_vector_loads`` already counts once a vector) are left out."""
    stored = {row[1] for row in trace if not row[3]}
    seen: dict[str, set[tuple[tuple, tuple, int]]] = {}
    total: dict[str, int] = {}
    for _, arr, offset, load, rolled, guard, times in trace:
        if load and times and arr not in stored:
            # rolled: the iteration of the loops the code keeps (unrolled copies are one code)
            seen.setdefault(arr, set()).add((rolled, guard, offset))
            total[arr] = total.get(arr, 0) + times
    return {arr: len(seen[arr]) / total[arr] for arr in total}


#: longest work-item trace kept (accesses): beyond it the reuse falls back to the live-set rule
MAX_TRACE_ACCESSES = 20000
# a buffer's start is aligned at least this far (OpenCL drivers place buffers on pages): the
# trace keeps each address's place within such a block, which is all a cache line's start needs
TRACE_ALIGN = 4096


def _linearized(t_unit: Any) -> Any:
    """The kernel in loopy's linearized order (loops as the code enters them)."""
    import loopy as lp

    # only the order is needed here: loopy's checks print the whole kernel before they raise
    with contextlib.redirect_stdout(io.StringIO()):
        return lp.linearize(lp.preprocess_kernel(lp.set_options(
            t_unit, enforce_array_accesses_within_bounds="no_check"))).default_entrypoint


def _loop_nest(lin: Any) -> tuple[str, ...]:
    """The sequential inames of a linearized kernel in the order the code enters them (its
    loops and unrolled loops; a vector iname is no loop)."""
    vector = _vector_inames(lin)
    entered = [item.iname for item in lin.linearization
               if type(item).__name__ == "EnterLoop" and item.iname not in vector]
    return tuple(dict.fromkeys(entered))


def _kept_loops(lin: Any) -> tuple[str, ...]:
    """The loops the code of one work item keeps (``_loop_nest`` less the unrolled ones): a CPU
    runtime's compiler vectorizes innermost loops only, so a work-group loop around one of these
    runs its items one at a time (``_vector_rate.items_as_lanes``)."""
    unrolled = {name for name, tags in lin.inames.items()
                if any("Unroll" in type(t).__name__ for t in tags.tags)}
    return tuple(name for name in _loop_nest(lin) if name not in unrolled)


def _reloaded_stores(trace: list[TraceRow]) -> dict[str, int]:
    """Per array, the item's global stores (one per instruction: a vector's lanes share one
    key) that a later load of the same array follows in program order: the next pass of a
    loop the code keeps, or a register-blocked row's in straight-line code. The compiler keeps
    that load below the store (their addresses differ by run-time sizes), and where the array's
    lines are shared between sub-groups the load waits (``store_reload``; the model's
    ``store_reload_time``)."""
    loaded: set[str] = set()  # arrays a later row loads, walking back
    counted: dict[str, set[tuple]] = {}
    for key, arr, _, load, *_ in reversed(trace):
        if load:
            loaded.add(arr)
        elif arr in loaded:
            counted.setdefault(arr, set()).add(key)
    return {arr: len(keys) for arr, keys in sorted(counted.items())}


def _item_trace(lin: Any, env: Mapping[str, int], local_size: tuple[int, ...],
                groups_per_axis: tuple[int, ...],
                lane_insns: frozenset[str] = frozenset(),
                subgroup_size: int = 32) -> dict[str, Any] | None:
    """The global accesses of one interior work item of *lin* (``_linearized``) in program
    order, for the reuse distances of ``gencl.model._cache_reuse.trace_miss_shares``.

    loopy's counts say how often an array is read, not when: a blocked row whose neighbour rows
    are read again only after a whole streamed loop (a ``block_j`` unroll around a ``stream_k``
    loop) re-reads them from DRAM, the same reads in one pass hit the cache. The order is the
    linearized kernel's (loops and unrolled loops as entered; a vector iname is one position);
    the points come from isl with the item's group and local ids fixed (predicates ignored, as
    loopy's counts ignore them). Each array's address is affine in the item's global ids: the
    byte step per item along each axis is read off the same trace one item further on.

    The same walk counts the item's load rounds: the iterations of the loops the code keeps
    (not unrolled) that issue global loads, plus one for the loads outside them. A GPU issues a
    work item's instructions in order, so the loads of one iteration wait for the last one's
    data (a tile's fetch loop: one global latency per iteration, as the code keeps it; as
    ptxas unrolls it, one per block: ``_fetch_unrolled_rounds``); the larger of an interior
    item's and its work-group's first item's count, since the first items take the extra
    iterations of a fetch loop and the group waits for them at its barrier.

    Returns {"length": positions, "arrays": {name: {"pos", "addr", "load", "bytes", "step"}},
    "groups": groups per axis, "local": the work-group shape, "load_rounds": rounds,
    "fetch_unrolled_rounds": the rounds where the compiler unrolls a tile's fetch loop
    (``_fetch_unrolled_rounds``; None where there is none),
    "extent": the items along each axis that run (the launch rounds up to whole groups),
    "issued_load_share": ``_issued_load_share`` over the instructions not in *lane_insns*,
    "reloaded_stores": ``_reloaded_stores``},
    addresses in bytes as the work-group's first item makes them, less a multiple of
    ``TRACE_ALIGN`` (small numbers that keep a row's place in a cache line), ``step`` None along
    an axis of one item;
    "arrays" empty where the items' traces are not one trace translated (a work-group's first
    item does more than an interior one, a step not one constant per array); None where an
    index is not affine or the trace is longer than ``MAX_TRACE_ACCESSES``."""
    import islpy as isl
    from loopy.symbolic import get_access_map, get_dependencies

    arrays = global_arrays(lin)
    hw = hardware_inames(lin)
    vector = _vector_inames(lin)
    runs = _instruction_runs(lin, vector)
    unrolled = unrolled_inames(lin, vector, runs)  # straight-line copies in the compiled code
    layout = {name: (_element_strides(arg, env), int(np.dtype(arg.dtype.numpy_dtype).itemsize))
              for name, arg in arrays.items()}

    # what does not depend on the item, once: each run's global subscripts, its domain (the
    # instruction's inames, the parameters fixed) and which of its dimensions order it
    prepared = []
    fetch_runs: set[int] = set()  # a tile's fetch in a loop the code keeps (_fetch_blocks)
    for k, insn, loops in runs:
        every = _global_subscripts(insn.expression, arrays, every=True)
        # a lane-by-lane instruction's loads are counted apart (_lane_vector_loads): 0 here
        counted = 0 if insn.id in lane_insns else 1
        subs = [(n, i, True, counted * every.count((n, i)))
                for n, i in _global_subscripts(insn.expression, arrays)]
        subs += [(n, i, False, 1) for n, i in _global_subscripts(insn.assignee, arrays)]
        if not subs:
            continue
        domain, names = _instruction_domain(lin, insn, env)
        looped = {n for _, n in loops}
        order = [(k_enter, names.index(n)) for k_enter, n in loops if n in names]
        # the loops up to the innermost one the code keeps: an unrolled loop around a
        # kept loop makes copies of it, each with its own iterations
        kept = [i for i, (_, n) in enumerate(loops) if n in names and n not in unrolled]
        if kept and _copies_into_local(lin, insn, arrays):
            fetch_runs.add(k)
        rolled = [(k_enter, names.index(n)) for k_enter, n in loops[:kept[-1] + 1]
                  if n in names] if kept else []
        inner = [names.index(n) for n in sorted(insn.within_inames)  # ilp: innermost
                 if n in names and n not in hw and n not in vector and n not in looped]
        # the instruction's conditions, told apart by the values of the inames they name
        conditions = frozenset(str(c) for c in insn.predicates)
        named = set().union(*(get_dependencies(c) for c in insn.predicates)) \
            if insn.predicates else set()
        tested = [names.index(n) for n in sorted(named) if n in names]
        prepared.append((k, subs, domain, names, order, rolled, inner, conditions, tested))

    def accesses(ids: Mapping[int, tuple[int, int]]) -> list[TraceRow]:
        """(order key, array, byte offset, is a load, iteration of the loops that stay loops,
        the instruction's conditions at that point) of the item with (group, local) ids."""
        found: list[TraceRow] = []
        for k, subs, domain, names, order, rolled, inner, conditions, tested in prepared:
            for i, name in enumerate(names):
                if name in hw:
                    group, axis = hw[name]
                    g, lid = ids.get(axis, (0, 0))
                    domain = domain.fix_val(isl.dim_type.set, i, g if group else lid)
            for site, (arr, index, load, times) in enumerate(subs):
                strides, size = layout[arr]
                for c in _points(get_access_map(domain, index).wrap()):
                    key = tuple(x for k_enter, j in order for x in (k_enter, c[j])) + \
                        tuple(c[j] for j in inner) + (k, site)
                    offset = size * sum(a * s for a, s in zip(c[len(names):], strides))
                    found.append((key, arr, offset, load,
                                  tuple(x for k_enter, j in rolled for x in (k_enter, c[j])),
                                  (conditions, tuple(c[j] for j in tested)), times))
                if len(found) > MAX_TRACE_ACCESSES:
                    raise ValueError("trace too long")
        found.sort(key=lambda row: row[0])
        return found

    axes = max(len(local_size), len(groups_per_axis))
    local_size = tuple(local_size) + (1,) * (axes - len(local_size))
    groups_per_axis = tuple(groups_per_axis) + (1,) * (axes - len(groups_per_axis))
    # an interior item whose next neighbour along each axis exists too
    mid = {d: ((groups_per_axis[d] - 1) // 2, (n - 1) // 2) for d, n in enumerate(local_size)}
    base = accesses(mid)
    # a loop the code keeps issues its loads anew each iteration, after the last one's data
    # came; a work-group's first items take the extra iterations of a tile's fetch loop
    first = accesses({d: (g, 0) for d, (g, _) in mid.items()})
    rounds = max(_load_rounds(rows) for rows in (base, first))
    fetch_rounds = None
    if fetch_runs:
        # the first sub-group's last lane along axis 0, in the first item's row: the fewest
        # passes of a tile's fetch loop where the first item takes the most
        lane = min(local_size[0], subgroup_size) - 1
        row_end = accesses({**{d: (g, 0) for d, (g, _) in mid.items()}, 0: (mid[0][0], lane)})
        fetch_rounds = _fetch_unrolled_rounds((base, first, row_end), fetch_runs)
    extent = _item_extents([(row[2], row[3]) for row in prepared], hw, groups_per_axis,
                           local_size)
    found = {"length": 0, "arrays": {}, "groups": list(groups_per_axis),
             "local": list(local_size), "load_rounds": rounds,
             "fetch_unrolled_rounds": fetch_rounds, "extent": extent,
             "issued_load_share": _issued_load_share(base),
             "reloaded_stores": _reloaded_stores(base)}
    if len(first) != len(base):
        return found  # items do unequal shares (a tile's fetch loop): no one item stands for all
    steps: dict[str, list[int | None]] = {name: [] for name in arrays}
    for d, n in enumerate(local_size):
        g, lid = mid[d]
        if n * groups_per_axis[d] == 1:  # one item along this axis: no neighbour
            for name in steps:
                steps[name].append(None)
            continue
        diffs: dict[str, set[float]] = {}
        # the next item, and the same item of a neighbouring group (the next, or the one before
        # where the next holds no such item: a last group the domain only starts), which must
        # lie a group's extent of steps away (a layout blocked by work-group is no grid of the
        # global ids: its next group's items read what this group's next rows hold)
        shifts = [((g, lid + 1) if n > 1 else (g + 1, 0), 1)]
        if n > 1 and (g + 1) * n + lid < extent[d]:
            shifts.append(((g + 1, lid), n))
        elif n > 1 and g >= 1:
            shifts.append(((g - 1, lid), -n))
        for shift, times in shifts:
            shifted = accesses({**mid, d: shift})
            if len(shifted) != len(base):
                return found  # the next item's trace differs (bounds that vary with the item)
            for a, b in zip(base, shifted):
                diffs.setdefault(a[1], set()).add((b[2] - a[2]) / times)
        if any(len(v) != 1 for v in diffs.values()):
            return found  # not one constant step per array: not a translated grid
        for name in steps:
            steps[name].append(int(diffs[name].pop()) if name in diffs else None)
    position: int = -1
    last: tuple | None = None
    out: dict[str, dict[str, Any]] = {}
    for key, arr, offset, load, *_ in base:  # a vector's lanes share their access's position
        if key != last:
            position, last = position + 1, key
        entry = out.setdefault(arr, {"pos": [], "addr": [], "load": [],
                                     "bytes": layout[arr][1], "step": steps[arr]})
        entry["pos"].append(position)
        entry["addr"].append(offset)
        entry["load"].append(load)
    for entry in out.values():
        # small numbers in the cached JSON, laid out as the group's first item sees them: its
        # lowest address keeps its place in a TRACE_ALIGN-byte block (a buffer starts on one),
        # so a row that starts off a cache line is priced off it (_cache_reuse.first_level_fills)
        low = min(entry["addr"])
        to_first = sum(s * mid[d][1] for d, s in enumerate(entry["step"]) if s is not None)
        origin = (low - to_first) % TRACE_ALIGN
        entry["addr"] = [a - low + origin for a in entry["addr"]]
    return {**found, "length": position + 1, "arrays": out}


def _only(t_unit: Any, ids: frozenset[str], keep: bool) -> Any:
    """The program with only the instructions in *ids* (keep) or all but them (not keep); the
    counters need no schedule, so dangling dependencies are simply dropped."""
    knl = t_unit.default_entrypoint
    insns = [i for i in knl.instructions if (i.id in ids) == keep]
    names = {i.id for i in insns}
    insns = [i.copy(depends_on=frozenset(d for d in i.depends_on if d in names))
             for i in insns]
    return t_unit.with_kernel(knl.copy(instructions=insns))


def _op_counts(op_map: Any, env: Mapping[str, int], subgroup_size: int, group: int
               ) -> dict[str, float]:
    """loopy's op map as lane operations per launch: {"dtype:op": count}."""
    ops: dict[str, float] = {}
    for op, poly in op_map.items():
        n = _count(poly, env)
        if op.count_granularity == "subgroup":
            n *= min(subgroup_size, group)
        elif op.count_granularity == "workgroup":
            n *= group
        key = f"{np.dtype(op.dtype.numpy_dtype).name}:{op.name}"
        ops[key] = ops.get(key, 0.0) + n
    return ops


def compute_stats(t_unit: Any, sizes: Mapping[str, int], *, subgroup_size: int,
                  values: Mapping[str, Any] | None = None) -> KernelStats:
    """Count ops, memory accesses and barriers of a transformed program at *sizes*; *values*
    (the spec's inputs at *sizes*) count its gathers' lines (gencl.model._gathers)."""
    import loopy as lp

    from gencl.model._gathers import gather_requests, gather_sites

    env = {k: int(v) for k, v in sizes.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        knl = t_unit.default_entrypoint
        gsize, lsize = knl.get_grid_size_upper_bounds_as_exprs(t_unit.callables_table)
        groups_per_axis = tuple(int(_value(g, env)) for g in gsize) if gsize else (1,)
        groups = int(np.prod(groups_per_axis))
        local_size = tuple(int(_value(s, env)) for s in lsize) if lsize else (1,)
        group = int(np.prod(local_size))
        op_map = lp.get_op_map(t_unit, subgroup_size=subgroup_size,
                               count_within_subscripts=False)
        folded = [(lp.get_op_map(t_unit, subgroup_size=subgroup_size,
                                 count_within_subscripts=False, within=f"id:{insn_id}"),
                   shares) for insn_id, shares in _folded_powers(knl).items()]
        per_lane = _per_lane_insns(t_unit)
        try:
            lin = _linearized(t_unit)
        except Exception:  # noqa: BLE001 -- loopy cannot order it: no trace, no loop nest
            lin = None
        nest = _loop_nest(lin) if lin else ()
        try:  # lane loads the compiler makes whole
            whole = _lane_vector_loads(knl, per_lane)
        except Exception:  # noqa: BLE001 -- an index not of inames and parameters alone (read
            whole = {}     # from memory, a temporary): every lane its own load, as loopy counts
        guarded = per_lane - set(whole)
        broadcast = _broadcast_lanes(knl, per_lane)
        arrays = {a.name: a for a in knl.args if isinstance(a, lp.ArrayArg)}
        lane_stores = {i for i in whole
                       if _global_subscripts(knl.id_to_insn[i].assignee, arrays)}
        lane_lines = _subgroup_footprint(knl, guarded | lane_stores, env, local_size,
                                         groups_per_axis, subgroup_size, nest) \
            if per_lane else {}
        if per_lane:  # types first: a split-off part may no longer say what a temporary is
            t_unit = lp.infer_unknown_types(t_unit, expect_completion=True)
        parts = [(False, {}, t_unit)] if not per_lane else [
            (False, {}, _only(t_unit, per_lane, keep=False)),
            (True, {}, _only(t_unit, guarded, True)),
            *((True, whole[i], _only(t_unit, frozenset({i}), True)) for i in sorted(whole))]
        mem_maps = [(lane, vectors, lp.get_mem_access_map(part, subgroup_size=subgroup_size))
                    for lane, vectors, part in parts if part.default_entrypoint.instructions]
        sync_map = lp.get_synchronization_map(t_unit, subgroup_size=subgroup_size)
        try:
            trace = _item_trace(lin, env, local_size, groups_per_axis, per_lane,
                                subgroup_size) \
                if lin else None
        except Exception:  # noqa: BLE001 -- not affine, or isl cannot state it: no trace
            trace = None
        try:
            chained = _chained_load_rounds(lin, env) if lin else 0
        except Exception:  # noqa: BLE001 -- a domain isl cannot count: rounds unknown
            chained = 0
        # why a program's gathers were not counted on the data (priced as one line a
        # sub-group, as loopy's counts say); explain prints it
        uncounted = ""
        try:
            gathers = gather_requests(lin, values, env, local_size, groups_per_axis,
                                      subgroup_size) if lin and values else {}
        except Exception as exc:  # noqa: BLE001 -- an index numpy cannot evaluate
            gathers, uncounted = {}, f"its indices could not be evaluated ({exc})"
        if not values and lin is not None and gather_sites(lin):
            uncounted = "the spec's inputs were not drawn at these sizes"
    ops = _op_counts(op_map, env, subgroup_size, group)
    for insn_map, (squares, identities, powers) in folded:
        # the instruction's powers as its code does them: squares one multiplication each,
        # identities nothing, the rest calls (loopy counts them all as one pow each)
        for key, n in _op_counts(insn_map, env, subgroup_size, group).items():
            dtype, _, name = key.partition(":")
            if name == "pow" and n:
                ops[key] -= n * (squares + identities) / powers
                ops[f"{dtype}:mul"] = ops.get(f"{dtype}:mul", 0.0) + n * squares / powers
    ops = {k: v for k, v in ops.items() if not (k.endswith(":pow") and v <= 0)}
    args = {a.name: a for a in knl.args}
    temps = knl.temporary_variables
    accesses = []
    for lane, vectors, mem_map in mem_maps:
        for mem, poly in mem_map.items():
            if mem.mtype not in ("global", "local") or mem.variable is None:
                continue
            n = _count(poly, env)
            if mem.count_granularity == "subgroup":
                n *= min(subgroup_size, group)
            var = args.get(mem.variable) or temps.get(mem.variable)
            width = _vec_width(var, env) if var is not None else 1
            # a __local argument (dynamic local memory) is counted by loopy as "global"
            space = "local" if _in_local_memory(var) else mem.mtype
            stride = (mem.lid_strides or {}).get(0)
            try:
                lid0 = 0.0 if stride is None and 0 in _lid_axes(knl) else \
                    (None if stride is None else _value(stride, env))
            except Exception:  # noqa: BLE001 -- a stride loopy cannot express: not affine
                lid0 = None
            kept, whole_vectors = lane, False
            if (mem.direction or "load") == "load" and mem.mtype == "global":
                n /= broadcast.get(str(mem.variable), 1)
            if mem.variable in vectors and (mem.direction or "load") == "load":
                # loopy's one access per lane per subscript → the whole vectors loaded
                subscripts, loads, _ = vectors[mem.variable]
                n, kept, whole_vectors = n * loads / subscripts, False, True
            # loopy sees no lane stride in a gathered index (a temporary): 0, the gather
            gather = mem.variable in gathers and lid0 == 0.0 and mem.direction != "store"
            accesses.append(Access(str(mem.variable), space, mem.direction or "load",
                                   int(np.dtype(mem.dtype.numpy_dtype).itemsize),
                                   width, n, lid0, per_lane=kept, lane_vectors=whole_vectors,
                                   gather=gather))
    footprint = {}
    for arg in knl.args:
        if isinstance(arg, lp.ArrayArg) and arg.address_space == lp.AddressSpace.GLOBAL \
                and arg.shape:
            footprint[arg.name] = float(np.prod([_value(s, env) for s in arg.shape])) * \
                np.dtype(arg.dtype.numpy_dtype).itemsize
    barriers = 0.0  # loopy counts barriers per work item: the barriers each item passes
    for sync, poly in sync_map.items():
        if str(sync.kind).startswith("barrier"):
            barriers += _count(poly, env)
    static_local = sum(int(np.prod([_value(s, env) for s in t.shape])) *
                       np.dtype(t.dtype.numpy_dtype).itemsize
                       for t in temps.values()
                       if t.address_space == lp.AddressSpace.LOCAL and t.shape)
    items = groups * group
    every = frozenset(i.id for i in knl.instructions)
    walk = _private_walk(lin, env)
    return KernelStats(items, group, groups, ops, tuple(accesses), footprint,
                       barriers, _divergent_fraction(knl), int(static_local),
                       local_size, extra={"live_private_words": _live_words(walk, knl, env),
                                          "load_lanes": _load_lanes(walk, lin, env, per_lane,
                                                                    whole),
                                          "per_lane_lines": lane_lines,
                                          # counted only where a row leaves gaps: the
                                          # group's lines cost a count over all its items
                                          "subgroup_lines": _subgroup_footprint(
                                              knl, every, env, local_size, groups_per_axis,
                                              subgroup_size, nest)
                                          if any(a.leaves_gaps for a in accesses) else {},
                                          "item_trace": trace,
                                          "kept_loops": _kept_loops(lin) if lin else (),
                                          "chained_load_rounds": chained,
                                          "gathers": gathers,
                                          **({"gathers_not_counted": uncounted}
                                             if uncounted else {})})


def _private_walk(lin: Any, env: Mapping[str, int]) -> Any:
    """The liveness walk over *lin* (``gencl.model._liveness.walk``), built once for the live
    words and the loaded lanes; None without a linearized kernel or where it cannot be built."""
    from gencl.model._liveness import walk

    if lin is None:
        return None
    try:
        return walk(lin, env)
    except Exception:  # noqa: BLE001 -- a construct the walk does not read
        return None


def _live_words(walk: Any, knl: Any, env: Mapping[str, int]) -> float:
    """32-bit words of private values one work item keeps live at once
    (``gencl.model._liveness``), the part of its register demand the program states (the
    compiler adds addresses and indices; gencl.model._registers prices the rest). Without a
    walk, or where it fails: every declared private temporary, whole."""
    if walk is not None:
        try:
            return float(walk.peak())
        except Exception:  # noqa: BLE001 -- a construct the walk does not read: the declared sum
            pass
    return _declared_private_words(knl, env)


def _load_lanes(walk: Any, lin: Any, env: Mapping[str, int], per_lane: frozenset[str],
                whole: Mapping[str, Mapping[str, tuple[int, int, tuple[str, ...]]]]
                ) -> dict[str, dict[str, float]]:
    """Per global array, the vectors one work item loads by the lanes it reads
    (``_liveness._Walk.load_lanes``), with the vectors of the lane-by-lane instructions the compiler
    loads whole (``_lane_vector_loads``); {} where the walk cannot read the kernel.

    The compiler drops the parts of a vector load that nothing reads: box2d9's unstreamed
    ``float8`` rows load their side vectors for one lane each, and the SASS of the H200 suite
    holds one 32-bit load for each of those where the PTX has two 16-byte ones."""
    from gencl.model._liveness import _trip_count

    if walk is None:
        return {}
    try:
        found = walk.load_lanes(per_lane)
    except Exception:  # noqa: BLE001 -- a construct the walk does not read: every lane loaded
        return {}
    hw = {n for n, tags in lin.inames.items() if any(
        type(t).__name__ in ("LocalInameTag", "GroupInameTag", "VectorizeTag") for t in tags.tags)}
    for insn_id, arrays in whole.items():
        times = float(np.prod([_trip_count(lin, n, env)
                               for n in lin.id_to_insn[insn_id].within_inames if n not in hw]))
        for name, (_, _, patterns) in arrays.items():
            entry = found.setdefault(name, {})
            for pattern in patterns:
                entry[pattern] = entry.get(pattern, 0.0) + times
    return found


def _declared_private_words(knl: Any, env: Mapping[str, int]) -> float:
    """32-bit words of the private temporaries *knl* declares (arrays whole, scalars one
    each)."""
    import loopy as lp

    words = 0.0
    for t in knl.temporary_variables.values():
        # only declared private: a prefetched tile's space is still auto here (it is local)
        if t.address_space != lp.AddressSpace.PRIVATE or t.dtype is None or t.dtype is lp.auto:
            continue
        try:
            size = float(np.prod([_value(s, env) for s in t.shape])) if t.shape else 1.0
            itemsize = np.dtype(t.dtype.numpy_dtype).itemsize
        except Exception:  # noqa: BLE001 -- a temporary whose size loopy cannot state
            continue
        words += size * max(1, itemsize // 4)
    return words


def _lid_axes(knl: Any) -> set[int]:
    axes = set()
    for tags in knl.inames.values():
        for t in tags.tags:
            if type(t).__name__ == "LocalInameTag":
                axes.add(int(t.axis))
    return axes


def _gather_data(spec: Any, t_unit: Any, point: Mapping[str, Any],
                 sizes: Mapping[str, int]) -> Mapping[str, Any] | None:
    """The spec's inputs at *sizes* (the measurement's draw, seed 0) where the program gathers
    (gencl.model._gathers); None where it does not or the spec draws no inputs."""
    from gencl.model._gathers import gather_sites

    if getattr(spec, "inputs", None) is None or not gather_sites(t_unit.default_entrypoint):
        return None
    from gencl.measure._inputs import matching_draw

    global _last_draw
    offered = _last_draw[1] if _last_draw and _last_draw[0] is spec.inputs else None
    try:
        draw = matching_draw(spec, point, sizes, offered)
    except Exception:  # noqa: BLE001 -- the draw needs what the model lacks: priced as before
        return None
    _last_draw = (spec.inputs, draw)
    return draw.values


#: the last gather draw (the spec's inputs function, Draw): a space's points that read the same
#: data (spmv_ell's 16 variants of one matrix at 4 Mi rows) share one draw, as the
#: measurement's do
_last_draw: tuple[Any, Any] | None = None


# {{{ disk cache

def _stats_dir() -> Path | None:
    from gencl.generate._cache import cache_dir

    root = cache_dir()
    return root / "stats" if root else None


def _key(variant_id: str, sizes: Mapping[str, int], subgroup_size: int) -> str:
    text = json.dumps({"v": variant_id, "s": dict(sorted(sizes.items())), "sg": subgroup_size,
                       "version": STATS_VERSION}, sort_keys=True)
    return f"{variant_id}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def variant_stats(spec: Any, point: Mapping[str, Any], sizes: Mapping[str, int], *,
                  subgroup_size: int) -> KernelStats:
    """Statistics of *point* of *spec* at *sizes*, from the disk cache or counted and stored."""
    from gencl.generate import transform_program, variant_id

    vid = variant_id(spec, dict(point))
    folder = _stats_dir()
    path = folder / f"{_key(vid, sizes, subgroup_size)}.json" if folder else None
    if path is not None and path.is_file():
        try:
            return KernelStats.from_json(json.loads(path.read_text()))
        except (ValueError, TypeError, KeyError):
            pass
    t_unit = transform_program(spec, dict(point))
    stats = compute_stats(t_unit, sizes, subgroup_size=subgroup_size,
                          values=_gather_data(spec, t_unit, point, sizes))
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(dumps_json(stats.to_json()))
        tmp.replace(path)
    return stats

# }}}
