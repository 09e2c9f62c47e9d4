"""The CLI end to end on the default device."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def _gencl(*args: str, cwd=None, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gencl", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, **(env or {})})


def test_devices_default_is_a_usable_cpu_runtime():
    proc = _gencl("devices", "--json")
    assert proc.returncode == 0, proc.stderr
    devices = json.loads(proc.stdout)
    default = [d for d in devices if d["default"]]
    assert len(default) == 1 and default[0]["usable"] and default[0]["status"] == "usable"
    assert default[0]["device_type"] == "CPU" and default[0]["slug"] != "oclgrind"
    assert default[0]["compute_units"] >= 1 and default[0]["local_mem_bytes"] > 0


def test_devices_in_a_pipe_shows_full_names():
    """`gencl devices | cat`: not a terminal, so nothing may be cut to 80 columns."""
    devices = json.loads(_gencl("devices", "--json").stdout)
    piped = _gencl("devices")  # stdout is a pipe here
    assert piped.returncode == 0, piped.stderr
    for d in devices:
        line = next(ln for ln in piped.stdout.splitlines() if d["slug"] in ln.split())
        assert d["name"] in line and d["status"] in line and d["runtime"] in line
    assert "…" not in piped.stdout


def test_generate_writes_sources_and_manifest(tmp_path):
    proc = _gencl("generate", "copy", "--knob", "vector_width=4", "--knob", "dtype=float32",
                  "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    (entry,) = manifest["variants"]
    assert entry["point"]["vector_width"] == 4
    assert "float4" in (tmp_path / entry["file"]).read_text()


def test_generate_all_filters_by_a_value_its_default_point_excludes():
    """``--all --knob`` keeps the space's points with the value: copy's default dtype cannot be
    a vector, but float32 can (the value is checked alone, not as a completed point)."""
    import argparse

    from gencl.api import load
    from gencl.cli import _points

    spec = load("copy")
    points = _points(spec, argparse.Namespace(knob=["vector_width=4"], all=True))
    assert points and all(p["vector_width"] == 4 for p in points)
    assert points == [p for p in spec.points() if p["vector_width"] == 4]


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


def test_run_json_prints_the_results(tmp_path):
    default = [d for d in json.loads(_gencl("devices", "--json").stdout) if d["default"]][0]
    proc = _gencl("run", "copy", "--quick", "--knob", "dtype=float32", "--knob", "reads=1",
                  "--repeats", "3", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)  # stdout holds the JSON and nothing else
    (result,) = data["results"]
    assert result["status"] == "ok" and data["device"]["slug"] == default["slug"]


def test_loopy_warnings_hidden_unless_verbose(tmp_path):
    """loopy's scheduler note on vector loops is loopy's business: shown with -v only."""
    args = ("generate", "copy", "--knob", "vector_width=4", "--knob", "dtype=float32",
            "--out", str(tmp_path / "v"))
    # fresh caches (gencl's and loopy's own): the warning comes only from a real scheduling
    quiet = _gencl(*args, env={"GENCL_CACHE_DIR": str(tmp_path / "c1"), "LOOPY_NO_CACHE": "1"})
    verbose = _gencl("-v", *args, env={"GENCL_CACHE_DIR": str(tmp_path / "c2"),
                                       "LOOPY_NO_CACHE": "1"})
    assert quiet.returncode == 0 and verbose.returncode == 0, quiet.stderr + verbose.stderr
    assert "LoopyWarning" in verbose.stderr
    assert "LoopyWarning" not in quiet.stderr
