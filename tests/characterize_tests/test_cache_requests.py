"""cache_requests: request counts of known strides by hand; the rate of a synthetic record;
the quick sweep runs, matches numpy and feeds the analysis on PoCL."""

from __future__ import annotations

import math

import pytest

from gencl.characterize import get_analysis
from gencl.characterize.cache_requests import (
    instruction_lines, lines_per_instruction, requests_per_launch)
from tests.characterize_tests._records import DEVICE, record


def point(width, stride, wg=256, level=1):
    return {"vector_width": width, "stride": stride, "reads": 32, "workgroup": wg,
            "level": level}


def test_instruction_lines_by_hand():
    lanes = list(range(32))
    assert instruction_lines([4 * k for k in lanes], 4, 128) == 1  # 128 contiguous bytes
    assert instruction_lines([8 * k for k in lanes], 4, 128) == 2
    assert instruction_lines([128 * k for k in lanes], 4, 128) == 32  # a line per lane
    assert instruction_lines([16 * k for k in lanes], 16, 128) == 4  # float4: 512 B
    # float16 lanes: four 16-B loads, each over 32 lanes 64 B apart = 16 lines
    assert instruction_lines([64 * k for k in lanes], 64, 128) == 4 * 16
    assert instruction_lines([0, 120], 16, 128) == 2  # lane 1's piece straddles two lines
    assert instruction_lines([0, 0, 0], 4, 128) == 1  # a broadcast is one request


@pytest.mark.parametrize("width, stride, per_warp_load", [
    (1, 1, 1), (1, 2, 2), (1, 8, 8), (1, 32, 32), (4, 1, 4), (4, 8, 32), (16, 1, 64),
    (16, 2, 128)])
def test_requests_per_launch_warp32(width, stride, per_warp_load):
    n = 1 << 14
    expected = n / 32 * 32 * per_warp_load  # warps × reads × lines per warp load
    assert requests_per_launch(point(width, stride), {"n": n}, 32, 128) == expected
    assert lines_per_instruction(point(width, stride), 32, 128) == per_warp_load


def test_subgroup_and_line_size():
    n = 1 << 12
    # 16-lane sub-groups, 64-B lines (a CPU): float at stride 1 is one line per sub-group load
    assert requests_per_launch(point(1, 1), {"n": n}, 16, 64) == n / 16 * 32
    # float at stride 32 (128 B apart): every lane its own line, whatever the sub-group
    assert requests_per_launch(point(1, 32), {"n": n}, 16, 64) == n * 32
    # a work-group smaller than the warp: sub-group = work-group (8 lanes × 4 B = 1 line)
    assert requests_per_launch(point(1, 1, wg=8), {"n": n}, 32, 128) == n / 8 * 32


def test_rate_is_the_best_point():
    n = 1 << 22
    recs = [record(point(1, 1), {"n": n}, 1e-4, vid="a"),    # 2^22 requests
            record(point(1, 32), {"n": n}, 1e-3, vid="b"),   # 2^27 requests
            record(point(16, 2), {"n": n}, 3e-3, vid="c"),   # 2^29 requests
            record(point(4, 4), {"n": n}, 1.0, status="wrong_answer", vid="d")]
    result = get_analysis("cache_requests")(recs, {**DEVICE, "global_cacheline_bytes": 128},
                                            2e9)
    chars = {c.name: c for c in result.characteristics}
    assert chars["cache_requests_per_s"].value == pytest.approx(2**29 / 3e-3)
    assert chars["cache_requests_per_s"].variants == ("c",)
    assert chars["cache_requests_per_cycle_per_cu"].value == pytest.approx(
        2**29 / 3e-3 / (2e9 * 132))
    s = result.series["bandwidth_l1_requests_vs_lines"]
    assert s["x"] == [1.0, 32.0, 128.0]
    assert s["y"]["float"] == [pytest.approx(2**22 / 1e-4), pytest.approx(2**27 / 1e-3), None]
    assert "l2_requests_per_s" not in chars and "l2_read_bw_Bps" not in chars
    assert result.notes == ("no successful level-2 measurement",)


def test_level2_points_give_their_own_rate():
    """Level-2 points (every request a first-level miss) never set the first-level rate, however
    fast, and a record stored before levels existed counts as level 1."""
    n = 1 << 22
    old = point(1, 32)
    del old["level"]
    recs = [record(old, {"n": n}, 1e-3, vid="l1"),                  # 2^27 requests
            record(point(1, 32, level=2), {"n": n}, 2e-3, vid="l2"),
            record(point(1, 1, level=2), {"n": n}, 1e-5, vid="l2c")]  # 2^22, fastest rate
    result = get_analysis("cache_requests")(recs, {**DEVICE, "global_cacheline_bytes": 128},
                                            2e9)
    chars = {c.name: c for c in result.characteristics}
    assert chars["cache_requests_per_s"].value == pytest.approx(2**27 / 1e-3)
    assert chars["l2_requests_per_s"].value == pytest.approx(2**22 / 1e-5)
    assert chars["l2_requests_per_s"].variants == ("l2c",)
    assert chars["l2_requests_per_cycle_per_cu"].value == pytest.approx(
        2**22 / 1e-5 / (2e9 * 132))
    # the next level's bandwidth: bytes the lanes read (n items × 32 reads × 4 B) / time,
    # the best level-2 point (not the level-1 one, nor the strided level-2 one)
    assert chars["l2_read_bw_Bps"].value == pytest.approx(n * 32 * 4 / 1e-5)
    assert chars["l2_read_bw_Bps"].variants == ("l2c",)
    y = result.series["bandwidth_l1_requests_vs_lines"]["y"]
    assert y["float, level 2"] == [pytest.approx(2**22 / 1e-5), pytest.approx(2**27 / 2e-3)]


def test_level2_time_splits_into_requests_and_sectors():
    """Times made from a request cost a and a sector cost b (float at lane strides 1, 8 and 32:
    1, 8 and 32 lines of 4, 4 and 1 sectors a warp load) give back 1/a and 1/b; points of one
    sectors-per-request ratio alone cannot tell them apart."""
    n, a, b = 1 << 22, 4e-12, 2e-12
    loads = n * 32 / 32  # warp loads: n items × 32 reads / 32 lanes
    recs = [record(point(1, 1, level=2), {"n": n}, loads * (1 * a + 4 * b), vid="s1"),
            record(point(1, 8, level=2), {"n": n}, loads * (8 * a + 32 * b), vid="s8"),
            record(point(1, 32, level=2), {"n": n}, loads * (32 * a + 32 * b), vid="s32")]
    device = {**DEVICE, "global_cacheline_bytes": 128, "device_type": "GPU"}
    chars = {c.name: c.value
             for c in get_analysis("cache_requests")(recs, device, 2e9).characteristics}
    assert chars["l2_line_requests_per_s"] == pytest.approx(1 / a)
    assert chars["l2_sectors_per_s"] == pytest.approx(1 / b)
    one = get_analysis("cache_requests")(recs[2:], device, 2e9)
    assert "l2_sectors_per_s" not in {c.name for c in one.characteristics}
    assert any("do not split requests from sectors" in note for note in one.notes)


def test_level2_warps_read_disjoint_lines():
    """At level 2 no warp reads a line twice and the warps one compute unit holds at once read
    different regions, so every request misses the first level (the spec's address formula)."""
    from gencl.spec import load_spec

    spec = load_spec("cache_requests")
    mod = spec.program.__globals__
    for width, stride in mod["LEVEL2"]:
        p = {"vector_width": width, "stride": stride, "reads": 32, "level": 2, "offset_bytes": 0}
        rows, shift, regions = mod["_region_rows"](p), mod["_rows_per_shift"](p), mod["_regions"](p)
        e = 4 * width
        lines = [(r * shift + lane * stride) * e // 128 for r in range(32) for lane in range(32)]
        per_warp = len(set(lines))
        assert per_warp == len(lines) // max(1, 128 // (stride * e)), (width, stride)
        assert regions % 2 == 1 and regions * rows * e <= mod["LEVEL2_BYTES"]
        assert regions * rows * e > 4 * (256 << 10)  # far beyond a first-level cache
        assert mod["_rows"](p) <= regions * rows


def test_a_row_off_the_line_is_two_half_line_requests_per_warp_load():
    """The level-2 point at offset 64: float rows 64 bytes into a line, each warp's load two
    requests of two sectors (the aligned point's one of four)."""
    from gencl.spec import load_spec

    spec = load_spec("cache_requests")
    mod = spec.program.__globals__
    p = {"vector_width": 1, "stride": 1, "reads": 32, "level": 2, "offset_bytes": 64,
         "workgroup": 256}
    assert p in [spec.complete(q) for q in spec.sweep]
    shift, offset = mod["_rows_per_shift"](p), mod["_offset_rows"](p)
    assert offset * 4 == 64
    starts = [(offset + r * shift) * 4 for r in range(32)]
    lines = [{(s + 4 * lane) // 128 for lane in range(32)} for s in starts]
    assert all(len(x) == 2 for x in lines)
    # read r + 1 takes the other half of read r's second line: every sector once, every request
    # a first-level miss of its own, as a row two warps share
    sectors = [(s + 4 * lane) // 32 for s in starts for lane in range(32)]
    assert len(set(sectors)) == len(sectors) // 8
    n = 1 << 12
    aligned = {**p, "offset_bytes": 0}
    assert requests_per_launch(p, {"n": n}, 32, 128) == 2 * requests_per_launch(aligned, {"n": n},
                                                                               32, 128)
    assert requests_per_launch(p, {"n": n}, 32, 32) == requests_per_launch(aligned, {"n": n},
                                                                           32, 32)
    assert mod["_rows"](p) == mod["_rows"](aligned) + offset


def test_quick_sweep_on_pocl(engine):
    from gencl.generate import generate
    from gencl.measure import run_points
    from gencl.spec import load_spec

    spec = load_spec("cache_requests")
    points = spec.sweep_points(engine.info, quick=True)
    assert {p["vector_width"] for p in points} == {1, 4, 16}
    for p in points:  # the vector knob really emits floatN loads (loopy can fall back silently)
        if p["vector_width"] > 1:
            assert f"float{p['vector_width']} const *" in generate(spec, p).source
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    assert all(m.max_error is not None and m.max_error <= 1 for m in results)
    result = get_analysis("cache_requests")([m.to_json() for m in results],
                                            engine.info.to_json(), None)
    chars = {c.name: c.value for c in result.characteristics}
    assert {p["level"] for p in points} == {1, 2}
    for name in ("cache_requests_per_s", "cache_requests_per_cycle_per_cu", "l2_requests_per_s",
                 "l2_requests_per_cycle_per_cu", "l2_read_bw_Bps"):
        assert math.isfinite(chars[name]) and chars[name] > 0, name
