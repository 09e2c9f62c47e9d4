"""Local memory at few resident items: on a GPU the local term is the local bytes at the measured
local bandwidth, slowed by ridge / resident items below the ridge, where the ridge is Little's law
on the measured local latency and bandwidth with one access (the widest) in flight an item; a CPU
and a kernel without local accesses are not slowed. Closed forms on hand-built statistics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gencl.model import Access, KernelStats, load_params, params_from, predict
from gencl.model._predict import local_occupancy_factor, local_ridge_items

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 0, "global_cacheline_bytes": 128,
       "registers_per_block": 65536}
CPU = {**GPU, "name": "cpu", "device_type": "CPU", "global_cacheline_bytes": 64}
# 8 cycles at 1 GHz × 1e12 bytes/s a compute unit / 4 bytes = 2,000 items
PROFILE = {"sp_madd_scalar_peak_flops": 1e15, "copy_bw_Bps": 1e18, "local_bw_Bps": 4e12,
           "local_latency_cycles": 8.0, "sp_ridge_work_items": 64}
ITEMS = 1 << 20
LOCAL_BYTES = 4.0 * ITEMS * 16


def _stats(registers, itemsize=4, vec=1, local=True):
    accesses = (Access("t", "local", "load", itemsize, vec, LOCAL_BYTES / itemsize, 1),) \
        if local else ()
    return KernelStats(ITEMS, 256, ITEMS // 256, {"float32:add": 1.0}, accesses,
                       {"u": 4.0 * ITEMS}, 0.0, 0.0, local_size=(256,),
                       extra={"registers": registers})


@pytest.mark.parametrize("registers, resident", [(32, 2048), (64, 1024), (128, 512)])
def test_the_local_term_falls_with_the_resident_items_below_the_ridge(registers, resident):
    p = params_from(PROFILE, GPU)
    stats = _stats(registers)
    assert local_ridge_items(stats, p) == pytest.approx(2000.0)
    factor = max(1.0, 2000.0 / resident)
    assert local_occupancy_factor(stats, p, resident) == pytest.approx(factor)
    # the register file holds 65,536 / (registers × 256) groups of 256
    pred = predict(stats, p)
    assert pred.terms["local_memory"] == pytest.approx(LOCAL_BYTES / 4e12 * factor)
    # explain names it: the criterion is resident items over the ridge, 1 at or above it
    (crit,) = [c for c in pred.criteria if c.name == "local_occupancy"]
    assert crit.value == pytest.approx(1.0 / factor)
    assert (crit.speedup > 1.0) == (factor > 1.0)


def test_a_wider_access_keeps_more_bytes_in_flight():
    p = params_from(PROFILE, GPU)
    assert local_ridge_items(_stats(64, itemsize=8), p) == pytest.approx(1000.0)
    assert local_ridge_items(_stats(64, vec=4), p) == pytest.approx(500.0)


def test_no_local_access_and_a_cpu_are_not_slowed():
    assert local_ridge_items(_stats(64, local=False), params_from(PROFILE, GPU)) == 0.0
    cpu = params_from(PROFILE, CPU)
    stats = _stats(128)
    assert local_occupancy_factor(stats, cpu, 1.0) == 1.0
    assert predict(stats, cpu).terms["local_memory"] == pytest.approx(LOCAL_BYTES / 4e12)


def test_the_committed_h200_profile_needs_about_a_thousand_items():
    root = Path(__file__).resolve().parents[2] / "bench_results" / "nvidia-h200"
    profile = json.loads((root / "profile.json").read_text())
    p = load_params(profile["device"], profile=root / "profile.json")
    # 30.9 cycles × 126 bytes a cycle a compute unit / 4 bytes (the stream's float words)
    assert 900 <= local_ridge_items(_stats(64), p) <= 1050
