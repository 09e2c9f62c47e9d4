"""ALU:fetch balance (seed 004 §IV-A): the ratio where a kernel's bound moves from memory to ALU.

Over the swept ALU:fetch ratio ρ a kernel's time follows the roofline,

    t(ρ) ≈ max(T_mem, k · ρ)

flat while the loads dominate (bytes / bandwidth), then proportional to the arithmetic
(ops / peak). ``fit_balance`` fits the two asymptotes in log time (every split of the measured
ratios into a flat left part and a proportional right part, least squares, best split kept); the
balance point is where they cross, ρ* = T_mem / k. It is reported in three units: seed 004's
ratio (4 ALU instructions per fetch = 1.0), operations per byte moved (the roofline ridge, FLOP/B)
and operations per load instruction (FLOP per fetched float or float4). A curve still flat at the
largest ratio (or rising from the smallest) has no balance inside the sweep: the analysis says so
and reports no number. ``rise_ratio`` is where time first exceeds the flat level by 10 %, the
point seed 004 reads off its plots.

The corner between the two regimes is round, not sharp: memory and arithmetic overlap only in
part. ``fit_overlap`` fits ``t(ρ) = (T_mem^p + (k·ρ)^p)^(1/p)`` (T_mem, k and p together, least
squares in log time): p → ∞ is the sharp max(), p = 1 no overlap at all. The exponent per type
(scalar ``float``, vector-typed the widest ``floatW``) is what the model combines its concurrent
terms with (``gencl.model._predict``); a curve the form does not fit (log-time residual above
``OVERLAP_MAX_RMS``) reports no exponent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

#: rise over the flat part that counts as "time starts rising"
RISE = 1.10
#: an overlap fit whose RMS log-time residual exceeds this (≈ 10 %) describes another curve
OVERLAP_MAX_RMS = 0.1


@dataclass(frozen=True)
class Balance:
    """Two asymptotes of t(ρ): flat ``t_mem`` and ``slope``·ρ; ``ratio`` = t_mem / slope."""

    t_mem: float
    slope: float
    rms_rel_error: float
    ratio_min: float
    ratio_max: float

    @property
    def ratio(self) -> float:
        return self.t_mem / self.slope

    @property
    def inside(self) -> bool:
        """Both regimes were seen: the crossing lies inside the measured ratios with the model
        rising by at least ``RISE`` on the steep side and the flat side spanning as much (noise
        on a flat or a straight curve would otherwise put a crossing at the sweep's edge)."""
        return self.ratio_min * RISE <= self.ratio <= self.ratio_max / RISE

    def predict(self, ratios: Sequence[float]) -> np.ndarray:
        return np.maximum(self.t_mem, self.slope * np.asarray(ratios, float))


def fit_balance(ratios: Sequence[float], times: Sequence[float]) -> Balance:
    """Least-squares fit of ``log t = log max(T, k·ρ)``: every split into a flat left part and a
    proportional right part is tried (closed form per split), the one with the smallest residual
    of the max() model wins. Splits with an empty side give ρ* outside the measured range."""
    x, y = np.asarray(ratios, float), np.asarray(times, float)
    keep = np.isfinite(y) & (y > 0) & (x > 0)
    x, y = x[keep], y[keep]
    order = np.argsort(x)
    lx, ly = np.log(x[order]), np.log(y[order])
    best: tuple[float, float, float] | None = None
    for split in range(0, len(lx) + 1):
        left, right = ly[:split], ly[split:] - lx[split:]
        if len(left) and len(right):
            log_t, log_k = float(left.mean()), float(right.mean())
        elif len(right):  # all proportional: the flat level lies below the smallest ratio
            log_k = float(right.mean())
            log_t = log_k + lx[0] - 1e-6
        else:  # all flat: the crossing lies beyond the largest ratio
            log_t = float(left.mean())
            log_k = log_t - lx[-1] - 1e-6
        res = ly - np.maximum(log_t, log_k + lx)
        rss = float(res @ res)
        if best is None or rss < best[0] - 1e-12:
            best = (rss, log_t, log_k)
    assert best is not None, "no measured ratio"
    rss, log_t, log_k = best
    return Balance(float(np.exp(log_t)), float(np.exp(log_k)), float(np.sqrt(rss / len(lx))),
                   float(x.min()), float(x.max()))


@dataclass(frozen=True)
class Overlap:
    """``t(ρ) = (t_mem^exponent + (slope·ρ)^exponent)^(1/exponent)`` and its log-time residual."""

    t_mem: float
    slope: float
    exponent: float
    rms_log_error: float

    def predict(self, ratios: Sequence[float]) -> np.ndarray:
        p = self.exponent
        return (self.t_mem ** p + (self.slope * np.asarray(ratios, float)) ** p) ** (1 / p)


def fit_overlap(ratios: Sequence[float], times: Sequence[float], start: Balance) -> Overlap:
    """Least squares in log time over (log T_mem, log k, log p), from *start*'s asymptotes and
    p = 2; p is kept within [1, 64] (64 is a max() for every purpose)."""
    from scipy.optimize import least_squares

    x, y = np.asarray(ratios, float), np.asarray(times, float)
    keep = np.isfinite(y) & (y > 0) & (x > 0)
    lx, ly = np.log(x[keep]), np.log(y[keep])

    def residual(q: np.ndarray) -> np.ndarray:
        log_t, log_k, log_p = q
        p = np.exp(log_p)
        return np.logaddexp(p * log_t, p * (log_k + lx)) / p - ly

    fit = least_squares(residual, [np.log(start.t_mem), np.log(start.slope), np.log(2.0)],
                        bounds=([-np.inf, -np.inf, 0.0], [np.inf, np.inf, np.log(64.0)]))
    log_t, log_k, log_p = fit.x
    return Overlap(float(np.exp(log_t)), float(np.exp(log_k)), float(np.exp(log_p)),
                   float(np.sqrt(np.mean(fit.fun ** 2))))


def rise_ratio(ratios: Sequence[float], times: Sequence[float], t_mem: float) -> float | None:
    """First measured ratio whose time exceeds the flat level by ``RISE``."""
    for r, t in sorted(zip(ratios, times)):
        if t > RISE * t_mem:
            return float(r)
    return None


def _type_label(point: Mapping[str, Any]) -> str:
    w = int(point.get("vector_width", 1))
    return "float" if w == 1 else f"float{w}"


def _width(label: str) -> int:
    return 1 if label == "float" else int(label[5:])


def _per_ratio(records: Sequence[Mapping[str, Any]]) -> dict[float, Mapping[str, Any]]:
    """Fastest record per ratio (several work-group sizes may have run)."""
    best: dict[float, Mapping[str, Any]] = {}
    for r in records:
        ratio = float(r["point"]["ratio"])
        if ratio not in best or r["median_s"] < best[ratio]["median_s"]:
            best[ratio] = r
    return best


def _balance_of(label: str, runs: dict[float, Mapping[str, Any]]
                ) -> tuple[dict[str, Any] | None, Balance, str | None]:
    ratios = sorted(runs)
    times = [float(runs[r]["median_s"]) for r in ratios]
    fit = fit_balance(ratios, times)
    if not fit.inside:
        where = "above" if fit.ratio >= fit.ratio_max else "below"
        return None, fit, (f"{label}: no balance inside ratios {ratios[0]:g}…{ratios[-1]:g} "
                           f"(the crossing of the fitted asymptotes lies {where} the sweep)")
    # work per ratio is linear in ρ (ops) or constant (bytes, loads): scale the nearest run
    near = min(ratios, key=lambda r: abs(np.log(r / fit.ratio)))
    work = runs[near]["work"]
    scale = fit.ratio / near
    flat = [runs[r] for r in ratios if r <= fit.ratio] or [runs[ratios[0]]]
    steep = [runs[r] for r in ratios if r >= fit.ratio] or [runs[ratios[-1]]]
    value = {
        "ratio": fit.ratio,
        "alu_per_fetch": 4 * fit.ratio,
        "ops_per_byte": float(work["flops"]) * scale / float(work["bytes"]),
        "ops_per_load": float(work["flops"]) * scale / float(work["loads"]),
        "rise_ratio": rise_ratio(ratios, times, fit.t_mem),
        "memory_bound_Bps": float(np.median([r["work"]["bytes"] / r["median_s"] for r in flat])),
        "alu_bound_flops": float(max(r["work"]["flops"] / r["median_s"] for r in steep)),
    }
    return value, fit, None


@dataclass(frozen=True)
class TypeFit:
    """One data type's curve (float, floatW): its fastest run per ratio, the max() fit (None
    under 3 ratios) and, where that fit finds a balance inside the sweep, its value
    (``alu_fetch_balance``'s entry) and the overlap fit."""

    runs: Mapping[float, Mapping[str, Any]]
    balance: Balance | None
    value: dict[str, Any] | None
    overlap: Overlap | None

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(self.runs[r]["variant_id"] for r in sorted(self.runs))


def sweep_inputs(records: Sequence[Mapping[str, Any]]) -> int:
    """The input count most ok records ran with (the sweep's; 0 without any)."""
    counts = [int(r["point"]["inputs"]) for r in ok_records(records) if r.get("work")]
    return max(set(counts), key=counts.count) if counts else 0


def fit_types(records: Sequence[Mapping[str, Any]]
              ) -> tuple[dict[str, TypeFit], list[str], list[str]]:
    """Each data type's fits over the ok records of the sweep's input count
    (``sweep_inputs``), narrowest type first; the notes of the types without a balance (or with
    fewer than 3 ratios); the variant ids of every type's runs."""
    ok = [r for r in ok_records(records) if r.get("work")]
    inputs = sweep_inputs(records)
    fits: dict[str, TypeFit] = {}
    notes: list[str] = []
    ids: list[str] = []
    for label in sorted({_type_label(r["point"]) for r in ok}, key=_width):
        runs = _per_ratio([r for r in ok if _type_label(r["point"]) == label
                           and int(r["point"]["inputs"]) == inputs])
        if not runs:
            continue
        ratios = sorted(runs)
        ids += [runs[r]["variant_id"] for r in ratios]
        if len(runs) < 3:
            notes.append(f"{label}: fewer than 3 ratios ran; no balance fitted")
            fits[label] = TypeFit(runs, None, None, None)
            continue
        value, fit, note = _balance_of(label, runs)
        overlap = fit_overlap(ratios, [float(runs[r]["median_s"]) for r in ratios], fit) \
            if value is not None else None
        fits[label] = TypeFit(runs, fit, value, overlap)
        if note:
            notes.append(note)
    return fits, notes, ids


@analysis("alu_fetch")
def analyze_alu_fetch(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                      clock_hz: float | None) -> AnalysisResult:
    """alu_fetch_balance per data type, and time / throughput vs ALU:fetch ratio."""
    inputs = sweep_inputs(records)
    if not inputs:
        return AnalysisResult((), notes=("no successful ALU:fetch measurement",))
    typed, notes, ids = fit_types(records)
    groups = {label: t.runs for label, t in typed.items()}
    fits = {label: t.balance for label, t in typed.items() if t.balance is not None}
    balance = {label: t.value for label, t in typed.items() if t.value is not None}
    overlaps = {label: (t.overlap, t.variants) for label, t in typed.items()
                if t.overlap is not None}
    chars = []
    if balance:
        chars.append(Characteristic(
            "alu_fetch_balance", balance, "ratio (seed 004), op/B, op/load",
            method=f"{inputs} inputs per work item; crossing of the asymptotes of "
                   "t = max(T_mem, k·ρ) fitted in log time over the swept ratios (seed 004 "
                   "§IV-A); ratio: 1.0 = 4 multiply-adds per fetch; ops_per_byte: FLOP per byte "
                   "loaded or stored (roofline ridge); ops_per_load: FLOP per load instruction "
                   "(float or float4); rise_ratio: first ratio 10 % above the flat time",
            variants=tuple(ids)))
    chars += _overlap_exponents(overlaps, notes)

    ratios = sorted({ratio for runs in groups.values() for ratio in runs})
    def line(label: str, fn) -> list[float | None]:
        runs = groups[label]
        return [fn(runs[r]) if r in runs else None for r in ratios]

    time_y: dict[str, list[float | None]] = {}
    for label in groups:
        time_y[label] = line(label, lambda r: float(r["median_s"]))
        if label in fits:
            time_y[f"{label} fit max(T, k·ρ)"] = [float(v) for v in fits[label].predict(ratios)]
        if label in overlaps:
            curve = overlaps[label][0]
            time_y[f"{label} fit overlap p={curve.exponent:.2f}"] = [
                float(v) for v in curve.predict(ratios)]
    series: dict[str, Any] = {
        "alu_fetch_time_vs_ratio": {
            "title": f"Time vs ALU:fetch ratio ({inputs} inputs, seed 004 Fig. 7)",
            "x": ratios, "y": time_y, "xlabel": "ALU:fetch ratio (1.0 = 4 multiply-adds per load)",
            "ylabel": "kernel time (s)", "xscale": "log", "yscale": "log"},
        "alu_fetch_throughput_vs_ratio": {
            "title": "Arithmetic throughput vs ALU:fetch ratio", "x": ratios,
            "y": {label: line(label, lambda r: r["work"]["flops"] / r["median_s"])
                  for label in groups},
            "xlabel": "ALU:fetch ratio", "ylabel": "FLOP/s", "xscale": "log", "yscale": "log"},
        "alu_fetch_memory_rate_vs_ratio": {
            "title": "Bytes moved per second vs ALU:fetch ratio", "x": ratios,
            "y": {label: line(label, lambda r: r["work"]["bytes"] / r["median_s"])
                  for label in groups},
            "xlabel": "ALU:fetch ratio", "ylabel": "B/s", "xscale": "log", "yscale": "log"},
    }
    return AnalysisResult(tuple(chars), series, tuple(notes))


def overlap_characteristic(key: str, fit: Overlap, variants: tuple[str, ...], notes: list[str],
                           *, label: str, form: str, method: str, meaning: str,
                           bounds: str = "") -> Characteristic | None:
    """*key* = the fitted exponent p where the overlap form fits (RMS log-time residual within
    ``OVERLAP_MAX_RMS``); else None and a note saying so. *form* names the curve in the note,
    *method* how it was fitted (*bounds*: what it kept p within), *meaning* what p → ∞ and p = 1
    mean for these two regimes."""
    if fit.rms_log_error > OVERLAP_MAX_RMS:
        notes.append(f"{label}: {form} does not fit (RMS log-time residual "
                     f"{fit.rms_log_error:.2f} > {OVERLAP_MAX_RMS}); no {key}")
        return None
    return Characteristic(key, fit.exponent, "",
                          method=f"{method} (RMS residual {fit.rms_log_error:.3f}{bounds}); "
                                 f"{meaning}",
                          variants=variants)


#: the width whose exponent ``overlap_vector_exponent`` reports where it was fitted: the one
#: profiles measured before the other widths were swept (float and float4 alone)
VECTOR_EXPONENT_WIDTH = 4


def _overlap_exponents(overlaps: Mapping[str, tuple[Overlap, tuple[str, ...]]],
                       notes: list[str]) -> list[Characteristic]:
    """``overlap_scalar_exponent`` (float), ``overlap_vector_exponent`` (float4's; the widest
    floatW's where float4's curve found no balance) and ``overlap_exponent_by_vector_width``
    (every width's), each where the overlap form fits its curve: a float4 curve it does not fit
    gives no vector exponent, not a wider width's (the EPYC's: its model then takes the scalar
    exponent, as it did before the other widths were swept)."""
    vector = sorted((lb for lb in overlaps if lb != "float"), key=_width)
    four = [lb for lb in vector if _width(lb) == VECTOR_EXPONENT_WIDTH]
    wanted = {"overlap_scalar_exponent": [lb for lb in overlaps if lb == "float"],
              "overlap_vector_exponent": four or vector[-1:]}
    chars = []
    by_width: list[dict[str, float]] = []
    by_width_ids: tuple[str, ...] = ()
    for label in sorted(overlaps, key=_width):
        fit, ids = overlaps[label]
        key = next((k for k, labels in wanted.items() if label in labels), None)
        char = overlap_characteristic(
            key or "overlap_exponent_by_vector_width", fit, ids, notes, label=label,
            form="t = (T^p + (k·ρ)^p)^(1/p)",
            method=f"{label}: t = (T_mem^p + (k·ρ)^p)^(1/p) over the swept ALU:fetch "
                   "ratios, T_mem, k and p fitted together in log time",
            meaning="p → ∞: memory and arithmetic overlap fully (max), p = 1: not at all "
                    "(sum)")
        if char is None:
            continue
        if key:
            chars.append(char)
        by_width.append({"vector_width": _width(label), "exponent": fit.exponent})
        by_width_ids += ids
    if len(by_width) > 1:
        chars.append(Characteristic(
            "overlap_exponent_by_vector_width", by_width, "",
            method="each width's own t = (T_mem^p + (k·ρ)^p)^(1/p) over the swept ALU:fetch "
                   "ratios (the widths whose curve the form fits): a floatW chain is W "
                   "independent lanes an item, and the wider it is, the more of the loads' "
                   "time its arithmetic hides",
            variants=by_width_ids))
    return chars
