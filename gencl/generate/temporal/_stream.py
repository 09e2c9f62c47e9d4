"""Scheme "stream" (AN5D-style): the k time levels pipelined along the outermost axis.

A work-group tiles the inner axes (2-D: a strip of columns, 3-D: an x-y tile; output tile T =
W × P, loaded L = T + k·(lo + hi) per inner axis, overlapped like the tile scheme) and walks a
chunk of C planes (the outermost entry of the points) of the outermost axis, starting k·lo
planes early (chunks overlap by the warm-up). Time level 0 is the input, loaded one plane per
step; each level s < k keeps a ring of lo + hi + 2 planes in ``__local`` memory; at step t level
s computes the plane t − s·(hi + 1) from level s − 1's ring (planes written in earlier steps
only, so all levels of a step run without a barrier between them: one barrier per step), and
level k writes the output. A point outside the interior copies its value from the level below
(the boundary, loaded once). Each level computes only the planes and inner points the levels
above it need. Read-only arrays read at the point are read from global memory at the plane a
level needs (they hit the caches: k reads per point and launch).
"""

from __future__ import annotations

from typing import Any

import loopy as lp
import pymbolic.primitives as prim
from pymbolic import parse

from gencl.generate.temporal._form import TemporalForm
from gencl.generate.temporal._geometry import Geometry
from gencl.generate.temporal._names import fresh_prefix
from gencl.generate.temporal._tile import (
    _SILENCED, _and, arguments_and_domains, hardware_tags, in_bounds)
from gencl.generate.temporal._update import place_update


def stream_program(form: TemporalForm, geo: Geometry) -> lp.TranslationUnit:
    """The stream scheme's program (see the module docstring)."""
    knl = form.kernel
    v = fresh_prefix(knl)
    n, k, c = form.ndim, geo.sweeps, geo.points[0]
    lo0, hi0, ring, delay = geo.lo[0], geo.hi[0], geo.ring, geo.delay
    var = prim.Variable
    dtype = knl.arg_dict[form.output].dtype
    args, domains = arguments_and_domains(form, geo, v)
    inner = range(1, n)
    for d in inner:
        domains.append(f"{{[{v}q{d}]: 0 <= {v}q{d} < {geo.owned[d]}}}")
    domains.append(f"{{[{v}t]: 0 <= {v}t < {geo.steps}}}")
    step = var(f"{v}t")
    hw = frozenset(hardware_tags(geo, v))
    within = frozenset(hw | {f"{v}t"} | {f"{v}q{d}" for d in inner})
    tt = {d: var(f"{v}l{d}") + geo.group[d] * var(f"{v}q{d}") for d in inner}
    # interior coordinates: plane rp (relative to the chunk's first loaded plane), inner points
    first = c * var(f"{v}g0") - k * lo0 if k * lo0 else c * var(f"{v}g0")
    xs = {d: geo.tile[d] * var(f"{v}g{d}") + (tt[d] - k * geo.lo[d] if k * geo.lo[d] else tt[d])
          for d in inner}
    rings = [f"{v}ring{s}" for s in range(k)]
    temps = [lp.TemporaryVariable(name, dtype, shape=(ring, *geo.loaded[1:]),
                                  address_space=lp.AddressSpace.LOCAL) for name in rings]

    def plane(s: int) -> Any:  # the relative plane level s works on at this step
        return step - s * delay if s else step

    def coords(s: int) -> list[Any]:
        return [first + plane(s), *(xs[d] for d in inner)]

    def needed(s: int) -> list[Any]:
        """Level s computes the planes the levels above need: [s·lo, C + k·lo + (k−s)·hi)."""
        lo_t, hi_t = s * (lo0 + delay), c + k * lo0 + (k - s) * hi0 + s * delay
        out = [prim.Comparison(step, "<", hi_t)]
        if lo_t:
            out.append(prim.Comparison(step, ">=", lo_t))
        return out

    def live(s: int) -> list[Any]:
        out = []
        for d in inner:
            if geo.lo[d] * s:
                out.append(prim.Comparison(tt[d], ">=", geo.lo[d] * s))
            if geo.hi[d] * s or geo.loaded[d] % geo.group[d]:
                out.append(prim.Comparison(tt[d], "<", geo.loaded[d] - geo.hi[d] * s))
        return out

    def interior(x: list[Any]) -> Any:
        return _and([cmp for d in range(n) for cmp in (
            prim.Comparison(x[d], ">=", 0), prim.Comparison(x[d], "<", parse(form.extents[d])))])

    def at(level: int, s: int, offsets: tuple[Any, ...] = ()) -> Any:
        """Level *level*'s ring at the plane level *s* works on (plus *offsets*)."""
        rp = plane(s) + offsets[0] if offsets and offsets[0] != 0 else plane(s)
        idx = [prim.Remainder(rp, ring)]
        idx += [tt[d] + offsets[d] if offsets and offsets[d] != 0 else tt[d] for d in inner]
        return var(rings[level])[tuple(idx)]

    insns: list[Any] = [lp.BarrierInstruction(
        f"{v}bar_step", synchronization_kind="local", mem_kind="local",
        within_inames=frozenset({f"{v}t"}))]
    after = frozenset({f"{v}bar_step"})
    # level 0: the input plane, zero outside the buffer
    buf = [x + form.out_offsets[d] for d, x in enumerate(coords(0))]
    insns.append(lp.Assignment(
        at(0, 0), prim.If(in_bounds(form, buf), var(form.input)[tuple(buf)], 0),
        id=f"{v}load", depends_on=after, within_inames=within,
        predicates=frozenset(needed(0) + live(0))))
    temporaries: list[tuple[str, str]] = []
    for s in range(1, k + 1):
        x = coords(s)
        inside = interior(x)
        if s < k:
            result = at(s, s)
        else:
            result = var(form.output)[tuple(x[d] + form.out_offsets[d] for d in range(n))]
        mine: dict[str, str] = {}

        def below(off: tuple[Any, ...], s: int = s) -> Any:
            return at(s - 1, s, off)

        def register(name: str, x: list[Any] = x) -> Any:
            return var(name)[tuple(x[d] + form.registers[name][d] for d in range(n))]

        update, _ = place_update(
            form, prefix=f"{v}s{s}_", coords={form.inames[d]: x[d] for d in range(n)},
            read_input=below, read_register=register, result=result, within=within,
            predicates=frozenset(needed(s) + live(s) + [inside]),
            depends_on=after, temporaries=mine)
        temporaries += mine.items()
        insns += update
        if s < k:  # outside the interior: the level below's value (the boundary) carries over
            insns.append(lp.Assignment(
                at(s, s), at(s - 1, s), id=f"{v}keep{s}", depends_on=after, within_inames=within,
                predicates=frozenset(needed(s) + live(s) + [prim.LogicalNot(inside)])))
    for name, new in temporaries:
        tv = knl.temporary_variables[name]
        temps.append(lp.TemporaryVariable(new, tv.dtype, shape=(),
                                          address_space=lp.AddressSpace.PRIVATE))
    # dependencies as written: loopy would add one from each reader of a tile or ring to its
    # single writer and sync them, when the barriers written here order them already
    insns = [i.copy(depends_on_is_final=True) for i in insns]
    t = lp.make_kernel(domains, insns, args + temps, name=knl.name,
                       target=lp.PyOpenCLTarget(), lang_version=(2018, 2),
                       seq_dependencies=False, silenced_warnings=_SILENCED)
    # levels of one step touch different planes of a ring; a plane written at one step is read
    # at later ones, after the step barrier: an order loopy's check cannot see across steps
    t = lp.set_options(t, enforce_variable_access_ordered="no_check")
    t = lp.tag_inames(t, hardware_tags(geo, v))
    t = lp.tag_inames(t, {f"{v}q{d}": "unr" for d in inner})
    return lp.prioritize_loops(t, ",".join([f"{v}t"] + [f"{v}q{d}" for d in inner]))
