"""Store then reload (spec ``store_reload``): how long a loop's pass waits when its loads follow
the last pass's store to the same array, and that array's lines are shared between sub-groups.

A stencil that updates an array in place (a leapfrog's ``w = 2u − w + …``) streams it in a loop
the code keeps: each pass loads a row and stores it back. Where each sub-group's elements fill
whole cache lines this costs nothing beyond the copy (H200: 1.01–1.03×); where a row starts
64 bytes into a line (the suite's padded stencils), each line holds the elements of two
sub-groups, and the in-place loop runs at half the copy's speed (H200: 1.98× scalar, 1.40× at
``float4``: 11–14 ns a store instruction a compute unit, whatever the width). The benchmark
walks each item's column of K rows in a rolled loop, in place and into a second array, with the
rows on a line and 64 bytes into one; the difference of the two times, over the sub-group store
instructions per compute unit, is the wait per store:

    store_reload_s = (t_self − t_other) / (items / sub-group × K / compute units)

``store_reload_s``: the median over the vector widths measured with rows off the line (0 where
the in-place loop is no slower); ``store_reload_by_case`` each case's figure, the aligned rows'
too (the check that the wait belongs to shared lines).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gencl.characterize._cycles import ok_records
from gencl.characterize._hardware import warp_width
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

#: Rows each item walks (passes of the loop).
ROWS = 8


def bytes_moved(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Bytes one launch reads and writes."""
    return 2.0 * 4 * sizes["m"] * sizes["K"]


def stores(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Store instructions of one launch (per work item: a floatN store is one)."""
    return float(sizes["m"] // int(point["vector_width"]) * sizes["K"])


@analysis("store_reload")
def analyze_store_reload(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                         clock_hz: float | None) -> AnalysisResult:
    """store_reload_s: seconds a compute unit spends per sub-group store of an in-place loop
    over lines two sub-groups share."""
    ok = ok_records(records)
    by: dict[tuple[int, int, str], Mapping[str, Any]] = {}
    for r in ok:
        p = r["point"]
        key = (int(p.get("offset", 0)), int(p["vector_width"]), str(p["target"]))
        if key not in by or float(r["median_s"]) < float(by[key]["median_s"]):
            by[key] = r
    cus = max(1, int(device.get("compute_units") or 1))
    lanes = max(1, warp_width(device)[0] or 1)
    per_case: dict[tuple[int, int], float] = {}
    notes = []
    for offset, width in sorted({(o, w) for o, w, _ in by}):
        own, other = by.get((offset, width, "self")), by.get((offset, width, "other"))
        if own is None or other is None:
            continue
        waits = stores(own["point"], own["sizes"]) / lanes / cus
        t_own, t_other = float(own["median_s"]), float(other["median_s"])
        per_case[(offset, width)] = max(0.0, t_own - t_other) / waits if waits else 0.0
        cycles = f", {per_case[(offset, width)] * clock_hz:.0f} cycles" if clock_hz else ""
        notes.append(f"offset={offset * 4} B, vector_width={width}: in place {t_own * 1e6:.1f} µs, "
                     f"into another array {t_other * 1e6:.1f} µs ({t_own / t_other:.2f}×): "
                     f"{per_case[(offset, width)] * 1e9:.2f} ns a store{cycles}")
    shared = sorted(v for (offset, _), v in per_case.items() if offset)
    if not shared:
        return AnalysisResult((), notes=("no in-place and copy pair measured with rows off the "
                                         "line",))
    mid = len(shared) // 2
    median = shared[mid] if len(shared) % 2 else 0.5 * (shared[mid - 1] + shared[mid])
    variants = tuple(str(by[(o, w, t)]["variant_id"]) for o, w in per_case
                     for t in ("self", "other"))
    chars = (
        Characteristic(
            "store_reload_s", median, "s",
            method="median over vector widths, rows 64 B into a line, of (in-place loop − copy "
                   "loop) / (sub-group store instructions per compute unit)",
            variants=variants),
        Characteristic(
            "store_reload_by_case",
            [{"offset_bytes": o * 4, "vector_width": w, "store_reload_s": v}
             for (o, w), v in per_case.items()], "s",
            method="the same per row offset and vector width", variants=variants),
    )
    widths = sorted({w for _, w in per_case})
    series = {"store_reload_vs_width": {
        "title": "Wait per in-place store of a rolled loop, by where rows lie in a line",
        "x": widths,
        "y": {f"rows {o * 4} B into a line": [per_case.get((o, w)) for w in widths]
              for o in sorted({o for o, _ in per_case})},
        "xlabel": "vector width", "ylabel": "seconds per sub-group store per compute unit"}}
    return AnalysisResult(chars, series, notes=tuple(notes))
