"""Rows off a cache line, streamed from DRAM (spec ``dram_requests``).

Every point reads the same bytes once, from DRAM; only the rows' offset into a line changes, and
with it the number of line requests that bring them: a sub-group load instruction asks once
for every distinct line its lanes touch (``cache_requests.instruction_lines``), so a row 64
bytes into a 128-byte line is two half-line requests per warp's float load where a row on the
line is one (float4: 5 where 4).

    requests = reads × (items / sub-group) × instruction_lines(offset + lane·e, e, line)

``aligned_rows_read_bw_Bps`` and ``offset_rows_read_bw_Bps`` are the best read bandwidths of
the points whose rows start on a line and ``OFFSET_BYTES`` into one: the second below the first
where DRAM pays for the extra requests. Each point's bandwidth and requests per second go to
the notes, the bandwidths by offset to the series.

Measured on an H100 (2026-11-26, bench_results/nvidia-h100): 2.45–2.46 TB/s for float rows at
every offset, 38·10⁹ half-line requests a second at 32 and 64 bytes in; 2.83 TB/s for float4
rows on a line and 2.81 at 64 bytes in. So a stream does not pay for rows off a line at DRAM.
A stencil does (wave3d's 64-byte-offset rows on the same H100: 1.7× the time for the same DRAM
bytes, docs/tuning.md), and that cost is not DRAM's request count; what it is was not found.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import ok_records
from gencl.characterize._hardware import warp_width
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.cache_requests import DEFAULT_LINE_BYTES, instruction_lines

#: Elements each work item reads, one from each row (specs/dram_requests.py imports it).
READS = 4
#: The offset compared with rows on a line: half of NVIDIA's 128-byte line, where the
#: suite's 16-float pads put their rows.
OFFSET_BYTES = 64


def requests_per_launch(point: Mapping[str, Any], sizes: Mapping[str, int], subgroup: int,
                        line_bytes: int) -> float:
    """Line requests of one launch of the ``dram_requests`` kernel at *point* and *sizes*."""
    e = 4 * int(point["vector_width"])
    g = max(1, min(subgroup, int(point.get("workgroup", subgroup))))
    # a sub-group's span is whole lines past the first (g·e a multiple of the line, or one
    # sub-group per line at most), so every instruction starts offset_bytes into a line
    per_instruction = instruction_lines(int(point["offset_bytes"]) + e * np.arange(g), e,
                                        line_bytes)
    return float(READS * int(sizes["m"]) / g * per_instruction)


def bytes_read(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Bytes the lanes of one launch read (the one float stored per item is not counted)."""
    return float(READS * int(sizes["m"]) * 4 * int(point["vector_width"]))


@analysis("dram_requests")
def analyze_dram_requests(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                          clock_hz: float | None) -> AnalysisResult:
    """aligned_rows_read_bw_Bps and offset_rows_read_bw_Bps: the best bandwidth of rows on a
    line and OFFSET_BYTES into one."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful DRAM-request measurement",))
    warp, warp_method = warp_width(device)
    subgroup = warp or 1
    line = int(device.get("global_cacheline_bytes") or 0) or DEFAULT_LINE_BYTES
    bandwidth = {r["variant_id"]: bytes_read(r["point"], r["sizes"]) / float(r["median_s"])
                 for r in ok}
    chars: list[Characteristic] = []
    notes: list[str] = []
    for offset, name in ((0, "aligned_rows_read_bw_Bps"),
                         (OFFSET_BYTES, "offset_rows_read_bw_Bps")):
        at = [r for r in ok if int(r["point"]["offset_bytes"]) == offset]
        if not at:
            notes.append(f"no successful point at offset {offset} B")
            continue
        top = max(at, key=lambda r: bandwidth[r["variant_id"]])
        best = bandwidth[top["variant_id"]]
        chars.append(Characteristic(
            name, best, "B/s", best * float(top.get("ci95_s") or 0.0) / float(top["median_s"]),
            f"best read bandwidth of rows {offset} B into a line, every byte read once from "
            f"DRAM (bytes the lanes read / median time); best point "
            f"vector_width={top['point']['vector_width']}", (top["variant_id"],)))
    offsets = sorted({int(r["point"]["offset_bytes"]) for r in ok})
    by_width: dict[str, list[float | None]] = {}
    for w in sorted({int(r["point"]["vector_width"]) for r in ok}):
        got = {int(r["point"]["offset_bytes"]): bandwidth[r["variant_id"]] for r in ok
               if int(r["point"]["vector_width"]) == w}
        by_width["float" if w == 1 else f"float{w}"] = [got.get(o) for o in offsets]
    for r in ok:
        rate = requests_per_launch(r["point"], r["sizes"], subgroup, line) / float(r["median_s"])
        notes.append(f"vector_width={r['point']['vector_width']}, offset "
                     f"{r['point']['offset_bytes']} B: {bandwidth[r['variant_id']] / 1e9:.1f} "
                     f"GB/s, {rate:.3g} line requests/s (sub-group {subgroup}, {warp_method}; "
                     f"{line}-B lines)")
    series = {"read_bandwidth_vs_row_offset": {
        "title": "DRAM read bandwidth vs the rows' offset into a cache line",
        "x": offsets, "y": by_width, "xlabel": "row offset into a line (bytes)",
        "ylabel": "B/s"}}
    return AnalysisResult(tuple(chars), series, notes=tuple(notes))
