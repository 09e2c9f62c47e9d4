"""First-level hits beside next-level fills (spec ``fill_overlap``): how far the requests a
stencil's cached neighbour rows make of the first level overlap the lines its work-groups fetch
from the next.

A 3-D stencil's items that do not stream along an axis read their own plane's neighbour rows
from the first level (requests: ``cache_requests``' rate) and the neighbouring planes' from the
next (fills: ``l2_read_bw_Bps`` and its line and sector rates). The model joins its memory terms
by the memory units' exponent (alu_fetch: memory against arithmetic); whether these two share a
resource or hide one behind the other is measured here. Each item reads ``FILL_ROWS``
coalesced floats an iteration of a table the next level holds and the first does not, and
G coalesced floats of one the first level holds; over G the time follows

    t(G) = (T_fill^p + (k·G)^p)^(1/p)

flat while the fills dominate, then proportional to the hits; p → ∞ a max (the hits hide
entirely), p = 1 a sum. The model counts every line request of a kernel at the first level,
the fills' too (each passes through it on its way to the next), and joins that count's time to
the fills' by the exponent: so the figure is fitted with the requests the model would count,
G + F an iteration, in place of G. The fit is request_overlap's (``stream_overlap_fit``,
alu_fetch's form); the points without the fills give the hits' own rate.
``fill_request_overlap_exponent`` = p where the fit's log-time residual is within
``OVERLAP_MAX_RMS``; the fit over G alone is in the notes. The H200 (2026-12-02): p = 1.78 over
G + F, 1.54 over G alone (log-time RMS 0.02 both); the hits alone 240·10⁹ line requests/s at
64 an iteration, as cache_requests' 253·10⁹. On a CPU both tables are in its caches, and the
figure says how a core's loads of the two overlap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.characterize.request_overlap import LANES_PER_LINE, stream_overlap_fit

#: coalesced floats an item reads of the next level's table an iteration: few, so that the
#: hits outrun the fills within the 64 an iteration reads at most (a first level serves a
#: line request about 3.5 times as fast as the next a line: the H200's cache_requests and
#: l2_read_bw_Bps)
FILL_ROWS = 4
#: the next level's table: no GPU's first level holds it, its L2 does (request_overlap's
#: ``next`` table); the first level's: any first-level cache holds it
FILLS_BYTES = 4 << 20
HITS_BYTES = 16 << 10
#: the summary key of the fitted exponent
EXPONENT_KEY = "fill_request_overlap_exponent"


def fill_bytes(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Bytes one launch reads of the next level's table (0 without the fills)."""
    return float(sizes["n"]) * sizes["K"] * FILL_ROWS * 4 * (point["fills"] == "on")


def hit_requests(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Line requests of one launch's first-level reads: one a sub-group of 32 lanes."""
    return float(sizes["n"]) * sizes["K"] * int(point["hits"]) / LANES_PER_LINE


@analysis("fill_overlap")
def analyze_fill_overlap(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                         clock_hz: float | None) -> AnalysisResult:
    """The exponent of the fills' and the hits' overlap, and the hits' own rate."""
    ok = ok_records(records)
    if not ok:
        return AnalysisResult((), notes=("no successful fill-overlap measurement",))
    notes: list[str] = []
    alone = next((r for r in ok if int(r["point"]["hits"]) == 0
                  and r["point"]["fills"] == "on"), None)
    runs = {(int(r["point"]["hits"]), r["point"]["fills"]): r for r in ok
            if int(r["point"]["hits"]) > 0}
    hits = sorted({int(r["point"]["hits"]) for r in ok})
    series_y = {f"fills {fills}": [
        float(runs[(g, fills)]["median_s"]) if (g, fills) in runs
        else float(alone["median_s"]) if alone and g == 0 and fills == "on" else None
        for g in hits] for fills in ("on", "off")}
    for g in sorted(g for g, fills in runs if fills == "off"):
        r = runs[(g, "off")]
        notes.append(f"{g} first-level reads an iteration, no fills: "
                     f"{hit_requests(r['point'], r['sizes']) / float(r['median_s']) / 1e9:.1f}"
                     "·10⁹ line requests/s")
    if alone is not None:
        rate = fill_bytes(alone["point"], alone["sizes"]) / float(alone["median_s"])
        notes.append(f"the fills alone: {rate / 1e12:.2f}·10¹² B/s from the next level")
    chars: list[Characteristic] = []
    # the hits alone against the fills, for the record; the figure counts the fills' own line
    # requests among the first level's, as the model's requests term does
    stream_overlap_fit(alone, runs, "first-level reads beside the fills (G)", notes)
    fit = stream_overlap_fit(alone, runs, "first-level requests beside the fills (G + F)",
                             notes, stream_reads=FILL_ROWS)
    if fit is not None:
        chars.append(Characteristic(
            EXPONENT_KEY, fit.exponent, "",
            method=f"t = (T_fill^p + (k·(G + {FILL_ROWS}))^p)^(1/p) fitted in log time to "
                   f"{FILL_ROWS} coalesced reads an iteration of a {FILLS_BYTES >> 20} MiB "
                   "table (the next level's; each a first-level request too) beside G of a "
                   f"{HITS_BYTES >> 10} KiB one (the first level's)",
            variants=tuple(runs[(g, s)]["variant_id"] for g, s in sorted(runs) if s == "on")))
    series = {"fill_overlap_time_vs_hits": {
        "title": "Next-level fills beside first-level hits, vs hits an iteration",
        "x": hits, "y": series_y, "xlabel": "first-level reads an iteration",
        "ylabel": "time (s)", "xscale": "linear", "yscale": "log"}}
    return AnalysisResult(tuple(chars), series, notes=tuple(notes))
