"""Reuse of stencil neighbours through the caches: re-reads of rows (2-D) and planes (3-D).

A stencil reads each element several times (its neighbours' reads: the rows above and below in
2-D, the planes before and after in 3-D). The re-reads beyond an array's footprint are served by
a cache only while the data between the first and the last use stays in it. The live set is
estimated from what the resident wave of work items touches at once: one access of every global
site per resident item (its neighbour rows or planes included), as the memory-latency term counts
bytes in flight. Where it exceeds the largest measured cache level (``cache_levels`` of the
profile), the share that does not fit comes from DRAM again. Known limit: the reuse distance of
a plane (3-D) is the data streamed while one plane passes, which loopy's per-launch counts do not
state; a wave that streams planes is priced as if its in-flight set were the live set.

Reuse of lane-by-lane vector accesses through the first-level cache. loopy emits a vector access
it cannot vectorize one lane at a time (a branch-form floatN stencil): each lane reads its chunk
in successive instructions, so every line a sub-group touches is requested again and again over
the item's whole body. Those requests hit the first level only while the lines of all resident
sub-groups fit it: ``hit = min(1, L1 / (resident sub-groups × lines per sub-group × line))``,
L1 the smallest measured cache level, the lines counted exactly per variant
(``KernelStats.extra["per_lane_lines"]``). The rest go on to the next level, priced at its
measured request rate (``l2_requests_per_s``, the cache_requests benchmark's level-2 points).
"""

from __future__ import annotations

from collections.abc import Iterable

from gencl.model._params import ModelParams
from gencl.model._stats import Access, KernelStats


def live_bytes(resident_items: float, accesses: Iterable[Access]) -> float:
    """Bytes the resident wave keeps live: one access of every global site per resident item."""
    return resident_items * sum(a.itemsize * (1 if a.per_lane else a.vec_width)
                                for a in accesses if a.space == "global")


def dram_bytes(moved: float, footprint: float, live: float, p: ModelParams) -> float:
    """DRAM bytes of one array read *moved* bytes over a *footprint*-byte array: the footprint
    once, plus the re-reads the largest cache level cannot hold."""
    if not p.cached or moved <= footprint:
        return min(moved, footprint) if p.cached else moved
    cache = max(p.cache_level_bytes, default=0) or p.cache_bytes
    miss = 0.0 if live <= cache else 1.0 - cache / live
    return footprint + (moved - footprint) * miss


def per_lane_hit_share(stats: KernelStats, resident_items: float, p: ModelParams) -> float:
    """Share of the lane-by-lane requests the first-level cache serves (1 where the lines of the
    resident sub-groups fit it, or where no first level or no line count is known)."""
    lines = stats.extra.get("per_lane_lines") or {}
    counted = {int(k): float(v) for k, v in lines.items()}
    if not counted or not p.cache_level_bytes:
        return 1.0
    line = min(counted, key=lambda size: abs(size - p.request_line_bytes))
    subgroups = resident_items / max(1, min(p.subgroup_size, stats.group_size))
    live = subgroups * counted[line] * line
    return min(1.0, p.cache_level_bytes[0] / live) if live > 0 else 1.0
