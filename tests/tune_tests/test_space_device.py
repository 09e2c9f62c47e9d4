"""The search space applies the device's constraints, so a ranking sampler never proposes a point
the evaluator would only exclude (seen on the H200: 23 of 63 laplace3d trials were excluded)."""

from __future__ import annotations

import json
from pathlib import Path

import gencl
from gencl.device import DeviceInfo
from gencl.tune import SearchSpace

H200 = Path(__file__).resolve().parents[2] / "bench_results" / "nvidia-h200" / "profile.json"


def test_points_are_the_devices_valid_points():
    spec = gencl.load("laplace3d")
    device = DeviceInfo.from_json(json.loads(H200.read_text())["device"])
    fixed = {"dtype": "float32"}
    anywhere = SearchSpace(spec, fixed).points()
    here = SearchSpace(spec, fixed, device=device).points()
    assert 50 <= len(here) < len(anywhere)
    assert all(spec.excluded(p, device) is None for p in here)
    assert any(spec.excluded(p, device) for p in anywhere)
