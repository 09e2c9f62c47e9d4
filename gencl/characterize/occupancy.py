"""Occupancy roofline and pipeline latencies from the dependent-chain benchmark (seed 000 §III–V).

Throughput (op/s) against concurrent work items per compute unit for every instruction type and
ILP; the peak, the ridge point (smallest concurrency within 5 % of the peak) and CPI_warp by the
paper's equations with the run correction, from which λ = min CPI_warp and Λ = max CPI_warp.

The peak is the highest rate of any chain, scalar or vector-typed (clpeak's compute figure: on a
CPU only vector chains fill the SIMD lanes). The roofline, CPI, λ, Λ and ridge point are the
paper's, from scalar chains only; the best scalar rate is kept as ``*_scalar_peak_*``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gencl.characterize._hardware import (
    is_gpu, lanes_per_cu, max_conc_wg, max_concurrent_items, warp_width)
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

#: itype -> (summary.json name of its peak, unit, dtype whose lanes bound it)
PEAK_NAMES = {
    "sp_addmul": ("sp_peak_flops", "FLOP/s", "float32"),
    "sp_madd": ("sp_madd_peak_flops", "FLOP/s", "float32"),
    "dp_madd": ("dp_peak_flops", "FLOP/s", "float64"),
    "int_madd": ("int_peak_ops", "op/s", "uint32"),
    "native_sf": ("native_sf_peak_ops", "op/s", "float32"),
    "sf": ("sf_peak_ops", "op/s", "float32"),
}

RIDGE_FRACTION = 0.95


def vector_width(rec: Mapping[str, Any]) -> int:
    """Lanes per chain of a record (1: a scalar chain)."""
    return int(rec["point"].get("vector_width", 1))


def scalar_name(peak_name: str) -> str:
    """``sp_madd_peak_flops`` → ``sp_madd_scalar_peak_flops``."""
    return peak_name.replace("_peak_", "_scalar_peak_", 1)


def best_by_width(points: Sequence[Mapping[str, Any]]) -> dict[int, Mapping[str, Any]]:
    """The fastest point (highest ``ops_per_s``) at each vector width."""
    best: dict[int, Mapping[str, Any]] = {}
    for p in points:
        w = int(p["vector_width"])
        if w not in best or p["ops_per_s"] > best[w]["ops_per_s"]:
            best[w] = p
    return best


@dataclass(frozen=True)
class RunGeometry:
    """Seed 000 §V-B: how a launch falls into runs of concurrent work-groups on the CUs."""

    wg: int
    conc_wg: int
    warps_wg: int
    actual_warp_size: float
    conc_warps: int
    total_warps: float
    runs_cu: int


def run_geometry(work_items: int, wg_size: int, *, local_mem_size: int, max_local_mem: int,
                 max_conc_wg: int | None, warp_size: int, max_conc_warps: int | None,
                 compute_units: int) -> RunGeometry:
    """The run correction's equations, term by term (names as in the paper)."""
    wg = math.ceil(work_items / wg_size)
    by_local = max_local_mem // local_mem_size if local_mem_size > 0 else wg
    conc_wg = min(x for x in (max_conc_wg, wg, by_local) if x is not None)
    warps_wg = math.ceil(wg_size / warp_size)
    actual_warp_size = wg_size / warps_wg
    conc_warps = warps_wg * conc_wg
    if max_conc_warps is not None:
        conc_warps = min(max_conc_warps, conc_warps)
    total_warps = work_items / actual_warp_size
    runs_cu = math.ceil(total_warps / compute_units / conc_warps)
    return RunGeometry(wg, conc_wg, warps_wg, actual_warp_size, conc_warps, total_warps, runs_cu)


def cpi(runtime_s: float, instr_kernel: float, geometry: RunGeometry, wg_size: int,
        clock_hz: float) -> tuple[float, float]:
    """(CPI_CU, CPI_warp) of one measurement: cycles of one run over the instructions it ran."""
    time_of_run = runtime_s / geometry.runs_cu
    cycles_of_run = time_of_run * clock_hz
    instr_run = instr_kernel * wg_size * geometry.conc_wg
    cpi_cu = cycles_of_run / instr_run
    return cpi_cu, cpi_cu * geometry.actual_warp_size


def ridge_point(work_items: Sequence[float], perf: Sequence[float], peak: float,
                fraction: float = RIDGE_FRACTION) -> float | None:
    """Smallest concurrency whose performance is within 5 % of *peak* (seed 000 §III)."""
    hits = [x for x, y in sorted(zip(work_items, perf)) if y >= fraction * peak]
    return hits[0] if hits else None


def theoretical_peak(device: Mapping[str, Any], dtype: str, clock_hz: float) -> float | None:
    """CUs × lanes × 2 × clock (eq. 1, ×2 for multiply-add): a ceiling no measurement may pass."""
    lanes, _ = lanes_per_cu(device, dtype)
    if not lanes:
        return None
    return int(device["compute_units"]) * lanes * 2 * clock_hz


def _curve_point(rec: Mapping[str, Any], device: Mapping[str, Any], warp: int,
                 clock_hz: float) -> dict[str, Any]:
    point, sizes = rec["point"], rec["sizes"]
    width = int(point.get("vector_width", 1))
    n, wg_size = int(sizes["n"]) // width, int(point["workgroup"])  # work items, not lanes
    pad = int(sizes.get("local_pad_bytes", 0)) if point.get("local_pad", True) else 0
    max_items, _ = max_concurrent_items(device)
    geometry = run_geometry(
        n, wg_size, local_mem_size=pad, max_local_mem=int(device["local_mem_bytes"]),
        max_conc_wg=max_conc_wg(device)[0], warp_size=warp,
        max_conc_warps=max_items // warp if max_items else None,
        compute_units=int(device["compute_units"]))
    instr_kernel = rec["work"]["instructions"] / n
    cpi_cu, cpi_warp = cpi(rec["median_s"], instr_kernel, geometry, wg_size, clock_hz)
    ops = rec["work"]["ops"]
    return {"work_items": wg_size * geometry.conc_wg, "workgroup": wg_size,
            "conc_wg": geometry.conc_wg, "runs_cu": geometry.runs_cu,
            "ops_per_s": ops / rec["median_s"],
            "ci95": ops / rec["median_s"] * (rec.get("ci95_s") or 0.0) / rec["median_s"],
            "cpi_cu": cpi_cu, "cpi_warp": cpi_warp, "variant": rec["variant_id"],
            "vector_width": width, "ilp": int(point["ilp"])}


def check_ceiling(itype: str, unit: str, rate: float, ci95: float | None,
                  ceiling: float | None, *, bounds: bool) -> tuple[bool, str | None]:
    """(reported, note) of a peak *rate* against CUs × lanes × 2 × clock.

    The ceiling catches a miscounted op or a chain the compiler folded: the measurement's whole
    95 % interval lies above it. A best-of-many pick at the ceiling sits above it by noise alone
    (PoCL's 8-wide FMA chains on a 2-core AMD EPYC VM: 98.5 % ± 13.5 %). It *bounds* only at a
    clock that was seen, or a GPU's reported maximum: a CPU whose clock was not seen reports a
    nominal clock its cores boost above.
    """
    if ceiling is None or rate <= ceiling:
        return True, None
    if not bounds:
        return True, (f"{itype} measured {rate:.3g} {unit} = {rate / ceiling:.2f}× CUs × lanes "
                      f"× 2 × the reported clock: the cores ran above it (no clock seen on "
                      f"this CPU)")
    if rate - (ci95 or 0.0) > ceiling:
        return False, (f"ERROR: {itype} measured {rate:.3g} {unit} (± {ci95 or 0.0:.2g}) > "
                       f"theoretical {ceiling:.3g} (CUs × lanes × 2 × clock): not reported; "
                       f"check the op count and the emitted code")
    return True, (f"{itype} measured {rate:.3g} {unit} > theoretical {ceiling:.3g}, within "
                  f"its 95 % interval (± {ci95:.2g}): reported; the clock may run above the "
                  f"one used")


def _clock(device: Mapping[str, Any], clock_hz: float | None) -> tuple[float, str]:
    if clock_hz:
        return float(clock_hz), f"clock seen during the run ({clock_hz / 1e6:.0f} MHz)"
    return float(device["max_clock_hz"]), \
        f"device's reported max clock ({device['max_clock_hz'] / 1e6:.0f} MHz; none seen)"


@analysis("occupancy")
def occupancy(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
              clock_hz: float | None) -> AnalysisResult:
    """Occupancy roofline, ridge points and λ/Λ per instruction type."""
    clock, clock_how = _clock(device, clock_hz)
    warp, warp_how = warp_width(device)
    warp = warp or 1
    notes = [f"cycles use the {clock_how}", f"warp size {warp}: {warp_how}",
             f"MaxConcWG {max_conc_wg(device)[0]}: {max_conc_wg(device)[1]}"]
    curves: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    vectors: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in records:
        if rec.get("status") != "ok" or not rec.get("median_s"):
            continue
        point = _curve_point(rec, device, warp, clock)
        if vector_width(rec) == 1:  # the paper's curves: scalar chains
            curves[(rec["point"]["itype"], int(rec["point"]["ilp"]))].append(point)
        else:
            vectors[rec["point"]["itype"]].append(point)
    series: dict[str, Any] = {"curves": {}, "itypes": {}}
    chars: list[Characteristic] = []
    for (itype, ilp), pts in sorted(curves.items()):
        pts.sort(key=lambda p: (p["work_items"], -p["ops_per_s"]))
        series["curves"][f"{itype}/ilp{ilp}"] = {
            "itype": itype, "ilp": ilp,
            **{key: [p[key] for p in pts] for key in
               ("work_items", "workgroup", "conc_wg", "runs_cu", "ops_per_s", "ci95", "cpi_cu",
                "cpi_warp")}}
    for itype in sorted({k[0] for k in curves} | set(vectors)):
        chars.extend(_itype_characteristics(itype, curves, vectors.get(itype, []), device, clock,
                                            bool(clock_hz), clock_how, series, notes))
    by_width = {it: info["peak_by_vector_width"] for it, info in series["itypes"].items()}
    widths = sorted({int(w) for d in by_width.values() for w in d})
    if len(widths) > 1:
        series["peak_vs_vector_width"] = {
            "title": "Peak throughput vs vector width (best over ILP and concurrency)",
            "x": widths, "y": {it: [d.get(str(w)) for w in widths]
                               for it, d in sorted(by_width.items())},
            "xlabel": "vector width (lanes per chain)", "ylabel": "op/s", "xscale": "log"}
    return AnalysisResult(tuple(chars), series, tuple(notes))


def _itype_characteristics(itype: str, curves: Mapping[tuple[str, int], list[dict[str, Any]]],
                           vector_points: Sequence[dict[str, Any]], device: Mapping[str, Any],
                           clock: float, clock_seen: bool, clock_how: str,
                           series: dict[str, Any], notes: list[str]) -> list[Characteristic]:
    name, unit, dtype = PEAK_NAMES.get(itype, (f"{itype}_peak_ops", "op/s", "float32"))
    mine = {ilp: pts for (it, ilp), pts in curves.items() if it == itype}
    scalar = [p for pts in mine.values() for p in pts]
    by_width = best_by_width([*scalar, *vector_points])
    best = max(by_width.values(), key=lambda p: p["ops_per_s"])
    ceiling = theoretical_peak(device, dtype, max(clock, float(device["max_clock_hz"])))
    info: dict[str, Any] = {
        "peak_ops_per_s": best["ops_per_s"], "theoretical_ops_per_s": ceiling,
        "peak_by_vector_width": {str(w): p["ops_per_s"] for w, p in sorted(by_width.items())},
        "best": {k: best[k] for k in ("vector_width", "ilp", "workgroup", "conc_wg", "variant")},
        "ridge_work_items": {}}
    if 1 in by_width:
        info["scalar_peak_ops_per_s"] = by_width[1]["ops_per_s"]
    series["itypes"][itype] = info
    out: list[Characteristic] = []
    bounds = is_gpu(device) or clock_seen
    reported, note = check_ceiling(itype, unit, best["ops_per_s"], best["ci95"], ceiling,
                                   bounds=bounds)
    if note:
        notes.append(note)
    if not reported:
        info["error"] = "above theoretical peak"
        return out
    if not bounds:
        ceiling = None  # not a bound: the method line names no share of it
    of_ceiling = (f"; {best['ops_per_s'] / ceiling:.0%} of CUs×lanes×2×clock" if ceiling else "")
    out.append(Characteristic(
        name, best["ops_per_s"], unit, best["ci95"],
        f"max over vector widths {sorted(by_width)}, ILP and concurrency of dependent {itype} "
        f"chains: best {best['vector_width']}-wide × ILP {best['ilp']}, work-group "
        f"{best['workgroup']}" + of_ceiling, (best["variant"],)))
    if 1 in by_width and len(by_width) > 1:
        top = by_width[1]
        out.append(Characteristic(
            scalar_name(name), top["ops_per_s"], unit, top["ci95"],
            f"max over ILP {sorted(mine)} and concurrency of scalar {itype} chains (seed 000's "
            "figure)", (top["variant"],)))
    if not mine:
        return out
    for ilp, pts in sorted(mine.items()):
        xs, ys = [p["work_items"] for p in pts], [p["ops_per_s"] for p in pts]
        info["ridge_work_items"][str(ilp)] = ridge_point(xs, ys, max(ys))
    cpis = {ilp: [p["cpi_warp"] for p in pts] for ilp, pts in mine.items()}
    issue = min(c for cs in cpis.values() for c in cs)
    base = cpis.get(1) or cpis[min(cpis)]
    completion = max(base)
    info.update(issue_latency_cycles=issue, completion_latency_cycles=completion)
    prefix = "sp" if itype == "sp_addmul" else itype
    how = f"CPI_warp with the run correction (seed 000 §V-B), {clock_how}"
    out.append(Characteristic(f"{prefix}_issue_latency_cycles", issue, "cycles", None,
                              f"λ = min CPI_warp over ILP and concurrency; {how}"))
    out.append(Characteristic(f"{prefix}_completion_latency_cycles", completion, "cycles", None,
                              f"Λ = max CPI_warp of ILP {1 if 1 in cpis else min(cpis)}; {how}"))
    ridge = info["ridge_work_items"].get("1")
    if ridge is not None:
        out.append(Characteristic(
            f"{prefix}_ridge_work_items", ridge, "items", None,
            "smallest concurrent work items per CU within 5 % of the ILP-1 curve's maximum"))
    return out
