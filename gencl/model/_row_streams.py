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
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from gencl.model._params import ModelParams
from gencl.model._stats import KernelStats

#: addresses closer than this belong to one run of a row (a line or two of lanes' slack)
RUN_GAP_BYTES = 256
#: the most addresses one array's runs are counted over; beyond, the group's height
MAX_ADDRESSES = 1 << 20
#: the staircase's DRAM plateau: where every step from there on is within this of the last
PLATEAU_TOLERANCE = 0.15


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


def group_rows(stats: KernelStats) -> dict[str, tuple[int, float]]:
    """Per global array of the item trace: (runs a work-group touches, bytes one item moves of
    it); {} without a trace or where an array's runs could not be counted."""
    trace: Mapping[str, Any] = stats.extra.get("item_trace") or {}
    arrays = trace.get("arrays") or {}
    local = list(trace.get("local") or [])
    out: dict[str, tuple[int, float]] = {}
    for name, a in arrays.items():
        runs = array_runs(a["addr"], a["step"], local, int(a["bytes"]))
        if runs is None:
            return {}
        out[name] = (runs, float(len(a["addr"]) * int(a["bytes"])))
    return out


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
    or where its footprint is not past the caches)."""
    table = p.group_row_shares
    if not table or sum(stats.footprint.values()) < dram_plateau_bytes(p):
        return 1.0
    rows = group_rows(stats)
    if not rows:
        local = stats.local_size or (stats.group_size,)
        return share_at(local[1] if len(local) > 1 else 1, table)
    moved = sum(b for _, b in rows.values())
    if moved <= 0:
        return 1.0
    return moved / sum(b / share_at(runs, table) for runs, b in rows.values())
