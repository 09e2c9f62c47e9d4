"""Cache request throughput, first level and the next (spec ``cache_requests``).

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
issue instead) over the level-1 points, whose lines all hit the first-level cache;
``l2_requests_per_s`` the same over the level-2 points, whose every request misses it and is
served by the next level; ``*_per_cycle_per_cu`` divide by clock × compute units.
``l2_read_bw_Bps`` is the next level's bandwidth to the first: the bytes the lanes of the level-2
points read / median time, the best point (at stride 1 every byte of every line a miss brings
is read, so this is the rate whole lines come at; the model prices a work-group's first-level
fills by it where the fit below is missing).
``l2_line_requests_per_s`` and ``l2_sectors_per_s``: the next level's time split between the
line requests it serves and the sectors it moves, t = requests / R + sectors / S, a non-negative
least-squares fit of relative error over the level-2 points (requests as counted above; sectors
the same count at the sector's size: 32 B on a GPU, the line on a CPU). A contiguous float
instruction is one request of 4 sectors, a float 128 B from the next lane's 32 requests of one
sector each: the fit tells what a request costs apart from its bytes, which is what a halo's
side sector or a row starting 64 bytes into a line pays (two half-line requests for each warp's
load instead of one; ``gencl.model._cache_reuse.first_level_fills``).

The access pattern is the spec's, written once here: work item i, read r, loads e bytes at
``offset + r·shift + (i mod LANE_PERIOD)·stride·e + region`` (specs/cache_requests.py imports
these):
``shift`` is ROW_SHIFT_BYTES at level 1 and a warp's span at level 2, both whole lines, and
``region`` (level 2) a whole number of lines too, so an instruction's lines depend on the lane
offsets and ``offset`` alone and the count below holds for both levels. ``offset`` is 0 but at
one level-2 point, a float row 64 bytes into a line: each warp's load two half-line requests of
two sectors, where the aligned row's is one of four. The H100 reads it as fast as the aligned
row (71.9 against 73.2 µs): a half-line request costs the next level nothing more. The fit
below sees that point, but its sum still charges the second request (it prices the point 15 %
over its time and the aligned row 11 % under; docs/tuning.md).
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
#: Bytes between the start of read r and read r + 1 (one 128-byte line) at level 1.
ROW_SHIFT_BYTES = 128
#: Bytes the level-2 points spread their warps over: beyond any first-level cache (≤ 256 KiB per
#: compute unit), within the next (H200: two L2 partitions of ~27 MB measured)
LEVEL2_BYTES = 16 << 20
#: Widest load one lane issues as one instruction (float4).
INSTRUCTION_BYTES = 16
#: The part of a line a GPU's caches move on their own (NVIDIA's sector).
SECTOR_BYTES = 32
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


def offset_bytes(point: Mapping[str, Any]) -> int:
    """Bytes every read starts into its line (records before the offset existed: 0)."""
    return int(point.get("offset_bytes", 0))


def requests_per_launch(point: Mapping[str, Any], sizes: Mapping[str, int], subgroup: int,
                        line_bytes: int) -> float:
    """Cache requests of one launch of the ``cache_requests`` kernel at *point* and *sizes*."""
    e, stride, reads = access_bytes(point), int(point["stride"]), int(point["reads"])
    g = max(1, min(subgroup, int(point.get("workgroup", subgroup))))
    period = math.lcm(g, LANE_PERIOD)  # the pattern of sub-groups repeats after this many items
    lanes = np.arange(period) % LANE_PERIOD
    per_period = 0
    for r in range(reads):
        offsets = offset_bytes(point) + r * ROW_SHIFT_BYTES + lanes * stride * e
        per_period += sum(instruction_lines(group, e, line_bytes)
                          for group in offsets.reshape(-1, g))
    return per_period * int(sizes["n"]) / period


def lines_per_instruction(point: Mapping[str, Any], subgroup: int, line_bytes: int) -> float:
    """Requests per sub-group load of one element (all its ≤16-byte pieces), read 0."""
    g = max(1, min(subgroup, int(point.get("workgroup", subgroup))))
    e = access_bytes(point)
    lanes = np.arange(math.lcm(g, LANE_PERIOD)) % LANE_PERIOD
    offsets = (offset_bytes(point) + lanes * int(point["stride"]) * e).reshape(-1, g)
    return float(np.mean([instruction_lines(o, e, line_bytes) for o in offsets]))


def bytes_read(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Bytes the lanes of one launch read (every item its ``reads`` elements)."""
    return float(int(sizes["n"]) * int(point["reads"]) * access_bytes(point))


def _request_sector_fit(records: Sequence[Mapping[str, Any]], subgroup: int, line: int,
                       sector: int) -> tuple[float, float] | None:
    """(seconds per line request, seconds per sector) of the next level: non-negative least
    squares of t = requests·a + sectors·b in relative error over *records*; None where the points
    do not tell the two apart (fewer than two distinct sectors-per-request ratios) or the fit
    leaves one at zero."""
    from scipy.optimize import nnls

    rows = []
    for r in records:
        t = float(r["median_s"])
        rows.append((requests_per_launch(r["point"], r["sizes"], subgroup, line) / t,
                     requests_per_launch(r["point"], r["sizes"], subgroup, sector) / t))
    if len({round(b / a, 6) for a, b in rows}) < 2:
        return None
    (per_request, per_sector), _ = nnls(np.asarray(rows), np.ones(len(rows)))
    if per_request <= 0 or per_sector <= 0:
        return None
    return float(per_request), float(per_sector)


def level(point: Mapping[str, Any]) -> int:
    """The cache level a point's requests are served by (records before level 2 existed: 1)."""
    return int(point.get("level", 1))


def _best_rate(name: str, records: Sequence[Mapping[str, Any]], rates: Mapping[str, float],
               hz: float, cus: int, where: str, clock_method: str, what: str,
               ) -> tuple[Characteristic, Characteristic]:
    top = max(records, key=lambda r: rates[r["variant_id"]])
    best = rates[top["variant_id"]]
    rel = float(top.get("ci95_s") or 0.0) / float(top["median_s"])
    at = (f"{where}; best point vector_width={top['point'].get('vector_width')}, "
          f"stride={top['point']['stride']}")
    return (
        Characteristic(f"{name}_per_s", best, "requests/s", best * rel,
                       f"{what}: max over points of Σ distinct lines per sub-group load "
                       f"instruction / median time; {at}", (top["variant_id"],)),
        Characteristic(f"{name}_per_cycle_per_cu", best / (hz * cus), "requests/cycle",
                       best * rel / (hz * cus),
                       f"{name}_per_s / (clock × {cus} compute units); {clock_method}",
                       (top["variant_id"],)),
    )


@analysis("cache_requests")
def analyze_cache_requests(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                           clock_hz: float | None) -> AnalysisResult:
    """cache_requests_per_s (first level) and l2_requests_per_s (requests every one of which
    misses the first level), each also per cycle per compute unit: the best rate over points."""
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
    where = (f"sub-group {subgroup} ({warp_method}), {line}-B lines ({line_method}), "
             f"≤{INSTRUCTION_BYTES}-B instructions")
    chars: list[Characteristic] = []
    notes: list[str] = []
    for lv, name, what in ((1, "cache_requests", "level 1 (lane strides × vector widths, "
                            "every request a first-level hit)"),
                           (2, "l2_requests", "level 2 (every request a first-level miss, "
                            f"{LEVEL2_BYTES >> 20} MiB spread over the warps)")):
        at_level = [r for r in ok if level(r["point"]) == lv]
        if at_level:
            chars += _best_rate(name, at_level, rates, hz, cus, where, clock_method, what)
        else:
            notes.append(f"no successful level-{lv} measurement")
    level2 = [r for r in ok if level(r["point"]) == 2]
    if level2:
        read = {r["variant_id"]: bytes_read(r["point"], r["sizes"]) / float(r["median_s"])
                for r in level2}
        top = max(level2, key=lambda r: read[r["variant_id"]])
        rel = float(top.get("ci95_s") or 0.0) / float(top["median_s"])
        best = read[top["variant_id"]]
        chars.append(Characteristic(
            "l2_read_bw_Bps", best, "B/s", best * rel,
            "the next level's bandwidth to the first: max over level-2 points of the bytes "
            "the lanes read / median time; best point "
            f"vector_width={top['point'].get('vector_width')}, stride={top['point']['stride']}",
            (top["variant_id"],)))
        fit = _request_sector_fit(level2, subgroup, line, SECTOR_BYTES if
                                  str(device.get("device_type", "")).upper() == "GPU" else line)
        if fit is not None:
            per_request, per_sector = fit
            ids = tuple(r["variant_id"] for r in level2)
            how = ("non-negative least squares of relative error over the level-2 points: "
                   "median time = line requests / R + sectors / S")
            chars += [Characteristic("l2_line_requests_per_s", 1.0 / per_request, "requests/s",
                                     method=f"R: {how}", variants=ids),
                      Characteristic("l2_sectors_per_s", 1.0 / per_sector, "sectors/s",
                                     method=f"S: {how}", variants=ids)]
        else:
            notes.append("level 2: the points do not split requests from sectors (fewer than "
                         "two sectors-per-request ratios, or a fit with one cost at zero)")
    series_keys = sorted({(level(r["point"]), int(r["point"].get("vector_width", 1)))
                          for r in ok})
    x_of = {r["variant_id"]: lines_per_instruction(r["point"], subgroup, line) for r in ok}
    xs = sorted(set(x_of.values()))
    lines_y: dict[str, list[float | None]] = {}
    for lv, w in series_keys:
        got: dict[float, float] = {}  # strides past the sub-group's reach share an x: best
        for r in ok:
            if (level(r["point"]), int(r["point"].get("vector_width", 1))) == (lv, w):
                x = x_of[r["variant_id"]]
                got[x] = max(got.get(x, 0.0), rates[r["variant_id"]])
        label = "float" if w == 1 else f"float{w}"
        lines_y[label if lv == 1 else f"{label}, level 2"] = [got.get(x) for x in xs]
    hlines = {("best" if c.name == "cache_requests_per_s" else "level 2 best"): c.value
              for c in chars if c.name.endswith("_per_s")}
    series = {"bandwidth_l1_requests_vs_lines": {
        "title": "Cache requests/s vs lines per sub-group load (level 1: hits; level 2: misses)",
        "x": xs, "y": lines_y, "xlabel": "cache lines per sub-group load of one element",
        "ylabel": "requests/s", "xscale": "log", "hlines": hlines}}
    return AnalysisResult(tuple(chars), series, notes=tuple(notes))
