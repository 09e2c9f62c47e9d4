"""Predicted time of a variant from its statistics and the device's measured characteristics.

time = ‖‖compute, ‖max(DRAM, next-level bandwidth), cache requests, memory latency,
               local memory‖ₛ ⊕ gathers‖ₚ,
        work-group dispatch‖_q / load balance + barriers + wave tail

(⊕ gathers: a gather's first-level and next-level requests, each joined by its own measured
exponent)

(the kernel's execution time, START→END as the engine measures it: the launch overhead is a term
shown beside it, not added)

The terms are throughputs of different units that run concurrently, so the slowest one sets the
time (a roofline with one roof per unit); barriers stall every unit and add. Units overlap only
in part, so the terms combine as a p-norm, ‖t‖ₚ = (Σ tᵢᵖ)^(1/p): two equal terms cost 2^(1/p)
times one. p is the device's measured overlap of memory and arithmetic (the alu_fetch
benchmark's rounded corner, ``overlap_scalar_exponent`` for scalar code and
``overlap_vector_exponent`` for vector-typed code); the memory units join each other first by
s, the scalar exponent whatever the code's type (the vector one measures how vector arithmetic
hides fetches, not how DRAM traffic hides cache requests); where the profile lacks them, the max.

- compute: per instruction type, lane operations over the measured throughput of that type
  (loopy counts mul and add apart; a mul/add pair is one multiply-add), and on a GPU no less
  than the issue of everything loopy counts, an operation one lane instruction and a memory
  access one a 16-byte chunk, at one a lane a cycle (``issue_time``), slowed below the ridge
  point of the pipeline model (seed 000: throughput grows with concurrency until the ridge);
- memory bandwidth: bytes actually moved over the measured copy bandwidth; an access whose
  neighbouring work items are ``stride`` elements apart moves whole sectors (coalescing), and
  repeated reads of an array that fits the measured cache come from the cache, not DRAM. Where
  the profile measured copy bandwidth against footprint (``footprint_bandwidth``: the same
  buffers launched again and again, as the tuner measures a kernel), the bandwidth is that
  staircase's at the launch's own footprint, every global array together (``dram_bandwidth``):
  12.6 MB of Jacobi arrays stay in a CPU's caches from launch to launch. On a CPU, past the
  staircase's DRAM plateau, that bandwidth is scaled by the share the rows a work-group keeps
  open in each array leave (``_row_streams.group_row_share``, the ``row_streams`` benchmark),
  and where the items run one at a time, by the share the rows each walks leave (the
  ``column_walk`` benchmark);
- next-level bandwidth: what each work-group brings into the first-level cache (its tile, its
  halo rows, a 3-D item's neighbour planes: ``_cache_reuse.first_level_fills``), its line
  requests and its sectors each at the next level's measured rate (``l2_line_requests_per_s``,
  ``l2_sectors_per_s``: the cache_requests benchmark's level-2 points; a halo's side sector is
  a request of its own), or its bytes at ``l2_read_bw_Bps`` where only that
  was measured; DRAM's bytes pass the same level, so the slower of the two is the bandwidth
  unit of the norm below (none where the profile lacks the figures). The cache requests join
  DRAM's stream by s and the fills by the exponent the fill_overlap benchmark measured
  (``fill_request_overlap_exponent``; s where not measured), the larger of the two standing for
  both in the norm;
- cache requests: a sub-group instruction is served one cache line (128 B on GPUs) per request:
  a coalesced float access needs one request per 32 lanes, a float16 per lane (four 16-byte
  instructions, lanes 64 B apart) sixteen per instruction, a lane-by-lane access of a vector
  (loopy's fallback) one instruction per lane and component, less the loads of an address
  another instruction of the item loaded in the same iteration of the loops the code keeps,
  under the same conditions (a register holds it, ``_stats._issued_load_share``), and less the
  16-byte chunks of a vector no lane of which is read (``issued_chunk_share``); register spills
  the build log states add theirs (``_registers``). The rate is measured (``cache_requests``
  benchmark), so data served by caches is not free; requests that come back to lines other
  instructions of the item brought in (lane-by-lane ones, and those of a register-blocked row
  whose lanes lie more than one vector apart) miss the first level where it cannot hold the
  lines of all resident sub-groups, and cost one more request each at the next level's
  measured rate (``_cache_reuse.first_level_hit_share``, ``l2_requests_per_s``); a blocked
  row's misses find their sector in the last level only while every resident item's lines fit
  it (``_cache_reuse.last_level_hit_share``), the rest come from DRAM again, a sector each, and
  join the DRAM bytes (Jacobi's blocked ``float4`` rows on an H200: 37 bytes a point read from
  DRAM where 8 are compulsory, counted with Nsight Compute; lane-by-lane misses do not); a gather
  (``x[col[k]]``: an index the data gives, which loopy sees no lane stride in) is counted on
  the spec's own data (``_gathers``): each sub-group instruction's distinct lines at the first
  level, and the lines new to its work-group at the next level instead, unless the whole
  gathered array fits the first level, each at the rate the request_overlap benchmark measured
  for a line a lane (``first_level_gather_requests_per_s``; past the first level, its rate at
  the bytes of the gathered array the resident work-groups touch at once,
  ``gather_requests_by_footprint``) and joined to the
  norm of the other memory terms by the exponent it measured beside a DRAM stream
  (``first_level_request_overlap_exponent``, ``next_level_…``; without them: the cache_requests
  rates and the memory units' exponent); its sectors are the bytes it moves; a store wider
  than one lane's chunk (``float8``, ``float16``: each chunk instruction writes part of every
  line the sub-group's vectors span) makes ⌈size / chunk⌉ − 1 requests a line beyond a
  ``float4``'s, priced at the rate the store_requests benchmark measured and joined to the
  other memory terms by its exponent (``wide_store_requests``; ``store_requests_per_s``,
  ``store_request_overlap_exponent``), and where that is measured a wide load's chunk
  instructions count as one request a line (the loads-only streams run at float8 and float16
  as at float4);
- work-group dispatch: starting a work-group costs a fixed time (``workgroup_dispatch``
  benchmark); tiny work-groups make a memory-bound kernel dispatch-bound. A group's start
  overlaps the other groups' traffic, not the arithmetic alu_fetch measures, so this term joins
  the others' p-norm by its own measured exponent (``dispatch_overlap_exponent``, the same
  benchmark's rounded corner; H200: 64, a max);
- barriers: a barrier after a load phase holds its work-group for a time that grows with the
  group's size (``barrier_phase`` benchmark: a + b · group size per group and barrier, on its
  compute unit); it stalls the unit, so it adds;
- memory latency: Little's law — with too few work items in flight the bandwidth is
  (bytes in flight) / (measured global latency Λ), on a GPU, whose items each keep one load of
  every site in flight (a CPU core keeps a work-item loop's loads in flight with its
  out-of-order window and prefetchers however few items it runs: PoCL's strip scheme, one item
  a group and 2 a core, was priced 9–15× its measured time by this rule); and no less than one
  Λ per load round of each wave of resident items (a loop the code keeps issues its loads after
  the last iteration's data came: a tile's fetch loop, ``_stats._item_trace``; a chase, whose
  every step's address is the last step's value, a round a step: ``_stats._chained_load_rounds``,
  and Little's law, which takes every site's load in flight at once, left out for it — the
  load_rounds benchmark's H100 points, predicted so, within 10 % up to 8 KiB in flight per
  compute unit with one chain an item and from 16 KiB on with any; code without a kept loop
  whose build's SASS was counted, ``gencl.measure._sass``: a round per batch ptxas issued its
  loads in, each waited for before the next; a kept loop whose SASS was counted: its passes'
  batches, those beyond the model's round an iteration at the cached round, ``cached_rounds``:
  they re-read lines the item's neighbours brought in);
- work-groups that do not fill the last wave leave compute units idle (load balance);
- wave tail: a GPU kernel whose items each run several load rounds (a loop the code keeps: a
  stream along an axis) runs them in waves of resident items that start and finish together;
  the last, partial wave keeps only its own items' bytes in flight, so each of its rounds takes
  the round time at that load (``load_rounds``' curve; without it Little's law with a soft knee,
  ‖Λ, bytes in flight / bandwidth‖₂, which reproduces the H100 curve within 5 %), not its
  share of the bandwidth: what it takes beyond that share adds (box2d9 on the H100, ``float4``
  streams of 64 rows: 1.03–1.29 waves by the group shape, 7–19 µs of a measured 217–222);
- store, then reload: an item that stores to an array and later loads from it (an in-place
  update in a stream's loop, or in a register-blocked row's straight-line code: a leapfrog's
  ``w = 2u − w + …``) keeps that load below the store, and where the array's lines are shared
  between sub-groups (rows off a line) the load waits: each such store instruction costs its
  compute unit ``store_reload_s`` (the store_reload benchmark: H200 11–14 ns, the in-place loop
  1.99× the copy; rows on a line 1.01–1.03×); it stalls the unit, so it adds
  (``store_reload_time``);
- items' floor: no GPU launch runs faster than its work items at the seconds an item of
  workgroup_dispatch's one-float copy costs once its group's start is hidden (``item_floor_s``:
  H200 224 µs for 2^26 items, 2.4 TB/s where a ``float4`` copy moves 4.2); a bound, so the time
  is the larger of it and the terms joined (``item_floor``).

A temporally blocked launch (k sweeps) is priced from what its transform reports it does
(``tile_traffic``: ``gencl.measure._sweeps.TRAFFIC_KEYS``) where loopy's counts cannot see it
(they ignore the predicates that make halo points live or dead): DRAM bytes from its global bytes
(``copy_bw_Bps``), compute from its point updates, redundant halo work included, × flops per
update at the compute rate (the scalar chains' ``sp_madd_scalar_peak_flops``, float64:
``dp_scalar_peak_flops``; the vector chains' where the scheme says its updates are a loop the
compiler vectorizes, ``vectorized_updates``: the strip), local memory from
its local bytes (``local_bw_Bps``) and barriers from its barriers per work-group
(``barrier_phase_s`` + ``barrier_phase_s_per_item`` × group size), and its asynchronous
copies join the bytes in flight of the latency term; nominal values where the
profile lacks a number, as for any variant. ``Prediction.time_s`` is per launch (what is
measured), ``time_per_sweep_s`` per sweep (what the tuner compares).

The optimization criteria of seed 001 §IV are values in [0, 1] (1 = nothing to gain) with the
potential speedup of §V, computed from the same terms.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from gencl.model._cache_reuse import dram_bytes as reuse_dram_bytes
from gencl.model._cache_reuse import (
    first_level_fills, first_level_hit_share, first_level_refills, last_level_hit_share,
    live_bytes, miss_shares, reuse_gaps, trace_load_bytes)
from gencl.model._gathers import SECTOR_BYTES as GATHER_SECTOR_BYTES
from gencl.model._gathers import GatherShares, gather_shares, wave_bytes
from gencl.model._params import ModelParams
from gencl.model._registers import resident_items_per_cu, spill_requests
from gencl.model._row_streams import group_row_share
from gencl.model._schedule import scheduled_loop_rounds
from gencl.model._stats import Access, KernelStats
from gencl.model._vector_rate import items_as_lanes, op_rate, vectorized


@dataclass(frozen=True)
class Criterion:
    """One seed-001 criterion: quality in [0, 1] and the speedup if it were 1."""

    name: str
    value: float
    speedup: float
    hint: str


#: ``Prediction.counts``: name → what it is (per launch)
COUNTS = {
    "first_level_requests": "cache-line requests of the global loads and stores (a sub-group "
                            "instruction's distinct lines; gathers at their own rates apart)",
    "retouch_hit_share": "share of the requests that come back to a line an instruction of "
                         "the item touched before which the first level still holds",
    "first_level_misses": "those re-touches the first level no longer holds: requests to the "
                          "next level",
    "dram_bytes": "bytes read from and written to DRAM",
    "resident_items_per_cu": "work items one compute unit holds at once",
    "load_rounds": "times an item waits for its loads' data (loops the code keeps)",
    "next_level_fill_requests": "line requests the work-groups make of the next level for "
                                "what they bring into the first (the l2_bandwidth term's)",
    "next_level_fill_bytes": "bytes of those: the sectors the groups read, and the ones their "
                             "stores write through",
    "next_level_refill_requests": "line requests the groups make of the next level again for "
                                  "sectors the first level let go before they came back to "
                                  "them (counted, not priced)",
    "next_level_refill_bytes": "bytes of those",
}


@dataclass(frozen=True)
class Prediction:
    time_s: float
    terms: dict[str, float]      # seconds per term
    bottleneck: str
    criteria: tuple[Criterion, ...]
    potential_speedup: float     # time / time at the limiting roof's peak
    steps: int = 1               # sweeps one launch runs
    # what the terms price, per launch, as a profiler would count it (``COUNTS``: line
    # requests, misses, DRAM bytes, …): the figures to check a term against on the device
    counts: dict[str, float] = field(default_factory=dict)

    @property
    def time_per_sweep_s(self) -> float:
        return self.time_s / self.steps

    @property
    def serial_s(self) -> float:
        """The time were no two units to overlap: every term but the launch's and the items'
        floor (a bound, no unit's work), summed (per launch; the model's tie-break,
        ``gencl.model._pick``)."""
        return sum(t for name, t in self.terms.items() if name not in ("launch", "item_floor"))

    @property
    def serial_per_sweep_s(self) -> float:
        return self.serial_s / self.steps

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "time_per_sweep_s": self.time_per_sweep_s}


def serial_lanes(barriers: float, p: ModelParams) -> float:
    """How many times slower than the chains' rate a kernel with *barriers* (per item or per
    group) computes: a CPU runtime that runs a barrier-separated kernel's items one at a time
    fills one of the subgroup_size lanes the chains (vectorized across items) fill; 1 elsewhere."""
    return float(max(1, p.subgroup_size)) if barriers and p.barriers_serialize_items else 1.0


def _ops_by_dtype(stats: KernelStats) -> dict[str, dict[str, float]]:
    """loopy's op counts per data type, a mul feeding an add contracted into one ``add``
    (one multiply-add): {dtype: {op: lane operations}}."""
    by_dtype: dict[str, dict[str, float]] = {}
    for key, n in stats.ops.items():
        dtype, _, op = key.partition(":")
        by_dtype.setdefault(dtype, {})[op] = n
    for ops in by_dtype.values():
        ops["add"] = max(ops.get("add", 0.0), ops.pop("mul", 0.0))
    return by_dtype


def compute_time(stats: KernelStats, p: ModelParams) -> float:
    vector = vectorized(stats)  # vector-typed code: the vector chains' rate (_vector_rate)
    return sum(n / op_rate(f"{dtype}:{op}", p, vector)
               for dtype, ops in _ops_by_dtype(stats).items() for op, n in ops.items())


def issue_time(stats: KernelStats, p: ModelParams) -> float:
    """Seconds the schedulers take to issue what loopy counts: every operation of every type
    one lane instruction, every memory access one per ``lane_access_bytes`` chunk it moves (a
    ``float4`` load one, a ``float8`` two; lane-by-lane code one a lane), at ``lane_issue_per_s``
    (0 where the device has no issue bound: a CPU). Each type's own rate (``compute_time``)
    leaves out that every type and the memory instructions share the same schedulers."""
    if not p.lane_issue_per_s:
        return 0.0
    return issued_instructions(stats, p) / p.lane_issue_per_s


def issued_instructions(stats: KernelStats, p: ModelParams) -> float:
    """Lane instructions of one launch as the issue bounds count them: every operation loopy
    counts (a multiply feeding an add one) and every access (``access_instructions``)."""
    lanes = sum(n for ops in _ops_by_dtype(stats).values() for n in ops.values())
    return lanes + sum(access_instructions(a, p) for a in stats.accesses)


def item_issue_time(stats: KernelStats, p: ModelParams) -> float:
    """Seconds a CPU runtime takes to issue a variant's items one at a time, where the machine
    code of its work-group function shows they were not lanes of packed instructions
    (``_vector_rate.with_isa``: a work-group narrower than the vector loop's step, a ``floatN``
    item's own vectors, a streamed item's loop): every operation loopy counts and every memory
    access (one per ``lane_access_bytes`` chunk, a lane-by-lane access one a lane) one
    instruction, a vector-typed operation one a chunk of its vector (``vector_op_instructions``),
    at ``item_issue_per_s``. 0 without the counts, or on a runtime whose chains were not
    vectorized across items either (their scalar rate is already one item's). On the EPYC's
    Jacobi slice such variants issue 1.3–2.1 instructions a cycle a core (docs/tuning.md,
    "What PoCL compiled for the EPYC's Jacobi slice"); box2d25's `float4` and `float8` items
    one at a time take 20–30 cycles each, their time halving as the width doubles
    (docs/tuning.md, "Open rows priced")."""
    if items_as_lanes(stats) or not p.barriers_serialize_items or not p.item_issue_per_s:
        return 0.0
    if not vectorized(stats):
        return issued_instructions(stats, p) / p.item_issue_per_s
    accesses = sum(access_instructions(a, p) for a in stats.accesses)
    return (vector_op_instructions(stats, p) + accesses) / p.item_issue_per_s


def lane_gather_time(stats: KernelStats, p: ModelParams) -> float:
    """Seconds a CPU's packed gathers and scatters take to move what a launch's items gather
    and scatter: the elements an item moves in a pass of its work-group function's
    most-gathering loop (the build's machine code, ``_vector_rate.with_isa``; Jacobi's branch
    form in one-row groups on the EPYC gathers six and scatters two an item, each neighbour and
    result it cannot prove contiguous) × the items, at ``lane_gathers_per_s`` and
    ``lane_scatters_per_s``. 0 without the counts or the rates (a GPU)."""
    moved = ((stats.extra.get("gathered_per_item"), p.lane_gathers_per_s),
             (stats.extra.get("scattered_per_item"), p.lane_scatters_per_s))
    return sum(stats.work_items * float(n) / rate for n, rate in moved if n and rate)


def vector_op_instructions(stats: KernelStats, p: ModelParams) -> float:
    """Instructions of a vector-typed item's arithmetic: loopy counts each lane's operation; an
    item's ``floatN`` operation is one instruction a ``lane_access_bytes`` chunk of its widest
    whole-vector access."""
    sites = [a for a in stats.accesses if a.space == "global"]
    width = max((a.vec_width for a in sites if not a.per_lane), default=1)
    size = max((a.itemsize for a in sites), default=4)
    lanes = sum(n for ops in _ops_by_dtype(stats).values() for n in ops.values())
    return lanes / width * access_chunks(width * size, p)


def access_instructions(a: Access, p: ModelParams) -> float:
    """Lane instructions of one access site per launch: loopy counts its elements; a whole
    vector moves in chunks of at most ``lane_access_bytes``, a lane-by-lane access one a lane."""
    if a.per_lane or a.vec_width == 1:
        return a.count
    return a.count / a.vec_width * access_chunks(a.itemsize * a.vec_width, p)


def access_chunks(nbytes: float, p: ModelParams) -> int:
    """Instructions one vector of *nbytes* takes: chunks of at most ``lane_access_bytes``."""
    return max(1, math.ceil(nbytes / p.lane_access_bytes))


def store_instructions_per_item(stats: KernelStats, p: ModelParams) -> float:
    """Global store instructions one work item issues (``access_instructions``)."""
    return sum(access_instructions(a, p) for a in stats.accesses
               if a.space == "global" and a.direction == "store") / max(stats.work_items, 1)


def wide_store_requests(a: Access, p: ModelParams) -> float:
    """Line requests of a whole-vector global store wider than one lane's chunk (``float8``,
    ``float16``) beyond one a line of the bytes it moves: each of its ⌈size / chunk⌉ chunk
    instructions writes part of every line the sub-group's vectors span, ⌈size / chunk⌉ − 1
    requests a line more than a ``float4``'s (the store_requests benchmark's E). 0 for loads,
    lane-by-lane stores and vectors of one chunk."""
    if a.space != "global" or a.direction != "store" or a.per_lane:
        return 0.0
    chunks = access_chunks(a.itemsize * a.vec_width, p)
    return a.bytes / p.request_line_bytes * (chunks - 1)


def access_efficiency(a: Access, p: ModelParams, stats: KernelStats | None = None) -> float:
    """Useful bytes over bytes moved for one access site (seed 001 §IV-F granularity); a
    gather's by the sectors its sub-group instructions touch in the data (*stats*)."""
    useful = a.instruction_bytes
    counted = _gathered(a, stats, p)
    if counted is not None and stats is not None:
        lanes, rows = _subgroup_shape(stats, p)
        return min(1.0, useful * lanes * rows / (counted.sectors_per_request
                                                 * GATHER_SECTOR_BYTES))
    if a.lid0_stride is None:
        return useful / max(useful, p.sector_bytes)
    step = abs(a.lid0_stride) * a.itemsize
    if step <= useful:
        return 1.0
    return useful / max(useful, min(step, p.sector_bytes))


def _gathered(a: Access, stats: KernelStats | None, p: ModelParams) -> GatherShares | None:
    """What a gather site touches, counted on the data (``_gathers.gather_shares``)."""
    if not a.gather or stats is None:
        return None
    return gather_shares(stats.extra.get("gathers") or {}, a.array, p.request_line_bytes)


def gather_misses(a: Access, stats: KernelStats, p: ModelParams, requests: float) -> float:
    """Of a gather site's *requests*, those the first level does not hold: the lines new to
    each work-group, and of its requests for lines it touched before, the share that the lines
    of the work-groups resident on one compute unit together overflow the first level by;
    none where the whole gathered array fits the first level (spmv_ell's x up to 128 KiB
    measures as if it did on an H100)."""
    counted = _gathered(a, stats, p)
    if counted is None:
        return 0.0
    first = p.cache_level_bytes[0] if p.cache_level_bytes else 0
    if stats.footprint.get(a.array, math.inf) <= first:
        return 0.0
    resident_groups = _concurrency(stats, p) / max(1, stats.group_size)
    held = resident_groups * counted.lines_per_group * p.request_line_bytes
    kept = min(1.0, first / held) if held else 1.0
    new = requests * counted.new_share
    return new + (requests - new) * (1.0 - kept)


def gathered_bytes(a: Access, stats: KernelStats, p: ModelParams) -> float:
    """The bytes of a gathered array that the work-groups resident on the whole device touch
    at once (``_gathers.wave_bytes``), at most the array: the working set the next level holds
    or not. A banded or windowed matrix's gathers stay near the rows being run however large
    the vector; random columns reach all of it. The array's footprint where not counted."""
    footprint = stats.footprint.get(a.array, 0.0)
    wave = _concurrency(stats, p) * p.compute_units / max(1, stats.group_size)
    held = wave_bytes(stats.extra.get("gathers") or {}, a.array, p.request_line_bytes, wave)
    return min(footprint, held) if held is not None and footprint else footprint


def next_gather_rate(touched: float, p: ModelParams) -> float:
    """Line requests per second of a gather, one line a lane, that misses the first level, when
    the gathers in flight touch *touched* bytes (``gathered_bytes``): request_overlap's rates by
    table size past the first level, interpolated in log bytes and log rate, flat beyond the
    measured ends (what the L2 no longer holds is served from DRAM, slower); its one next-level
    rate where the profile lacks them."""
    first = p.cache_level_bytes[0] if p.cache_level_bytes else 0
    steps = [(f, r) for f, r in p.gather_rates if f > first]
    if not steps or touched <= 0:
        return p.next_gather_requests_per_s
    sizes = np.log([f for f, _ in steps])
    rates = np.log([r for _, r in steps])
    return float(np.exp(np.interp(math.log(touched), sizes, rates)))


def memory_bytes(stats: KernelStats, p: ModelParams) -> tuple[float, float, float]:
    """(DRAM bytes, useful bytes, DRAM bytes were every re-read a cache hit) of the global
    accesses; re-reads beyond an array's footprint are cache hits, priced by the cache-request
    term instead. Where the work item's trace was counted, a read array's loads miss by their
    reuse distances (``_cache_reuse.reuse_gaps``, ``miss_shares``); else by the live set of the
    resident wave (``reuse_dram_bytes``)."""
    moved: dict[tuple[str, str], float] = {}
    useful = 0.0
    for a in stats.accesses:
        if a.space != "global":
            continue
        useful += a.bytes
        key = (a.array, a.direction)
        moved[key] = moved.get(key, 0.0) + a.bytes / access_efficiency(a, p, stats)
    trace: Mapping[str, Any] = stats.extra.get("item_trace") or {}
    resident = _concurrency(stats, p) * p.compute_units
    gaps = reuse_gaps(trace, resident) if p.cached else {}
    shares: dict[str, float] = {}
    first_use: dict[str, float] = {}
    per_item: dict[str, float] = {}
    if gaps:
        length = float(trace["length"])
        shares = miss_shares(gaps, length, resident, p.reuse_cache_bytes)
        first_use = miss_shares(gaps, length, resident, None)
        per_item = trace_load_bytes(trace)
    live = live_bytes(resident, stats.accesses)
    dram = held = 0.0
    for array in {name for name, _ in moved}:
        loads, stores = moved.get((array, "load"), 0.0), moved.get((array, "store"), 0.0)
        footprint = stats.footprint.get(array, loads + stores)
        if array in shares:
            # the item's own loads, not loopy's counts (which bound a tile's fetch loop by
            # its widest item): the missed ones, for every item. Counted by element: the
            # rest of a sector comes with it (the neighbouring lanes', a blocked column's,
            # a lane-by-lane vector's next components), it is not fetched again
            traced = per_item[array] * stats.work_items
            dram += traced * shares[array] + reuse_dram_bytes(stores, footprint, live, p)
            held += traced * first_use[array] + min(stores, footprint)
            continue
        dram += reuse_dram_bytes(loads + stores, footprint, live, p)
        held += min(loads + stores, footprint)
    return dram, useful, (held if p.cached else dram)


def dram_bandwidth(stats: KernelStats, p: ModelParams) -> float:
    """Bandwidth of the launch's traffic: the measured footprint staircase
    (``footprint_bandwidths``) at the bytes of all its global arrays, interpolated linearly in
    log footprint and log bandwidth, flat beyond the measured ends; the copy bandwidth where
    none was measured."""
    steps = p.footprint_bandwidths
    footprint = sum(stats.footprint.values())
    if not steps or footprint <= 0:
        return p.dram_bw
    sizes = np.log([f for f, _ in steps])
    rates = np.log([b for _, b in steps])
    return float(np.exp(np.interp(math.log(footprint), sizes, rates)))


def _concurrency(stats: KernelStats, p: ModelParams) -> float:
    """Work items in flight per compute unit."""
    per_cu = stats.work_items / max(p.compute_units, 1)
    return max(1.0, min(per_cu, resident_items_per_cu(stats, p)))  # registers: _registers


def _subgroup_shape(stats: KernelStats, p: ModelParams) -> tuple[int, int]:
    """(lanes along local axis 0, rows along axis 1) of one sub-group: a sub-group is
    consecutive linear local ids, so a work-group narrower than it spans several rows."""
    sg = max(1, min(p.subgroup_size, stats.group_size))
    width = stats.local_size[0] if stats.local_size else stats.group_size
    lanes = max(1, min(sg, width))
    return lanes, max(1, sg // lanes)


def cache_requests(a: Access, stats: KernelStats, p: ModelParams) -> float:
    """Cache-line requests of one access site per launch: sub-group instructions × the distinct
    lines each touches (rows of a sub-group lie in different lines).

    A vector access splits into chunks of at most ``lane_access_bytes``; a lane-by-lane access
    is one instruction per lane on the chunk holding that lane, and a lane-by-lane store also
    reads that chunk first (read-modify-write)."""
    lanes, rows = _subgroup_shape(stats, p)
    size = a.itemsize * a.vec_width
    chunk = min(size, p.lane_access_bytes)
    if a.per_lane:
        rmw = 2 if a.direction == "store" else 1
        instructions = a.count * rmw / (lanes * rows)
    else:
        instructions = access_instructions(a, p) / (lanes * rows)
    if a.direction == "load" and not a.per_lane:
        # loads of an address the item already holds are not issued (a lane-by-lane
        # instruction's whole vectors are counted once each already, and its lanes under
        # conditions of their own are each issued), nor chunks of a vector nothing reads
        shares = (stats.extra.get("item_trace") or {}).get("issued_load_share") or {}
        if not a.lane_vectors:
            instructions *= shares.get(a.array, 1.0)
        instructions *= issued_chunk_share(stats, a, chunk)
    line = p.request_line_bytes
    counted = _gathered(a, stats, p)
    if counted is not None:         # the data's lines per sub-group instruction
        return instructions * counted.lines_per_request
    if a.direction == "load" and not a.per_lane and size > chunk and not a.leaves_gaps \
            and p.store_requests_per_s:
        # a wide vector's chunk instructions read the lines its first one requested (lanes one
        # vector apart): a request a line a vector. The H200 streams three arrays at float8
        # and float16 as fast as at float4 (tools/wide_stores.py), where a request a chunk
        # priced them 5–15 % slower. Only where the profile prices wide stores too: this
        # alone moves the pick to float8 and float16 variants whose stores it leaves unpriced
        # (the H100 without the store_requests figure: predicted best +2.1 → +24 % on
        # laplace3d, +3.3 → +22 % on box2d9)
        instructions /= math.ceil(size / chunk)
    if a.lid0_stride is None:       # not affine: every lane its own line
        per_row = lanes * math.ceil(chunk / line)
    else:
        step = abs(a.lid0_stride) * a.itemsize
        if step == 0:               # every lane the same address: a broadcast
            per_row = math.ceil(chunk / line)
        elif step < line:
            per_row = math.ceil(((lanes - 1) * step + chunk) / line)
        else:
            per_row = lanes * math.ceil(chunk / line)
    return instructions * rows * per_row


def loop_requests(a: Access, stats: KernelStats, p: ModelParams) -> float:
    """Line requests of an access site in a loop along the contiguous axis that the compiler
    vectorizes: consecutive iterations share a line, so one request per line of the bytes the
    site moves (PoCL's strip: ``cache_requests`` counts each element of a one-item group as a
    request of its own, 16 where a 64-byte line of floats takes one). *stats* is unused: the
    signature is ``cache_requests``'s."""
    del stats
    return a.count * a.itemsize * a.vec_width / p.request_line_bytes


def issued_chunk_share(stats: KernelStats, a: Access, chunk: int) -> float:
    """Share of a load site's *chunk*-byte instructions the compiler issues: only the chunks
    of a vector holding a lane something reads (``_stats._load_lanes``; 1 where not counted).
    A shifted neighbour's side vector is loaded for the lanes its shuffle picks: one chunk of
    a ``float8``'s two, one of a ``float16``'s four."""
    loads = (stats.extra.get("load_lanes") or {}).get(a.array) or {}
    issued = whole = 0.0
    for pattern, times in loads.items():
        width, _, read = pattern.partition(":")
        per_chunk = max(1, chunk // a.itemsize)
        issued += times * len({int(lane) // per_chunk for lane in read.split(",") if lane})
        whole += times * math.ceil(int(width) / per_chunk)
    return issued / whole if whole else 1.0


def next_level_fills(stats: KernelStats, p: ModelParams) -> tuple[float, float] | None:
    """(line requests, bytes) of one launch's work-groups at the next level: what each brings
    into the first (``_cache_reuse.first_level_fills``) × the groups; None without a trace."""
    fills = first_level_fills(stats.extra.get("item_trace"), line=p.request_line_bytes,
                              sector=p.sector_bytes, subgroup=p.subgroup_size)
    if fills is None:
        return None
    requests, moved = fills
    return requests * stats.groups, moved * stats.groups


def next_level_refills(stats: KernelStats, p: ModelParams) -> tuple[float, float] | None:
    """(line requests, bytes) the launch's work-groups bring into the first level again, beyond
    ``next_level_fills``: the re-touches the first measured cache level cannot hold for the
    groups resident beside each (``_cache_reuse.first_level_refills``), × the groups; None
    without a trace or a measured first level.

    Counted, not priced: the count is the L2's (star3d_r4's 4 rows around a 16-plane stream:
    fills and refills 120.6 M sectors, Nsight Compute 127.4 M; fills alone 50.3 M), but at the
    next level's rates, fitted as a sum of a request's and a sector's costs, it takes star3d_r4's
    ρ 0.762 → 0.755 and mehrstellen3d's 0.905 → 0.896 (docs/tuning.md, "The first level's
    refills"): those rates price star3d_r4's unstreamed fills 12–24 % over their measured time
    already."""
    trace = stats.extra.get("item_trace")
    if not trace or not p.cache_level_bytes:
        return None
    requests, moved = first_level_refills(
        trace, line=p.request_line_bytes, sector=p.sector_bytes, subgroup=p.subgroup_size,
        resident_groups=_concurrency(stats, p) / max(1, stats.group_size),
        cache=p.cache_level_bytes[0])
    return requests * stats.groups, moved * stats.groups


def with_refill_counts(pred: Prediction, stats: KernelStats, p: ModelParams) -> Prediction:
    """*pred* with ``next_level_refills`` in its counts where it counts fills (``explain`` of
    one variant and the Nsight Compute comparison show them; a space's predictions go without,
    as nothing prices them)."""
    refills = next_level_refills(stats, p) if "next_level_fill_bytes" in pred.counts else None
    if not refills:
        return pred
    return replace(pred, counts={**pred.counts, "next_level_refill_requests": refills[0],
                                 "next_level_refill_bytes": refills[1]})


def next_level_time(fills: tuple[float, float] | None, p: ModelParams) -> float:
    """Time the next level takes to serve *fills* (``next_level_fills``): their line requests
    and sectors at the measured rates of each, or their bytes at its bandwidth where only that
    was measured; 0 without either or without fills. DRAM's bytes pass the same level: the
    caller joins the two by the slower."""
    if fills is None or (not (p.l2_sectors_per_s and p.l2_line_requests_per_s) and not p.l2_bw):
        return 0.0
    requests, moved = fills
    if p.l2_sectors_per_s and p.l2_line_requests_per_s:
        return requests / p.l2_line_requests_per_s + moved / p.sector_bytes / p.l2_sectors_per_s
    return moved / p.l2_bw


def loaded_round_s(bytes_per_cu: float, p: ModelParams) -> float:
    """One load round's time with *bytes_per_cu* in flight on every compute unit: the
    ``load_rounds`` curve, interpolated in log-log (below its first point that point's time,
    past its last the last point's bandwidth); without it Little's law with a soft knee,
    ‖Λ, bytes in flight / DRAM bandwidth‖₂ (the H100 curve within 5 % from 256 B to 128 KiB)."""
    points = p.round_times
    if not points:
        return math.hypot(p.global_latency_s, bytes_per_cu * p.compute_units / p.dram_bw)
    if bytes_per_cu <= points[0][0]:
        return points[0][1]
    if bytes_per_cu >= points[-1][0]:
        return points[-1][1] * bytes_per_cu / points[-1][0]
    (x0, y0), (x1, y1) = next((a, b) for a, b in zip(points, points[1:])
                              if a[0] <= bytes_per_cu <= b[0])
    return y0 * (y1 / y0) ** (math.log(bytes_per_cu / x0) / math.log(x1 / x0))


def wave_tail(stats: KernelStats, p: ModelParams, conc: float, rounds: float, dram: float,
              t_bw: float) -> float:
    """Seconds the last, partial wave of resident work items adds beyond its share of the
    DRAM term *t_bw* (every wave at the bandwidth): its items each run *rounds* load rounds,
    each at the round time of the bytes the partial wave alone keeps in flight (the item's DRAM
    bytes per round × its items per compute unit). 0 on a CPU (no Little's law over items),
    for one round, for whole waves, and for a launch of less than one wave (the other terms
    price its rounds at its load)."""
    if rounds <= 1.0 or not dram or not stats.work_items or not p.little_over_items:
        return 0.0
    waves = stats.work_items / max(p.compute_units, 1) / conc
    partial = waves - math.floor(waves)
    if waves < 1.0 or partial <= 1e-9:
        return 0.0
    in_flight = partial * conc * dram / stats.work_items / rounds
    return max(0.0, rounds * loaded_round_s(in_flight, p) - t_bw * partial / waves)


def shares_lines(entry: Mapping[str, Any], lanes: int, line: int) -> bool:
    """Whether a sub-group's stores of a traced array (``_item_trace``'s ``arrays`` entry) share
    cache lines with another sub-group's: a row segment that starts off a line, or whose length
    is not whole lines. A vector store's lanes share its position: its first lane starts it."""
    step = (entry.get("step") or [None])[0]
    starts: dict[int, int] = {}
    for pos, addr, load in zip(entry.get("pos") or (), entry.get("addr") or (),
                               entry.get("load") or ()):
        if not load:
            starts[pos] = min(addr, starts.get(pos, addr))
    if not starts or not step:
        return False
    return any(a % line for a in starts.values()) or (lanes * abs(step)) % line != 0


def store_reload_time(stats: KernelStats, p: ModelParams) -> float:
    """Seconds the store_reload waits add: per array whose lines sub-groups share, the item's
    stores a later load of it follows (``_stats._reloaded_stores``: a kept loop's next pass, a
    blocked row's next row), per sub-group and compute unit, at ``store_reload_s`` each (one
    per 16-byte chunk of a wider vector)."""
    trace = stats.extra.get("item_trace") or {}
    reloaded = trace.get("reloaded_stores") or {}
    if not p.store_reload_s or not reloaded or not stats.work_items:
        return 0.0
    lanes, _ = _subgroup_shape(stats, p)
    waits = 0.0
    for arr, n in reloaded.items():
        entry = (trace.get("arrays") or {}).get(arr)
        if not entry or not shares_lines(entry, lanes, p.request_line_bytes):
            continue
        widths = [a.itemsize * a.vec_width for a in stats.accesses
                  if a.array == arr and a.direction == "store"]
        chunks = access_chunks(max(widths, default=0), p)
        waits += n * chunks
    return waits * stats.work_items / max(p.subgroup_size, 1) / max(p.compute_units, 1) \
        * p.store_reload_s


def temporal_fills(traffic: Mapping[str, float], p: ModelParams
                   ) -> tuple[float, float] | None:
    """(line requests, bytes) the next level serves a temporal launch: its read-only arrays'
    loads beyond one of each element (``reread_read_only_bytes``), whole lines (a sub-group
    reads a row); None where there are none."""
    moved = traffic.get("reread_read_only_bytes", 0.0)
    return (moved / p.request_line_bytes, moved) if moved else None


def update_latency(traffic: Mapping[str, float], p: ModelParams, conc: float) -> float:
    """Seconds a temporal launch's updates wait for the global arrays they read
    (``global_reading_updates``: a read-only array not held in registers, loaded after the
    step's barrier and needed at once): Little's law with one update's loads in flight on each
    resident item, at the largest cache level's latency (the arrays' lines are mostly there:
    ``reread_latency_s``; the DRAM latency where that level was not measured). helmholtz3d's
    streams under Nsight Compute wait 5.7–9.1 cycles an issued instruction on global loads
    where streams that read only their ring wait 0.1–3.4. 0 on a CPU (a core's loop keeps its
    loads in flight however few items: ``little_over_items``)."""
    updates = traffic.get("global_reading_updates", 0.0)
    if not updates or not p.little_over_items:
        return 0.0
    latency = p.reread_latency_s or p.global_latency_s
    return updates * latency / (max(p.compute_units, 1) * conc)


def item_floor(stats: KernelStats, p: ModelParams) -> float:
    """Seconds under which no launch of the kernel runs: its work items at ``item_floor_s``,
    the seconds each of workgroup_dispatch's copy items costs once its group's start is hidden
    (items that each load and store one float: the H200 starts, runs and retires 2^26 of them in
    224 µs, 2.4 TB/s where a float4 copy moves 4.2). The terms price such items by their bytes
    and rounds, below what the benchmark measured (its own 256-item point: 165 µs, measured 207;
    copy2d's scalar rows 166 µs, measured 220–250); an item that moves more is priced above the
    floor by them. 0 where not measured (and on a CPU, whose runtime runs items as a loop)."""
    return stats.work_items * p.item_floor_s


def round_lanes(stats: KernelStats, p: ModelParams) -> float:
    """Work items one load round's instructions serve at once: on a CPU runtime that runs
    scalar-typed items as the lanes of its vectors (``items_as_lanes``: the build's machine
    code, or before it what the item's code tells), one vector load a site for as many items
    as its widest access holds elements (``lane_access_bytes``: 64 on a CPU, 16 floats); else
    one. The EPYC's one-wide padded Jacobi rows at n = 4096 ran at DRAM's pace (6.3–7.7 ms)
    where a round an item priced them at 9.6 ms of latency. Not for vector-typed items: screened on
    star2d_r2's, whose ranking it broke (ρ 0.70 → 0.52; docs/tuning.md, "Open rows priced")."""
    if p.little_over_items or vectorized(stats) or not items_as_lanes(stats):
        return 1.0
    element = max((a.itemsize for a in stats.accesses if a.space == "global"), default=4)
    return max(1.0, p.lane_access_bytes / element)


def round_latency(stats: KernelStats, p: ModelParams, dram: float) -> float:
    """Mean latency of one load round: the share of the item's global bytes that come from
    DRAM (the model's DRAM bytes over loopy's) at the DRAM latency, the rest at the largest
    cache level's (``reread_latency_s``): a tile's halo and a stream's neighbour rows are lines
    other work-groups brought into the shared L2, and a round waits for its slowest load,
    which on the H200 is one the other L2 partition holds (533 cycles, against 288 for the
    near one and 691 for DRAM). Without that level measured: the DRAM latency."""
    moved = sum(a.bytes for a in stats.accesses if a.space == "global")
    if not p.reread_latency_s or not moved:
        return p.global_latency_s
    share = min(1.0, dram / moved)
    return share * p.global_latency_s + (1.0 - share) * p.reread_latency_s


def flop_rate(stats: KernelStats, p: ModelParams, vector: bool = False) -> float:
    """FLOP/s of the kernel's arithmetic: float64 where it computes in float64, else float32
    (multiply-adds: the peak counts 2 FLOP per madd); *vector*: the vector chains' figure (code
    the compiler vectorizes), where measured."""
    if any(k.startswith("float64:") for k in stats.ops):
        return p.dp_vector_flops if vector and p.dp_vector_flops else p.dp_flops
    return p.sp_vector_flops if vector and p.sp_vector_flops else p.sp_flops


def predict(stats: KernelStats, p: ModelParams, *, steps: int = 1,
            traffic: Mapping[str, float] | None = None,
            flops_per_update: float | None = None) -> Prediction:
    """Predicted time of one launch of *steps* sweeps; *traffic* (a temporal launch's
    ``tile_traffic``) replaces loopy's counts of global bytes, local bytes and barriers, and
    with *flops_per_update* its compute (point updates × flops per update)."""
    # loopy's op counts at their types' rates, or all it counts at the issue rate, whichever
    # is slower; the roof below uses them too
    t_ops = max(compute_time(stats, p), issue_time(stats, p))
    conc = _concurrency(stats, p)
    below_ridge = max(1.0, p.ridge_items_per_cu / conc)
    # a CPU runtime runs a barrier kernel's items one at a time (serial_lanes)
    serial = serial_lanes(traffic["barriers_per_group"] if traffic else stats.barriers_per_item,
                          p)
    if traffic and flops_per_update:
        # a scheme whose updates run as a loop along the contiguous axis (strip) is vectorized
        # by the compiler: the vector chains' rate
        loop = bool(traffic.get("vectorized_updates"))
        t_compute = traffic["point_updates"] * flops_per_update / flop_rate(stats, p, loop) \
            * serial * below_ridge
    else:
        t_compute = t_ops * serial * below_ridge
    dram, useful, held = memory_bytes(stats, p)
    if traffic:
        # a read-only array's loads beyond one of each element find their lines in the cache
        # (helmholtz3d's two-sweep streams under Nsight Compute: 2.2 GB from DRAM, the arrays
        # once, where every load counted is 3.6–3.9): the next level serves them
        dram = useful = held = traffic["global_read_bytes"] + traffic["global_write_bytes"] \
            - traffic.get("reread_read_only_bytes", 0.0)
    bandwidth = dram_bandwidth(stats, p)
    # the rows a work-group keeps open in each array leave a share of it (row_streams)
    row_share = group_row_share(stats, p)
    t_bw = dram / (bandwidth * row_share)
    fills = next_level_fills(stats, p) if not traffic else temporal_fills(traffic, p)
    t_l2 = next_level_time(fills, p)
    # a loop along the contiguous axis that the compiler vectorizes (a CPU; the strip's updates)
    # requests each line once, where a one-item group has no sub-group to merge its accesses
    per_access = loop_requests if traffic and traffic.get("vectorized_updates") \
        and p.vectorizes_loops else cache_requests
    per_site = [(a, per_access(a, stats, p)) for a in stats.accesses if a.space == "global"]
    requests = sum(n for _, n in per_site)
    # a wide store's requests beyond one a line, at the rate the store_requests benchmark
    # measured (without it they stay cache requests, at that rate); joined to the other memory
    # terms by its own exponent below
    excess = sum(wide_store_requests(a, p) for a in stats.accesses) \
        if p.store_requests_per_s and not traffic else 0.0
    requests -= excess
    t_store = excess / p.store_requests_per_s if excess else 0.0
    requests += spill_requests(stats, p)  # per-item memory, served by the same L1
    # requests that re-touch lines other instructions of the item brought in: lane-by-lane
    # ones (one per lane on the same chunk) and those whose lanes lie further apart than one
    # vector (a register-blocked row: the next block's instruction fills the gaps). The first
    # level holds those lines only while the resident sub-groups' lines fit it (_cache_reuse);
    # the rest go on to the next level
    lane_requests = sum(n for a, n in per_site if a.per_lane)
    gap_requests = sum(n for a, n in per_site if a.leaves_gaps)
    lane_hits = first_level_hit_share(stats, "per_lane_lines", conc, p)
    gap_hits = first_level_hit_share(stats, "subgroup_lines", conc, p)
    lane_misses, gap_misses = lane_requests * (1.0 - lane_hits), gap_requests * (1.0 - gap_hits)
    # a gather's requests at the gather rates request_overlap measured (one line a lane); the
    # lines new to its work-group at the next level's, whose benchmark's requests missed the
    # first level too: that rate prices their whole path
    gathers = sum(n for a, n in per_site if a.gather)
    missed = [(a, gather_misses(a, stats, p, n)) for a, n in per_site]
    gathered = sum(n for _, n in missed)
    requests -= gathers
    t_gather_first = (gathers - gathered) / p.first_gather_requests_per_s if gathers else 0.0
    t_gather_next = sum(n / next_gather_rate(gathered_bytes(a, stats, p), p)
                        for a, n in missed if n)
    retouching = lane_requests + gap_requests
    misses = lane_misses + gap_misses
    hits = 1.0 - misses / retouching if retouching else 1.0
    # a blocked row's misses find their sector in the last level only while every resident
    # item's lines fit it; the rest come from DRAM again, a sector each
    # (_cache_reuse.last_level_hit_share). Lane-by-lane misses are left out of DRAM: Jacobi's
    # branch-form rows of one or two vectors read 8–11 bytes a point from it, 8 compulsory, but
    # wider blocks 30–290 (counters, docs/tuning.md "Lane-by-lane rows under Nsight Compute");
    # sending their misses this way was tried there and priced the space no better
    if gap_misses and not traffic:
        dram += gap_misses * (1.0 - last_level_hit_share(stats, conc, p)) * p.sector_bytes
        t_bw = dram / bandwidth
    t_miss = misses / p.l2_requests_per_s if misses and p.l2_requests_per_s else 0.0
    t_req = requests / p.cache_requests_per_s + t_miss
    # Little's law on DRAM: bytes in flight = one access of each site per resident work item,
    # plus the asynchronous copies a temporal launch keeps in flight (loopy does not see them)
    per_item = float(sum(a.instruction_bytes for a in stats.accesses if a.space == "global"))
    per_item += (traffic or {}).get("copy_bytes_in_flight_per_item", 0.0)
    in_flight = conc * p.compute_units * per_item
    # loads that wait for one another's data (a chase; a gather in straight-line code) are not
    # all in flight at once, as Little's law assumes here: their rounds price them
    chained = float(stats.extra.get("chained_load_rounds") or 0)
    t_little = dram * p.global_latency_s / in_flight \
        if in_flight and p.little_over_items and not chained else 0.0
    # each resident item waits one latency per load round (a loop the code keeps, a tile's
    # fetch loop a round per block where the compiler unrolls it; a chained load's depth):
    # the waves of items per compute unit × rounds × the rounds' latency
    # (_stats._item_trace, _stats._fetch_unrolled_rounds, _stats._chained_load_rounds)
    trace = stats.extra.get("item_trace") or {}
    counted = trace.get("fetch_unrolled_rounds") if p.fetch_loops_unrolled else None
    rounds = max(float(counted or trace.get("load_rounds") or 0), chained)
    # where the code keeps no loop and the build's SASS was counted, the batches ptxas issued
    # its loads in (``_schedule.with_sass``): the float64 Jacobi rows of one source take 3
    # rounds at 54 registers and 5 at 44, 376 against 441 µs on the H200
    scheduled = stats.extra.get("sass_rounds")
    if scheduled and not counted and float(trace.get("load_rounds") or 0) <= 1.0:
        rounds = max(float(scheduled), chained)
    # a loop the code keeps whose SASS was counted: the rounds ptxas scheduled in its passes
    # (``_schedule.scheduled_loop_rounds``). As many as the model counts at the round latency,
    # fewer where ptxas batched iterations (box2d9's scalar stream: 3 in a pass of 4); those
    # beyond re-read lines the neighbours brought in, each at the cached round (cached_rounds:
    # 318 ns on the H200, the far L2 partition's, whatever the load)
    cached = 0.0
    in_loop = scheduled_loop_rounds(stats, store_instructions_per_item(stats, p)) \
        if rounds > 1.0 and not counted and not chained else None
    if in_loop is not None:
        cached, rounds = max(0.0, in_loop - rounds), min(rounds, in_loop)
    t_rounds = 0.0
    if rounds and not traffic:
        t_rounds = stats.work_items / max(p.compute_units, 1) / conc / round_lanes(stats, p) \
            * (rounds * round_latency(stats, p, dram) + cached * p.cached_round_s)
    t_lat = max(t_little, t_rounds)
    local = sum(a.bytes for a in stats.accesses if a.space == "local")
    if traffic:
        local = traffic["local_read_bytes"] + traffic["local_write_bytes"]
    local_eff = _bank_efficiency(stats, p)
    t_local = local / p.local_bw / local_eff * local_occupancy_factor(stats, p, conc)
    t_dispatch = stats.groups * p.group_dispatch_s
    waves = math.ceil(stats.groups / max(p.compute_units, 1))
    balance = stats.groups / (waves * p.compute_units) if waves else 1.0
    barriers = traffic["barriers_per_group"] if traffic else stats.barriers_per_item
    t_sync = barriers * stats.groups * max(
        0.0, p.barrier_group_s + p.barrier_item_s * stats.group_size) / p.compute_units
    divergence = 1.0 - 0.5 * stats.divergent_fraction
    t_compute /= divergence
    # items a CPU runtime's build left unvectorized issue one at a time (item_issue_time): no
    # lanes to fill below the ridge or to lose to divergence; a barrier's serialization is that
    # too, so the larger of the two. As lanes, the items would compute in t_compute / serial
    t_lanes = t_compute / serial
    t_compute = max(t_compute, item_issue_time(stats, p) if not traffic else 0.0)
    # the elements a CPU build gathers and scatters, a packed instruction's lane an item each,
    # at the rates the lane_gathers benchmark measured: the larger, as issue is
    t_compute = max(t_compute, lane_gather_time(stats, p) if not traffic else 0.0)
    exponent = p.overlap_vector_exponent if vectorized(stats) else p.overlap_scalar_exponent

    def combined(t_ops: float, t_dram: float, t_fill: float, t_requests: float,
                 *memory: float) -> float:
        # the first level's requests joined to DRAM's stream by the memory units' exponent and
        # to the next level's fills by the exponent fill_overlap measured (their own where it
        # is; the same exponent where not: the p-norm of the larger stream), that joined to the
        # other memory units by theirs; the gathers' requests joined to it by their measured
        # exponents, that joined with the arithmetic by the code's exponent, then the dispatch
        # term by its own; barriers add
        streamed = max(overlap((t_dram, t_requests), p.overlap_scalar_exponent),
                       overlap((t_fill, t_requests), p.fill_request_overlap_exponent))
        traffic = overlap((streamed, *memory), p.overlap_scalar_exponent)
        traffic = overlap((traffic, t_gather_first), p.first_request_overlap_exponent)
        traffic = overlap((traffic, t_gather_next), p.next_request_overlap_exponent)
        traffic = overlap((traffic, t_store), p.store_request_overlap_exponent)
        units = overlap((t_ops, traffic), exponent)
        return overlap((units, t_dispatch), p.dispatch_overlap_exponent) / balance + t_sync

    body = combined(t_compute, t_bw, t_l2, t_req, t_lat, t_local)
    # the same without the misses: the first_level_reuse criterion's speedup
    hit_all = combined(t_compute, t_bw, t_l2, t_req - t_miss, t_lat, t_local) if t_miss else body
    # the items run as lanes again (no barrier serializing them, a build that vectorized
    # them): item_serialization
    lockstep = combined(t_lanes, t_bw, t_l2, t_req, t_lat, t_local) if t_compute > t_lanes \
        else body
    # DRAM bytes were every re-read a cache hit: the dram_reuse criterion
    reuse = min(1.0, held / dram) if dram else 1.0
    all_held = combined(t_compute, t_bw * reuse, t_l2, t_req,
                        max(t_little * reuse, t_rounds), t_local) if reuse < 1.0 else body
    # DRAM's bandwidth whatever the rows a group keeps open: the group_rows criterion
    few_rows = combined(t_compute, t_bw * row_share, t_l2, t_req, t_lat, t_local) \
        if row_share < 1.0 else body
    # the groups' halos came at DRAM's pace: the first_level_fills criterion
    no_halo = combined(t_compute, t_bw, 0.0, t_req, t_lat, t_local) if t_l2 > t_bw else body
    # the last, partial wave of a loop's resident items waits its rounds at its own light load
    t_tail = wave_tail(stats, p, conc, rounds, dram, t_bw) if not traffic and not chained \
        else 0.0
    # an item's stores that a later load of the same array follows, over lines two sub-groups
    # share: that load waits (store_reload); the unit stalls, so it adds, as a barrier does
    t_reload = store_reload_time(stats, p) if not traffic else 0.0
    # a temporal launch's updates that read a global array wait for those loads, a step's
    # barrier keeping the group from running ahead: they add, as the reload waits do
    t_updates = update_latency(traffic, p, conc) if traffic else 0.0
    added = t_tail + t_reload + t_updates
    # no launch runs faster than its items at the floor the device starts and retires them at
    # (item_floor)
    t_items = item_floor(stats, p)
    floored = t_items > body + added
    time_s = t_items if floored else body + added
    terms = {"compute": t_compute, "memory_bandwidth": t_bw, "l2_bandwidth": t_l2,
             "cache_requests": t_req + t_gather_first + t_gather_next + t_store,
             "memory_latency": t_lat,
             "local_memory": t_local, "dispatch": t_dispatch, "barriers": t_sync,
             "wave_tail": t_tail, "store_reload": t_reload, "update_latency": t_updates,
             "item_floor": t_items, "launch": p.launch_s}
    # the launch overhead is shown, not added: the time is the kernel's execution (START→END)
    # the floor names the bottleneck where it is the time; where it is not, it limits nothing
    bottleneck = "item_floor" if floored else max(
        (k for k in terms if k not in ("launch", "item_floor")), key=lambda k: terms[k])
    # the roof: useful work at the peak of the limiting resource
    ideal = max(t_ops, useful / bandwidth if not p.cached or traffic
                else min(useful, sum(stats.footprint.values())) / bandwidth)
    criteria = _criteria(stats, p, terms, body, divergence, balance, conc, useful,
                         (local_eff, 1.0 / local_occupancy_factor(stats, p, conc)),
                         (hits, body / max(hit_all, 1e-30), gap_misses > lane_misses),
                         (reuse, body / max(all_held, 1e-30)),
                         (row_share, body / max(few_rows, 1e-30)),
                         (t_lanes / t_compute if t_compute else 1.0,
                          body / max(lockstep, 1e-30)),
                         (min(1.0, t_bw / t_l2) if t_l2 else 1.0, body / max(no_halo, 1e-30)),
                         t_tail, t_reload, t_updates, (t_items, body + added))
    counts = {"first_level_requests": requests, "retouch_hit_share": hits,
              "first_level_misses": misses, "dram_bytes": dram,
              "resident_items_per_cu": float(conc), "load_rounds": rounds,
              **({"next_level_fill_requests": fills[0], "next_level_fill_bytes": fills[1]}
                 if fills else {})}
    return Prediction(time_s, terms, bottleneck, criteria, time_s / max(ideal, 1e-30),
                      steps=steps, counts=counts)


def overlap(terms: tuple[float, ...], exponent: float) -> float:
    """(Σ tᵢᵖ)^(1/p) of concurrent terms (p = ∞: the largest alone). Scaled by the largest term
    first, so no power overflows."""
    top = max(terms)
    if math.isinf(exponent) or top <= 0.0:
        return top
    return top * sum((t / top) ** exponent for t in terms) ** (1.0 / exponent)


def local_ridge_items(stats: KernelStats, p: ModelParams) -> float:
    """Resident work items a compute unit needs to keep its local memory busy: Little's law on
    the measured local latency and bandwidth, each item keeping one local access in flight
    (the widest it makes). H200, 4-byte words: 30.9 cycles × 126 bytes a cycle / 4 = 972 items.
    0 where no local access is made, or on a CPU (a core's loop keeps its loads in flight
    however few items it runs: ``little_over_items``)."""
    sites = [a for a in stats.accesses if a.space == "local"]
    if not sites or not p.little_over_items:
        return 0.0
    width = max(a.instruction_bytes for a in sites)
    return p.local_latency_s * p.local_bw / max(p.compute_units, 1) / width


def local_occupancy_factor(stats: KernelStats, p: ModelParams, conc: float) -> float:
    """How much slower than its bandwidth local memory runs with *conc* items resident: below
    the ridge (``local_ridge_items``) the resident items' accesses in flight cannot cover the
    latency, and the rate falls with them (docs/tuning.md, "Local memory at few resident
    items")."""
    return max(1.0, local_ridge_items(stats, p) / max(conc, 1.0))


def _bank_efficiency(stats: KernelStats, p: ModelParams) -> float:
    """Local-memory accesses per transaction: strides sharing a bank serialize (32 banks)."""
    sites = [a for a in stats.accesses if a.space == "local"]
    if not sites:
        return 1.0
    total = sum(a.count for a in sites)
    eff = 0.0
    for a in sites:
        s = int(abs(a.lid0_stride)) if a.lid0_stride is not None else 1
        eff += a.count / (math.gcd(s, 32) if s else 1)
    return eff / total if total else 1.0


def _criteria(stats: KernelStats, p: ModelParams, terms: dict[str, float], body: float,
              divergence: float, balance: float, conc: float, useful: float,
              local: tuple[float, float], first_level: tuple[float, float, bool],
              dram_reuse: tuple[float, float], group_rows: tuple[float, float],
              serialization: tuple[float, float],
              fills: tuple[float, float], tail: float, reload: float, updates: float,
              floor: tuple[float, float]
              ) -> tuple[Criterion, ...]:
    total = max(body, 1e-30)
    mem_share = max(terms["memory_bandwidth"], terms["l2_bandwidth"], terms["memory_latency"],
                    terms["cache_requests"]) / total
    moved = sum(a.bytes / access_efficiency(a, p, stats) for a in stats.accesses
                if a.space == "global")
    granularity = min(1.0, useful / moved) if moved else 1.0
    occupancy = min(1.0, conc / p.ridge_items_per_cu)
    local_share = terms["local_memory"] / total
    sync = 1.0 - terms["barriers"] / total

    def sp(value: float, share: float = 1.0) -> float:
        # speedup if the criterion were 1, applied to the share of time it governs (at most
        # all of it: terms joined by a p-norm can add up to more than their total)
        share = min(share, 1.0)
        return 1.0 / (1.0 - share + share * value) if value > 0 else math.inf

    compute_share = terms["compute"] / total
    return (
        Criterion("divergence", divergence, sp(divergence, compute_share),
                  "branches on work-item indices: eliminate them (padded buffers) or align "
                  "them to sub-groups"),
        Criterion("access_granularity", granularity, sp(granularity, mem_share),
                  "neighbouring work items touch distant addresses: make the fastest index "
                  "follow local id 0 or vectorize"),
        Criterion("local_memory_efficiency", local[0], sp(local[0], local_share),
                  "bank conflicts in local memory: pad the tile"),
        # not one of seed 001's: resident items over the local ridge (Little's law on the
        # measured local latency and bandwidth, local_ridge_items); the local term was divided
        # by it, so the speedup is that term's share at the local bandwidth
        Criterion("local_occupancy", local[1], sp(local[1], local_share),
                  "too few work items resident to keep local memory busy (each keeps one "
                  "access in flight): fewer registers an item (a smaller block, a narrower "
                  "vector) or smaller tiles, so that more groups fit a compute unit"),
        # not one of seed 001's: the share of the re-touching requests (lane-by-lane ones, a
        # blocked row's gap-filling ones) the first level holds; the speedup is the model's time
        # without the requests that go on to the next level; the hint names the larger misser
        Criterion("first_level_reuse", first_level[0], first_level[1],
                  "a register-blocked row's next column comes back to lines the first-level "
                  "cache cannot hold for every resident sub-group (the loops nested inside the "
                  "column loop run in between): block fewer columns, or nest fewer rows inside "
                  "them" if first_level[2] else
                  "lane-by-lane vector code re-reads lines the first-level cache cannot hold "
                  "for every resident sub-group: make the vector accesses whole (a padded "
                  "boundary) or narrow the vector"),
        # not one of seed 001's: DRAM bytes were every re-read a hit over the predicted ones
        # (_cache_reuse.trace_miss_shares, last_level_hit_share's misses); the speedup is the
        # model's time with those bytes
        Criterion("dram_reuse", dram_reuse[0], dram_reuse[1],
                  "data is read again after the cache let it go: a blocked row streamed "
                  "through all its planes before the next row (stream the block's rows "
                  "together, or shorten the stream), or blocks whose resident items "
                  "together outgrow the last cache level (block fewer elements an item)"),
        # not one of seed 001's: the share of DRAM's bandwidth the rows a work-group keeps
        # open in each array leave (_row_streams.group_row_share, measured by row_streams); the
        # speedup is the model's time at one row's bandwidth
        Criterion("group_rows", group_rows[0], group_rows[1],
                  "each work-group keeps many rows of an array open at once, or each item "
                  "walks many rows one item at a time (worst where they lie a power of two "
                  "apart), and this device's DRAM streams them slower: flatter work-groups "
                  "(fewer rows, longer runs of each), fewer rows streamed an item, or padded "
                  "rows"),
        # not one of seed 001's: DRAM's time over the next level's for what the groups bring
        # into the first level (_cache_reuse.first_level_fills); the speedup is the model's
        # time were the fills no slower than DRAM's traffic
        Criterion("first_level_fills", fills[0], fills[1],
                  "every work-group fetches its halo (neighbour rows, a 3-D item's neighbour "
                  "planes) from the next level again: stream the outer axis through registers, "
                  "or make the groups larger along the axes the stencil reaches furthest"),
        # not one of seed 001's: the share of the time the arithmetic would take were the items
        # lanes, on a CPU runtime that runs them one at a time across barriers (serial_lanes)
        # or whose build did not vectorize them (item_issue_time); the speedup is the model's
        # time with its arithmetic vectorized again
        Criterion("item_serialization", serialization[0], serialization[1],
                  "this CPU runtime runs the items one at a time: work-group barriers (drop the "
                  "local tile or the barrier-synchronized temporal scheme; the strip scheme "
                  "needs none), or a build that did not vectorize the work-group's loop (a "
                  "work-group narrower than its vector step, a vector assembled lane by lane, "
                  "an item with a loop of its own: a wider work-group, whole-vector accesses, "
                  "no stream)"),
        Criterion("throughput_occupancy", occupancy, sp(occupancy, compute_share + mem_share),
                  "too few work items per compute unit to pass the ridge point: more or "
                  "larger work-groups, less work per item"),
        Criterion("load_balance", balance, 1.0 / balance,
                  "the last wave of work-groups leaves compute units idle"),
        # not one of seed 001's: the share of the time left were the last, partial wave of a
        # loop's resident items no slower than its share of the bandwidth (wave_tail)
        Criterion("wave_tail", total / (total + tail), (total + tail) / total,
                  "the last, partial wave of resident work items runs its loop's load rounds "
                  "at a light load: shorter loops (more, shorter items) or a launch of whole "
                  "waves"),
        # not one of seed 001's: the share of the time left were no load to wait for a store
        # to the same array over lines two sub-groups share (store_reload)
        Criterion("store_reload", total / (total + reload), (total + reload) / total,
                  "a load waits for the item's store to the same array, whose lines two "
                  "sub-groups share: update into a second array, or start the rows on a cache "
                  "line (a pad that puts each row's first element on a 128-byte boundary)"),
        # not one of seed 001's: the share of the time left were a temporal launch's updates
        # not to wait for the global arrays they read (update_latency)
        Criterion("update_latency", total / (total + updates), (total + updates) / total,
                  "each update waits for a global array it reads after the step's barrier: "
                  "hold the array in registers or the ring (the tile scheme loads read-only "
                  "arrays once), or more items resident to cover the wait"),
        # not one of seed 001's: the share of the items' floor (item_floor) the other terms
        # account for, where the floor is the time; the speedup is the time without the floor
        Criterion("item_floor", min(1.0, floor[1] / floor[0]) if floor[0] > floor[1] else 1.0,
                  max(1.0, floor[0] / max(floor[1], 1e-30)),
                  "each work item moves too little to cover what starting and retiring it "
                  "costs: more elements an item (a vector width, a stream along an axis), so "
                  "that fewer items move the same bytes"),
        Criterion("device_sync", sync, sp(sync),
                  "barriers per work item: fewer, larger tiles"),
    )
