"""Temporal blocking in a space run: per-sweep times, the summary's temporal keys, the report's
section, the stratified sample, and a tuning study that minimises time per sweep.

One real ``gencl space`` run on PoCL measures a slice of Jacobi holding one single-sweep point
and the temporal points of the same work-group (tile scheme, k = 2, 4, 6, 8); every figure the
summary derives is checked against the records of that same run.
"""

from __future__ import annotations

import json

import pytest

from gencl.cli import main
from gencl.measure._sweeps import compulsory_per_sweep
from gencl.space import limits_for, space_points, summarize_space
from gencl.spec import load_spec, steps_per_launch

SPEC = load_spec("jacobi")
TEMPORAL_KEYS = {"best_single_sweep_s", "best_single_sweep_knobs", "best_single_sweep_variant",
                 "best_single_sweep_effective_bw_Bps", "temporal_best_time_per_sweep_s",
                 "temporal_best_knobs", "temporal_best_variant",
                 "temporal_best_sweeps_per_launch", "temporal_speedup",
                 "temporal_effective_bw_Bps", "temporal_effective_over_copy", "temporal_onchip"}
#: one single-sweep point (BE) and the temporal points of the same work-group
SLICE = ["--knob", "workgroup=(32, 8)", "--knob", "local=none", "--knob", "vector_width=1",
         "--knob", "block_x=1", "--knob", "block_y=1"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("space") / "jacobi"
    assert main(["space", "jacobi", "--quick", "--size", "n=64", *SLICE, "--peers", "yes",
                 "--repeats", "3", "--out", str(out)]) == 0
    return out


def _per_sweep(r):
    return r["median_s"] / steps_per_launch(SPEC, r["point"])


def test_summary_has_the_temporal_keys_from_the_records(run):
    records = json.loads((run / "space.json").read_text())["results"]
    summary = json.loads((run / "summary.json").read_text())
    assert {steps_per_launch(SPEC, r["point"]) for r in records} == {1, 2, 4, 6, 8}
    assert all(r["status"] == "ok" for r in records)
    assert TEMPORAL_KEYS <= set(summary)
    single = [r for r in records if steps_per_launch(SPEC, r["point"]) == 1]
    multi = [r for r in records if steps_per_launch(SPEC, r["point"]) > 1]
    best_multi = min(multi, key=_per_sweep)
    assert summary["best_single_sweep_s"] == min(map(_per_sweep, single))
    assert summary["temporal_best_time_per_sweep_s"] == _per_sweep(best_multi)
    assert summary["temporal_best_knobs"] == json.loads(json.dumps(best_multi["point"]))
    assert summary["temporal_best_sweeps_per_launch"] == steps_per_launch(
        SPEC, best_multi["point"])
    assert summary["temporal_speedup"] == pytest.approx(
        summary["best_single_sweep_s"] / summary["temporal_best_time_per_sweep_s"])
    # effective bandwidth: one sweep's compulsory bytes (read u, f, write u_new) per sweep time
    assert compulsory_per_sweep(SPEC, best_multi["point"], {"n": 64}) == 3 * 4 * 64 * 64
    assert summary["temporal_effective_bw_Bps"] == pytest.approx(
        3 * 4 * 64 * 64 / summary["temporal_best_time_per_sweep_s"])
    assert summary["temporal_effective_over_copy"] == pytest.approx(
        summary["temporal_effective_bw_Bps"] / summary["copy_bw_Bps"])
    onchip = summary["temporal_onchip"]  # the transform's closed-form traffic, per sweep
    assert onchip["local_bytes_per_sweep"] > 0 and onchip["global_bytes_per_sweep"] > 0
    # the best overall is per sweep too
    assert summary["best_time_s"] == min(map(_per_sweep, records))
    assert all(r["extra"].get("steps", 1) == steps_per_launch(SPEC, r["point"])
               for r in records)


def test_report_has_the_temporal_section(run):
    report = (run / "report.md").read_text()
    summary = json.loads((run / "summary.json").read_text())
    assert "## Temporal blocking" in report
    for k in (2, 4, 6, 8):
        assert f"| {k} | " in report
    over = summary["temporal_effective_over_copy"]
    assert ("beats the single-step roofline" in report) == (over > 1)
    assert f"{over:.2f}× the copy bandwidth" in report


def test_a_run_without_temporal_points_has_no_temporal_keys(run):
    data = json.loads((run / "space.json").read_text())
    plain = [r for r in data["results"] if steps_per_launch(SPEC, r["point"]) == 1]
    summary = summarize_space(SPEC, plain, device="d", fixed={}, sizes_of=lambda p: {"n": 64},
                              space_size=1, copy_bw=1e10, peers={})
    assert not TEMPORAL_KEYS & set(summary)


def test_tuning_minimises_time_per_sweep_and_records_the_sweeps(run, tmp_path):
    out = tmp_path / "tuning"
    records = json.loads((run / "space.json").read_text())["results"]
    assert main(["tune", "jacobi", "--replay", str(run / "space.json"), "--sampler", "grid",
                 *SLICE, "--trials", str(len(records)), "--seed", "0", "--out", str(out)]) == 0
    best = json.loads((out / "best.json").read_text())
    winner = min(records, key=_per_sweep)
    assert best["time_per_sweep_s"] == _per_sweep(winner)
    assert best["steps"] == steps_per_launch(SPEC, winner["point"])
    assert best["median_s"] == winner["median_s"]


def test_a_sample_draws_half_its_random_points_from_temporal_ones(jacobi_h200_space):
    limits, every = limits_for("nvidia"), jacobi_h200_space  # the space walked once (conftest)
    always = list(SPEC.hooks.variants.values())
    points = space_points(SPEC, limits, fixed={"dtype": "float32"}, sample=40, always=always,
                          every=every)
    assert len(points) == 40
    random_part = points[len(always):]
    multi = sum(steps_per_launch(SPEC, p) > 1 for p in random_part)
    assert multi == len(random_part) // 2 or multi == (len(random_part) + 1) // 2
    # a space without temporal points samples as before: no stratum is forced
    plain = space_points(SPEC, limits, fixed={"dtype": "float32", "sweeps": 1}, sample=30,
                         always=always, every=every)
    assert all(steps_per_launch(SPEC, p) == 1 for p in plain) and len(plain) == 30
