"""Reuse of stencil neighbours through the caches: re-reads of rows (2-D) and planes (3-D).

A stencil reads each element several times (its neighbours' reads: the rows above and below in
2-D, the planes before and after in 3-D). The re-reads beyond an array's footprint are served by
a cache only while the data between the first and the last use stays in it. The live set is
estimated from what the resident wave of work items touches at once: one access of every global
site per resident item (its neighbour rows or planes included), as the memory-latency term counts
bytes in flight. Where it exceeds the cache that spares DRAM a re-read (``reuse_cache_bytes``:
the largest measured level of the profile's ``cache_levels`` answering within half the DRAM
latency), the share that does not fit comes from DRAM again. This rule is the fallback where no
work item's trace could be counted (below): it cannot see the reuse distance of a plane (3-D),
the data streamed while one plane passes, and prices a wave that streams planes as if its
in-flight set were the live set.

Reuse distances from the order of one work item's accesses (``KernelStats.extra["item_trace"]``,
counted by ``gencl.model._stats._item_trace``). The live-set rule above cannot see when a re-read
comes: a row blocked around a streamed loop (``block_j`` rows, each streamed through
``stream_k`` planes in turn) reads its neighbour rows once as a neighbour and again, a whole
streamed loop later, as its own row; between the two the resident wave has moved megabytes.
The trace prices it: every item runs the same trace translated by its global ids (each array's
byte ``step`` per item along each axis), the items start in dispatch order (axis 0 fastest,
``resident`` of them at a time) and run at one pace, so the previous use of an address is the
nearest earlier (item, position) whose translated address equals it, and the bytes the cache
took in between are the elapsed positions × the resident items × the bytes one item brings in
per position (its DRAM traffic: its misses and stores over its positions, found by iterating
from "every access brings its bytes"). A load misses where that exceeds ``reuse_cache_bytes``.

Reuse of lane-by-lane vector accesses through the first-level cache. loopy emits a vector access
it cannot vectorize one lane at a time (a branch-form floatN stencil): each lane reads its chunk
in successive instructions, so every line a sub-group touches is requested again and again over
the item's whole body. Those requests hit the first level only while the lines of all resident
sub-groups fit it: ``hit = min(1, L1 / (resident sub-groups × lines per sub-group × line))``,
L1 the smallest measured cache level, the lines counted exactly per variant
(``KernelStats.extra["per_lane_lines"]``: a work-group's distinct lines over its sub-groups,
which share the compute unit's first level and hold a row two of them read once). The rest go
on to the next level, priced at its measured request rate (``l2_requests_per_s``, the
cache_requests benchmark's level-2 points).

What a work-group brings into the first level (``first_level_fills``). The first level belongs to
one compute unit, and the work-groups it holds at once are not each other's neighbours (groups
are handed out across the compute units, and a stencil's neighbour group along y or z is a row
or a plane of groups away), so every sector a group touches comes from the next level once: its
tile and its halo, every plane of a 3-D neighbourhood an unstreamed item reads. An unstreamed
star of radius 4 (star3d_r4, float) in 32×8 groups reads 9 planes of the group's tile and 8 halo
rows of the centre one: 46 bytes a point from the next level where DRAM moves 8, and it runs at
the next level's pace (H200: 839–883 µs measured; 865 µs for its line requests and sectors at
the level-2 rates, its rows 64 bytes into a line, 255 µs at DRAM's bandwidth); 128×1 groups
read 8 halo rows a point more (1,012 µs measured, 1,356 µs: half-line requests cost less than
the level-2 fit charges them, docs/tuning.md). Those sectors pass the next level as DRAM's
bytes pass it, so the slower of the two sets the pace (``_predict``). A request costs apart from its
sectors: a halo's side sector is a request of its own, and a row that starts 64 bytes into a
128-byte line is two half-line requests for each warp's load where an aligned row's is one.
The item trace keeps each address's place in an aligned block (``_stats._item_trace``), so the
group is laid out where its rows lie: the suite's rows, 64 bytes into a line, are priced so.
What the first level cannot hold until the group comes back to it, the group brings in again
(``first_level_refills``: each re-touch's LRU stack distance over the group's trace, times the
groups resident beside it, against the first level): a row blocked around a stream re-reads
its neighbour rows a whole stream later. Counted and shown, not priced (``_predict``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from gencl.model._params import ModelParams
from gencl.model._stats import Access, KernelStats


def live_bytes(resident_items: float, accesses: Iterable[Access]) -> float:
    """Bytes the resident wave keeps live: one access of every global site per resident item."""
    return resident_items * sum(a.instruction_bytes for a in accesses if a.space == "global")


def dram_bytes(moved: float, footprint: float, live: float, p: ModelParams) -> float:
    """DRAM bytes of one array read *moved* bytes over a *footprint*-byte array: the footprint
    once, plus the re-reads the cache that spares DRAM (``reuse_cache_bytes``) cannot hold."""
    if not p.cached or moved <= footprint:
        return min(moved, footprint) if p.cached else moved
    cache = p.reuse_cache_bytes or p.cache_bytes
    miss = 0.0 if live <= cache else 1.0 - cache / live
    return footprint + (moved - footprint) * miss


#: per read array of a trace: (positions since the nearest earlier use of each access, inf
#: where none; which accesses are loads; bytes per access)
ReuseGaps = dict[str, tuple[np.ndarray, np.ndarray, int]]


def reuse_gaps(trace: Mapping[str, Any] | None, resident_items: float) -> ReuseGaps:
    """The pairwise part of the reuse distances: for every access of one item's trace, the
    positions since the nearest earlier use of its address by any item; {} without a trace."""
    if not trace or not trace.get("arrays") or resident_items <= 0:
        return {}
    length = float(trace["length"])
    local, groups = list(trace["local"]), list(trace["groups"])
    groups += [1] * (len(local) - len(groups))
    group_size = float(np.prod(local))
    before = np.cumprod([1.0] + [float(g) for g in groups])[:len(local)]
    # items dispatched between an item and its neighbour one step along each axis
    dispatch = [before[d] * group_size / local[d] for d in range(len(local))]
    extent = trace.get("extent") or [groups[d] * local[d] for d in range(len(local))]
    elapsed: ReuseGaps = {}
    for name, a in trace["arrays"].items():
        if any(s == 0 for s in a["step"]):
            continue  # every item along an axis reads the same: left to the live-set rule
        pos = np.asarray(a["pos"], dtype=float)
        addr = np.asarray(a["addr"], dtype=np.int64)
        load = np.asarray(a["load"], dtype=bool)
        diff = addr[:, None] - addr[None, :]
        ok = np.ones(diff.shape, dtype=bool)
        # the item whose access j reads what access i reads is q steps on along each axis,
        # dispatched `later` items after this one
        later = np.zeros(diff.shape)
        steps = [(abs(s), d, s) for d, s in enumerate(a["step"]) if s]
        for _, d, step in sorted(steps, reverse=True):  # the largest step first
            q = np.rint(diff / step).astype(np.int64)
            diff = diff - q * step
            ok &= np.abs(q) < extent[d]
            later += q * dispatch[d]
        ok &= diff == 0
        np.fill_diagonal(ok, False)
        # positions from the other item's access to this one: it started later / resident
        # waves of `length` positions after this item
        gap = (pos[:, None] - pos[None, :]) - later * length / resident_items
        gap = np.where(ok & (gap > 0), gap, np.inf)
        elapsed[name] = (gap.min(axis=1), load, int(a["bytes"]))
    return elapsed


def miss_shares(gaps: ReuseGaps, length: float, resident_items: float, cache: float | None,
                *, iterations: int = 8) -> dict[str, float]:
    """Share of each read array's loads that miss a cache of *cache* bytes (None: a cache
    without end, only first uses miss), from ``reuse_gaps`` of a trace of *length* positions."""
    if cache is None:
        return {name: float(np.mean(np.isinf(gap[load])))
                for name, (gap, load, _) in gaps.items() if load.any()}
    per_position = sum(b * len(g) for g, _, b in gaps.values()) / length
    shares: dict[str, float] = {}
    for _ in range(iterations):
        brought = 0.0
        for name, (gap, load, size) in gaps.items():
            miss = ~(gap * per_position * resident_items <= cache)
            if load.any():
                shares[name] = float(np.mean(miss[load]))
            brought += size * (np.sum(miss & load) + np.sum(~load))
        if abs(brought / length - per_position) <= 1e-3 * per_position:
            break
        per_position = brought / length
    return shares


def trace_miss_shares(trace: Mapping[str, Any] | None, resident_items: float, cache: float,
                      *, iterations: int = 8) -> dict[str, float]:
    """Share of each read array's loads that miss a cache of *cache* bytes with
    *resident_items* items resident, from one item's trace; {} without a trace."""
    gaps = reuse_gaps(trace, resident_items)
    if not trace or not gaps or cache <= 0:
        return {}
    return miss_shares(gaps, float(trace["length"]), resident_items, cache,
                       iterations=iterations)


def trace_load_bytes(trace: Mapping[str, Any]) -> dict[str, float]:
    """Bytes one item's trace loads of each array."""
    return {name: float(sum(a["load"])) * a["bytes"] for name, a in trace["arrays"].items()}


def _group_touches(trace: Mapping[str, Any], *, sector: int, subgroup: int
                   ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per traced array: (its trace positions, the *sector*-byte sectors each of its instructions
    touches: [instruction, sub-group, sectors]) over one work-group, its items' trace translated
    by their local ids, the items in sub-groups of *subgroup* consecutive linear local ids (axis
    0 fastest), each position one sub-group instruction (a vector's components share one)."""
    local = [int(n) for n in trace["local"]]
    ids = np.indices(local).reshape(len(local), -1, order="F")  # linear local id order
    lanes = max(1, min(subgroup, ids.shape[1]))
    subgroups = ids.shape[1] // lanes  # whole sub-groups (a group is a multiple of the warp)
    out = []
    for a in trace["arrays"].values():
        addr = np.asarray(a["addr"], dtype=np.int64)
        if not len(addr):
            continue
        step = np.zeros(len(local), dtype=np.int64)
        step[:len(a["step"])] = np.asarray(a["step"], dtype=np.int64)[:len(local)]
        offsets = (step @ ids)[:subgroups * lanes].reshape(subgroups, lanes)
        # instructions (trace positions) × their components, padded with the last component
        positions, inst, count = np.unique(np.asarray(a["pos"]), return_inverse=True,
                                           return_counts=True)
        by_inst = addr[np.argsort(inst, kind="stable")]
        starts = np.concatenate([[0], np.cumsum(count)[:-1]])
        width = int(count.max())
        table = by_inst[starts[:, None] + np.minimum(np.arange(width)[None, :],
                                                     (count - 1)[:, None])]
        first = table[:, None, None, :] + offsets[None, :, :, None]
        touched = np.concatenate([first // sector, (first + int(a["bytes"]) - 1) // sector],
                                 axis=3).reshape(len(count), subgroups, -1)
        out.append((positions.astype(np.int64), touched))
    return out


def _first_touches(touched: np.ndarray) -> np.ndarray:
    """Which entries of a [instruction, sub-group, sectors] table touch their sector first: in
    the first instruction that touches it (flat order is instruction-major), in each of its
    sub-groups that touch it there."""
    flat = touched.ravel()
    _, where, inverse = np.unique(flat, return_index=True, return_inverse=True)
    per_inst = touched.shape[1] * touched.shape[2]
    new = (where // per_inst)[inverse.ravel()] == np.arange(flat.size) // per_inst
    return new.reshape(touched.shape)


def _distinct_lines(lines: np.ndarray) -> np.ndarray:
    """Per row of *lines* (-1: none), how many distinct lines it holds."""
    lines = np.sort(lines, axis=1)
    return ((np.diff(lines, axis=1) != 0) & (lines[:, 1:] >= 0)).sum(axis=1) + (lines[:, 0] >= 0)


def first_level_fills(trace: Mapping[str, Any] | None, *, line: int, sector: int,
                      subgroup: int) -> tuple[float, float] | None:
    """(line requests, bytes) one work-group makes of the next level: its items' trace
    translated by each item's local ids (``_group_touches``).

    Bytes: the distinct *sector*-byte sectors the group touches (loads bring each in at its first
    use, stores write theirs through). Requests: each sub-group instruction asks once for every
    *line* holding a sector no earlier instruction of the group brought in; the sub-groups of
    one instruction run together, so two that need different sectors of a line ask twice (a row
    64 bytes into a 128-byte line: each warp's load is two half-line requests, an aligned row's
    one). The group's first item reads the trace's addresses as they stand (``_stats`` keeps
    their place in a line). It assumes the first level holds what the group touched while the
    group reads it again; ``first_level_refills`` counts what it cannot hold. None without a
    trace."""
    if not trace or not trace.get("arrays") or not trace.get("length"):
        return None
    per_line = max(1, line // sector)
    requests = sectors = 0
    for _, touched in _group_touches(trace, sector=sector, subgroup=subgroup):
        new = _first_touches(touched)
        sectors += len(np.unique(touched))
        wanted = np.where(new, touched // per_line, -1).reshape(-1, touched.shape[2])
        requests += int(_distinct_lines(wanted).sum())
    return float(requests), float(sectors * sector)


def _dominated(t: np.ndarray, prev: np.ndarray, at: np.ndarray, before: np.ndarray
               ) -> np.ndarray:
    """For each query i: how many events e have ``t[e] <= at[i]`` and ``prev[e] <= before[i]``
    (a merge-sort tree over the events ordered by ``prev``: one sorted level per power of two,
    each query's prefix taken as its binary blocks)."""
    order = np.argsort(prev, kind="stable")
    by_prev, times = prev[order], t[order]
    prefix = np.searchsorted(by_prev, before, side="right")
    counts = np.zeros(len(at), dtype=np.int64)
    span = int(max(times.max(initial=0), at.max(initial=0))) + 2
    index = np.arange(len(times))
    level = 0
    while (1 << level) <= len(times):
        has = np.nonzero((prefix >> level) & 1)[0]
        if len(has):
            keys = np.sort((index >> level) * span + times)
            block = (prefix[has] >> (level + 1)) << 1  # the prefix's block of this size
            counts[has] += np.searchsorted(keys, block * span + at[has], side="right") \
                - block * (1 << level)
        level += 1
    return counts


def reuse_stack_distances(t: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For events (*t* a position, *key* what they touch; each (t, key) once): the position of
    the previous event with the same key (-1 for a first touch) and, for the others, how many
    distinct keys events strictly between the two touch (an LRU cache's stack distance)."""
    order = np.lexsort((t, key))
    same = np.r_[False, key[order][1:] == key[order][:-1]]
    prev = np.full(len(t), -1, dtype=np.int64)
    prev[order] = np.where(same, np.r_[-1, t[order][:-1]], -1)
    again = prev >= 0
    # a key is counted at its first touch inside the window: its previous touch is at or
    # before the window's start
    at, start = t[again] - 1, prev[again]
    return prev, _dominated(t, prev, at, start) - _dominated(t, prev, start, start)


def first_level_refills(trace: Mapping[str, Any] | None, *, line: int, sector: int,
                        subgroup: int, resident_groups: float, cache: float
                        ) -> tuple[float, float]:
    """(line requests, bytes) one work-group makes of the next level again for sectors it
    touched before and the first level no longer holds (``first_level_fills`` counts each
    sector once): a re-touch misses where the distinct sectors the group touched since the
    sector's previous use, times the *resident_groups* a compute unit holds (they run side by
    side on other data), exceed the *cache* bytes (an LRU cache's stack distance, per trace
    position). A stream's re-read rows: star3d_r4 with 4 rows an item around a 16-plane stream
    reads each neighbour row again a whole stream later, 207 KB of a group's sectors between
    the two uses, × 5 groups against a 218 KB first level (H200; a quarter of its re-touches):
    the L2 served 127 M sectors where the group's sectors once are 50 M (Nsight Compute,
    docs/tuning.md). Requests: per sub-group instruction, the distinct lines of its missed
    sectors that it does not request for new ones. Trace positions below 2^20
    (``_stats.MAX_TRACE_ACCESSES``). (0, 0) without a trace or a cache."""
    if not trace or not trace.get("arrays") or not trace.get("length") or cache <= 0:
        return 0.0, 0.0
    per_line = max(1, line // sector)
    tables = _group_touches(trace, sector=sector, subgroup=subgroup)
    # each entry's event: its array (bits 56 on), its position (36–55), its sector
    entries = [((np.repeat(positions, touched[0].size).reshape(touched.shape) << 36)
                | (touched - touched.min())) + (number << 56)
               for number, (positions, touched) in enumerate(tables)]
    keys = np.unique(np.concatenate([e.ravel() for e in entries]))  # each event once, sorted
    t = (keys & ((1 << 56) - 1)) >> 36
    prev, distance = reuse_stack_distances(t, keys & ~(((1 << 20) - 1) << 36))
    missed_keys = keys[prev >= 0][resident_groups * distance * sector > cache]
    if not len(missed_keys):
        return 0.0, 0.0
    requests = 0
    for (_, touched), entry in zip(tables, entries):
        missed = np.isin(entry, missed_keys)
        new = _first_touches(touched)
        lines = touched // per_line
        # per sub-group instruction; a missed line it asks for anyway costs no request
        row = np.arange(lines.shape[0] * lines.shape[1]).reshape(lines.shape[:2])[:, :, None]
        row_lines = row * (int(lines.max() - lines.min()) + 1) + lines - lines.min()
        asked = np.isin(row_lines, row_lines[new])
        again = np.where(missed & ~new & ~asked, lines, -1).reshape(-1, touched.shape[2])
        requests += int(_distinct_lines(again).sum())
    return float(requests), float(len(missed_keys) * sector)


def first_level_hit_share(stats: KernelStats, lines_key: str, resident_items: float,
                          p: ModelParams) -> float:
    """Share of the requests that come back to a sub-group's lines which the first-level cache
    serves: 1 where the lines of the resident sub-groups fit it, or where no first level or no
    line count is known. *lines_key* names the count of lines a sub-group holds in one pass,
    its work-group's over its sub-groups (``_stats``: ``per_lane_lines`` through its lane-by-lane
    instructions, ``subgroup_lines`` through all)."""
    lines = stats.extra.get(lines_key) or {}
    counted = {int(k): float(v) for k, v in lines.items()}
    if not counted or not p.cache_level_bytes:
        return 1.0
    line = min(counted, key=lambda size: abs(size - p.request_line_bytes))
    subgroups = resident_items / max(1, min(p.subgroup_size, stats.group_size))
    live = subgroups * counted[line] * line
    return min(1.0, p.cache_level_bytes[0] / live) if live > 0 else 1.0


def item_footprint_bytes(trace: Mapping[str, Any] | None, sector: int) -> float:
    """Bytes of the distinct *sector*-byte sectors one work item touches (``_item_trace``'s
    addresses, every array together); 0 without a trace."""
    arrays = (trace or {}).get("arrays") or {}
    return float(sector * sum(len({int(a) // sector for a in e.get("addr") or ()})
                              for e in arrays.values()))


def last_level_hit_share(stats: KernelStats, resident_items: float, p: ModelParams) -> float:
    """Share of the requests that miss the first level on their way back to an item's lines
    (``first_level_hit_share``'s misses) which the last cache level still holds: 1 where the
    footprints of every resident item (``item_footprint_bytes`` × *resident_items* per compute
    unit × compute units) fit the largest measured level, else that level over them; 1 where no
    level was measured or no trace counted.

    An item touches its lines over its whole life, so those lines stay live in the last level
    as long as it runs. Jacobi's blocked ``float4`` rows (4 vectors and 4 rows an item: 1.1 KiB
    each, 108 Ki resident items on an H200: 126 MB against its 54.6 MB L2) read 37 bytes a point
    from DRAM where 8 are compulsory (Nsight Compute on the CUDA translation, docs/tuning.md)."""
    if not p.cache_level_bytes:
        return 1.0
    live = item_footprint_bytes(stats.extra.get("item_trace"), p.sector_bytes) \
        * resident_items * p.compute_units
    return min(1.0, p.cache_level_bytes[-1] / live) if live > 0 else 1.0
