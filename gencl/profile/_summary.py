"""summary.json: the flat, SI-unit view of a profile that other tools (and people) read first.

Its keys are fixed here, once. Analyses name their characteristics by these keys; a key whose
benchmark did not run (or found nothing) is ``null``, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: Keys taken from the device description rather than from a benchmark.
DEVICE_KEYS = ("device", "platform", "driver", "clock_hz", "compute_units")

#: Keys measured by the microbenchmarks, with their units (SI).
MEASURED_KEYS: dict[str, str] = {
    "sp_peak_flops": "FLOP/s",
    "sp_madd_peak_flops": "FLOP/s",
    "dp_peak_flops": "FLOP/s",
    "int_peak_ops": "op/s",
    "native_sf_peak_ops": "op/s",
    "sf_peak_ops": "op/s",
    # the best scalar chain (seed 000's figure; the peaks above include vector-typed chains)
    "sp_madd_scalar_peak_flops": "FLOP/s",
    "dp_scalar_peak_flops": "FLOP/s",
    "int_scalar_peak_ops": "op/s",
    "sp_issue_latency_cycles": "cycles",
    "sp_completion_latency_cycles": "cycles",
    "sp_ridge_work_items": "items",
    "global_read_bw_Bps": "B/s",
    "copy_bw_Bps": "B/s",
    "local_bw_Bps": "B/s",
    "constant_bw_Bps": "B/s",
    "image_read_bw_Bps": "B/s",
    "global_latency_cycles": "cycles",
    "local_latency_cycles": "cycles",
    "constant_latency_cycles": "cycles",
    "private_latency_cycles": "cycles",
    "image_latency_cycles": "cycles",
    "cache_levels": "[{size_bytes: B, latency_cycles: cycles}]",
    # copy bandwidth of buffers reused launch after launch, per footprint (footprint_bandwidth)
    "bandwidth_by_footprint": "[{footprint_bytes: B, bandwidth_Bps: B/s}]",
    "cache_line_bytes": "B",
    "tlb_page_bytes": "B",
    "tlb_levels": "[{entries, reach_bytes, stride_bytes: B, miss_penalty_cycles: cycles}]",
    "l1_line_bytes": "B",
    "l1_sets": "sets",
    "l1_ways": "ways",
    "l2_line_bytes": "B",
    "l2_sets": "sets",
    "l2_ways": "ways",
    "divergence_width_items": "items",
    "h2d_bw_Bps": "B/s",
    "d2h_bw_Bps": "B/s",
    "launch_overhead_s": "s",
    "compile_time_s_per_kloc": "s/kLOC",
    "group_dispatch_s": "s",
    "group_dispatch_cycles_per_cu": "cycles",
    # a copy work item's device-wide seconds once group starts are hidden (workgroup_dispatch's
    # floor T over its n items)
    "item_floor_s": "s",
    "cache_requests_per_s": "requests/s",
    "cache_requests_per_cycle_per_cu": "requests/cycle",
    "l2_requests_per_s": "requests/s",
    "l2_requests_per_cycle_per_cu": "requests/cycle",
    "l2_read_bw_Bps": "B/s",
    "l2_line_requests_per_s": "requests/s",
    "l2_sectors_per_s": "sectors/s",
    # a DRAM stream's best read bandwidth with rows on a line, and 64 bytes into one
    "aligned_rows_read_bw_Bps": "B/s",
    "offset_rows_read_bw_Bps": "B/s",
    # a round of dependent coalesced DRAM loads, per bytes in flight per compute unit
    "round_time_by_inflight": "[{inflight_bytes_per_cu: B, round_s: s}]",
    # one more dependent round whose lines a cache holds, at the heaviest load (cached_rounds)
    "l1_round_s": "s",
    "l2_round_s": "s",
    "cached_round_by_load": "[{level, items_per_cu, round_s: s, dram_round_s: s}]",
    # a rolled in-place loop's wait per sub-group store over lines two sub-groups share
    "store_reload_s": "s",
    "store_reload_by_case": "[{offset_bytes: B, vector_width: lanes, store_reload_s: s}]",
    # a sub-group's store line requests beyond one a line (float8, float16 stores), and how
    # far they overlap the DRAM stream (store_requests: t = (T^p + (E/R)^p)^(1/p))
    "store_requests_per_s": "requests/s",
    "store_request_overlap_exponent": "",
    "barrier_phase_s": "s",
    "barrier_phase_s_per_item": "s/item",
    "barrier_phase_cycles": "cycles",
    "barrier_phase_cycles_per_item": "cycles/item",
    # how far memory and arithmetic overlap (alu_fetch: t = (T^p + (kρ)^p)^(1/p), p → ∞ fully)
    "overlap_scalar_exponent": "",
    "overlap_vector_exponent": "",
    "overlap_exponent_by_vector_width": "[{vector_width: lanes an item, exponent}]",
    # how far a work-group's start overlaps the others' traffic (workgroup_dispatch, same form)
    "dispatch_overlap_exponent": "",
    # how far a gather's line requests (one line a lane) overlap a DRAM stream, at the first
    # level and at the next (request_overlap, same form)
    "first_level_request_overlap_exponent": "",
    "next_level_request_overlap_exponent": "",
    # how far coalesced reads the L2 holds (a stencil's neighbour rows) overlap a DRAM stream
    # (request_overlap, lanes=coalesced, same form)
    "next_level_line_overlap_exponent": "",
    # how far first-level hits (a stencil's cached neighbour rows) overlap the next level's
    # fills (fill_overlap, same form)
    "fill_request_overlap_exponent": "",
    # the same per occupancy: one wave of that many items a compute unit (request_overlap,
    # resident points): the memory units overlap less with fewer items in flight
    "line_overlap_exponent_by_resident": "[{resident_items: items a compute unit, exponent}]",
    # those gathers' own line requests per second, without the stream (request_overlap)
    "first_level_gather_requests_per_s": "requests/s",
    "next_level_gather_requests_per_s": "requests/s",
    "gather_requests_by_footprint": "[{footprint_bytes: B, requests_per_s: requests/s}]",
    # DRAM bandwidth at a work-group height over one row's (row_streams)
    "bandwidth_share_by_group_rows": "[{rows: rows of each array, share}]",
    # DRAM bandwidth of items run one at a time at the rows each walks in all arrays over one
    # row's, its rows in sets of their own or all in one first-level set (column_walk)
    "bandwidth_share_by_item_streams": "[{streams: rows an item walks in all arrays, share}]",
    "bandwidth_share_by_item_set_lines": "[{lines: an item's lines in one set, share}]",
    # elements a second a CPU's packed gathers and scatters move, one an item a lane
    # (lane_gathers)
    "lane_gathers_per_s": "elements/s",
    "lane_scatters_per_s": "elements/s",
    # instructions a second a CPU runtime issues running vector-typed items one at a time, as
    # the model counts them (item_issue)
    "vector_item_issue_per_s": "instructions/s",
}

#: Every key of summary.json, in order.
SUMMARY_KEYS: tuple[str, ...] = DEVICE_KEYS + tuple(MEASURED_KEYS)

#: Rates: when several benchmarks report one, the summary takes the highest (a peak is the best
#: seen); any other key takes the first benchmark's value in suite order.
_PEAK_SUFFIXES = ("_flops", "_ops", "_Bps")


def pick(key: str, candidates: Iterable[tuple[str, Any]]) -> tuple[str, Any] | None:
    """Choose the (benchmark, value) that stands for *key* among several benchmarks' values."""
    found = [(b, v) for b, v in candidates if v is not None]
    if not found:
        return None
    if key.endswith(_PEAK_SUFFIXES) and all(isinstance(v, int | float) for _, v in found):
        return max(found, key=lambda bv: bv[1])
    return found[0]


def build_summary(device: Mapping[str, Any], clock_hz: float | None,
                  values: Mapping[str, Any]) -> dict[str, Any]:
    """The summary dict: device keys from *device*, measured keys from *values* (or None)."""
    out: dict[str, Any] = {
        "device": device.get("name"), "platform": device.get("platform"),
        "driver": device.get("driver"),
        "clock_hz": clock_hz if clock_hz else device.get("max_clock_hz"),
        "compute_units": device.get("compute_units"),
    }
    for key in MEASURED_KEYS:
        out[key] = values.get(key)
    return out
