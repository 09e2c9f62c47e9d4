"""Device health on the real runtimes: the probe, its cache, runtimes told apart, the default."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gencl.device import DEFAULT_PREFERENCE, device_health, list_devices, select_device
from gencl.device._health import build_failure_reason, probe_key
from gencl.device._icd import find_intel_cpu_library
from gencl.device._info import library_source, preference

REPO = Path(__file__).resolve().parents[2]

#: An option PoCL rejects: every PoCL build fails while it is set (PoCL reads it at each build).
BREAKS_POCL = {"POCL_EXTRA_BUILD_FLAGS": "-fgencl-no-such-option"}


def _gencl(*args: str, env: dict[str, str] | None = None, cwd: Path = REPO
           ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gencl", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, **(env or {})}, timeout=600)


def test_every_listed_device_is_probed_and_the_pocl_device_works():
    devices = list_devices()
    pocl = [d for d in devices if d.slug.startswith("pocl-")]
    assert pocl, [d.slug for d in devices]
    for d in devices:
        health = device_health(d)
        assert health.usable or health.reason, d.slug
    assert any(device_health(d).usable for d in pocl)


def test_probe_is_cached_on_disk_per_device_and_environment():
    info = select_device("pocl")[1]
    key = probe_key(info.platform, info.platform_version, info.name, info.driver, info.library)
    entry = Path(os.environ["GENCL_CACHE_DIR"]) / "devices" / f"{key}.json"
    device_health(info)
    assert json.loads(entry.read_text())["usable"] is True
    os.environ.update(BREAKS_POCL)
    try:  # a compile setting is part of the key: the cached answer is not reused under it
        assert probe_key(info.platform, info.platform_version, info.name, info.driver,
                         info.library) != key
    finally:
        for name in BREAKS_POCL:
            del os.environ[name]


def test_build_failure_reason_is_the_compilers_line_not_pyopencls_wrapping():
    import pyopencl as cl

    cl_device, _ = select_device("pocl")
    ctx = cl.Context([cl_device])
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, "__kernel void k(__global float *a) { a[0] = undeclared_name; }").build()
    reason = build_failure_reason(str(info.value))
    assert "undeclared_name" in reason and "clBuildProgram failed" not in reason
    assert "\n" not in reason


def test_runtimes_on_one_cpu_get_different_slugs():
    devices = [d for d in list_devices() if d.device_type == "CPU"]
    slugs = [d.slug for d in devices]
    assert len(set(slugs)) == len(slugs), slugs
    for d in devices:
        if d.slug.startswith("pocl-"):
            assert d.slug == f"pocl-{library_source(d.library)}-cpu" and d.library, d
    assert library_source("/x/lib/python3.11/site-packages/pyopencl/.libs/libpocl.so") == "pypi"
    assert library_source("") == ""  # records written before the library was kept: pocl-cpu


def test_default_is_the_best_ranked_usable_device_never_the_simulator_when_another_works():
    devices = list_devices()
    _, chosen = select_device()
    usable = [d for d in devices if device_health(d).usable]
    assert device_health(chosen).usable
    assert preference(chosen) == min(preference(d) for d in usable)
    if any(d.slug != "oclgrind" for d in usable):
        assert chosen.slug != "oclgrind"
    assert DEFAULT_PREFERENCE.index("pocl-system") < DEFAULT_PREFERENCE.index("pocl-pypi")


def test_gencl_device_environment_variable_overrides_the_default(tmp_path):
    proc = _gencl("run", "copy", "--quick", "--knob", "dtype=float32", "--knob", "reads=1",
                  "--size", "n=256", "--repeats", "3", "--json", env={"GENCL_DEVICE": "oclgrind"},
                  cwd=tmp_path)  # the results file lands under tmp_path/bench_results
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["device"]["slug"] == "oclgrind"


@pytest.mark.skipif(find_intel_cpu_library() is None,
                    reason="Intel's CPU runtime is not installed (pip install 'gencl[intel]')")
def test_intel_cpu_runtime_from_pip_is_registered_and_runs_a_kernel():
    env = {k: v for k, v in os.environ.items() if k != "OCL_ICD_VENDORS"}
    proc = subprocess.run([sys.executable, "-m", "gencl", "devices", "--json"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    intel = [d for d in json.loads(proc.stdout) if d["slug"] == "intel-cpu"]
    assert len(intel) == 1 and intel[0]["usable"], intel
    assert intel[0]["library"] == os.path.realpath(find_intel_cpu_library())
