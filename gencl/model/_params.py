"""What the model needs to know about a device: measured where a profile has it, else nominal.

The model is fed a typed ``DeviceProfile`` (``gencl profile``'s profile.json), never a path guessed
from the working directory. Where no profile is given, the committed profile of the device's slug
is looked up under the results root: ``$GENCL_RESULTS`` or the ``bench_results/`` folder of the
checkout gencl runs from — the same answer from every working directory. Every number falls back
to a nominal value derived from the OpenCL device description when the profile lacks it, and
``ModelParams.sources`` says which numbers were measured and which were guessed, so
``gencl explain`` can show it and warn when a guessed number decides the bottleneck.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gencl.characterize._hardware import warp_width

if TYPE_CHECKING:
    from gencl.profile import DeviceProfile


@dataclass(frozen=True)
class ModelParams:
    """Device parameters in SI units (rates per second, latencies in seconds)."""

    device: str
    clock_hz: float
    compute_units: int
    subgroup_size: int
    sp_flops: float            # fp32 multiply-add peak (2 FLOP per madd)
    dp_flops: float
    int_ops: float
    sf_ops: float              # special functions (sin, exp, ...)
    dram_bw: float             # copy bandwidth (reads + writes)
    local_bw: float
    global_latency_s: float
    local_latency_s: float
    sp_issue_latency_s: float
    ridge_items_per_cu: float  # work items per compute unit at which fp32 reaches its peak
    max_resident_per_cu: int
    cache_bytes: int           # largest measured (or reported) global-memory cache
    cached: bool               # global loads are served by a cache (seed 003 §4: local memory only
    #                            pays where they are not)
    line_bytes: int
    sector_bytes: int
    launch_s: float
    group_dispatch_s: float    # device-wide seconds per work-group when groups are tiny
    cache_requests_per_s: float  # device-wide cache-line requests (sub-group instruction × line)
    request_line_bytes: int    # the line one request serves
    lane_access_bytes: int     # widest access one lane makes in one instruction
    barrier_group_s: float     # one barrier of one work-group, on its compute unit: a + b·size
    barrier_item_s: float
    divergence_width: int
    # vector-typed chains' peaks (the chain benchmark's overall peak), for vectorized variants
    # (gencl.model._vector_rate); the scalar figures above price the rest
    sp_vector_flops: float = 0.0
    dp_vector_flops: float = 0.0
    int_vector_ops: float = 0.0
    registers_per_cu: int = 0  # 32-bit registers one compute unit holds (0: no limit known)
    cache_level_bytes: tuple[int, ...] = ()  # measured cache levels, smallest first
    # the cache that spares DRAM a re-read: the largest measured level answering within half
    # the DRAM latency (H200: the 27 MB level at 288 of 691 cycles; its 54.6 MB level answers
    # at 533, lines another L2 partition holds, over the crossbar); 0: cache_bytes
    reuse_cache_bytes: int = 0
    # latency of the largest measured cache level (H200: the 54.6 MB level, 533 cycles: lines
    # the other L2 partition holds); a load round whose loads re-read lines other work-groups
    # brought in waits for the slowest of them there, not in DRAM (memory latency term);
    # 0: not measured, every round at the DRAM latency
    reread_latency_s: float = 0.0
    # requests that miss the first-level cache and are served by the next level (cache_requests
    # benchmark, level 2); 0: not priced apart
    l2_requests_per_s: float = 0.0
    # bytes/s the next level delivers to the first (cache_requests benchmark, level 2: whole
    # lines); a work-group's first-level fills are priced by it where the split below is
    # missing; 0: not measured, not priced
    l2_bw: float = 0.0
    # the next level's line requests and sectors per second (the same points' fit: t =
    # requests / R + sectors / S): a work-group's fills priced by both (a halo's side sector
    # costs a request of its own); 0: not measured
    l2_line_requests_per_s: float = 0.0
    l2_sectors_per_s: float = 0.0
    # how the concurrent terms combine: (Σ termᵖ)^(1/p), scalar and vector-typed code (alu_fetch's
    # overlap fit); ∞ where not measured: the slowest term alone (a roofline's max)
    overlap_scalar_exponent: float = math.inf
    overlap_vector_exponent: float = math.inf
    # how the work-group dispatch term combines with the rest (workgroup_dispatch's overlap fit:
    # a group's start overlaps the other groups' traffic); ∞ where not measured: the max, as
    # that benchmark's own fit assumes
    dispatch_overlap_exponent: float = math.inf
    # a gather's line requests (one line a lane) per second at the first level and at the next,
    # and how far each overlaps the rest of the memory traffic (request_overlap: a DRAM stream
    # beside them); 0 / the scalar exponent where not measured
    first_gather_requests_per_s: float = 0.0
    next_gather_requests_per_s: float = 0.0
    first_request_overlap_exponent: float = math.inf
    next_request_overlap_exponent: float = math.inf
    # how far the first level's requests overlap the next level's fills (fill_overlap: requests
    # that hit the first level beside coalesced reads it misses); the memory units' exponent
    # where not measured
    fill_request_overlap_exponent: float = math.inf
    # DRAM latency is hidden by the resident items' outstanding loads (Little's law over items:
    # a GPU); False: a CPU core keeps a work-item loop's loads in flight with its out-of-order
    # window and prefetchers, however few items it runs
    little_over_items: bool = True
    # warp instructions a GPU issues, in lanes: one a lane a cycle, the scalar multiply-add
    # chains' peak / 2 (a madd is 2 flops). Every operation loopy counts takes one, a memory
    # access one a 16-byte chunk (the H200's temporal streams executed 0.91–1.58× loopy's count
    # of them, under Nsight Compute). 0: no issue bound (a CPU runtime vectorizes and fuses
    # what loopy counts per item)
    lane_issue_per_s: float = 0.0
    # a CPU runtime vectorizes its loop over a work-group's items (subgroup_size lanes) except
    # across work-group barriers, where it keeps each item's state in memory and runs the items
    # one at a time (PoCL: barrier_phase's tile costs 4 ns an item more than the plain kernel);
    # True where the scalar chains ran faster than a core issues scalar multiply-adds, i.e. the
    # runtime did vectorize them across items
    barriers_serialize_items: bool = False
    # instructions per second, all compute units, of work items run one at a time (no item a
    # lane): what a variant whose build left its items unvectorized issues at, on a runtime
    # whose chains were vectorized across items (_predict.item_issue_time); nominal: two a
    # cycle a compute unit; 0: no such figure (a GPU)
    item_issue_per_s: float = 0.0
    # elements per second, all compute units, that a CPU's packed gather and scatter
    # instructions move (one an item a lane) where its runtime vectorized a work-group's items
    # with them (lane_gathers; _predict.lane_gather_time); nominal: one every two cycles a
    # compute unit; 0: none (a GPU: its lanes load and store on their own)
    lane_gathers_per_s: float = 0.0
    lane_scatters_per_s: float = 0.0
    # the compiler unrolls a tile's fetch loop, a block's loads issued together
    # (_stats._fetch_unrolled_rounds: NVIDIA's ptxas, read from its SASS); taken for any GPU,
    # the only GPU compiler gencl has met. A CPU runtime's loop is priced a round a pass
    fetch_loops_unrolled: bool = True
    # a loop a work item runs along the contiguous axis is vectorized by the compiler (a CPU
    # runtime: LLVM's loop vectorizer), so its iterations share line requests; a GPU thread
    # issues each iteration's access on its own
    vectorizes_loops: bool = False
    # why no measured number priced this device though its slug has a committed profile (that
    # profile was measured on another device: same runtime, another CPU); "" otherwise
    profile_note: str = ""
    # (footprint bytes, copy bandwidth) of buffers reused launch after launch, smallest first
    # (footprint_bandwidth); (): dram_bw at every footprint
    footprint_bandwidths: tuple[tuple[float, float], ...] = ()
    # (rows of each array a work-group touches, share of one row's DRAM bandwidth), fewest
    # rows first (row_streams); (): the same bandwidth at every height
    group_row_shares: tuple[tuple[float, float], ...] = ()
    # (rows one item walks in all arrays, share of one row's DRAM bandwidth), fewest first, of
    # items a CPU runtime runs one at a time, each row of an array in a set of its own
    # (column_walk's offset rows); (): no share
    item_stream_shares: tuple[tuple[float, float], ...] = ()
    # (the most of one item's lines in one first-level set, share), fewest first (column_walk's
    # aliased rows: every row in one set); (): no share
    item_set_line_shares: tuple[tuple[float, float], ...] = ()
    # (table bytes, line requests per second) of gathers one line a lane, smallest first
    # (request_overlap); (): the next level's one rate at every footprint
    gather_rates: tuple[tuple[float, float], ...] = ()
    # (bytes in flight per compute unit, seconds) of one round of dependent coalesced DRAM loads
    # with every resident item's round in flight at once, smallest first (load_rounds); ():
    # Little's law with a soft knee from global_latency_s and dram_bw (_predict.loaded_round_s)
    round_times: tuple[tuple[float, float], ...] = ()
    # seconds one more load round takes whose lines the last level holds, every resident item
    # waiting for its own (cached_rounds' l2_round_s): the rounds ptxas schedules in a loop
    # pass beyond the one that reads a new row (_schedule.scheduled_loop_rounds); nominal: the
    # largest cache level's latency (reread_latency_s), 0 where none was measured
    cached_round_s: float = 0.0
    # seconds a compute unit spends per sub-group store that a later load of the same array
    # waits for, where the array's lines are shared between sub-groups (store_reload);
    # 0: not measured, not priced
    store_reload_s: float = 0.0
    # device-wide seconds per work item under which no GPU launch runs (workgroup_dispatch's
    # floor: items that each load and store one float, group starts hidden); 0: not measured,
    # no floor
    item_floor_s: float = 0.0
    # a sub-group's store line requests beyond one a line (a float8 or float16 store's lanes lie
    # 32 or 64 bytes apart: each 16-byte chunk instruction writes part of 8 or 16 lines) per
    # second, and how far they overlap the other memory terms (store_requests: the H200's
    # streams at float8 and float16); 0: not measured, those requests priced as any other
    store_requests_per_s: float = 0.0
    store_request_overlap_exponent: float = math.inf
    sources: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict
        return asdict(self)


#: FLOP a CPU core issues per cycle in scalar code: two fused multiply-adds (x86 since Haswell).
#: Scalar chains measured faster than this were vectorized across work items by the runtime
#: (pocl-local-cpu: 11 a cycle; pocl-cpu: 2.2, not vectorized)
SCALAR_FLOPS_PER_CYCLE = 4.0


def _num(summary: Mapping[str, Any], key: str) -> float | None:
    value = summary.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def params_from(summary: Mapping[str, Any], device: Mapping[str, Any]) -> ModelParams:
    """Model parameters from a summary dict (may be empty) and a DeviceInfo JSON dict."""
    sources: dict[str, str] = {}
    is_gpu = str(device.get("device_type", "")).upper() == "GPU"
    clock = _num(summary, "clock_hz") or float(device.get("max_clock_hz") or 1e9)
    cus = int(summary.get("compute_units") or device.get("compute_units") or 1)
    # the same sub-group width the cache_requests analysis counted with (CPU: SIMD lanes)
    sg = int(warp_width(device)[0] or (32 if is_gpu else 8))

    def get(key: str, nominal: float, accept: Any = lambda v: v > 0) -> float:
        # a measured number the profile has and *accept* takes (positive by default; a fit's
        # intercept may be negative, a flat dispatch curve's cost 0), else the nominal one
        value = summary.get(key)
        ok = isinstance(value, int | float) and not isinstance(value, bool) and accept(value)
        sources[key] = "measured" if ok else "nominal"
        return float(value) if ok else nominal  # type: ignore[arg-type]

    def rate(key: str, nominal: float) -> float:
        # the model was calibrated on scalar chains: their best rate where the profile has it
        # (the chain benchmark's peak itself may come from vector-typed chains)
        scalar = key.replace("_peak_", "_scalar_peak_", 1)
        if _num(summary, scalar) is not None:
            sources[key] = "measured"  # the figure a term names (TERM_SOURCES) is measured
            return get(scalar, nominal)
        return get(key, nominal)

    # nominal: a GPU lane does one madd per cycle, a CPU core 2×8-wide fma per cycle
    lanes = cus * (128 if is_gpu else 16)
    sp = rate("sp_madd_peak_flops", 2.0 * lanes * clock)
    dram = get("copy_bw_Bps", 2e12 if is_gpu else 2e10)
    levels = summary.get("cache_levels") or []
    sizes = [int(lv.get("size_bytes") or 0) for lv in levels if isinstance(lv, Mapping)]
    cache = max(sizes) if sizes else int(device.get("global_cache_bytes") or 0)
    sources["cache_levels"] = "measured" if sizes else "nominal"
    line = int(_num(summary, "cache_line_bytes") or device.get("global_cacheline_bytes") or 64)
    glat_cycles = get("global_latency_cycles", 500.0 if is_gpu else 200.0)
    glat = glat_cycles / clock
    near = [int(lv.get("size_bytes") or 0) for lv in levels if isinstance(lv, Mapping)
            and float(lv.get("latency_cycles") or 0.0) <= 0.5 * glat_cycles]
    timed = [(int(lv.get("size_bytes") or 0), float(lv.get("latency_cycles") or 0.0))
             for lv in levels if isinstance(lv, Mapping) and _num(lv, "latency_cycles")]
    # the largest cache level's latency: a re-read round's (and a cached round's, nominal)
    reread = max(timed)[1] / clock if timed else 0.0
    ridge = get("sp_ridge_work_items", 1024.0 if is_gpu else 16.0)
    def vector(key: str, scalar_rate: float) -> float:
        # the chain benchmark's peak over its vector-typed chains, where the profile also has
        # the scalar figure apart (else one figure for both: no vector figure measured)
        scalar = key.replace("_peak_", "_scalar_peak_", 1)
        value = _num(summary, key) if _num(summary, scalar) is not None else None
        sources[f"{key} (vector)"] = "measured" if value is not None else "nominal"
        return value if value is not None else scalar_rate

    def curve(key: str, x: str, y: str) -> list[tuple[float, float]]:
        # a measured curve ([{x: …, y: …}], points with both numbers), smallest x first
        points = sorted((float(st[x]), float(st[y])) for st in summary.get(key) or []
                        if isinstance(st, Mapping) and _num(st, x) and _num(st, y))
        sources[key] = "measured" if points else "nominal"
        return points

    steps = curve("bandwidth_by_footprint", "footprint_bytes", "bandwidth_Bps")
    gather_rates = curve("gather_requests_by_footprint", "footprint_bytes", "requests_per_s")
    row_shares = curve("bandwidth_share_by_group_rows", "rows", "share")
    stream_shares = curve("bandwidth_share_by_item_streams", "streams", "share")
    set_line_shares = curve("bandwidth_share_by_item_set_lines", "lines", "share")
    if is_gpu:
        # a GPU's group reads its rows at once, in warps: what its heights change there is the
        # warps' shape (H200: float4 one-array lines 1.25× faster from two rows, float16 ones
        # 0.8×, docs/memory.md), which the cache-request terms price; the open rows are a CPU's
        # (one thread runs a group's rows one after another, its prefetchers following them)
        sources["bandwidth_share_by_group_rows"] = "n/a"
        row_shares = []
        # a GPU runs no item on its own: its lanes walk their rows together (column_walk)
        sources.update(bandwidth_share_by_item_streams="n/a",
                       bandwidth_share_by_item_set_lines="n/a")
        stream_shares, set_line_shares = [], []
    round_times = curve("round_time_by_inflight", "inflight_bytes_per_cu", "round_s")
    registers = int(device.get("registers_per_block") or 0)
    # the driver's figure (NVIDIA's device attribute), not a benchmark's; a CPU has no such limit
    sources["registers_per_block"] = "n/a" if not is_gpu else (
        "reported" if registers else "nominal")
    dp_rate = rate("dp_peak_flops", sp / (32 if is_gpu else 2))
    # a CPU runtime runs a group's items as iterations of one loop: no item starts on its own
    item_floor = get("item_floor_s", 0.0, accept=lambda v: v >= 0) if is_gpu else 0.0
    if not is_gpu:
        sources["item_floor_s"] = "n/a"
    # one item's issue rate: a CPU runtime's items run one at a time where its build did not
    # vectorize them (nominal: two instructions a cycle a compute unit); a GPU's never do
    item_issue = get("item_issue_per_s", 2.0 * clock * max(cus, 1)) if not is_gpu else 0.0
    if is_gpu:
        sources["item_issue_per_s"] = "n/a"
    # an element a lane of a CPU's packed gather or scatter (nominal: one every two cycles a
    # compute unit); a GPU has no such instructions
    lane_gathers, lane_scatters = (
        (get(key, clock * max(cus, 1) / 2) if not is_gpu else 0.0)
        for key in ("lane_gathers_per_s", "lane_scatters_per_s"))
    if is_gpu:
        sources.update(lane_gathers_per_s="n/a", lane_scatters_per_s="n/a")
    int_rate = rate("int_peak_ops", sp / 2)
    return ModelParams(
        device=str(summary.get("device") or device.get("name") or "unknown"),
        clock_hz=clock, compute_units=cus, subgroup_size=sg,
        sp_flops=sp,
        dp_flops=dp_rate,
        int_ops=int_rate,
        sf_ops=get("native_sf_peak_ops", sp / 8),
        dram_bw=dram,
        local_bw=get("local_bw_Bps", 4 * dram),
        global_latency_s=glat,
        local_latency_s=get("local_latency_cycles", 30.0) / clock,
        sp_issue_latency_s=get("sp_issue_latency_cycles", 4.0) / clock,
        ridge_items_per_cu=ridge,
        max_resident_per_cu=2048 if is_gpu else max(int(ridge) * 4, 64),
        cache_bytes=cache, cached=cache > 0, line_bytes=line,
        sector_bytes=32 if is_gpu else line,
        launch_s=get("launch_overhead_s", 5e-6 if is_gpu else 2e-5),
        # nominal: a GPU compute unit starts a work-group every ~150 cycles and serves one
        # 128-byte line request per cycle; a CPU core pays ~1 µs per work-group call and one
        # line per cycle
        group_dispatch_s=get("group_dispatch_s",
                             (150.0 / clock if is_gpu else 1e-6) / max(cus, 1),
                             accept=lambda v: v >= 0),
        cache_requests_per_s=get("cache_requests_per_s", clock * cus),
        request_line_bytes=128 if is_gpu else line,
        lane_access_bytes=16 if is_gpu else 64,
        # nominal: 100 cycles a barrier; measured: the barrier_phase benchmark's fit (its
        # intercept may be negative: the cost grows faster than linearly with the group size)
        barrier_group_s=get("barrier_phase_s", 100.0 / clock, accept=lambda v: True),
        barrier_item_s=get("barrier_phase_s_per_item", 0.0, accept=lambda v: True),
        divergence_width=int(_num(summary, "divergence_width_items") or sg),
        sp_vector_flops=vector("sp_madd_peak_flops", sp),
        dp_vector_flops=vector("dp_peak_flops", dp_rate),
        int_vector_ops=vector("int_peak_ops", int_rate),
        # NVIDIA reports its register file per block (= per SM); a CPU keeps no such limit
        registers_per_cu=registers if is_gpu else 0,
        cache_level_bytes=tuple(sorted(s for s in sizes if s > 0)),
        reuse_cache_bytes=max(near, default=0) or cache,
        reread_latency_s=reread,
        # nominal: a miss costs the next level one more request at the first level's rate
        l2_requests_per_s=get("l2_requests_per_s", get("cache_requests_per_s", clock * cus)),
        # nominal: none (the fills are not priced; DRAM's bandwidth alone). A figure below
        # DRAM's copy bandwidth is not a cache level filling the first: on a CPU runtime the
        # level-2 points (warp-shaped line strides) measure the runtime's scalar loop (Debian's
        # PoCL on a 2-core EPYC: 10 GB/s beside a 51 GB/s copy), and pricing a Jacobi slice's
        # fills by it put every variant at 1.4–3.5 ms where they take 0.2–2
        l2_bw=get("l2_read_bw_Bps", 0.0, accept=lambda v: v > dram),
        l2_line_requests_per_s=get("l2_line_requests_per_s", 0.0),
        l2_sectors_per_s=get("l2_sectors_per_s", 0.0),
        # nominal: no overlap measured, the slowest term alone
        overlap_scalar_exponent=get("overlap_scalar_exponent", math.inf),
        # nominal: the scalar code's where that was measured (the EPYC's float4 curve fits no
        # overlap form: RMS 0.33), not full overlap: one core's vector-typed items overlap
        # their memory and arithmetic no better than its scalar ones (star2d_r2's float8 items
        # ran 1.3× the larger term, docs/tuning.md "Items that walk their rows")
        overlap_vector_exponent=get("overlap_vector_exponent",
                                    get("overlap_scalar_exponent", math.inf)),
        dispatch_overlap_exponent=get("dispatch_overlap_exponent", math.inf),
        # nominal: cache_requests' and its level-2 rates; the memory units' exponent
        first_gather_requests_per_s=get("first_level_gather_requests_per_s",
                                        get("cache_requests_per_s", clock * cus)),
        next_gather_requests_per_s=get("next_level_gather_requests_per_s",
                                       get("l2_requests_per_s",
                                           get("cache_requests_per_s", clock * cus))),
        first_request_overlap_exponent=get("first_level_request_overlap_exponent",
                                           get("overlap_scalar_exponent", math.inf)),
        next_request_overlap_exponent=get("next_level_request_overlap_exponent",
                                          get("overlap_scalar_exponent", math.inf)),
        fill_request_overlap_exponent=get("fill_request_overlap_exponent",
                                          get("overlap_scalar_exponent", math.inf)),
        little_over_items=is_gpu,
        vectorizes_loops=not is_gpu,
        fetch_loops_unrolled=is_gpu,
        lane_issue_per_s=sp / 2 if is_gpu else 0.0,
        barriers_serialize_items=not is_gpu and sp / (clock * max(cus, 1))
        > SCALAR_FLOPS_PER_CYCLE,
        item_issue_per_s=item_issue,
        lane_gathers_per_s=lane_gathers,
        lane_scatters_per_s=lane_scatters,
        footprint_bandwidths=tuple(steps),
        group_row_shares=tuple(row_shares),
        item_stream_shares=tuple(stream_shares),
        item_set_line_shares=tuple(set_line_shares),
        gather_rates=tuple(gather_rates),
        round_times=tuple(round_times),
        cached_round_s=get("l2_round_s", reread),
        # nominal: none (an in-place loop priced as a copy)
        store_reload_s=get("store_reload_s", 0.0, accept=lambda v: v >= 0),
        item_floor_s=item_floor,
        # nominal: none (a wide store's requests priced at cache_requests' rate)
        store_requests_per_s=get("store_requests_per_s", 0.0, accept=lambda v: v >= 0),
        store_request_overlap_exponent=get("store_request_overlap_exponent",
                                           get("overlap_scalar_exponent", math.inf)),
        sources=sources,
    )


#: the profile numbers each prediction term is priced by (``explain`` warns when the bottleneck's
#: numbers are nominal)
TERM_SOURCES: dict[str, tuple[str, ...]] = {
    "compute": ("sp_madd_peak_flops", "dp_peak_flops", "int_peak_ops", "native_sf_peak_ops",
                "sp_ridge_work_items", "registers_per_block", "item_issue_per_s",
                "lane_gathers_per_s", "lane_scatters_per_s"),
    "memory_bandwidth": ("copy_bw_Bps", "cache_levels"),
    "l2_bandwidth": ("l2_line_requests_per_s", "l2_sectors_per_s", "l2_read_bw_Bps"),
    # (not store_requests_per_s: without it wide stores are priced as other requests, no
    # number guessed)
    "cache_requests": ("cache_requests_per_s", "l2_requests_per_s"),
    "memory_latency": ("global_latency_cycles", "registers_per_block", "cache_levels",
                       "l2_round_s"),
    "local_memory": ("local_bw_Bps", "local_latency_cycles", "registers_per_block"),
    "dispatch": ("group_dispatch_s", "dispatch_overlap_exponent"),
    "barriers": ("barrier_phase_s", "barrier_phase_s_per_item"),
    "wave_tail": ("round_time_by_inflight", "global_latency_cycles", "copy_bw_Bps",
                  "registers_per_block"),
    "store_reload": ("store_reload_s",),
    "update_latency": ("cache_levels", "global_latency_cycles", "registers_per_block"),
    "item_floor": ("item_floor_s",),
    "launch": ("launch_overhead_s",),
}


def nominal_inputs(term: str, params: ModelParams) -> list[str]:
    """The numbers behind prediction term *term* that were not measured."""
    return [k for k in TERM_SOURCES.get(term, ())
            if params.sources.get(k) not in ("measured", "reported", "n/a")]


def results_root() -> Path:
    """Where committed profiles live: ``$GENCL_RESULTS``, else the checkout's bench_results/."""
    import os

    env = os.environ.get("GENCL_RESULTS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "bench_results"


def find_profile(slug: str, root: str | Path | None = None) -> Path | None:
    """``<root>/<slug>/profile.json`` when a profile of that device was committed (also under
    the slug's old or new name: ``pocl-cpu`` results were PyPI's PoCL, ``pocl-pypi-cpu``)."""
    from gencl.device import slug_aliases

    for name in slug_aliases(slug):
        path = Path(root or results_root()) / name / "profile.json"
        if path.is_file():
            return path
    return None


def profile_of_device(name: str, root: str | Path | None = None) -> Path | None:
    """A committed profile measured on the device called *name*, in any folder under the
    results root (a second machine of one runtime is profiled into a folder of its own, e.g.
    ``pocl-debian-cpu-epyc``, beside the slug's), the first in name order."""
    for path in sorted(Path(root or results_root()).glob("*/profile.json")):
        try:
            device = json.loads(path.read_text()).get("device") or {}
        except (OSError, ValueError):
            continue
        if isinstance(device, Mapping) and device.get("name") == name:
            return path
    return None


def load_device_profile(path: str | Path) -> DeviceProfile:
    """A profile from profile.json, its folder, or the summary.json beside it."""
    from gencl.profile import load_profile

    file = Path(path)
    if file.name == "summary.json":
        file = file.with_name("profile.json")
    return load_profile(file)


def params_from_profile(profile: DeviceProfile) -> ModelParams:
    """Model parameters of the device *profile* describes (a what-if for a device not here)."""
    return params_from(profile.summary, profile.device_json)


def load_params(device: Mapping[str, Any], *, profile: str | Path | DeviceProfile | None = None,
                root: str | Path | None = None) -> ModelParams:
    """Params for *device* (DeviceInfo JSON): the given profile, else the committed profile of
    its slug under the results root where that was measured on this device, else one measured
    on it in another folder (``profile_of_device``), else nominal values (``profile_note`` says
    why where the slug's profile is another device's)."""
    from gencl.profile import DeviceProfile as _Profile

    if isinstance(profile, _Profile):
        return params_from(profile.summary, device)
    if profile:
        return params_from(load_device_profile(profile).summary, device)
    path = find_profile(str(device.get("slug", "")), root)
    found = load_device_profile(path) if path else None
    ours = str(device.get("name") or "")
    theirs = str(found.device_json.get("name") or "") if found else ""
    # a slug names a runtime, not a machine: a CPU runtime's committed profile may be another
    # CPU's (the Xeon the suite was profiled on, beside a user's EPYC), whose bandwidths and
    # rates would price this one silently; this device's own profile, in a folder of its own,
    # or an explicit --profile price it
    if found is None or (theirs and ours and theirs != ours):
        own = profile_of_device(ours, root) if ours else None
        if own is not None:
            return params_from(load_device_profile(own).summary, device)
        if found is None:
            return params_from({}, device)
        return dataclasses.replace(params_from({}, device), profile_note=(
            f"{path} was measured on {theirs}, not on {ours}: nominal values — profile this "
            "device (gencl profile) or pass --profile to price it with that one"))
    return params_from(found.summary, device)
