"""dram_requests: line requests of rows on and off a line by hand; the best bandwidth of each
offset from synthetic records; the quick sweep runs, matches numpy, really reads its rows off
a line and feeds the analysis on PoCL."""

from __future__ import annotations

import math

import pytest

from gencl.characterize import get_analysis
from gencl.characterize.dram_requests import READS, requests_per_launch
from tests.characterize_tests._records import DEVICE, record


def point(width, offset, wg=256):
    return {"vector_width": width, "offset_bytes": offset, "workgroup": wg}


@pytest.mark.parametrize("width, offset, per_warp_load", [
    (1, 0, 1), (1, 32, 2), (1, 64, 2),   # 128 B of floats: one line, or two pieces of two
    (4, 0, 4), (4, 32, 5), (4, 64, 5)])  # 512 B of float4: four lines, or five
def test_requests_by_hand(width, offset, per_warp_load):
    m = 1 << 16
    assert requests_per_launch(point(width, offset), {"m": m}, 32, 128) == \
        READS * m / 32 * per_warp_load


def test_each_offsets_best_bandwidth():
    m = 1 << 20
    read = READS * m * 4  # float bytes
    recs = [record(point(1, 0), {"m": m}, 1e-3, vid="on"),
            record(point(4, 0), {"m": m // 4}, 2e-3, vid="on4"),     # the same bytes, slower
            record(point(1, 64), {"m": m}, 1.6e-3, vid="off"),
            record(point(1, 32), {"m": m}, 0.5e-3, vid="mid"),       # not an offset compared
            record(point(4, 64), {"m": m // 4}, 1e-4, status="wrong_answer", vid="bad")]
    result = get_analysis("dram_requests")(recs, {**DEVICE, "global_cacheline_bytes": 128}, None)
    chars = {c.name: c for c in result.characteristics}
    assert chars["aligned_rows_read_bw_Bps"].value == pytest.approx(read / 1e-3)
    assert chars["aligned_rows_read_bw_Bps"].variants == ("on",)
    assert chars["offset_rows_read_bw_Bps"].value == pytest.approx(read / 1.6e-3)
    s = result.series["read_bandwidth_vs_row_offset"]
    assert s["x"] == [0, 32, 64]
    assert s["y"]["float"] == [pytest.approx(read / 1e-3), pytest.approx(read / 0.5e-3),
                               pytest.approx(read / 1.6e-3)]
    assert s["y"]["float4"] == [pytest.approx(read / 2e-3), None, None]
    # a half-line request per warp load where the aligned row has one line: twice the rate
    assert any("offset 64 B" in n and f"{READS * m / 32 * 2 / 1.6e-3:.3g}" in n
               for n in result.notes)


def test_no_offset_point_no_figure():
    recs = [record(point(1, 0), {"m": 1 << 20}, 1e-3, vid="on")]
    result = get_analysis("dram_requests")(recs, DEVICE, None)
    assert [c.name for c in result.characteristics] == ["aligned_rows_read_bw_Bps"]
    assert "no successful point at offset 64 B" in result.notes


def test_quick_sweep_on_pocl(engine):
    from gencl.generate import generate
    from gencl.measure import run_points
    from gencl.spec import load_spec

    spec = load_spec("dram_requests")
    points = spec.sweep_points(engine.info, quick=True)
    assert {p["offset_bytes"] for p in points} == {0, 64}
    for p in points:  # the first row's first element read: 16 floats (64 B) in, or the first
        source = generate(spec, p).source
        assert ("src[16 + 256 * gid(0)" in source) == (p["offset_bytes"] == 64)
        assert ("src[256 * gid(0)" in source) == (p["offset_bytes"] == 0)
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    result = get_analysis("dram_requests")([m.to_json() for m in results],
                                           engine.info.to_json(), None)
    chars = {c.name: c.value for c in result.characteristics}
    for name in ("aligned_rows_read_bw_Bps", "offset_rows_read_bw_Bps"):
        assert math.isfinite(chars[name]) and chars[name] > 0, name
