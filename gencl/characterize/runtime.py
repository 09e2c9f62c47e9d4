"""Runtime family: host↔device transfers and runtime overheads (seed 003 §2.2, §2.4).

Transfers: bandwidth per direction against size; the characteristic is the plateau, the median
bandwidth of the sizes ≥ 256 MiB (the largest size alone when none is that large). Smaller sizes
are served from caches: on the H200's host (300 MiB of L3) a 16 or 64 MiB pageable write ran at
17 GB/s where 256 MiB and 1 GiB ran at 9, and a 16 MiB device-to-device copy stays in the GPU's
50 MB L2 — a plateau from 16 MiB up reported those caches (2026-11-22). Overheads:
compile time against kernel source size (a least-squares line, its slope per 1000 lines) and the
cost of launching an empty kernel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

#: transfers this large or larger make the plateau (see the module docstring)
PLATEAU_BYTES = 256 << 20
_NAMES = {"h2d": "h2d_bw_Bps", "d2h": "d2h_bw_Bps"}


def plateau(sizes: Sequence[float], bandwidths: Sequence[float]) -> tuple[float, float]:
    """(median, 95 % half-width) bandwidth of the large transfers."""
    pairs = sorted(zip(sizes, bandwidths))
    big = [b for s, b in pairs if s >= PLATEAU_BYTES] or [pairs[-1][1]]
    half = 1.96 * float(np.std(big, ddof=1)) / np.sqrt(len(big)) if len(big) > 1 else 0.0
    return float(np.median(big)), half


@analysis("transfers")
def analyze_transfers(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                      clock_hz: float | None) -> AnalysisResult:
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful transfer",))
    by_dir: dict[str, list[Mapping[str, Any]]] = {}
    for r in ok:
        by_dir.setdefault(r["point"]["direction"], []).append(r)
    chars, lines, xs = [], {}, sorted({int(r["point"]["size_bytes"]) for r in ok})
    for direction, runs in sorted(by_dir.items()):
        sizes = [float(r["point"]["size_bytes"]) for r in runs]
        bws = [float(r["metrics"]["bytes"]) for r in runs]
        got = dict(zip(sizes, bws))
        lines[direction] = [got.get(float(x)) for x in xs]
        value, ci = plateau(sizes, bws)
        name = _NAMES.get(direction, f"{direction}_bw_Bps")
        timing = "host wall clock, map + memcpy + unmap" if direction.startswith("map") \
            else "profiling events"
        which = f"median bandwidth of transfers ≥ {PLATEAU_BYTES >> 20} MiB" \
            if max(sizes) >= PLATEAU_BYTES else \
            f"bandwidth of the largest transfer, {int(max(sizes)) >> 20} MiB (none ≥ " \
            f"{PLATEAU_BYTES >> 20} MiB in this run)"
        chars.append(Characteristic(
            name, value, "B/s", ci, f"{which} ({timing}; pageable host memory)",
            tuple(r["variant_id"] for r in runs)))
    series = {"transfer_bandwidth_vs_size": {
        "title": "Host↔device transfer bandwidth vs size", "x": xs, "y": lines,
        "xlabel": "transfer size (B)", "ylabel": "bandwidth (B/s)", "xscale": "log",
        "yscale": "log"}}
    return AnalysisResult(tuple(chars), series)


def compile_slope(lines: Sequence[float], seconds: Sequence[float]) -> tuple[float, float]:
    """(seconds per 1000 source lines, intercept seconds) of a least-squares line."""
    slope, intercept = np.polyfit(np.asarray(lines, float) / 1000.0, np.asarray(seconds, float), 1)
    return float(slope), float(intercept)


@analysis("runtime_overhead")
def analyze_overheads(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                      clock_hz: float | None) -> AnalysisResult:
    ok = ok_records(records)
    chars: list[Characteristic] = []
    series: dict[str, Any] = {}
    comp = sorted((r for r in ok if r["point"]["test"] == "compile"),
                  key=lambda r: r["extra"]["source_lines"])
    if len(comp) >= 2:
        lines = [float(r["extra"]["source_lines"]) for r in comp]
        secs = [float(r["median_s"]) for r in comp]
        slope, intercept = compile_slope(lines, secs)
        chars.append(Characteristic(
            "compile_time_s_per_kloc", slope, "s/kloc",
            method=f"least-squares slope of build time (clBuildProgram, unique source each time "
                   f"so no cache answers) over {len(comp)} source sizes; intercept "
                   f"{intercept:.3g} s", variants=tuple(r["variant_id"] for r in comp)))
        series["compile_time_vs_source_lines"] = {
            "title": "Compile time vs kernel source size", "x": lines,
            "y": {"measured": secs, "fit": [intercept + slope * x / 1000 for x in lines]},
            "xlabel": "source lines", "ylabel": "build time (s)"}
    launch = {r["point"]["test"]: r for r in ok if r["point"]["test"] != "compile"}
    names = {"launch_back_to_back": ("launch_overhead_s", "interval per launch of an empty "
                                     "kernel enqueued back to back (host wall clock / count)"),
             "launch_roundtrip": ("launch_roundtrip_s", "enqueue → completion seen by the host, "
                                  "one empty kernel at a time (host wall clock)"),
             "launch_queued_to_start": ("launch_queued_to_start_s", "profiling event QUEUED → "
                                        "START of an empty kernel")}
    bursts = ("; median of the quietest of {n} bursts of {k} launches (enqueue, finish, as "
              "clpeak), spread over seconds; the burst medians ranged {lo:.3g}–{hi:.3g} s")
    for test, (name, method) in names.items():
        if test in launch:
            r = launch[test]
            medians = (r.get("extra") or {}).get("burst_medians_s")
            if medians:
                method += bursts.format(n=len(medians), k=r["extra"].get("burst_launches"),
                                        lo=min(medians), hi=max(medians))
            chars.append(Characteristic(name, float(r["median_s"]), "s", r.get("ci95_s"),
                                        method, (r["variant_id"],)))
    if launch:
        series["launch_overheads"] = {
            "title": "Launch overheads of an empty kernel", "kind": "bar",
            "labels": list(launch), "values": [float(r["median_s"]) for r in launch.values()],
            "ylabel": "seconds"}
    return AnalysisResult(tuple(chars), series)
