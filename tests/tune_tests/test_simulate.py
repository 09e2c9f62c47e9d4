"""Simulation over a measured space: Optuna samplers and a Kernel Tuner strategy, same counting."""

from __future__ import annotations

import json

import pytest

from gencl.model import params_from
from gencl.spec import load_spec
from gencl.tune import ReplayEngine, evals_to_target, goal_check, plot_convergence, simulate


def test_simulate_counts_evaluations_to_target(cache, tmp_path):
    replay = ReplayEngine(cache)
    spec = load_spec("copy")
    summary, runs = simulate(spec, replay, params_from({}, replay.device), seeds=2,
                             strategies=("guided", "random"),
                             kt_strategies=("random_sample",), workers=1)
    assert summary["space_size"] == 75 and summary["seeds"] == 2
    assert set(summary["evals_to_target"]) == {"guided", "random", "kt_random_sample"}
    best = summary["best_time_s"]
    for name, seed_runs in runs.items():
        for times, hit in zip(seed_runs, summary["evals_to_target_per_seed"][name]):
            # the hit is the first variant within 3 %; Optuna searches stop there (Kernel
            # Tuner's run to their budget)
            assert hit is None or times[hit - 1] <= best * 1.03
            assert all(t is None or t > best * 1.03 for t in times[:(hit or len(times)) - 1])
            assert len(times) <= 75
            if not name.startswith("kt_") and hit:
                assert hit == len(times)
    assert -1 <= summary["model_spearman"] <= 1 and 0 <= summary["model_within_15pct"] <= 1
    assert summary["spec"] == "copy"
    # where the model misses: every knob value of the space's varying axes, all variants each
    by_value = summary["model_by_value"]
    points = [r["point"] for r in replay.records if r["status"] == "ok"]
    for axis, values in by_value.items():
        if axis != "bottleneck":
            assert set(values) == {json.dumps(p[axis]) if not isinstance(p[axis], str)
                                   else p[axis] for p in points}
        assert sum(f["n"] for f in values.values()) == summary["model_variants"]
    assert "guided_share_of_space" in goal_check(summary)
    assert plot_convergence(runs, best, tmp_path / "c.png", "t").stat().st_size > 1000


def test_evals_to_target():
    assert evals_to_target([None, 5.0, 1.02, 1.0], 1.0) == 3
    assert evals_to_target([2.0, None], 1.0) is None


def test_sampled_cache_gives_the_model_accuracy_only(cache, tmp_path):
    data = json.loads(cache.read_text())
    data["sampled"] = True
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    replay = ReplayEngine(path)
    summary, runs = simulate(load_spec("copy"), replay, params_from({}, replay.device), seeds=1)
    assert runs == {} and summary["evals_to_target"] == {}
    assert "sampled" in summary["strategies_skipped"]
    assert summary["spec"] == "copy" and summary["model_role"] == "predicted (held out)"
    assert -1 <= summary["model_spearman"] <= 1 and 0 <= summary["model_within_15pct"] <= 1
    assert summary["model_predicted_best_gap"] >= 0
    ties = summary["model_predicted_best_ties"]
    assert ties["variants"] >= 1
    assert ties["gap_min"] <= summary["model_predicted_best_gap"] <= ties["gap_max"]


def _summaries(cache, built):
    """The copy space's model summary on a 1-unit GPU with a 5 µs latency, as measured and with
    *built* (a function of a record) applied to every record; (plain, built, before build)."""
    from gencl.tune._simulate import model_summary

    spec = load_spec("copy")
    records = ReplayEngine(cache).records
    gpu = {"name": "gpu", "device_type": "GPU", "compute_units": 1, "max_clock_hz": 1e9,
           "warp_size": 32, "registers_per_block": 65536}
    params = params_from({"global_latency_cycles": 5000.0}, gpu)
    plain, _ = model_summary(spec, records, params, seeds=1, workers=1)
    summary, before = model_summary(spec, [built(r) for r in records], params, seeds=1,
                                    workers=1)
    return plain, summary, before


def test_the_model_summary_reads_the_records_build_logs(cache):
    """Records that carry NVIDIA's build log are priced with the compiler's registers (255 per
    item here: a quarter of the items resident, so a slower prediction); the summary counts them
    and gives the same model without them, as the guided sampler sees points not yet built."""
    plain, summary, _ = _summaries(
        cache, lambda r: {**r, "build_log": "ptxas info    : Used 255 registers"})
    assert plain["model_build_logs"] == 0 and plain["model_before_build"] is None
    assert summary["model_build_logs"] == plain["model_variants"]
    assert summary["model_before_build"]["median_ratio"] == plain["model_median_ratio"]
    assert summary["model_median_ratio"] > plain["model_median_ratio"]


def test_the_model_summary_reads_the_records_sass_rounds(cache):
    """Records whose build's SASS was counted (``extra["sass"]``: straight-line code, its loads
    in 200 batches) are priced with those load rounds where the code keeps no loop (the copy's
    `dynamic` loops keep theirs), counted in the summary, and left out of the model before
    build, as the guided sampler sees a point it has not built."""
    sass = {"loop": False, "instructions": 400, "loads": 200, "stores": 1, "rounds": 200}
    plain, summary, _ = _summaries(
        cache, lambda r: {**r, "extra": {**(r.get("extra") or {}), "sass": sass}})
    assert plain["model_sass_counts"] == 0
    assert summary["model_sass_counts"] == plain["model_variants"]
    assert summary["model_before_build"]["median_ratio"] == plain["model_median_ratio"]
    assert summary["model_median_ratio"] > plain["model_median_ratio"]
    loop, plain_loop = summary["model_by_value"]["loop"], plain["model_by_value"]["loop"]
    assert loop["dynamic"] == plain_loop["dynamic"]
    assert loop["constant"]["median_ratio"] > plain_loop["constant"]["median_ratio"]


def test_an_interrupted_space_reads_as_the_part_it_measured(cache, tmp_path):
    """The partial stream a run killed mid-space leaves (header line, records, a cut-off last
    line) is a sampled cache: the model's accuracy over what was measured, no search counts."""
    from gencl.errors import GenclError
    from gencl.measure._run import HEADER_KEY
    from gencl.model import load_results

    data = json.loads(cache.read_text())
    header = {k: v for k, v in data.items() if k != "results"}
    path = tmp_path / "space.json.partial.jsonl"
    lines = [json.dumps({HEADER_KEY: header})] + [json.dumps(r) for r in data["results"][:40]]
    path.write_text("\n".join(lines) + '\n{"variant_id": "cut off')
    loaded = load_results(path)
    assert loaded["sampled"] and loaded["partial"] and len(loaded["results"]) == 40
    assert loaded["device"] == data["device"]
    replay = ReplayEngine(path)
    assert replay.sampled and len(replay) == 40
    summary, runs = simulate(load_spec("copy"), replay, params_from({}, replay.device), seeds=1)
    assert runs == {} and "sampled" in summary["strategies_skipped"]
    assert summary["model_variants"] == 40
    headless = tmp_path / "x.partial.jsonl"
    headless.write_text("\n".join(lines[1:]))
    with pytest.raises(GenclError, match="results_header"):
        load_results(headless)


def test_a_knob_keeps_one_slice_of_the_cache(cache, tmp_path):
    """``gencl tune --simulate --knob``: only that slice is searched and predicted (spmv_ell's
    matrix is the user's, not a choice); an axis the spec lacks, or a value no record holds, is
    one line and exit status 2."""
    import subprocess
    import sys

    from gencl.tune import simulate_spec

    summary = simulate_spec(load_spec("copy"), cache, seeds=1, strategies=("random",),
                            fixed={"workgroup": 128}, out=tmp_path / "slice")
    assert summary["space_size"] == 15 and summary["fixed"]["workgroup"] == 128
    assert summary["knobs"] == {"workgroup": 128}  # the slice, as tools/resimulate.py passes it
    assert summary["best_point"]["workgroup"] == 128
    for knob, says in (("nope=1", "not an axis of copy"),
                       ("workgroup=96", "no measured point has workgroup=96")):
        out = subprocess.run([sys.executable, "-m", "gencl", "tune", "copy", "--simulate",
                              "--cache", str(cache), "--knob", knob, "--out", str(tmp_path)],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 2 and says in out.stderr, out.stderr
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_summary_says_why_a_replayed_device_was_priced_nominally(cache, tmp_path,
                                                                    monkeypatch):
    """The cache's device has only another machine's profile under its slug: the simulation's
    summary names it (``profile_note``) beside its nominal ``profile_sources``."""
    from pathlib import Path

    from gencl.tune import simulate_spec

    device = json.loads(cache.read_text())["device"]
    h200 = Path(__file__).resolve().parents[2] / "bench_results" / "nvidia-h200" / "profile.json"
    data = json.loads(h200.read_text())
    data["device"] = {**data["device"], "name": "Another CPU", "slug": device["slug"]}
    (tmp_path / "results" / device["slug"]).mkdir(parents=True)
    (tmp_path / "results" / device["slug"] / "profile.json").write_text(json.dumps(data))
    monkeypatch.setenv("GENCL_RESULTS", str(tmp_path / "results"))
    summary = simulate_spec(load_spec("copy"), cache, seeds=1, strategies=("random",),
                            out=tmp_path / "out")
    assert f"measured on Another CPU, not on {device['name']}" in summary["profile_note"]
    assert summary["profile_sources"]["copy_bw_Bps"] == "nominal"
    monkeypatch.setenv("GENCL_RESULTS", str(tmp_path / "none"))
    plain = simulate_spec(load_spec("copy"), cache, seeds=1, strategies=("random",),
                          out=tmp_path / "plain")
    assert "profile_note" not in plain


def test_a_replay_priced_by_nominal_numbers_only_says_so(cache, tmp_path):
    """``gencl tune --simulate`` where no profile of the cache's device is found (an empty
    results root): one warning line, before the figures it qualifies; with the device's
    profile (the H200's numbers under its name and slug), none."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    def simulate(root):
        env = {**os.environ, "GENCL_RESULTS": str(root)}
        return subprocess.run([sys.executable, "-m", "gencl", "tune", "copy", "--simulate",
                               "--cache", str(cache), "--strategies", "random", "--seeds", "1",
                               "--out", str(tmp_path / "out")],
                              capture_output=True, text=True, timeout=300, env=env)
    out = simulate(tmp_path / "empty")
    assert out.returncode == 0, out.stderr[-2000:]
    warned = [x for x in out.stderr.splitlines() if x.startswith("gencl: warning:")]
    assert len(warned) == 1 and "nominal numbers only" in warned[0]
    device = json.loads(cache.read_text())["device"]
    h200 = Path(__file__).resolve().parents[2] / "bench_results" / "nvidia-h200" / "profile.json"
    data = json.loads(h200.read_text())
    data["device"] = {**data["device"], "name": device["name"], "slug": device["slug"]}
    (tmp_path / "results" / device["slug"]).mkdir(parents=True)
    (tmp_path / "results" / device["slug"] / "profile.json").write_text(json.dumps(data))
    out = simulate(tmp_path / "results")
    assert out.returncode == 0 and "gencl: warning:" not in out.stderr, out.stderr[-2000:]


def test_a_repeat_of_the_space_is_scored_beside_the_model(cache, tmp_path):
    """``--repeat``: the second run against the first, over the slice simulated, in the summary;
    a file of another device is refused in one line (exit status 2)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    data = json.loads(cache.read_text())
    ok = [r for r in data["results"] if r["status"] == "ok" and r.get("median_s")]
    slow = {json.dumps(r["point"], sort_keys=True) for r in ok[::3]}  # every third 1.5× slower
    second = {**data, "results": [
        {**r, "median_s": r["median_s"] * (1.5 if json.dumps(r["point"], sort_keys=True) in slow
                                           else 1.0)} for r in data["results"]]}
    (tmp_path / "r.json").write_text(json.dumps(second))
    root = Path(__file__).resolve().parents[2]

    def tune(repeat: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "gencl", "tune", "copy", "--simulate", "--cache", str(cache),
             "--repeat", str(repeat), "--strategies", "random", "--seeds", "1",
             "--out", str(tmp_path / "out"), "--json"], capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(root)}, timeout=600)

    out = tune(tmp_path / "r.json")
    assert out.returncode == 0, out.stderr[-2000:]
    repeat = json.loads(out.stdout)["measurement_repeat"]
    assert repeat["n"] == len(ok) and repeat["file"] == str(tmp_path / "r.json")
    assert repeat["within_15pct"] == pytest.approx(1 - len(slow) / len(ok))
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["measurement_repeat"] \
        == repeat
    other = {**second, "device": {**second["device"], "name": "Another CPU"}}
    (tmp_path / "o.json").write_text(json.dumps(other))
    out = tune(tmp_path / "o.json")
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "o.json: device.name: 'Another CPU'" in out.stderr
    out = subprocess.run([sys.executable, "-m", "gencl", "tune", "copy", "--repeat",
                          str(tmp_path / "r.json")], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(root)}, timeout=600)
    assert out.returncode == 2 and "--repeat" in out.stderr and "--simulate" in out.stderr


def test_a_tie_at_the_predicted_best_is_reported_with_its_spread():
    """Variants the model prices within 1 % of its fastest are a tie it does not order: the
    summary gives how many and how far from the measured best they measure (closed form)."""
    from collections import namedtuple

    from gencl.tune._simulate import best_ties

    Row = namedtuple("Row", "predicted_s measured_s")
    rows = [Row(1.000, 1.20), Row(1.005, 1.00), Row(1.009, 1.10), Row(1.02, 0.95),
            Row(2.0, 3.0)]
    ties = best_ties(rows)
    assert ties["variants"] == 3
    assert ties["gap_min"] == pytest.approx(1.00 / 0.95 - 1)
    assert ties["gap_max"] == pytest.approx(1.20 / 0.95 - 1)
    assert ties["gap_median"] == pytest.approx(1.10 / 0.95 - 1)
    assert best_ties(rows, share=0.0)["variants"] == 1


def test_the_model_picks_the_tied_variant_whose_terms_sum_lowest():
    """Within 1 % of the fastest prediction the pick is the variant whose terms (the time were
    no two units to overlap) sum lowest; a variant outside the tie is never picked for a low
    sum, and without sums the fastest prediction is the pick (closed form)."""
    from collections import namedtuple

    from gencl.model import model_pick

    Row = namedtuple("Row", "predicted_s serial_s")
    fastest, tied_low, outside = Row(1.000, 2.0), Row(1.008, 1.5), Row(1.02, 1.0)
    assert model_pick([fastest, tied_low, outside]) is tied_low
    assert model_pick([fastest, outside]) is fastest
    Plain = namedtuple("Plain", "predicted_s")
    assert model_pick([Plain(1.005), Plain(1.0)]) == Plain(1.0)


def test_a_prediction_s_serial_time_is_its_terms_but_the_launch_summed():
    from gencl.model import Prediction

    p = Prediction(3.0, {"compute": 1.0, "memory_bandwidth": 2.5, "launch": 7.0}, "memory",
                   (), 1.0, steps=2)
    assert p.serial_s == pytest.approx(3.5) and p.serial_per_sweep_s == pytest.approx(1.75)
