"""Barrier-separated load phase (spec ``barrier_phase``): what a tile in ``__local`` costs.

Each work-group size w is measured twice at the same total of work items: with the tile (every
group loads its tile into ``__local``, passes B barriers, computes from the tile) and without
(``local = "none"``, the same arithmetic straight from global). The difference is charged to the
group-barriers of the launch, on one compute unit:

    cost(w) = (t_tile − t_plain) × compute units / (groups × B)

the seconds one compute unit loses per group and barrier, the unit of the model's
``barrier_group_s``
(t_sync = barriers per group × groups × cost / compute units). On a GPU the cost is the
global-memory latency of the load phase, exposed because no warp of the group can run ahead of
the barrier, plus waiting for the slowest of the group's warps, which grows with w (H200 Jacobi:
the local-tile variants get slower as the group grows while the plain ones do not). So the
analysis fits

    cost(w) = a + b · w

in the form the model adds it: Δt_k = (G_k B_k / CU) · a + (G_k B_k w_k / CU) · b, linear least
squares weighted by 1 / t_tile,k (each point's residual is an error in its kernel time, relative).
``barrier_phase_s`` = a (seconds per group-barrier per compute unit, the part that does not grow
with the group), ``barrier_phase_s_per_item`` = b (seconds per work item of the group and
barrier); ``barrier_phase_cycles`` and ``barrier_phase_cycles_per_item`` are the same × clock.
Only the 1-tile static points enter the fit (the Jacobi form). a may come out negative when the
cost grows faster than linearly with w, or when the plain kernel's own per-group dispatch cost
already hides part of it at small w (see ``workgroup_dispatch``): the fit is then valid over the
measured sizes only and a user clamps max(0, a + b·w). With a single work-group size there is no
slope: a = that point's cost, b = 0, and the method says so.

Also reported: the cost at every size (``barrier_phase_s_by_workgroup``), the smallest
(``barrier_phase_min_s``), the dynamic-``__local`` costs, and ``barrier_phase_two_tile_ratio``:
Δt with two tiles per group (2 load phases, 4 barriers) over Δt with one (1 load phase, 1 barrier)
at equal size and total, median over sizes: ≈ 1 means the cost follows the load phases (the
exposed latency), ≈ 2 the barriers themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gencl.characterize._cycles import cycle_clock, ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

#: The tile allocation whose cost is the summary's (Jacobi's local variants are static or dynamic
#: and measure alike on the H200).
PRIMARY = "static"


@dataclass(frozen=True)
class Phase:
    """One tile variant beside its plain twin (same tiles, work-group size and total)."""

    local: str
    tiles: int
    workgroup: int
    groups: int
    barriers: float       # group-barriers of one launch (groups × barriers per group)
    t_tile: float
    t_plain: float
    variants: tuple[str, str]

    @property
    def delta(self) -> float:
        return self.t_tile - self.t_plain

    def cost(self, cus: int) -> float:
        """Seconds one compute unit loses per group-barrier."""
        return self.delta * cus / self.barriers


@dataclass(frozen=True)
class PhaseFit:
    """cost(w) = ``a`` + ``b``·w, in seconds per group-barrier per compute unit."""

    a: float
    b: float
    rms_rel_error: float   # of the predicted tile time, relative to the measured one
    sizes: tuple[int, ...]
    ci95_a: float | None = None   # from the residuals (needs more points than parameters)
    ci95_b: float | None = None

    def cost(self, workgroup: float) -> float:
        return self.a + self.b * workgroup


def pair_phases(records: Sequence[Mapping[str, Any]]) -> list[Phase]:
    """Every successful tile record whose plain twin also succeeded, by (tiles, size, local)."""
    plain: dict[tuple, Mapping[str, Any]] = {}
    tiled = []
    for r in records:
        p = r["point"]
        key = (int(p.get("tiles", 1)), int(p["workgroup"]), int(r["sizes"]["n"]))
        if p.get("local", "none") == "none":
            plain[key] = r
        elif (r.get("work") or {}).get("barriers"):
            tiled.append((key, r))
    out = []
    for key, r in tiled:
        if key not in plain:
            continue
        tiles, w, n = key
        out.append(Phase(str(r["point"]["local"]), tiles, w, -(-n // w),
                         float(r["work"]["barriers"]), float(r["median_s"]),
                         float(plain[key]["median_s"]),
                         (str(r["variant_id"]), str(plain[key]["variant_id"]))))
    return sorted(out, key=lambda ph: (ph.local, ph.tiles, ph.workgroup))


def fit_phase_cost(phases: Sequence[Phase], cus: int) -> PhaseFit:
    """Weighted least squares of Δt = (B/CU)·a + (B·w/CU)·b over *phases* (weights 1/t_tile).

    One work-group size cannot separate a from b: then a = the cost there, b = 0. The 95 %
    intervals come from the residuals (Student t, n − 2 degrees of freedom), so they say how
    well a straight line in w fits, not how noisy each timing was.
    """
    if not phases:
        raise ValueError("no tile variant with a plain twin to fit")
    sizes = tuple(sorted({ph.workgroup for ph in phases}))
    t = np.array([ph.t_tile for ph in phases])
    dt = np.array([ph.delta for ph in phases])
    ci: tuple[float | None, float | None] = (None, None)
    if len(sizes) == 1:
        a, b = float(np.mean([ph.cost(cus) for ph in phases])), 0.0
    else:
        x = np.array([[ph.barriers / cus, ph.barriers * ph.workgroup / cus] for ph in phases])
        xw, yw = x / t[:, None], dt / t
        (a, b), *_ = np.linalg.lstsq(xw, yw, rcond=None)
        dof = len(phases) - 2
        if dof > 0:
            from scipy.stats import t as student

            res = yw - xw @ np.array([a, b])
            cov = float(res @ res) / dof * np.linalg.inv(xw.T @ xw)
            half = float(student.ppf(0.975, dof)) * np.sqrt(np.diag(cov))
            ci = (float(half[0]), float(half[1]))
    pred = np.array([ph.barriers / cus * (a + b * ph.workgroup) for ph in phases])
    rms = float(np.sqrt(np.mean(((pred - dt) / t) ** 2)))
    return PhaseFit(float(a), float(b), rms, sizes, *ci)


def two_tile_ratio(phases: Sequence[Phase], local: str = PRIMARY) -> float | None:
    """Median over sizes of Δt(2 tiles) / Δt(1 tile), or None without such pairs."""
    one = {ph.workgroup: ph for ph in phases if ph.local == local and ph.tiles == 1}
    ratios = [ph.delta / one[ph.workgroup].delta for ph in phases
              if ph.local == local and ph.tiles == 2 and ph.workgroup in one
              and one[ph.workgroup].delta > 0]
    return float(np.median(ratios)) if ratios else None


def _times(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def _by_size(phases: Sequence[Phase], cus: int) -> dict[str, float]:
    return {str(ph.workgroup): ph.cost(cus) for ph in phases}


@analysis("barrier_phase")
def analyze_barrier_phase(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                          clock_hz: float | None) -> AnalysisResult:
    """barrier_phase_s (+ _per_item, cycles) from tile-minus-plain times per work-group size."""
    ok = ok_records(records)
    phases = pair_phases(ok)
    if not phases:
        return AnalysisResult((), notes=("no tile variant with a measured plain twin",))
    hz, clock_method = cycle_clock(ok, device, clock_hz)
    cus = int(device.get("compute_units") or 1)
    locals_seen = sorted({ph.local for ph in phases})
    primary = PRIMARY if PRIMARY in locals_seen else locals_seen[0]
    main = [ph for ph in phases if ph.local == primary and ph.tiles == 1] or \
        [ph for ph in phases if ph.local == primary]
    fit = fit_phase_cost(main, cus)
    n_items = {ph.groups * ph.workgroup for ph in main}
    variants = tuple(v for ph in main for v in ph.variants)
    where = (f"'{primary}' tile, {main[0].tiles} tile(s) per group, "
             f"{'/'.join(str(n) for n in sorted(n_items))} work items")
    if len(fit.sizes) > 1:
        how = (f"weighted least squares of t_tile − t_plain = groups·B/CU·(a + b·w) over "
               f"work-group sizes {', '.join(map(str, fit.sizes))} ({where}); rms error of the "
               f"predicted tile time {fit.rms_rel_error:.2g} (relative)")
    else:
        how = (f"one work-group size ({fit.sizes[0]}; {where}): (t_tile − t_plain)·CU / "
               "(groups·B), no slope")
    notes: list[str] = []
    if fit.a < 0:
        zero = fit.ci95_a is not None and -fit.a <= fit.ci95_a
        notes.append(f"intercept a = {fit.a:.3g} s < 0" + (
            f" (0 lies inside its 95 % interval ±{fit.ci95_a:.2g})" if zero else
            ": the cost grows faster than linearly with the work-group size, or the plain "
            "kernel's group dispatch hides part of it at small sizes") +
            "; valid over the measured sizes, use max(0, a + b·w)")
    losses = [ph for ph in phases if ph.delta <= 0]
    if losses:
        notes.append("tile no slower than plain at " + ", ".join(
            f"{ph.local}/{ph.tiles} tile(s)/{ph.workgroup}" for ph in losses))
    chars = [
        Characteristic("barrier_phase_s", fit.a, "s", fit.ci95_a, f"intercept a: {how}",
                       variants),
        Characteristic("barrier_phase_s_per_item", fit.b, "s/item", fit.ci95_b,
                       f"slope b per work item of the group: {how}", variants),
        Characteristic("barrier_phase_cycles", fit.a * hz, "cycles", _times(fit.ci95_a, hz),
                       f"barrier_phase_s × clock; {clock_method}", variants),
        Characteristic("barrier_phase_cycles_per_item", fit.b * hz, "cycles/item",
                       _times(fit.ci95_b, hz),
                       f"barrier_phase_s_per_item × clock; {clock_method}", variants),
        Characteristic("barrier_phase_s_by_workgroup", _by_size(main, cus), "s",
                       method="(t_tile − t_plain) × compute units / (groups × barriers per "
                              f"group), by work-group size ({where})", variants=variants),
        Characteristic("barrier_phase_min_s", min(ph.cost(cus) for ph in main), "s",
                       method="smallest of barrier_phase_s_by_workgroup", variants=variants),
    ]
    for local in locals_seen:
        if local == primary:
            continue
        other = [ph for ph in phases if ph.local == local and ph.tiles == 1]
        if other:
            chars.append(Characteristic(
                f"barrier_phase_{local}_s_by_workgroup", _by_size(other, cus), "s",
                method=f"as barrier_phase_s_by_workgroup, '{local}' tile",
                variants=tuple(v for ph in other for v in ph.variants)))
    ratio = two_tile_ratio(phases, primary)
    if ratio is not None:
        two = [ph for ph in phases if ph.local == primary and ph.tiles == 2]
        chars.append(Characteristic(
            "barrier_phase_two_tile_ratio", ratio, "ratio",
            method="median over work-group sizes of Δt(2 tiles per group: 2 load phases, "
                   "4 barriers) / Δt(1 tile: 1 load phase, 1 barrier), same total; ≈1: the cost "
                   "follows load phases, ≈2: it follows barriers",
            variants=tuple(v for ph in two for v in ph.variants)))
    return AnalysisResult(tuple(chars), _series(phases, fit, primary, cus, hz), tuple(notes))


def _series(phases: Sequence[Phase], fit: PhaseFit, primary: str, cus: int,
            hz: float) -> dict[str, Any]:
    sizes = sorted({ph.workgroup for ph in phases})
    times: dict[str, list[float | None]] = {}
    costs: dict[str, list[float | None]] = {}
    for tiles in sorted({ph.tiles for ph in phases}):
        suffix = "" if tiles == 1 else f", {tiles} tiles"
        plain = {ph.workgroup: ph.t_plain for ph in phases if ph.tiles == tiles}
        times[f"plain{suffix}"] = [plain.get(w) for w in sizes]
        for local in sorted({ph.local for ph in phases}):
            got = {ph.workgroup: ph for ph in phases if ph.local == local and ph.tiles == tiles}
            if not got:
                continue
            times[f"{local} tile{suffix}"] = [got[w].t_tile if w in got else None for w in sizes]
            costs[f"{local}{suffix}"] = [got[w].cost(cus) * hz if w in got else None
                                         for w in sizes]
            if local == primary and tiles == 1:
                times[f"{local} fit: plain + groups·(a + b·w)/CU"] = [
                    got[w].t_plain + got[w].barriers / cus * fit.cost(w) if w in got else None
                    for w in sizes]
    costs["fit a + b·w"] = [fit.cost(w) * hz for w in sizes]
    return {
        "barrier_phase_time_vs_workgroup": {
            "title": "Tile in __local + barrier vs plain, fixed total: time vs work-group size",
            "x": sizes, "y": times, "xlabel": "work-group size (work items)",
            "ylabel": "kernel time (s)", "xscale": "log", "yscale": "log"},
        "barrier_phase_cost_vs_workgroup": {
            "title": "Cost of one group-barrier on one compute unit vs work-group size",
            "x": sizes, "y": costs, "xlabel": "work-group size (work items)",
            "ylabel": "cycles per group-barrier per compute unit", "xscale": "log"},
    }
