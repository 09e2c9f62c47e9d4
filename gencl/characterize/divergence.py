"""Thread divergence: performance vs convItems, branch-count map, F_Divergence, warp width.

Seed 000 §V-D (4 branches, convItems 1…256), seed 003 §3.3 (branch count × width, relative to
one branch) and seed 001's F_Divergence (performance against the fraction of divergent work,
sampled and interpolated).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._hardware import warp_width
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

#: Performance within this fraction of the best counts as divergence-free.
FREE = 0.95


def detect_width(conv: Sequence[int], perf: Sequence[float], fraction: float = FREE) -> int:
    """Smallest convItems whose performance is within 5 % of the best: from there on no warp
    holds two branches, so it is the lockstep width (1 when nothing diverges, e.g. a CPU)."""
    best = max(perf)
    return min(c for c, p in zip(conv, perf) if p >= fraction * best)


def divergent_fraction(conv: int, branches: int, warp: int) -> float:
    """Fraction of issued branch work that is wasted: a warp of *warp* items holding
    ``paths = min(branches, ceil(warp / conv))`` branches runs each for all its items."""
    paths = min(branches, math.ceil(warp / conv))
    return 1.0 - 1.0 / paths


def f_divergence(fractions: Sequence[float], rel_perf: Sequence[float],
                 grid: int = 21) -> dict[str, list[float]]:
    """Samples averaged per fraction, then linearly interpolated on an even grid (numpy)."""
    by_f: dict[float, list[float]] = defaultdict(list)
    for f, r in zip(fractions, rel_perf):
        by_f[round(f, 6)].append(r)
    xs = sorted(by_f)
    ys = [float(np.mean(by_f[x])) for x in xs]
    gx = np.linspace(0.0, xs[-1], grid) if xs[-1] > 0 else np.zeros(1)
    return {"fraction": xs, "relative_performance": ys,
            "grid_fraction": gx.tolist(), "grid_relative_performance":
            np.interp(gx, xs, ys).tolist()}


@analysis("divergence")
def divergence(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
               clock_hz: float | None) -> AnalysisResult:
    perf: dict[tuple[int, int], float] = {}
    for rec in records:
        if rec.get("status") == "ok" and rec.get("median_s"):
            p = rec["point"]
            perf[(int(p["branches"]), int(p["conv_items"]))] = rec["work"]["ops"] / rec["median_s"]
    warp, warp_how = warp_width(device)
    notes = [f"device warp {warp}: {warp_how}"]
    series: dict[str, Any] = {}
    chars: list[Characteristic] = []
    four = sorted((c, v) for (b, c), v in perf.items() if b == 4)
    if four:
        conv, ops = [c for c, _ in four], [v for _, v in four]
        best = max(ops)
        width = detect_width(conv, ops)
        series["conv_items"] = {"conv_items": conv, "ops_per_s": ops,
                                "relative_performance": [v / best for v in ops]}
        chars.append(Characteristic(
            "divergence_width_items", width, "items", None,
            f"smallest convItems within {1 - FREE:.0%} of the best, 4 branches "
            f"(device-reported/derived warp: {warp})"))
        chars.append(Characteristic(
            "divergence_penalty_4_branches", best / min(ops), "×", None,
            "best over worst performance across convItems with 4 branches"))
        if warp and width != warp:
            notes.append(f"measured divergence width {width} differs from the warp {warp}")
        w = warp or width
        fr = [divergent_fraction(c, 4, w) for c in conv]
        fd = f_divergence(fr, [v / best for v in ops])
        series["f_divergence"] = fd
        chars.append(Characteristic(
            "f_divergence", {"fraction": fd["fraction"],
                             "relative_performance": fd["relative_performance"]}, "1", None,
            f"relative performance vs divergent fraction 1 - 1/min(4, ceil({w}/convItems)); "
            "interpolate linearly (series grid)"))
    one = {c: v for (b, c), v in perf.items() if b == 1}
    grid = {str(b): {str(c): one[c] / v for (bb, c), v in sorted(perf.items())
                     if bb == b and c in one} for b in sorted({b for b, _ in perf})}
    if one:
        series["branch_map"] = {"time_relative_to_one_branch": grid}
    return AnalysisResult(tuple(chars), series, tuple(notes))
