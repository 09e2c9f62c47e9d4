"""What temporal blocking needs to know of a program: ``TemporalForm``, read off the program.

A program can take k sweeps per launch when one launch is one time step of a ping-pong update:
it writes one array point by point over parallel inames that start at 0 (the interior, the
boundary kept in the buffers: a padded form), and that array's ping-pong partner (the input it
is read from on the next launch) is read at constant offsets from the written point along every
parallel axis (a radius loop may move the offset: ``u[k + s, j, i]``). Everything else the update
reads is read-only during the launch. ``read_temporal_form`` reads this off with
``analyse_program`` (the output, its axes, the halos) and checks what the schemes rely on; a
program it cannot take raises ``NotTemporal`` saying why. Nothing here knows a kernel's names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import loopy as lp


class NotTemporal(Exception):
    """The program cannot be temporally blocked (the message says why)."""


@dataclass(frozen=True)
class TemporalForm:
    """A ping-pong update as the temporal schemes see it.

    Axes are outermost first (the contiguous one last), as ``analyse_program`` orders them.

    Attributes:
        kernel: the abstract program's kernel (instructions, arguments, temporaries).
        output: the array one sweep writes.
        input: the array it is read from (the output's ping-pong partner).
        inames: the parallel inames, one per axis.
        extents: each axis's interior extent (expression over the size parameters).
        out_offsets: the output's buffer index of interior point 0, per axis.
        shape: the buffer shape of input and output (expressions), per axis.
        halo: per axis (lo, hi): how far below / above a point the update reads the input
            (lo ≤ 0 ≤ hi); the margin one sweep consumes.
        registers: read-only arrays read only at the updated point itself (no halo, every axis
            indexed by its iname plus a constant): name → their buffer offsets per axis.
        others: the remaining read-only arrays (coefficients, arrays with a halo), read from
            global memory where the update reads them.
        extra_inames: loops of the update besides the parallel axes (a radius reduction), with
            their domain (isl text, no parallel iname in it).
        itemsize: bytes per element of the output.
    """

    kernel: Any
    output: str
    input: str
    inames: tuple[str, ...]
    extents: tuple[str, ...]
    out_offsets: tuple[int, ...]
    shape: tuple[str, ...]
    halo: tuple[tuple[int, int], ...]
    registers: Mapping[str, tuple[int, ...]]
    others: tuple[str, ...]
    extra_inames: tuple[str, ...]
    extra_domain: str | None
    itemsize: int

    @property
    def ndim(self) -> int:
        return len(self.inames)

    @property
    def dtype(self) -> Any:
        return self.kernel.arg_dict[self.output].dtype


def _affine(expr: Any) -> dict[Any, int] | None:
    from gencl.generate.knobs.streaming import affine_terms
    return affine_terms(expr)


def _subscripts(knl: lp.LoopKernel, names: set[str]) -> list[Any]:
    """Every subscript of the arrays *names* in the instructions' right-hand sides."""
    import loopy as lp
    from loopy.symbolic import WalkMapper

    found: list[Any] = []

    class Walk(WalkMapper):
        def map_subscript(self, expr, *args):
            if getattr(expr.aggregate, "name", None) in names:
                found.append(expr)
            return super().map_subscript(expr, *args)

    for insn in knl.instructions:
        if isinstance(insn, lp.Assignment):
            Walk()(insn.expression)
    return found


def read_temporal_form(t: lp.TranslationUnit,
                       ping_pong: Sequence[tuple[str, str]]) -> TemporalForm:
    """The ``TemporalForm`` of an untransformed program with ping-pong pairs (output, input).

    Raises:
        NotTemporal: the program is not a ping-pong update the schemes can block.
    """
    import loopy as lp
    import numpy as np
    from loopy.symbolic import get_dependencies

    from gencl.generate._auto_space import NotAStencil, analyse_program

    try:
        st = analyse_program(t)
    except NotAStencil as exc:
        raise NotTemporal(f"not a stencil: {exc}") from None
    knl = t.default_entrypoint
    if len(st.outputs) > 1:
        raise NotTemporal(f"writes {len(st.outputs)} arrays ({', '.join(st.outputs)}): the "
                          "schemes carry one")
    partners = [inp for out, inp in ping_pong if out == st.output]
    if not partners:
        raise NotTemporal(f"no ping-pong pair has the written array {st.output} as its output "
                          "(one launch is not a time step)")
    inp = partners[0]
    if _subscripts(knl, {st.output}):
        # a leapfrog step (w = 2u − w + …) keeps a second time level in its output: a scheme's
        # later sweeps would need the level before theirs, which it does not hold
        raise NotTemporal(f"the update reads {st.output}, the array it writes (a second time "
                          "level): the schemes carry one")
    if inp not in st.reads:
        raise NotTemporal(f"{st.output}'s ping-pong input {inp} is not read by the update")
    shape = tuple(str(s) for s in knl.arg_dict[st.output].shape)
    if tuple(str(s) for s in knl.arg_dict[inp].shape) != shape:
        raise NotTemporal(f"{inp} and {st.output} have different shapes (ping-pong buffers swap)")
    for axis in st.axes:
        if not axis.starts_at_zero:
            raise NotTemporal(f"axis {axis.iname} does not start at 0: the update must run over "
                              "the interior only (a padded form), not branch on the boundary")
    inames = tuple(a.iname for a in st.axes)
    for insn in knl.instructions:
        if not isinstance(insn, lp.Assignment):
            raise NotTemporal(f"instruction {insn.id} is not an assignment")
        if not set(inames) <= set(insn.within_inames):
            raise NotTemporal(f"instruction {insn.id} is not inside every parallel axis")
    for name, tv in knl.temporary_variables.items():
        if tv.shape:
            raise NotTemporal(f"temporary {name} is an array (scalar temporaries only)")
    write = next(i.assignee for i in knl.instructions
                 if getattr(getattr(i.assignee, "aggregate", None), "name", None) == st.output)
    out_offsets = tuple(int((_affine(e) or {}).get(1, 0)) for e in write.index_tuple)

    # the input: each axis its own iname (coefficient 1) plus an offset free of parallel inames
    for sub in _subscripts(knl, {inp}):
        if len(sub.index_tuple) != len(inames):
            raise NotTemporal(f"{inp} is indexed with {len(sub.index_tuple)} axes, the output "
                              f"with {len(inames)}")
        for d, expr in enumerate(sub.index_tuple):
            terms = _affine(expr)
            others = set(get_dependencies(expr)) & set(inames) - {inames[d]}
            if terms is None or terms.get(inames[d]) != 1 or others:
                raise NotTemporal(f"{inp}[{', '.join(map(str, sub.index_tuple))}]: axis {d} "
                                  f"must be {inames[d]} plus an offset")
    halo = tuple((min(0, lo), max(0, hi)) for lo, hi in st.halos[inp])

    # read-only arrays: at the point itself (registers) or anywhere else (global reads)
    registers: dict[str, tuple[int, ...]] = {}
    global_reads: list[str] = []
    for name in st.reads:
        if name == inp:
            continue
        subs = _subscripts(knl, {name})
        offsets = [_point_offsets(sub, inames) for sub in subs]
        if subs and all(o is not None and o == offsets[0] for o in offsets):
            registers[name] = offsets[0]  # type: ignore[assignment]
        else:
            global_reads.append(name)

    extra = tuple(sorted(knl.all_inames() - set(inames)))
    extra_domain = None
    if extra:
        import islpy as isl

        domain = knl.get_inames_domain(frozenset(extra))
        for c in domain.get_constraints():
            used = {str(n) for n, v in c.get_coefficients_by_name().items() if v != 0}
            if used & set(extra) and used & set(inames):
                raise NotTemporal(f"the domain of loop(s) {', '.join(extra)} depends on a "
                                  "parallel axis")
        domain = domain.project_out_except(list(extra), [isl.dim_type.set])
        extra_domain = str(domain)
    return TemporalForm(
        kernel=knl, output=st.output, input=inp, inames=inames,
        extents=tuple(a.extent for a in st.axes), out_offsets=out_offsets, shape=shape,
        halo=halo, registers=registers, others=tuple(global_reads), extra_inames=extra,
        extra_domain=extra_domain,
        itemsize=int(np.dtype(knl.arg_dict[st.output].dtype.numpy_dtype).itemsize))


def _point_offsets(sub: Any, inames: tuple[str, ...]) -> tuple[int, ...] | None:
    """The constant offsets of a subscript that reads exactly the point (``f[i + 1, j + 16]``),
    or None when it reads elsewhere or not along every axis."""
    if len(sub.index_tuple) != len(inames):
        return None
    out = []
    for d, expr in enumerate(sub.index_tuple):
        terms = _affine(expr)
        if terms is None or set(terms) - {1} != {inames[d]} or terms[inames[d]] != 1:
            return None
        out.append(int(terms.get(1, 0)))
    return tuple(out)


def input_offsets(form: TemporalForm) -> list[tuple[Any, ...]]:
    """Per read of the input in the update, its offset from the updated point per axis (an int,
    or an expression where a loop moves it)."""
    from gencl.generate.temporal._update import offsets

    return [offsets(form, sub.index_tuple) for sub in _subscripts(form.kernel, {form.input})]
