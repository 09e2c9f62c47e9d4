"""Guided ``gencl tune`` on the real PoCL device whose slug's committed profile was measured on
another machine: it says so in one line before trial 1 and tunes on (nominal values), rather
than pricing this CPU with that one's numbers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "bench_results" / "nvidia-h200" / "profile.json"


@pytest.mark.parametrize("workers", [1, 2])
def test_guided_tune_names_a_profile_of_another_machine(tmp_path, workers):
    """Once, also with several worker processes (each of which loads the profile)."""
    from gencl.device import select_device

    _, info = select_device(None)
    here = info.to_json()
    data = json.loads(H200.read_text())
    data["device"] = {**data["device"], "name": "Another CPU", "slug": here["slug"]}
    results = tmp_path / "results" / here["slug"]
    results.mkdir(parents=True)
    (results / "profile.json").write_text(json.dumps(data))
    env = {**os.environ, "GENCL_RESULTS": str(tmp_path / "results"), "GENCL_WORKERS": "1",
           "GENCL_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-m", "gencl", "tune", "copy", "--quick", "--knob", "dtype=float32",
         "--knob", "reads=1", "--trials", "2", "--seed", "1",
         "--workers", str(workers), "--storage", f"journal:{tmp_path / 'study.journal'}",
         "--out", str(tmp_path / "out")],
        env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    line = [x for x in out.stderr.splitlines() if x.startswith("gencl: warning:")]
    assert len(line) == 1
    assert f"was measured on Another CPU, not on {here['name']}: nominal values" in line[0]
    assert (tmp_path / "out" / "best.json").is_file()
