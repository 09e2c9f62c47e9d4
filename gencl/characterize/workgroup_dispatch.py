"""Per-work-group cost (spec ``workgroup_dispatch``): what one work-group costs device-wide.

A fixed total of n work items is launched in groups of w items, G = ⌈n / w⌉ groups. The time
follows two asymptotes,

    t(G) ≈ max(T_floor, G · c)

flat while the bytes over the bandwidth dominate (large groups), proportional to the number of
groups once groups are small (H200 Jacobi at 8192²: 32-item groups 1270 µs, 64: 640, 128: 325,
256: 272). The fit is ``alu_fetch.fit_balance`` (least squares in log time, every split of the
points into a proportional and a flat part tried, the best kept), with G as the abscissa; c is
``group_dispatch_s``, the seconds each work-group adds device-wide once groups are small, and
``group_dispatch_cycles_per_cu`` = c × clock × compute units is the same cost in cycles of one
compute unit (≈ 160 on the H200). Why a max() and not a sum: on a GPU the per-group cost
overlaps the memory traffic of other groups (the measured 256-item point sits on the floor).
When no point lies in the proportional regime (a CPU at the quick size: PoCL's 64-item to
2048-group launches all take 63–72 µs, its launch floor) c is the slope of a straight line
t = T + G·c through the points instead, what each group adds to the floor, at least 0 and at most
min(t / G), the bound no group can exceed; the method says so. (min(t / G) itself priced that
CPU's 32-item Jacobi groups at 1,147 µs where they measure 220.) The model uses c to price small
work-groups.

How sharp that corner is, is measured too: ``alu_fetch.fit_overlap`` fits
``t = (T_floor^p + (G·c)^p)^(1/p)`` over the same points, and ``dispatch_overlap_exponent`` is p
(H200: 64, the fit's bound, a max() for every purpose; the model combines its dispatch term
with the others by this exponent rather than by alu_fetch's, which measures how memory and
arithmetic overlap). Reported only where some point is dispatch-bound and the form fits (RMS
log-time residual within ``alu_fetch.OVERLAP_MAX_RMS``).

The floor itself is a figure too: ``item_floor_s`` = T_floor / n, the seconds each of the copy's
work items costs device-wide once its group's start is hidden. Items that each load and store
one float do not reach the copy bandwidth: the H200's floor is 224 µs for 2^26 of them (2.4 TB/s
of the 4.2 a float4 copy moves), whatever their groups, and the model's terms priced its own
256-item point at 165 µs where it measured 207. The model takes it as a floor under any GPU
launch's time (``gencl.model._predict.item_floor``). Reported only where the flat part was
measured: some point lies below the proportional regime.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import cycle_clock, ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.alu_fetch import (
    RISE, Balance, fit_balance, fit_overlap, overlap_characteristic)

#: The access kind whose per-group cost is ``group_dispatch_s`` (a load and a store per item,
#: like the memory-bound stencils the model prices).
PRIMARY = "copy"


def groups_of(record: Mapping[str, Any]) -> int:
    """Work-groups launched: ⌈n / work-group size⌉."""
    n, w = int(record["sizes"]["n"]), int(record["point"]["workgroup"])
    return -(-n // w)


def dispatch_cost(groups: Sequence[float], times: Sequence[float]) -> tuple[float, Balance, bool]:
    """(seconds per work-group, the fit, whether any point is dispatch-bound).

    A point is in the proportional regime when the fitted G·c exceeds the floor; at least the
    point with the most groups must rise ``RISE`` (10 %) above the floor, or noise on a flat
    curve would pass for a regime. Without one the cost returned is the slope of the least-
    squares line t = T + G·c, clipped to [0, min(t / G)].
    """
    fit = fit_balance(groups, times)
    g, t = np.asarray(groups, float), np.asarray(times, float)
    bound = fit.ratio * RISE <= g.max()
    if not bound:
        slope = float(np.polyfit(g, t, 1)[0]) if len(set(g.tolist())) > 1 else 0.0
        return float(np.clip(slope, 0.0, np.min(t / g))), fit, False
    return fit.slope, fit, True


def _overlap_exponent(groups: Sequence[int], times: Sequence[float], fit: Balance, bound: bool,
                      access: str, notes: list[str], variants: tuple[str, ...]
                      ) -> list[Characteristic]:
    """``dispatch_overlap_exponent``: p of t = (T^p + (G·c)^p)^(1/p), where the curve has a
    dispatch-bound part and the form fits it."""
    if not bound:
        return []
    char = overlap_characteristic(
        "dispatch_overlap_exponent", fit_overlap(groups, times, fit), variants, notes,
        label=access, form="t = (T^p + (G·c)^p)^(1/p)",
        method=f"t = (T^p + (G·c)^p)^(1/p) over {len(groups)} work-group sizes ('{access}' "
               "access), T, c and p fitted together in log time", bounds=", p within [1, 64]",
        meaning="p → ∞: a group's start overlaps the other groups' memory traffic fully (max), "
                "p = 1: not at all (sum)")
    return [char] if char is not None else []


def _by_access(ok: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    out: dict[str, list[Mapping[str, Any]]] = {}
    for r in ok:
        out.setdefault(str(r["point"].get("access", PRIMARY)), []).append(r)
    return out


@analysis("workgroup_dispatch")
def analyze_dispatch(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                     clock_hz: float | None) -> AnalysisResult:
    """group_dispatch_s and group_dispatch_cycles_per_cu from the time-vs-groups curve."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful work-group dispatch measurement",))
    hz, clock_method = cycle_clock(ok, device, clock_hz)
    cus = int(device.get("compute_units") or 1)
    by_access = _by_access(ok)
    primary = PRIMARY if PRIMARY in by_access else sorted(by_access)[0]
    chars: list[Characteristic] = []
    notes: list[str] = []
    lines: dict[str, list[float | None]] = {}
    sizes = sorted({int(r["point"]["workgroup"]) for r in ok})
    for access, runs in sorted(by_access.items()):
        runs = sorted(runs, key=groups_of)
        groups = [groups_of(r) for r in runs]
        times = [float(r["median_s"]) for r in runs]
        cost, fit, bound = dispatch_cost(groups, times)
        in_regime = [r for r in runs if groups_of(r) * fit.slope >= fit.t_mem] if bound else []
        how = (f"fit t = max(T, G·c) over {len(runs)} work-group sizes (n = "
               f"{runs[0]['sizes']['n']} items, '{access}' access); {len(in_regime)} point(s) in "
               f"the proportional regime, T = {fit.t_mem:.3g} s, rms log error "
               f"{fit.rms_rel_error:.2g}" if bound else
               f"slope of the line t = T + G·c over {len(runs)} work-group sizes, within [0, "
               f"min(t / G) = {float(np.min(np.asarray(times) / np.asarray(groups))):.3g} s]: "
               f"no point is dispatch-bound ('{access}' access, n = {runs[0]['sizes']['n']})")
        if not bound:
            notes.append(f"{access}: no work-group size was dispatch-bound; per-group cost is the "
                         "slope of a line through the points, not a measured regime")
        variants = tuple(r["variant_id"] for r in (in_regime or runs))
        if access == primary:
            chars.append(Characteristic("group_dispatch_s", cost, "s", method=how,
                                        variants=variants))
            chars.extend(_overlap_exponent(groups, times, fit, bound, access, notes,
                                            tuple(r["variant_id"] for r in runs)))
            chars.append(Characteristic(
                "group_dispatch_cycles_per_cu", cost * hz * cus, "cycles",
                method=f"group_dispatch_s × clock × {cus} compute units; {clock_method}",
                variants=variants))
            flat = [r for r in runs if r not in in_regime]
            if bound and flat:
                n = int(runs[0]["sizes"]["n"])
                chars.append(Characteristic(
                    "item_floor_s", fit.t_mem / n, "s",
                    method=f"T / n of the fit t = max(T, G·c): T = {fit.t_mem:.3g} s over "
                           f"n = {n} items ('{access}' access, {len(flat)} work-group size(s) "
                           "on the flat part)",
                    variants=tuple(r["variant_id"] for r in flat)))
        else:
            chars.append(Characteristic(f"group_dispatch_{access}_s", cost, "s", method=how,
                                        variants=variants))
        got = {int(r["point"]["workgroup"]): float(r["median_s"]) for r in runs}
        lines[access] = [got.get(w) for w in sizes]
        if access == primary:
            n = int(runs[0]["sizes"]["n"])
            lines[f"{access} fit max(T, G·c)"] = [float(fit.predict([-(-n // w)])[0])
                                                   for w in sizes]
    series = {"group_dispatch_overhead_vs_workgroup": {
        "title": "Fixed work, varying work-group size: time vs work-group size",
        "x": sizes, "y": lines, "xlabel": "work-group size (work items)",
        "ylabel": "kernel time (s)", "xscale": "log", "yscale": "log"}}
    return AnalysisResult(tuple(chars), series, tuple(notes))
