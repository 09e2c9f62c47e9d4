"""The per-device residual (gencl.model._residual): features, the fit that leaves the predicted
kernel out, the table file, and the simulation's ``model_residual``."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gencl.errors import GenclError
from gencl.model import explain, params_from
from gencl.model._residual import (
    FEATURES, TERMS, ResidualTable, Row, fit_residual, load_table, residual_features)
from gencl.spec import load_spec
from gencl.tune import ReplayEngine, simulate

COPY_CACHE = Path(__file__).parents[1] / "tune_tests" / "data" / "copy_space.json"
H200 = Path(__file__).parents[2] / "bench_results" / "nvidia-h200" / "profile.json"
GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "registers_per_block": 65536}


def test_features_are_the_prediction_s_shape_in_closed_form():
    """Each term's share of the time (log), the occupancy over 2,048 items (log), the waves of
    resident items (log), the widest access (log₂ bytes), the group's size (log₂)."""
    spec = load_spec("copy")
    params = params_from({}, GPU)
    point = {"dtype": "float32", "reads": 4, "vector_width": 4, "loop": "constant",
             "unroll": "full", "workgroup": 64}
    stats, pred = explain(spec, point, {"n": 4096, "R": 4}, params)
    features = dict(zip(FEATURES, residual_features(pred, stats, params)))
    assert len(features) == len(FEATURES)
    for term in TERMS:
        value = pred.terms.get(term, 0.0)
        expected = math.log(max(value / pred.time_s, 1e-3))
        assert features[f"share_{term}"] == pytest.approx(expected)
    resident = pred.counts["resident_items_per_cu"]
    assert features["occupancy"] == pytest.approx(math.log(resident / 2048))
    assert features["waves"] == pytest.approx(math.log(max(
        stats.work_items / params.compute_units / resident, 1e-3)))
    assert features["widest_access_bytes"] == 4.0  # a float4: 16 bytes
    assert features["group_size"] == 6.0


def _table(rows):
    """A table of (kernel, features, log measured/predicted) rows: predicted 1 s."""
    return ResidualTable("gpu", tuple(Row(s, tuple(f), 1.0, 1.0, math.exp(y))
                                      for s, f, y in rows))


def _rows(spec, n, rng, log_ratio):
    x = rng.uniform(-1, 1, size=(n, len(FEATURES)))
    return [(spec, row, log_ratio(row)) for row in x]


def test_the_fit_learns_a_residual_the_other_kernels_share():
    """Three kernels whose log ratio is 0.5 × their first feature: the fit predicts that for a
    fourth kernel's variants it never saw."""
    rng = np.random.default_rng(0)
    rows = [r for name in ("a", "b", "c") for r in _rows(name, 300, rng, lambda f: 0.5 * f[0])]
    residual = fit_residual(_table(rows), "d")
    probe = rng.uniform(-0.8, 0.8, size=(50, len(FEATURES)))
    got = np.log(residual.factors(probe))
    assert np.max(np.abs(got - 0.5 * probe[:, 0])) < 0.1
    assert residual.trained_on == ("a", "b", "c") and residual.rows == 900


def test_the_predicted_kernel_s_own_rows_are_never_fitted():
    """Kernel d's rows (log ratio 3, far from the others' 0) change nothing in d's fit, and a
    table of d alone gives no residual for d."""
    rng = np.random.default_rng(1)
    others = [r for name in ("a", "b") for r in _rows(name, 200, rng, lambda f: 0.1 * f[1])]
    own = _rows("d", 200, rng, lambda f: 3.0)
    probe = rng.uniform(-1, 1, size=(20, len(FEATURES)))
    with_own = fit_residual(_table(others + own), "d").factors(probe)
    without = fit_residual(_table(others), "d").factors(probe)
    assert with_own == without
    assert fit_residual(_table(own), "d") is None


def test_each_kernel_weighs_the_same_whatever_its_variants():
    """A kernel of 1,000 variants (log ratio 1) and one of 100 (log ratio −1), alike in every
    feature: the fit predicts their mean, 0, not the variants' mean, 0.82."""
    same = [0.0] * len(FEATURES)
    rows = [("big", same, 1.0)] * 1000 + [("small", same, -1.0)] * 100
    got = np.log(fit_residual(_table(rows), "new").factors([same]))
    assert got[0] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("edit, field", [
    (lambda d: d.update(kind="profile"), "kind"),
    (lambda d: d.update(version=99), "version"),
    (lambda d: d.update(features=["x"]), "features"),
    (lambda d: d["rows"][0].pop("measured_s"), "rows[0]"),
    (lambda d: d["rows"][0].update(predicted_s=0.0), "rows[0]"),
    (lambda d: d["rows"][0].update(features=[1.0]), "rows[0].features"),
])
def test_a_bad_table_is_one_line_naming_the_file_and_field(tmp_path, edit, field):
    data = _table([("a", [0.0] * len(FEATURES), 0.1)]).to_json()
    edit(data)
    path = tmp_path / "residual.json"
    path.write_text(json.dumps(data))
    with pytest.raises(GenclError, match=re.escape(f"{path}: {field}")):
        load_table(path)
    run = subprocess.run([sys.executable, "-m", "gencl", "tune", "copy", "--simulate", "--cache",
                          str(COPY_CACHE), "--residual", str(path), "--seeds", "1",
                          "--strategies", "random",
                          "--out", str(tmp_path / "out")],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"{path}: {field}" in run.stderr


def test_gencl_residual_builds_the_rows_the_simulation_scores(tmp_path):
    """``gencl residual`` over the copy space: a row per ok variant, log measured/predicted per
    sweep, whose median is the simulation's median ratio (both priced by the H200's profile);
    simulated with that table alone, the copy kernel gets no residual (no other kernel), and
    with a second kernel's rows of constant log ratio c it gets every prediction × e^c: the
    order (ρ) kept, the ratio moved."""
    table = tmp_path / "residual.json"
    run = subprocess.run([sys.executable, "-m", "gencl", "residual", str(COPY_CACHE),
                          "--profile", str(H200), "--out", str(table)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    built = load_table(table)
    records = ReplayEngine(COPY_CACHE).records
    ok = [r for r in records if r.get("status") == "ok"]
    assert built.kernels == ["copy"] and len(built.rows) == len(ok)

    spec, replay = load_spec("copy"), ReplayEngine(COPY_CACHE)
    from gencl.model import load_params

    params = load_params(replay.device, profile=H200)  # a GPU's profile: the copies differ
    plain, _ = simulate(spec, replay, params, seeds=1, strategies=("random",),
                        kt_strategies=(), residual=(built, str(table)))
    assert "model_residual" not in plain
    assert np.median([math.exp(-r.log_ratio) for r in built.rows]) == pytest.approx(
        plain["model_median_ratio"])

    c = 0.4
    other = [r._replace(spec="other", measured_s=r.predicted_s * math.exp(c))
             for r in built.rows]
    summary, _ = simulate(spec, replay, params, seeds=1, strategies=("random",),
                          kt_strategies=(),
                          residual=(ResidualTable(built.device, built.rows + tuple(other)), "t"))
    learned = summary["model_residual"]
    assert learned["trained_on"] == ["other"] and learned["rows"] == len(other)
    assert learned["median_ratio"] == pytest.approx(plain["model_median_ratio"] * math.exp(c),
                                                    rel=1e-3)
    assert learned["spearman"] == pytest.approx(plain["model_spearman"])
