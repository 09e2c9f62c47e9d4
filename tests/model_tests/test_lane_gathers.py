"""A CPU build's packed gathers and scatters (gencl.model._predict.lane_gather_time): the
elements an item moves a pass of its work-group function's most-gathering loop (a Measurement's
``extra["isa"]``), at the rates the lane_gathers benchmark measured; nominal rates named so, a
GPU none."""

from __future__ import annotations

import pytest

from gencl.model import Access, KernelStats, nominal_inputs, params_from, predict
from gencl.model._predict import lane_gather_time
from gencl.model._vector_rate import with_isa

CPU = {"name": "cpu", "device_type": "CPU", "compute_units": 2, "max_clock_hz": 2e9,
       "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 64}
GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 128,
       "registers_per_block": 65536}
ITEMS = 1 << 20
MEASURED = {"lane_gathers_per_s": 7e9, "lane_scatters_per_s": 4.5e9}
#: a work-group function whose items were lanes (256-bit arithmetic), six elements an item
#: gathered and two scattered a pass of its loop (Jacobi's branch form in one-row groups)
GATHERING = {"instructions": 900, "zmm": 0, "ymm": 300, "xmm": 100, "packed_moves": 50,
             "scalar_moves": 80, "gathers": 18, "scatters": 6, "packed_arithmetic": 30,
             "packed_arithmetic_bits": 256, "widest_vector_bits": 256,
             "loop_gathers_per_item": 6.0, "loop_scatters_per_item": 2.0}


def _stats() -> KernelStats:
    # a 5-point item: 5 loads and a store, 6 adds
    load = Access("u", "global", "load", 4, 1, 5.0 * ITEMS, 1.0)
    store = Access("v", "global", "store", 4, 1, 1.0 * ITEMS, 1.0)
    return KernelStats(ITEMS, 64, ITEMS // 64, {"float32:add": 6.0 * ITEMS}, (load, store),
                       {"u": 4.0 * ITEMS, "v": 4.0 * ITEMS}, 0.0, 0.0, local_size=(64, 1))


def test_the_elements_moved_at_the_measured_rates():
    # a work-group's start nearly free, so the items' own work decides the time
    p = params_from({**MEASURED, "group_dispatch_s": 1e-10}, CPU)
    assert p.sources["lane_gathers_per_s"] == p.sources["lane_scatters_per_s"] == "measured"
    gathering = with_isa(_stats(), GATHERING)
    assert (gathering.extra["gathered_per_item"], gathering.extra["scattered_per_item"]) == \
        (6.0, 2.0)
    assert lane_gather_time(gathering, p) == pytest.approx(ITEMS * (6 / 7e9 + 2 / 4.5e9))
    # the larger of it and the arithmetic, as one item's issue is
    assert predict(gathering, p).terms["compute"] == pytest.approx(
        max(predict(_stats(), p).terms["compute"], lane_gather_time(gathering, p)))
    assert predict(gathering, p).time_s > predict(_stats(), p).time_s


def test_nominal_rates_are_named_and_a_gpu_has_none():
    p = params_from({}, CPU)
    # one element every two cycles a compute unit, and explain says the figure is nominal
    assert p.lane_gathers_per_s == p.lane_scatters_per_s == pytest.approx(2e9 * 2 / 2)
    assert p.sources["lane_gathers_per_s"] == "nominal"
    assert {"lane_gathers_per_s", "lane_scatters_per_s"} <= set(nominal_inputs("compute", p))
    gpu = params_from(MEASURED, GPU)
    assert gpu.lane_gathers_per_s == gpu.lane_scatters_per_s == 0.0
    assert gpu.sources["lane_gathers_per_s"] == "n/a"
    assert lane_gather_time(with_isa(_stats(), GATHERING), gpu) == 0.0


def test_nothing_changes_without_counts_or_gathers():
    p = params_from(MEASURED, CPU)
    assert lane_gather_time(_stats(), p) == 0.0
    assert "gathered_per_item" not in with_isa(_stats(), None).extra
    # counts of a build from before the loops were counted: nothing gathered a pass
    old = {k: v for k, v in GATHERING.items() if not k.startswith("loop_")}
    assert lane_gather_time(with_isa(_stats(), old), p) == 0.0
    assert predict(with_isa(_stats(), {**GATHERING, "loop_gathers_per_item": 0.0,
                                       "loop_scatters_per_item": 0.0}), p).time_s == \
        pytest.approx(predict(_stats(), p).time_s)
