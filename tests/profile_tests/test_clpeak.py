"""clpeak as a peer: its real output parsed, the device mapped, a live run beside a profile.

The files under data/ are clpeak 1.1.2 (Debian) output captured on the development machine
(Intel Xeon, Ice Lake server, 2 cores under KVM, shared with other work, hence the low figures):
the full run through Debian's PoCL 3.1, and the compared tests through Intel's CPU runtime.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from gencl.profile._clpeak import (
    comparison, find_library, icd_libraries, parse_output, parse_version, run_clpeak, clpeak_tests)

DATA = Path(__file__).parent / "data"
HAVE_CLPEAK = shutil.which("clpeak") is not None


def test_parse_debian_pocl_full_output():
    out = parse_output((DATA / "clpeak-1.1.2-debian-pocl-3.1.txt").read_text())
    assert out["platform"] == "Portable Computing Language"
    assert out["device"] == "pthread-skylake-avx512-Intel(R) Xeon(R) Processor @ 2.80GHz"
    assert out["driver"] == "3.1+debian (Linux x64)"
    figs = out["figures"]
    assert set(figs) == {"sp_madd_peak_flops", "dp_peak_flops", "int_peak_ops",
                         "global_read_bw_Bps", "launch_queued_to_start_s", "h2d_bw_Bps",
                         "d2h_bw_Bps"}
    assert math.isclose(figs["h2d_bw_Bps"]["value"], 4.72e9)  # the blocking write, not a map
    assert math.isclose(figs["d2h_bw_Bps"]["value"], 4.55e9)
    # best over vector widths, in SI units
    assert figs["sp_madd_peak_flops"]["best"] == "float16"
    assert math.isclose(figs["sp_madd_peak_flops"]["value"], 6.74e9)
    assert figs["sp_madd_peak_flops"]["by_width"]["float"] == 0.52
    assert figs["dp_peak_flops"]["best"] == "double16"
    assert math.isclose(figs["dp_peak_flops"]["value"], 7.26e9)
    assert math.isclose(figs["int_peak_ops"]["value"], 3.77e9)  # not the 24-bit section's 4.30
    assert math.isclose(figs["global_read_bw_Bps"]["value"], 8.78e9)
    assert math.isclose(figs["launch_queued_to_start_s"]["value"], 13.24e-6)
    transfer = out["sections"]["Transfer bandwidth"]["values"]
    assert transfer["enqueueWriteBuffer"] == 4.72 and transfer["memcpy to mapped ptr"] == 6.92


def test_parse_intel_output_skips_half_precision():
    out = parse_output((DATA / "clpeak-1.1.2-intel-2026.2-selected.txt").read_text())
    assert out["platform"] == "Intel(R) OpenCL"
    figs = out["figures"]
    assert figs["sp_madd_peak_flops"]["best"] == "float16"
    assert math.isclose(figs["sp_madd_peak_flops"]["value"], 65.82e9)
    assert figs["int_peak_ops"]["best"] == "int8"  # 16.41 beats int16's 15.27
    assert figs["dp_peak_flops"]["best"] == "double"
    assert "Half-precision compute" in out["sections"]  # parsed, compared with nothing


def test_version_and_tests():
    assert parse_version("clpeak version: 1.1.2\n") == "1.1.2"
    assert parse_version("no version here") is None
    assert clpeak_tests(["chain", "copy", "runtime_overhead"]) == [
        "--compute-sp", "--compute-dp", "--compute-integer", "--kernel-latency"]
    assert clpeak_tests(["copy"]) == []
    assert clpeak_tests(["read_bandwidth"], "2.1.2") == ["--global-memory-bandwidth"]
    assert clpeak_tests(["local_memory", "transfers"], "2.1.2") == [
        "--local-memory-bandwidth", "--transfer-bandwidth"]
    assert clpeak_tests(["local_memory"]) == []  # clpeak 1.x has no local-memory test


def test_parse_local_memory_and_transfer_sections_of_2x():
    text = """Platform: NVIDIA CUDA
  Device: NVIDIA H200
    Local memory bandwidth (GBPS)
      float   : 16553.97
      float4  : 28592.85
    Transfer bandwidth (GBPS)
      enqueuewritebuffer : 7.24
      enqueuereadbuffer : 13.43
      memcpy_from_mapped_ptr : 9.4
"""
    figs = parse_output(text)["figures"]
    assert figs["local_bw_Bps"]["best"] == "float4"
    assert math.isclose(figs["local_bw_Bps"]["value"], 28592.85e9)
    assert math.isclose(figs["h2d_bw_Bps"]["value"], 7.24e9)
    assert math.isclose(figs["d2h_bw_Bps"]["value"], 13.43e9)


def test_parse_image_memory_section_of_2x():
    """clpeak 2.x's "Image memory bandwidth" test (--image-memory-bandwidth). The fixture is
    constructed, not captured: it is the text clpeak 2.1.2's LoggerText prints (platform line at
    indent 1, device at 2, properties padded to 17 at 3, the test header ``Title (UNIT)`` at 3,
    each metric at 4 padded to 8, ``%.2f``) for its one ``float4`` row, with a made-up value."""
    out = parse_output((DATA / "clpeak-2.x-image-constructed.txt").read_text())
    assert (out["platform"], out["device"]) == ("NVIDIA CUDA", "NVIDIA H200")
    fig = out["figures"]["image_read_bw_Bps"]
    assert fig["best"] == "float4" and fig["unit"] == "B/s"
    assert math.isclose(fig["value"], 1234.56e9)
    # a device without images: clpeak skips the row with its reason; nothing to compare
    skipped = """Platform 0: Some CPU
  Device 0: cpu
    Image memory bandwidth (GBPS)
      float4   : [unsupported] Device has no image support
"""
    parsed = parse_output(skipped)
    assert "image_read_bw_Bps" not in parsed["figures"]
    assert parsed["sections"]["Image memory bandwidth"]["values"] == {}
    assert clpeak_tests(["image_memory"], "2.1.2") == ["--image-memory-bandwidth"]
    assert clpeak_tests(["image_memory"], "1.1.2") == []  # clpeak 1.x has no image test


def test_a_run_of_some_tests_is_laid_over_the_stored_record():
    """``gencl profile --only image_memory --clpeak`` into a folder whose profile holds clpeak's
    other figures keeps them; a figure measured again replaces the old one and its run."""
    from gencl.profile._clpeak import merge_runs, update_record

    def run(date, text, command):
        parsed = parse_output(text)
        return {"tool": "clpeak", "version": "2.1.2", "device": parsed["device"],
                "status": "ok", "reason": "", "date": date, "command": command,
                "elapsed_s": 2.0, "output": text, "figures": parsed["figures"],
                "sections": parsed["sections"]}

    head = "Platform 0: NVIDIA CUDA\n  Device 0: NVIDIA H200\n"
    read = run("d1", head + "    Global memory bandwidth (GBPS)\n      float4   : 4000.00\n",
               ["clpeak", "--global-memory-bandwidth"])
    local = run("d2", head + "    Local memory bandwidth (GBPS)\n      float4   : 28000.00\n",
                ["clpeak", "--local-memory-bandwidth"])
    stored = merge_runs([read, local])
    image = run("d3", (DATA / "clpeak-2.x-image-constructed.txt").read_text(),
                ["clpeak", "--image-memory-bandwidth"])
    both = update_record(stored, image)
    assert set(both["figures"]) == {"global_read_bw_Bps", "local_bw_Bps", "image_read_bw_Bps"}
    assert [r["date"] for r in both["runs"]] == ["d1", "d2", "d3"] and both["status"] == "ok"
    again = run("d4", head + "    Global memory bandwidth (GBPS)\n      float4   : 4100.00\n",
                ["clpeak", "--global-memory-bandwidth"])
    later = update_record(both, again)
    assert [r["date"] for r in later["runs"]] == ["d2", "d3", "d4"]  # d1 measured again
    assert math.isclose(later["figures"]["global_read_bw_Bps"]["value"], 4100e9)
    assert update_record(None, image) == image
    assert update_record(stored, {**image, "untested": True, "status": "error"}) == stored
    other = {**image, "version": "1.1.2"}  # another clpeak: its record alone
    assert update_record(stored, other) == other


def test_comparison_direction_per_figure():
    peer = {"figures": {"sp_madd_peak_flops": {"value": 100.0, "unit": "FLOP/s"},
                        "global_read_bw_Bps": {"value": 10.0, "unit": "B/s"},
                        "launch_queued_to_start_s": {"value": 2e-5, "unit": "s"}}}
    rows = {r["figure"]: r for r in comparison(peer, {"sp_madd_peak_flops": 150.0,
                                                     "global_read_bw_Bps": 9.0,
                                                     "launch_queued_to_start_s": 1e-5,
                                                     "launch_roundtrip_s": 3e-5})}
    assert rows["sp_madd_peak_flops"]["ratio"] == 1.5
    assert rows["sp_madd_peak_flops"]["gencl_at_or_ahead"] is True
    assert rows["global_read_bw_Bps"]["gencl_at_or_ahead"] is False
    assert rows["launch_queued_to_start_s"]["gencl_at_or_ahead"] is True  # faster is better
    # clpeak 1.x has no round trip: the row shows gencl's alone
    assert rows["launch_roundtrip_s"]["clpeak"] is None
    assert rows["launch_roundtrip_s"]["gencl_at_or_ahead"] is None


def test_default_device_maps_to_one_icd_library(engine):
    """pyopencl's platform is found among the ICD libraries by name, version and devices."""
    platform = engine.cl_device.platform
    lib, index = find_library(platform.name, platform.version,
                              [d.name for d in platform.get_devices()])
    assert lib in icd_libraries() and index == 0
    other, _ = find_library(platform.name, platform.version + " (another build)",
                            [d.name for d in platform.get_devices()])
    assert other is None


@pytest.mark.skipif(not HAVE_CLPEAK, reason="clpeak is not installed")
def test_live_clpeak_on_the_profiled_device(engine):
    record = run_clpeak(engine.cl_device, ["runtime_overhead"])
    assert record["status"] == "ok", record["reason"]
    assert record["device"] == engine.cl_device.name.strip()
    assert "--kernel-latency" in record["command"] and record["version"]
    latency = record["figures"]["launch_queued_to_start_s"]
    assert 0 < latency["value"] < 0.1 and latency["unit"] == "s"
    # the stored output parses to the same figures
    assert parse_output(record["output"])["figures"] == record["figures"]


@pytest.mark.skipif(not HAVE_CLPEAK, reason="clpeak is not installed")
def test_clpeak_without_the_test_says_which_version_has_it(engine):
    record = run_clpeak(engine.cl_device, ["image_memory"])
    if record.get("version", "").startswith("1."):  # Debian's clpeak 1.1.2 here
        assert record["status"] == "error" and record["untested"] is True
        assert "has no test of the figures of image_memory" in record["reason"]
        assert "--image-memory-bandwidth" in record["reason"]  # where 2.x has it


@pytest.mark.skipif(not HAVE_CLPEAK, reason="clpeak is not installed")
def test_profile_records_clpeak_beside_gencl(tmp_path):
    from gencl.profile import load_profile, run_profile

    folder = tmp_path / "prof"
    run_profile(folder, device="pocl", quick=True, only=["runtime_overhead", "transfers"],
                progress=False, clpeak=True)
    profile = load_profile(folder)  # validates against the schema, peers included
    peer = profile.peers["clpeak"]
    assert peer["status"] == "ok", peer["reason"]
    summary = json.loads((folder / "summary.json").read_text())
    row = summary["peers"]["clpeak"]["figures"]["launch_queued_to_start_s"]
    assert row["gencl"] == profile.value("launch_queued_to_start_s")
    assert math.isclose(row["gencl_over_clpeak"], row["gencl"] / row["clpeak"])
    from gencl.profile import render_report

    report = render_report(profile).read_text()
    assert "## clpeak on the same device" in report
    assert "kernel launch: dispatch (queued → start)" in report
    run_profile(folder, device="pocl", quick=True, only=["runtime_overhead"], progress=False,
                clpeak=False)
    assert load_profile(folder).peers["clpeak"] == peer  # kept, not rerun, when switched off


def test_runs_beside_each_benchmark_merge_into_one_record():
    from gencl.profile._clpeak import merge_runs, shared

    assert shared("read_bandwidth") and shared("chain") and not shared("fine_chase")
    read = {"tool": "clpeak", "version": "1.1.2", "status": "ok", "reason": "",
            "command": ["clpeak", "--global-bandwidth"], "elapsed_s": 4.0, "date": "d1",
            "figures": {"global_read_bw_Bps": {"value": 3e10, "unit": "B/s"}},
            "sections": {"Global memory bandwidth": {"unit": "GBPS", "values": {"float": 30}}}}
    latency = {"tool": "clpeak", "version": "1.1.2", "status": "error", "reason": "boom",
               "command": ["clpeak", "--kernel-latency"], "elapsed_s": 1.0, "date": "d2",
               "figures": {}, "sections": {}}
    merged = merge_runs([read, latency])
    assert merged["figures"] == read["figures"] and merged["status"] == "error"
    assert merged["reason"] == "boom" and merged["elapsed_s"] == 5.0
    assert [r["date"] for r in merged["runs"]] == ["d1", "d2"]
    assert merged["command"] == ["clpeak", "--global-bandwidth", "·", "clpeak",
                                 "--kernel-latency"]
    assert merge_runs([read]) == read
    # clpeak 1.x beside image_memory ran nothing: left out of the merge, not an error of it
    untested = {**latency, "status": "error", "untested": True, "command": None,
                "reason": "clpeak 1.1.2 has no test of the figures of image_memory"}
    assert merge_runs([read, untested]) == read
    assert merge_runs([untested])["reason"].startswith("clpeak 1.1.2 has no test")
