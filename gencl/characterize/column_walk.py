"""Column-walk family: DRAM bandwidth against the rows one work item walks, items one at a time.

``column_walk`` (spec ``column_walk``): ``out = in₀ + …`` past the caches, each item looping
over the s rows of its band (a vector of each), work-groups of one row of items, which a CPU
runtime runs one after another, at two row pitches. Each (arrays, element width) line's
bandwidth at every s over its one-row bandwidth is that point's share; per count of rows in all
arrays ((arrays + 1) × s) the median over the lines is the table of its pitch:
``bandwidth_share_by_item_streams`` (rows a set apart) and ``bandwidth_share_by_item_set_lines``
(rows in one 4 KiB-indexed set, where that count is also the item's lines in one set). The model
scales the DRAM bandwidth of a launch whose items run one at a time and walk their rows by the
smaller of the two at its item's counts (``gencl.model._row_streams.item_walk_share``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import ok_records
from gencl.characterize.bandwidth import bandwidth_of
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis


def streams(record: Mapping[str, Any]) -> int:
    """Rows one item walks in all arrays together (its inputs' and its output's)."""
    return (int(record["point"]["arrays"]) + 1) * int(record["point"]["rows"])


def bandwidth(record: Mapping[str, Any]) -> float:
    """Bytes read and written over the median kernel time (``bandwidth_of``)."""
    return bandwidth_of(record)[0]


def _line(record: Mapping[str, Any]) -> tuple[int, int]:
    return int(record["point"]["arrays"]), int(record["point"].get("vector_width", 1))


#: the table each pitch's points give, and what its rows count
TABLES = {"offset": ("bandwidth_share_by_item_streams", "streams"),
          "aliased": ("bandwidth_share_by_item_set_lines", "lines")}
#: what each pitch does to a 4 KiB-indexed first-level cache's sets
PITCHES = {"offset": "16 KiB and a line apart (each row a set further on)",
           "aliased": "16 KiB apart (every row of every array in one set)"}


@analysis("column_walk")
def analyze_column_walk(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                        clock_hz: float | None) -> AnalysisResult:
    """bandwidth_share_by_item_streams, bandwidth_share_by_item_set_lines: per count of rows an
    item walks in all arrays, the median over (arrays, width) lines of the bandwidth over the
    line's one-row bandwidth, at each pitch."""
    ok = ok_records(records)
    # a one-row walk has each array's one line in a set at either pitch: the line's baseline is
    # the median of both pitches' one-row points
    base: dict[tuple[int, int], list[float]] = {}
    for r in ok:
        if int(r["point"]["rows"]) == 1:
            base.setdefault(_line(r), []).append(bandwidth(r))
    chars, notes, series = [], [], {}
    for pitch, (name, counted) in TABLES.items():
        points = [r for r in ok if r["point"].get("pitch") == pitch and _line(r) in base]
        if not any(int(r["point"]["rows"]) > 1 for r in points):
            notes.append(f"{name}: no {pitch} column_walk points beyond one row with a "
                         "one-row point of their line: not measured")
            continue
        share = {id(r): bandwidth(r) / float(np.median(base[_line(r)])) for r in points}
        xs = sorted({streams(r) for r in points})
        table = [{counted: x, "share": float(np.median(
            [share[id(r)] for r in points if streams(r) == x]))} for x in xs]
        chars.append(Characteristic(
            name, table, f"[{{{counted}: rows an item walks in all arrays, share}}]",
            method=f"out = in₀ + … past the caches, each item looping over its band's rows, "
                   f"rows {PITCHES[pitch]}, timed in interleaved rounds: the bandwidth over its "
                   "(arrays, element width) line's one-row bandwidth (the median of both "
                   "pitches'); per count of rows in all arrays the median over the lines",
            variants=tuple(r["variant_id"] for r in points)))
        lines = sorted({_line(r) for r in points})
        series[f"share_vs_{counted}"] = {
            "title": f"Bandwidth share vs the rows an item walks, rows {pitch}",
            "lines": [{"label": f"{a} in + out, {4 * w} B items",
                       "x": [streams(r) for r in sorted(points, key=streams) if _line(r) == k],
                       "y": [share[id(r)] for r in sorted(points, key=streams)
                             if _line(r) == k]} for k in lines for a, w in [k]],
            "xlabel": "rows an item walks in all arrays", "ylabel": "share of one row's bandwidth",
            "xscale": "log"}
    return AnalysisResult(tuple(chars), series, tuple(notes))
