"""Kernel Tuner in simulation mode searches exactly the measured space, counted as it counts."""

from __future__ import annotations

import json

import pytest

from gencl.spec import load_spec
from gencl.tune import ReplayEngine, fixed_from_records
from gencl.tune._kerneltuner import run_kt_strategies
from gencl.tune._space import SearchSpace


@pytest.fixture
def sparse_space(cache):
    """Two thirds of the copy space's 100-point grid left out (as a spec's exclusions leave
    points out), one kept point failed on the device, every kept time distinct."""
    data = json.loads(cache.read_text())
    spec = load_spec("copy")
    records = [r for i, r in enumerate(data["results"]) if i % 3 == 1]
    for i, r in enumerate(records):
        r["median_s"] = 1e-3 * (1 + i)
        r["samples_s"] = [r["median_s"]]
    records[5].update(status="build_error", reason="recorded build_error", median_s=None,
                      samples_s=[])
    space = SearchSpace(spec, fixed_from_records(spec, ReplayEngine(cache).records))
    return space, records


@pytest.mark.parametrize("strategy", ["random_sample", "genetic_algorithm",
                                      "simulated_annealing", "bayes_opt"])
def test_kernel_tuner_evaluates_only_valid_configurations(sparse_space, strategy):
    space, records = sparse_space
    assert space.size == 100 and len(records) == 25
    # times come back through Kernel Tuner's milliseconds: compare in whole microseconds
    valid_times = {round(r["median_s"] * 1e6) for r in records if r["median_s"] is not None}
    runs, info = run_kt_strategies(space, records, [strategy], seeds=2, max_evals=25,
                                   device="test", kernel="copy")
    for times in runs[f"kt_{strategy}"]:
        # every evaluation is a measured point (a point outside them would be missing from the
        # cache: Kernel Tuner raises, or answers InvalidConfig, which would show as None)
        assert 0 < len(times) <= 25
        ok = [round(t * 1e6) for t in times if t is not None]
        assert set(ok) <= valid_times
        assert len(ok) == len(set(ok))  # each configuration counted once
        assert times.count(None) <= 1  # only the one failed point, counted as an evaluation
    meta = info["strategies"][strategy]
    assert meta["seeds_run"] == 2 and meta["median_evaluations_made"] <= 25
    assert info["version"] and "25 measured" in info["restriction"]


def test_kernel_tuner_random_sample_spends_the_budget_on_the_space(sparse_space):
    space, records = sparse_space
    runs, _ = run_kt_strategies(space, records, ["random_sample"], seeds=1, max_evals=200,
                                device="test", kernel="copy")
    (times,) = runs["kt_random_sample"]
    # the whole valid space, no more: the budget is capped at its 25 points, failure included
    assert len(times) == 25 and times.count(None) == 1


def test_unknown_strategy_is_reported_not_raised(sparse_space):
    space, records = sparse_space
    runs, info = run_kt_strategies(space, records, ["no_such_strategy"], seeds=1, max_evals=5,
                                   device="test", kernel="copy")
    assert isinstance(runs["kt_no_such_strategy"][0][0], str)
    assert info["strategies"]["no_such_strategy"]["seeds_run"] == 0


def test_cli_strategies_selects_ours_and_kernel_tuners(cache, tmp_path, capsys):
    from gencl.cli import main

    out = tmp_path / "sim"
    assert main(["tune", "copy", "--simulate", "--cache", str(cache), "--seeds", "1",
                 "--strategies", "random,kt_random_sample", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["evals_to_target"]) == {"random", "kt_random_sample"}
    assert summary["kernel_tuner"]["strategies"]["random_sample"]["seeds_run"] == 1
    capsys.readouterr()  # the first run's progress (stderr) is not this error
    assert main(["tune", "copy", "--simulate", "--cache", str(cache),
                 "--strategies", "random,kt_no_such", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Kernel Tuner strategy no_such" in err[0]
