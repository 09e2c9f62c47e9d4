"""Latency family: random walks → completion latency Λ per memory type, cache levels, line size.

Seed 000 §VI-B/C. A walk's cycles per memory request (CPMR) at one walker is the completion latency
of the level that serves it. Over footprints the CPMR is a rounded staircase; eq. 6 describes one
step (hit ratio = cache size / array size past the cache), and a sum of such steps describes a
hierarchy:

    CPMR(s) = Λ_1 + Σ_j (Λ_{j+1} − Λ_j) · max(0, 1 − C_j / s)

with C_j the size of level j, Λ_j its hit latency and Λ_{L+1} the memory behind the last level.
``fit_staircase`` fits it with scipy for 0…4 levels and keeps the count the Bayesian information
criterion prefers, so cache sizes and latencies come from the measurements, not the device query.
``fit_line_size`` finds the knee of a fixed-stride chase: below the line size a fraction s/line
of the steps miss, at and above it every step does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gencl.characterize._cycles import cycle_clock, ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

# {{{ eq. 6 staircase


@dataclass(frozen=True)
class Staircase:
    """A fitted hierarchy: level sizes (bytes, ascending), hit latencies, memory latency."""

    sizes: tuple[float, ...]
    latencies: tuple[float, ...]
    memory_latency: float
    rms_rel_error: float

    def levels(self) -> list[dict[str, float]]:
        return [{"size_bytes": float(c), "latency_cycles": float(lat)}
                for c, lat in zip(self.sizes, self.latencies)]

    def predict(self, footprints: Sequence[float]) -> np.ndarray:
        return staircase(np.asarray(footprints, float), self.sizes,
                         (*self.latencies, self.memory_latency))


def staircase(footprints: np.ndarray, sizes: Sequence[float],
              latencies: Sequence[float]) -> np.ndarray:
    """Eq. 6 summed over levels: ``latencies`` has one entry more than ``sizes`` (memory)."""
    s = np.asarray(footprints, float)
    out = np.full(s.shape, float(latencies[0]))
    for j, c in enumerate(sizes):
        out += (latencies[j + 1] - latencies[j]) * np.maximum(0.0, 1.0 - c / s)
    return out


def _initial_steps(x: np.ndarray, y: np.ndarray, levels: int) -> list[int] | None:
    """Indices after which the L largest rises of log CPMR start (at least two points apart)."""
    jumps = np.diff(np.log(y))
    # a rounded step spreads over a few points: sum rises over a window of two
    score = jumps + np.concatenate([jumps[1:], [0.0]])
    chosen: list[int] = []
    for i in np.argsort(score)[::-1]:
        if score[i] <= 0:
            break
        if all(abs(int(i) - c) >= 2 for c in chosen):
            chosen.append(int(i))
        if len(chosen) == levels:
            return sorted(chosen)
    return None


def _fit_levels(x: np.ndarray, y: np.ndarray, levels: int) -> tuple[Staircase, float] | None:
    from scipy.optimize import least_squares

    if levels == 0:
        lat = float(np.exp(np.mean(np.log(y))))
        res = np.log(lat) - np.log(y)
        return Staircase((), (), lat, float(np.sqrt(np.mean(res ** 2)))), float(res @ res)
    steps = _initial_steps(x, y, levels)
    if steps is None:
        return None
    bounds_idx = [0, *[i + 1 for i in steps], len(x)]
    lat0 = [float(np.median(y[a:b])) for a, b in zip(bounds_idx, bounds_idx[1:])]
    c0 = [float(x[i]) for i in steps]
    p0 = np.log(np.array([*lat0, *c0]))
    lo = np.log(np.array([y.min() / 4] * (levels + 1) + [x.min() / 4] * levels))
    hi = np.log(np.array([y.max() * 4] * (levels + 1) + [x.max() * 4] * levels))
    p0 = np.clip(p0, lo + 1e-9, hi - 1e-9)

    def residual(p: np.ndarray) -> np.ndarray:
        lat, c = np.exp(p[:levels + 1]), np.exp(p[levels + 1:])
        order = np.argsort(c)
        return np.log(np.maximum(staircase(x, c[order], lat[np.r_[0, order + 1]]), 1e-30)) \
            - np.log(y)

    fit = least_squares(residual, p0, bounds=(lo, hi), x_scale="jac")
    lat, c = np.exp(fit.x[:levels + 1]), np.exp(fit.x[levels + 1:])
    order = np.argsort(c)
    c, lat = c[order], lat[np.r_[0, order + 1]]
    rss = float(fit.fun @ fit.fun)
    stair = Staircase(tuple(float(v) for v in c), tuple(float(v) for v in lat[:-1]),
                      float(lat[-1]), float(np.sqrt(rss / len(x))))
    return stair, rss


def fit_staircase(footprints: Sequence[float], cpmr: Sequence[float], *, max_levels: int = 4,
                  min_step: float = 1.25, min_ratio: float = 2.0) -> Staircase:
    """Cache levels of a varying-size random walk (seed 000 eq. 6), chosen by BIC.

    A candidate hierarchy is rejected when a level raises the latency by less than *min_step*
    times or two levels are closer in size than *min_ratio*; a level's size must lie inside the
    measured footprints (a step the walk never crossed is not a finding).
    """
    x, y = np.asarray(footprints, float), np.asarray(cpmr, float)
    keep = np.isfinite(y) & (y > 0)
    x, y = x[keep], y[keep]
    order = np.argsort(x)
    x, y = x[order], y[order]
    n = len(x)
    best: tuple[float, Staircase] | None = None
    for levels in range(0, max_levels + 1):
        if 2 * levels + 1 >= n:
            break
        got = _fit_levels(x, y, levels)
        if got is None:
            continue
        stair, rss = got
        lats = (*stair.latencies, stair.memory_latency)
        if levels and (any(b < min_step * a for a, b in zip(lats, lats[1:]))
                       or any(b < min_ratio * a for a, b in zip(stair.sizes, stair.sizes[1:]))
                       or stair.sizes[0] < x[0] or stair.sizes[-1] > x[-1]):
            continue
        bic = n * np.log(max(rss, 1e-12) / n) + (2 * levels + 1) * np.log(n)
        if best is None or bic < best[0]:
            best = (float(bic), stair)
    assert best is not None
    return best[1]

# }}}

# {{{ line size


def fit_line_size(spacings: Sequence[float], cpmr: Sequence[float], *,
                  min_rise: float = 0.15) -> tuple[float | None, np.ndarray | None]:
    """Knee of a fixed-stride chase: ``cpmr = a + b·min(1, s/line)``; (line, fitted curve).

    Candidates are the measured spacings but the largest (a knee at the last point is not seen);
    None when the curve rises by less than *min_rise* (a prefetcher hides the misses, or the
    footprint fits the first level).
    """
    s, y = np.asarray(spacings, float), np.asarray(cpmr, float)
    order = np.argsort(s)
    s, y = s[order], y[order]
    if len(s) < 3 or y.max() < (1 + min_rise) * y.min():
        return None, None
    best = None
    for line in s[:-1]:
        a = np.column_stack([np.ones_like(s), np.minimum(1.0, s / line)])
        coef, *_ = np.linalg.lstsq(a, y, rcond=None)
        rss = float(np.sum((a @ coef - y) ** 2))
        if coef[1] > 0 and (best is None or rss < best[0]):
            best = (rss, float(line), a @ coef)
    if best is None:
        return None, None
    return best[1], best[2]

# }}}


def walk_cpmr(record: Mapping[str, Any], clock_hz: float) -> tuple[float, float]:
    """(cycles per step, 95 % half-width) of one walk: runtime × clock / steps (eq. 7, one
    walker, so CPMR is the completion latency Λ)."""
    steps = float(record["sizes"]["K"])
    return (float(record["median_s"]) * clock_hz / steps,
            float(record.get("ci95_s") or 0.0) * clock_hz / steps)


def _human(nbytes: float) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{nbytes:.0f} B"


def staircase_result(walk: Sequence[Mapping[str, Any]], hz: float, clock_method: str,
                     memory: str) -> tuple[list[Characteristic], dict[str, Any], Staircase | None]:
    """Characteristics and the staircase series of a varying-size walk in *memory*."""
    walk = sorted(walk, key=lambda r: r["point"]["footprint"])
    if len(walk) < 3:
        return [], {}, None
    x = [float(r["point"]["footprint"]) for r in walk]
    y = [walk_cpmr(r, hz)[0] for r in walk]
    stair = fit_staircase(x, y)
    ids = tuple(r["variant_id"] for r in walk)
    method = (f"eq. 6 summed over levels, fitted with scipy least_squares on log CPMR over "
              f"{len(x)} footprints {_human(x[0])}…{_human(x[-1])}, level count by BIC "
              f"(rms error {stair.rms_rel_error:.1%}); {clock_method}")
    chars = [Characteristic(f"{memory}_cache_levels" if memory != "global" else "cache_levels",
                            stair.levels(), "B, cycles", method=method, variants=ids)]
    series = {f"{memory}_latency_staircase": {
        "title": f"Varying-size random walk ({memory} memory)", "x": x,
        "y": {"measured CPMR": y, "eq. 6 fit": [float(v) for v in stair.predict(x)]},
        "hlines": {f"L{j + 1} {_human(c)}": lat
                   for j, (c, lat) in enumerate(zip(stair.sizes, stair.latencies))},
        "levels": stair.levels(), "memory_latency_cycles": stair.memory_latency,
        "xlabel": "footprint (B)", "ylabel": "cycles per memory request", "xscale": "log",
        "yscale": "log"}}
    return chars, series, stair


@analysis("random_walk")
def analyze_random_walk(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                        clock_hz: float | None) -> AnalysisResult:
    """Λ of global/local/constant/private memory, cache levels (eq. 6), cache line size."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful random walk",))
    hz, clock_method = cycle_clock(ok, device, clock_hz)
    chars: list[Characteristic] = []
    series: dict[str, Any] = {}
    notes: list[str] = []

    walk = [r for r in ok if r["point"]["memory"] == "global"
            and r["point"]["pattern"] == "random" and r["point"]["spacing"] >= 64]
    stair_chars, stair_series, stair = staircase_result(walk, hz, clock_method, "global")
    chars += stair_chars
    series.update(stair_series)
    if walk:
        largest = max(walk, key=lambda r: r["point"]["footprint"])
        lat, ci = walk_cpmr(largest, hz)
        if stair is not None and stair.sizes:
            lat, how = stair.memory_latency, "memory level of the eq. 6 fit"
            ci = None  # type: ignore[assignment]
        else:
            how = f"CPMR of the largest footprint, {_human(largest['point']['footprint'])}"
        chars.append(Characteristic(
            "global_latency_cycles", lat, "cycles", ci,
            f"random walk, one work item: {how}; {clock_method}", (largest["variant_id"],)))

    fixed: dict[str, tuple[float, float]] = {}
    for memory in ("local", "constant", "private"):
        runs = [r for r in ok if r["point"]["memory"] == memory]
        if not runs:
            continue
        r = min(runs, key=lambda r: r["point"]["footprint"])
        lat, ci = walk_cpmr(r, hz)
        fixed[memory] = (lat, ci)
        chars.append(Characteristic(
            f"{memory}_latency_cycles", lat, "cycles", ci,
            f"random walk, one work item, {_human(r['point']['footprint'])} ring in {memory} "
            f"memory (copied there first for local/private); {clock_method}", (r["variant_id"],)))
    if stair is not None:
        l1 = stair.latencies[0] if stair.sizes else stair.memory_latency
        fixed = {"global (smallest level)": (l1, 0.0), **fixed,
                 "global (memory)": (stair.memory_latency, 0.0)}
    if fixed:
        series["latency_by_memory"] = {
            "title": "Completion latency Λ by memory type", "kind": "bar",
            "labels": list(fixed), "values": [v[0] for v in fixed.values()],
            "ylabel": "cycles"}

    stride = sorted((r for r in ok if r["point"]["pattern"] == "stride"),
                    key=lambda r: r["point"]["spacing"])
    if len(stride) >= 3:
        s = [float(r["point"]["spacing"]) for r in stride]
        y = [walk_cpmr(r, hz)[0] for r in stride]
        line, curve = fit_line_size(s, y)
        series["cache_line_stride"] = {
            "title": f"Fixed-stride chase over {_human(stride[0]['point']['footprint'])}",
            "x": s, "y": {"measured CPMR": y,
                          **({"fit a + b·min(1, s/line)": [float(v) for v in curve]}
                             if curve is not None else {})},
            "xlabel": "stride (B)", "ylabel": "cycles per memory request", "xscale": "log"}
        if line is not None:
            chars.append(Characteristic(
                "cache_line_bytes", line, "B",
                method="knee of a fixed-stride chase (whole-kernel timing, Saavedra-Barrera / "
                       "Mei & Chu): CPMR = a + b·min(1, stride/line); on NVIDIA this is the "
                       "fetch granularity of the first cache level that misses (sector)",
                variants=tuple(r["variant_id"] for r in stride)))
        else:
            notes.append("stride chase: no knee (CPMR flat — a prefetcher or the footprint fits "
                         "the first level); cache_line_bytes not reported")
    notes.append("L1 sets/ways need per-access timing (%clock via inline PTX), which loopy "
                 "cannot emit; not measured")
    return AnalysisResult(tuple(chars), series, tuple(notes))
