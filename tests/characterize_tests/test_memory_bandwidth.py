"""Bandwidth analyses on synthetic copy/read records with known bandwidth and eq. 7 CPMR."""

from __future__ import annotations

import pytest

from gencl.characterize import get_analysis
from tests.characterize_tests._records import DEVICE, record


def copy_record(dtype, width, loop, unroll, bw, wg=256, reads=16):
    n = 1 << 20
    item = {"int8": 1, "int16": 2, "float32": 4}[dtype]
    nbytes = n * (reads + 1) * item
    point = {"dtype": dtype, "vector_width": width, "reads": reads, "loop": loop,
             "unroll": unroll, "workgroup": wg}
    return record(point, {"n": n, "R": reads}, nbytes / bw, work={"bytes": nbytes})


def test_copy_bandwidth_cpmr_and_loop_kinds():
    recs = [copy_record("float32", 4, "constant", "full", 3e12),
            copy_record("float32", 4, "dynamic", "none", 1e12),
            copy_record("float32", 1, "constant", "none", 2e12),
            copy_record("int8", 1, "constant", "full", 0.5e12),
            copy_record("float32", 4, "constant", "full", 2.5e12, wg=64)]
    result = get_analysis("bandwidth")(recs, DEVICE, 2e9)
    chars = {c.name: c for c in result.characteristics}
    assert chars["copy_bw_Bps"].value == pytest.approx(3e12)
    # eq. 7: runtime × clock / (n / width × R)
    best16 = recs[0]
    expect = best16["median_s"] * 2e9 / ((1 << 20) / 4 * 16)
    assert chars["copy_cpmr_cycles"].value["16"] == pytest.approx(expect)
    assert chars["copy_issue_latency_cycles"].value["16"] == pytest.approx(expect * 132 * 32)
    kinds = result.series["loop_kind_comparison"]
    assert dict(zip(kinds["labels"], kinds["values"]))["dynamic"] == pytest.approx(1e12)
    occ = result.series["bandwidth_vs_occupancy"]
    assert occ["x"] == [64, 256] and occ["y"][1] == pytest.approx(3e12)
    assert result.series["bandwidth_vs_element_size"]["x"] == [1, 4, 16]


def test_read_bandwidth_best_of_widths():
    recs = [record({"vector_width": w, "workgroup": 256, "reads": 32},
                   {"n": 1 << 20, "R": 32}, 1.0, work={"bytes": bw}) for w, bw in
            ((1, 2e12), (4, 4.3e12), (16, 4.0e12))]
    recs.append(record({"vector_width": 8, "workgroup": 256, "reads": 32}, {}, 1.0,
                       status="build_error"))
    result = get_analysis("read_bandwidth")(recs, DEVICE, None)
    assert result.characteristics[0].name == "global_read_bw_Bps"
    assert result.characteristics[0].value == pytest.approx(4.3e12)


def test_host_last_level_cache_from_sysfs(tmp_path):
    """Buffers meant to miss every cache are sized against the host's largest cache (a CPU
    runtime may report only its L2: Intel's says 256 KiB on a 48 MiB-L3 Xeon)."""
    from gencl.characterize._hardware import cpu_last_level_cache_bytes

    for index, size in (("index0", "48K"), ("index2", "2048K"), ("index3", "49152K")):
        (tmp_path / index).mkdir()
        (tmp_path / index / "size").write_text(size + "\n")
    assert cpu_last_level_cache_bytes(str(tmp_path)) == 48 << 20
    assert cpu_last_level_cache_bytes(str(tmp_path / "none")) == 0


def test_footprint_staircase_is_the_best_width_per_footprint():
    # float (4 B) and float4 (16 B) copies over three footprints: per footprint the faster one
    recs = []
    for kib, t1, t4 in ((256, 2e-6, 1e-6), (4096, 40e-6, 20e-6), (1 << 20, 8e-3, 9e-3)):
        for w, t in ((1, t1), (4, t4)):
            recs.append(record({"vector_width": w, "footprint_kib": kib, "workgroup": 256},
                               {"m": (kib << 10) // (8 * w)}, t, work={"bytes": kib << 10},
                               vid=f"w{w}f{kib}"))
    recs.append(record({"vector_width": 4, "footprint_kib": 64, "workgroup": 256}, {"m": 1},
                       1.0, status="error"))
    result = get_analysis("footprint_bandwidth")(recs, DEVICE, None)
    (char,) = result.characteristics
    assert char.name == "bandwidth_by_footprint"
    assert [s["footprint_bytes"] for s in char.value] == [256 << 10, 4096 << 10, 1 << 30]
    assert [s["bandwidth_Bps"] for s in char.value] == pytest.approx(
        [(256 << 10) / 1e-6, (4096 << 10) / 20e-6, (1 << 30) / 8e-3])
    assert char.variants == ("w4f256", "w4f4096", "w1f1048576")
    plot = result.series["bandwidth_vs_footprint"]
    assert plot["x"] == [256 << 10, 4096 << 10, 1 << 30]
    assert set(plot["y"]) == {"4 B elements", "16 B elements"}
