"""Latency family: random walks → completion latency Λ per memory type, cache levels, line size.

Seed 000 §VI-B/C. A walk's cycles per memory request (CPMR) at one walker is the completion latency
of the level that serves it. Over footprints the CPMR is a rounded staircase; eq. 6 describes one
step (hit ratio = cache size / array size past the cache), and a sum of such steps describes a
hierarchy:

    CPMR(s) = Λ_1 + Σ_j (Λ_{j+1} − Λ_j) · max(0, 1 − C_j / s)

with C_j the size of level j, Λ_j its hit latency and Λ_{L+1} the memory behind the last level.
``fit_staircase`` fits it with scipy for 0…4 levels and keeps the count the Bayesian information
criterion prefers, so cache sizes and latencies come from the measurements, not the device query.
Each level's miss ratio is eq. 6's sharpened: ``1 − (1 − g)(C/s)^k`` past its size (k = 1 is
eq. 6; a cyclic walk over an LRU cache is a cliff, large k) and ``g·s/C`` below it (conflict
misses of a hashed or low-associativity level before it is full; g = 0 is eq. 6). The DRAM
latency is the measured plateau past the last level, from walks that do not miss the TLB
(page-local rings) where they ran.
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
    """A fitted hierarchy: level sizes (bytes, ascending), hit latencies, memory latency.

    ``sharpness`` is the exponent k of each level's miss ratio past its size (1 = eq. 6);
    ``early`` the miss ratio each level already has when the footprint reaches its size
    (conflict misses that grow with the footprint below it; 0 = eq. 6).
    """

    sizes: tuple[float, ...]
    latencies: tuple[float, ...]
    memory_latency: float
    rms_rel_error: float
    sharpness: tuple[float, ...] = ()
    early: tuple[float, ...] = ()

    def levels(self) -> list[dict[str, float]]:
        return [{"size_bytes": float(c), "latency_cycles": float(lat)}
                for c, lat in zip(self.sizes, self.latencies)]

    def predict(self, footprints: Sequence[float]) -> np.ndarray:
        return staircase(np.asarray(footprints, float), self.sizes,
                         (*self.latencies, self.memory_latency), self.sharpness or None,
                         self.early or None)


def miss_ratio(footprints: np.ndarray, size: float, sharpness: float = 1.0,
               early: float = 0.0) -> np.ndarray:
    """Misses of one level against footprint s: ``g·s/C`` below its size C, then
    ``1 − (1 − g)·(C/s)^k`` (g = *early*, k = *sharpness*; g = 0, k = 1 is eq. 6)."""
    s = np.asarray(footprints, float)
    below = early * s / size
    above = 1.0 - (1.0 - early) * (size / s) ** sharpness
    return np.where(s <= size, below, above)


def staircase(footprints: np.ndarray, sizes: Sequence[float] | np.ndarray,
              latencies: Sequence[float] | np.ndarray,
              sharpness: Sequence[float] | np.ndarray | None = None,
              early: Sequence[float] | np.ndarray | None = None) -> np.ndarray:
    """Eq. 6 summed over levels: ``latencies`` has one entry more than ``sizes`` (memory).

    Each level adds ``(Λ_{j+1} − Λ_j) · miss_ratio(s)``. With *sharpness* k_j the miss ratio
    past level j is ``1 − (C_j/s)^k_j``: k = 1 is eq. 6 (random replacement, or a random walk
    over an LRU cache); a large k is the cliff a cyclic walk meets in an LRU cache, where every
    access misses as soon as the ring is one line too long. *early* g_j adds the conflict misses
    a hashed or low-associativity level has before it is full (``g·s/C`` below its size).
    """
    s = np.asarray(footprints, float)
    ks = [1.0] * len(sizes) if sharpness is None else list(sharpness)
    gs = [0.0] * len(sizes) if early is None else list(early)
    out = np.full(s.shape, float(latencies[0]))
    for j, (c, k, g) in enumerate(zip(sizes, ks, gs)):
        out += (latencies[j + 1] - latencies[j]) * miss_ratio(s, c, k, g)
    return out


def _step_candidates(x: np.ndarray, y: np.ndarray, *, min_rise: float = 1.1,
                     min_smooth_rise: float = 1.15, most: int = 5) -> list[int]:
    """Indices where a level may start: steep steps first, then smooth ones.

    A steep step rises ≥ *min_rise* times to the next footprint walked (a cliff); a smooth one
    ≥ *min_smooth_rise* times within a doubling of the footprint (eq. 6's gradual miss ratio).
    Candidates are ≥ 1.3× apart in footprint, at most *most*; which of them become levels is
    the fit's and the BIC's choice.
    """
    ly = np.log(y)
    n = len(ly)
    steep = np.diff(ly)
    smooth = np.array([max(ly[j] - ly[i] for j in range(i + 1, n) if j == i + 1
                           or x[j] <= 2.0 * x[i]) for i in range(n - 1)])
    picked: list[int] = []
    for score, threshold in ((steep, np.log(min_rise)), (smooth, np.log(min_smooth_rise))):
        for i in np.argsort(score)[::-1]:
            if score[i] < threshold or len(picked) == most:
                break
            if all(max(x[i], x[c]) / min(x[i], x[c]) >= 1.3 for c in picked):
                picked.append(int(i))
    return sorted(picked)


def _fit_levels(x: np.ndarray, y: np.ndarray, levels: int, *, sharp: bool = True,
                keep: Sequence[int] = ()) -> tuple[Staircase, float, tuple[int, ...]] | None:
    """Least-squares fit of *levels* levels; the best over the choices of initial steps.

    The initial steps are the candidates *keep* (the best steps of the fit with one level
    fewer) plus one more candidate, each choice tried: a greedy search, not every combination.
    Parameters: log Λ (levels + 1), log C (levels) and, when *sharp*, log k and g per level.
    Returns (staircase, residual sum of squares, initial steps used).
    """
    from scipy.optimize import least_squares

    if levels == 0:
        lat = float(np.exp(np.mean(np.log(y))))
        res = np.log(lat) - np.log(y)
        return Staircase((), (), lat, float(np.sqrt(np.mean(res ** 2)))), float(res @ res), ()
    cands = _step_candidates(x, y)
    if len(cands) < levels:
        return None
    base = [c for c in keep if c in cands][:levels - 1]
    base += [c for c in cands if c not in base][:levels - 1 - len(base)]
    choices = [tuple(sorted((*base, c))) for c in cands if c not in base]
    L, extra = levels, (2 * levels if sharp else 0)
    lo = np.r_[np.log([y.min() / 4] * (L + 1) + [x.min() / 4] * L),
               [0.0] * L if sharp else [], [0.0] * L if sharp else []]
    hi = np.r_[np.log([y.max() * 4] * (L + 1) + [x.max() * 4] * L),
               [np.log(32.0)] * L if sharp else [], [0.5] * L if sharp else []]

    def unpack(p: np.ndarray) -> tuple[np.ndarray, ...]:
        lat, c = np.exp(p[:L + 1]), np.exp(p[L + 1:2 * L + 1])
        k = np.exp(p[2 * L + 1:3 * L + 1]) if sharp else np.ones(L)
        g = p[3 * L + 1:] if sharp else np.zeros(L)
        order = np.argsort(c)
        return lat[np.r_[0, order + 1]], c[order], k[order], g[order]

    def residual(p: np.ndarray) -> np.ndarray:
        lat, c, k, g = unpack(p)
        return np.log(np.maximum(staircase(x, c, lat, k, g), 1e-30)) - np.log(y)

    def jacobian(p: np.ndarray) -> np.ndarray:
        """d residual / d p, analytic (the fit runs per stride and per level count)."""
        lat, c, k, g = unpack(p)
        order = np.argsort(p[L + 1:2 * L + 1])
        m = np.array([miss_ratio(x, c[t], k[t], g[t]) for t in range(L)])
        w = np.vstack([1.0 - m[0], m[:-1] - m[1:], m[-1]])
        jac = np.zeros((len(x), len(p)))
        jac[:, 0] = lat[0] * w[0]
        drop = lat[1:] - lat[:-1]
        for t in range(L):
            j = order[t]
            jac[:, j + 1] = lat[t + 1] * w[t + 1]
            above = x > c[t]
            ratio = c[t] / x
            rk = ratio ** k[t]
            jac[:, L + 1 + j] = drop[t] * np.where(above, -(1 - g[t]) * k[t] * rk,
                                                   -g[t] * x / c[t])
            if sharp:
                jac[:, 2 * L + 1 + j] = drop[t] * np.where(
                    above, -(1 - g[t]) * rk * np.log(ratio) * k[t], 0.0)
                jac[:, 3 * L + 1 + j] = drop[t] * np.where(above, rk, x / c[t])
        f = np.maximum(staircase(x, c, lat, k, g), 1e-30)
        return jac / f[:, None]

    best: tuple[float, np.ndarray, tuple[int, ...]] | None = None
    for steps in choices:
        bounds_idx = [0, *[i + 1 for i in steps], len(x)]
        lat0 = [float(np.median(y[a:b])) for a, b in zip(bounds_idx, bounds_idx[1:])]
        c0 = [float(x[i]) for i in steps]
        for k0 in ((2.0, 16.0) if sharp else (1.0,)):  # a soft and a sharp start
            p0 = np.r_[np.log([*lat0, *c0]), [np.log(k0)] * L if sharp else [],
                       [0.02] * L if sharp else []]
            p0 = np.clip(p0, lo + 1e-9, hi - 1e-9)
            fit = least_squares(residual, p0, jac=jacobian, bounds=(lo, hi), x_scale="jac",
                                max_nfev=300)  # a start that wanders that long is a bad one
            rss = float(fit.fun @ fit.fun)
            if best is None or rss < best[0]:
                best = (rss, fit.x, steps)
    assert best is not None and extra >= 0
    rss, p, used = best
    lats, caps, ks, gs = unpack(p)
    stair = Staircase(tuple(float(v) for v in caps), tuple(float(v) for v in lats[:-1]),
                      float(lats[-1]), float(np.sqrt(rss / len(x))),
                      tuple(float(v) for v in ks) if sharp else (),
                      tuple(float(v) for v in gs) if sharp else ())
    return stair, rss, used


def fit_staircase(footprints: Sequence[float] | np.ndarray, cpmr: Sequence[float] | np.ndarray,
                  *, max_levels: int = 4,
                  min_step: float = 1.25, min_ratio: float = 1.5,
                  sharp: bool = True) -> Staircase:
    """Cache levels of a varying-size walk (seed 000 eq. 6, sharpened), chosen by BIC.

    Each level has a size, a hit latency and (with *sharp*) the exponent of its miss ratio; a
    candidate hierarchy is rejected when a level raises the latency by less than *min_step*
    times (measured plateaus near the fitted latencies, ``_snap``) or two levels are closer
    in size than *min_ratio* (the two halves of a partitioned
    L2 are 2× apart); a level's size must lie inside the measured footprints with two of them
    past it (a step the walk never crossed, or crossed at its last point, is not a finding).
    """
    x, y = np.asarray(footprints, float), np.asarray(cpmr, float)
    keep = np.isfinite(y) & (y > 0)
    x, y = x[keep], y[keep]
    order = np.argsort(x)
    x, y = x[order], y[order]
    n = len(x)
    per_level = 4 if sharp else 2
    best: tuple[float, Staircase] | None = None
    steps: tuple[int, ...] = ()
    for levels in range(0, max_levels + 1):
        if per_level * levels + 1 >= n:
            break
        got = _fit_levels(x, y, levels, sharp=sharp, keep=steps)
        if got is None:
            break
        stair, rss, steps = got
        # the rise between levels is judged on the measured plateaus near the fitted latencies:
        # a level whose step trails past its size (the H200's near L2 partition) pulls the fit's
        # next latency above the plateau the walks show (554 for 532 cycles), which can make a
        # real step look smaller than it is on one side and larger on the other
        lats = tuple(_snap(y, v) for v in (*stair.latencies, stair.memory_latency))
        if levels and (any(b < min_step * a for a, b in zip(lats, lats[1:]))
                       or any(b < min_ratio * a for a, b in zip(stair.sizes, stair.sizes[1:]))
                       or stair.sizes[0] < x[0]
                       or np.count_nonzero(x > stair.sizes[-1]) < 2):
            continue
        bic = n * np.log(max(rss, 1e-12) / n) + (per_level * levels + 1) * np.log(n)
        if best is not None and bic >= best[0]:
            break  # one more level did not pay for itself: more will not either
        best = (float(bic), stair)
    assert best is not None
    return best[1]

# }}}

# {{{ the size of a level from its transition


@dataclass(frozen=True)
class Transition:
    """Where one level's step lies, four ways (bytes), from the walks around it.

    ``served(s)`` is the fraction of steps the level still serves at footprint s: the latency
    normalised between its hit plateau and the next level's, less the misses that already grew
    in proportion to the footprint before the step (conflict misses of a level that is not
    full: a straight line through the origin fitted on the walks below the step).

    - ``held``: the most bytes the level was seen to hold, max over walks of s · served(s). A
      cyclic walk can hit only on lines the level holds, so this is a lower bound on the
      capacity under any replacement policy, and equal to it when a walk just fits;
    - ``onset``: the last walk before the step (served ≥ 95 %);
    - ``halfway``: where the latency has risen half way to the next level (log-interpolated);
      the capacity of an LRU cache whose sets overflow at different footprints (a hashed or
      partitioned index) lies near it;
    - ``complete``: the first walk past the step (served ≤ 5 %).
    ``inside`` counts the walks strictly between onset and complete (how well the step is
    resolved); ``plateau`` and ``next_plateau`` are the measured latencies it lies between.
    """

    held: float
    onset: float
    halfway: float
    complete: float
    inside: int
    plateau: float
    next_plateau: float

    def estimates(self) -> dict[str, float]:
        return {"held_bytes": self.held, "onset_bytes": self.onset,
                "half_rise_bytes": self.halfway, "complete_bytes": self.complete}


def _snap(y: np.ndarray, fitted: float, within: float = 0.05) -> float:
    """The measured plateau near a fitted latency: median of the walks within ±*within*."""
    near = y[np.abs(y / fitted - 1.0) <= within]
    return float(np.median(near)) if len(near) else float(fitted)


def served_fraction(x: np.ndarray, y: np.ndarray, lo: float, hi: float,
                    below: float) -> np.ndarray:
    """Fraction of steps a level serves at each footprint (see ``Transition``); *below*: the
    footprint under which the walks show only the early (proportional) misses."""
    m = np.clip((y - lo) / (hi - lo), 0.0, 1.0)
    early = x < below
    slope = float(x[early] @ m[early] / (x[early] @ x[early])) if early.any() else 0.0
    return 1.0 - np.clip(m - slope * x, 0.0, 1.0)


def transition(x: np.ndarray, y: np.ndarray, lo: float, hi: float) -> Transition | None:
    """The step from latency *lo* to *hi* in walks (*x* footprints ascending, *y* CPMR) that
    hold one step only; None when the walks do not rise all the way (within 5 %)."""
    m = np.clip((y - lo) / (hi - lo), 0.0, 1.0)
    up = np.nonzero(m >= 0.5)[0]
    if not len(up) or up[0] == 0:
        return None
    i = int(up[0])
    t = (0.5 - m[i - 1]) / (m[i] - m[i - 1])
    halfway = float(np.exp(np.log(x[i - 1]) + t * (np.log(x[i]) - np.log(x[i - 1]))))
    # the early misses' line is not extrapolated past the half rise
    served = np.where(x < halfway, served_fraction(x, y, lo, hi, halfway / 1.25), 1.0 - m)
    before = np.nonzero((served >= 0.95) & (x < halfway))[0]
    after = np.nonzero((served <= 0.05) & (x > halfway))[0]
    if not len(after):
        return None  # the walks never reach the next plateau: the step is not seen whole
    onset = float(x[before[-1]]) if len(before) else float(x[0])
    complete = float(x[after[0]])
    return Transition(held=float(np.max(x * served)), onset=onset, halfway=halfway,
                      complete=complete, inside=int(np.count_nonzero((x > onset)
                                                                     & (x < complete))),
                      plateau=lo, next_plateau=hi)


def level_transitions(footprints: Sequence[float] | np.ndarray,
                      cpmr: Sequence[float] | np.ndarray,
                      stair: Staircase) -> list[Transition | None]:
    """One ``Transition`` per level of a fitted staircase, from the measured walks.

    Level j's walks lie between the geometric means of its fitted size and its neighbours';
    its plateaus are the measured latencies near the fit's (``_snap``), so a fit's smoothing
    does not move them.
    """
    x, y = np.asarray(footprints, float), np.asarray(cpmr, float)
    order = np.argsort(x)
    x, y = x[order], y[order]
    sizes = list(stair.sizes)
    lats = [*stair.latencies, stair.memory_latency]
    edges = [0.0, *[float(np.sqrt(a * b)) for a, b in zip(sizes, sizes[1:])], np.inf]
    out: list[Transition | None] = []
    for j in range(len(sizes)):
        inside = (x > edges[j]) & (x <= edges[j + 1])
        xs, ys = x[inside], y[inside]
        if len(xs) < 3:
            out.append(None)
            continue
        out.append(transition(xs, ys, _snap(ys, lats[j]), _snap(ys, lats[j + 1])))
    return out


def partitioned_last_level(levels: Sequence[Mapping[str, float]], *,
                           ratio: tuple[float, float] = (1.6, 2.5)
                           ) -> dict[str, float] | None:
    """The last two levels read as one cache in two partitions, when their sizes are about
    2× apart (*ratio*): a near partition that serves a walk until it is full, then a far one
    that holds what the near one cannot, so the last level's size is the total. None when the
    sizes do not fit that reading."""
    if len(levels) < 2:
        return None
    near, last = levels[-2], levels[-1]
    if not ratio[0] <= last["size_bytes"] / near["size_bytes"] <= ratio[1]:
        return None
    return {"near_bytes": near["size_bytes"], "far_bytes": last["size_bytes"]
            - near["size_bytes"], "total_bytes": last["size_bytes"],
            "near_latency_cycles": near["latency_cycles"],
            "far_latency_cycles": last["latency_cycles"]}

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


def measured_levels(x: Sequence[float], y: Sequence[float], stair: Staircase
                    ) -> list[dict[str, float]]:
    """The staircase's levels with their sizes and latencies read from the walks around each
    step (``level_transitions``); a level whose step the walks do not show keeps the fit's."""
    out = []
    for (c, lat), tr in zip(zip(stair.sizes, stair.latencies),
                            level_transitions(x, y, stair)):
        if tr is None:
            out.append({"size_bytes": float(c), "latency_cycles": float(lat),
                        "fit_size_bytes": float(c)})
        else:
            out.append({"size_bytes": tr.held, "latency_cycles": tr.plateau, **tr.estimates(),
                        "fit_size_bytes": float(c), "walks_inside_step": float(tr.inside)})
    return out


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
                     memory: str, *, what: str = "", others: Mapping[str, Sequence[Mapping[
                         str, Any]]] | None = None
                     ) -> tuple[list[Characteristic], dict[str, Any], Staircase | None]:
    """Characteristics and the staircase series of a varying-size walk in *memory*.

    *what* says which walks the fit used (for the method); *others* are more walks to draw in
    the same plot (label → records), not fitted.
    """
    walk = sorted(walk, key=lambda r: r["point"]["footprint"])
    if len(walk) < 3:
        return [], {}, None
    x = [float(r["point"]["footprint"]) for r in walk]
    y = [walk_cpmr(r, hz)[0] for r in walk]
    stair = fit_staircase(x, y)
    levels = measured_levels(x, y, stair)
    ids = tuple(r["variant_id"] for r in walk)
    method = (f"levels found by eq. 6 summed over levels (each level's miss ratio sharpened by "
              f"an exponent and given the conflict misses it has before it is full), fitted "
              f"with scipy least_squares on log CPMR over {len(x)} footprints {_human(x[0])}…"
              f"{_human(x[-1])}{what}, level count by BIC (rms error "
              f"{stair.rms_rel_error:.1%}); per level from the walks around its step: "
              f"size_bytes = held_bytes, the most bytes it was seen to hold (max of footprint "
              f"× fraction of steps it served: a lower bound on its capacity under any "
              f"replacement policy), beside onset/half-rise/complete footprints and the fit's "
              f"size; latency_cycles = its measured plateau; {clock_method}")
    chars = [Characteristic(f"{memory}_cache_levels" if memory != "global" else "cache_levels",
                            levels, "B, cycles", method=method, variants=ids)]
    parts = partitioned_last_level(levels) if memory == "global" else None
    if parts is not None:
        chars.append(Characteristic(
            "partitioned_last_level", parts, "B, cycles",
            method="the last two cache levels, their held sizes about 2× apart, read as one "
                   "cache in two partitions: the near one serves the walk until it is full, "
                   "the far one holds what the near one cannot (total = the last level's "
                   "held size, far = total − near); latencies are the measured plateaus",
            variants=ids))
    lines = [{"label": "measured CPMR" + (f" ({what.strip(' ;,')})" if what else ""),
              "x": x, "y": y},
             {"label": "eq. 6 fit", "x": x, "y": [float(v) for v in stair.predict(x)]}]
    for label, recs in (others or {}).items():
        recs = sorted(recs, key=lambda r: r["point"]["footprint"])
        if recs:
            lines.append({"label": label, "x": [float(r["point"]["footprint"]) for r in recs],
                          "y": [walk_cpmr(r, hz)[0] for r in recs]})
    series = {f"{memory}_latency_staircase": {
        "title": f"Varying-size random walk ({memory} memory)", "lines": lines,
        "hlines": {f"L{j + 1} {_human(lv['size_bytes'])}": lv["latency_cycles"]
                   for j, lv in enumerate(levels)},
        "levels": levels, "memory_latency_cycles": stair.memory_latency,
        "xlabel": "footprint (B)", "ylabel": "cycles per memory request", "xscale": "log",
        "yscale": "log"}}
    return chars, series, stair


def plateau_past(walk: Sequence[Mapping[str, Any]], hz: float, stair: Staircase, *,
                 reached: float = 0.95) -> tuple[float, float, list[Mapping[str, Any]]] | None:
    """(median CPMR, 95 % half-width, records) of the walks past the last cache level: those
    where the fit says ≥ *reached* of the last level's misses have set in (a sharp level is a
    plateau soon after its size; an eq. 6 level only far past it). The level behind the last
    cache, measured rather than extrapolated; None below two such walks."""
    if not stair.sizes:
        return None
    x = np.array([float(r["point"]["footprint"]) for r in walk])
    k = stair.sharpness[-1] if stair.sharpness else 1.0
    g = stair.early[-1] if stair.early else 0.0
    past = [r for r, m in zip(walk, miss_ratio(x, stair.sizes[-1], k, g)) if m >= reached
            and r["point"]["footprint"] > stair.sizes[-1]]
    if len(past) < 2:
        return None
    ys = np.array([walk_cpmr(r, hz)[0] for r in past])
    half = 1.96 * float(np.std(ys, ddof=1)) / np.sqrt(len(ys))
    return float(np.median(ys)), half, past


@analysis("random_walk")
def analyze_random_walk(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                        clock_hz: float | None) -> AnalysisResult:
    """Λ of global/local/constant/private memory, cache levels (eq. 6), cache line size.

    The cache levels and the DRAM latency come from walks that do not miss the TLB: the
    page-local walks where they ran (≥ 1 MiB), the random walks below them; the random walks
    past the TLB's reach are drawn beside them and their difference reported.
    """
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful random walk",))
    hz, clock_method = cycle_clock(ok, device, clock_hz)
    chars: list[Characteristic] = []
    series: dict[str, Any] = {}
    notes: list[str] = []

    random = [r for r in ok if r["point"]["memory"] == "global"
              and r["point"]["pattern"] == "random" and r["point"]["spacing"] >= 64]
    local = [r for r in ok if r["point"]["memory"] == "global"
             and r["point"]["pattern"] == "page_local"]
    if local:
        first = min(r["point"]["footprint"] for r in local)
        walk = [r for r in random if r["point"]["footprint"] < first] + local
        what = f"; random walks below {_human(first)}, page-local walks from there on"
        others = {"random walk (TLB misses past its reach)":
                  [r for r in random if r["point"]["footprint"] >= first]}
    else:
        walk, what, others = random, "", {}
    stair_chars, stair_series, stair = staircase_result(walk, hz, clock_method, "global",
                                                        what=what, others=others)
    chars += stair_chars
    series.update(stair_series)
    if walk:
        largest = max(walk, key=lambda r: r["point"]["footprint"])
        ci: Any
        lat, ci = walk_cpmr(largest, hz)
        ids: tuple[str, ...] = (largest["variant_id"],)
        plateau = plateau_past(walk, hz, stair) if stair is not None else None
        if plateau is not None and stair is not None:
            lat, ci, past = plateau
            ids = tuple(r["variant_id"] for r in past)
            how = (f"median CPMR of the {len(past)} walks from "
                   f"{_human(past[0]['point']['footprint'])} on, past the last cache level "
                   f"({_human(stair.sizes[-1])}) where its misses are complete"
                   + (", page-local (TLB hits)" if local else ""))
        elif stair is not None and stair.sizes:
            lat, ci, how = stair.memory_latency, None, "memory level of the eq. 6 fit"
        else:
            how = f"CPMR of the largest footprint, {_human(largest['point']['footprint'])}"
        chars.append(Characteristic(
            "global_latency_cycles", lat, "cycles", ci,
            f"random walk, one work item: {how}; {clock_method}", ids))
        if local and random and stair is not None and stair.sizes:
            by_size = {r["point"]["footprint"]: r for r in random}
            common = [r for r in local if r["point"]["footprint"] in by_size
                      and r["point"]["footprint"] >= 2 * stair.sizes[-1]]
            if common:
                far = max(common, key=lambda r: r["point"]["footprint"])
                rnd = by_size[far["point"]["footprint"]]
                cost = walk_cpmr(rnd, hz)[0] - walk_cpmr(far, hz)[0]
                chars.append(Characteristic(
                    "walk_translation_cost_cycles", cost, "cycles",
                    method=f"CPMR of the random walk minus the page-local walk at "
                           f"{_human(far['point']['footprint'])} (past the last cache level): "
                           f"what a fully random walk pays for TLB misses per step; "
                           f"{clock_method}", variants=(rnd["variant_id"], far["variant_id"])))

    memory_lat = next((c.value for c in chars if c.name == "global_latency_cycles"), None)
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
                 "global (memory)": (memory_lat or stair.memory_latency, 0.0)}
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
    notes.append("line sizes, sets and ways per level: the fine-grained chase (fine_chase, "
                 "per-access %clock, NVIDIA only)")
    return AnalysisResult(tuple(chars), series, tuple(notes))
