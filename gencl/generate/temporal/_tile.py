"""Scheme "tile": overlapped tiling, the halo recomputed, k sweeps on one ``__local`` tile.

A work-group of shape W loads a tile of L = W × P points (P per work item per axis: the work
items cover it exactly, ``l + W·q`` for q < P, an unrolled loop) and owns its inner part
T = L − k·(lo + hi) per axis, the rest being the margin the k sweeps consume. Read-only arrays
read only at the point go to private registers for the owned points. Once per owned point it
computes how many sweeps the point is computed at (0 outside the physical interior, else the
margins between it and the tile's edges, capped at k), so a sweep's guard is one comparison.
The tile has two halves (ping-pong): sweep s reads half s % 2 and writes half (s + 1) % 2, one
barrier per sweep (a single tile with private staging needs two: compute, barrier, write back,
barrier — the barriers cost Jacobi on the H200 more than the local memory it saves). Both halves
get the loaded values, so points outside the interior keep theirs (the boundary) whichever half a
sweep reads. After k sweeps the points that survived all k go to the output. Every global load
is guarded by the array's bounds (tiles overhang the grid).
"""

from __future__ import annotations

from typing import Any

import loopy as lp
import numpy as np
import pymbolic.primitives as prim
from pymbolic import parse

from gencl.generate.temporal._form import TemporalForm
from gencl.generate.temporal._geometry import Geometry
from gencl.generate.temporal._names import fresh_prefix
from gencl.generate.temporal._update import place_update


def _and(conds: list[Any]) -> Any:
    conds = [c for c in conds if c is not True]
    if not conds:
        return True
    return conds[0] if len(conds) == 1 else prim.LogicalAnd(tuple(conds))


def in_bounds(form: TemporalForm, index: list[Any]) -> Any:
    """Whether buffer *index* lies inside the input's shape."""
    return _and([c for d, b in enumerate(index) for c in (
        prim.Comparison(b, ">=", 0), prim.Comparison(b, "<", parse(form.shape[d])))])


def arguments_and_domains(form: TemporalForm, geo: Geometry, v: str) -> tuple[list, list[str]]:
    """The program's arguments, and the domains of the group and local inames."""
    knl = form.kernel
    args = list(knl.args)
    domains = []
    for d in range(form.ndim):
        if geo.scheme == "stream" and d == 0:
            domains.append(f"{{[{v}g0]: 0 <= {v}g0 and {geo.points[0]} * {v}g0 < "
                           f"{form.extents[0]}}}")
            continue
        domains.append(f"{{[{v}g{d}]: 0 <= {v}g{d} and {geo.tile[d]} * {v}g{d} < "
                       f"{form.extents[d]}}}")
        domains.append(f"{{[{v}l{d}]: 0 <= {v}l{d} < {geo.group[d]}}}")
    if form.extra_domain:
        domains.append(form.extra_domain)
    return args, domains


def hardware_tags(geo: Geometry, v: str) -> dict[str, str]:
    """Group and local iname tags: axis 0 of OpenCL is the contiguous (last) axis."""
    n = geo.ndim
    tags = {}
    for d in range(n):
        tags[f"{v}g{d}"] = f"g.{n - 1 - d}"
        if not (geo.scheme == "stream" and d == 0):
            tags[f"{v}l{d}"] = f"l.{n - 1 - d}"
    return tags


def in_half(half: Any, coords: list[Any]) -> tuple[Any, ...]:
    """The index of a tile point in one of the tile's two halves."""
    return (half, *coords)


def blocked_kernel(knl: Any, domains: list[str], insns: list[Any], args: list[Any],
                   temps: list[Any], renamed: Any) -> lp.TranslationUnit:
    """The blocked program of either scheme from its parts: the update's own private
    temporaries under their new names (*renamed*: (old, new) pairs) and the dependencies as
    written: loopy would add one from each reader of a tile or ring to its single writer and
    sync them, when the barriers the schemes write order them already."""
    temps = list(temps) + [
        lp.TemporaryVariable(new, knl.temporary_variables[name].dtype, shape=(),
                             address_space=lp.AddressSpace.PRIVATE) for name, new in renamed]
    return lp.make_kernel(domains, [i.copy(depends_on_is_final=True) for i in insns],
                          args + temps, name=knl.name, target=lp.PyOpenCLTarget(),
                          lang_version=(2018, 2), seq_dependencies=False,
                          silenced_warnings=_SILENCED)


def tile_program(form: TemporalForm, geo: Geometry) -> lp.TranslationUnit:
    """The tile scheme's program (see the module docstring)."""
    knl = form.kernel
    v = fresh_prefix(knl)
    n, k = form.ndim, geo.sweeps
    var = prim.Variable
    dtype = knl.arg_dict[form.output].dtype
    args, domains = arguments_and_domains(form, geo, v)
    tile_name, depth = f"{v}tile", f"{v}depth"
    loops = {"load": "a", "depth": "e", "sweep": "c", "store": "o",
             **({"reg": "f"} if form.registers else {})}
    for c in loops.values():
        for d in range(n):
            domains.append(f"{{[{v}{c}{d}]: 0 <= {v}{c}{d} < {geo.owned[d]}}}")
    domains.append(f"{{[{v}s]: 0 <= {v}s < {k}}}")
    hw = frozenset(hardware_tags(geo, v))

    def local(c: str) -> list[Any]:  # tile coordinate of a work item's owned point
        return [var(f"{v}l{d}") + geo.group[d] * var(f"{v}{c}{d}") for d in range(n)]

    def owned(c: str) -> tuple[Any, ...]:
        return tuple(var(f"{v}{c}{d}") for d in range(n))

    def interior_coord(tt: list[Any]) -> list[Any]:  # interior coordinate of a tile point
        return [geo.tile[d] * var(f"{v}g{d}") + (tt[d] - k * geo.lo[d] if k * geo.lo[d] else
                                                 tt[d]) for d in range(n)]

    def interior(x: list[Any]) -> list[Any]:
        return [c for d in range(n) for c in (prim.Comparison(x[d], ">=", 0),
                                               prim.Comparison(x[d], "<", parse(form.extents[d])))]

    def valid_sweeps(tt: list[Any]) -> Any:
        """Sweeps a tile point is computed at: sweep s needs it (s + 1)·(lo, hi) inside the
        tile's edges (a chain of ifs: loopy's op counts take no min)."""
        out: Any = 0
        for s in range(k):
            cond = _and([c for d in range(n) for c in (
                [prim.Comparison(tt[d], ">=", geo.lo[d] * (s + 1))] if geo.lo[d] else []) + (
                [prim.Comparison(tt[d], "<", geo.loaded[d] - geo.hi[d] * (s + 1))]
                if geo.hi[d] else [])])
            out = s + 1 if cond is True else prim.If(cond, s + 1, out)
        return out

    insns: list[Any] = []
    # load the input tile (zero outside the buffer): the work items cover it exactly
    tt = local("a")
    buf = [x + form.out_offsets[d] for d, x in enumerate(interior_coord(tt))]
    insns.append(lp.Assignment(
        var(tile_name)[in_half(0, tt)],
        prim.If(in_bounds(form, buf), var(form.input)[tuple(buf)], 0),
        id=f"{v}load", within_inames=hw | {f"{v}a{d}" for d in range(n)}))
    # both halves: a point no sweep updates (the boundary) is read from either
    insns.append(lp.Assignment(
        var(tile_name)[in_half(1, tt)], var(tile_name)[in_half(0, tt)], id=f"{v}load2",
        depends_on=frozenset({f"{v}load"}),
        within_inames=hw | {f"{v}a{d}" for d in range(n)}))
    # per owned point, once: the sweeps it is computed at (0 outside the interior); a sweep's
    # condition is then one comparison, not the interior's and the margins' every time
    tt = local("e")
    insns.append(lp.Assignment(
        var(depth)[owned("e")],
        prim.If(_and(interior(interior_coord(tt))), valid_sweeps(tt), 0),
        id=f"{v}depth", within_inames=hw | {f"{v}e{d}" for d in range(n)}))
    load_ids = {f"{v}load", f"{v}load2", f"{v}depth"}
    # read-only arrays read at the point: private registers for the owned points
    temps = [lp.TemporaryVariable(tile_name, dtype, shape=(2, *geo.loaded),
                                  address_space=lp.AddressSpace.LOCAL),
             lp.TemporaryVariable(depth, np.int32, shape=geo.owned,
                                  address_space=lp.AddressSpace.PRIVATE)]
    tt = local("f")
    x = interior_coord(tt)
    for name, offs in form.registers.items():
        reg = f"{v}reg_{name}"
        temps.append(lp.TemporaryVariable(reg, knl.arg_dict[name].dtype, shape=geo.owned,
                                          address_space=lp.AddressSpace.PRIVATE))
        insns.append(lp.Assignment(
            var(reg)[owned("f")], var(name)[tuple(x[d] + offs[d] for d in range(n))],
            id=f"{v}reg_{name}", depends_on=frozenset({f"{v}depth"}),
            within_inames=hw | {f"{v}f{d}" for d in range(n)},
            predicates=frozenset({prim.Comparison(var(depth)[owned("f")], ">", 0)})))
        load_ids.add(f"{v}reg_{name}")

    sweep = var(f"{v}s")
    insns.append(lp.BarrierInstruction(f"{v}bar_top", synchronization_kind="local",
                                       mem_kind="local", depends_on=frozenset(load_ids),
                                       within_inames=frozenset({f"{v}s"})))
    tt = local("c")
    x = interior_coord(tt)
    at = owned("c")
    temporaries: dict[str, str] = {}
    update, last = place_update(
        form, prefix=f"{v}u_", coords={form.inames[d]: x[d] for d in range(n)},
        read_input=lambda off: var(tile_name)[
            in_half(prim.Remainder(sweep, 2), [tt[d] + off[d] for d in range(n)])],
        read_register=lambda name: var(f"{v}reg_{name}")[at],
        result=var(tile_name)[in_half(prim.Remainder(sweep + 1, 2), tt)],
        within=frozenset(hw | {f"{v}s"} | {f"{v}c{d}" for d in range(n)}),
        predicates=frozenset({prim.Comparison(sweep, "<", var(depth)[at])}),
        depends_on=frozenset({f"{v}bar_top"}), temporaries=temporaries)
    # the update reads one half and writes the other: no barrier between its instructions
    # (loopy sees one tile array read and written; the halves are disjoint)
    apart = frozenset((i.id, "any") for i in update)
    insns += [i.copy(no_sync_with=i.no_sync_with | apart) for i in update]
    insns.append(lp.BarrierInstruction(f"{v}bar_end", synchronization_kind="local",
                                       mem_kind="local", depends_on=frozenset({last})))
    # the output: the owned points that survived all k sweeps (the interior only; the boundary
    # sits in both buffers already)
    tt = local("o")
    x = interior_coord(tt)
    insns.append(lp.Assignment(
        var(form.output)[tuple(x[d] + form.out_offsets[d] for d in range(n))],
        var(tile_name)[in_half(k % 2, tt)], id=f"{v}store", depends_on=frozenset({f"{v}bar_end"}),
        within_inames=frozenset(hw | {f"{v}o{d}" for d in range(n)}),
        predicates=frozenset({prim.Comparison(var(depth)[owned("o")], ">=", k)})))
    t = blocked_kernel(knl, domains, insns, args, temps, temporaries.items())
    t = lp.tag_inames(t, hardware_tags(geo, v))
    # the depth flags stand for the interior and margin guards: loopy's bounds check cannot
    # follow them (the tests read NaN pads)
    t = lp.set_options(t, enforce_array_accesses_within_bounds="no_check")
    t = lp.tag_inames(t, {f"{v}{c}{d}": "unr" for c in loops.values() for d in range(n)})
    return lp.prioritize_loops(t, ",".join([f"{v}s"] + [f"{v}c{d}" for d in range(n)]))


#: the tile is written by every work-group (loopy cannot see the ownership is disjoint); a half
#: is written and read under the same predicate in different loops
_SILENCED = ["write_race*", "v1_scheduler_fallback", "read_no_write*"]
