"""The load rounds ptxas scheduled (a Measurement's ``extra["sass"]``) in the latency term."""

from __future__ import annotations

import pytest

from gencl.model import Access, KernelStats, params_from, predict
from gencl.model._schedule import with_sass

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 128,
       "registers_per_block": 65536}
ITEMS, GROUP = 1 << 20, 256


def _straight_line(trace_rounds: int = 1) -> KernelStats:
    """One 4-byte load and store an item, 2^20 items in groups of 256, no private values (2,048
    items resident a compute unit), the item trace's load rounds as given."""
    load = Access("a", "global", "load", 4, 1, ITEMS, 1)
    store = Access("b", "global", "store", 4, 1, ITEMS, 1)
    return KernelStats(ITEMS, GROUP, ITEMS // GROUP, {}, (load, store),
                       {"a": 4 * ITEMS, "b": 4 * ITEMS}, 0.0, 0.0, local_size=(GROUP,),
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
def test_without_straight_line_counts_the_models_rounds_stand(sass):
    """No counts, or a kernel whose SASS keeps a loop (a pass's rounds at the full latency
    over-priced every stream they were tried on): the stats are unchanged."""
    stats = _straight_line()
    assert with_sass(stats, sass) is stats


def test_a_loop_the_code_keeps_is_priced_by_its_iterations_not_the_sass():
    """An item trace of 64 rounds (a kept loop) is the model's count even where a straight-line
    count reached the stats: the rule is for code without a kept loop."""
    p = params_from({"global_latency_cycles": 1000.0}, GPU)
    kept = _straight_line(trace_rounds=64)
    assert predict(with_sass(kept, _sass(5)), p).terms["memory_latency"] == \
        pytest.approx(predict(kept, p).terms["memory_latency"])
