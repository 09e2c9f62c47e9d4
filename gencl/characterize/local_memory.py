"""Local memory family: bandwidth (static vs dynamic, one work item vs a group) and bank conflicts.

The conflict degree at stride s is the slowdown against stride 1 of the same word size; the
bank count is read off the curve as the smallest stride whose slowdown is the largest (for 4-byte
words on NVIDIA: 32 banks, stride 32 → 32-way).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.bandwidth import bandwidth_of


def conflict_curve(records: Sequence[Mapping[str, Any]], dtype: str) -> tuple[list[int],
                                                                             list[float]]:
    """(strides, slowdown vs stride 1) for full work-groups of *dtype* words, static buffers."""
    runs = {int(r["point"]["stride"]): float(r["median_s"]) for r in records
            if r["point"]["dtype"] == dtype and r["point"]["workgroup"] > 1
            and r["point"]["allocation"] == "static"}
    if 1 not in runs or len(runs) < 2:
        return [], []
    strides = sorted(runs)
    return strides, [runs[s] / runs[1] for s in strides]


@analysis("local_memory")
def analyze_local_memory(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                         clock_hz: float | None) -> AnalysisResult:
    """local_bw_Bps (best conflict-free full-group variant) and the bank-conflict curves."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful local-memory measurement",))
    group = [r for r in ok if r["point"]["workgroup"] > 1 and r["point"]["stride"] == 1]
    chars = []
    if group:
        top = max(group, key=lambda r: bandwidth_of(r)[0])
        bw, ci = bandwidth_of(top)
        chars.append(Characteristic(
            "local_bw_Bps", bw, "B/s", ci,
            f"bytes read from __local over the median kernel time, conflict-free stride 1, "
            f"best of static/dynamic and word sizes ({top['point']['allocation']}, "
            f"{top['point']['dtype']})", (top["variant_id"],)))
    table = {}
    for r in ok:
        p = r["point"]
        if p["stride"] == 1:
            key = f"{p['allocation']}, {'group' if p['workgroup'] > 1 else '1 item'}, {p['dtype']}"
            table[key] = bandwidth_of(r)[0]
    series: dict[str, Any] = {"local_bandwidth_by_allocation": {
        "title": "Local memory bandwidth: static vs dynamic, group vs one work item",
        "kind": "bar", "labels": list(table), "values": list(table.values()),
        "ylabel": "bandwidth (B/s)"}}
    for dtype in ("float32", "float64"):
        strides, slow = conflict_curve(ok, dtype)
        if not strides:
            continue
        series[f"bank_conflicts_{dtype}"] = {
            "title": f"Bank conflicts, {dtype} words", "x": strides, "y": slow,
            "xlabel": "stride (words)", "ylabel": "time / time at stride 1"}
        worst = max(slow)
        chars.append(Characteristic(
            f"local_bank_conflict_max_{dtype}", worst, "×",
            method=f"largest slowdown over strides {strides[0]}…{strides[-1]} against stride 1 "
                   f"(at stride {strides[slow.index(worst)]})"))
    return AnalysisResult(tuple(chars), series)
