"""Issue 15's terms against closed forms: register pressure, vector compute rates, neighbour
reuse through the caches; and their profile numbers' nominal fallbacks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gencl.model import Access, KernelStats, compute_stats, nominal_inputs, params_from, predict
from gencl.model._cache_reuse import dram_bytes, live_bytes
from gencl.model._predict import cache_requests, compute_time, memory_bytes
from gencl.model._stats import variant_stats
from gencl.model._registers import (
    ADDRESS_WORDS, registers_from_build_log, registers_per_item, resident_items_per_cu,
    with_build_log)
from gencl.model._vector_rate import vectorized

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 128,
       "registers_per_block": 65536}
CPU = {"name": "cpu", "device_type": "CPU", "compute_units": 2, "max_clock_hz": 2e9,
       "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 64}


def _stats(live_words=0.0, group=256, items=1 << 20, accesses=(), ops=None, footprint=None):
    return KernelStats(items, group, items // group, dict(ops or {}), tuple(accesses),
                       dict(footprint or {}), 0.0, 0.0, local_size=(group,),
                       extra={"live_private_words": live_words})


@pytest.mark.parametrize("registers, group, expected", [
    (ADDRESS_WORDS, 256, 2048),  # no private values: the scheduler's 2048 items
    (32, 256, 2048),    # 32 registers × 2048 = 65536: exactly full
    (64, 256, 1024),    # 64 registers: 1024 items (4 groups of 256)
    (64, 384, 768),     # 64 registers, groups of 384: two whole groups
    (1000, 256, 256),   # far beyond: one group (spills), never zero
])
def test_register_file_bounds_resident_items(registers, group, expected):
    p = params_from({}, GPU)
    stats = _stats(registers - ADDRESS_WORDS, group)
    assert registers_per_item(stats) == registers
    assert resident_items_per_cu(stats, p) == expected


def test_register_pressure_slows_a_latency_bound_kernel():
    p = params_from({"global_latency_cycles": 1000.0}, {**GPU, "compute_units": 1})
    a = Access("a", "global", "load", 4, 1, 1 << 20, 1)
    light = predict(_stats(32 - ADDRESS_WORDS, accesses=(a,), footprint={"a": 4 << 20}), p)
    heavy = predict(_stats(128 - ADDRESS_WORDS, accesses=(a,), footprint={"a": 4 << 20}), p)
    # Little's law: a quarter of the items resident, four times the latency term
    assert heavy.terms["memory_latency"] == pytest.approx(4 * light.terms["memory_latency"])


def test_cpu_has_no_register_limit_and_says_so():
    p = params_from({}, CPU)
    assert resident_items_per_cu(_stats(500, 64), p) == p.max_resident_per_cu
    assert p.sources["registers_per_block"] == "n/a"
    assert "registers_per_block" not in nominal_inputs("compute", p)
    assert "registers_per_block" in nominal_inputs("compute", params_from({}, {**GPU,
                                                   "registers_per_block": None}))


def test_build_log_registers_and_spills():
    log = ("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
           "ptxas info    : Function properties for k\n"
           "    0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
           "ptxas info    : Used 40 registers, 380 bytes cmem[0]")
    found = registers_from_build_log(log)
    assert (found.registers, found.spill_store_bytes, found.spill_load_bytes) == (40, 8, 8)
    assert registers_from_build_log("") is None


def test_the_build_logs_registers_replace_the_estimate_and_its_spills_cost_requests():
    """128 registers from the compiler: half the items of 64 resident, twice the latency term;
    24 + 24 bytes of spills per item: 48/128 line requests per item more."""
    p = params_from({"global_latency_cycles": 1000.0}, {**GPU, "compute_units": 1})
    a = Access("a", "global", "load", 4, 1, 1 << 20, 1)
    stats = _stats(0, accesses=(a,), footprint={"a": 4 << 20})
    log = ("ptxas         .     0 bytes stack frame, {s} bytes spill stores, {s} bytes spill "
           "loads\nptxas info    : Used {r} registers, used 0 barriers")
    at64 = with_build_log(stats, log.format(r=64, s=0))
    at128 = with_build_log(stats, log.format(r=128, s=24))
    assert registers_per_item(at64) == 64 and resident_items_per_cu(at64, p) == 1024
    assert with_build_log(stats, "no summary") is stats
    light, heavy = predict(at64, p), predict(at128, p)
    assert heavy.terms["memory_latency"] == pytest.approx(2 * light.terms["memory_latency"])
    extra = (heavy.terms["cache_requests"] - light.terms["cache_requests"]) \
        * p.cache_requests_per_s
    assert extra == pytest.approx(stats.work_items * 48 / 128)


def test_vectorized_code_is_priced_by_the_vector_chains():
    summary = {"sp_madd_peak_flops": 270e9, "sp_madd_scalar_peak_flops": 49e9}
    p = params_from(summary, CPU)
    assert p.sp_flops == 49e9 and p.sp_vector_flops == 270e9
    assert p.sources["sp_madd_peak_flops (vector)"] == "measured"
    ops = {"float32:add": 1e9, "float32:mul": 1e9}
    scalar = _stats(ops=ops, accesses=(Access("a", "global", "load", 4, 1, 1e6, 1),))
    vector = _stats(ops=ops, accesses=(Access("a", "global", "load", 4, 8, 1e6, 8),))
    lanes = _stats(ops=ops, accesses=(Access("a", "global", "load", 4, 8, 1e6, 8,
                                             per_lane=True),))
    assert not vectorized(scalar) and vectorized(vector) and not vectorized(lanes)
    # 1e9 madds = 2e9 flop over the rate of each
    assert compute_time(scalar, p) == pytest.approx(2e9 / 49e9)
    assert compute_time(vector, p) == pytest.approx(2e9 / 270e9)
    assert compute_time(lanes, p) == pytest.approx(2e9 / 49e9)


def test_vector_figure_missing_falls_back_to_the_one_figure_named():
    p = params_from({"sp_madd_peak_flops": 9e9}, CPU)  # no scalar figure apart
    assert p.sp_vector_flops == p.sp_flops == 9e9
    assert p.sources["sp_madd_peak_flops (vector)"] == "nominal"


@pytest.mark.parametrize("live, expected", [
    (0.5e6, 1e6),            # live set fits the 1 MB level: the re-reads are hits
    (4e6, 1e6 + 2e6 * 0.75),  # 4 MB live over 1 MB: three quarters of the re-reads miss
])
def test_neighbour_rereads_hit_while_the_live_set_fits(live, expected):
    p = params_from({"cache_levels": [{"size_bytes": 32e3}, {"size_bytes": 1e6}]}, GPU)
    assert p.cache_level_bytes == (32000, 1000000) and p.sources["cache_levels"] == "measured"
    assert dram_bytes(3e6, 1e6, live, p) == pytest.approx(expected)
    assert dram_bytes(0.5e6, 1e6, live, p) == 0.5e6  # fewer bytes than the array: no re-read
    sites = (Access("u", "global", "load", 4, 1, 1.0, 1),
             Access("u", "global", "load", 4, 4, 1.0, 4),
             Access("v", "local", "load", 4, 1, 1.0, 1))
    assert live_bytes(1000, sites) == 1000 * (4 + 16)


def _five_point(pitch):
    """out[i, j] = the 5-point sum of u around (i + 1, j + 1), u's rows *pitch* floats apart."""
    import loopy as lp
    import numpy as np

    return lp.make_kernel(
        "{[i, j]: 0 <= i, j < n}",
        "out[i, j] = u[i, j + 1] + u[i + 1, j] + u[i + 1, j + 1] + u[i + 1, j + 2] "
        "+ u[i + 2, j + 1]",
        [lp.GlobalArg("u", np.float32, shape=("n + 2", pitch)),
         lp.GlobalArg("out", np.float32, shape=("n", "n")), lp.ValueArg("n", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


def test_a_five_point_stencil_rereads_rows_from_the_cache_when_they_fit():
    """A 2-D 5-point stencil on a small grid: loopy counts five reads of u per point, the
    model moves u once (the rows fit the cache: one of five reads misses, the interior's
    footprint; the halo is not in one interior item's trace) and all five where the cache is
    tiny."""
    import loopy as lp

    knl = lp.split_iname(_five_point(pitch="n + 2"), "j", 32, inner_tag="l.0", outer_tag="g.0")
    knl = lp.split_iname(knl, "i", 4, inner_tag="l.1", outer_tag="g.1")
    n = 256
    stats = compute_stats(knl, {"n": n}, subgroup_size=32)
    fits = params_from({"cache_levels": [{"size_bytes": 4e6}]}, GPU)
    tiny = params_from({"cache_levels": [{"size_bytes": 1e3}]}, GPU)
    out = n * n * 4
    assert stats.extra["item_trace"]["length"] == 6  # five loads, one store
    assert memory_bytes(stats, fits)[0] == pytest.approx(n * n * 4 + out)
    assert memory_bytes(stats, tiny)[0] > 4.9 * n * n * 4 + out

def _blocked_streamed_rows(block):
    """out[j, k, i] = u[j, k, i] + u[j + 1, k, i] + u[j + 2, k, i]: each item takes *block*
    rows j in turn (unrolled) and streams each through all k before the next row."""
    import loopy as lp
    import numpy as np

    knl = lp.make_kernel(
        "{[i, j, k]: 0 <= i < n and 0 <= j < m and 0 <= k < nk}",
        "out[j, k, i] = u[j, k, i] + u[j + 1, k, i] + u[j + 2, k, i]",
        [lp.GlobalArg("u", np.float32, shape=("m + 2", "nk", "n")),
         lp.GlobalArg("out", np.float32, shape=("m", "nk", "n")), lp.ValueArg("n", np.int32),
         lp.ValueArg("m", np.int32), lp.ValueArg("nk", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 32, inner_tag="l.0", outer_tag="g.0")
    knl = lp.split_iname(knl, "j", block, inner_tag="unr", outer_tag="g.1")
    return lp.prioritize_loops(knl, "j_inner,k")


@pytest.mark.parametrize("cache, share_1, share_4", [
    (64e6, 1 / 3, 1 / 3),   # everything an item reads again is still cached: u once
    (256e3, 1 / 3, 1.0),    # a blocked row's rows come back a streamed loop later: missed
])
def test_reuse_distance_of_rows_blocked_around_a_streamed_loop(cache, share_1, share_4):
    """Three rows per point. One row per item: the neighbour rows are the next items' own rows,
    read a few positions apart (the wave moves ~40 KB between them), so only one read in three
    misses. Four rows per item, each streamed through k in turn: rows j+1 and j+2 come back
    as the item's own rows a whole streamed loop later (~0.5 MB of the wave's traffic)."""
    from gencl.model._cache_reuse import trace_miss_shares

    shares = {}
    for block in (1, 4):
        stats = compute_stats(_blocked_streamed_rows(block), {"n": 256, "m": 64, "nk": 16},
                              subgroup_size=32)
        trace = stats.extra["item_trace"]
        assert trace["length"] == block * 16 * 4  # 3 loads and a store per k of each row
        assert trace["extent"] == [256, 64 // block]
        assert trace["arrays"]["u"]["step"] == [4, block * 16 * 256 * 4]
        shares[block] = trace_miss_shares(trace, 2048, cache)
        assert set(shares[block]) == {"u"}  # out is only written
    assert shares[1]["u"] == pytest.approx(share_1, abs=0.01)
    assert shares[4]["u"] == pytest.approx(share_4, abs=0.01)


def test_explain_names_the_rereads_from_dram():
    """The dram_reuse criterion: DRAM bytes were every re-read a hit over the predicted ones.
    Four streamed rows per item with a 256 KB cache read u three times (u, then the store:
    (1 + 1) / (3 + 1)); one row per item reads it once."""
    p = params_from({"cache_levels": [{"size_bytes": 256e3}]}, GPU)
    value = {}
    for block in (1, 4):
        stats = compute_stats(_blocked_streamed_rows(block), {"n": 256, "m": 64, "nk": 16},
                              subgroup_size=32)
        criterion = {c.name: c for c in predict(stats, p).criteria}["dram_reuse"]
        value[block] = criterion.value
        assert criterion.speedup >= 1.0
    assert value[1] == pytest.approx(1.0, abs=0.01)
    assert value[4] == pytest.approx(0.5, abs=0.02)


@pytest.mark.parametrize("block, rounds", [(1, 16), (4, 64)])
def test_each_kept_loop_iteration_is_one_load_round(block, rounds):
    """The streamed loop stays a loop: each of its 16 iterations loads after the last one's
    data came; four unrolled rows are four such loops one after another."""
    stats = compute_stats(_blocked_streamed_rows(block), {"n": 1024, "m": 64, "nk": 16},
                          subgroup_size=32)
    assert stats.extra["item_trace"]["load_rounds"] == rounds


def _column_sums(term: str, row: str, items: int = 1 << 16) -> KernelStats:
    """Statistics of out[i] = Σₖ *term* over *items* items in groups of 64, the k loop (64
    iterations) kept; u is 64 rows of *row* elements."""
    import loopy as lp
    import numpy as np

    knl = lp.make_kernel(
        "{[i, k]: 0 <= i < n and 0 <= k < nk}", f"out[i] = sum(k, {term})",
        [lp.GlobalArg("u", np.float32, shape=("nk", row)),
         lp.GlobalArg("out", np.float32, shape=("n",)), lp.ValueArg("n", np.int32),
         lp.ValueArg("nk", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 64, inner_tag="l.0", outer_tag="g.0")
    return compute_stats(knl, {"n": items, "nk": 64}, subgroup_size=32)


def test_a_loop_of_dependent_loads_waits_one_latency_per_round():
    """out[i] = Σₖ u[k, i] with the k loop kept: 64 rounds of one 4-byte load per item. Each
    round costs the resident wave one global latency, twice what Little's law on the bytes
    in flight (one load and one store per item, 8 bytes) gives for this traffic."""
    import dataclasses

    stats = _column_sums("u[k, i]", "n")
    assert stats.extra["item_trace"]["load_rounds"] == 64
    p = params_from({"global_latency_cycles": 1000.0}, GPU)  # 1 µs at 1 GHz
    waves = stats.work_items / p.compute_units / 2048  # 2048 items resident per unit
    latency = predict(stats, p).terms["memory_latency"]
    assert latency == pytest.approx(waves * 64 * 1e-6)
    no_rounds = dataclasses.replace(stats, extra={
        **stats.extra, "item_trace": {**stats.extra["item_trace"], "load_rounds": 0}})
    little = predict(no_rounds, p).terms["memory_latency"]
    assert latency == pytest.approx(2 * little, rel=0.05)


def _loop_sums(domain: str, inner: str | None = None) -> KernelStats:
    """out[i] = Σ over the loops of *domain* of u[k, i] (u[k, j, i] with an *inner* loop
    j, each at most 4 trips), groups of 64 items, at k, j < 4 where a parameter bounds them."""
    import loopy as lp

    index, row = ("k, j, i", "4, 4, n") if inner else ("k, i", "16, n")
    knl = lp.make_kernel(
        domain, f"out[i] = sum({'(k, j)' if inner else 'k'}, u[{index}])",
        [lp.GlobalArg("u", np.float32, shape=f"({row})"),
         lp.GlobalArg("out", np.float32, shape=("n",)), lp.ValueArg("n", np.int32), ...],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 64, inner_tag="l.0", outer_tag="g.0")
    if inner:
        knl = lp.prioritize_loops(knl, "k,j")
    return compute_stats(knl, {"n": 1 << 14, "nk": 4, "nj": 4}, subgroup_size=32)


@pytest.mark.parametrize("domain, inner, rounds", [
    # constant bounds, 4 trips: the compiler unrolls it, its loads issue together
    ("{[i, k]: 0 <= i < n and 0 <= k < 4}", None, 1),
    # the same 4 trips bounded by a parameter: a loop in the compiled code, a round a pass
    ("{[i, k]: 0 <= i < n and 0 <= k < nk}", None, 4),
    # constant bounds beyond FULL_UNROLL_MAX_TRIPS (16 trips): not assumed unrolled
    ("{[i, k]: 0 <= i < n and 0 <= k < 16}", None, 16),
    # a constant outer loop around a loop the code keeps stays a loop: 4 × 4 rounds
    ("{[i, k, j]: 0 <= i < n and 0 <= k < 4 and 0 <= j < nj}", "j", 16),
    # a constant inner loop inside a kept one is unrolled: one round per outer pass
    ("{[i, k, j]: 0 <= i < n and 0 <= k < nk and 0 <= j < 4}", "j", 4),
])
def test_a_small_loop_of_constant_bounds_is_one_round(domain, inner, rounds):
    """loopy keeps an untagged loop a loop, but the OpenCL compilers unroll a small one whose
    bounds are constants (star3d_r4's 4-step radius loop times and uses the same registers
    kept as unrolled on the H200): its loads are one round, not one a pass."""
    from gencl.model._stats import FULL_UNROLL_MAX_TRIPS

    assert FULL_UNROLL_MAX_TRIPS < 16
    stats = _loop_sums(domain, inner)
    assert stats.extra["item_trace"]["load_rounds"] == rounds


def test_the_last_partial_wave_waits_its_rounds_at_its_own_load():
    """1.5 waves of the column sums (4 units × 2,048 resident items, 12,288 items): the last
    half wave's items each run 64 rounds with half a wave's bytes in flight; without a
    load_rounds curve a round takes ‖Λ, bytes in flight × units / bandwidth‖₂, and what that
    takes beyond the half wave's share of the DRAM term adds. Whole waves add nothing."""
    import math

    p = params_from({"global_latency_cycles": 1000.0}, GPU)  # Λ = 1 µs at 1 GHz
    assert p.sources["round_time_by_inflight"] == "nominal"
    stats = _column_sums("u[k, i]", "n", items=4 * 2048 * 3 // 2)
    pred = predict(stats, p)
    t_bw = pred.terms["memory_bandwidth"]
    dram = t_bw * p.dram_bw  # no footprint staircase: the copy bandwidth prices DRAM
    in_flight = 0.5 * 2048 * dram / stats.work_items / 64  # bytes per unit, one round
    expected = 64 * math.hypot(1e-6, in_flight * 4 / p.dram_bw) - t_bw * 0.5 / 1.5
    assert expected > 0
    assert pred.terms["wave_tail"] == pytest.approx(expected)
    tail = next(c for c in pred.criteria if c.name == "wave_tail")  # it adds to the rest
    assert tail.value == pytest.approx((pred.time_s - expected) / pred.time_s)
    assert tail.speedup == pytest.approx(pred.time_s / (pred.time_s - expected))
    whole = predict(_column_sums("u[k, i]", "n", items=4 * 2048 * 2), p)
    assert whole.terms["wave_tail"] == 0.0
    cpu = params_from({}, CPU)
    assert predict(stats, cpu).terms["wave_tail"] == 0.0


def test_a_measured_round_curve_prices_the_round_in_log_log():
    """With load_rounds' curve in the profile a round's time is read off it, interpolated in
    log-log between its points, flat below the first and at the last point's bandwidth past
    the last; the profile says so."""
    from gencl.model._predict import loaded_round_s

    curve = [{"inflight_bytes_per_cu": 1024, "round_s": 4e-7},
             {"inflight_bytes_per_cu": 16384, "round_s": 1.6e-6}]
    p = params_from({"global_latency_cycles": 1000.0, "round_time_by_inflight": curve}, GPU)
    assert p.sources["round_time_by_inflight"] == "measured"
    assert loaded_round_s(4096, p) == pytest.approx(8e-7)  # halfway in log: √(4e-7 · 1.6e-6)
    assert loaded_round_s(256, p) == pytest.approx(4e-7)
    assert loaded_round_s(65536, p) == pytest.approx(6.4e-6)


def _gather(src: str) -> KernelStats:
    """Statistics of *src* over 256 items in groups of 32, the k loop (10 iterations) kept:
    val and col are 10 rows of 256 (a slot's rows side by side), x is 256 floats."""
    import loopy as lp

    knl = lp.make_kernel(
        "{[i, k]: 0 <= i < n and 0 <= k < K}", src,
        [lp.GlobalArg("val", np.float32, shape=("K", "n")),
         lp.GlobalArg("col", np.int32, shape=("K", "n")),
         lp.GlobalArg("x", np.float32, shape=("n",)),
         lp.GlobalArg("y", np.float32, shape=("n",), is_output=True),
         lp.ValueArg("n", np.int32), lp.ValueArg("K", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 32, outer_tag="g.0", inner_tag="l.0")
    return compute_stats(knl, {"n": 256, "K": 10}, subgroup_size=32)


@pytest.mark.parametrize("src, rounds", [
    # a chase in the kept k loop: each pass waits for the last one's load
    ("""
     for i
         <> p = i {id=start}
         for k
             p = col[k, p] {id=step, dep=start}
         end
         y[i] = p {dep=step}
     end
     """, 10),
    # straight-line code, no loop: x waits for col, and y's store for both
    ("""
     <> j = col[0, i] {id=index}
     y[i] = x[j] {dep=index}
     """, 2),
    # indices of inames only: nothing waits for another load's data
    ("y[i] = sum(k, val[k, i] * x[i])", 0)])
def test_a_load_that_reads_its_index_from_a_loads_value_waits_for_it(src, rounds):
    stats = _gather(src)
    assert stats.extra["chained_load_rounds"] == rounds


@pytest.mark.parametrize("unroll, rounds", [("none", 0), (2, 0), ("full", 2)])
def test_a_gathers_passes_are_no_chain(unroll, rounds):
    """spmv_ell's x[j], j = col[k, i]: an index the same pass loads. Its passes do not wait for
    one another (the compiler may overlap them), so a kept or split slot loop counts no round;
    unrolled whole, it is straight-line code where x waits for col: two."""
    from gencl.api import load

    spec = load("spmv_ell")
    point = spec.complete({"unroll": unroll})
    stats = variant_stats(spec, point, spec.verify_sizes(point, None), subgroup_size=32)
    assert stats.extra["item_trace"] is None  # x's index is no affine map
    assert stats.extra["chained_load_rounds"] == rounds


@pytest.mark.parametrize("chains, steps", [(1, 50), (4, 20)])
def test_a_chase_is_one_round_a_step_and_not_littles_law(chains, steps):
    """The load_rounds kernel: every item's chains step together, each step's address the last
    step's value; K steps are K rounds whatever the chains (the item trace has no access map
    for such an index). Its latency term is one wave × K × Λ: Little's law, which would count
    one load of each site in flight per item, does not apply to loads that wait in turn."""
    from gencl.spec import load_spec

    spec = load_spec("load_rounds")
    point = spec.complete({"items_per_cu": 64, "chains": chains})
    sizes = {"m": 64 * GPU["compute_units"], "K": steps}
    stats = variant_stats(spec, point, sizes, subgroup_size=32)
    assert stats.extra["item_trace"] is None
    assert stats.extra["chained_load_rounds"] == steps
    p = params_from({"global_latency_cycles": 1000.0}, GPU)  # 1 µs at 1 GHz; one wave
    assert predict(stats, p).terms["memory_latency"] == pytest.approx(steps * 1e-6)
    walk = load_spec("random_walk")
    walked = variant_stats(walk, walk.complete({"memory": "global", "footprint": 1 << 20}),
                           {"n": 1 << 18, "K": steps, "granule": 1 << 21}, subgroup_size=32)
    assert walked.extra["chained_load_rounds"] == steps  # the start (state[0]) is no round


def test_a_round_that_rereads_its_neighbours_lines_waits_at_the_largest_cache_level():
    """out[i] = Σₖ (u[k, i] + u[k, i + 1]): each value of u is read twice, by two items, and
    moved from DRAM once. A round's latency mixes the two: DRAM's for the share of the bytes
    that come from DRAM, the largest measured cache level's for the re-read rest; with no level
    measured, DRAM's."""
    from gencl.model._predict import round_latency

    stats = _column_sums("u[k, i] + u[k, i + 1]", "n + 1")
    levels = [{"size_bytes": 1e5, "latency_cycles": 40.0},
              {"size_bytes": 4e6, "latency_cycles": 400.0}]
    p = params_from({"global_latency_cycles": 1000.0, "cache_levels": levels}, GPU)
    assert p.reread_latency_s == pytest.approx(400e-9)
    dram = memory_bytes(stats, p)[0]
    share = dram / sum(a.bytes for a in stats.accesses if a.space == "global")
    assert share == pytest.approx(0.5, abs=0.02)
    assert round_latency(stats, p, dram) == pytest.approx(share * 1e-6 + (1 - share) * 400e-9)
    bare = params_from({"global_latency_cycles": 1000.0}, GPU)
    assert round_latency(stats, bare, dram) == pytest.approx(1e-6)


def test_a_neighbour_past_the_arrays_edge_is_no_neighbour():
    """Four rows per item on a 100 × 100 grid, rows 116 floats apart, work-groups 64 wide: the
    launch rounds up to 128 items a row, so "the item 116 along" would read the next row. It
    does not exist: the items along each axis are those the domain runs (100), and one read in
    five misses (each item's four rows, one new element a point)."""
    import loopy as lp

    from gencl.model._cache_reuse import trace_miss_shares

    knl = lp.split_iname(_five_point(pitch="n + 16"), "j", 64, inner_tag="l.0", outer_tag="g.0")
    knl = lp.split_iname(knl, "i", 4, inner_tag="unr")
    knl = lp.split_iname(knl, "i_outer", 4, inner_tag="l.1", outer_tag="g.1")
    trace = compute_stats(knl, {"n": 100}, subgroup_size=32).extra["item_trace"]
    assert trace["extent"] == [100, 25] and trace["groups"] == [2, 7]
    assert trace["arrays"]["u"]["step"] == [4, 4 * 116 * 4]
    assert trace_miss_shares(trace, 1000, 1e9) == {"u": pytest.approx(0.2)}


def _rows_read_by(layout: str, whole_groups: bool = True):
    """Each work item sums 8 rows of a (8, n) array; "blocked": the columns in blocks of one
    work-group, every row of a group's block together (clpeak's "local offset" layout)."""
    import loopy as lp
    import numpy as np

    index = "src[r, i]" if layout == "strided" else "src[(i // 64) * 8 + r, i % 64]"
    shape = ("8", "n") if layout == "strided" else ("n // 8", "64")
    knl = lp.make_kernel(
        "{[i, r]: 0 <= i < n and 0 <= r < 8}",
        f"""
        for i
            <> acc = 0 {{id=init}}
            for r
                acc = acc + {index} {{id=sum, dep=init}}
            end
            dst[i] = acc {{dep=sum}}
        end
        """,
        [lp.GlobalArg("src", np.float32, shape=shape),
         lp.GlobalArg("dst", np.float32, shape=("n",), is_output=True),
         lp.ValueArg("n", np.int32)], lang_version=(2018, 2))
    if whole_groups:
        knl = lp.assume(knl, "n mod 64 = 0 and n >= 64")
    knl = lp.split_iname(knl, "i", 64, inner_tag="l.0", outer_tag="g.0")
    return lp.tag_inames(knl, {"r": "unr"})


def test_a_layout_blocked_by_work_group_is_no_grid_of_the_items():
    """Blocked by work-group, the next group's item reads what this group's next row holds: a
    trace translated by the global id would take each read for a re-read of a neighbour's
    (DRAM a fraction of the bytes). The trace checks the next group too and, finding no one
    step, leaves the array to the live-set rule: every byte from DRAM once, as read row-wise."""
    p = params_from({"cache_levels": [{"size_bytes": 2e5}], "copy_bw_Bps": 1e12}, GPU)
    moved = {}
    for layout in ("strided", "blocked"):
        stats = compute_stats(_rows_read_by(layout), {"n": 1 << 16}, subgroup_size=32)
        moved[layout] = memory_bytes(stats, p)[0]
        arrays = stats.extra["item_trace"]["arrays"]
        assert ("src" in arrays) == (layout == "strided")
    assert moved["blocked"] == pytest.approx(moved["strided"])
    assert moved["strided"] == pytest.approx(4 * 8 * (1 << 16) + 4 * (1 << 16))
    # a last group the domain only starts (129 items in groups of 64: the third holds one)
    # has no item beside the middle group's: the group before stands in, the grid is kept
    trace = compute_stats(_rows_read_by("strided", whole_groups=False), {"n": 129},
                          subgroup_size=32).extra["item_trace"]
    assert trace["groups"] == [3] and trace["arrays"]["src"]["step"] == [4]


def test_the_reuse_cache_is_the_largest_level_well_below_dram_latency():
    """A level answering at more than half the DRAM latency (the H200's far L2 partition: 533
    of 691 cycles) does not spare DRAM a re-read; one without a latency counts."""
    levels = [{"size_bytes": 2e5, "latency_cycles": 41},
              {"size_bytes": 27e6, "latency_cycles": 288},
              {"size_bytes": 54e6, "latency_cycles": 533}]
    p = params_from({"cache_levels": levels, "global_latency_cycles": 691}, GPU)
    assert p.reuse_cache_bytes == 27_000_000 and p.cache_bytes == 54_000_000
    p = params_from({"cache_levels": [{"size_bytes": 4e6}]}, GPU)
    assert p.reuse_cache_bytes == 4_000_000
    assert params_from({}, GPU).reuse_cache_bytes == 1 << 20  # the driver's figure


def test_no_trace_falls_back_to_the_live_set_rule():
    from gencl.model._cache_reuse import trace_miss_shares

    assert trace_miss_shares(None, 2048, 1e6) == {}
    stats = _stats(accesses=(Access("u", "global", "load", 4, 1, 3e6 / 4, 1),),
                   footprint={"u": 1e6})
    p = params_from({"cache_levels": [{"size_bytes": 4e6}]}, GPU)
    assert memory_bytes(stats, p)[0] == pytest.approx(1e6)  # re-reads hit: the footprint once


def _lane_by_lane_stencil(rows, group=(32, 4)):
    """out[i, j, :] = u[i + r, j, :] summed over *rows* rows, a float8 vector per item whose
    lanes loopy emits one by one (the store is predicated on the vector iname), in *group*
    work-groups (j along local axis 0)."""
    import loopy as lp
    import numpy as np

    knl = lp.make_kernel(
        "{[i, j, v]: 0 <= i, j < n and 0 <= v < 8}",
        "out[i, j, v] = " + " + ".join(f"u[i + {r}, j, v]" for r in range(rows))
        + " if v < m else 0",
        [lp.GlobalArg("u", np.float32, shape=(f"n + {rows}", "n", 8)),
         lp.GlobalArg("out", np.float32, shape=("n", "n", 8)), lp.ValueArg("n", np.int32),
         lp.ValueArg("m", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.tag_array_axes(knl, "u,out", "c,c,vec")
    knl = lp.split_iname(knl, "j", group[0], inner_tag="l.0", outer_tag="g.0")
    knl = lp.split_iname(knl, "i", group[1], inner_tag="l.1", outer_tag="g.1")
    return lp.tag_inames(knl, {"v": "vec"})


def test_lane_by_lane_lines_of_a_subgroup_counted_exactly():
    """The lines a warp holds through lane-by-lane instructions: 32 items × 8 floats = 1 KiB =
    8 lines of 128 B per row of u read and per row of out written, the 4 warps of a 32 × 4
    group sharing what they share: with 3 rows read an item, the group's warps read rows
    0-5 of u (6 distinct, not 4 × 3) and write 4 rows of out, 10 rows of 8 lines for 4 warps."""
    from gencl.model._stats import _per_lane_insns

    for rows in (1, 3):
        knl = _lane_by_lane_stencil(rows)
        assert _per_lane_insns(knl), "loopy must emit this store lane by lane"
        stats = compute_stats(knl, {"n": 256, "m": 8}, subgroup_size=32)
        distinct = (4 + rows - 1) + 4  # rows of u and of out the group touches
        assert stats.extra["per_lane_lines"] == {"32": 32 * distinct / 4,
                                                 "64": 16 * distinct / 4,
                                                 "128": 8 * distinct / 4}


def test_lane_lines_a_row_of_subgroups_shares_none():
    """A 128 × 1 group's 4 warps lie side by side along a row: they share no line (each its
    own 8 lines of each of the 3 rows of u and of the row of out), so each holds as many as
    a warp alone."""
    knl = _lane_by_lane_stencil(3, group=(128, 1))
    stats = compute_stats(knl, {"n": 512, "m": 8}, subgroup_size=32)
    assert stats.extra["per_lane_lines"] == {"32": 32 * 4, "64": 16 * 4, "128": 8 * 4}


def test_lane_lines_come_from_a_full_group_where_the_second_of_two_is_ragged():
    """n = 33 columns in groups of 32 items: two groups along axis 0, the second holding one
    column. Its sub-groups would count one item's lines (1 line a row); the first group's
    full ones touch 1 KiB a row, as at n = 256. Rows of 33 × 32 B start off the line
    boundaries: the group's rows 4-7 of each array span 16 + 17 + 16 + 17 lines of 64 B and
    8 + 9 + 8 + 8 new lines of 128 B (the misaligned rows share a line with the row before),
    over its 4 warps."""
    stats = compute_stats(_lane_by_lane_stencil(1), {"n": 33, "m": 8}, subgroup_size=32)
    assert stats.extra["per_lane_lines"] == {"32": 64, "64": 2 * 66 / 4, "128": 2 * 33 / 4}



def _blocked_columns_and_rows(columns_outer):
    """out[i, j] = 2 u[i, j] with 2 columns (lanes 2 floats apart: each instruction leaves a
    gap the next column fills) and 2 rows per item, both unrolled, in either loop order."""
    import loopy as lp
    import numpy as np

    knl = lp.make_kernel(
        "{[i, j]: 0 <= i, j < n}", "out[i, j] = 2 * u[i, j]",
        [lp.GlobalArg("u", np.float32, shape=("n", "n")),
         lp.GlobalArg("out", np.float32, shape=("n", "n")), lp.ValueArg("n", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.split_iname(knl, "j", 2, inner_iname="jb", outer_iname="jl", inner_tag="unr")
    knl = lp.split_iname(knl, "jl", 32, inner_tag="l.0", outer_tag="g.0")
    knl = lp.split_iname(knl, "i", 2, inner_iname="ib", outer_iname="il", inner_tag="unr")
    knl = lp.split_iname(knl, "il", 4, inner_tag="l.1", outer_tag="g.1")
    return lp.prioritize_loops(knl, "jb,ib" if columns_outer else "ib,jb")


@pytest.mark.parametrize("columns_outer, rows", [(True, 2), (False, 1)])
def test_gap_lines_span_the_loops_nested_inside_the_gap_filling_one(columns_outer, rows):
    """A warp's 32 lanes, 8 B apart, touch 256 B = 2 lines of 128 B (8 sectors of 32 B) of a
    row of u and of out; the next column's instruction comes back to them. With the column
    unroll outside the row unroll both rows run before it does: 2 rows' lines between a touch
    and its re-touch; with the rows outside, one row's."""
    stats = compute_stats(_blocked_columns_and_rows(columns_outer), {"n": 512},
                          subgroup_size=32)
    assert stats.extra["subgroup_lines"] == {"32": 16.0 * rows, "64": 8.0 * rows,
                                             "128": 4.0 * rows}

@pytest.mark.parametrize("resident, hit", [(512, 1.0), (2048, 0.5)])
def test_lane_by_lane_rereads_miss_the_first_level_beyond_its_size(resident, hit, capsys):
    """hit = min(1, L1 / (resident warps × lines per warp × line)); the misses cost one more
    request each at the measured next-level rate."""
    from gencl.model._cache_reuse import first_level_hit_share
    from gencl.model._predict import cache_requests

    lines = 16  # per warp, 128-B lines: 2 KiB
    l1 = 2048 / 32 * lines * 128 / 2  # half of what 2048 resident items hold
    summary = {"cache_levels": [{"size_bytes": l1}, {"size_bytes": 8e6}],
               "cache_requests_per_s": 1e11, "l2_requests_per_s": 4e10,
               "group_dispatch_s": 1e-15, "copy_bw_Bps": 1e15,  # the requests decide
               "global_latency_cycles": 1.0, "sp_madd_scalar_peak_flops": 1e18}  # not the issue
    p = params_from(summary, {**GPU, "registers_per_block": None})
    lane = Access("u", "global", "load", 4, 8, 1 << 20, 8.0, per_lane=True)
    whole = Access("f", "global", "load", 4, 8, 1 << 20, 8.0)
    stats = KernelStats(1 << 17, 256, 512, {}, (lane, whole), {"u": 4 << 20, "f": 4 << 20},
                        0.0, 0.0, local_size=(256,), extra={"per_lane_lines": {"128": lines}})
    assert first_level_hit_share(stats, "per_lane_lines", resident, p) == pytest.approx(hit)
    requests = cache_requests(lane, stats, p) + cache_requests(whole, stats, p)
    misses = cache_requests(lane, stats, p) * \
        (1 - first_level_hit_share(stats, "per_lane_lines", 2048, p))
    pred = predict(stats, p)
    t = pred.terms["cache_requests"]
    assert t == pytest.approx(requests / 1e11 + misses / 4e10)
    assert misses > 0
    # what the term prices, as a counter reads it (explain prints it; --json: counts)
    assert pred.counts["first_level_requests"] == pytest.approx(requests)
    assert pred.counts["first_level_misses"] == pytest.approx(misses)
    assert pred.counts["retouch_hit_share"] == pytest.approx(0.5)  # 2048 items resident
    assert pred.counts["resident_items_per_cu"] == 2048
    assert pred.counts["dram_bytes"] == pytest.approx(8 << 20)  # each array read once
    if resident == 2048:  # once: explain prints them
        from gencl.model._report import print_explanation

        capsys.readouterr()
        print_explanation("k", {}, {}, stats, pred, p)
        out = " ".join(capsys.readouterr().out.split())
        assert f"{requests:.3g} first-level requests ({requests / 4096:,.0f} a sub-group)" in out
        assert f"50 % of the re-touches hit, {misses:.3g} go on to the next level" in out
    # explain's criterion: the share that hits, and the time without the misses
    reuse = {c.name: c for c in pred.criteria}["first_level_reuse"]
    assert reuse.value == pytest.approx(0.5)
    assert "lane-by-lane" in reuse.hint
    assert pred.bottleneck == "cache_requests"
    assert reuse.speedup == pytest.approx(t / (t - misses / 4e10))
    # without a line count, or without a measured first level, every request hits
    bare = KernelStats(1 << 17, 256, 512, {}, (lane, whole), {"u": 4 << 20, "f": 4 << 20},
                       0.0, 0.0, local_size=(256,))
    assert predict(bare, p).terms["cache_requests"] == pytest.approx(requests / 1e11)
    assert {c.name: c for c in predict(bare, p).criteria}["first_level_reuse"].speedup == 1.0
    assert first_level_hit_share(stats, "per_lane_lines", 2048,
                                 params_from({}, GPU)) == 1.0


@pytest.mark.parametrize("stride, gaps", [(4.0, False), (8.0, True), (16.0, True)])
def test_blocked_rows_with_gaps_miss_the_first_level_beyond_its_size(stride, gaps):
    """float4 lanes 4 elements apart fill their lines; 8 or 16 apart (a row blocked by 2 or 4
    vectors per item) each instruction touches lines the next block's instruction comes back
    to: with the sub-group's lines (all its instructions) twice what the first level holds
    for 2048 resident items, half of those requests miss and cost one more at the next level."""
    from gencl.model._predict import cache_requests

    lines = 16
    l1 = 2048 / 32 * lines * 128 / 2
    summary = {"cache_levels": [{"size_bytes": l1}, {"size_bytes": 8e6}],
               "cache_requests_per_s": 1e11, "l2_requests_per_s": 4e10,
               "group_dispatch_s": 1e-15, "copy_bw_Bps": 1e15, "global_latency_cycles": 1.0}
    p = params_from(summary, {**GPU, "registers_per_block": None})
    row = Access("u", "global", "load", 4, 4, 1 << 20, stride)
    stats = KernelStats(1 << 17, 256, 512, {}, (row,), {"u": 4 << 20}, 0.0, 0.0,
                        local_size=(256,), extra={"subgroup_lines": {"128": lines}})
    requests = cache_requests(row, stats, p)
    misses = requests / 2 if gaps else 0.0
    pred = predict(stats, p)
    assert pred.terms["cache_requests"] == pytest.approx(requests / 1e11 + misses / 4e10)
    reuse = {c.name: c for c in pred.criteria}["first_level_reuse"]
    assert reuse.value == pytest.approx(0.5 if gaps else 1.0)
    if gaps:  # explain's hint names the blocked row, not lane-by-lane code
        assert "register-blocked row" in reuse.hint and "lane-by-lane" not in reuse.hint


def test_next_level_rate_falls_back_to_the_first_levels_and_says_so():
    p = params_from({"cache_requests_per_s": 2e11}, GPU)
    assert p.l2_requests_per_s == 2e11 and p.sources["l2_requests_per_s"] == "nominal"
    assert "l2_requests_per_s" in nominal_inputs("cache_requests", p)
    measured = params_from({"cache_requests_per_s": 2e11, "l2_requests_per_s": 1e11}, GPU)
    assert measured.l2_requests_per_s == 1e11
    assert nominal_inputs("cache_requests", measured) == []


def test_accuracy_report_names_held_out_kernels(capsys):
    """``gencl explain --accuracy`` says whether the terms were developed on the kernel."""
    import json
    from pathlib import Path

    from gencl.cli import main

    root = Path(__file__).parents[2]
    registry = json.loads((root / "tuning" / "model_developed_on.json").read_text())
    developed = sorted(registry["developed_on"])
    assert "jacobi" in developed and "copy" not in developed
    cache = root / "tests" / "tune_tests" / "data" / "copy_space.json"
    assert main(["explain", "copy", "--accuracy", str(cache)]) == 0
    text = capsys.readouterr().out
    assert "predicted (held out)" in text
    assert "developed on " + ", ".join(developed) in text
    assert main(["explain", "copy", "--accuracy", str(cache), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model_role"] == "predicted (held out)" and data["spec"] == "copy"
    assert data["model_heldout"]["developed_on"] == developed


def _shifted_neighbours(guarded):
    """out[i, :] = w + u[i, :] + e on float8 rows, w and e the lanes shifted by one (a 1-D
    3-point stencil in vector form, written here, not by gencl's vector knob). The shifted
    lanes cannot be one vector instruction, so loopy emits them lane by lane; *guarded* puts
    the east lanes under a predicate on the lane (an ``if`` block: each lane its own branch)."""
    import loopy as lp
    import numpy as np

    east = "e[v] = u[i + (v + 1) // 8, (v + 1) % 8] {id=east}"
    knl = lp.make_kernel(
        "{[i, v]: 1 <= i < n and 0 <= v < 8}",
        "w[v] = u[i + (v - 1) // 8, (v - 1) % 8] {id=west}\n"
        + (f"if v < m\n  {east}\nend" if guarded else east)
        + "\nout[i, v] = w[v] + u[i, v] + e[v] {id=update}",
        [lp.GlobalArg("u", np.float32, shape=("n + 1", 8)),
         lp.GlobalArg("out", np.float32, shape=("n + 1", 8)), lp.ValueArg("n", np.int32),
         lp.ValueArg("m", np.int32),
         *(lp.TemporaryVariable(t, np.float32, shape=(8,), address_space=lp.AddressSpace.PRIVATE)
           for t in "we")],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.tag_array_axes(knl, "u,out", "c,vec")
    knl = lp.tag_array_axes(knl, "w,e", "vec")
    knl = lp.split_iname(knl, "i", 64, inner_tag="l.0", outer_tag="g.0")
    return lp.tag_inames(knl, {"v": "vec"})


@pytest.mark.parametrize("guarded", [False, True])
def test_shifted_lanes_load_whole_vectors_once(guarded):
    """The update loads row i whole. The west lanes reach rows i-1 and i: one more float8
    load; the east lanes rows i and i+1: one more; 24 lanes per item in all, none lane by
    lane. Guarded, each east lane is its own branch and keeps loopy's one load per lane (8,
    lane by lane)."""
    from gencl.model._stats import _lane_vector_loads, _per_lane_insns

    knl = _shifted_neighbours(guarded)
    lanes = _per_lane_insns(knl)
    assert lanes == {"west", "east"}
    whole = _lane_vector_loads(knl.default_entrypoint, lanes)
    # of row i-1 the west lanes read lane 7, of row i+1 the east lanes lane 0
    assert whole == ({"west": {"u": (1, 1, ("8:7",))}} if guarded else
                     {"west": {"u": (1, 1, ("8:7",))}, "east": {"u": (1, 1, ("8:0",))}})
    stats = compute_stats(knl, {"n": 1024, "m": 8}, subgroup_size=32)
    items = stats.work_items  # loopy counts the launched items: 16 groups of 64
    assert items == 1024
    loads = [a for a in stats.accesses if a.array == "u"]
    assert all(a.vec_width == 8 for a in loads)
    assert sum(a.count for a in loads if not a.per_lane) == \
        pytest.approx((16 if guarded else 24) * items)
    assert sum(a.count for a in loads if a.per_lane) == \
        pytest.approx((8 if guarded else 0) * items)
    assert not any(a.per_lane for a in stats.accesses if a.array == "out")


@pytest.mark.parametrize("footprint, expected", [
    (1 << 20, 400e9),           # below the staircase: its first step
    (4 << 20, 400e9),
    (8 << 20, (400e9 * 100e9) ** 0.5),  # halfway in log footprint: the geometric mean
    (16 << 20, 100e9),
    (1 << 30, 100e9),           # beyond it: its last step
])
def test_bandwidth_of_a_launch_is_the_staircases_at_its_footprint(footprint, expected):
    # a CPU whose copy benchmark says 74 GB/s, and whose staircase says 400 GB/s up to 4 MiB
    # of buffers and 100 GB/s from 16 MiB on
    summary = {"copy_bw_Bps": 74e9, "bandwidth_by_footprint": [
        {"footprint_bytes": 16 << 20, "bandwidth_Bps": 100e9},
        {"footprint_bytes": 4 << 20, "bandwidth_Bps": 400e9}]}
    p = params_from(summary, CPU)
    assert p.sources["bandwidth_by_footprint"] == "measured"
    a = Access("a", "global", "load", 4, 1, footprint // 8, 1)
    b = Access("b", "global", "store", 4, 1, footprint // 8, 1)
    stats = _stats(accesses=(a, b), items=footprint // 8,
                   footprint={"a": footprint / 2, "b": footprint / 2})
    moved = footprint  # each array once
    assert predict(stats, p).terms["memory_bandwidth"] == pytest.approx(moved / expected)
    # no staircase: the copy bandwidth at every footprint, said to be so
    bare = params_from({"copy_bw_Bps": 74e9}, CPU)
    assert bare.sources["bandwidth_by_footprint"] == "nominal"
    assert predict(stats, bare).terms["memory_bandwidth"] == pytest.approx(moved / 74e9)


def test_a_cpu_core_hides_latency_however_few_items_it_runs():
    # two work items a compute unit, one float load each: a GPU's resident items cannot keep
    # the bytes in flight that the bandwidth needs (Little's law), a CPU core's loop can
    a = Access("a", "global", "load", 4, 1, 1 << 22, 1)
    stats = _stats(accesses=(a,), items=4, group=1, footprint={"a": 16 << 20})
    stats = dataclasses.replace(stats, work_items=4, groups=4)
    gpu, cpu = params_from({}, {**GPU, "compute_units": 2}), params_from({}, CPU)
    assert gpu.little_over_items and not cpu.little_over_items
    assert predict(stats, gpu).terms["memory_latency"] > 0.0
    assert predict(stats, cpu).terms["memory_latency"] == 0.0


def test_a_cpu_runs_a_barrier_kernels_items_one_lane_at_a_time():
    # the same arithmetic with and without a work-group barrier: on a CPU the barrier kernel's
    # items run one at a time, so its compute term is subgroup_size (SIMD lanes) times longer;
    # a GPU's warps run in lockstep either way
    ops = {"float32:add": 1e9, "float32:mul": 1e9}
    plain = _stats(ops=ops)
    tiled = dataclasses.replace(plain, barriers_per_item=1.0)
    cpu, gpu = params_from({}, CPU), params_from({}, GPU)

    def compute(stats, p):
        return predict(stats, p).terms["compute"]
    assert cpu.barriers_serialize_items and not gpu.barriers_serialize_items
    assert cpu.subgroup_size > 1
    # a runtime whose scalar chains ran at a core's scalar issue (2 FLOP a cycle here: 2 cores at
    # 2 GHz) did not vectorize them either: its scalar rate is already one lane's
    unvectorized = params_from({"sp_madd_scalar_peak_flops": 8e9}, CPU)
    assert not unvectorized.barriers_serialize_items
    assert compute(tiled, unvectorized) == pytest.approx(compute(plain, unvectorized))
    assert compute(tiled, cpu) == pytest.approx(cpu.subgroup_size * compute(plain, cpu))
    assert compute(tiled, gpu) == pytest.approx(compute(plain, gpu))
    # a temporal launch's barriers per group count too, a strip (no barrier) does not
    traffic = {"global_read_bytes": 0.0, "global_write_bytes": 0.0, "point_updates": 1e8,
               "local_read_bytes": 0.0, "local_write_bytes": 0.0}
    looped = predict(plain, cpu, steps=2, traffic={**traffic, "barriers_per_group": 0.0},
                     flops_per_update=9)
    synced = predict(plain, cpu, steps=2, traffic={**traffic, "barriers_per_group": 3.0},
                     flops_per_update=9)
    assert synced.terms["compute"] == pytest.approx(cpu.subgroup_size * looped.terms["compute"])
    # explain names it: the items fill 1 of subgroup_size lanes, and the speedup is the time
    # with the arithmetic vectorized again; a GPU and a barrier-free kernel have nothing to gain
    criterion = {c.name: c for c in predict(tiled, cpu).criteria}["item_serialization"]
    assert criterion.value == pytest.approx(1.0 / cpu.subgroup_size)
    slow = predict(tiled, cpu)  # the barriers' own stall stays: only the arithmetic speeds up
    assert criterion.speedup == pytest.approx(
        slow.time_s / (predict(plain, cpu).time_s + slow.terms["barriers"]))
    assert criterion.speedup > 1.0 and "strip" in criterion.hint
    for stats, p in ((tiled, gpu), (plain, cpu)):
        quiet = {c.name: c for c in predict(stats, p).criteria}["item_serialization"]
        assert (quiet.value, quiet.speedup) == (1.0, 1.0)


def _two_uses(form: str):
    """out[i] = u[i] + 2 u[i], u[i] read by two instructions: in straight-line code
    ("straight"), once per iteration of a k loop the code keeps as an accumulation ("loop"),
    or with the second read under a condition of its own ("conditioned")."""
    import loopy as lp

    domain, extra = "{[i]: 0 <= i < n}", []
    if form == "loop":
        domain, extra = "{[i, k]: 0 <= i < n and 0 <= k < nk}", [lp.ValueArg("nk", np.int32)]
        body = """
            <> acc = 0 {id=init}
            for k
                <> a = u[i] {id=a, dep=init}
                acc = acc + a + 2 * u[i] {id=acc, dep=a}
            end
            out[i] = acc {dep=acc}
            """
    elif form == "conditioned":
        body = """
            <> a = u[i] {id=a}
            <> b = 0 {id=b0}
            if i > 0
                b = 2 * u[i] {id=b, dep=b0}
            end
            out[i] = a + b {dep=a:b}
            """
    else:
        body = """
            <> a = u[i] {id=a}
            out[i] = a + 2 * u[i] {dep=a}
            """
    knl = lp.make_kernel(
        domain, body,
        [lp.GlobalArg("u", np.float32, shape=("n",)),
         lp.GlobalArg("out", np.float32, shape=("n",), is_output=True),
         lp.ValueArg("n", np.int32)] + extra,
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return lp.split_iname(knl, "i", 64, inner_tag="l.0", outer_tag="g.0")


@pytest.mark.parametrize("form, share", [("straight", 0.5), ("loop", 0.5), ("conditioned", 1.0)])
def test_a_second_load_of_an_address_the_item_holds_is_not_issued(form, share):
    """loopy counts both reads of u[i]; the compiler keeps the first in a register, within one
    iteration of a kept loop (the next iteration's reads are new loads: a loop is not unrolled
    code: 8 of 16 loads issued, not 1), and not into a read under a condition of its own. The
    load site's cache requests are those of the loads issued."""
    sizes = {"n": 1 << 14, "nk": 8} if form == "loop" else {"n": 1 << 14}
    stats = compute_stats(_two_uses(form), sizes, subgroup_size=32)
    assert stats.extra["item_trace"]["issued_load_share"] == {"u": pytest.approx(share)}
    p = params_from({}, GPU)
    loads = [a for a in stats.accesses if a.array == "u"]
    counted = sum(a.count for a in loads) / 32  # a line per sub-group instruction of floats
    assert sum(cache_requests(a, stats, p) for a in loads) == pytest.approx(counted * share)
    without = dataclasses.replace(stats, extra={**stats.extra, "item_trace": {
        **stats.extra["item_trace"], "issued_load_share": {}}})
    assert sum(cache_requests(a, without, p) for a in loads) == pytest.approx(counted)


def test_memory_units_join_each_other_by_the_scalar_exponent_whatever_the_code_type():
    """float4 code whose cache requests take as long as its DRAM traffic: the two memory
    units combine by the scalar exponent (2 here), not the vector one (8), which alu_fetch
    measured between vector arithmetic and fetches; the arithmetic joins them by 8."""
    from gencl.model._predict import overlap

    a = Access("a", "global", "load", 4, 4, 2**22, 4)
    stats = KernelStats(2**20, 256, 2**12, {}, (a,), {"a": 4 * 2**22}, 0.0, 0.0,
                        local_size=(256,))
    t_bw = 4 * 2**22 / 1e12
    base = {"copy_bw_Bps": 1e12, "group_dispatch_s": 1e-15, "global_latency_cycles": 1.0,
            "overlap_scalar_exponent": 2.0, "overlap_vector_exponent": 8.0}
    rate = cache_requests(a, stats, params_from(base, GPU)) / t_bw
    pred = predict(stats, params_from({**base, "cache_requests_per_s": rate}, GPU))
    memory = overlap(tuple(pred.terms[k] for k in ("memory_bandwidth", "cache_requests",
                                                   "memory_latency", "local_memory")), 2.0)
    assert memory == pytest.approx(2 ** 0.5 * t_bw, rel=1e-3)
    assert pred.time_s == pytest.approx(overlap((pred.terms["compute"], memory), 8.0))


def test_a_subscript_one_expression_repeats_is_loaded_once():
    """out[i] = u[i]·u[i] + u[i+1] − u[i]: loopy counts four loads of u, the compiler issues
    two (u[i] and u[i+1]); loopy's walker visits a repeated subscript once, so the share is
    counted against each occurrence."""
    import loopy as lp

    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}", "out[i] = u[i] * u[i] + u[i + 1] - u[i]",
        [lp.GlobalArg("u", np.float32, shape=("n + 1",)),
         lp.GlobalArg("out", np.float32, shape=("n",), is_output=True),
         lp.ValueArg("n", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 64, inner_tag="l.0", outer_tag="g.0")
    stats = compute_stats(knl, {"n": 1 << 14}, subgroup_size=32)
    assert sum(a.count for a in stats.accesses if a.array == "u") == 4 * (1 << 14)
    assert stats.extra["item_trace"]["issued_load_share"] == {"u": pytest.approx(0.5)}


JACOBI_TILE = {"dtype": "float32", "boundary": "padded", "temporal": "none", "sweeps": 1,
               "temporal_points": [1, 1], "vector_width": 1}


@pytest.mark.parametrize("local", ["static", "dynamic"])
@pytest.mark.parametrize("block, workgroup, rounds, unrolled", [
    # 34 × 6 tile: lanes 0-1 take 2 column passes (a pair), the rest 1 (a single); 2 row
    # passes, then f's load: as the kept loop, 2 × 2 + 1
    ((1, 1), [32, 4], 5, 5),
    ((1, 1), [8, 4], 5, 5),    # 10 columns over 8 lanes: the same pair and single
    # 66 × 10: lanes 0-1 take 3 (a pair, then a single), the rest 2 (the pair): 2 blocks a
    # row pass where the kept loop takes 3; 5 row passes
    ((2, 4), [32, 2], 16, 11),
    # 130 × 6: 5 passes (four, then a single) and 4 (the four): 2 blocks, not 5; 2 row passes
    ((4, 1), [32, 4], 11, 5),
    # 34 × 18 over 16 × 16: lanes 0-1 take 3 passes, the rest 2; a sub-group spans two rows
    ((2, 1), [16, 16], 7, 5),
])
def test_a_tiles_fetch_loop_runs_in_the_blocks_the_compiler_unrolls_it_to(
        local, block, workgroup, rounds, unrolled):
    """ptxas unrolls a tile's fetch loop by four, then a pair and a single pass, each block's
    loads issued before its stores (the SASS of these tiles): a sub-group waits one round a
    block any of its lanes runs, not one a pass. The kept loop's count stays for a CPU."""
    from gencl.api import load

    spec = load("tuning/jacobi.py")
    point = {**JACOBI_TILE, "local": local, "block_x": block[0], "block_y": block[1],
             "workgroup": workgroup}
    stats = variant_stats(spec, point, {"n": 256}, subgroup_size=32)
    trace = stats.extra["item_trace"]
    assert (trace["load_rounds"], trace["fetch_unrolled_rounds"]) == (rounds, unrolled)
    gpu, cpu = params_from({}, GPU), params_from({}, CPU)
    assert gpu.fetch_loops_unrolled and not cpu.fetch_loops_unrolled
    as_kept = dataclasses.replace(stats, extra={
        **stats.extra, "item_trace": {**trace, "fetch_unrolled_rounds": rounds}})
    # at the nominal GPU's numbers the rounds term, not Little's law, prices these tiles' latency
    ratio = predict(stats, gpu).terms["memory_latency"] / \
        predict(as_kept, gpu).terms["memory_latency"]
    assert ratio == pytest.approx(unrolled / rounds)
    assert predict(stats, cpu).terms == predict(as_kept, cpu).terms
