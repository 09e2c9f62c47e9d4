"""The model on the copy kernel: loopy counts post-processed, terms and criteria behave."""

from __future__ import annotations

import pytest

from gencl.model import Access, accuracy, explain, params_from, predict
from gencl.spec import load_spec

DEVICE = {"name": "test", "device_type": "GPU", "compute_units": 8, "max_clock_hz": 1e9,
          "warp_size": 32, "global_cache_bytes": 0, "global_cacheline_bytes": 128}


@pytest.mark.parametrize("width", [1, 4])
def test_counts_are_per_lane_and_per_launch(width):
    spec = load_spec("copy")
    point = spec.complete({"dtype": "float32", "vector_width": width, "reads": 4,
                           "loop": "dynamic", "unroll": "none", "workgroup": 64})
    n = 64 * 4 * 16
    stats, pred = explain(spec, point, {"n": n, "R": 4}, params_from({}, DEVICE))
    loads = [a for a in stats.accesses if a.direction == "load"]
    assert sum(a.count for a in loads) == n * 4            # lanes, not sub-groups or vectors
    assert loads[0].vec_width == width and loads[0].lid0_stride == width  # coalesced
    assert stats.ops["float32:add"] == n * 4
    assert stats.work_items == n // width
    assert pred.time_s > 0 and pred.bottleneck in pred.terms
    assert all(0 <= c.value <= 1 and c.speedup >= 1 for c in pred.criteria)


def test_strided_access_is_priced_and_named():
    p = params_from({"copy_bw_Bps": 1e12, "launch_overhead_s": 1e-6}, DEVICE)
    from gencl.model import KernelStats

    def stats(stride):
        acc = Access("a", "global", "load", 4, 1, 1e7, stride)
        return KernelStats(10**6, 256, 4096, {"float32:add": 1e7}, (acc,), {"a": 4e7}, 0.0, 0.0)

    good, bad = predict(stats(1), p), predict(stats(64), p)
    assert bad.time_s > 4 * good.time_s
    gran = {c.name: c for c in bad.criteria}["access_granularity"]
    assert gran.value == pytest.approx(4 / 32) and gran.speedup > 4
    assert p.sources["copy_bw_Bps"] == "measured" and p.sources["sp_madd_peak_flops"] == "nominal"


def test_accuracy_metrics():
    acc = accuracy([1, 2, 3, 4], [1.1, 2.5, 2.9, 8])
    assert acc.spearman == pytest.approx(1.0) and acc.within_15pct == 0.5


def test_model_prices_compute_at_the_scalar_chain_rate():
    """The chain peak may come from vector-typed chains; the model keeps the scalar rate it was
    calibrated with, and takes the peak where no scalar figure exists."""
    both = params_from({"sp_madd_peak_flops": 3e11, "sp_madd_scalar_peak_flops": 1e10,
                        "dp_peak_flops": 1e11}, DEVICE)
    assert both.sp_flops == 1e10 and both.dp_flops == 1e11
    assert both.sources["sp_madd_scalar_peak_flops"] == "measured"
    assert params_from({"sp_madd_peak_flops": 3e11}, DEVICE).sp_flops == 3e11
