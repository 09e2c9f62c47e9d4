"""The load rounds ptxas scheduled (a Measurement's ``extra["sass"]``) in the latency term."""

from __future__ import annotations

import dataclasses

import pytest

from gencl.model import Access, KernelStats, params_from, predict
from gencl.model._params import nominal_inputs
from gencl.model._predict import store_instructions_per_item
from gencl.model._schedule import scheduled_loop_rounds, with_sass

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 128,
       "registers_per_block": 65536}
ITEMS, GROUP = 1 << 20, 256


def _straight_line(trace_rounds: int = 1, iterations: int = 1) -> KernelStats:
    """*iterations* 4-byte loads and stores an item (one: straight-line code), 2^20 items in
    groups of 256, no private values (2,048 items resident a compute unit), the item trace's
    load rounds as given."""
    n = ITEMS * iterations
    load = Access("a", "global", "load", 4, 1, n, 1)
    store = Access("b", "global", "store", 4, 1, n, 1)
    return KernelStats(ITEMS, GROUP, ITEMS // GROUP, {}, (load, store),
                       {"a": 4 * n, "b": 4 * n}, 0.0, 0.0, local_size=(GROUP,),
                       extra={"live_private_words": 0.0,
                              "item_trace": {"load_rounds": trace_rounds}})


def _sass(rounds: int, loop: bool = False) -> dict:
    return {"loop": loop, "instructions": 60, "loads": 6, "stores": 2, "rounds": rounds}


def test_straight_line_code_waits_once_for_each_batch_ptxas_issued():
    """Closed form: 2^20 items over 4 units of 2,048 resident are 128 waves; at 1 µs a round
    and 5 rounds (the SASS's), 640 µs of latency, where the model's own count is one round."""
    p = params_from({"global_latency_cycles": 1000.0}, GPU)  # 1 µs at 1 GHz
    waves = ITEMS / GPU["compute_units"] / 2048
    one = predict(_straight_line(), p).terms["memory_latency"]
    five = predict(with_sass(_straight_line(), _sass(5)), p).terms["memory_latency"]
    assert one == pytest.approx(waves * 1e-6)
    assert five == pytest.approx(waves * 5 * 1e-6)


@pytest.mark.parametrize("sass", [None, {}, _sass(5, loop=True), _sass(0)])
def test_without_counts_the_models_rounds_stand(sass):
    """No counts, no rounds, or a kept loop whose pass was not counted: the stats are
    unchanged."""
    stats = _straight_line()
    assert with_sass(stats, sass) is stats


def test_a_loop_the_code_keeps_is_priced_by_its_iterations_not_the_sass():
    """An item trace of 64 rounds (a kept loop) is the model's count even where a straight-line
    count reached the stats: the rule is for code without a kept loop."""
    p = params_from({"global_latency_cycles": 1000.0}, GPU)
    kept = _straight_line(trace_rounds=64)
    assert predict(with_sass(kept, _sass(5)), p).terms["memory_latency"] == \
        pytest.approx(predict(kept, p).terms["memory_latency"])


def _kept_loop(iterations: int) -> KernelStats:
    """A loop the code keeps: the model's count a round an iteration."""
    return _straight_line(trace_rounds=iterations, iterations=iterations)


def _loop_sass(rounds_outside: int, pass_rounds: int, pass_stores: int) -> dict:
    return {"loop": True, "instructions": 200, "loads": 20, "stores": pass_stores,
            "rounds": rounds_outside + pass_rounds,
            "loop_pass": {"instructions": 120, "loads": 12, "stores": pass_stores,
                          "rounds": pass_rounds}}


@pytest.mark.parametrize("pass_rounds, full, cached", [
    (12, 16, 1 + 4 * 12 - 16),  # 3 rounds an iteration: 16 at the latency, the rest cached
    (3, 1 + 4 * 3, 0),          # 3 rounds a pass of 4 iterations: fewer than the model counts
])
def test_a_kept_loop_waits_as_its_passes_were_scheduled(pass_rounds, full, cached):
    """Closed form: 16 iterations, a pass of 4 (4 stores: 4 passes an item) plus 1 round
    outside it. The rounds up to the model's 16 at the round latency (1 µs), those beyond at
    the cached round (0.2 µs), over 128 waves; never under Little's law over the items' bytes
    (16 rounds' worth here: one 8-byte load and store an iteration in flight)."""
    p = params_from({"global_latency_cycles": 1000.0, "l2_round_s": 2e-7}, GPU)
    assert p.cached_round_s == pytest.approx(2e-7) and p.sources["l2_round_s"] == "measured"
    waves = ITEMS / GPU["compute_units"] / 2048
    stats = with_sass(_kept_loop(16), _loop_sass(1, pass_rounds, 4))
    assert stats.extra["sass_loop"] == {"rounds": 1 + pass_rounds, "stores": 4,
                                        "pass_rounds": pass_rounds, "pass_stores": 4}
    got = predict(stats, p)
    assert got.terms["memory_latency"] == pytest.approx(
        max(waves * 16e-6, waves * (full * 1e-6 + cached * 2e-7)))
    assert got.counts["load_rounds"] == full


def test_vector_stores_count_in_sass_instructions():
    """A float8 store is two 16-byte instructions: 16 float8 stores an item are 32, so a pass
    holding 8 of them runs 4 times (as 16 float4 stores in passes of 4)."""
    n = ITEMS * 16 * 8
    stats = _kept_loop(16)
    wide = dataclasses.replace(stats, accesses=(
        Access("a", "global", "load", 4, 8, n, 1), Access("b", "global", "store", 4, 8, n, 1)))
    p = params_from({"global_latency_cycles": 1000.0}, GPU)
    assert store_instructions_per_item(wide, p) == 32
    rounds = scheduled_loop_rounds(with_sass(wide, _loop_sass(0, 6, 8)),
                                   store_instructions_per_item(wide, p))
    assert rounds == 4 * 6


def test_cached_round_nominal_is_the_largest_levels_latency():
    """Without cached_rounds measured: the largest cache level's latency, named nominal; with
    no cache level either, 0 (extra rounds cost nothing, as before the rule)."""
    levels = [{"size_bytes": 1 << 20, "latency_cycles": 300.0}]
    p = params_from({"global_latency_cycles": 1000.0, "cache_levels": levels}, GPU)
    assert p.cached_round_s == pytest.approx(300e-9)
    assert p.sources["l2_round_s"] == "nominal"
    assert "l2_round_s" in nominal_inputs("memory_latency", p)
    assert params_from({"global_latency_cycles": 1000.0}, GPU).cached_round_s == 0.0
