"""Cached rounds under load (spec ``cached_rounds``): what one more load round costs when its
lines are in a cache, every resident item waiting for its own, between rounds from DRAM.

A measured step is one DRAM round followed by ``hits`` dependent rounds through a table that
``level``'s cache holds; its time is

    step time = DRAM round + hits × cached round

so at each level and load (items per compute unit) the slope of step time over hits, fitted by
least squares over the measured hits, is the cached round's time, and the intercept the DRAM
round's. ``l1_round_s`` and ``l2_round_s`` are the slopes at the heaviest load measured (a
stencil keeps every resident item busy); ``cached_round_by_load`` lists every fit. The model
prices the rounds ptxas schedules beyond the ones it counts itself at ``l2_round_s``
(``gencl.model._schedule``): a round waits for its slowest load, and a pass's later rounds
re-read lines other work-groups brought into the shared level.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis


def step_time(record: Mapping[str, Any]) -> float:
    """Seconds of one DRAM step and its cached rounds in *record*'s launch."""
    return float(record["median_s"]) / float(record["sizes"]["K"])


def fit(points: Sequence[tuple[int, float]]) -> tuple[float, float] | None:
    """(DRAM round, cached round) seconds: the least-squares line of step time over hits; None
    under two distinct hit counts."""
    hits = np.array([h for h, _ in points], dtype=float)
    if len(set(hits.tolist())) < 2:
        return None
    slope, intercept = np.polyfit(hits, np.array([t for _, t in points]), 1)
    return float(intercept), float(slope)


@analysis("cached_rounds")
def analyze_cached_rounds(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                          clock_hz: float | None) -> AnalysisResult:
    """l1_round_s, l2_round_s (at the heaviest load) and cached_round_by_load."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful cached-round measurement",))
    groups: dict[tuple[str, int], list[Mapping[str, Any]]] = defaultdict(list)
    for r in ok:
        groups[(str(r["point"]["level"]), int(r["point"]["items_per_cu"]))].append(r)
    table: list[dict[str, Any]] = []
    chars, notes = [], []
    series: dict[str, Any] = {}
    for (level, items), recs in sorted(groups.items()):
        got = fit([(int(r["point"]["hits"]), step_time(r)) for r in recs])
        if got is None:
            notes.append(f"{level}, {items} items per CU: one hit count measured, no slope")
            continue
        dram, cached = got
        cycles = f" ({cached * clock_hz:.0f} cycles)" if clock_hz else ""
        notes.append(f"{level}, {items} items per CU: DRAM round {dram * 1e9:.0f} ns, cached "
                     f"round {cached * 1e9:.0f} ns{cycles}")
        table.append({"level": level, "items_per_cu": items, "round_s": cached,
                      "dram_round_s": dram,
                      "variants": sorted(str(r["variant_id"]) for r in recs)})
        hits = sorted({int(r["point"]["hits"]) for r in recs})
        by_hits = {int(r["point"]["hits"]): step_time(r) for r in recs}
        series.setdefault("step_time_vs_hits", {
            "title": "Time of a DRAM round and its cached rounds vs cached rounds a step",
            "x": hits, "y": {}, "xlabel": "cached rounds a step", "ylabel": "step time (s)"})
        series["step_time_vs_hits"]["y"][f"{level}, {items} items/CU"] = [
            by_hits.get(h) for h in series["step_time_vs_hits"]["x"]]
    for level in ("l1", "l2"):
        fits = [row for row in table if row["level"] == level]
        if fits:
            top = max(fits, key=lambda row: row["items_per_cu"])
            chars.append(Characteristic(
                f"{level}_round_s", top["round_s"], "s",
                method=f"slope of step time over cached rounds a step (least squares), "
                       f"{top['items_per_cu']} items per compute unit, a {level}-held table",
                variants=tuple(top["variants"])))
    if table:
        chars.append(Characteristic(
            "cached_round_by_load",
            [{k: row[k] for k in ("level", "items_per_cu", "round_s", "dram_round_s")}
             for row in table],
            "[{level, items_per_cu, round_s: s, dram_round_s: s}]",
            method="per level and load, the least-squares line of step time over cached rounds",
            variants=tuple(v for row in table for v in row["variants"])))
    return AnalysisResult(tuple(chars), series, notes=tuple(notes))
