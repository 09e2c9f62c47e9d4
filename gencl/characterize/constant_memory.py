"""Constant memory (spec ``constant_memory``): broadcast bandwidth, stride penalty, constant cache.

Seed 000 Table III's constant-memory row: bandwidth, issue latency λ and the completion latency Λ
of each constant-cache level with its size ("48/90.6" cycles, 8 KB on a Kepler GPU). Bandwidth is
bytes read per work item over the median time (seed 000's bytesComm); λ is CPMR' × CUs × warp
(``bandwidth.issue_latency``, eq. 7 of the broadcast run). The cache levels come from the
varying-size walk in ``__constant`` memory fitted with eq. 6 (``latency.staircase_result``), so
sizes and latencies are measured, not queried. ``constant_latency_cycles`` stays with
``random_walk`` (one fixed 2 KiB ring); this analysis reports the per-level latencies as
``constant_completion_latency_cycles`` (Table III's Λ column).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gencl.characterize._cycles import cycle_clock, ok_records
from gencl.characterize._hardware import warp_width
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.bandwidth import bandwidth_of, issue_latency
from gencl.characterize.latency import staircase_result


def constant_cpmr(record: Mapping[str, Any], clock_hz: float) -> float:
    """Eq. 7 CPMR' of a bandwidth run: runtime × clock / (work items × reads), 4 B per read."""
    requests = float(record["work"]["bytes"]) / 4.0
    return float(record["median_s"]) * clock_hz / requests


def _bandwidth_part(runs: Sequence[Mapping[str, Any]], device: Mapping[str, Any], hz: float,
                    clock_method: str) -> tuple[list[Characteristic], dict[str, Any]]:
    by_stride: dict[int, Mapping[str, Any]] = {}
    for r in runs:
        s = int(r["point"]["stride"])
        if s not in by_stride or bandwidth_of(r)[0] > bandwidth_of(by_stride[s])[0]:
            by_stride[s] = r
    strides = sorted(by_stride)
    chars: list[Characteristic] = []
    series: dict[str, Any] = {}
    if 0 in by_stride:
        top = by_stride[0]
        bw, ci = bandwidth_of(top)
        chars.append(Characteristic(
            "constant_bw_Bps", bw, "B/s", ci,
            "broadcast: every work item of a warp reads the same __constant word, 64 unrolled "
            "reads each; bytes = work items × reads × 4 B (per work item, seed 000) over the "
            "median kernel time. One float add per word read, so the add rate caps it too",
            (top["variant_id"],)))
        warp, warp_method = warp_width(device)
        cus = int(device.get("compute_units") or 1)
        cpmr = constant_cpmr(top, hz)
        chars.append(Characteristic(
            "constant_issue_latency_cycles", issue_latency(cpmr, cus, warp or 1), "cycles",
            method=f"λ = CPMR' × {cus} compute units × warp {warp or 1} ({warp_method}) of the "
                   f"broadcast run, CPMR' = runtime × clock / (work items × reads) (eq. 7); "
                   f"{clock_method}", variants=(top["variant_id"],)))
    if strides:
        bws = [bandwidth_of(by_stride[s])[0] for s in strides]
        chars.append(Characteristic(
            "constant_stride_bw_Bps", {str(s): b for s, b in zip(strides, bws)}, "B/s",
            method="bytes read per work item over the median time; lane l of a warp reads word "
                   "(l mod 32)·stride + r: stride 0 is one address per warp, stride ≥ 1 is 32",
            variants=tuple(by_stride[s]["variant_id"] for s in strides)))
        series["constant_bw_vs_stride"] = {
            "title": "Constant memory bandwidth vs stride (0 = broadcast)", "x": strides,
            "y": bws, "xlabel": "stride between lanes (4-byte words; 0 = broadcast)",
            "ylabel": "bandwidth per work item (B/s)", "yscale": "log"}
        if 0 in by_stride:
            series["constant_slowdown_vs_stride"] = {
                "title": "Constant memory: time relative to broadcast", "x": strides,
                "y": [bws[0] / b for b in bws], "xlabel": "stride between lanes (words)",
                "ylabel": "time / broadcast time"}
    return chars, series


@analysis("constant_memory")
def analyze_constant_memory(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                            clock_hz: float | None) -> AnalysisResult:
    """constant_bw_Bps, λ, bandwidth by stride; constant cache levels and Λ per level (eq. 6)."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful constant-memory measurement",))
    hz, clock_method = cycle_clock(ok, device, clock_hz)
    notes: list[str] = []
    chars, series = _bandwidth_part([r for r in ok if r["point"]["test"] == "bandwidth"],
                                    device, hz, clock_method)

    walk = [r for r in ok if r["point"]["test"] == "walk"]
    stair_chars, stair_series, stair = staircase_result(walk, hz, clock_method, "constant")
    chars += stair_chars
    series.update(stair_series)
    if stair is not None:
        ids = tuple(r["variant_id"] for r in walk)
        lats = [*stair.latencies, stair.memory_latency]
        chars.append(Characteristic(
            "constant_completion_latency_cycles", lats, "cycles",
            method="Λ of each constant-cache level then of what serves misses past the last one "
                   "(eq. 6 fit of the __constant walk, one work item); " + clock_method,
            variants=ids))
        chars.append(Characteristic(
            "constant_cache_bytes", list(stair.sizes), "B",
            method="constant-cache sizes where the __constant walk's CPMR steps up (eq. 6 fit); "
                   "empty: no step below the largest footprint walked", variants=ids))
        largest = max(r["point"]["footprint"] for r in walk)
        if not stair.sizes:
            notes.append(f"constant walk: no cache level found up to {largest} B (the device's "
                         "constant buffer limit or the sweep's end)")
    elif walk:
        notes.append("constant walk: fewer than 3 footprints ran; no staircase")
    return AnalysisResult(tuple(chars), series, tuple(notes))
