"""The rows a work-group keeps open in each array, and the share of DRAM's bandwidth they leave.

A 2-D stencil's work-group of y rows touches y rows of each array it writes and y plus its
reach of each it reads, a short run of each row; the next group along x carries every run on.
On a CPU the same bytes come slower the more rows a group keeps open: the ``row_streams``
benchmark (``out = in₀ + …`` past the caches) measured on the EPYC VM 0.93 of one row's
bandwidth at 2 rows, 0.88 at 4, 0.72 at 8, 0.68 at 16, 0.67 at 32 (six runs: ±10 %), and its
lines of one and three inputs collapse by the rows of each array, not by the rows of all arrays
together (``bandwidth_share_by_group_rows``). Jacobi's padded rows at n = 4096 run so:
groups of 8 and 16 rows 1.2–1.6× slower than groups of 1–4 rows at the same DRAM bytes.

The rows are counted from one work item's trace (``KernelStats.extra["item_trace"]``): each
array's addresses translated to every item of the work-group by its byte steps, merged into
runs wherever they lie within ``RUN_GAP_BYTES`` of one another. A launch's DRAM bandwidth is
its bytes' harmonic mean of each array's share at its runs, each array weighted by the bytes
one item moves of it; where no trace was counted, every array has the group's height. The share
applies where the launch's footprint is on the footprint staircase's DRAM plateau
(``dram_plateau_bytes``): the benchmark measured DRAM, and what a cache level serves was not
measured so.

Where a CPU runtime runs the items one at a time (the build's machine code shows no packed
arithmetic across them, or before a build the item's code is vector-typed or keeps a loop:
``_vector_rate.items_as_lanes``) and an item touches more than one row of an array, the
work-group interleaves the item's rows at the grain of one item's vector, not of a row's run:
the ``column_walk`` benchmark measured that on the EPYC VM, its share falling with the rows one
item walks in all arrays together
(``bandwidth_share_by_item_streams``), and much faster where those rows lie in one set of the
first-level cache (``bandwidth_share_by_item_set_lines``: rows 16 KiB apart, as a power-of-two
image's are; the item's lines evict one another before the next items read the rest of them).
Such a launch's share is the smaller of the two at its item's rows and at the most of its lines
one set holds (``item_walk``: the trace's addresses of one item, every array's base taken as
aligned to ``SET_SPAN_BYTES``, as large buffers are), times the rows' share of the group's rows
beyond the item's own (each array's runs over the item's).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from gencl.model._params import ModelParams
from gencl.model._stats import KernelStats
from gencl.model._vector_rate import items_as_lanes

#: addresses closer than this belong to one run of a row (a line or two of lanes' slack)
RUN_GAP_BYTES = 256
#: the most addresses one array's runs are counted over; beyond, the group's height
MAX_ADDRESSES = 1 << 20
#: the staircase's DRAM plateau: where every step from there on is within this of the last
PLATEAU_TOLERANCE = 0.15
#: bytes a first-level cache's sets span (sets × line): 4 KiB on x86 cores, whose L1 is indexed
#: within the page (48 KiB of 12 ways on Zen 5; 32 KiB of 8 on Skylake); the column_walk
#: benchmark's aliased rows are a multiple of it apart
SET_SPAN_BYTES = 4096
#: a CPU's cache line
LINE_BYTES = 64


def array_runs(addr: Any, step: Any, local: Any, item_bytes: int) -> int | None:
    """Runs one work-group's items touch in one array: the item's byte addresses *addr*
    translated by *step* bytes per item along each axis over the group's *local* extent, merged
    where they lie within RUN_GAP_BYTES; None where that is more than MAX_ADDRESSES."""
    steps = [int(s) for s in step] + [0] * (len(local) - len(step))
    start = np.unique(np.asarray(addr, dtype=np.int64))
    width = item_bytes
    for d, (n, s) in enumerate(zip(local, steps)):
        if d == 0 and abs(s) <= RUN_GAP_BYTES:
            # the items along x fill the run between their addresses: one interval each
            width = (int(n) - 1) * abs(s) + item_bytes
            start = start - (int(n) - 1) * abs(s) * (s < 0)
            continue
        if start.size * int(n) > MAX_ADDRESSES:
            return None
        start = np.unique((start[:, None] + np.arange(int(n), dtype=np.int64) * s).ravel())
    if start.size == 0:
        return 0
    return 1 + int(np.count_nonzero(np.diff(start) > width + RUN_GAP_BYTES))


def group_rows(stats: KernelStats, one_item: bool = False) -> dict[str, tuple[int, float]]:
    """Per global array of the item trace: (runs a work-group touches, or one item where
    *one_item*, bytes one item moves of it); {} without a trace or where an array's runs could
    not be counted."""
    trace: Mapping[str, Any] = stats.extra.get("item_trace") or {}
    arrays = trace.get("arrays") or {}
    local = [1] * len(trace.get("local") or []) if one_item else list(trace.get("local") or [])
    out: dict[str, tuple[int, float]] = {}
    for name, a in arrays.items():
        runs = array_runs(a["addr"], a["step"], local, int(a["bytes"]))
        if runs is None:
            return {}
        out[name] = (runs, float(len(a["addr"]) * int(a["bytes"])))
    return out


def set_lines(stats: KernelStats) -> int:
    """The most of one item's cache lines (every array of its trace) that fall in one set of a
    first-level cache spanning SET_SPAN_BYTES, each array's base aligned to that span."""
    arrays = (stats.extra.get("item_trace") or {}).get("arrays") or {}
    sets: dict[int, int] = {}
    for a in arrays.values():
        addr = np.asarray(a["addr"], dtype=np.int64)
        lines = np.unique(np.concatenate([addr, addr + int(a["bytes"]) - 1]) // LINE_BYTES)
        for s, n in zip(*np.unique(lines % (SET_SPAN_BYTES // LINE_BYTES), return_counts=True)):
            sets[int(s)] = sets.get(int(s), 0) + int(n)
    return max(sets.values(), default=0)


def item_walk(stats: KernelStats) -> tuple[int, int] | None:
    """(rows one item touches in all arrays together, the most of its lines one set holds)
    where the runtime runs the items one at a time and an item touches more than one row of an
    array; None elsewhere (items as lanes, or not known so; one row an array; no trace)."""
    if items_as_lanes(stats):
        return None
    rows = group_rows(stats, one_item=True)
    if not rows or max(runs for runs, _ in rows.values()) < 2:
        return None
    return sum(runs for runs, _ in rows.values()), set_lines(stats)


def item_walk_share(stats: KernelStats, p: ModelParams) -> float:
    """The share of DRAM's bandwidth an item walking its rows one at a time leaves: the smaller
    of column_walk's at its rows in all arrays and at its lines in one set (1 without a walk,
    or without either table)."""
    return _walk_share(item_walk(stats), p)


def _walk_share(walk: tuple[int, int] | None, p: ModelParams) -> float:
    if walk is None:
        return 1.0
    streams, lines = walk
    shares = [share_at(x, t) for x, t in ((streams, p.item_stream_shares),
                                          (lines, p.item_set_line_shares)) if t]
    # a walk moves no byte faster than one row's stream (a share past 1 is that line's noise)
    return min([1.0, *shares])


def share_at(rows: float, table: tuple[tuple[float, float], ...]) -> float:
    """The measured share at *rows*, interpolated linearly in log rows, flat beyond the ends."""
    xs = np.log([r for r, _ in table])
    return float(np.interp(math.log(max(rows, 1.0)), xs, [s for _, s in table]))


def dram_plateau_bytes(p: ModelParams) -> float:
    """The smallest footprint from which every step of the staircase is within
    PLATEAU_TOLERANCE of its last (DRAM's); without a staircase, four times the largest
    cache (where the benchmark sizes itself)."""
    steps = p.footprint_bandwidths
    if not steps:
        return 4.0 * p.cache_bytes
    last = steps[-1][1]
    start = steps[-1][0]
    for footprint, bw in reversed(steps):
        if abs(bw - last) > PLATEAU_TOLERANCE * last:
            break
        start = footprint
    return start


def group_row_share(stats: KernelStats, p: ModelParams) -> float:
    """The share of DRAM's bandwidth the launch's open rows leave (1 where none was measured,
    or where its footprint is not past the caches); where its items walk their rows one at a
    time, column_walk's share at the item's rows times row_streams' at the group's rows over
    the item's."""
    table = p.group_row_shares
    if not (table or p.item_stream_shares or p.item_set_line_shares) \
            or sum(stats.footprint.values()) < dram_plateau_bytes(p):
        return 1.0
    # without column_walk's tables a walking item's rows are priced as the group's
    walked = item_walk(stats) if p.item_stream_shares or p.item_set_line_shares else None
    walking = walked is not None
    walk = _walk_share(walked, p)
    rows = group_rows(stats)
    if not table:
        return walk
    if not rows:
        local = stats.local_size or (stats.group_size,)
        return share_at(local[1] if len(local) > 1 else 1, table)
    moved = sum(b for _, b in rows.values())
    if moved <= 0:
        return 1.0
    # a walking item's own rows are the walk's: the group's rows beyond them, row_streams'
    item = group_rows(stats, one_item=True) if walking else {}
    return walk * moved / sum(b / share_at(runs / item.get(k, (1, b))[0], table)
                              for k, (runs, b) in rows.items())
