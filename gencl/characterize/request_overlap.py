"""Cache requests beside a DRAM stream (spec ``request_overlap``): how far a gather's line
requests overlap streamed DRAM traffic.

The model joins its concurrent memory terms by a p-norm, ‖t‖ₚ = (Σ tᵢᵖ)^(1/p), whose exponent
comes from alu_fetch (memory against arithmetic). A gather (``x[col[k]]``: every lane its own
line) costs line requests at the first level, or at the next where the first cannot hold the
gathered array, while the rest of the kernel streams DRAM: spmv_ell. Whether those requests
hide behind the stream is a property of the memory system, measured here. Each item streams
``STREAM_ROWS`` coalesced floats an iteration and gathers G floats of a table one line a lane
(the spec's ``table_index``);
over G the time follows

    t(G) = (T_dram^p + (k·G)^p)^(1/p)

flat while DRAM dominates, then proportional to the requests; p → ∞ is a max (the requests
hide entirely), p = 1 a sum (they share a resource with the stream). The fit is alu_fetch's
(``fit_overlap``), on the points with the stream, per level's table (``LEVEL_TABLES``):
``first`` (8 KiB: in every first-level cache) → ``first_level_request_overlap_exponent``,
``next`` (4 MiB: past a GPU's first level, in its L2) → ``next_level_request_overlap_exponent``.
A fit whose log-time residual exceeds ``OVERLAP_MAX_RMS`` reports no exponent. The points
without the stream give the requests' own rate, the best over G
(``first_level_gather_requests_per_s``, ``next_level_…``): a gather's pattern, where
``cache_requests`` times strided rows whose words share a bank; and over tables of 16 MiB to
1 GiB too, the rate against the footprint (``gather_requests_by_footprint``): a gathered array
the L2 no longer holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.alu_fetch import OVERLAP_MAX_RMS, Balance, fit_overlap

#: coalesced stream floats an item reads per iteration
STREAM_ROWS = 16
#: table bytes by name: in any first-level cache; past a GPU's first level, in its L2; and on
#: past the L2 (the rate by footprint)
TABLE_BYTES = {"8KiB": 8 << 10, "4MiB": 4 << 20, "16MiB": 16 << 20, "64MiB": 64 << 20,
               "256MiB": 256 << 20, "1GiB": 1 << 30}
#: the table each level's overlap is measured on
LEVEL_TABLES = {"first": "8KiB", "next": "4MiB"}
#: summary keys per level: the overlap exponent, and the requests' own rate
EXPONENT_KEYS = {"first": "first_level_request_overlap_exponent",
                 "next": "next_level_request_overlap_exponent"}
RATE_KEYS = {"first": "first_level_gather_requests_per_s",
             "next": "next_level_gather_requests_per_s"}


def bytes_streamed(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Stream bytes one launch reads (0 without the stream)."""
    on = point["stream"] == "on"
    return float(sizes["n"]) * sizes["K"] * STREAM_ROWS * 4 * on


def line_requests(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Line requests of the launch's gathers: one a lane (the spec's ``table_index``)."""
    return float(sizes["n"]) * sizes["K"] * int(point["gathers"])


@analysis("request_overlap")
def analyze_request_overlap(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                            clock_hz: float | None) -> AnalysisResult:
    """Per level, the exponent of the stream's and the requests' overlap."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful request-overlap measurement",))
    chars: list[Characteristic] = []
    notes: list[str] = []
    series_y: dict[str, list[float | None]] = {}
    gathers = sorted({int(r["point"]["gathers"]) for r in ok})
    for level, table in LEVEL_TABLES.items():
        runs = {(int(r["point"]["gathers"]), r["point"]["stream"]): r for r in ok
                if r["point"]["table"] == table}
        for stream in ("on", "off"):
            series_y[f"{level}, stream {stream}"] = [
                float(runs[(g, stream)]["median_s"]) if (g, stream) in runs else None
                for g in gathers]
        rates = {}
        for g in gathers:
            if (g, "off") in runs:
                r = runs[(g, "off")]
                rates[g] = line_requests(r["point"], r["sizes"]) / float(r["median_s"])
                notes.append(f"{level}: {g} gathers an iteration, no stream: "
                             f"{rates[g] / 1e9:.1f}·10⁹ line requests/s")
        if rates:
            # the most gathers an iteration saturate the cache level, not the item's other work
            top = max(rates, key=rates.__getitem__)
            chars.append(Characteristic(
                RATE_KEYS[level], rates[top], "requests/s",
                method=f"line requests (one a lane) over the median time, best over gathers "
                       f"an iteration without the stream, from a {table} table",
                variants=(runs[(top, "off")]["variant_id"],)))
        alone = runs.get((0, "on"))
        both = sorted((g, float(r["median_s"])) for (g, s), r in runs.items()
                      if s == "on" and g > 0)
        requests_only = sorted((g, float(r["median_s"])) for (g, s), r in runs.items()
                               if s == "off" and g > 0)
        if alone is None or len(both) < 3 or not requests_only:
            notes.append(f"{level}: too few points for an overlap fit")
            continue
        t_dram = float(alone["median_s"])
        g_top, t_top = requests_only[-1]
        start = Balance(t_dram, t_top / g_top, 0.0, float(both[0][0]), float(both[-1][0]))
        fit = fit_overlap([g for g, _ in both], [t for _, t in both], start)
        notes.append(f"{level}: stream alone {t_dram * 1e6:.1f} µs; fit T_dram "
                     f"{fit.t_mem * 1e6:.1f} µs, {fit.slope * 1e6:.2f} µs a gather, exponent "
                     f"{fit.exponent:.2f} (log-time RMS {fit.rms_log_error:.3f})")
        if fit.rms_log_error > OVERLAP_MAX_RMS:
            notes.append(f"{level}: the overlap form does not fit (RMS above "
                         f"{OVERLAP_MAX_RMS}): no exponent")
            continue
        chars.append(Characteristic(
            EXPONENT_KEYS[level], fit.exponent, "",
            method="t(G) = (T_dram^p + (k·G)^p)^(1/p) fitted in log time to a coalesced "
                   f"DRAM stream beside G gathers an iteration, one line a lane, from a "
                   f"{table} table",
            variants=tuple(runs[(g, "on")]["variant_id"] for g, _ in both)))
    by_size: dict[int, float] = {}
    for r in ok:
        if r["point"]["stream"] == "off" and int(r["point"]["gathers"]) > 0:
            size = TABLE_BYTES[r["point"]["table"]]
            rate = line_requests(r["point"], r["sizes"]) / float(r["median_s"])
            by_size[size] = max(by_size.get(size, 0.0), rate)
    if by_size:
        curve = [{"footprint_bytes": size, "requests_per_s": by_size[size]}
                 for size in sorted(by_size)]
        chars.append(Characteristic(
            "gather_requests_by_footprint", curve,
            "[{footprint_bytes: B, requests_per_s: requests/s}]",
            method="per table size, line requests (one a lane) over the median time, best over "
                   "gathers an iteration without the stream"))
        notes += [f"{size >> 10} KiB table: {by_size[size] / 1e9:.1f}·10⁹ line requests/s"
                  for size in sorted(by_size)]
    series: dict[str, Any] = {"request_overlap_time_vs_gathers": {
        "title": "A DRAM stream beside gathers (one line a lane) vs gathers an iteration",
        "x": gathers, "y": series_y, "xlabel": "gathers an iteration",
        "ylabel": "time (s)", "xscale": "linear", "yscale": "log"}}
    if by_size:
        series["request_overlap_rate_vs_footprint"] = {
            "title": "Gathers (one line a lane, no stream) vs the table's footprint",
            "x": sorted(by_size), "y": {"line requests/s": [by_size[k] for k in sorted(by_size)]},
            "xlabel": "table bytes", "ylabel": "line requests/s", "xscale": "log",
            "yscale": "log"}
    return AnalysisResult(tuple(chars), series, notes=tuple(notes))
