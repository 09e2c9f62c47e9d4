"""Cache requests beside a DRAM stream (spec ``request_overlap``): how far a gather's line
requests, and a stencil's coalesced ones, overlap streamed DRAM traffic.

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

The same fit over coalesced reads of the next level's table (``lanes=coalesced``: a
sub-group's 32 lanes one 128-byte line, as a stencil's neighbour rows that the L2 holds) gives
``next_level_line_overlap_exponent``: how far the requests a stencil's halo rows and neighbour
planes make of the L2 hide behind its DRAM stream. The same fit again per occupancy (the
``resident`` points: one wave of that many items a compute unit) gives
``line_overlap_exponent_by_resident``: with fewer items in flight the units overlap less
(the exponent falls towards 1, a sum). The model does not read it yet: taken as how far its
memory units' exponent falls at a kernel's own occupancy, it over-priced every kernel's
low-occupancy streams (docs/tuning.md, "The memory units' overlap at a kernel's occupancy").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.alu_fetch import OVERLAP_MAX_RMS, Balance, Overlap, fit_overlap

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
#: summary key of the coalesced reads' overlap exponent, per level they are read at (the next)
LINE_EXPONENT_KEYS = {"next": "next_level_line_overlap_exponent"}
#: summary key of the coalesced reads' overlap exponent per occupancy (items a compute unit)
RESIDENT_EXPONENT_KEY = "line_overlap_exponent_by_resident"
#: lanes a 128-byte line holds floats of: a coalesced read's lanes per line request
LANES_PER_LINE = 32


def resident_of(point: Mapping[str, Any]) -> int:
    """Items a compute unit the point runs at once (0: the many-wave launch; records from
    before the occupancy points have none)."""
    return int(point.get("resident", 0))


def lanes_of(point: Mapping[str, Any]) -> str:
    """The point's lane pattern (records from before the coalesced reads: ``spread``)."""
    return str(point.get("lanes", "spread"))


def bytes_streamed(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Stream bytes one launch reads (0 without the stream)."""
    on = point["stream"] == "on"
    return float(sizes["n"]) * sizes["K"] * STREAM_ROWS * 4 * on


def line_requests(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Line requests of the launch's table reads: one a lane (the spec's ``table_index``), or
    one a sub-group of 32 lanes where the reads are coalesced."""
    per_read = 1.0 / LANES_PER_LINE if lanes_of(point) == "coalesced" else 1.0
    return float(sizes["n"]) * sizes["K"] * int(point["gathers"]) * per_read


@analysis("request_overlap")
def analyze_request_overlap(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                            clock_hz: float | None) -> AnalysisResult:
    """Per level, the exponent of the stream's and the requests' overlap."""
    every = ok_records(records)
    if not every:
        return AnalysisResult((), notes=("no successful request-overlap measurement",))
    ok = [r for r in every if not resident_of(r["point"])]
    chars: list[Characteristic] = []
    notes: list[str] = []
    series_y: dict[str, list[float | None]] = {}
    gathers = sorted({int(r["point"]["gathers"]) for r in ok})
    for level, table in LEVEL_TABLES.items():
        at_table = [r for r in ok if r["point"]["table"] == table]
        # the stream alone reads no table: one point for both lane patterns
        alone = next((r for r in at_table
                      if int(r["point"]["gathers"]) == 0 and r["point"]["stream"] == "on"), None)
        patterns = [("spread", EXPONENT_KEYS[level])]
        if level in LINE_EXPONENT_KEYS:
            patterns.append(("coalesced", LINE_EXPONENT_KEYS[level]))
        for lanes, exponent_key in patterns:
            runs = {(int(r["point"]["gathers"]), r["point"]["stream"]): r for r in at_table
                    if lanes_of(r["point"]) == lanes and int(r["point"]["gathers"]) > 0}
            if not runs:
                continue
            label = level if lanes == "spread" else f"{level}, coalesced"
            for stream in ("on", "off"):
                series_y[f"{label}, stream {stream}"] = [
                    float(runs[(g, stream)]["median_s"]) if (g, stream) in runs
                    else float(alone["median_s"]) if alone and g == 0 and stream == "on"
                    else None for g in gathers]
            rates = {}
            for g in sorted(g for g, stream in runs if stream == "off"):
                r = runs[(g, "off")]
                rates[g] = line_requests(r["point"], r["sizes"]) / float(r["median_s"])
                notes.append(f"{label}: {g} reads an iteration, no stream: "
                             f"{rates[g] / 1e9:.1f}·10⁹ line requests/s")
            if rates and lanes == "spread":
                # the most gathers an iteration saturate the cache level, not the item's work
                top = max(rates, key=rates.__getitem__)
                chars.append(Characteristic(
                    RATE_KEYS[level], rates[top], "requests/s",
                    method=f"line requests (one a lane) over the median time, best over "
                           f"gathers an iteration without the stream, from a {table} table",
                    variants=(runs[(top, "off")]["variant_id"],)))
            fit = stream_overlap_fit(alone, runs, label, notes)
            if fit is None:
                continue
            what = "gathers an iteration, one line a lane" if lanes == "spread" else \
                "coalesced reads an iteration, a sub-group's lanes one line"
            chars.append(Characteristic(
                exponent_key, fit.exponent, "",
                method="t(G) = (T_dram^p + (k·G)^p)^(1/p) fitted in log time to a coalesced "
                       f"DRAM stream beside G {what}, from a {table} table",
                variants=tuple(runs[(g, "on")]["variant_id"]
                               for g, s in sorted(runs) if s == "on")))
    by_resident = _overlap_by_resident(every, notes)
    if by_resident:
        chars.append(Characteristic(
            RESIDENT_EXPONENT_KEY, [{"resident_items": k, "exponent": fit.exponent}
                                    for k, fit in by_resident.items()],
            "[{resident_items: items a compute unit, exponent}]",
            method="the coalesced reads' fit at each occupancy: one wave of resident_items "
                   "items a compute unit, the stream as long as the many-wave launch's",
            variants=tuple(r["variant_id"] for r in every
                           if resident_of(r["point"]) in by_resident
                           and r["point"]["stream"] == "on")))
    by_size: dict[int, float] = {}
    for r in ok:
        if r["point"]["stream"] == "off" and int(r["point"]["gathers"]) > 0 \
                and lanes_of(r["point"]) == "spread":
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
        "title": "A DRAM stream beside gathers (one line a lane) or coalesced reads, vs reads "
                 "an iteration",
        "x": gathers, "y": series_y, "xlabel": "table reads an iteration",
        "ylabel": "time (s)", "xscale": "linear", "yscale": "log"}}
    if by_size:
        series["request_overlap_rate_vs_footprint"] = {
            "title": "Gathers (one line a lane, no stream) vs the table's footprint",
            "x": sorted(by_size), "y": {"line requests/s": [by_size[k] for k in sorted(by_size)]},
            "xlabel": "table bytes", "ylabel": "line requests/s", "xscale": "log",
            "yscale": "log"}
    if by_resident:
        series["request_overlap_exponent_vs_resident"] = {
            "title": "Coalesced reads beside a DRAM stream: overlap exponent by occupancy",
            "x": list(by_resident), "y": {"exponent": [f.exponent for f in by_resident.values()]},
            "xlabel": "resident items a compute unit", "ylabel": "overlap exponent",
            "xscale": "log", "yscale": "linear"}
    return AnalysisResult(tuple(chars), series, notes=tuple(notes))


def _overlap_by_resident(records: Sequence[Mapping[str, Any]], notes: list[str]
                         ) -> dict[int, Overlap]:
    """The coalesced reads' overlap fit at each occupancy that fits, fewest items first."""
    out: dict[int, Overlap] = {}
    for resident in sorted({resident_of(r["point"]) for r in records} - {0}):
        here = [r for r in records if resident_of(r["point"]) == resident
                and r["point"]["table"] == LEVEL_TABLES["next"]]
        alone = next((r for r in here if int(r["point"]["gathers"]) == 0
                      and r["point"]["stream"] == "on"), None)
        runs = {(int(r["point"]["gathers"]), r["point"]["stream"]): r for r in here
                if lanes_of(r["point"]) == "coalesced" and int(r["point"]["gathers"]) > 0}
        fit = stream_overlap_fit(alone, runs, f"coalesced, {resident} items a compute unit",
                                 notes)
        if fit is not None:
            out[resident] = fit
    return out


def stream_overlap_fit(alone: Mapping[str, Any] | None,
                       runs: Mapping[tuple[int, str], Mapping[str, Any]], label: str,
                       notes: list[str], stream_reads: int = 0) -> Overlap | None:
    """alu_fetch's overlap fit over the points with the stream (G reads > 0) and the stream
    alone; None (and why, in *notes*) where the points are too few or the form does not fit.
    *runs*: the points by (reads an iteration, ``"on"`` with the stream or ``"off"``), the
    stream a DRAM one here and the next level's in fill_overlap. *stream_reads*: the reads an
    iteration of the stream's own that the requests' term counts too (fill_overlap's fills
    are first-level requests as well): the fit's abscissa is G + that on the points with it."""
    both = sorted((g + stream_reads, float(r["median_s"])) for (g, s), r in runs.items()
                  if s == "on")
    requests_only = sorted((g, float(r["median_s"])) for (g, s), r in runs.items()
                           if s == "off")
    if alone is None or len(both) < 3 or not requests_only:
        notes.append(f"{label}: too few points for an overlap fit")
        return None
    t_dram = float(alone["median_s"])
    g_top, t_top = requests_only[-1]
    start = Balance(t_dram, t_top / g_top, 0.0, float(both[0][0]), float(both[-1][0]))
    fit = fit_overlap([g for g, _ in both], [t for _, t in both], start)
    notes.append(f"{label}: stream alone {t_dram * 1e6:.1f} µs; fit T_stream "
                 f"{fit.t_mem * 1e6:.1f} µs, {fit.slope * 1e6:.2f} µs a read, exponent "
                 f"{fit.exponent:.2f} (log-time RMS {fit.rms_log_error:.3f})")
    if fit.rms_log_error > OVERLAP_MAX_RMS:
        notes.append(f"{label}: the overlap form does not fit (RMS above "
                     f"{OVERLAP_MAX_RMS}): no exponent")
        return None
    return fit
