"""``gencl explain --accuracy``: the model over a measured space, the same per knob value (where
it misses), and a cache older than the space read as the space is today."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gencl.model import AccuracyRow, accuracy_by_value

ROOT = Path(__file__).resolve().parents[2]
H100 = ROOT / "bench_results" / "nvidia-h100"
#: axes box2d9 gained after spaces were first measured, each at its first value in the cache
NEWER_AXES = ("temporal", "sweeps", "temporal_points")


def _row(vw: int, wg: list[int], predicted: float, measured: float,
         bottleneck: str = "memory_bandwidth") -> AccuracyRow:
    return AccuracyRow({"vector_width": vw, "workgroup": wg, "dtype": "float32"}, predicted,
                       measured, bottleneck)


def test_each_knob_value_gets_its_own_median_and_share():
    rows = [_row(1, [32, 4], 1.0, 1.0), _row(1, [64, 2], 1.1, 1.0), _row(1, [128, 1], 0.5, 1.0),
            _row(8, [32, 4], 0.8, 1.0), _row(8, [64, 2], 0.7, 1.0, "cache_requests"),
            _row(16, [128, 1], 2.0, 1.0, "cache_requests")]
    by = accuracy_by_value(rows)
    # an axis with one value among the rows says nothing about where the model misses
    assert "dtype" not in by
    assert list(by["vector_width"]) == ["1", "8", "16"]  # in the values' own order
    assert by["vector_width"]["1"] == {"n": 3, "median_ratio": 1.0, "within_15pct": 2 / 3}
    assert by["vector_width"]["8"] == {"n": 2, "median_ratio": 0.75, "within_15pct": 0.0}
    assert by["vector_width"]["16"]["median_ratio"] == 2.0
    assert list(by["workgroup"]) == ["[32, 4]", "[64, 2]", "[128, 1]"]
    assert by["workgroup"]["[128, 1]"]["median_ratio"] == pytest.approx(1.25)
    assert by["bottleneck"]["cache_requests"]["n"] == 2
    assert by["bottleneck"]["memory_bandwidth"]["within_15pct"] == 0.5


def _explain_accuracy(cache: Path, cwd: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "gencl", "explain", "box2d9", "--profile", str(H100),
         "--accuracy", str(cache), "--json"], cwd=cwd, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_an_older_cache_reads_at_the_new_axes_first_values(tmp_path):
    """Records measured before an axis joined the space stand at its first value (the
    untransformed program) and give the model's figures they give with the axis written out;
    a record of a value the space no longer has is set aside and counted, not predicted as
    another kernel. (Before, every record of an older cache failed to count, silently, and
    the command said it needed 3 variants.)"""
    data = json.loads((H100 / "box2d9" / "single-sweep" / "space.json").read_text())
    kept = [r for r in data["results"] if r["status"] == "ok"
            and r["point"]["workgroup"] == [64, 4] and r["point"]["stream"] in (1, 4)]
    assert len(kept) == 8
    today = {**data, "results": kept}
    (tmp_path / "today.json").write_text(json.dumps(today))
    older = [{**r, "point": {k: v for k, v in r["point"].items() if k not in NEWER_AXES}}
             for r in kept]
    gone = {**kept[0], "point": {**older[0]["point"], "vector_width": 3}}
    (tmp_path / "older.json").write_text(json.dumps({**data, "results": older + [gone]}))
    now, before = _explain_accuracy(tmp_path / "today.json", tmp_path), \
        _explain_accuracy(tmp_path / "older.json", tmp_path)
    assert now["n"] == before["n"] == 8
    assert before["spearman"] == pytest.approx(now["spearman"])
    assert before["median_ratio"] == pytest.approx(now["median_ratio"])
    assert before["set_aside"] == 1 and "set_aside" not in now
    assert set(before["by_value"]["vector_width"]) == {"1", "2", "4", "8"}
    assert before["by_value"]["stream"]["4"]["n"] == 4
    # beside ρ, what random scatter alone would leave over the same measured times
    assert set(now["scatter"]["rho_at_scatter"]) == {"0.03", "0.05", "0.1"}
    assert now["scatter"]["measured_spread"] >= 1.0


def test_a_cache_of_nothing_the_model_predicts_is_one_line_and_exit_2(tmp_path):
    data = json.loads((H100 / "box2d9" / "single-sweep" / "space.json").read_text())
    gone = [{**r, "point": {**r["point"], "vector_width": 3}} for r in data["results"][:4]]
    (tmp_path / "gone.json").write_text(json.dumps({**data, "results": gone}))
    out = subprocess.run(
        [sys.executable, "-m", "gencl", "explain", "box2d9", "--profile", str(H100),
         "--accuracy", str(tmp_path / "gone.json")], cwd=tmp_path, capture_output=True,
        text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "got 0 of 0 ok records; 4 records set aside: vector_width=3" in out.stderr


def test_a_temporal_space_is_scored_per_sweep_as_the_tuner_compares():
    """A launch of k sweeps against its k-sweep prediction would rank by k whatever the model
    says: explain --accuracy compares per sweep, as ``gencl tune --simulate`` does."""
    from gencl.model import cache_accuracy, load_params
    from gencl.spec import load_spec

    data = json.loads((ROOT / "bench_results" / "pocl-local-cpu" / "jacobi" / "space.json")
                      .read_text())
    ok = [r for r in data["results"] if r["status"] == "ok"]
    temporal = [r for r in ok if r["point"]["temporal"] == "stream"][:3]
    single = [r for r in ok if r["point"]["temporal"] == "none"][:3]
    assert {r["point"]["sweeps"] for r in temporal} != {1}
    spec = load_spec("jacobi")
    acc, rows = cache_accuracy(spec, temporal + single, load_params(data["device"]), workers=1)
    assert acc.n == 6
    for r, row in zip(temporal + single, rows):
        assert row.measured_s == pytest.approx(r["median_s"] / r["point"]["sweeps"])
