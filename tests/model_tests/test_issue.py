"""The issue bound of the compute term: on a GPU everything loopy counts, operations of every
type (a mul feeding an add one multiply-add) and memory accesses (one a 16-byte chunk), is one
lane instruction at one a lane a cycle (the scalar multiply-add chains' peak / 2); a CPU has no
such bound. Closed forms on hand-built statistics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gencl.model import Access, KernelStats, load_params, params_from, predict
from gencl.model._predict import compute_time, issue_time

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 0, "global_cacheline_bytes": 128,
       "registers_per_block": 65536}
CPU = {**GPU, "name": "cpu", "device_type": "CPU", "global_cacheline_bytes": 64}
PROFILE = {"sp_madd_scalar_peak_flops": 1e12, "int_peak_ops": 5e11, "dp_peak_flops": 1e10,
           "sp_ridge_work_items": 64, "copy_bw_Bps": 1e15, "local_bw_Bps": 1e15}
ITEMS = 1 << 16


def _stats(ops, accesses=()):
    return KernelStats(ITEMS, 256, ITEMS // 256, dict(ops), tuple(accesses), {"u": 4.0 * ITEMS},
                       0.0, 0.0, local_size=(256,))


def _loads(count):
    return (Access("u", "global", "load", 4, 1, count, 1), Access("t", "local", "load", 4, 1,
                                                                   count, 1))


def test_index_arithmetic_and_loads_take_issue_slots():
    p = params_from(PROFILE, GPU)
    assert p.lane_issue_per_s == pytest.approx(5e11)  # one madd (2 flop) a lane a cycle
    # 1e6 float madds, 3e6 integer multiply-adds, 2 × 3e6 accesses: 1e7 lane instructions
    stats = _stats({"float32:add": 1e6, "float32:mul": 1e6, "int32:add": 3e6,
                    "int32:mul": 1e6}, _loads(3e6))
    assert compute_time(stats, p) == pytest.approx(2e6 / 1e12 + 3e6 / 5e11)
    assert issue_time(stats, p) == pytest.approx(1e7 / 5e11)
    assert predict(stats, p).terms["compute"] == pytest.approx(1e7 / 5e11)


def test_a_slow_type_still_sets_the_compute_term():
    p = params_from(PROFILE, GPU)
    stats = _stats({"float64:add": 1e6, "float64:mul": 1e6}, _loads(1e5))
    assert issue_time(stats, p) == pytest.approx(1.2e6 / 5e11)  # 1e6 madds, 2e5 accesses
    assert predict(stats, p).terms["compute"] == pytest.approx(2e6 / 1e10)


def test_a_cpu_has_no_issue_bound():
    p = params_from(PROFILE, CPU)
    stats = _stats({"float32:add": 1e6, "int32:add": 4e6}, _loads(3e6))
    assert p.lane_issue_per_s == 0.0 and issue_time(stats, p) == 0.0
    assert predict(stats, p).terms["compute"] == pytest.approx(compute_time(stats, p))


def test_a_vector_access_issues_one_instruction_a_chunk():
    # 1e6 float4 items: 4e6 elements loaded whole (1e6 instructions), 4e6 loaded lane by lane
    # (4e6), 8e6 elements of float8 (two 16-byte chunks each: 2e6)
    p = params_from(PROFILE, GPU)
    whole = Access("u", "global", "load", 4, 4, 4e6, 1)
    lanes = Access("w", "global", "load", 4, 4, 4e6, 1, per_lane=True)
    wide = Access("v", "global", "load", 4, 8, 8e6, 1)
    stats = _stats({"float32:add": 1e6}, (whole, lanes, wide))
    assert issue_time(stats, p) == pytest.approx((1e6 + 1e6 + 4e6 + 2e6) / 5e11)


def test_the_committed_h200_profile_issues_a_lane_a_cycle():
    root = Path(__file__).resolve().parents[2] / "bench_results" / "nvidia-h200"
    profile = json.loads((root / "profile.json").read_text())
    p = load_params(profile["device"], profile=root / "profile.json")
    lanes_per_cycle = p.lane_issue_per_s / (p.clock_hz * p.compute_units)
    assert 120 <= lanes_per_cycle <= 130  # 4 schedulers × 32 lanes, the chains' measured peak
