"""``gencl explain KERNEL --rank``: every point of a space priced (nothing built or run), the
model's order and pick, on a device that is not on this machine (CI's CPU pricing the H200)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gencl import api
from gencl.model import TIE_SHARE, load_device_profile, point_key
from gencl.spec import matches

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "bench_results" / "nvidia-h200" / "profile.json"
#: a slice of a suite kernel's space: the work-group shapes and local tiles of one vector/stream
SLICE = {"dtype": "float32", "vector_width": 4, "stream_j": 4}


def _gencl(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "gencl", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def ranked(tmp_path_factory) -> dict:
    knobs = [a for k, v in SLICE.items() for a in ("--knob", f"{k}={v}")]
    out = _gencl("explain", "sobel2d", "--rank", "--profile", str(H200), *knobs, "--json",
                 cwd=tmp_path_factory.mktemp("rank"))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_rank_prices_every_point_of_the_slice_fastest_first(ranked):
    device = load_device_profile(H200).device
    spec = api.load("sobel2d")
    expected = {point_key(p) for p in spec.points(device) if matches(p, SLICE)}
    assert len(expected) > 5
    assert {point_key(r["point"]) for r in ranked["ranked"]} == expected
    assert ranked["unpriced"] == []
    times = [r["predicted_s_per_sweep"] for r in ranked["ranked"]]
    assert times == sorted(times) and times[0] > 0
    # the GPU's problem sizes and its measured profile, not this CPU's
    assert ranked["device"] == "NVIDIA H200"
    assert all(r["sizes"] == {"ny": 8192, "nx": 8192} for r in ranked["ranked"])
    assert ranked["params"]["copy_bw_Bps"] == "measured"


def test_rank_picks_within_its_tie_as_explain_prices_it(ranked):
    """The pick is one of the points priced within TIE_SHARE of the fastest, and ``explain``
    of that one point gives the same prediction (one pricing for both)."""
    fastest = ranked["ranked"][0]["predicted_s_per_sweep"]
    pick = ranked["pick"]
    assert point_key(pick["point"]) in ranked["tied"]
    assert pick["predicted_s_per_sweep"] <= fastest * (1 + TIE_SHARE)
    for key in ranked["tied"]:
        row = next(r for r in ranked["ranked"] if point_key(r["point"]) == key)
        assert row["predicted_s_per_sweep"] <= fastest * (1 + TIE_SHARE)
    one = api.explain("sobel2d", knobs=pick["point"], profile=str(H200))
    assert one.prediction.time_per_sweep_s == pytest.approx(pick["predicted_s_per_sweep"],
                                                            rel=1e-9)


def test_rank_prints_the_top_rows_and_the_pick(tmp_path):
    out = _gencl("explain", "sobel2d", "--rank", "3", "--profile", str(H200),
                 "--knob", "dtype=float32", "--knob", "vector_width=2", "--knob", "stream_j=32",
                 "--knob", "local_p=none", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("sobel2d on NVIDIA H200: 10 points priced")
    rows = [ln for ln in lines if ln.split()[:1] in (["1"], ["2"], ["3"], ["4"])]
    assert [ln.split()[0] for ln in rows] == ["1", "2", "3"]
    assert all("workgroup=" in ln and "vector_width" not in ln for ln in rows)  # what varies
    assert any(ln.startswith("the model's pick: workgroup=") for ln in lines)


def test_rank_of_a_value_outside_the_space_is_one_line_and_exit_2(tmp_path):
    out = _gencl("explain", "sobel2d", "--rank", "--profile", str(H200), "--knob",
                 "vector_width=3", cwd=tmp_path)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1
    assert "sobel2d.py" in out.stderr and "vector_width" in out.stderr
