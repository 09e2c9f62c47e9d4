"""Scalar vs vector arithmetic (seed 003 §3.1): throughput of each vector width over the scalar.

Used by the tuner's knob ranges (seed 003 §4: vectorize where the benchmark shows gains).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

#: A width counts as a gain when it is this much faster than the scalar kernel.
GAIN = 1.05


def speedups(widths: Sequence[int], perf: Sequence[float]) -> dict[int, float]:
    """Throughput of each width relative to width 1 (empty when the scalar was not measured)."""
    base = dict(zip(widths, perf)).get(1)
    return {w: p / base for w, p in zip(widths, perf)} if base else {}


@analysis("vectorization")
def vectorization(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                  clock_hz: float | None) -> AnalysisResult:
    """Per element type and scope (one work item, full device): speedup of floatW over float."""
    groups: dict[tuple[str, str], dict[int, tuple[float, str]]] = defaultdict(dict)
    for rec in records:
        if rec.get("status") != "ok" or not rec.get("median_s"):
            continue
        p = rec["point"]
        groups[(p["dtype"], p["scope"])][int(p["vector_width"])] = (
            rec["work"]["ops"] / rec["median_s"], rec["variant_id"])
    series: dict[str, Any] = {}
    chars: list[Characteristic] = []
    notes: list[str] = []
    for (dtype, scope), by_width in sorted(groups.items()):
        widths = sorted(by_width)
        perf = [by_width[w][0] for w in widths]
        gain = speedups(widths, perf)
        series[f"{dtype}/{scope}"] = {"dtype": dtype, "scope": scope, "vector_width": widths,
                                      "ops_per_s": perf,
                                      "speedup": [gain.get(w) for w in widths]}
        if not gain:
            notes.append(f"{dtype}/{scope}: scalar kernel not measured, no speedups")
            continue
        best = max(gain, key=lambda w: gain[w])
        chars.append(Characteristic(
            f"vector_speedup_{dtype}_{scope}", {str(w): s for w, s in gain.items()}, "×", None,
            f"ops/s of {dtype}W multiply-add chains over the scalar kernel, "
            f"{'one work item' if scope == 'single' else 'full device'}",
            tuple(by_width[w][1] for w in widths)))
        chars.append(Characteristic(
            f"best_vector_width_{dtype}_{scope}", best if gain[best] >= GAIN else 1, "items",
            None, f"widest gain ≥ {GAIN:.2f}× over scalar, else 1"))
    return AnalysisResult(tuple(chars), series, tuple(notes))
