"""Load rounds under load (spec ``load_rounds``): how long one round of a loop's loads takes when
every resident item waits for its own.

A stencil's loop (a stream along a plane, a tile's fetch loop) issues one round of loads per
iteration and waits for them before the next: ``_stats._item_trace`` counts those rounds, and
the model charges waves × rounds × one round's latency. ``random_walk`` measures that latency
with one load in flight on the whole device (Λ, unloaded). A stencil keeps every resident item's
round in flight at once: its round waits behind the others' bytes. This benchmark measures the
round time at a given number of bytes in flight per compute unit:

    bytes in flight per CU = items per CU × chains × 4 B
    round time             = kernel time / steps

Every item walks ``chains`` independent dependent chains; at each step the lanes of a sub-group
read consecutive 4-byte words of one row (one coalesced load, like a stream's row), and the
next row's address is the word read. The rows lie far beyond the last-level cache, so every
step is a DRAM round. Little's law joins the two ends: at few bytes in flight the round is Λ,
at many it is bytes in flight × compute units / DRAM bandwidth; the benchmark measures what lies
between (the knee where queueing starts), and how far above Λ a round is once DRAM is busy.

``round_time_by_inflight`` ([{inflight_bytes_per_cu, round_s}], smallest in flight first) is
the best round time at each in-flight size; the series plots every point by chains.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis

#: Bytes one chain step reads per item (a 32-bit index).
WORD_BYTES = 4


def inflight_bytes_per_cu(point: Mapping[str, Any]) -> int:
    """Bytes one compute unit keeps in flight during a round of *point*."""
    return int(point["items_per_cu"]) * int(point["chains"]) * WORD_BYTES


def steps(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Rounds one launch runs (every item's chains take a step each)."""
    return float(sizes["K"])


def bytes_read(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Bytes the lanes of one launch read."""
    return float(sizes["m"]) * int(point["chains"]) * WORD_BYTES * float(sizes["K"])


def round_time(record: Mapping[str, Any]) -> float:
    """Seconds of one round of *record*'s launch."""
    return float(record["median_s"]) / steps(record["point"], record["sizes"])


@analysis("load_rounds")
def analyze_load_rounds(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                        clock_hz: float | None) -> AnalysisResult:
    """round_time_by_inflight: per bytes in flight per compute unit, the best round time."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful load-round measurement",))
    best: dict[int, Mapping[str, Any]] = {}
    for r in ok:
        x = inflight_bytes_per_cu(r["point"])
        if x not in best or round_time(r) < round_time(best[x]):
            best[x] = r
    inflight = sorted(best)
    curve = [{"inflight_bytes_per_cu": x, "round_s": round_time(best[x])} for x in inflight]
    chars = [Characteristic(
        "round_time_by_inflight", curve, "[{inflight_bytes_per_cu: B, round_s: s}]",
        method="per bytes in flight per compute unit (items per CU × chains × 4 B), the best "
               "median kernel time over steps of dependent coalesced DRAM rounds",
        variants=tuple(best[x]["variant_id"] for x in inflight))]
    notes = []
    for r in sorted(ok, key=lambda r: (int(r["point"]["chains"]), inflight_bytes_per_cu(
            r["point"]))):
        t = round_time(r)
        bw = bytes_read(r["point"], r["sizes"]) / float(r["median_s"])
        cycles = f", {t * clock_hz:.0f} cycles" if clock_hz else ""
        notes.append(f"items_per_cu={r['point']['items_per_cu']}, chains="
                     f"{r['point']['chains']}: {inflight_bytes_per_cu(r['point'])} B in flight "
                     f"per CU, round {t * 1e9:.0f} ns{cycles}, {bw / 1e9:.1f} GB/s")
    by_chains: dict[str, list[float | None]] = {}
    for c in sorted({int(r["point"]["chains"]) for r in ok}):
        got = {inflight_bytes_per_cu(r["point"]): round_time(r) for r in ok
               if int(r["point"]["chains"]) == c}
        by_chains[f"{c} chain{'s' if c > 1 else ''}"] = [got.get(x) for x in inflight]
    series = {"round_time_vs_inflight": {
        "title": "Round time of dependent DRAM loads vs bytes in flight per compute unit",
        "x": inflight, "y": by_chains, "xlabel": "bytes in flight per compute unit",
        "ylabel": "round time (s)", "xscale": "log", "yscale": "log"}}
    return AnalysisResult(tuple(chars), series, notes=tuple(notes))
