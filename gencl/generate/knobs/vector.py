"""Vector width: compute W consecutive elements as one OpenCL floatW value."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import loopy as lp

from gencl.errors import KnobError
from gencl.generate.knobs._base import Transform

WIDTHS = (1, 2, 4, 8, 16)


def vectorize(t: lp.TranslationUnit, iname: str, width: int, *, arrays: Sequence[str] = (),
              temporaries: Sequence[str] = (), size: str | None = None,
              gather: bool = False, per_instruction: bool = False) -> lp.TranslationUnit:
    """Split *iname* by *width* with a ``vec`` inner iname and give *arrays* a vector axis.

    The last axis of every array in *arrays* must be indexed by *iname*: it is split and tagged
    ``vec`` so loopy emits floatW pointers and vector arithmetic. Private *temporaries* written
    per element become floatW. *size* names the extent parameter, assumed divisible by *width*
    (otherwise loopy falls back to per-lane code, which is not what this knob promises).

    *gather*: reads of *arrays* that are not aligned to the vector (the neighbours ``x[i - 1]``,
    ``x[i + 1]`` of a stencil) are first loaded lane by lane into private temporaries, as
    Jacobi's ``w``/``e`` do by hand, so the instruction itself stays floatW arithmetic. Needed
    whenever one instruction mixes aligned and unaligned reads: loopy 2025.2's vectorizability
    check stops at the first vector operand of a sum and the unaligned one then fails code
    generation ("index was not a compile-time constant").
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
    if gather:
        t, gathered = extract_unaligned_reads(t, iname, width, arrays)
        temporaries = (*temporaries, *gathered)
    t = lp.split_iname(t, iname, width, inner_tag="vec")
    knl = t.default_entrypoint
    for name in arrays:
        ndim = len(_shape(knl, name))
        t = lp.split_array_axis(t, name, ndim - 1, width)
        t = _tag_vector_axis(t, name)
    for name in temporaries:
        t = lp.privatize_temporaries_with_inames(t, f"{iname}_inner", name)
        ndim = len(_shape(t.default_entrypoint, name))
        t = lp.tag_array_axes(t, name, ",".join(["c"] * (ndim - 1) + ["vec"]))
    if per_instruction:
        inner = f"{iname}_inner"
        users = [insn.id for insn in t.default_entrypoint.instructions
                 if inner in insn.within_inames]
        for insn_id in users[1:]:  # the first keeps the original
            t = lp.duplicate_inames(t, inner, within=f"id:{insn_id}", tags={inner: "vec"})
    return split_lanes(t, f"{iname}_inner") if gather else t


def _lane_bound(knl: lp.LoopKernel, expr: Any, iname: str) -> bool:
    """Whether *expr* reads an array with *iname* anywhere but alone on a vector axis: loopy
    cannot emit it as one vector operation and would fall back to lane-by-lane code."""
    from loopy.kernel.array import VectorArrayDimTag
    from loopy.symbolic import WalkMapper, get_dependencies

    found = []

    class Walk(WalkMapper):
        def map_subscript(self, sub, *args):
            var = knl.get_var_descriptor(sub.aggregate.name)
            tags = getattr(var, "dim_tags", None) or ()
            for axis, index in enumerate(sub.index_tuple):
                vec = axis < len(tags) and isinstance(tags[axis], VectorArrayDimTag)
                if iname in get_dependencies(index) and not (
                        vec and getattr(index, "name", None) == iname):
                    found.append(sub)
            return super().map_subscript(sub, *args)

    Walk()(expr)
    return bool(found)


def _vector_store(knl: lp.LoopKernel, assignee: Any, iname: str) -> Any:
    """The global array *assignee* writes a whole vector of, *iname* alone on its vector axis
    (every other index free of it), else None."""
    from loopy.kernel.array import VectorArrayDimTag
    from loopy.symbolic import get_dependencies

    name = getattr(getattr(assignee, "aggregate", None), "name", None)
    var = knl.arg_dict.get(name) if name else None
    if not isinstance(var, lp.ArrayArg) or var.address_space != lp.AddressSpace.GLOBAL:
        return None
    tags = getattr(var, "dim_tags", None) or ()
    for axis, index in enumerate(assignee.index_tuple):
        vec = axis < len(tags) and isinstance(tags[axis], VectorArrayDimTag)
        if vec != (getattr(index, "name", None) == iname) or \
                (not vec and iname in get_dependencies(index)):
            return None
    return var


def split_lanes(t: lp.TranslationUnit, iname: str) -> lp.TranslationUnit:
    """Write each instruction of vector loop *iname* that loopy could only emit lane by lane as
    one instruction per lane, with the lane's index arithmetic folded to constants.

    A gather of an unaligned neighbour (``g = x[..., i - 1]``) becomes whole aligned vector loads
    (``x[..., io - 1]`` and ``x[..., io]``) into private vectors and one register move per lane
    (``g.s0 = prev.s3; g.s1 = cur.s0; …``): two vector loads instead of W scalar ones, and the
    loads are aligned columns the streaming knob can keep in registers. Any other instruction is
    copied once per lane. loopy's own fallback (unrolling the vector loop at code generation)
    also gets there, but it proves every floor division of a split index non-negative with isl,
    lane by lane: tens of seconds of code generation for a 27-point stencil at width 8.
    """
    import pymbolic.primitives as prim
    from loopy.symbolic import SubstitutionMapper
    from pymbolic.mapper.constant_folder import CommutativeConstantFoldingMapper
    from pymbolic.mapper.substitutor import make_subst_func

    knl = t.default_entrypoint
    if iname not in knl.all_inames():
        return t
    width = int(knl.get_constant_iname_length(iname))
    insn_ids = knl.get_instruction_id_generator()
    var_names = knl.get_var_name_generator()
    class Fold(CommutativeConstantFoldingMapper):
        def map_reduction(self, expr: Any, *args: Any) -> Any:
            # a lane's copy of a reduction (a matrix-vector row's sum): fold its body
            return type(expr)(expr.operation, expr.inames, self.rec(expr.expr, *args),
                              expr.allow_simultaneous)

    fold = Fold()
    lanes_of: dict[str, frozenset[str]] = {}
    new_temps: dict[str, Any] = {}
    loaded: dict[tuple, tuple[str, str]] = {}  # one load per aligned vector, shared by gathers
    insns = []
    for insn in knl.instructions:
        if (iname not in insn.within_inames or not isinstance(insn, lp.Assignment)
                or not (_lane_bound(knl, insn.expression, iname)
                        or _lane_bound(knl, insn.assignee, iname))):
            insns.append(insn)
            continue
        gather = _vector_gather(knl, insn, iname, width, insn_ids, var_names, fold, loaded)
        if gather is not None:
            new_insns, temps, ids = gather
            insns.extend(new_insns)
            new_temps.update(temps)
            lanes_of[insn.id] = frozenset(ids)
            continue
        # a whole vector of a global array written lane by lane is a read-modify-write of it
        # in memory W times (oclgrind: "uninitialized value written" from the output's unset
        # lanes): the lanes go to a private vector, stored whole once
        stored = _vector_store(knl, insn.assignee, iname)
        lanes_var = None
        if stored is not None:
            lanes_var = var_names(f"{stored.name}_lanes")
            new_temps[lanes_var] = lp.TemporaryVariable(
                lanes_var, stored.dtype, shape=(width,), dim_tags="vec",
                address_space=lp.AddressSpace.PRIVATE)
        ids = []
        for lane in range(width):
            subst = SubstitutionMapper(make_subst_func({iname: lane}))
            new_id = insn_ids(f"{insn.id}_lane{lane}")
            assignee = prim.Subscript(prim.Variable(lanes_var), (lane,)) if lanes_var \
                else fold(subst(insn.assignee))
            insns.append(insn.copy(
                id=new_id, assignee=assignee, expression=fold(subst(insn.expression)),
                within_inames=insn.within_inames - {iname}))
            ids.append(new_id)
        if lanes_var:
            store_id = insn_ids(f"{insn.id}_store")
            insns.append(insn.copy(
                id=store_id, expression=prim.Subscript(prim.Variable(lanes_var),
                                                       (prim.Variable(iname),)),
                depends_on=frozenset(ids)))
            ids = [store_id]
        lanes_of[insn.id] = frozenset(ids)
    if not lanes_of:
        return t
    insns = [i.copy(depends_on=frozenset().union(*(lanes_of.get(d, {d}) for d in i.depends_on)))
             if i.depends_on & lanes_of.keys() else i for i in insns]
    return t.with_kernel(knl.copy(instructions=insns, temporary_variables={
        **knl.temporary_variables, **new_temps}))


def _vector_gather(knl, insn, iname, width, insn_ids, var_names, fold, loaded):
    """(instructions, temporaries, ids of the lane moves) for a pure gather ``tmp[iname] =
    x[..., off-grid]`` of a vector array, or None when *insn* is not one. *loaded* maps
    (array, address, inames) to the (temporary, load id) of vectors already loaded."""
    import pymbolic.primitives as prim
    from loopy.symbolic import SubstitutionMapper
    from pymbolic.mapper.substitutor import make_subst_func

    lhs, rhs = insn.assignee, insn.expression
    if not (isinstance(lhs, prim.Subscript) and isinstance(rhs, prim.Subscript)
            and lhs.aggregate.name in knl.temporary_variables
            and lhs.index_tuple[-1] == prim.Variable(iname)
            and iname not in set().union(*(_deps(e) for e in lhs.index_tuple[:-1]))
            and rhs.aggregate.name in knl.arg_dict):
        return None
    lanes = []
    for lane in range(width):
        folded = fold(SubstitutionMapper(make_subst_func({iname: lane}))(rhs))
        where = folded.index_tuple[-1]
        if not isinstance(where, int):
            return None
        lanes.append((tuple(folded.index_tuple[:-1]), where))
    array = rhs.aggregate.name
    dtype = knl.arg_dict[array].dtype
    new_insns, temps, ids = [], {}, []
    for address, _ in lanes:
        key = (array, address, insn.within_inames)
        if key in loaded:
            continue
        name = var_names(f"{array}_vec")
        temps[name] = lp.TemporaryVariable(name, dtype, shape=(width,), dim_tags="vec",
                                           address_space=lp.AddressSpace.PRIVATE)
        load = lp.Assignment(
            prim.Subscript(prim.Variable(name), (prim.Variable(iname),)),
            prim.Subscript(prim.Variable(array), (*address, prim.Variable(iname))),
            id=insn_ids(f"{name}_load"), within_inames=insn.within_inames,
            depends_on=insn.depends_on)
        new_insns.append(load)
        loaded[key] = (name, load.id)
    sources = list(dict.fromkeys(loaded[(array, a, insn.within_inames)] for a, _ in lanes))
    if len(lhs.index_tuple) == 1 and len(sources) <= 2:
        # one shuffle2 of the (at most two) aligned vectors: oclgrind misreads lane-by-lane
        # assembly of 8- and 16-wide vectors as uninitialized; a shuffle is also one instruction
        import numpy as np

        first, second = sources[0], sources[-1]
        mask = [where + width * (loaded[(array, a, insn.within_inames)] != first)
                for a, where in lanes]
        scalar = np.dtype(dtype.numpy_dtype)
        # shuffle2's mask has the elements' size: uchar for a uint8 image
        ctype = {1: "uchar", 2: "ushort", 4: "uint", 8: "ulong"}[scalar.itemsize]
        code = SHUFFLE_CODE.format(target=lhs.aggregate.name, first=first[0],
                                   second=second[0], ctype=ctype, width=width,
                                   mask=", ".join(map(str, mask)))
        new_id = insn_ids(f"{insn.id}_shuffle")
        new_insns.append(lp.CInstruction(
            (), code, read_variables=frozenset({first[0], second[0]}),
            assignees=(lhs.aggregate,), id=new_id,
            within_inames=insn.within_inames - {iname},
            depends_on=insn.depends_on | {first[1], second[1]}))
        return new_insns, temps, [new_id]
    for lane, (address, where) in enumerate(lanes):
        new_id = insn_ids(f"{insn.id}_lane{lane}")
        source, load_id = loaded[(array, address, insn.within_inames)]
        new_insns.append(insn.copy(
            id=new_id,
            assignee=prim.Subscript(lhs.aggregate, (*lhs.index_tuple[:-1], lane)),
            expression=prim.Subscript(prim.Variable(source), (where,)),
            within_inames=insn.within_inames - {iname},
            depends_on=insn.depends_on | {load_id}))
        ids.append(new_id)
    return new_insns, temps, ids


#: the lane gather ``_vector_gather`` emits: one OpenCL ``shuffle2`` of two aligned vectors
SHUFFLE_CODE = "{target} = shuffle2({first}, {second}, ({ctype}{width})({mask}));"
_SHUFFLE = re.compile(r"^(\w+) = shuffle2\((\w+), (\w+), \(\w+?(\d+)\)\(([\d, ]+)\)\);$")


def shuffle_lanes(code: str) -> tuple[str, list[tuple[str, int]]] | None:
    """(target, the (source, lane) each of its lanes takes) of a gather written as
    ``SHUFFLE_CODE``, None for any other code: a shuffle with a constant mask moves no data on
    a compiler that scalarizes vectors, so the register estimate reads it as a renaming."""
    found = _SHUFFLE.match(code.strip())
    if found is None:
        return None
    target, first, second, width = found.group(1), found.group(2), found.group(3), \
        int(found.group(4))
    return target, [(first, m) if m < width else (second, m - width)
                    for m in map(int, found.group(5).split(","))]


def _deps(expr: Any) -> set[str]:
    from loopy.symbolic import get_dependencies
    return set(get_dependencies(expr))


def _shape(knl: lp.LoopKernel, name: str) -> tuple[Any, ...]:
    var = knl.arg_dict[name] if name in knl.arg_dict else knl.temporary_variables[name]
    return tuple(var.shape) if isinstance(var.shape, tuple) else ()


def _tag_vector_axis(t: lp.TranslationUnit, name: str) -> lp.TranslationUnit:
    """Tag the last axis of global array *name* (just split by the width) ``vec``, keeping the
    other axes' strides as they were: re-deriving C strides from the split shape would write the
    row pitch as a ceiling division, which loopy then proves non-negative with isl at every
    subscript it prints (seconds of code generation per variant)."""
    from loopy.kernel.array import FixedStrideArrayDimTag, VectorArrayDimTag

    knl = t.default_entrypoint
    if name not in knl.arg_dict:
        return lp.tag_array_axes(t, name, ",".join(["c"] * (len(_shape(knl, name)) - 1)
                                                    + ["vec"]))
    arg = knl.arg_dict[name]
    tags = list(arg.dim_tags)
    if not all(isinstance(tag, FixedStrideArrayDimTag) for tag in tags[:-1]):
        return lp.tag_array_axes(t, name, ",".join(["c"] * (len(tags) - 1) + ["vec"]))
    tags[-1] = VectorArrayDimTag()
    args = [a.copy(dim_tags=tuple(tags)) if a.name == name else a for a in knl.args]
    return t.with_kernel(knl.copy(args=args))


def _is_aligned(index: Any, iname: str, width: int) -> bool | None:
    """Whether a subscript's last axis is ``iname + c`` with ``c`` a multiple of *width*;
    None when the last axis does not use *iname* (or another axis does: not a vector access)."""
    from loopy.symbolic import get_dependencies
    from pymbolic.mapper.coefficient import CoefficientCollector
    from pymbolic.mapper.evaluator import evaluate

    if not index or iname not in get_dependencies(index[-1]) or any(
            iname in get_dependencies(e) for e in index[:-1]):
        return None
    try:
        coeffs: dict[Any, Any] = {getattr(v, "name", v): evaluate(c)
                  for v, c in CoefficientCollector()(index[-1]).items()}
    except Exception:  # noqa: BLE001 -- not affine: lane by lane
        return False
    if coeffs.get(iname) != 1 or set(coeffs) - {iname, 1}:
        return False
    return int(coeffs.get(1, 0)) % width == 0


def extract_unaligned_reads(t: lp.TranslationUnit, iname: str, width: int,
                            arrays: Sequence[str]) -> tuple[lp.TranslationUnit, list[str]]:
    """Move reads of *arrays* along *iname* that are off the vector grid (last-axis offset not
    a multiple of *width*) into private scalar temporaries, each loaded by an instruction of its
    own just before the reader. Reads inside a reduction stay where they are (they cannot be
    hoisted out of it). Returns the program and the new temporaries' names."""
    import pymbolic.primitives as prim
    from loopy.symbolic import IdentityMapper

    knl = t.default_entrypoint
    new_insns, new_temps, names = [], {}, []
    insn_ids = knl.get_instruction_id_generator()
    var_names = knl.get_var_name_generator()

    class Hoist(IdentityMapper):
        def __init__(self, insn):
            super().__init__()
            self.insn, self.loads, self.seen = insn, [], {}

        def map_reduction(self, expr, *args, **kwargs):
            return expr  # a read under a reduction iname cannot move out of the reduction

        def map_subscript(self, expr, *args, **kwargs):
            if expr.aggregate.name not in arrays:
                return super().map_subscript(expr, *args, **kwargs)
            if _is_aligned(expr.index_tuple, iname, width) is not False:
                return expr
            if expr in self.seen:
                return self.seen[expr]
            name = var_names(f"{expr.aggregate.name}_lane")
            load_id = insn_ids(f"{name}_load")
            dtype = knl.arg_dict[expr.aggregate.name].dtype
            new_temps[name] = lp.TemporaryVariable(name, dtype, shape=(),
                                                   address_space=lp.AddressSpace.PRIVATE)
            new_insns.append(lp.Assignment(prim.Variable(name), expr, id=load_id,
                                           within_inames=self.insn.within_inames,
                                           depends_on=self.insn.depends_on))
            self.loads.append(load_id)
            names.append(name)
            self.seen[expr] = prim.Variable(name)
            return self.seen[expr]

    insns = []
    for insn in knl.instructions:
        if iname in insn.within_inames and isinstance(insn, lp.Assignment):
            hoist = Hoist(insn)
            insn = insn.copy(expression=hoist(insn.expression))
            if hoist.loads:
                insn = insn.copy(depends_on=insn.depends_on | frozenset(hoist.loads))
        insns.append(insn)
    if not names:
        return t, []
    knl = knl.copy(instructions=insns + new_insns,
                   temporary_variables={**knl.temporary_variables, **new_temps})
    return t.with_kernel(knl), names


def _apply(t: lp.TranslationUnit, value: int, *, point: Any, iname: str, **options: Any):
    return vectorize(t, iname, int(value), **options)


def _check(value: Any) -> str | None:
    return None if value in WIDTHS else f"vector width must be one of {WIDTHS}"


TRANSFORM = Transform("vector", _apply, _check)
