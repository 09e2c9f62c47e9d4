"""Scheme "strip": one work item per overlapped tile, the k sweeps as loops, no barriers.

The CPU form of the tile scheme. A work-group is ONE work item; it loads a tile of L points
per axis (the ``points`` of the temporal axes: the whole tile, not a share of it) into a
``__local`` scratch of two ping-pong halves, runs the k sweeps over it as plain nested loops
(the contiguous axis innermost: a loop LLVM vectorises) and writes back the inner part
T = L − k·(lo + hi) that survived all k sweeps. No other work item shares the tile, so there
is no barrier anywhere: PoCL turns each barrier region into a loop over the work items and keeps
what crosses a barrier in memory, which is what makes the GPU schemes slow on a CPU.

Every guard is a loop bound. Sweep s (0-based) updates the tile points at least (s + 1)
margins inside the tile's edges that lie in the physical interior: both are intervals per axis,
so they are the sweep loop's domain (max/min bounds computed once per row), not predicates in
the vectorised loop. Points outside the interior (the boundary) are loaded into both halves and
never written, so every sweep reads them from whichever half it reads. Only tile points inside
the buffer are loaded: an update reads its input inside the buffer (the one-sweep program
does), so the points a tile overhangs the buffer by are never read. Read-only arrays are read
from global memory at the point (their tile stays in the cache the scratch is sized to).
"""

from __future__ import annotations

from typing import Any

import loopy as lp
import pymbolic.primitives as prim

from gencl.generate.temporal._form import TemporalForm
from gencl.generate.temporal._geometry import Geometry
from gencl.generate.temporal._names import fresh_prefix
from gencl.generate.temporal._tile import blocked_kernel, in_half
from gencl.generate.temporal._update import place_update


def strip_program(form: TemporalForm, geo: Geometry) -> lp.TranslationUnit:
    """The strip scheme's program (see the module docstring)."""
    knl = form.kernel
    v = fresh_prefix(knl)
    n, k = form.ndim, geo.sweeps
    var = prim.Variable
    dtype = knl.arg_dict[form.output].dtype
    tile_name = f"{v}tile"
    domains: list[str] = []
    for d in range(n):
        domains.append(f"{{[{v}g{d}]: 0 <= {v}g{d} and {geo.tile[d]} * {v}g{d} < "
                       f"{form.extents[d]}}}")

    def start(d: int) -> str:
        """The interior coordinate of tile point 0 along axis d (group iname g_d)."""
        return f"{geo.tile[d]} * {v}g{d} - {k * geo.lo[d]}"

    def coord(d: int, c: str) -> Any:
        return geo.tile[d] * var(f"{v}g{d}") - k * geo.lo[d] + var(c)

    # the load: the tile points inside the buffer (the domain says which)
    load = [f"{v}a{d}" for d in range(n)]
    domains.append("{[" + ", ".join(load) + "]: " + " and ".join(
        f"0 <= {a} < {geo.loaded[d]} and {-form.out_offsets[d]} <= {start(d)} + {a} < "
        f"{form.shape[d]} - {form.out_offsets[d]}" for d, a in enumerate(load)) + "}")
    # sweep s: the points (s + 1) margins inside the tile that lie in the interior
    sweep = [f"{v}c{d}" for d in range(n)]
    domains.append(f"{{[{v}s, " + ", ".join(sweep) + f"]: 0 <= {v}s < {k} and " + " and ".join(
        f"{geo.lo[d]} * ({v}s + 1) <= {c} < {geo.loaded[d]} - {geo.hi[d]} * ({v}s + 1) and "
        f"0 <= {start(d)} + {c} < {form.extents[d]}" for d, c in enumerate(sweep)) + "}")
    # the store: the inner part that survived all k sweeps, in the interior
    store = [f"{v}o{d}" for d in range(n)]
    domains.append("{[" + ", ".join(store) + "]: " + " and ".join(
        f"{k * geo.lo[d]} <= {o} < {k * geo.lo[d] + geo.tile[d]} and "
        f"0 <= {start(d)} + {o} < {form.extents[d]}" for d, o in enumerate(store)) + "}")
    if form.extra_domain:
        domains.append(form.extra_domain)
    groups = frozenset(f"{v}g{d}" for d in range(n))

    insns: list[Any] = []
    at = [var(a) for a in load]
    buf = tuple(coord(d, load[d]) + form.out_offsets[d] for d in range(n))
    insns.append(lp.Assignment(var(tile_name)[in_half(0, at)], var(form.input)[buf],
                               id=f"{v}load", within_inames=groups | set(load)))
    insns.append(lp.Assignment(
        var(tile_name)[in_half(1, at)], var(tile_name)[in_half(0, at)], id=f"{v}load2",
        depends_on=frozenset({f"{v}load"}), within_inames=groups | set(load)))
    s = var(f"{v}s")
    tt = [var(c) for c in sweep]
    x = [coord(d, sweep[d]) for d in range(n)]
    temporaries: dict[str, str] = {}
    update, last = place_update(
        form, prefix=f"{v}u_", coords={form.inames[d]: x[d] for d in range(n)},
        read_input=lambda off: var(tile_name)[
            in_half(prim.Remainder(s, 2), [tt[d] + off[d] for d in range(n)])],
        read_register=lambda name: var(name)[
            tuple(x[d] + form.registers[name][d] for d in range(n))],
        result=var(tile_name)[in_half(prim.Remainder(s + 1, 2), tt)],
        within=groups | {f"{v}s", *sweep}, predicates=frozenset(),
        depends_on=frozenset({f"{v}load2"}), temporaries=temporaries)
    # one work item: its own earlier writes are all a read needs (no barrier); the halves a
    # sweep reads and writes are disjoint
    apart = frozenset((i.id, "any") for i in update) | {(f"{v}load", "any"),
                                                         (f"{v}load2", "any")}
    insns += [i.copy(no_sync_with=i.no_sync_with | apart) for i in update]
    ot = [var(o) for o in store]
    insns.append(lp.Assignment(
        var(form.output)[tuple(coord(d, store[d]) + form.out_offsets[d] for d in range(n))],
        var(tile_name)[in_half(k % 2, ot)], id=f"{v}store", depends_on=frozenset({last}),
        within_inames=groups | set(store), no_sync_with=apart))
    temps = [lp.TemporaryVariable(tile_name, dtype, shape=(2, *geo.loaded),
                                  address_space=lp.AddressSpace.LOCAL)]
    t = blocked_kernel(knl, domains, insns, list(knl.args), temps, temporaries.items())
    t = lp.tag_inames(t, {f"{v}g{d}": f"g.{n - 1 - d}" for d in range(n)})
    t = lp.tag_inames(t, {f"{v}s": "unr"})
    return lp.prioritize_loops(t, ",".join([f"{v}s", *sweep]))
