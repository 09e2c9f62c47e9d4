"""What a temporally blocked launch moves: exact counts of what the generated code does.

Every guard of the schemes is a conjunction of one interval per axis (of the tile coordinate,
the interior coordinate, the step), so a count over all work-groups is a product over axes of
per-axis sums over that axis's groups. ``tile_traffic`` evaluates those sums at given sizes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gencl.generate.temporal._form import TemporalForm
from gencl.generate.temporal._geometry import Geometry, geometry
from gencl.generate.temporal._program import local_bytes


def reads_per_update(form: TemporalForm) -> dict[str, int]:
    """Element reads of each array one point update does (a radius sum counts its terms)."""
    import loopy as lp
    from loopy.symbolic import WalkMapper

    knl = form.kernel
    counts: dict[str, int] = {}

    def trips(inames: Any) -> int:
        return math.prod(int(knl.get_constant_iname_length(i)) for i in inames)

    class Walk(WalkMapper):
        def __init__(self, weight: int) -> None:
            super().__init__()
            self.weight = [weight]

        def map_reduction(self, expr, *args):
            self.weight.append(self.weight[-1] * trips(expr.inames))
            self.rec(expr.expr, *args)
            self.weight.pop()

        def map_subscript(self, expr, *args):
            name = getattr(expr.aggregate, "name", None)
            if name in knl.arg_dict:
                counts[name] = counts.get(name, 0) + self.weight[-1]
            return super().map_subscript(expr, *args)

    for insn in knl.instructions:
        if isinstance(insn, lp.Assignment):
            Walk(trips(insn.within_inames - set(form.inames)))(insn.expression)
    return counts


def ring_reads_per_update(form: TemporalForm) -> tuple[int, int]:
    """The stream scheme's ``__local`` reads per point update: the input reads off the work
    item's own column (an inner-axis offset, or a plane offset a radius loop moves; the own
    column's planes are registers), split into those of instructions that run at every worked
    point (no global read: not guarded by the interior) and those that run at updates only."""
    import loopy as lp
    from loopy.symbolic import WalkMapper

    from gencl.generate.temporal._update import offsets

    knl = form.kernel
    unguarded = guarded = 0

    def trips(inames: Any) -> int:
        return math.prod(int(knl.get_constant_iname_length(i)) for i in inames)

    class Walk(WalkMapper):
        def __init__(self, weight: int) -> None:
            super().__init__()
            self.weight, self.count = [weight], 0

        def map_reduction(self, expr, *args):
            self.weight.append(self.weight[-1] * trips(expr.inames))
            self.rec(expr.expr, *args)
            self.weight.pop()

        def map_subscript(self, expr, *args):
            if getattr(expr.aggregate, "name", None) == form.input:
                off = offsets(form, expr.index_tuple)
                if not all(isinstance(o, int) for o in off) or any(off[1:]):
                    self.count += self.weight[-1]
            return super().map_subscript(expr, *args)

    for insn in knl.instructions:
        if not isinstance(insn, lp.Assignment):
            continue
        walk = Walk(trips(insn.within_inames - set(form.inames)))
        walk(insn.expression)
        writes_output = getattr(getattr(insn.assignee, "aggregate", None), "name",
                                None) == form.output
        reads_global = bool(insn.read_dependency_names() & (set(knl.arg_dict) - {form.input}))
        if writes_output or reads_global:
            guarded += walk.count
        else:
            unguarded += walk.count
    return unguarded, guarded


def _overlap(a: int, b: int, c: int, d: int) -> int:
    return max(0, min(b, d) - max(a, c))


def _axis_sum(groups: int, span: int, count: Callable[[int], int]) -> int:
    return sum(count(g) for g in range(groups)) if span > 0 else 0


def copy_bytes_in_flight(geo: Geometry, itemsize: int) -> int:
    """Global bytes one work item keeps in flight through asynchronous copies (``lead`` planes
    of its points): C code to loopy, so its counts miss them, and Little's law needs them."""
    return itemsize * geo.per_item * geo.lead


def tile_traffic(form: TemporalForm, scheme: str, sweeps: int, workgroup: Sequence[int],
                 points: Sequence[int], sizes: Mapping[str, int]) -> dict[str, float]:
    """Per launch at *sizes*: what the blocked program of these values moves and computes.

    Keys: ``global_read_bytes`` (every global load issued: the input tile or planes with their
    margins, the read-only arrays, a coefficient re-read per update included),
    ``global_write_bytes`` (the interior, once), ``point_updates`` (all sweeps, redundant margin
    work included), ``local_read_bytes``/``local_write_bytes`` (``__local`` tile or ring
    accesses), ``barriers_per_group``, ``groups``, ``local_bytes`` (per group) and
    ``compulsory_bytes`` (the input and the read-only arrays read once, the output written once
    per launch) and, with asynchronous copies, ``copy_bytes_in_flight_per_item``
    (``copy_bytes_in_flight``); ``vectorized_updates`` (1) where the updates are a loop along the
    contiguous axis that the compiler vectorizes (strip).
    """
    import pymbolic

    geo = geometry(form, scheme, sweeps, workgroup, points)
    n, k, size = form.ndim, geo.sweeps, form.itemsize
    ext = [int(pymbolic.evaluate(pymbolic.parse(e), dict(sizes))) for e in form.extents]
    shape = [int(pymbolic.evaluate(pymbolic.parse(e), dict(sizes))) for e in form.shape]
    reads = reads_per_update(form)
    own_reads = reads.get(form.input, 0)
    register_reads = sum(reads.get(a, 0) for a in form.registers)
    other_reads = sum(reads.get(a, 0) for a in form.others)
    slots = [geo.owned[d] * geo.group[d] for d in range(n)]

    def start(d: int, g: int) -> int:  # interior coordinate of tile point 0 of group g
        return g * geo.tile[d] - k * geo.lo[d]

    def count(d: int, lo_tt: int, hi_tt: int, lo_x: int | None = None,
              hi_x: int | None = None) -> int:
        """Σ over the groups of axis d of #{tile points tt in [lo_tt, hi_tt) whose
        interior coordinate lies in [lo_x, hi_x)} (no bound on x when None)."""
        groups = -(-ext[d] // geo.tile[d])
        hi_tt = min(hi_tt, slots[d])

        def one(g: int) -> int:
            if lo_x is None or hi_x is None:
                return max(0, hi_tt - lo_tt)
            return _overlap(lo_tt, hi_tt, lo_x - start(d, g), hi_x - start(d, g))
        return _axis_sum(groups, hi_tt - lo_tt, one)

    def buffer_bounds(d: int) -> tuple[int, int]:  # interior coordinates the buffer holds
        return -form.out_offsets[d], shape[d] - form.out_offsets[d]

    groups = math.prod(-(-ext[d] // (geo.points[0] if geo.scheme == "stream" and d == 0 else
                                     geo.tile[d])) for d in range(n))
    if scheme == "tile":
        loaded = math.prod(count(d, 0, geo.loaded[d]) for d in range(n))
        fetched = math.prod(count(d, 0, geo.loaded[d], *buffer_bounds(d)) for d in range(n))

        def live(d: int, s: int) -> tuple[int, int]:
            return geo.lo[d] * (s + 1), geo.loaded[d] - geo.hi[d] * (s + 1)

        updates = sum(math.prod(count(d, *live(d, s), 0, ext[d]) for d in range(n))
                      for s in range(k))
        registers = math.prod(count(d, *live(d, 0), 0, ext[d]) for d in range(n))
        out = {
            "global_read_bytes": size * (fetched + registers * len(form.registers)
                                         + other_reads * updates),
            "point_updates": updates,
            # the load fills both halves (the second copied from the first)
            "local_read_bytes": size * (own_reads * updates + loaded),
            "local_write_bytes": size * (2 * loaded + updates),
            "barriers_per_group": k + 1,
            # the registers' arrays are read once, into registers; the others at every update
            "global_reading_updates": updates if other_reads else 0,
        }
    elif scheme == "strip":
        # only the tile points inside the buffer are loaded (into both halves); the read-only
        # arrays are read from global memory at every update (their tile stays in the cache)
        fetched = math.prod(count(d, 0, geo.loaded[d], *buffer_bounds(d)) for d in range(n))

        def live(d: int, s: int) -> tuple[int, int]:
            return geo.lo[d] * (s + 1), geo.loaded[d] - geo.hi[d] * (s + 1)

        updates = sum(math.prod(count(d, *live(d, s), 0, ext[d]) for d in range(n))
                      for s in range(k))
        out = {
            "global_read_bytes": size * (fetched + (register_reads + other_reads) * updates),
            "point_updates": updates,
            "local_read_bytes": size * (own_reads * updates + fetched),
            "local_write_bytes": size * (2 * fetched + updates),
            "barriers_per_group": 0,
            "global_reading_updates": updates if register_reads + other_reads else 0,
            # one item runs each sweep as nested loops, the contiguous axis innermost with
            # its bounds computed once per row: the loop the compiler vectorizes
            "vectorized_updates": 1,
        }
    else:
        c, lo0, hi0, delay = geo.points[0], geo.lo[0], geo.hi[0], geo.delay
        chunks = -(-ext[0] // c)

        def planes(s: int, inside: bool) -> int:
            """Σ over chunks of the steps at which level s works (on interior planes)."""
            lo_t, hi_t = s * (lo0 + delay), c + k * lo0 + (k - s) * hi0 + s * delay
            total = 0
            for g in range(chunks):
                # plane at step t: g·c − k·lo + t − s·delay
                shift = g * c - k * lo0 - s * delay
                if inside:
                    total += _overlap(lo_t, hi_t, -shift, ext[0] - shift)
                else:
                    total += max(0, hi_t - lo_t)
            return total

        def plane_fetch() -> int:
            lo_b, hi_b = buffer_bounds(0)
            return sum(_overlap(0, c + k * (lo0 + hi0), lo_b - (g * c - k * lo0),
                                hi_b - (g * c - k * lo0)) for g in range(chunks))

        def live(d: int, s: int) -> tuple[int, int]:
            return geo.lo[d] * s, geo.loaded[d] - geo.hi[d] * s

        inner = range(1, n)
        loaded = planes(0, False) * math.prod(count(d, 0, geo.loaded[d]) for d in inner)
        fetched = plane_fetch() * math.prod(count(d, 0, geo.loaded[d], *buffer_bounds(d))
                                            for d in inner)
        per_level = [planes(s, True) * math.prod(count(d, *live(d, s), 0, ext[d])
                                                 for d in inner) for s in range(k + 1)]
        worked = [planes(s, False) * math.prod(count(d, *live(d, s)) for d in inner)
                  for s in range(k + 1)]
        updates = sum(per_level[1:])
        unguarded, guarded = ring_reads_per_update(form)
        out = {
            "global_read_bytes": size * (fetched + (register_reads + other_reads) * updates),
            "point_updates": updates,
            # (copied asynchronously, level 0's registers are read back from its ring)
            "local_read_bytes": size * (sum(unguarded * worked[s] + guarded * per_level[s]
                                            for s in range(1, k + 1))
                                        + (loaded if geo.copy == "async" else 0)),
            # every worked point of a level below k shares its plane (carried values too)
            "local_write_bytes": size * (loaded + sum(worked[1:k])),
            "barriers_per_group": geo.steps,
            "global_reading_updates": updates if register_reads + other_reads else 0,
        }
    if geo.copy == "async":
        out["copy_bytes_in_flight_per_item"] = copy_bytes_in_flight(geo, size)
    interior = math.prod(ext)
    # the read-only arrays' loads beyond one of each element: lines an earlier update (of
    # this level or the one before) brought into the cache
    read_only = out["global_read_bytes"] - size * fetched
    arrays = len(form.registers) + len(form.others)
    out["reread_read_only_bytes"] = max(0, read_only - size * interior * arrays)
    out.update({
        "global_write_bytes": size * interior,
        "groups": groups,
        "local_bytes": local_bytes(form, geo),
        "compulsory_bytes": size * interior * (2 + len(form.registers)),
    })
    return {key: float(value) for key, value in out.items()}
