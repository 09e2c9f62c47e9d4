"""``gencl explain --accuracy CACHE --repeat CACHE2``: a second measurement of the same space
scored against the first as the model is, beside the model against that second run. How far
the device's own repeatability lets the model's figures go (the H200's spaces repeat within
1–2 %, a 2-core VM's Jacobi slice 24 % within ±15 %)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from gencl.api import load
from gencl.model import repeat_accuracy

ROOT = Path(__file__).resolve().parents[2]
BOX2D9 = ROOT / "bench_results" / "nvidia-h200" / "box2d9" / "single-sweep"


def _first(n: int) -> dict:
    data = json.loads((BOX2D9 / "space.json").read_text())
    return {**data, "results": [r for r in data["results"] if r["status"] == "ok"][:n]}


def _scaled(records: list[dict], factors: list[float]) -> list[dict]:
    return [{**r, "median_s": r["median_s"] * f} for r, f in zip(records, factors)]


def test_a_second_run_is_scored_against_the_first_per_point_and_size():
    spec = load("box2d9")
    first = _first(8)["results"]
    factors = [1.0, 1.1, 0.9, 1.3, 0.7, 1.0, 1.2, 1.05]
    second = _scaled(first, factors)
    # a record at other sizes is another measurement: never paired with the first's
    second.append({**second[0], "sizes": {"ny": 64, "nx": 64}, "median_s": 1.0})
    acc, rows = repeat_accuracy(spec, first, list(reversed(second)))  # matched, not zipped
    assert acc.n == len(rows) == 8
    assert acc.within_15pct == pytest.approx(5 / 8)  # 1.0, 1.1, 0.9, 1.0, 1.05
    assert acc.median_ratio == pytest.approx(np.median(factors))
    a = [r["median_s"] for r in first]
    assert acc.spearman == pytest.approx(spearmanr(a, np.multiply(a, factors)).statistic)
    assert sorted(r.ratio for r in rows) == pytest.approx(sorted(factors))


def test_fewer_than_three_shared_points_is_one_clear_error():
    spec = load("box2d9")
    first = _first(4)["results"]
    other = [{**r, "sizes": {"ny": 64, "nx": 64}} for r in first]
    with pytest.raises(Exception, match="at least 3 variants both runs measured ok"):
        repeat_accuracy(spec, first, other)


def _explain(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gencl", "explain", "box2d9", *args],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_explain_accuracy_reports_the_repeat_beside_the_model(tmp_path):
    """End to end on the H200's committed box2d9 space and its second run four days later: the
    repeat's figures are those of the two files, and the model is scored against both runs."""
    first, second = _first(10), json.loads((BOX2D9 / "repeat" / "space.json").read_text())
    keys = {json.dumps(r["point"], sort_keys=True) for r in first["results"]}
    second["results"] = [r for r in second["results"]
                         if json.dumps(r["point"], sort_keys=True) in keys]
    (tmp_path / "a.json").write_text(json.dumps(first))
    (tmp_path / "b.json").write_text(json.dumps(second))
    out = _explain("--accuracy", str(tmp_path / "a.json"), "--repeat", str(tmp_path / "b.json"),
                   "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    repeat = report["repeat"]
    by_point = {json.dumps(r["point"], sort_keys=True): r["median_s"] for r in second["results"]}
    a = [r["median_s"] for r in first["results"]]
    b = [by_point[json.dumps(r["point"], sort_keys=True)] for r in first["results"]]
    assert repeat["n"] == 10 and repeat["file"] == str(tmp_path / "b.json")
    assert repeat["spearman"] == pytest.approx(spearmanr(a, b).statistic)
    assert repeat["within_15pct"] == np.mean(np.abs(np.divide(b, a) - 1) <= 0.15)
    # the model against the second run: the runs agree within 2 %, so its figures there are
    # within 2 % of those against the first, and ρ is a rank figure of its own
    assert repeat["within_15pct"] == 1.0
    assert repeat["model_median_ratio"] == pytest.approx(report["median_ratio"], rel=0.02)
    assert -1 <= repeat["model_spearman"] <= 1


def test_a_repeat_of_another_device_or_kernel_is_refused_in_one_line(tmp_path):
    first = _first(5)
    other = {**first, "device": {**first["device"], "name": "NVIDIA H100 80GB HBM3"}}
    (tmp_path / "a.json").write_text(json.dumps(first))
    (tmp_path / "b.json").write_text(json.dumps(other))
    out = _explain("--accuracy", str(tmp_path / "a.json"), "--repeat", str(tmp_path / "b.json"))
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert "b.json: device.name: 'NVIDIA H100 80GB HBM3'" in out.stderr
    out = _explain("--repeat", str(tmp_path / "b.json"))
    assert out.returncode == 2 and "--repeat" in out.stderr and "--accuracy" in out.stderr
