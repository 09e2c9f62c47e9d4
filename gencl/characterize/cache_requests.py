"""First-level cache request throughput (spec ``cache_requests``).

A sub-group (warp) load instruction is served as one cache request ("wavefront") per distinct
cache line its lanes touch, so strided or wide per-lane accesses cost more requests per byte
even when every byte comes from the cache. This module counts the requests of each measured
point and reports the highest rate seen:

    requests = Σ over sub-group load instructions of |{⌊address / line⌋ : lanes}|

where a lane's access of e bytes is ⌈e / 16⌉ instructions of ≤ 16 bytes (the widest global load
of a GPU lane, ``ld.global.v4``), a sub-group is min(sub-group width, work-group size)
consecutive work items, the line is the device's reported global cache line
(``CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE``: 128 B on NVIDIA; 128 when not reported), and the
sub-group width is the warp (NVIDIA attribute query) or, on a CPU, the SIMD width in 32-bit
lanes that PoCL vectorizes work items over (``_hardware.warp_width``; a model, not a measured
width). ``cache_requests_per_s`` is the maximum over points of requests / median time (the
measured request throughput: points with few lines per instruction are bound by instruction
issue instead); ``cache_requests_per_cycle_per_cu`` divides by clock × compute units.

The access pattern is the spec's, written once here: work item i, read r, loads e bytes at
``r·ROW_SHIFT_BYTES + (i mod LANE_PERIOD)·stride·e`` (specs/cache_requests.py imports these).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import cycle_clock, ok_records
from gencl.characterize._hardware import warp_width
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

#: Work items that share one lane pattern (one NVIDIA warp).
LANE_PERIOD = 32
#: Bytes between the start of read r and read r + 1 (one 128-byte line).
ROW_SHIFT_BYTES = 128
#: Widest load one lane issues as one instruction (float4).
INSTRUCTION_BYTES = 16
#: Line size when the device reports none.
DEFAULT_LINE_BYTES = 128


def instruction_lines(offsets: Sequence[int] | np.ndarray, access_bytes: int,
                      line_bytes: int) -> int:
    """Requests of one sub-group access: lanes at byte *offsets*, each reading *access_bytes*.

    Each lane's access is split into ⌈access_bytes / 16⌉ instructions of ≤ 16 bytes; an
    instruction costs the number of distinct lines its lanes touch (a piece straddling a line
    boundary touches both). Returns the sum over the instructions.
    """
    starts = np.asarray(offsets, dtype=np.int64)
    total = 0
    for first in range(0, access_bytes, INSTRUCTION_BYTES):
        size = min(INSTRUCTION_BYTES, access_bytes - first)
        lo = (starts + first) // line_bytes
        hi = (starts + first + size - 1) // line_bytes
        total += len(np.union1d(lo, hi))
    return total


def access_bytes(point: Mapping[str, Any]) -> int:
    return 4 * int(point.get("vector_width", 1))


def requests_per_launch(point: Mapping[str, Any], sizes: Mapping[str, int], subgroup: int,
                        line_bytes: int) -> float:
    """Cache requests of one launch of the ``cache_requests`` kernel at *point* and *sizes*."""
    e, stride, reads = access_bytes(point), int(point["stride"]), int(point["reads"])
    g = max(1, min(subgroup, int(point.get("workgroup", subgroup))))
    period = math.lcm(g, LANE_PERIOD)  # the pattern of sub-groups repeats after this many items
    lanes = np.arange(period) % LANE_PERIOD
    per_period = 0
    for r in range(reads):
        offsets = r * ROW_SHIFT_BYTES + lanes * stride * e
        per_period += sum(instruction_lines(group, e, line_bytes)
                          for group in offsets.reshape(-1, g))
    return per_period * int(sizes["n"]) / period


def lines_per_instruction(point: Mapping[str, Any], subgroup: int, line_bytes: int) -> float:
    """Requests per sub-group load of one element (all its ≤16-byte pieces), read 0."""
    g = max(1, min(subgroup, int(point.get("workgroup", subgroup))))
    e = access_bytes(point)
    lanes = np.arange(math.lcm(g, LANE_PERIOD)) % LANE_PERIOD
    offsets = (lanes * int(point["stride"]) * e).reshape(-1, g)
    return float(np.mean([instruction_lines(o, e, line_bytes) for o in offsets]))


@analysis("cache_requests")
def analyze_cache_requests(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                           clock_hz: float | None) -> AnalysisResult:
    """cache_requests_per_s and per cycle per compute unit: the best request rate over points."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful cache-request measurement",))
    warp, warp_method = warp_width(device)
    subgroup = warp or 1
    line = int(device.get("global_cacheline_bytes") or 0) or DEFAULT_LINE_BYTES
    line_method = ("device's reported cache line" if device.get("global_cacheline_bytes")
                   else "assumed (device reports none)")
    hz, clock_method = cycle_clock(ok, device, clock_hz)
    cus = int(device.get("compute_units") or 1)

    rates = {r["variant_id"]: requests_per_launch(r["point"], r["sizes"], subgroup, line)
             / float(r["median_s"]) for r in ok}
    top = max(ok, key=lambda r: rates[r["variant_id"]])
    best = rates[top["variant_id"]]
    rel = float(top.get("ci95_s") or 0.0) / float(top["median_s"])
    where = (f"sub-group {subgroup} ({warp_method}), {line}-B lines ({line_method}), "
             f"≤{INSTRUCTION_BYTES}-B instructions; best point vector_width="
             f"{top['point'].get('vector_width')}, stride={top['point']['stride']}")
    chars = (
        Characteristic(
            "cache_requests_per_s", best, "requests/s", best * rel,
            "max over lane strides and vector widths of Σ distinct lines per sub-group load "
            f"instruction / median time; {where}", (top["variant_id"],)),
        Characteristic(
            "cache_requests_per_cycle_per_cu", best / (hz * cus), "requests/cycle",
            best * rel / (hz * cus),
            f"cache_requests_per_s / (clock × {cus} compute units); {clock_method}",
            (top["variant_id"],)),
    )
    widths = sorted({int(r["point"].get("vector_width", 1)) for r in ok})
    xs = sorted({lines_per_instruction(r["point"], subgroup, line) for r in ok})
    lines_y: dict[str, list[float | None]] = {}
    for w in widths:
        got: dict[float, float] = {}  # strides past the sub-group's reach share an x: best
        for r in ok:
            if int(r["point"].get("vector_width", 1)) == w:
                x = lines_per_instruction(r["point"], subgroup, line)
                got[x] = max(got.get(x, 0.0), rates[r["variant_id"]])
        lines_y["float" if w == 1 else f"float{w}"] = [got.get(x) for x in xs]
    series = {"bandwidth_l1_requests_vs_lines": {
        "title": "First-level cache requests/s vs lines per sub-group load",
        "x": xs, "y": lines_y, "xlabel": "cache lines per sub-group load of one element",
        "ylabel": "requests/s", "xscale": "log", "hlines": {"best": best}}}
    return AnalysisResult(chars, series)
