"""Report views of analyses' series: turn an analysis's own data into the drawable shapes.

Most analyses return drawable series already (docs/profile.md, "Series for plots"); the
occupancy analysis returns raw curves per (itype, ILP) that serve the model too. This module
derives the seed 000 pictures from them: the occupancy roofline and CPI vs concurrency per itype.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _best_per_x(xs: list[float], ys: list[float]) -> tuple[list[float], list[float]]:
    """Highest y at each x (several work-group/concurrency splits give one work-item count)."""
    best: dict[float, float] = {}
    for x, y in zip(xs, ys):
        if y is not None and (x not in best or y > best[x]):
            best[x] = y
    keys = sorted(best)
    return keys, [best[k] for k in keys]


def occupancy_views(series: Mapping[str, Any]) -> dict[str, Any]:
    """Roofline (op/s vs concurrent work items) and CPI_warp vs work items, one plot per itype."""
    curves = series.get("curves")
    if not isinstance(curves, Mapping):
        return {}
    by_itype: dict[str, dict[str, Any]] = {}
    for label, c in curves.items():
        if not isinstance(c, Mapping) or "work_items" not in c:
            continue
        itype = str(c.get("itype", label.split("/")[0]))
        ilp = f"ILP {c.get('ilp', label.split('/')[-1])}"
        views = by_itype.setdefault(itype, {"roof": {}, "cpi": {}})
        views["roof"][ilp] = _best_per_x(c["work_items"], c.get("ops_per_s", []))
        if c.get("cpi_warp"):
            xs, ys = _best_per_x(c["work_items"], [-v for v in c["cpi_warp"]])
            views["cpi"][ilp] = (xs, [-v for v in ys])
    out: dict[str, Any] = {}
    for itype, views in by_itype.items():
        peak = (series.get("itypes", {}).get(itype) or {})
        out[f"occupancy_roofline_{itype}"] = {
            "title": f"Occupancy roofline: {itype}",
            "lines": {k: {"x": x, "y": y} for k, (x, y) in views["roof"].items()},
            "xlabel": "concurrent work items per compute unit", "ylabel": "op/s",
            "xscale": "log",
            "hlines": _peaks(peak)}
        if views["cpi"]:
            out[f"cpi_vs_concurrency_{itype}"] = {
                "title": f"CPI (per warp) vs concurrency: {itype}",
                "lines": {k: {"x": x, "y": y} for k, (x, y) in views["cpi"].items()},
                "xlabel": "concurrent work items per compute unit",
                "ylabel": "cycles per instruction (warp)",
                "xscale": "log", "yscale": "log"}
    return out


def _peaks(info: Mapping[str, Any]) -> dict[str, float]:
    """Measured peak, and the theoretical one where it does not flatten the curves (≤ 4×)."""
    measured, theory = info.get("peak_ops_per_s"), info.get("theoretical_ops_per_s")
    out = {}
    if isinstance(measured, int | float):
        out["measured peak"] = float(measured)
        if isinstance(theory, int | float) and theory <= 4 * measured:
            out["theoretical (CUs × lanes × 2 × clock)"] = float(theory)
    return out


def vectorization_views(series: Mapping[str, Any]) -> dict[str, Any]:
    """One bar chart per dtype/scope: speedup over scalar at each vector width."""
    out = {}
    for label, s in series.items():
        if isinstance(s, Mapping) and s.get("vector_width") and s.get("speedup"):
            out[f"vectorization_{label.replace('/', '_')}"] = {
                "title": f"Vectorization speedup: {label}", "kind": "bar",
                "labels": [f"width {w}" for w in s["vector_width"]], "values": s["speedup"],
                "ylabel": "speedup over scalar (×)"}
    return out


def divergence_views(series: Mapping[str, Any]) -> dict[str, Any]:
    """Relative performance vs convergent items (curve), vs divergent fraction, and the map."""
    out: dict[str, Any] = {}
    conv = series.get("conv_items")
    if isinstance(conv, Mapping) and conv.get("conv_items"):
        out["divergence_curve"] = {
            "title": "Divergence: performance vs convergent work items (4 branches)",
            "x": conv["conv_items"], "y": conv.get("relative_performance", []),
            "xlabel": "convItems (consecutive work items taking one branch)",
            "ylabel": "performance relative to the best", "xscale": "log"}
    frac = series.get("f_divergence")
    if isinstance(frac, Mapping) and frac.get("fraction"):
        out["divergence_fraction"] = {
            "title": "Performance vs divergent fraction (seed 001)",
            "x": frac["fraction"], "y": frac.get("relative_performance", []),
            "xlabel": "divergent fraction", "ylabel": "performance relative to none"}
    grid = (series.get("branch_map") or {}).get("time_relative_to_one_branch")
    if isinstance(grid, Mapping) and grid:
        rows = sorted(grid, key=lambda k: int(k))
        cols = sorted({c for r in rows for c in grid[r]}, key=lambda k: int(k))
        out["divergence_map"] = {
            "title": "Divergence map: time relative to one branch",
            "z": [[grid[r].get(c) for c in cols] for r in rows], "x": cols, "y": rows,
            "xlabel": "convItems", "ylabel": "branches", "zlabel": "time / time with 1 branch"}
    return out


#: analysis name → function giving the drawable series that replace its raw ones.
VIEWS = {"occupancy": occupancy_views, "vectorization": vectorization_views,
         "divergence": divergence_views}
#: raw series a view replaces (drawn through the view only).
RAW = {"occupancy": ("curves", "itypes"), "divergence": ("conv_items", "f_divergence",
                                                          "branch_map")}


def drawable_series(analysis: str | None, series: Mapping[str, Any]) -> dict[str, Any]:
    """The series to draw for one benchmark: its own, plus views derived from raw ones."""
    out = dict(series)
    view = VIEWS.get(analysis or "")
    if view is not None:
        derived = view(series)
        if derived:
            for raw in RAW.get(analysis or "", tuple(series)):
                out.pop(raw, None)
            out.update(derived)
    return out
