"""What a work-group brings into the first-level cache, against closed forms on the real
generator's laplace3d (a 7-point star: the group's tile, its halo rows and its neighbour planes,
each sector once), and how the next level's measured bandwidth prices it."""

from __future__ import annotations

import pytest

from gencl.model import compute_stats, params_from, predict
from gencl.model._cache_reuse import first_level_fills
from gencl.model._params import nominal_inputs

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 128}
SIZES = {"nz": 64, "ny": 64, "nx": 128}


def _laplace3d(**point):
    from gencl.api import load
    from gencl.generate import transform_program

    spec = load("tuning/laplace3d.py")
    return compute_stats(transform_program(spec, spec.complete(point)), SIZES, subgroup_size=32)


@pytest.mark.parametrize("point, sectors", [
    # 32×4 items: the planes above and below, 4 rows of 4 sectors each (32); the centre plane,
    # its 4 rows and the halo rows above and below (24), and beside each centre row the sector
    # its west and its east neighbour reach into (8); the stored rows (16)
    ({"workgroup": [32, 4, 1]}, 32 + 24 + 8 + 16),
    # 128×1: one row of 16 sectors in each plane above and below (32), three in the centre plane
    # (48) and its two side sectors, the stored row (16): more halo for as many items
    ({"workgroup": [128, 1, 1]}, 32 + 48 + 2 + 16),
    # streamed through 4 planes: 6 planes of the tile (96), each centre plane's halo rows (4 × 8)
    # and side sectors (4 × 8), 4 stored tiles (64): each plane read once, not 3 times
    ({"workgroup": [32, 4, 1], "stream_k": 4}, 96 + 32 + 32 + 64),
    # float4, 32×4 items = 128 × 4 points: the planes above and below (2 × 64), the centre
    # plane's 6 rows (96), one side vector's sector beside each centre row (8), stores (64)
    ({"workgroup": [32, 4, 1], "vector_width": 4}, 128 + 96 + 8 + 64),
])
def test_a_group_brings_its_tile_halo_and_planes_in_once(point, sectors):
    """Rows are 640 bytes apart (128 points padded to 160) and start on a 32-byte sector, so a
    row of 32 floats is 4 sectors and the west and east neighbours of its ends reach one sector
    beyond each."""
    stats = _laplace3d(**point)
    assert first_level_fills(stats.extra["item_trace"], 32) == sectors * 32


def test_no_trace_no_fills():
    assert first_level_fills(None, 32) is None
    assert first_level_fills({"arrays": {}, "length": 0, "local": [32]}, 32) is None


def test_the_next_levels_bandwidth_prices_the_fills_where_it_is_slower_than_drams():
    """terms["l2_bandwidth"] = fills × groups / l2_read_bw_Bps. Where DRAM is slower the time is
    the same as without the figure (DRAM's bytes pass the same level: the slower sets the pace);
    where the next level is far slower the time is its term, its bottleneck, and the
    first_level_fills criterion offers the time at DRAM's pace."""
    stats = _laplace3d(workgroup=[128, 1, 1])
    fills = first_level_fills(stats.extra["item_trace"], 32)
    base = {"copy_bw_Bps": 1e12, "cache_requests_per_s": 1e15, "group_dispatch_s": 1e-15,
            "global_latency_cycles": 1.0}
    bare = predict(stats, params_from(base, GPU))
    assert bare.terms["l2_bandwidth"] == 0.0
    fast = predict(stats, params_from({**base, "l2_read_bw_Bps": 1e15}, GPU))
    assert fast.terms["l2_bandwidth"] == pytest.approx(fills * stats.groups / 1e15)
    assert fast.terms["l2_bandwidth"] < fast.terms["memory_bandwidth"]
    assert fast.time_s == pytest.approx(bare.time_s)
    slow = predict(stats, params_from({**base, "l2_read_bw_Bps": 1e9}, GPU))
    t_l2 = fills * stats.groups / 1e9
    assert slow.terms["l2_bandwidth"] == pytest.approx(t_l2)
    assert slow.bottleneck == "l2_bandwidth"
    assert slow.time_s == pytest.approx(t_l2, rel=1e-3)
    criterion = {c.name: c for c in slow.criteria}["first_level_fills"]
    assert criterion.value == pytest.approx(slow.terms["memory_bandwidth"] / t_l2)
    assert criterion.speedup == pytest.approx(slow.time_s / bare.time_s)
    assert {c.name: c for c in fast.criteria}["first_level_fills"].speedup == 1.0


def test_without_the_figure_the_fills_are_not_priced_and_explain_says_so():
    p = params_from({}, GPU)
    assert p.l2_bw == 0.0 and p.sources["l2_read_bw_Bps"] == "nominal"
    assert "l2_read_bw_Bps" in nominal_inputs("l2_bandwidth", p)
    measured = params_from({"l2_read_bw_Bps": 8e12}, GPU)
    assert measured.l2_bw == 8e12 and nominal_inputs("l2_bandwidth", measured) == []
