"""The per-sweep layer on a second kernel (a user's 1-D heat step with a hand-made form of two
steps per launch, tests/user_specs.py HEAT1D): its launches verified as two one-step references,
the solver with a remainder, the summary's temporal keys and a study minimising time per sweep.
Nothing here is Jacobi's: the same generic code as for any kernel with ping-pong pairs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gencl.api import load
from gencl.cli import main
from gencl.measure import measure_variant, reference_after
from gencl.measure._solve import solve_on
from gencl.measure._sweeps import single_sweep_point
from gencl.generate import generate
from gencl.spec import steps_per_launch
from tests.user_specs import HEAT1D, in_memory, write

SPEC = load(in_memory(HEAT1D))
TWO = SPEC.complete({"sweeps": 2, "workgroup": (32,)})


def test_a_launch_of_two_steps_is_verified_as_two_one_step_references(engine):
    m = measure_variant(engine, SPEC, generate(SPEC, TWO), {"n": 70})
    assert m.ok and m.extra["steps"] == 2 and m.extra["verify_launches"] == 3
    assert single_sweep_point(SPEC, TWO) == {**TWO, "sweeps": 1}


@pytest.mark.parametrize("sweeps", [7, 1])
def test_the_solver_runs_the_remainder_as_single_steps(engine, sweeps):
    sizes = {"n": 45}  # not a multiple of the work-group
    values = SPEC.inputs(TWO, sizes, np.random.default_rng(2))
    got = solve_on(engine, SPEC, TWO, sweeps, sizes, values)["u_new"]
    want = reference_after(SPEC, values, {**TWO, "sweeps": 1}, sizes, sweeps)["u_new"]
    assert np.allclose(got[1:-1], want[1:-1], atol=1e-5) and np.isnan(got[[0, -1]]).all()
    if sweeps > 1:  # one step fewer is another answer
        fewer = reference_after(SPEC, values, {**TWO, "sweeps": 1}, sizes, sweeps - 1)["u_new"]
        assert not np.allclose(got[1:-1], fewer[1:-1], atol=1e-4)


def test_space_summary_and_tuning_per_sweep(tmp_path):
    path = write(tmp_path, HEAT1D, "heat1d")
    out = tmp_path / "space"
    assert main(["space", str(path), "--size", "n=4096", "--repeats", "3", "--peers", "yes",
                 "--out", str(out)]) == 0
    records = json.loads((out / "space.json").read_text())["results"]
    summary = json.loads((out / "summary.json").read_text())
    assert len(records) == 4 and all(r["status"] == "ok" for r in records)

    def per_sweep(r):
        return r["median_s"] / steps_per_launch(SPEC, r["point"])

    single = [r for r in records if r["point"]["sweeps"] == 1]
    multi = [r for r in records if r["point"]["sweeps"] == 2]
    assert summary["best_single_sweep_s"] == min(map(per_sweep, single))
    assert summary["temporal_best_time_per_sweep_s"] == min(map(per_sweep, multi))
    assert summary["temporal_best_sweeps_per_launch"] == 2
    assert summary["temporal_speedup"] == pytest.approx(
        summary["best_single_sweep_s"] / summary["temporal_best_time_per_sweep_s"])
    nbytes = 2 * 4 * (4096 + 4)  # the abstract program's arrays once: read u, write u_new
    assert summary["temporal_effective_bw_Bps"] == pytest.approx(
        nbytes / summary["temporal_best_time_per_sweep_s"])
    assert "## Temporal blocking" in (out / "report.md").read_text()
    tuning = tmp_path / "tuning"
    assert main(["tune", str(path), "--replay", str(out / "space.json"), "--sampler", "guided",
                 "--trials", "4", "--out", str(tuning)]) == 0
    best = json.loads((tuning / "best.json").read_text())
    winner = min(records, key=per_sweep)
    assert best["time_per_sweep_s"] == per_sweep(winner)
    assert best["steps"] == winner["point"]["sweeps"]
