"""Lane-gathers family: what one element costs a CPU's packed gather and scatter instructions.

``lane_gathers`` (spec ``lane_gathers``): work items read 0 … 8 elements of a table the first
cache level holds, or write 1 … 4 elements of an array, at places no compiler proves
contiguous, so a CPU runtime that runs a work-group's items as vector lanes moves each with a
packed gather or scatter. The elements each variant's code moves an item come from its machine
code (``extra["isa"]``: ``loop_gathers_per_item``, ``loop_scatters_per_item``,
``gencl.measure._isa``); the seconds an item takes are fitted against them by least squares
(``numpy.polyfit``), the gathers over the points that do not scatter, the scatters over those
that do (the first scatter also writes the array: its traffic stays in the intercept). Each
rate is one over its slope, elements a second over the whole device. The model prices the
elements a variant's build gathers and scatters by them
(``gencl.model._predict.lane_gather_time``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

#: the rate each fit gives, and the machine-code count it is fitted against
RATES = {"lane_gathers_per_s": "loop_gathers_per_item",
         "lane_scatters_per_s": "loop_scatters_per_item"}


def counted(record: Mapping[str, Any]) -> bool:
    """Whether the record carries its build's loop counts (not a GPU's, nor one measured
    without objdump)."""
    isa = (record.get("extra") or {}).get("isa") or {}
    return all(isinstance(isa.get(c), int | float) for c in RATES.values())


def moved_per_item(record: Mapping[str, Any], count: str) -> float:
    """Elements an item moves a pass of the build's most-gathering loop (*count*: gathered or
    scattered), of a ``counted`` record."""
    return float(record["extra"]["isa"][count])


def seconds_per_item(record: Mapping[str, Any]) -> float:
    return float(record["median_s"]) / float(record["sizes"]["n"])


def fit(points: Sequence[tuple[float, Mapping[str, Any]]]) -> tuple[float, float] | None:
    """(slope, intercept) of an item's seconds against *points*' elements; None without two
    distinct counts or where the time does not rise with them."""
    xs = np.array([x for x, _ in points])
    if len(set(xs.tolist())) < 2:
        return None
    slope, intercept = np.polyfit(xs, [seconds_per_item(r) for _, r in points], 1)
    return (float(slope), float(intercept)) if slope > 0 else None


@analysis("lane_gathers")
def analyze_lane_gathers(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                         clock_hz: float | None) -> AnalysisResult:
    """lane_gathers_per_s, lane_scatters_per_s: one over the slope of an item's time against
    the elements its machine code gathers (the points without scatters) and scatters (the
    points with them)."""
    ok = [r for r in ok_records(records) if counted(r)]
    if not any(moved_per_item(r, c) for r in ok for c in RATES.values()):
        return AnalysisResult((), notes=(
            "no packed gathers or scatters in the builds' machine code (a GPU's lanes load "
            "and store on their own; a CPU build that moved each item's elements one at a "
            "time; objdump missing): nothing measured",))
    groups = {
        "lane_gathers_per_s": [(moved_per_item(r, RATES["lane_gathers_per_s"]), r) for r in ok
                               if not moved_per_item(r, RATES["lane_scatters_per_s"])],
        "lane_scatters_per_s": [(moved_per_item(r, RATES["lane_scatters_per_s"]), r)
                                for r in ok if moved_per_item(r, RATES["lane_scatters_per_s"])],
    }
    chars, notes, lines = [], [], []
    for name, points in groups.items():
        line = fit(points)
        what = name.split("_")[1]
        if line is None:
            notes.append(f"{name}: fewer than two {what} counts, or a time that does not "
                         "rise with them: not measured")
            continue
        slope, intercept = line
        chars.append(Characteristic(
            name, 1.0 / slope, "elements/s",
            method=f"one over the least-squares slope of an item's median time against the "
                   f"elements its machine code {what.rstrip('s')}s an item "
                   f"(extra.isa.{RATES[name]})",
            variants=tuple(r["variant_id"] for _, r in points)))
        xs = [x for x, _ in points]
        lines += [{"label": f"{what}, measured", "x": xs,
                   "y": [seconds_per_item(r) for _, r in points]},
                  {"label": f"{what}, fit", "x": sorted(xs),
                   "y": [intercept + slope * x for x in sorted(xs)]}]
    series = {"time_vs_elements": {
        "title": "Time an item vs elements gathered or scattered an item (packed)",
        "lines": lines, "xlabel": "elements an item gathers or scatters (its machine code)",
        "ylabel": "seconds an item"}} if lines else {}
    return AnalysisResult(tuple(chars), series, tuple(notes))
