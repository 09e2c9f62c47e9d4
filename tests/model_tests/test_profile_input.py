"""The model is fed a typed profile: measured numbers used, missing ones nominal and named, the same
answer from any working directory, and a what-if for a device that is not on this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gencl.model import (
    Access, KernelStats, load_device_profile, load_params, nominal_inputs, params_from_profile,
    predict, results_root)

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "bench_results" / "nvidia-h200" / "profile.json"
H100 = ROOT / "bench_results" / "nvidia-h100" / "profile.json"


def test_committed_profile_feeds_every_number():
    profile = load_device_profile(H200)
    params = params_from_profile(profile)
    assert params.device == "NVIDIA H200"
    assert params.dram_bw == profile.summary["copy_bw_Bps"]
    assert params.sources["copy_bw_Bps"] == "measured"
    # summary.json beside it names the same profile
    again = params_from_profile(load_device_profile(H200.with_name("summary.json")))
    assert again == params


def test_missing_keys_fall_back_to_nominal_and_are_named(tmp_path):
    data = json.loads(H200.read_text())
    # the benchmarks that give the copy bandwidth (and its staircase against footprint)
    for bench in ("copy", "read_bandwidth", "footprint_bandwidth"):
        data["benchmarks"].pop(bench, None)
        data["suite"] = [b for b in data["suite"] if b != bench]
    (tmp_path / "profile.json").write_text(json.dumps(data))
    params = params_from_profile(load_device_profile(tmp_path))
    assert params.sources["copy_bw_Bps"] == "nominal"
    assert params.sources["sp_madd_peak_flops"] == "measured"
    # a memory-bound kernel's bottleneck is then decided by a guessed number, and said so
    acc = Access("a", "global", "load", 4, 1, 1e8, 1)
    stats = KernelStats(10**6, 256, 4096, {"float32:add": 1e6}, (acc,), {"a": 4e8}, 0.0, 0.0)
    pred = predict(stats, params)
    assert pred.bottleneck == "memory_bandwidth"
    assert nominal_inputs(pred.bottleneck, params) == ["copy_bw_Bps"]


def test_lookup_does_not_depend_on_the_working_directory(tmp_path, monkeypatch):
    device = json.loads(H200.read_text())["device"]
    monkeypatch.delenv("GENCL_RESULTS", raising=False)
    here = load_params(device)
    monkeypatch.chdir(tmp_path)
    assert results_root() == ROOT / "bench_results"
    assert load_params(device) == here
    assert here.sources["copy_bw_Bps"] == "measured"
    monkeypatch.setenv("GENCL_RESULTS", str(tmp_path))  # an empty results root: all nominal
    assert load_params(device).sources["copy_bw_Bps"] == "nominal"


def test_a_slugs_profile_of_another_device_is_not_used_silently(tmp_path):
    # a slug names a runtime (pocl-debian-cpu), not a machine: the committed profile of the
    # CPU the suite was profiled on must not price a user's other CPU under the same slug
    device = json.loads(H200.read_text())["device"]
    (tmp_path / device["slug"]).mkdir()
    (tmp_path / device["slug"] / "profile.json").write_text(H200.read_text())
    assert load_params(device, root=tmp_path).sources["copy_bw_Bps"] == "measured"
    assert load_params(device, root=tmp_path).profile_note == ""
    other = {**device, "name": "NVIDIA H200 NVL"}
    params = load_params(other, root=tmp_path)
    assert params.sources["copy_bw_Bps"] == "nominal"
    assert params.device == "NVIDIA H200 NVL"
    assert "was measured on NVIDIA H200, not on NVIDIA H200 NVL" in params.profile_note
    # named explicitly, it prices the other device (a what-if), and says nothing
    explicit = load_params(other, profile=tmp_path / device["slug"] / "profile.json")
    assert explicit.sources["copy_bw_Bps"] == "measured" and explicit.profile_note == ""
    # the other device's own profile, in a folder of its own, prices it (the H100's numbers
    # stand in for its measurements here)
    data = json.loads(H100.read_text())
    data["device"]["name"] = other["name"]
    (tmp_path / "nvidia-h200-nvl").mkdir()
    (tmp_path / "nvidia-h200-nvl" / "profile.json").write_text(json.dumps(data))
    own = load_params(other, root=tmp_path)
    assert own.profile_note == ""
    assert own.dram_bw == params_from_profile(load_device_profile(H100)).dram_bw
    # and so where its slug has no folder at all
    (tmp_path / device["slug"] / "profile.json").unlink()
    assert load_params(other, root=tmp_path).dram_bw == own.dram_bw


@pytest.mark.parametrize("profile, name", [(H200, "NVIDIA H200"),
                                           (H100, "NVIDIA H100 80GB HBM3")])
def test_explain_what_if_from_a_committed_profile(tmp_path, profile, name):
    """``gencl explain --profile`` of a GPU on a machine without it (CI's CPU); a tuple knob
    given as ``--list`` prints it (``128x8``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "gencl", "explain", "jacobi", "--profile", str(profile),
         "--knob", "dtype=float32", "--knob", "boundary=padded", "--knob", "vector_width=4",
         "--knob", "workgroup=128x8", "--json"], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["sizes"] == {"n": 8192}             # the GPU's problem size, not the CPU's
    assert data["params"]["device"] == name
    assert data["point"]["workgroup"] == [128, 8]
    assert data["nominal_bottleneck_inputs"] == []
    assert 100e-6 < data["prediction"]["time_s"] < 1e-3
    # what the terms price, as counters read it: every count named, DRAM near the compulsory
    # 12 bytes a point (u and f read, u_new written)
    from gencl.model._predict import COUNTS

    counts = data["prediction"]["counts"]
    assert set(counts) == set(COUNTS)
    assert counts["dram_bytes"] == pytest.approx(12 * 8192 ** 2, rel=0.1)


def test_accuracy_over_a_profiles_own_benchmark_records(tmp_path):
    """``--accuracy`` reads a profile's raw benchmark file as it reads a space's results: the
    load_rounds points (README's command), each predicted from the rest of the H100 profile,
    the kernel named as one the terms were developed on."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "gencl", "explain", "load_rounds", "--profile", str(H100),
         "--accuracy", str(H100.parent / "raw" / "load_rounds.json"), "--json"], cwd=tmp_path,
        env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["n"] == 18 and data["spec"] == "load_rounds"
    assert data["model_role"] == "developed on"
    assert data["params"]["global_latency_cycles"] == "measured"


def test_accuracy_over_a_gathering_kernels_committed_space(tmp_path):
    """The README's spmv_ell command on its committed H100 space, cut to the first two records
    of each of its four matrices (the whole 64 take three minutes of CI): each gather counted
    on the spec's data at the space's sizes and priced by the profile's request_overlap
    figures."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    committed = json.loads((H100.parent / "spmv_ell" / "space.json").read_text())
    kept: dict[str, list] = {}
    for record in committed["results"]:
        kept.setdefault(record["point"]["pattern"], []).append(record)
    committed["results"] = [r for records in kept.values() for r in records[:2]]
    space = tmp_path / "space.json"
    space.write_text(json.dumps(committed))
    out = subprocess.run(
        [sys.executable, "-m", "gencl", "explain", "spmv_ell", "--profile", str(H100),
         "--accuracy", str(space), "--json"], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert len(kept) == 4 and data["n"] == 8 and data["spec"] == "spmv_ell"
    for key in ("first_level_gather_requests_per_s", "next_level_request_overlap_exponent"):
        assert data["params"][key] == "measured"


@pytest.mark.parametrize("bad", ["nothing.json", "summary.json"])
def test_a_missing_profile_is_one_line_and_exit_2(tmp_path, bad):
    out = subprocess.run(
        [sys.executable, "-m", "gencl", "explain", "jacobi", "--profile", str(tmp_path / bad)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
        text=True, timeout=300)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and "no such profile" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
