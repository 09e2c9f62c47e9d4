"""Bandwidth family: copy kernel (seed 000 §VI-A, eq. 7), pure global reads (clpeak) and copy
bandwidth against footprint.

``bandwidth`` (spec ``copy``): bandwidth per element size, cycles per memory request CPMR' (eq. 7)
and the issue latency λ per element size, the dynamic / constant / unrolled loop comparison and
bandwidth against work-group size. ``read_bandwidth`` (spec ``read_bandwidth``): the best read-only
bandwidth over vector widths, clpeak's "global memory bandwidth". ``footprint_bandwidth`` (spec
``footprint_bandwidth``): the best copy bandwidth at each footprint of buffers launched again and
again, the staircase of the cache levels a repeated launch is served by
(``bandwidth_by_footprint``; the model prices a launch's DRAM term at its own footprint's step).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


from gencl.characterize._cycles import cycle_clock, ok_records
from gencl.characterize._hardware import warp_width
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

_ITEMSIZE = {"int8": 1, "int16": 2, "float32": 4, "float64": 8}


def element_bytes(point: Mapping[str, Any]) -> int:
    """Bytes of one element a work item loads: dtype size × vector width."""
    return _ITEMSIZE[point.get("dtype", "float32")] * int(point.get("vector_width", 1))


def loop_kind(point: Mapping[str, Any]) -> str:
    """Seed 000 Fig. 6's three loop kinds: dynamic, constant, unrolled (constant + full)."""
    if point.get("loop") == "dynamic":
        return "dynamic"
    return "unrolled" if point.get("unroll") == "full" else "constant"


def bandwidth_of(record: Mapping[str, Any]) -> tuple[float, float]:
    """(bytes/s, 95 % half-width in bytes/s) of one measurement (work over median time)."""
    bw = float(record["metrics"]["bytes"])
    rel = float(record.get("ci95_s") or 0.0) / float(record["median_s"])
    return bw, bw * rel


def memory_requests(record: Mapping[str, Any]) -> float:
    """totalMemInstr of eq. 7: work items × loads per work item (vector loads count once)."""
    sizes, point = record["sizes"], record["point"]
    items = sizes["n"] / int(point.get("vector_width", 1))
    return items * sizes["R"]


def cpmr(record: Mapping[str, Any], clock_hz: float) -> float:
    """Eq. 7: CPMR' = runtime × clock / totalMemInstr (device-wide cycles per request)."""
    return float(record["median_s"]) * clock_hz / memory_requests(record)


def issue_latency(cpmr_device: float, compute_units: int, warp: int) -> float:
    """λ per warp on one compute unit: CPMR' × CUs × warp width (seed 000 §VI-D, CPMR_warp with
    every CU fully occupied, so cyclesOfRun / memInstrRun reduces to this)."""
    return cpmr_device * compute_units * warp


def _best_by(records: Sequence[Mapping[str, Any]], key) -> dict[Any, Mapping[str, Any]]:
    best: dict[Any, Mapping[str, Any]] = {}
    for r in records:
        k = key(r)
        if k not in best or bandwidth_of(r)[0] > bandwidth_of(best[k])[0]:
            best[k] = r
    return best


def _vs_workgroup(ok: Sequence[Mapping[str, Any]], name: str, what: str) -> dict[str, Any]:
    """Best bandwidth per work-group size (seed 001 F_DRAMThr against occupancy), if swept."""
    groups = sorted({int(r["point"].get("workgroup", 0)) for r in ok})
    if len(groups) < 2:
        return {}
    by_group = _best_by(ok, lambda r: int(r["point"]["workgroup"]))
    return {name: {"title": f"{what} vs work-group size", "x": groups,
                   "y": [bandwidth_of(by_group[g])[0] for g in groups],
                   "xlabel": "work-group size (work items)", "ylabel": "bandwidth (B/s)",
                   "xscale": "log"}}


@analysis("bandwidth")
def analyze_copy(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                 clock_hz: float | None) -> AnalysisResult:
    """Copy-kernel characteristics: copy_bw_Bps, CPMR' and λ per element size, loop kinds."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful copy measurement",))
    hz, clock_method = cycle_clock(ok, device, clock_hz)
    warp, warp_method = warp_width(device)
    warp = warp or 1
    cus = int(device.get("compute_units") or 1)

    # a copy is one read and one write per element (reads = 1); other points read more than
    # they write and belong to the reads-per-work-item curve
    copies = [r for r in ok if r["point"].get("reads") == 1] or ok
    top = max(copies, key=lambda r: bandwidth_of(r)[0])
    bw, ci = bandwidth_of(top)
    chars = [Characteristic(
        "copy_bw_Bps", bw, "B/s", ci,
        "best true copy (one read + one store per element, reads=1) over element sizes and loop "
        "kinds: bytes read plus written over the median kernel time (seed 000 §VI-D)"
        if copies is not ok else "best of the copy sweep (no reads=1 point ran)",
        (top["variant_id"],))]

    by_size = _best_by(ok, lambda r: element_bytes(r["point"]))
    sizes = sorted(by_size)
    cpmr_by = {s: cpmr(by_size[s], hz) for s in sizes}
    chars.append(Characteristic(
        "copy_cpmr_cycles", {str(s): cpmr_by[s] for s in sizes}, "cycles",
        method=f"eq. 7 CPMR' = runtime × clock / (work items × loads), best variant per element "
               f"size; {clock_method}",
        variants=tuple(by_size[s]["variant_id"] for s in sizes)))
    chars.append(Characteristic(
        "copy_issue_latency_cycles", {str(s): issue_latency(cpmr_by[s], cus, warp) for s in sizes},
        "cycles",
        method=f"λ = CPMR' × {cus} compute units × warp {warp} ({warp_method}); "
               f"{clock_method}",
        variants=tuple(by_size[s]["variant_id"] for s in sizes)))

    # bandwidth vs element size, one line per loop kind (seed 000 Fig. 6 compares them)
    kinds = sorted({loop_kind(r["point"]) for r in ok})
    by_kind_size = _best_by(ok, lambda r: (loop_kind(r["point"]), element_bytes(r["point"])))
    lines = {k: [bandwidth_of(by_kind_size[(k, s)])[0] if (k, s) in by_kind_size else None
                 for s in sizes] for k in kinds}
    series: dict[str, Any] = {
        "bandwidth_vs_element_size": {
            "title": "Copy bandwidth vs element size", "x": sizes, "y": lines,
            "xlabel": "element size (B)", "ylabel": "bandwidth (B/s)", "xscale": "log"},
        "copy_cpmr_vs_element_size": {
            "title": "Cycles per memory request (eq. 7)", "x": sizes,
            "y": {"CPMR'": [cpmr_by[s] for s in sizes],
                  "λ per warp": [issue_latency(cpmr_by[s], cus, warp) for s in sizes]},
            "xlabel": "element size (B)", "ylabel": "cycles", "xscale": "log", "yscale": "log"},
    }
    reads = sorted({int(r["point"].get("reads", 0)) for r in ok})
    if len(reads) > 1:
        by_kind_reads = _best_by(ok, lambda r: (loop_kind(r["point"]), int(r["point"]["reads"])))
        series["bandwidth_vs_reads"] = {
            "title": "Copy bandwidth vs reads per work item (seed 000 Fig. 6)", "x": reads,
            "y": {k: [bandwidth_of(by_kind_reads[(k, n)])[0] if (k, n) in by_kind_reads else None
                      for n in reads] for k in kinds},
            "xlabel": "reads per work item", "ylabel": "bandwidth (B/s)", "xscale": "log"}
    series.update(_vs_workgroup(ok, "bandwidth_vs_occupancy", "Copy bandwidth"))
    loop_table = {k: max(bandwidth_of(r)[0] for r in ok if loop_kind(r["point"]) == k)
                  for k in kinds}
    series["loop_kind_comparison"] = {
        "title": "Best copy bandwidth by loop kind", "kind": "bar",
        "labels": list(loop_table), "values": list(loop_table.values()),
        "ylabel": "bandwidth (B/s)"}
    return AnalysisResult(tuple(chars), series)


@analysis("read_bandwidth")
def analyze_reads(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                  clock_hz: float | None) -> AnalysisResult:
    """global_read_bw_Bps: the best read-only bandwidth over vector widths (clpeak)."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful read-bandwidth measurement",))
    top = max(ok, key=lambda r: bandwidth_of(r)[0])
    bw, ci = bandwidth_of(top)
    chars = [Characteristic(
        "global_read_bw_Bps", bw, "B/s", ci,
        "best point of the sweep (clpeak's kernels at its buffer size, and their neighbours): "
        "bytes read (the one float stored per work item excluded, clpeak's count) over the "
        "median START→END time of one launch (clpeak: the mean of the same event times); "
        "buffer ≫ last-level cache", (top["variant_id"],))]
    by_size = _best_by(ok, lambda r: element_bytes(r["point"]))
    sizes = sorted(by_size)
    series = {"read_bandwidth_vs_element_size": {
        "title": "Global read bandwidth vs element size", "x": sizes,
        "y": [bandwidth_of(by_size[s])[0] for s in sizes],
        "xlabel": "element size (B)", "ylabel": "bandwidth (B/s)", "xscale": "log"}}
    series.update(_vs_workgroup(ok, "read_bandwidth_vs_occupancy", "Global read bandwidth"))
    return AnalysisResult(tuple(chars), series)


def footprint_of(record: Mapping[str, Any]) -> int:
    """Bytes of both buffers of one footprint_bandwidth launch (what it moves per launch)."""
    return int(record["work"]["bytes"])


@analysis("footprint_bandwidth")
def analyze_footprint(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                      clock_hz: float | None) -> AnalysisResult:
    """bandwidth_by_footprint: per footprint, the best copy bandwidth over element sizes."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful footprint-bandwidth measurement",))
    by_footprint = _best_by(ok, footprint_of)
    footprints = sorted(by_footprint)
    steps = [{"footprint_bytes": f, "bandwidth_Bps": bandwidth_of(by_footprint[f])[0]}
             for f in footprints]
    chars = [Characteristic(
        "bandwidth_by_footprint", steps, "[{footprint_bytes: B, bandwidth_Bps: B/s}]",
        method="per footprint (src + dst, the same buffers every launch, no rotation), the best "
               "copy over element sizes: bytes read plus written over the median kernel time",
        variants=tuple(by_footprint[f]["variant_id"] for f in footprints))]
    widths = sorted({element_bytes(r["point"]) for r in ok})
    by_width = _best_by(ok, lambda r: (element_bytes(r["point"]), footprint_of(r)))
    series = {"bandwidth_vs_footprint": {
        "title": "Copy bandwidth vs footprint (buffers reused launch after launch)",
        "x": footprints,
        "y": {f"{w} B elements": [bandwidth_of(by_width[(w, f)])[0] if (w, f) in by_width
                                  else None for f in footprints] for w in widths},
        "xlabel": "footprint, both buffers (B)", "ylabel": "bandwidth (B/s)",
        "xscale": "log", "yscale": "log"}}
    return AnalysisResult(tuple(chars), series)
