"""Image memory (spec ``image_memory``): read bandwidth through the texture path, and its caches.

``image_read_bw_Bps`` is the best point of the bandwidth sweep (clpeak's image kernel and its
neighbours), bytes counted as clpeak counts them (fetches × texel bytes × work items) over the
median launch time: the figure clpeak 2.x reports as "Image memory bandwidth".
``image_read_bw_clpeak_kernel_Bps`` is clpeak's own shape alone (its layout, int2 coordinates,
RGBA float, 16 fetches, work-groups of the device's maximum size), timed by gencl.
The texture-path walk (one work item chasing coordinates through an integer image) is fitted as
the global and ``__constant`` walks are (``latency.staircase_result``): the levels of the texture
path's caches, their latencies, and what serves the misses past the last one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gencl.characterize._cycles import cycle_clock, ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.bandwidth import bandwidth_of
from gencl.characterize.latency import _human, staircase_result, walk_cpmr


def _group(point: Mapping[str, Any]) -> str:
    gy = int(point.get("workgroup_y", 1))
    return f"{point['workgroup']}" + (f"×{gy}" if point.get("layout") == "rows" else "")


def point_label(point: Mapping[str, Any]) -> str:
    """A bandwidth point in words: layout, coordinates, format, fetches, work-group."""
    return (f"{point['layout']} {point['coords']} {point['format'].upper()} "
            f"×{point['fetches']} wg {_group(point)}")


def is_clpeak_kernel(point: Mapping[str, Any], device: Mapping[str, Any]) -> bool:
    """clpeak's shape: its layout, int2 coordinates, RGBA float, 16 fetches, work-groups of the
    device's maximum size (clpeak's ``maxWGSize``)."""
    return (point.get("layout") == "clpeak" and point.get("coords") == "int"
            and point.get("format") == "rgba" and int(point.get("fetches", 0)) == 16
            and int(point.get("workgroup", 0)) == int(device.get("max_work_group_size") or 0))


def _bandwidth_part(runs: Sequence[Mapping[str, Any]], device: Mapping[str, Any]
                    ) -> tuple[list[Characteristic], dict[str, Any]]:
    top = max(runs, key=lambda r: bandwidth_of(r)[0])
    bw, ci = bandwidth_of(top)
    texels = {r["point"]["format"] for r in runs}
    chars = [Characteristic(
        "image_read_bw_Bps", bw, "B/s", ci,
        f"best point of the sweep ({point_label(top['point'])}; clpeak's image kernel at its "
        "image size, and its neighbours): bytes = fetches per work item × texel bytes (16 for "
        "RGBA float, 4 for R) × global work items, clpeak's count, over the median START→END "
        "time of one launch (clpeak: the mean); every pixel read once per launch from an image "
        f"of {_image_bytes(top)} (formats run: {', '.join(sorted(texels))})",
        (top["variant_id"],))]
    clpeak = [r for r in runs if is_clpeak_kernel(r["point"], device)]
    if clpeak:
        mine = max(clpeak, key=lambda r: bandwidth_of(r)[0])
        value, half = bandwidth_of(mine)
        chars.append(Characteristic(
            "image_read_bw_clpeak_kernel_Bps", value, "B/s", half,
            f"clpeak's image kernel alone (1-D NDRange, int2 coordinates from pixel = (gid + "
            f"i·gsize) mod pixels, RGBA float, 16 fetches, work-groups of "
            f"{device.get('max_work_group_size')}, the device's maximum), timed by gencl",
            (mine["variant_id"],)))
    ordered = sorted(runs, key=lambda r: -bandwidth_of(r)[0])
    series: dict[str, Any] = {"image_bandwidth_by_variant": {
        "title": "Image read bandwidth by variant (clpeak's kernel marked *)", "kind": "bar",
        "labels": [point_label(r["point"]) + (" *" if is_clpeak_kernel(r["point"], device)
                                              else "") for r in ordered],
        "values": [bandwidth_of(r)[0] for r in ordered], "ylabel": "bandwidth (B/s)"}}
    fetches = sorted({int(r["point"]["fetches"]) for r in runs})
    if len(fetches) > 1:
        kinds = sorted({(r["point"]["layout"], r["point"]["format"]) for r in runs})
        lines = {}
        for layout, fmt in kinds:
            best = []
            for f in fetches:
                these = [bandwidth_of(r)[0] for r in runs if r["point"]["layout"] == layout
                         and r["point"]["format"] == fmt and int(r["point"]["fetches"]) == f]
                best.append(max(these) if these else None)
            lines[f"{layout} {fmt.upper()}"] = best
        series["image_bandwidth_vs_fetches"] = {
            "title": "Image read bandwidth vs fetches per work item", "x": fetches, "y": lines,
            "xlabel": "fetches per work item", "ylabel": "bandwidth (B/s)", "xscale": "log"}
    return chars, series


def _image_bytes(record: Mapping[str, Any]) -> str:
    sizes = record["sizes"]
    texel = 16 if record["point"]["format"] == "rgba" else 4
    return (f"{sizes['W']}×{sizes['H']} "
            f"({_human(float(sizes['W'] * sizes['H'] * texel))})")


def _walk_part(walk: Sequence[Mapping[str, Any]], hz: float, clock_method: str
               ) -> tuple[list[Characteristic], dict[str, Any], list[str]]:
    chars: list[Characteristic] = []
    notes: list[str] = []
    stair_chars, series, stair = staircase_result(walk, hz, clock_method, "image",
                                                  what="; texture path")
    levels: list[dict[str, float]] = next(
        (c.value for c in stair_chars if c.name == "image_cache_levels"), [])
    if levels:  # the first level's plateau: the median of the walks near it, not one walk
        first = levels[0]
        inside = [r for r in walk if r["point"]["footprint"] <= first["size_bytes"]]
        chars.append(Characteristic(
            "image_latency_cycles", first["latency_cycles"], "cycles",
            method=f"random walk through the texture path, one work item (read_imagei of the "
                   f"next texel's coordinates, no arithmetic between fetches): the measured "
                   f"plateau of its first cache level ({_human(first['size_bytes'])}); "
                   f"{clock_method}", variants=tuple(r["variant_id"] for r in inside)))
    else:
        smallest = min(walk, key=lambda r: r["point"]["footprint"])
        lat, ci = walk_cpmr(smallest, hz)
        chars.append(Characteristic(
            "image_latency_cycles", lat, "cycles", ci,
            f"random walk through the texture path, one work item, "
            f"{_human(smallest['point']['footprint'])} image (read_imagei of the next texel's "
            f"coordinates, no arithmetic between fetches; no cache level found); "
            f"{clock_method}", (smallest["variant_id"],)))
    chars += stair_chars
    if stair is None:
        notes.append("texture-path walk: fewer than 3 footprints ran; no staircase")
        return chars, series, notes
    ids = tuple(r["variant_id"] for r in walk)
    chars.append(Characteristic(
        "image_completion_latency_cycles",
        [lv["latency_cycles"] for lv in levels] + [stair.memory_latency], "cycles",
        method="Λ of each texture-path cache level (its measured plateau) then of what serves "
               "misses past the last one (eq. 6 fit of the image walk, one work item); "
               + clock_method, variants=ids))
    chars.append(Characteristic(
        "image_cache_bytes", [lv["size_bytes"] for lv in levels], "B",
        method="texture-path cache sizes: the most bytes each level was seen to hold "
               "(image_cache_levels); empty: no step below the largest footprint walked",
        variants=ids))
    if not levels:
        largest = max(r["point"]["footprint"] for r in walk)
        notes.append(f"texture-path walk: no cache level found up to {_human(largest)}")
    return chars, series, notes


@analysis("image_memory")
def analyze_image_memory(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                         clock_hz: float | None) -> AnalysisResult:
    """image_read_bw_Bps (best point, clpeak's count), clpeak's kernel alone, and the texture
    path's latency, cache levels and sizes (eq. 6 staircase of the image walk)."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful image-memory measurement",))
    chars: list[Characteristic] = []
    series: dict[str, Any] = {}
    notes: list[str] = []
    runs = [r for r in ok if r["point"]["test"] == "bandwidth"]
    if runs:
        more, more_series = _bandwidth_part(runs, device)
        chars += more
        series.update(more_series)
    walk = [r for r in ok if r["point"]["test"] == "walk"]
    if walk:
        hz, clock_method = cycle_clock(walk, device, clock_hz)
        more, more_series, more_notes = _walk_part(walk, hz, clock_method)
        chars += more
        series.update(more_series)
        notes += more_notes
    return AnalysisResult(tuple(chars), series, tuple(notes))
