"""The model prices a temporally blocked launch from its transform's traffic (``tile_traffic``):
closed forms on hand-made traffic dicts, per sweep; a small tile with a wide halo loses to a
large one; without traffic a launch of k sweeps is priced as before, per sweep."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gencl.model import KernelStats, explain, params_from, predict
from gencl.spec import load_spec
from gencl.tune._sampler import params_key
from gencl.tune._space import SearchSpace
from gencl.tune._study import predictions

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 132, "max_clock_hz": 1.98e9,
       "warp_size": 32, "global_cache_bytes": 60 << 20, "global_cacheline_bytes": 128}
#: a profile with every number the temporal terms read measured
PROFILE = {"copy_bw_Bps": 4.3e12, "local_bw_Bps": 2.0e13, "sp_madd_peak_flops": 6.0e13,
           "barrier_phase_s": 2e-7, "barrier_phase_s_per_item": 1e-10,
           "sp_ridge_work_items": 1.0, "group_dispatch_s": 1e-12}
FLOPS = 9  # per update (Jacobi)


def tile_traffic_2d(tile: int, k: int, n: int, *, itemsize: int = 4) -> dict[str, float]:
    """What a square tile of *tile*² outputs with a k-wide halo does in a launch of k sweeps of
    a 5-point stencil on an n² grid (u and f loaded with the halo, the tile written once; sweep
    s updates the (tile + 2(k − s))² points still valid; 5 local reads and 1 write per update,
    one local write per loaded point; a barrier after the load and two per sweep)."""
    tiles = math.ceil(n / tile) ** 2
    loaded = (tile + 2 * k) ** 2
    updates = sum((tile + 2 * (k - s)) ** 2 for s in range(1, k + 1))
    return {"global_read_bytes": tiles * 2 * loaded * itemsize,
            "global_write_bytes": tiles * tile * tile * itemsize,
            "point_updates": tiles * updates,
            "local_read_bytes": tiles * updates * 5 * itemsize,
            "local_write_bytes": tiles * (2 * loaded + updates) * itemsize,
            "barriers_per_group": 1 + 2 * k}


def _stats(tile: int, n: int, group: int = 256) -> KernelStats:
    groups = math.ceil(n / tile) ** 2
    return KernelStats(groups * group, group, groups, {"float32:add": 1.0}, (), {}, 0.0, 0.0,
                       local_size=(group,))


def test_terms_are_the_closed_forms_of_the_traffic():
    p = params_from(PROFILE, GPU)
    for key in ("copy_bw_Bps", "local_bw_Bps", "sp_madd_peak_flops", "barrier_phase_s"):
        assert p.sources[key] == "measured"
    k, tile, n = 4, 64, 1024
    traffic, stats = tile_traffic_2d(tile, k, n), _stats(tile, n)
    pred = predict(stats, p, steps=k, traffic=traffic, flops_per_update=FLOPS)
    t = pred.terms
    assert t["memory_bandwidth"] == pytest.approx(
        (traffic["global_read_bytes"] + traffic["global_write_bytes"]) / 4.3e12)
    assert t["local_memory"] == pytest.approx(
        (traffic["local_read_bytes"] + traffic["local_write_bytes"]) / 2.0e13)
    assert t["compute"] == pytest.approx(traffic["point_updates"] * FLOPS / 6.0e13)
    assert t["barriers"] == pytest.approx(
        traffic["barriers_per_group"] * stats.groups * (2e-7 + 1e-10 * 256) / 132)
    waves = math.ceil(stats.groups / 132)
    balance = stats.groups / (waves * 132)
    body = max(t[k] for k in ("compute", "memory_bandwidth", "cache_requests", "memory_latency",
                              "local_memory", "dispatch"))
    assert pred.time_s == pytest.approx(body / balance + t["barriers"])
    assert pred.steps == k and pred.time_per_sweep_s == pytest.approx(pred.time_s / k)
    assert pred.to_json()["time_per_sweep_s"] == pred.time_per_sweep_s


def test_unmeasured_local_bandwidth_falls_back_to_the_named_nominal():
    p = params_from({k: v for k, v in PROFILE.items() if k != "local_bw_Bps"}, GPU)
    assert p.sources["local_bw_Bps"] == "nominal" and p.local_bw == 4 * p.dram_bw


def test_small_tile_with_a_wide_halo_is_slower_per_sweep_than_a_large_one():
    p, n, k = params_from(PROFILE, GPU), 8192, 8
    small = predict(_stats(8, n), p, steps=k, traffic=tile_traffic_2d(8, k, n),
                    flops_per_update=FLOPS)
    large = predict(_stats(128, n), p, steps=k, traffic=tile_traffic_2d(128, k, n),
                    flops_per_update=FLOPS)
    assert small.time_per_sweep_s > 1.5 * large.time_per_sweep_s
    # and the large tile beats one plain sweep's compulsory traffic at the copy bandwidth
    assert large.time_per_sweep_s < 3 * 4 * n * n / 4.3e12


def test_without_traffic_a_launch_of_k_sweeps_is_priced_as_before_per_sweep():
    p = params_from(PROFILE, GPU)
    stats = _stats(32, 256)
    plain, four = predict(stats, p), predict(stats, p, steps=4)
    assert four.steps == 4 and four.time_s == plain.time_s
    assert four.time_per_sweep_s == pytest.approx(plain.time_s / 4)


def test_explain_prices_a_temporal_point_by_the_transforms_traffic():
    spec = load_spec("jacobi")
    p = params_from(PROFILE, GPU)
    point = spec.complete({**spec.hooks.variants["TB4"], "workgroup": (32, 4)})
    stats, pred = explain(spec, point, {"n": 64}, p)
    assert pred.steps == 4
    assert pred.time_s != predict(stats, p).time_s  # the tile's traffic, not loopy's counts
    assert pred.time_per_sweep_s == pytest.approx(pred.time_s / 4)


def test_the_guided_sampler_ranks_points_by_predicted_time_per_sweep():
    spec = load_spec("jacobi")
    p = params_from(PROFILE, GPU)
    fixed = {"dtype": "float32", "workgroup": (32, 8), "local": "none", "vector_width": 1,
             "block_x": 1, "block_y": 1, "temporal": "tile", "temporal_points": (2, 8)}
    space = SearchSpace(spec, fixed)
    predicted = predictions(spec, space, lambda _: {"n": 64}, p, workers=1)
    points = space.points()  # once: each call walks Jacobi's 3.6 M candidates again (8-25 s)
    assert len(predicted) == len(points) == 4
    for point in points:
        _, pred = explain(spec, point, {"n": 64}, p)
        assert predicted[params_key(space.encode(point))] == pytest.approx(
            pred.time_per_sweep_s)


def test_asynchronous_copies_join_the_bytes_in_flight_of_the_latency_term():
    # Little's law: the latency-bound time is DRAM bytes × latency / bytes in flight; copies
    # loopy does not see add to its sites' bytes (here a single 4-byte global load per item)
    from gencl.model import Access

    p, n, k = params_from(PROFILE, GPU), 8192, 4
    load = Access("u", "global", "load", 4, 1, float(n * n), 1)
    stats = dataclasses.replace(_stats(32, n), accesses=(load,))
    traffic = tile_traffic_2d(32, k, n)
    plain = predict(stats, p, steps=k, traffic=traffic, flops_per_update=FLOPS)
    copies = predict(stats, p, steps=k, flops_per_update=FLOPS,
                     traffic={**traffic, "copy_bytes_in_flight_per_item": 12.0})
    assert plain.terms["memory_latency"] == pytest.approx(4 * copies.terms["memory_latency"])


def test_a_scheme_whose_updates_are_a_vectorized_loop_computes_at_the_vector_rate():
    # the strip scheme: one item runs the sweeps as loops along the contiguous axis, which the
    # compiler vectorizes: the vector chains' rate, not the scalar chains'
    p = params_from({**PROFILE, "sp_madd_scalar_peak_flops": 1.0e13}, GPU)
    assert (p.sp_flops, p.sp_vector_flops) == (1.0e13, 6.0e13)
    k, tile, n = 4, 64, 1024
    traffic, stats = tile_traffic_2d(tile, k, n), _stats(tile, n)
    scalar = predict(stats, p, steps=k, traffic=traffic, flops_per_update=FLOPS)
    looped = predict(stats, p, steps=k, traffic={**traffic, "vectorized_updates": 1.0},
                     flops_per_update=FLOPS)
    assert scalar.terms["compute"] == pytest.approx(traffic["point_updates"] * FLOPS / 1.0e13)
    assert looped.terms["compute"] == pytest.approx(traffic["point_updates"] * FLOPS / 6.0e13)


def test_a_vectorized_loop_requests_each_line_once_on_a_cpu_only():
    # the strip's one-item group: cache_requests counts every element of its row loop as an
    # instruction of its own; a CPU's loop vectorizer puts 16 floats of a 64-byte line in one
    # request, a GPU thread does not
    from gencl.model import Access

    cpu = {**GPU, "name": "cpu", "device_type": "CPU", "compute_units": 2, "warp_size": None,
           "global_cacheline_bytes": 64}
    profile = {**PROFILE, "cache_requests_per_s": 1.0e10}
    n, k = 1024, 4
    row = Access("u", "global", "load", 4, 1, float(n * n), 1)
    stats = dataclasses.replace(_stats(256, n, group=1), accesses=(row,))
    traffic = {**tile_traffic_2d(256, k, n), "vectorized_updates": 1.0}
    on_cpu = predict(stats, params_from(profile, cpu), steps=k, traffic=traffic,
                     flops_per_update=FLOPS)
    assert on_cpu.terms["cache_requests"] == pytest.approx(n * n * 4 / 64 / 1.0e10)
    on_gpu = predict(stats, params_from(profile, GPU), steps=k, traffic=traffic,
                     flops_per_update=FLOPS)
    assert on_gpu.terms["cache_requests"] == pytest.approx(n * n / 1.0e10)
    # without the loop (a tile's items) the CPU counts per item as before
    tiled = predict(stats, params_from(profile, cpu), steps=k,
                    traffic={**traffic, "vectorized_updates": 0}, flops_per_update=FLOPS)
    assert tiled.terms["cache_requests"] == pytest.approx(n * n / 1.0e10)


def test_an_update_that_reads_a_global_array_waits_for_it():
    # Little's law with one update's loads in flight on each resident item, at the largest
    # cache level's latency (400 cycles at 1.98 GHz here); it adds to the rest, and a CPU (no
    # Little's law over items) and a launch whose updates read only their tile wait nothing
    levels = [{"size_bytes": 256 << 10, "latency_cycles": 40.0},
              {"size_bytes": 50 << 20, "latency_cycles": 400.0}]
    p = params_from({**PROFILE, "global_latency_cycles": 700.0, "cache_levels": levels}, GPU)
    k, tile, n = 4, 64, 1024
    stats = _stats(tile, n)
    traffic = tile_traffic_2d(tile, k, n)
    plain = predict(stats, p, steps=k, traffic=traffic, flops_per_update=FLOPS)
    reading = predict(stats, p, steps=k, flops_per_update=FLOPS,
                      traffic={**traffic, "global_reading_updates": traffic["point_updates"]})
    conc = min(stats.work_items / 132, p.max_resident_per_cu)
    expected = traffic["point_updates"] * 400 / 1.98e9 / (132 * conc)
    assert plain.terms["update_latency"] == 0.0
    assert reading.terms["update_latency"] == pytest.approx(expected)
    assert reading.time_s == pytest.approx(plain.time_s + expected)
    crit = {c.name: c for c in reading.criteria}["update_latency"]
    assert crit.speedup == pytest.approx(reading.time_s / plain.time_s)
    bare = params_from({**PROFILE, "global_latency_cycles": 700.0}, GPU)  # no level measured
    assert predict(stats, bare, steps=k, flops_per_update=FLOPS, traffic={
        **traffic, "global_reading_updates": 1e6}).terms["update_latency"] == pytest.approx(
            1e6 * 700 / 1.98e9 / (132 * conc))
    cpu = params_from(PROFILE, {**GPU, "device_type": "CPU", "warp_size": None})
    assert predict(stats, cpu, steps=k, flops_per_update=FLOPS, traffic={
        **traffic, "global_reading_updates": 1e6}).terms["update_latency"] == 0.0


def test_a_read_only_arrays_rereads_come_from_the_next_level_not_dram():
    # the bytes of reread_read_only_bytes leave DRAM's term and are the next level's fills:
    # whole lines at its measured rates
    p = params_from({**PROFILE, "l2_line_requests_per_s": 1e11, "l2_sectors_per_s": 1e12}, GPU)
    k, tile, n = 4, 64, 1024
    stats, traffic = _stats(tile, n), tile_traffic_2d(tile, k, n)
    reread = 0.25 * traffic["global_read_bytes"]
    pred = predict(stats, p, steps=k, flops_per_update=FLOPS,
                   traffic={**traffic, "reread_read_only_bytes": reread})
    assert pred.terms["memory_bandwidth"] == pytest.approx(
        (traffic["global_read_bytes"] + traffic["global_write_bytes"] - reread) / 4.3e12)
    assert pred.terms["l2_bandwidth"] == pytest.approx(
        reread / p.request_line_bytes / 1e11 + reread / p.sector_bytes / 1e12)
    assert predict(stats, p, steps=k, traffic=traffic,
                   flops_per_update=FLOPS).terms["l2_bandwidth"] == 0.0
