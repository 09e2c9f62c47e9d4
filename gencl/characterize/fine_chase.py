"""Fine-grained pointer chase (spec ``fine_chase``; seed 002 §3, Mei & Chu): size, line, sets
and ways of a cache level from the latency of every access.

One work item walks a fixed-stride ring (slot k → k+1) once untimed, then times every step with
``%clock``; a run keeps the histogram of all timed latencies and the last ``WINDOW`` of them one
by one. A hit and a miss are told apart by a threshold between the level's hit latency (smallest
footprint scanned) and its miss latency (largest). Seed 002's four steps, as run here:

1. size C: footprints at a stride s0 grow until the timed pass misses; the last footprint with
   no misses, bisected to s0 (``explore_level``: the scan, then the bisection, is adaptive);
2. line b: N = C + δ at a fine stride (32 B); every δ that crosses into one more line adds one
   more overflowing set, so the misses per pass step up every b bytes of δ;
3. sets and ways: N = C + k·b, stride b. Under LRU the k extra lines overflow k sets, each of
   W + 1 lines, all of which then miss every pass: misses per pass = k·(W + 1). Ways W = slope −
   1, sets T = C / (b·W). With sets indexed by ``line mod T`` the misses of k = 1 fall every T
   lines in the window (Mei & Chu's periodic pattern); a hashed index puts them elsewhere (or at
   another period), and the report says which;
4. the fetch granularity (sector): in the one-extra-line run of step 2 each overflowing line
   misses once per fetch unit it holds: fetch = b·(W + 1) / misses.

The plan (``explore_level``) takes a ``measure(footprint, stride, stage)`` function, so the
same code drives the device (the spec's runner) and a simulated cache (the tests); the analysis
(``analyze_level``) reads only the runs' histograms and windows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

Run = Mapping[str, Any]
Measure = Callable[[int, int, str], Run]


@dataclass(frozen=True)
class LevelPlan:
    """Where to look for one cache level and at which strides.

    Args:
        name: "L1", "L2", … (reported as is).
        scan_lo, scan_hi: footprints (bytes) the size scan covers; the level's size must lie
            between them (the smallest must hit, the largest miss).
        per_octave: scan footprints per octave.
        stride: bytes between walked slots of the scan, the bisection and the capacity (at most
            the line size: one access per line or more).
        line_stride: the fine stride of the line-size step (bytes).
        max_line: the largest line size looked for (bytes).
        ways_steps: the k of N = C + k·b in the sets/ways step.
    """

    name: str
    scan_lo: int
    scan_hi: int
    per_octave: int = 8
    stride: int = 32
    line_stride: int = 32
    max_line: int = 512
    ways_steps: tuple[int, ...] = (1, 2, 3, 4)


# {{{ reading a run

def hist_counts(run: Run) -> tuple[np.ndarray, int]:
    """(counts per bin, bin width in cycles) of a run's histogram (stored sparse)."""
    width = int(run.get("bin_cycles", 4))
    sparse = run.get("hist") or {}
    size = max((int(k) for k in sparse), default=0) + 1
    counts = np.zeros(size, dtype=np.int64)
    for k, v in sparse.items():
        counts[int(k)] = int(v)
    return counts, width


def median_latency(run: Run) -> float:
    """Median cycles of a run's timed accesses (bin centre)."""
    counts, width = hist_counts(run)
    total = counts.sum()
    if total == 0:
        return math.nan
    k = int(np.searchsorted(np.cumsum(counts), (total + 1) / 2))
    return (k + 0.5) * width


def misses(run: Run, threshold: float) -> float:
    """Accesses slower than *threshold* cycles, per timed pass."""
    counts, width = hist_counts(run)
    centres = (np.arange(len(counts)) + 0.5) * width
    return float(counts[centres > threshold].sum()) / max(1, int(run.get("passes", 1)))


def accesses(run: Run) -> int:
    """Timed accesses per pass."""
    return int(run["slots"])


def noise_floor(run: Run) -> float:
    """Misses per pass read as none: stray slow accesses (a clock glitch), and one TLB refill
    per MiB a sequential pass walks (a big level's scan crosses more pages than a small TLB
    holds: with 2 MiB pages that is one refill per page, under this floor)."""
    return max(2.0, 1e-5 * accesses(run), int(run["footprint"]) / (1 << 20))


def window_misses(run: Run, threshold: float) -> list[int]:
    """Slot indices (position in the ring) of the window's accesses slower than *threshold*."""
    window = run.get("window") or []
    first, slots = int(run.get("window_first", 0)), int(run["slots"])
    return [(first + i) % slots for i, t in enumerate(window) if t > threshold]

# }}}


# {{{ the plan: seed 002's steps, adaptive

def scan_footprints(plan: LevelPlan) -> list[int]:
    """Log-spaced footprints from scan_lo to scan_hi, whole strides."""
    octaves = math.log2(plan.scan_hi / plan.scan_lo)
    count = int(round(octaves * plan.per_octave))
    out = {int(round(plan.scan_lo * 2 ** (k / plan.per_octave) / plan.stride)) * plan.stride
           for k in range(count + 1)}
    return sorted(out)


def threshold_of(hit: float, miss: float) -> float:
    """Cycles that split hits from misses: the geometric mean of the two latencies."""
    return math.sqrt(hit * miss)


def explore_level(plan: LevelPlan, measure: Measure) -> list[Run]:
    """Run seed 002's steps for one level; every run made is returned (the analysis redoes the
    arithmetic from them). Stops early, with what it has, when a step finds nothing to go on."""
    runs: list[Run] = []

    def run(footprint: int, stride: int, stage: str) -> Run:
        r = measure(footprint, stride, stage)
        runs.append(r)
        return r

    scan = [run(f, plan.stride, "scan") for f in scan_footprints(plan)]
    hit, miss = median_latency(scan[0]), median_latency(scan[-1])
    if not miss > 1.3 * hit:
        return runs  # nothing misses in the scanned range (or everything does)
    limit = threshold_of(hit, miss)
    clean = [r for r in scan if misses(r, limit) <= noise_floor(r)]
    if not clean or clean[0] is not scan[0]:
        return runs
    lo = max(int(r["footprint"]) for r in clean)
    hi = min((int(r["footprint"]) for r in scan if int(r["footprint"]) > lo), default=None)
    if hi is None:
        return runs
    while hi - lo > plan.stride:  # bisect to one stride
        mid = (lo + hi) // 2 // plan.stride * plan.stride
        if mid in (lo, hi):
            break
        r = run(mid, plan.stride, "bisect")
        if misses(r, limit) <= noise_floor(r):
            lo = mid
        else:
            hi = mid
    size = lo
    line_runs = [run(size + d, plan.line_stride, "line")
                 for d in range(plan.line_stride, plan.max_line + plan.line_stride,
                                plan.line_stride)]
    line = line_from(line_runs, size, limit)
    if line is None:
        return runs
    for k in plan.ways_steps:
        run(size + k * line, line, "sets")
    return runs

# }}}


# {{{ the analysis of one level

def line_from(line_runs: Sequence[Run], size: int, limit: float) -> int | None:
    """Line size from the δ = N − C runs: the largest δ whose misses are still those of the
    first (one extra line): misses step up when δ crosses into the next line."""
    pts = sorted((int(r["footprint"]) - size, misses(r, limit)) for r in line_runs)
    if not pts or pts[0][1] <= noise_floor(line_runs[0]):
        return None
    one = pts[0][1]
    within = [d for d, m in pts if m < 1.5 * one]
    line = max(within)
    if line == pts[-1][0]:
        return None  # never stepped up: the line is longer than the δ range
    return line


def ways_from(set_runs: Sequence[Run], size: int, line: int, limit: float
              ) -> tuple[float | None, list[tuple[int, float]]]:
    """(W + 1 as the slope of misses per pass over k, the (k, misses) points).

    With three or more k the line has an intercept (misses that do not grow with k: TLB
    refills of a big level's pass), else it goes through 0."""
    pts = sorted((round((int(r["footprint"]) - size) / line), misses(r, limit))
                 for r in set_runs)
    ks = np.array([k for k, _ in pts], float)
    ms = np.array([m for _, m in pts], float)
    if len(pts) == 0 or not (ks > 0).all() or ms.max() <= 0:
        return None, pts
    if len(set(ks)) >= 3:
        slope = float(np.polyfit(ks, ms, 1)[0])
    else:
        slope = float(ks @ ms / (ks @ ks))
    return slope, pts


def set_period(run: Run, limit: float, line: int) -> tuple[int | None, int]:
    """(the constant distance in lines between the window's misses, how many misses): Mei &
    Chu's periodic pattern of a ``line mod sets`` index. None when fewer than two misses fall in
    the window or their gaps differ."""
    per_line = max(1, line // int(run["stride"]))
    slots = sorted({s // per_line for s in window_misses(run, limit)})
    if len(slots) < 2:
        return None, len(slots)
    gaps = np.diff(slots)
    return (int(gaps[0]) if (gaps == gaps[0]).all() and gaps[0] > 1 else None), len(slots)


def analyze_level(runs: Sequence[Run]) -> dict[str, Any]:
    """Everything seed 002's steps give for one level's runs (missing keys: not found)."""
    scan = sorted((r for r in runs if r["stage"] == "scan"), key=lambda r: r["footprint"])
    out: dict[str, Any] = {}
    if len(scan) < 2:
        return out
    hit, miss = median_latency(scan[0]), median_latency(scan[-1])
    out.update(hit_latency_cycles=hit, miss_latency_cycles=miss,
               scanned_bytes=[int(scan[0]["footprint"]), int(scan[-1]["footprint"])])
    if not miss > 1.3 * hit:
        return out
    limit = threshold_of(hit, miss)
    out["threshold_cycles"] = limit
    sized = sorted((r for r in runs if r["stage"] in ("scan", "bisect")),
                   key=lambda r: r["footprint"])
    clean = [int(r["footprint"]) for r in sized if misses(r, limit) <= noise_floor(r)]
    if not clean or clean[0] != int(scan[0]["footprint"]):
        return out
    # the largest footprint below which nothing misses (bisection keeps that monotone)
    first_miss = min((int(r["footprint"]) for r in sized
                      if misses(r, limit) > noise_floor(r)), default=None)
    size = max(f for f in clean if first_miss is None or f < first_miss)
    out["size_bytes"] = out["clean_bytes"] = size
    half = [int(r["footprint"]) for r in scan if misses(r, limit) >= 0.5 * accesses(r)]
    if half:
        out["half_miss_bytes"] = min(half)
    from gencl.characterize.latency import transition

    x = np.array([float(r["footprint"]) for r in sized])
    step = transition(x, np.array([misses(r, limit) / accesses(r) for r in sized]), 0.0, 1.0)
    if step is not None and step.onset > size:
        # misses before the capacity (a few per pass, not every pass): the level is not full
        # where the first one shows; its size is the most bytes it was seen to hold
        out["size_bytes"] = step.held
        out["half_miss_bytes"] = step.halfway
        out["size_from"] = (f"held bytes ({step.held:.0f} B): stray misses from "
                            f"{first_miss} B on, well before the half-miss footprint "
                            f"{step.halfway:.0f} B")
    line_runs = [r for r in runs if r["stage"] == "line"]
    line = line_from(line_runs, size, limit) if line_runs else None
    if line_runs:
        counts = [misses(r, limit) for r in sorted(line_runs, key=lambda r: r["footprint"])]
        out["line_run_misses"] = counts
        drops = sum(1 for a, b in zip(counts, counts[1:]) if b < a - noise_floor(line_runs[0]))
        if drops:
            out["not_lru"] = (f"the misses per pass of the C + δ runs ({len(counts)} runs, δ = "
                              f"{int(line_runs[0]['stride'])} B steps) fall {drops} times as δ "
                              f"grows ({', '.join(f'{c:.0f}' for c in counts)}): under LRU they "
                              f"can only rise, so Mei & Chu's counts (line, sets, ways) do not "
                              f"apply at this capacity")
            return out
    if line is None:
        return out
    out["line_bytes"] = line
    slope, pts = ways_from([r for r in runs if r["stage"] == "sets"], size, line, limit)
    out["misses_per_pass_by_extra_lines"] = [[k, m] for k, m in pts]
    if slope is None or slope < 1.5:
        return out
    ways = max(1, int(round(slope - 1)))
    out["ways"] = ways
    out["sets"] = size / (line * ways)
    one = min((r for r in runs if r["stage"] == "sets"),
              key=lambda r: int(r["footprint"]), default=None)
    if one is not None:
        period, seen = set_period(one, limit, line)
        if period is not None and period == round(out["sets"]):
            out["set_index"] = (f"line mod {period}: the one-extra-line run's {seen} misses in "
                                f"the window fall every {period} lines, the number of sets")
            out["sets_from_period"] = period
        elif period is not None:
            out["set_index"] = (f"not line mod sets: the window's {seen} misses fall every "
                                f"{period} lines, not every {round(out['sets'])} (a hashed index)")
        else:
            out["set_index"] = (f"no period in the window's {seen} misses (a hashed index, or more "
                                f"sets than the window holds lines)")
    first_line = min(line_runs, key=lambda r: int(r["footprint"]))
    m1 = misses(first_line, limit)
    if m1 > 0:
        fetch = line * (ways + 1) / m1
        out["fetch_bytes"] = int(2 ** round(math.log2(max(fetch, int(first_line["stride"])))))
    return out

# }}}


def sectoring(fine: Sequence[Run], coarse: Sequence[Run], *, same: float = 1.25,
              past: float = 2.0) -> dict[str, Any] | None:
    """Fetch unit of one cache, and whether it fills at the same footprint at two strides.

    *fine* and *coarse* are the scans (and bisections) of the same level at strides s < S, each
    hits/misses split at the geometric mean of the fine scan's hit and miss latencies. Past the
    level (footprints ≥ *past* × its half-miss) a fine walk in which every access misses
    fetches ≤ s bytes per miss (a larger fetch unit would serve the next s-byte slot).
    ``same_capacity``: both scans half-miss within *same* of one footprint. A cache that
    allocates A ≥ S bytes per tag does that (both walks use F / A tags); so does one of s-byte
    lines whose set index is plain address bits, since the S-stride walk then reaches only
    s / S of its sets — the scans cannot tell these apart, so no allocation unit is claimed
    (a hashed index would show S / s times the footprint at stride S for s-byte lines).
    None when a scan lacks the step."""

    def scan_of(runs: Sequence[Run]) -> list[Run]:
        return sorted((r for r in runs if r["stage"] in ("scan", "bisect")),
                      key=lambda r: r["footprint"])

    f_scan, c_scan = scan_of(fine), scan_of(coarse)
    if len(f_scan) < 2 or len(c_scan) < 2:
        return None
    f_plain = [r for r in f_scan if r["stage"] == "scan"]
    hit, miss = median_latency(f_plain[0]), median_latency(f_plain[-1])
    if not miss > 1.3 * hit:
        return None
    limit = threshold_of(hit, miss)

    def half_miss(scan: list[Run]) -> float | None:
        """Footprint where half the accesses miss, log-interpolated between two runs."""
        x = np.array([float(r["footprint"]) for r in scan])
        m = np.array([misses(r, limit) / accesses(r) for r in scan])
        up = np.nonzero(m >= 0.5)[0]
        if not len(up) or up[0] == 0:
            return None
        i = int(up[0])
        t = (0.5 - m[i - 1]) / (m[i] - m[i - 1])
        return float(np.exp(np.log(x[i - 1]) + t * np.log(x[i] / x[i - 1])))

    f_half, c_half = half_miss(f_scan), half_miss(c_scan)
    if f_half is None or c_half is None:
        return None
    s, big = int(f_scan[0]["stride"]), int(c_scan[0]["stride"])
    out: dict[str, Any] = {"strides_bytes": [s, big], "half_miss_bytes": [f_half, c_half]}
    out["same_capacity"] = bool(max(f_half, c_half) / min(f_half, c_half) <= same)
    beyond = [r for r in f_scan if r["footprint"] >= past * f_half]
    if beyond:
        frac = float(np.median([misses(r, limit) / accesses(r) for r in beyond]))
        out["miss_fraction_past"] = frac
        if frac >= 0.9:
            out["fetch_bytes_at_most"] = s
    return out


def runs_of(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Measurement records → run dicts (point + the per-access data kept in ``extra``)."""
    out = []
    for r in records:
        if r.get("status") != "ok":
            continue
        out.append({**r["point"], **(r.get("extra") or {})})
    return out


_LABELS = {"size_bytes": ("B", "largest footprint with no miss in the timed pass (step 1, "
                                "bisected to the scan stride); where stray misses start well "
                                "before the step, the most bytes the level was seen to hold "
                                "(max footprint × fraction of hits, a lower bound)"),
           "half_miss_bytes": ("B", "footprint where half the accesses miss"),
           "line_bytes": ("B", "period of the miss steps in δ = N − C (step 2)"),
           "ways": ("ways", "misses per pass over k extra lines = k·(W + 1) (+ a constant), "
                            "least-squares slope (step 3, LRU)"),
           "sets": ("sets", "size / (line × ways)"),
           "fetch_bytes": ("B", "line × (ways + 1) / misses of the one-extra-line run at the "
                                "fine stride: the bytes one miss brings (sector)"),
           "hit_latency_cycles": ("cycles", "median per-access %clock delta at the smallest "
                                            "footprint scanned (includes the clock reads and "
                                            "the __local store of the loaded index)"),
           "miss_latency_cycles": ("cycles", "median per-access delta at the largest footprint "
                                             "scanned: what serves this level's misses")}


#: the suffix of a level measured by the register-window kernel (no __local), and the fields
#: its capacity-vs-stride analysis reports for the base level in its stead
FULL = "_full"
_GEOMETRY = ("line_bytes", "ways", "sets", "fetch_bytes")


def _full_level(name: str, runs: Sequence[Run], records: Sequence[Mapping[str, Any]],
                chars: list[Characteristic], series: dict[str, Any], notes: list[str]) -> None:
    """Characteristics of a level measured without __local (``cache_geometry``): line, sets
    and ways under the base level's name (``l1_line_bytes``: the summary's keys), the rest
    under the level's own."""
    from gencl.characterize.cache_geometry import geometry

    found = geometry(runs)
    base, key = name[:-len(FULL)].lower(), name.lower()
    ids = tuple(str(r.get("variant_id", "")) for r in records if r.get("status") == "ok"
                and r["point"].get("level") == name)
    how = (f"capacity vs stride, {name} (per-access %clock, window in registers, no __local): "
           f"N(S) = the largest ring of S-strided lines with no miss in its timed passes after "
           f"{runs[0].get('warm_passes', '?')} untimed ones (doubling then bisection; any "
           f"replacement policy that fills free ways first)")
    values = (
        (f"{key}_size_bytes", "size_bytes", "B",
         "N(S)·S at the smallest stride (every byte of every line)"),
        (f"{key}_hit_latency_cycles", "hit_latency_cycles", "cycles",
         "median of the window of a 16-line ring"),
        (f"{key}_miss_latency_cycles", "miss_latency_cycles", "cycles",
         "median of the window of a 4 MiB ring"),
        (f"{base}_fetch_bytes", "fetch_bytes", "B",
         "the smallest stride of a 4 MiB walk at which ≥ 90 % of the accesses miss: the bytes "
         "one miss brings (sector)"),
        (f"{base}_line_bytes", "line_bytes", "B", f"allocation unit: {found.get('line_from')}"),
        (f"{base}_ways", "ways", "ways", _ways_method(found)),
        (f"{base}_sets", "sets", "sets", "capacity / (line × ways)"),
    )
    for cname, field, unit, what in values:
        if field in found:
            chars.append(Characteristic(cname, found[field], unit, method=f"{how}: {what}",
                                        variants=ids))
    chars.append(Characteristic(f"{key}_geometry", found, "B, lines, ways, sets, cycles",
                                method=how, variants=ids))
    for field in ("why", "line_why", "ways_why", "stride_ways_why", "ways_disagree"):
        if field in found:
            notes.append(f"{name}: {found[field]}")
    ev = found.get("eviction_sets")
    if ev:
        notes.append(f"{name} minimal eviction sets: {len(ev['set_sizes'])} starting rings, "
                     f"sets of {ev['set_sizes']} lines (confirmed: {ev['confirmed']}), "
                     f"{sum(ev['tests'])} tests ({ev['tests']})")
        for i, f in enumerate(ev["sets_found"]):
            bits = f.get("address_bits")
            if bits:
                notes.append(f"{name} eviction set {i}: offsets {bits['offsets']} B share bits "
                             f"{bits['bits_equal']}; their differences span "
                             f"{bits['difference_rank']} dimensions (informative: virtual "
                             f"offsets within the buffer)")
    if "set_index" in found:
        notes.append(f"{name} set index: {found['set_index']}")
    caps = found.get("lines_by_stride", {}).get("capacity", {})
    bounded = {int(s): n for s, n in caps.items() if isinstance(n, int)}
    if bounded:
        series[f"fine_chase_{key}_lines_vs_stride"] = {
            "title": f"{name}: largest all-hit ring N(S) vs stride (no __local)",
            "x": sorted(bounded), "y": [bounded[s] for s in sorted(bounded)],
            "xlabel": "stride (B)", "ylabel": "lines held (N)", "xscale": "log",
            "yscale": "log"}


def _ways_method(found: Mapping[str, Any]) -> str:
    """How the ways of a level measured without __local were found."""
    if found.get("ways_from") == "minimal eviction sets":
        ev = found["eviction_sets"]
        return (f"minimal eviction set: from each of {len(ev['set_sizes'])} rings of random "
                f"lines (capacity + 10 %) that do not fit, group testing by binary splitting "
                f"(Vila, Köpf & Morales 2019; the lines that complete a set kept, the rest "
                f"dropped) down to a ring that fits once any one line is dropped: W + 1 lines "
                f"of one set, each confirmed by the all-hit test (the set misses, every set of "
                f"one line less fits); sizes {ev['set_sizes']}, tests {ev['tests']}")
    return ("N(S) at the plateau of the largest power-of-two strides, where every line of the "
            "ring shares one set")


@analysis("fine_chase")
def analyze_fine_chase(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                       clock_hz: float | None) -> AnalysisResult:
    """Per level: size, line, ways, sets, fetch unit, hit and miss latency (cycles, %clock)."""
    every = runs_of(records)
    if not every:
        reasons = sorted({r.get("reason", "") for r in records if r.get("status") != "ok"})
        return AnalysisResult((), notes=tuple(reasons) or ("no per-access run",))
    full = [r for r in every if str(r["level"]).endswith(FULL)]
    runs = [r for r in every if not str(r["level"]).endswith(FULL)]
    chars: list[Characteristic] = []
    series: dict[str, Any] = {}
    notes: list[str] = []
    levels: dict[str, dict[str, Any]] = {}
    # bases whose line, sets and ways come from a level measured without __local
    by_stride = {str(r["level"])[:-len(FULL)] for r in full}
    for name in sorted({r["level"] for r in runs}):
        mine = [r for r in runs if r["level"] == name]
        found = analyze_level(mine)
        levels[name] = found
        ids = tuple(str(r.get("variant_id", "")) for r in records if r.get("status") == "ok"
                    and r["point"].get("level") == name)
        key = name.lower()
        for field, (unit, how) in _LABELS.items():
            if field in found and not (name in by_stride and field in _GEOMETRY):
                chars.append(Characteristic(
                    f"{key}_{field}", found[field], unit,
                    method=f"fine-grained chase (per-access %clock), {name}: {how}",
                    variants=ids))
        missing = [f for f in ("size_bytes", "line_bytes", "ways") if f not in found]
        if "not_lru" in found:
            notes.append(f"{name}: {', '.join(missing)} not found: {found['not_lru']}")
        elif missing:
            notes.append(f"{name}: {', '.join(missing)} not found (the step before gave "
                         f"nothing to go on; scanned {found.get('scanned_bytes')})")
        if "set_index" in found:
            notes.append(f"{name} set index: {found['set_index']}")
        if name.startswith("L1") and "size_bytes" in found:
            notes.append(f"{name}: the L1 of this kernel, which keeps 10 KiB of records in "
                         f"__local: on a unified L1/shared memory (NVIDIA) the driver's split "
                         f"for such a kernel leaves less L1 than a kernel without __local gets "
                         f"(the random walk's L1)")
        if "size_from" in found:
            notes.append(f"{name} size: {found['size_from']}")
        scan = sorted((r for r in mine if r["stage"] in ("scan", "bisect")),
                      key=lambda r: r["footprint"])
        if scan and "threshold_cycles" in found:
            series[f"fine_chase_{key}_misses_vs_footprint"] = {
                "title": f"{name}: misses per pass vs footprint (per-access %clock)",
                "x": [int(r["footprint"]) for r in scan],
                "y": [misses(r, found["threshold_cycles"]) / accesses(r) for r in scan],
                "xlabel": "footprint (B)", "ylabel": "fraction of accesses that miss",
                "xscale": "log"}
    for name in sorted(levels):
        base, _, stride = name.partition("_")
        if not stride or base not in levels:
            continue  # "L1_128": the level *base* scanned again at a coarser stride
        units = sectoring([r for r in runs if r["level"] == base],
                          [r for r in runs if r["level"] == name])
        if units is None:
            continue
        levels[base]["sectoring"] = units
        s, big = units["strides_bytes"]
        half = ", ".join(f"{h / 1024:.3g} KiB at {st} B" for st, h in
                         zip(units["strides_bytes"], units["half_miss_bytes"]))
        chars.append(Characteristic(
            f"{base.lower()}_sectoring", units, "B",
            method=f"fine-grained chase, {base} scanned at {s}-B and {big}-B strides: "
                   f"half-miss footprints {half}; fetch_bytes_at_most = {s} when every "
                   f"{s}-B access misses past the level (a larger fetch would serve the "
                   f"next slot)",
            variants=tuple(str(r.get("variant_id", "")) for r in records
                           if r.get("status") == "ok"
                           and r["point"].get("level") in (base, name))))
        fetch = (f"fetches ≤ {s} B per miss ({units['miss_fraction_past']:.0%} of the {s}-B "
                 f"accesses miss past the level)" if "fetch_bytes_at_most" in units else
                 f"fetches more than {s} B per miss ({units.get('miss_fraction_past', 0):.0%}"
                 f" of the {s}-B accesses miss past the level)")
        if units["same_capacity"]:
            notes.append(
                f"{base}: {fetch}; it fills at the same footprint at {s}-B and {big}-B "
                f"strides ({half}): either it allocates ≥ {big} B per tag ({s}-B sectors of a "
                f"longer line, Hopper's documented 128-B line of 32-B sectors) or its lines are "
                f"{s} B with a set index of plain address bits that the {big}-B stride folds "
                f"onto {s}/{big} of the sets; the scans cannot tell which, so "
                f"{base.lower()}_line_bytes stays unset")
        else:
            notes.append(f"{base}: {fetch}; it holds a different footprint at {s}-B and "
                         f"{big}-B strides ({half})")
    for name in sorted({r["level"] for r in full}):
        _full_level(name, [r for r in full if r["level"] == name], records, chars, series,
                    notes)
    chars.append(Characteristic(
        "cache_geometry", levels, "B, ways, sets, cycles",
        method="seed 002 §3 (Mei & Chu) per level: every run's per-access latencies "
               "(%clock around one load, one work item), hits and misses split at the "
               "geometric mean of the level's hit and miss latencies",
        variants=tuple(str(r.get("variant_id", "")) for r in records
                       if r.get("status") == "ok")))
    return AnalysisResult(tuple(chars), series, tuple(notes))
