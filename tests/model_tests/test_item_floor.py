"""The items' floor: no GPU launch is priced below its work items at workgroup_dispatch's
measured seconds an item (the committed H200 figure), none on a CPU, none where not measured;
a floor is a bound, not a unit's work, so the tie-break's sum of terms leaves it out."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import loopy as lp
import numpy as np
import pytest

from gencl.model import compute_stats, params_from, predict
from gencl.model._params import nominal_inputs
from gencl.model._predict import item_floor

ROOT = Path(__file__).resolve().parents[2]


def _copy(items: int, vector: int = 1):
    """y = x / 2, one element (a float, or a *vector*-wide float vector) an item, groups of
    256."""
    n = items * vector
    knl = lp.make_kernel(
        "{[i]: 0 <= i < %d}" % n, "y[i] = x[i] / 2",
        [lp.GlobalArg("x", np.float32, shape=(n,)), lp.GlobalArg("y", np.float32, shape=(n,))],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    if vector > 1:
        knl = lp.split_array_axis(knl, "x,y", 0, vector)
        knl = lp.tag_array_axes(knl, "x,y", "c,vec")
        knl = lp.split_iname(knl, "i", vector, inner_tag="vec")
        knl = lp.split_iname(knl, "i_outer", 256, inner_tag="l.0", outer_tag="g.0")
    else:
        knl = lp.split_iname(knl, "i", 256, inner_tag="l.0", outer_tag="g.0")
    return compute_stats(knl, {}, subgroup_size=32)


def _profile(name: str):
    summary = json.loads((ROOT / f"bench_results/{name}/summary.json").read_text())
    device = json.loads((ROOT / f"bench_results/{name}/profile.json").read_text())["device"]
    return params_from(summary, device)


def test_one_float_items_are_priced_at_the_floor_on_the_h200():
    p = _profile("nvidia-h200")
    # the committed figure: 224 µs over 2^26 one-float copy items
    assert p.item_floor_s * (1 << 26) == pytest.approx(224e-6, rel=0.01)
    assert p.sources["item_floor_s"] == "measured"
    stats = _copy(1 << 26)
    pred = predict(stats, p)
    assert item_floor(stats, p) == pytest.approx(stats.work_items * p.item_floor_s)
    assert stats.work_items == 1 << 26
    # the other terms price these items below the floor; the floor is the time and names it
    unfloored = predict(stats, dataclasses.replace(p, item_floor_s=0.0))
    assert unfloored.time_s < pred.terms["item_floor"]
    assert pred.time_s == pytest.approx(pred.terms["item_floor"])
    assert pred.bottleneck == "item_floor"
    # a bound, no unit's work: the sum of terms the tie-break reads is the same without it
    assert pred.serial_s == pytest.approx(unfloored.serial_s)
    # the criterion: the share of the floor the terms account for, the speedup without it
    (crit,) = [c for c in pred.criteria if c.name == "item_floor"]
    assert crit.value == pytest.approx(unfloored.time_s / pred.time_s)
    assert crit.speedup == pytest.approx(pred.time_s / unfloored.time_s)
    assert "vector width" in crit.hint


def test_items_that_move_more_stay_above_the_floor():
    p = _profile("nvidia-h200")
    # the same bytes in float4 items: a quarter of the items, a quarter of the floor, priced by
    # their bytes as before
    stats = _copy(1 << 24, vector=4)
    pred = predict(stats, p)
    assert pred.terms["item_floor"] == pytest.approx((1 << 24) * p.item_floor_s)
    assert pred.time_s == pytest.approx(
        predict(stats, dataclasses.replace(p, item_floor_s=0.0)).time_s)
    assert pred.bottleneck != "item_floor"


def test_a_floor_that_is_not_the_time_names_no_bottleneck():
    # a floor above every term but below their join: the time is the join's, and the
    # bottleneck its largest term
    p = _profile("nvidia-h200")
    stats = _copy(1 << 24, vector=4)
    plain = predict(stats, dataclasses.replace(p, item_floor_s=0.0))
    top = max(t for k, t in plain.terms.items() if k not in ("launch", "item_floor"))
    assert top < plain.time_s
    between = (top + plain.time_s) / 2 / stats.work_items
    pred = predict(stats, dataclasses.replace(p, item_floor_s=between))
    assert pred.terms["item_floor"] > top
    assert pred.time_s == pytest.approx(plain.time_s)
    assert pred.bottleneck == plain.bottleneck != "item_floor"
    (crit,) = [c for c in pred.criteria if c.name == "item_floor"]
    assert crit.value == 1.0 and crit.speedup == 1.0


def test_no_floor_where_not_measured_nor_on_a_cpu():
    h200 = _profile("nvidia-h200")
    summary = json.loads((ROOT / "bench_results/nvidia-h200/summary.json").read_text())
    device = json.loads((ROOT / "bench_results/nvidia-h200/profile.json").read_text())["device"]
    missing = params_from({k: v for k, v in summary.items() if k != "item_floor_s"}, device)
    assert missing.item_floor_s == 0.0 and missing.sources["item_floor_s"] == "nominal"
    assert nominal_inputs("item_floor", missing) == ["item_floor_s"]
    assert nominal_inputs("item_floor", h200) == []
    assert item_floor(_copy(1 << 20), missing) == 0.0
    # a CPU runtime runs a group's items as one loop: never floored, whatever its profile says
    cpu = params_from({**summary, "item_floor_s": 1e-9}, {**device, "device_type": "CPU"})
    assert cpu.item_floor_s == 0.0 and cpu.sources["item_floor_s"] == "n/a"
