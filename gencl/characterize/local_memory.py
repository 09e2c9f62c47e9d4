"""Local memory family: peak bandwidth (best of vector widths, ILP, allocations), one-word
bandwidth, and bank conflicts.

``local_bw_Bps`` is the best conflict-free (stride 1) full-group point: the peak a kernel can get
out of ``__local`` memory, what clpeak reports. ``local_bw_scalar_Bps`` is the best one-word-per-
access point (float or double per lane): kernels that read ``__local`` one word at a time see that.
The conflict degree at stride s is the slowdown against stride 1 of the same word size and the
same other settings; the bank count is read off the curve as the smallest stride whose slowdown is
the largest (for 4-byte words on NVIDIA: 32 banks, stride 32 → 32-way).

Records from before the vector/ILP knobs (no ``vector_width``, ``ilp``, ``unroll`` in the point)
read as one word, one chain, fully unrolled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.bandwidth import bandwidth_of

#: the point defaults of records that predate an axis
DEFAULTS = {"vector_width": 1, "ilp": 1, "unroll": "full", "allocation": "static"}


def _axis(point: Mapping[str, Any], name: str) -> Any:
    return point.get(name, DEFAULTS.get(name))


def _describe(point: Mapping[str, Any]) -> str:
    return (f"{_axis(point, 'allocation')}, {point['dtype']} × {_axis(point, 'vector_width')}, "
            f"ilp {_axis(point, 'ilp')}, unroll {_axis(point, 'unroll')}, "
            f"work-group {point['workgroup']}")


def conflict_curve(records: Sequence[Mapping[str, Any]], dtype: str) -> tuple[list[int],
                                                                             list[float]]:
    """(strides, slowdown vs stride 1) for full work-groups of *dtype* words, static buffers.

    Only records that differ in the stride alone are compared: of the groups of records with equal
    other settings, the one that covers the most strides (the conflict sweep's settings).
    """
    groups: dict[tuple, dict[int, float]] = {}
    for r in records:
        p = r["point"]
        if (p["dtype"] != dtype or p["workgroup"] <= 1 or _axis(p, "allocation") != "static"
                or _axis(p, "vector_width") != 1):
            continue
        key = tuple(sorted((k, str(_axis(p, k))) for k in {*p, *DEFAULTS} if k != "stride"))
        groups.setdefault(key, {})[int(p["stride"])] = float(r["median_s"])
    runs = max((g for g in groups.values() if 1 in g), key=len, default={})
    if len(runs) < 2:
        return [], []
    strides = sorted(runs)
    return strides, [runs[s] / runs[1] for s in strides]


def _best(records: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    return max(records, key=lambda r: bandwidth_of(r)[0], default=None)


def _width_series(group: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Best bandwidth by bytes per access, one line per word size and chain count."""
    lines: dict[str, dict[int, float]] = {}
    for r in group:
        p = r["point"]
        if _axis(p, "allocation") != "static" or _axis(p, "unroll") != "full":
            continue
        label = f"{p['dtype']}, ilp {_axis(p, 'ilp')}"
        access = int(_axis(p, "vector_width")) * (4 if p["dtype"] == "float32" else 8)
        bw = bandwidth_of(r)[0]
        lines.setdefault(label, {})[access] = max(bw, lines.get(label, {}).get(access, 0.0))
    xs = sorted({x for line in lines.values() for x in line})
    if len(xs) < 2:
        return None
    return {"title": "Local memory bandwidth by bytes per access (stride 1, static, unrolled)",
            "x": xs, "y": {k: [v.get(x) for x in xs] for k, v in sorted(lines.items())},
            "xlabel": "bytes per access per work item", "ylabel": "bandwidth (B/s)",
            "xscale": "log"}


@analysis("local_memory")
def analyze_local_memory(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                         clock_hz: float | None) -> AnalysisResult:
    """local_bw_Bps (peak), local_bw_scalar_Bps (one word per access) and the conflict curves."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful local-memory measurement",))
    group = [r for r in ok if r["point"]["workgroup"] > 1 and r["point"]["stride"] == 1]
    chars = []
    top = _best(group)
    if top is not None:
        bw, ci = bandwidth_of(top)
        chars.append(Characteristic(
            "local_bw_Bps", bw, "B/s", ci,
            f"bytes read from __local over the median kernel time, conflict-free stride 1, best "
            f"of {len(group)} full-group variants (vector width, ILP, unroll, allocation, word "
            f"size): {_describe(top['point'])}", (top["variant_id"],)))
    scalar = _best([r for r in group if _axis(r["point"], "vector_width") == 1])
    if scalar is not None:
        bw, ci = bandwidth_of(scalar)
        chars.append(Characteristic(
            "local_bw_scalar_Bps", bw, "B/s", ci,
            f"as local_bw_Bps, one word (float or double) per access and work item: "
            f"{_describe(scalar['point'])}", (scalar["variant_id"],)))
    table = {}
    for r in ok:
        p = r["point"]
        if (p["stride"] == 1 and p["workgroup"] in (1, 256) and _axis(p, "vector_width") == 1
                and _axis(p, "ilp") == 1 and _axis(p, "unroll") == "full"):
            who = "group" if p["workgroup"] > 1 else "1 item"
            table[f"{_axis(p, 'allocation')}, {who}, {p['dtype']}"] = bandwidth_of(r)[0]
    series: dict[str, Any] = {"local_bandwidth_by_allocation": {
        "title": "Local memory bandwidth (one word per access): static vs dynamic, group vs one "
                 "work item",
        "kind": "bar", "labels": list(table), "values": list(table.values()),
        "ylabel": "bandwidth (B/s)"}}
    widths = _width_series([r for r in group if r["point"]["workgroup"] == 256])
    if widths:
        series["local_bandwidth_by_access_bytes"] = widths
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
