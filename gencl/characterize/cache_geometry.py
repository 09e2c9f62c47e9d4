"""Line, sets and ways of a cache from the capacity it shows at each stride (spec ``fine_chase``,
levels ``*_full``): a method that holds for any replacement policy (LRU, random, …).

Mei & Chu's counts (``fine_chase.analyze_level``) read line, sets and ways from how many
misses a ring of C + δ bytes makes per pass, which assumes LRU; the H200's L1 is not LRU there.
What holds under any policy that fills a free way before it evicts: a ring of N lines that all
fit their sets hits every access from the second pass on, and one line more than a set's ways
misses at least once per pass. So for each stride S the largest all-hit ring N(S) is found
(``explore``: doubling, then bisection; each ring warmed over several passes, then timed over
whole passes), and the geometry read from N(S):

- capacity C = N(S)·S at a stride below the line (every byte of every line used);
- fetch unit (sector): a ring far past the level walked at strides 16 … 256 B: the smallest
  stride at which every access misses (a larger fetch would serve the next slot);
- line (allocation unit) A: at a stride S that is not a power of two, every access of a ring
  lands in its own line once S ≥ A, and the lines spread over all sets, so C / N(S) = A; below
  the line two accesses share one, and C / N(S) = S. A is the value C / N(S) settles at;
- sets T and ways W: at power-of-two strides S ≥ A a modulo index puts the ring into
  T·A / S sets while S ≤ T·A, so N(S)·S = C; past T·A every line is in one set and N(S) = W
  at every larger stride. W = that plateau, T = C / (A·W), and T·A = the stride it starts at;
- index: with ``line mod T`` a stride 3·2^k (≥ A) reaches the same sets as 2^k, so N must be
  equal at both; a hashed index breaks that, or N(S)·S = C before the plateau (the set loads of
  a hash are uneven), and is reported as such.
- ways and sets of any index (a hash hides the plateau): a minimal ring that does not fit, found
  by group testing from rings of capacity + 10 % lines (``eviction_set``), is W + 1 lines of
  one set; where the level has those runs (stage ``ways``), they give W and T = C / (A·W).

The pure functions here take and return plain dicts (a run: ``lines``, ``stride``, ``stage``,
``passes``, ``slow``, ``window``, …): the spec's runner drives ``explore`` with the device, the
tests with simulated caches of known geometry.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

KIB, MIB = 1 << 10, 1 << 20

Run = Mapping[str, Any]
#: probe(lines, stride, stage, threshold cycles, warm passes) → run
Probe = Callable[[int, int, str, float, int], Run]


@dataclass(frozen=True)
class StridePlan:
    """Where and how to look for one level's geometry.

    Args:
        name: the level ("L1_full").
        strides: power-of-two strides (bytes), from below the line to past sets × line.
        line_strides: strides that are odd multiples of the sector (the line's search).
        index_strides: strides 3·2^k with 2^k among *strides* (the index's test).
        fetch_strides: strides of the fetch scan, walked over *fetch_bytes* (past the level).
        fetch_bytes: footprint of the fetch scan and of the miss calibration.
        hit_ring: (lines, stride) of the hit calibration (fits any cache).
        warm_passes: untimed passes before a capacity ring is timed (16: a random policy
            that finds the level full of another buffer's lines takes ~10 passes to hold a ring
            at its capacity in the tests' simulation; an L1 invalidated at launch needs one).
        max_lines, max_bytes: the largest ring a stride's search tries.
        ways_repeats: starting rings of the minimal eviction sets (``eviction_set``), run
            after the searches when they found the line and the capacity (0: none).
        ways_region_bytes: the buffer whose lines the eviction sets' rings are made of.
        ways_budget: the most tests of one reduction.
    """

    name: str
    strides: tuple[int, ...]
    line_strides: tuple[int, ...] = ()
    index_strides: tuple[int, ...] = ()
    fetch_strides: tuple[int, ...] = (16, 32, 64, 128, 256)
    fetch_bytes: int = 4 * MIB
    hit_ring: tuple[int, int] = (16, 128)
    warm_passes: int = 16
    max_lines: int = 1 << 15
    max_bytes: int = 64 * MIB
    ways_repeats: int = 3
    ways_region_bytes: int = 4 * MIB
    ways_budget: int = 600


#: the searches, by stage: what each stride set is for
SEARCHES = ("capacity", "line", "index")


# {{{ reading a run

def is_power_of_two(n: int) -> bool:
    return n > 0 and not n & (n - 1)


def median_window(run: Run) -> float:
    """Median per-access latency (cycles) of a run's window of timed accesses."""
    window = run.get("window") or []
    return float(np.median(window)) if len(window) else math.nan


def slow_per_pass(run: Run) -> float:
    """Accesses above the run's threshold, per timed pass."""
    return float(run["slow"]) / max(1, int(run["passes"]))


def all_hit(run: Run) -> bool:
    """No access misses in the timed passes, allowing stray slow ones (a clock glitch): fewer
    than 0.75 per pass (2 in the runner's 4 passes). A ring one line past a set's ways misses
    at least once in every pass under any replacement policy, so this is not a matter of
    degree."""
    return slow_per_pass(run) < 0.75


# }}}


# {{{ the plan: one search per stride

def explore(plan: StridePlan, probe: Probe, ring_probe: Any = None) -> list[Run]:
    """Calibrate, scan the fetch unit, then find N(S) at each stride; with *ring_probe* (an
    ``eviction_set.RingProbe``), then the minimal eviction sets (the ways of any index). Every
    run made is returned (the analysis redoes the arithmetic from them)."""
    runs: list[Run] = []

    def run(lines: int, stride: int, stage: str, limit: float, warm: int) -> Run:
        r = probe(lines, stride, stage, limit, warm)
        runs.append(r)
        return r

    hit = median_window(run(*plan.hit_ring, "hit", math.inf, plan.warm_passes))
    miss_stride = plan.hit_ring[1]
    miss = median_window(run(plan.fetch_bytes // miss_stride, miss_stride, "miss", math.inf, 1))
    if not miss > 1.3 * hit:
        return runs  # nothing tells hits from misses
    limit = math.sqrt(hit * miss)
    for s in plan.fetch_strides:
        run(plan.fetch_bytes // s, s, "fetch", limit, 1)
    for stage, s in [("capacity", s) for s in plan.strides] + \
            [("line", s) for s in plan.line_strides] + [("index", s) for s in plan.index_strides]:
        cap = max(1, min(plan.max_lines, plan.max_bytes // s))
        if not all_hit(run(1, s, stage, limit, plan.warm_passes)):
            continue  # one line misses: not this level's stride (recorded as such)
        lo, hi, n = 1, None, 2
        while n <= cap:
            if all_hit(run(n, s, stage, limit, plan.warm_passes)):
                lo, n = n, 2 * n
            else:
                hi = n
                break
        if hi is None:
            continue  # N(S) ≥ lo: the search's bound
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if all_hit(run(mid, s, stage, limit, plan.warm_passes)):
                lo = mid
            else:
                hi = mid
    found = geometry(runs)
    if ring_probe is not None and plan.ways_repeats and "line_bytes" in found:
        from gencl.characterize.eviction_set import explore_ways, starting_pools

        line = int(found["line_bytes"])
        pools = starting_pools(int(found["size_bytes"]) // line, plan.ways_region_bytes // line,
                               plan.ways_repeats)
        runs += explore_ways(pools, ring_probe, line, limit, plan.warm_passes,
                             budget=plan.ways_budget)
    return runs

# }}}


# {{{ the analysis

def capacities(runs: Sequence[Run], stage: str = "capacity") -> dict[int, dict[str, Any]]:
    """Per stride of the *stage*'s search: ``lines`` the largest all-hit ring below the
    smallest that missed, ``bounded`` whether a larger ring was seen to miss (else ``lines``
    is a lower bound)."""
    out: dict[int, dict[str, Any]] = {}
    by_stride: dict[int, list[Run]] = {}
    for r in runs:
        if r["stage"] == stage:
            by_stride.setdefault(int(r["stride"]), []).append(r)
    for s, rs in sorted(by_stride.items()):
        first_miss = min((int(r["lines"]) for r in rs if not all_hit(r)), default=None)
        hits = [int(r["lines"]) for r in rs if all_hit(r)
                and (first_miss is None or int(r["lines"]) < first_miss)]
        if hits:
            out[s] = {"lines": max(hits), "bounded": first_miss is not None,
                      "bytes": max(hits) * s}
    return out


def fetch_unit(runs: Sequence[Run]) -> tuple[int | None, dict[int, float]]:
    """(the smallest fetch-scan stride at which ≥ 90 % of the accesses miss, the miss fraction
    per stride). None when no stride of the scan misses every access."""
    frac = {int(r["stride"]): min(1.0, slow_per_pass(r) / max(1, int(r["lines"])))
            for r in runs if r["stage"] == "fetch"}
    full = [s for s, f in sorted(frac.items()) if f >= 0.9]
    return (full[0] if full else None), frac


def _round_pow2(x: float, tol: float = 0.15) -> int | None:
    p = 2 ** round(math.log2(x))
    return int(p) if abs(x / p - 1) <= tol else None


def geometry(runs: Sequence[Run]) -> dict[str, Any]:
    """Capacity, fetch unit, line, sets, ways and index of one level from its runs (missing
    keys: not found; ``*_why`` keys say why)."""
    out: dict[str, Any] = {}
    hit = [median_window(r) for r in runs if r["stage"] == "hit"]
    miss = [median_window(r) for r in runs if r["stage"] == "miss"]
    if hit and miss:
        out.update(hit_latency_cycles=hit[0], miss_latency_cycles=miss[0])
    limits = {float(r["threshold"]) for r in runs if r["stage"] in ("fetch", *SEARCHES)}
    if not limits:
        out["why"] = "no run told hits from misses (miss latency not 1.3× the hit latency)"
        return out
    out["threshold_cycles"] = min(limits)
    fetch, frac = fetch_unit(runs)
    out["fetch_miss_fraction"] = {str(s): round(f, 4) for s, f in frac.items()}
    if fetch is not None:
        out["fetch_bytes"] = fetch
    found = {stage: capacities(runs, stage) for stage in SEARCHES}
    out["lines_by_stride"] = {
        stage: {str(s): c["lines"] if c["bounded"] else f">={c['lines']}"
                for s, c in caps.items()} for stage, caps in found.items() if caps}
    powers = {s: c["lines"] for s, c in found["capacity"].items() if c["bounded"]}
    if not powers:
        out["why"] = "no power-of-two stride found a ring that misses"
        return out
    smallest = min(powers)
    size = powers[smallest] * smallest
    out["size_bytes"] = size
    # line: C / N(S) over strides that are not powers of two and not 3·2^k (those may fold)
    odd = {s: size / c["lines"] for s, c in found["line"].items() if c["bounded"]}
    past = sorted(a for s, a in odd.items() if a < 0.85 * s)
    if odd:
        out["line_per_stride"] = {str(s): round(a, 1) for s, a in sorted(odd.items())}
    stop = _stops_halving(powers, size)
    if past and past[-1] <= 1.15 * past[0] and _round_pow2(float(np.median(past))):
        out["line_bytes"] = _round_pow2(float(np.median(past)))
        out["line_from"] = (f"C / N(S) at strides past the line that are not powers of two: "
                            f"{', '.join(f'{a:.0f}' for a in past)} B")
    elif stop is not None and stop < max(powers):
        # a hash spreads the lines of every power-of-two stride past the line over all sets:
        # N(S) stops halving at the line while the ring still holds the whole capacity
        out["line_bytes"] = stop
        out["line_from"] = (f"N(S) stops halving at {stop} B with N·S = C (one access per line "
                            f"from there, every line in its own slot); the strides that are "
                            f"not powers of two give uneven C / N(S) "
                            f"({', '.join(f'{a:.0f}' for a in past) or 'none past the line'})")
    elif past:
        out["line_why"] = (f"C / N(S) past the line ({', '.join(f'{a:.0f}' for a in past)} B) "
                           f"is not one power of two within 15 %")
    elif odd:
        out["line_why"] = (f"C / N(S) = S at every stride that is not a power of two (up to "
                           f"{max(odd)} B): the line is longer than that")
    if "line_bytes" not in out:
        return out
    line = out["line_bytes"]
    big = sorted(s for s in powers if s >= line)
    # plateau: N equal at the two largest strides, and ≥ 2 lines
    ways = None
    if len(big) >= 2 and powers[big[-1]] == powers[big[-2]] \
            and powers[big[-1]] * line < 0.85 * size:
        ways = powers[big[-1]]
        knee = min(s for s in big if powers[s] == ways and all(powers[t] == ways for t in big
                                                               if t >= s))
        below = [s for s in big if s < knee]
        even = [powers[s] * s / size for s in below]
        out["ways"] = ways
        out["ways_from"] = "stride plateau"
        out["sets"] = size / (line * ways)
        out["knee_stride_bytes"] = knee
        out["fill_before_knee"] = [round(e, 3) for e in even]
        if ways == 1:
            out["ways_why"] = ("N(S) = 1 at the largest strides: a direct-mapped level, or "
                               "what holds the ring there is not this cache (a TLB)")
    elif len(big) >= 2 and powers[big[-1]] == powers[big[-2]]:
        out["ways_why"] = (f"N(S) = {powers[big[-1]]} lines at the largest strides holds the "
                           f"whole capacity: no stride put the ring into fewer sets (a hashed "
                           f"index spreads it)")
    else:
        out["ways_why"] = ("N(S) still falls at the largest strides ("
                           + ", ".join(f"{s} B: {powers[s]}" for s in big[-3:])
                           + "): no plateau where every line shares one set")
    index = {s: c["lines"] for s, c in found["index"].items() if c["bounded"]}
    out["set_index"] = _index(index, powers, size, line, out.get("knee_stride_bytes"))
    _eviction_ways(runs, out, size / line, line)
    return out


def _eviction_ways(runs: Sequence[Run], out: dict[str, Any], capacity_lines: float,
                   line: int) -> None:
    """Ways and sets from the minimal eviction sets (``eviction_set``), where the level has
    them: they replace the stride plateau's (which a hashed index hides; a disagreement is
    kept as ``ways_disagree``), or add their reasons to ``ways_why``."""
    from gencl.characterize.eviction_set import replay_ways, shared_bits, ways_and_sets

    found = replay_ways(runs)
    if not found:
        return
    ev = ways_and_sets(found, capacity_lines)
    ev["sets_found"] = [
        {"from": f["from"], "lines": f["lines"], "confirmed": f["confirmed"],
         "tests": f["tests"], **({"why": f["why"]} if f.get("why") else {}),
         **({"address_bits": shared_bits(f["lines"], line)} if f["confirmed"] else {})}
        for f in found]
    out["eviction_sets"] = ev
    if "ways" in ev:
        if "ways" in out and out["ways"] != ev["ways"]:
            out["ways_disagree"] = (f"the stride plateau holds {out['ways']} lines, the minimal "
                                    f"eviction sets {ev['ways'] + 1} (ways + 1)")
        if "ways_why" in out:
            out["stride_ways_why"] = out.pop("ways_why")
        out["ways"], out["sets"] = ev["ways"], ev["sets"]
        out["ways_from"] = "minimal eviction sets"
    else:
        out["ways_why"] = "; ".join(w for w in (out.get("ways_why"), "minimal eviction sets: "
                                                + ev["ways_why"]) if w)


def _stops_halving(powers: Mapping[int, int], size: int) -> int | None:
    """The first power-of-two stride S whose ring held the whole capacity (N·S within 15 % of
    C) and after which N no longer halves (N(2S) ≥ 0.9·N(S))."""
    strides = sorted(powers)
    for s, t in zip(strides, strides[1:]):
        if t == 2 * s and abs(powers[s] * s / size - 1) <= 0.15 and powers[t] >= 0.9 * powers[s]:
            return s
    return None


def _index(index: Mapping[int, int], powers: Mapping[int, int], size: int, line: int,
           knee: int | None) -> str:
    """How lines map to sets, from the 3·2^k strides and the fill before the knee."""
    pairs = [(s, s // 3, index[s], powers[s // 3]) for s in index
             if s % 3 == 0 and is_power_of_two(s // 3) and s // 3 >= line and s // 3 in powers]
    differ = [(s, a, b) for s, p, a, b in pairs if abs(a - b) > 0.1 * b]
    uneven = [s for s in powers if line <= s < (knee or 0)
              and abs(powers[s] * s / size - 1) > 0.15]
    said = ", ".join(f"N({s}) = {a} vs N({s // 3}) = {b}" for s, a, b in differ)
    if not pairs:
        return "not tested (no 3·2^k stride with its 2^k beside it)"
    if differ or uneven:
        why = []
        if differ:
            why.append(f"strides 3·2^k hold other counts than 2^k ({said})")
        if uneven:
            why.append("N(S)·S departs from the capacity by > 15 % below the plateau at "
                       + ", ".join(f"{s} B" for s in sorted(uneven)))
        return "hashed (not line mod sets): " + "; ".join(why)
    return (f"line mod sets: N(3·2^k) = N(2^k) at {len(pairs)} strides"
            + (f", N(S)·S = capacity up to the plateau at {knee} B" if knee else ""))

# }}}
