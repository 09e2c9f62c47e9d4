"""The CLI end to end on the default device."""

from __future__ import annotations

import json
import subprocess
import sys


def _gencl(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gencl", *args], capture_output=True, text=True,
                          cwd=cwd)


def test_devices_lists_pocl_as_default():
    proc = _gencl("devices", "--json")
    assert proc.returncode == 0, proc.stderr
    devices = json.loads(proc.stdout)
    default = [d for d in devices if d["default"]]
    assert len(default) == 1 and default[0]["slug"] == "pocl-cpu"
    assert default[0]["compute_units"] >= 1 and default[0]["local_mem_bytes"] > 0


def test_generate_writes_sources_and_manifest(tmp_path):
    proc = _gencl("generate", "copy", "--knob", "vector_width=4", "--knob", "dtype=float32",
                  "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    (entry,) = manifest["variants"]
    assert entry["point"]["vector_width"] == 4
    assert "float4" in (tmp_path / entry["file"]).read_text()


def test_run_measures_and_writes_json(tmp_path):
    out = tmp_path / "r.json"
    proc = _gencl("run", "copy", "--quick", "--knob", "dtype=float32", "--repeats", "5",
                  "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    (result,) = data["results"]
    assert result["status"] == "ok" and result["metrics"]["bytes"] > 0
    assert "GB/s" in proc.stdout


def test_bad_device_is_one_line_exit_2():
    proc = _gencl("run", "copy", "--device", "no-such-gpu")
    assert proc.returncode == 2 and "no device matches" in proc.stderr
    assert "Traceback" not in proc.stderr
