"""TLB family (spec ``tlb_chase``): page size, TLB levels (entries, reach) and miss penalties.

Saavedra & Smith's page-stride walk, read the way their paper reads it. Each stride S gives a
curve CPMR_S(N) over the N slots walked; the control stride (one cache line) walks the same N
lines packed into a few pages, so ``CPMR_S(N) − CPMR_control(N)`` is what address translation
adds (the data caches see the same lines in both). That excess, on top of the control's
smallest CPMR, is a staircase in the footprint N·S, fitted like the cache staircase
(``latency.fit_staircase``): a step is a TLB level running out of entries.

- Below the page size P several slots share a page and a level's step sits at the same
  footprint for every stride (its reach); from P on, every slot is a page and the step sits at
  the same N (its entries), so the footprint of the first step doubles with the stride. P is the
  largest stride whose first step is still at the smallest strides' footprint.
- Entries of level j: the footprint of step j over the stride, at the smallest stride ≥ P that
  shows it (P itself unless the budget stopped short); reach = entries × P; the miss penalty is
  the rise of that step (cycles).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import cycle_clock, ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.latency import Staircase, _human, fit_staircase, walk_cpmr

#: the control stride: one cache line (the data caches alone)
CONTROL = 128
#: a stride's first step counts as "the same reach" within this factor of the smallest strides'
SAME_REACH = 1.5


def translation_curve(n: Sequence[float], cpmr: Sequence[float], control_n: Sequence[float],
                      control: Sequence[float]) -> np.ndarray:
    """CPMR minus the control's at the same N (log-interpolated), on top of the control's
    smallest CPMR: the walk as if the data caches always hit and only translation varied."""
    cn, cy = np.asarray(control_n, float), np.asarray(control, float)
    order = np.argsort(cn)
    cn, cy = cn[order], cy[order]
    base = float(cy.min())
    at = np.interp(np.log(np.asarray(n, float)), np.log(cn), cy)
    return base + np.maximum(np.asarray(cpmr, float) - at, 0.0)


def page_size(first_step: Mapping[int, float]) -> tuple[int | None, str]:
    """(page size, how it was bracketed) from the first step's footprint per stride."""
    strides = sorted(first_step)
    if not strides:
        return None, "no stride shows a TLB step"
    reach = first_step[strides[0]]
    page = None
    for s in strides:
        if first_step[s] <= SAME_REACH * reach:
            page = s
            reach = min(reach, first_step[s])
        else:
            break
    assert page is not None
    bigger = [s for s in strides if s > page]
    if not bigger:
        return page, f"≥ {_human(page)}: the first step stays at one footprint up to the " \
                     "largest stride walked"
    if page == strides[0]:
        return page, f"≤ {_human(page)}: the first step already moves with the smallest stride"
    return page, f"between {_human(page)} and {_human(bigger[0])}: the first step's footprint " \
                 f"stays at {_human(reach)} up to {_human(page)} and grows with the stride past it"


def tlb_levels(stairs: Mapping[int, Staircase], page: int) -> list[dict[str, float]]:
    """Entries, reach and miss penalty of each level seen at strides ≥ *page*."""
    big = {s: st for s, st in stairs.items() if s >= page and st.sizes}
    if not big:
        return []
    depth = max(len(st.sizes) for st in big.values())
    out = []
    for j in range(depth):
        stride = min(s for s, st in big.items() if len(st.sizes) > j)
        ref = big[stride]
        lats = (*ref.latencies, ref.memory_latency)
        e = ref.sizes[j] / stride
        out.append({"entries": e, "reach_bytes": e * page, "stride_bytes": float(stride),
                    "miss_penalty_cycles": float(lats[j + 1] - lats[j])})
    return out


@analysis("tlb_chase")
def analyze_tlb_chase(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                      clock_hz: float | None) -> AnalysisResult:
    """Page size, TLB levels (entries × page = reach) and their miss penalties."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful page-stride walk",))
    hz, clock_method = cycle_clock(ok, device, clock_hz)
    by_stride: dict[int, list[Mapping[str, Any]]] = {}
    for r in ok:
        by_stride.setdefault(int(r["point"]["stride"]), []).append(r)
    for runs in by_stride.values():
        runs.sort(key=lambda r: r["point"]["pages"])
    notes: list[str] = []
    control = by_stride.pop(CONTROL, [])
    if len(control) >= 2:
        cn = [float(r["point"]["pages"]) for r in control]
        cy = [walk_cpmr(r, hz)[0] for r in control]
    else:
        cn, cy = [1.0, 2.0], [0.0, 0.0]
        notes.append("no control walk: the data caches' own steps are not subtracted")
    lines = [{"label": f"{_human(CONTROL)} (control: caches only)",
              "x": [float(r["point"]["pages"]) * CONTROL for r in control],
              "y": [walk_cpmr(r, hz)[0] for r in control]}] if control else []
    stairs: dict[int, Staircase] = {}
    first: dict[int, float] = {}
    for stride, runs in sorted(by_stride.items()):
        if len(runs) < 5:
            continue
        n = [float(r["point"]["pages"]) for r in runs]
        y = [walk_cpmr(r, hz)[0] for r in runs]
        lines.append({"label": f"stride {_human(stride)}", "x": [v * stride for v in n], "y": y})
        extra = translation_curve(n, y, cn, cy) if len(control) >= 2 else np.asarray(y)
        stair = fit_staircase([v * stride for v in n], extra, min_step=1.1, max_levels=3)
        stairs[stride] = stair
        if stair.sizes:
            first[stride] = stair.sizes[0]
    ids = tuple(r["variant_id"] for r in ok)
    chars: list[Characteristic] = []
    series: dict[str, Any] = {"tlb_chase_cpmr_vs_footprint": {
        "title": "Page-stride walk: CPMR vs footprint, one line per stride",
        "lines": lines, "xlabel": "footprint = slots × stride (B)",
        "ylabel": "cycles per memory request", "xscale": "log", "yscale": "log"}}
    if first:
        series["tlb_first_step_vs_stride"] = {
            "title": "Footprint of the first TLB step vs stride (flat below the page size)",
            "x": sorted(first), "y": [first[s] for s in sorted(first)],
            "xlabel": "stride (B)", "ylabel": "footprint at the first step (B)",
            "xscale": "log", "yscale": "log"}
        chars.append(Characteristic(
            "tlb_first_step_bytes", {str(s): first[s] for s in sorted(first)}, "B",
            method="footprint (slots × stride) where translation starts to add latency, per "
                   "stride: the first level of a staircase fit (eq. 6 sharpened) of CPMR minus "
                   "the control walk's", variants=ids))
    page, how = page_size(first)
    if page is None:
        largest = max((r["point"]["pages"] * r["point"]["stride"] for r in ok), default=0)
        notes.append(f"no TLB step up to {_human(largest)} at any stride: every walk fit the "
                     "TLB's reach (or the budget stopped short of it)")
        return AnalysisResult(tuple(chars), series, tuple(notes))
    chars.append(Characteristic(
        "tlb_page_bytes", float(page), "B",
        method=f"page size {how} (Saavedra & Smith's page-stride walk)", variants=ids))
    levels = tlb_levels(stairs, page)
    if levels:
        chars.append(Characteristic(
            "tlb_levels", levels, "entries, B, cycles",
            method=f"per TLB level: entries = footprint of its step / stride, at the smallest "
                   f"stride ≥ the page size that shows it (stride_bytes); reach = entries × "
                   f"{_human(page)}; miss penalty = "
                   f"the rise of its step over the control walk (caches subtracted); "
                   f"{clock_method}", variants=ids))
    return AnalysisResult(tuple(chars), series, tuple(notes))
