"""workgroup_dispatch: the per-group cost planted in a synthetic max(T, G·c) series comes back;
the quick sweep runs, matches numpy and feeds the analysis on PoCL."""

from __future__ import annotations

import json
import math

import pytest

from gencl.characterize import get_analysis
from tests.characterize_tests._records import DEVICE, record

N = 1 << 26
SIZES = (32, 64, 128, 256, 512, 1024)


def series(cost_s: float, floor_s: float, access: str = "copy", jitter=(1.0,) * 6):
    return [record({"access": access, "workgroup": w}, {"n": N},
                   max(floor_s, N / w * cost_s) * j, vid=f"{access}{w}")
            for w, j in zip(SIZES, jitter)]


def chars_of(result):
    return {c.name: c for c in result.characteristics}


def test_planted_per_group_cost_comes_back():
    # H200-like: 0.6 ns per group, 272 µs floor: 32/64/128-item groups are dispatch-bound
    recs = series(0.6e-9, 272e-6, jitter=(1.01, 0.99, 1.0, 1.02, 0.98, 1.0))
    recs += series(0.4e-9, 140e-6, access="store")
    recs.append(record({"access": "copy", "workgroup": 16}, {"n": N}, 1.0, status="error"))
    result = get_analysis("workgroup_dispatch")(recs, DEVICE, 2e9)
    chars = chars_of(result)
    assert chars["group_dispatch_s"].value == pytest.approx(0.6e-9, rel=0.02)
    assert chars["group_dispatch_cycles_per_cu"].value == pytest.approx(
        chars["group_dispatch_s"].value * 2e9 * 132)
    assert chars["group_dispatch_store_s"].value == pytest.approx(0.4e-9, rel=1e-6)
    # the variants behind the value are the dispatch-bound ones (32, 64, 128)
    assert set(chars["group_dispatch_s"].variants) == {"copy32", "copy64", "copy128"}
    s = result.series["group_dispatch_overhead_vs_workgroup"]
    assert s["x"] == list(SIZES) and s["y"]["copy"][0] == pytest.approx(N / 32 * 0.6e-9 * 1.01)
    json.dumps(result.to_json())


def test_the_floor_per_item_is_the_flat_part_over_the_items():
    # the flat part (256-, 512- and 1024-item groups at 272 µs) over 2^26 items; only the
    # points on it stand behind the figure
    recs = series(0.6e-9, 272e-6, jitter=(1.01, 0.99, 1.0, 1.02, 0.98, 1.0))
    c = chars_of(get_analysis("workgroup_dispatch")(recs, DEVICE, 2e9))["item_floor_s"]
    assert c.value == pytest.approx(272e-6 / N, rel=0.02)
    assert set(c.variants) == {"copy256", "copy512", "copy1024"} and c.unit == "s"
    # every point proportional: no flat part measured, no floor reported
    steep = get_analysis("workgroup_dispatch")(series(2e-9, 1e-9), DEVICE, 2e9)
    assert "item_floor_s" not in chars_of(steep)


def test_all_proportional_and_flat_curves():
    result = get_analysis("workgroup_dispatch")(series(2e-9, 1e-9), DEVICE, 2e9)
    assert chars_of(result)["group_dispatch_s"].value == pytest.approx(2e-9)
    # flat: no size is dispatch-bound → the slope of a line through the points (0 here), said
    # in method and notes
    result = get_analysis("workgroup_dispatch")(series(1e-12, 300e-6), DEVICE, 2e9)
    c = chars_of(result)["group_dispatch_s"]
    assert c.value == pytest.approx(0.0, abs=1e-18)
    assert "no point is dispatch-bound" in c.method and result.notes
    assert get_analysis("workgroup_dispatch")([], DEVICE, None).characteristics == ()


def test_a_curve_that_only_leans_gives_its_slope_not_the_bound():
    # PoCL on a 16-core CPU at the quick size (2^16 items): every launch sits on its ~60 µs
    # floor, each group adding a few ns. The slope is the cost; min(t / G) (35 ns there) would
    # price 32-item groups 8× too high
    n, floor, cost = 1 << 16, 60e-6, 2e-9
    sizes = (32, 64, 256, 1024)
    recs = [record({"access": "copy", "workgroup": w}, {"n": n}, floor + n / w * cost * j,
                   vid=f"copy{w}") for w, j in zip(sizes, (1.0, 1.02, 0.97, 1.0))]
    c = chars_of(get_analysis("workgroup_dispatch")(recs, DEVICE, 2e9))["group_dispatch_s"]
    assert c.value == pytest.approx(cost, rel=0.1)
    assert c.value < min(r["median_s"] / (n / r["point"]["workgroup"]) for r in recs) / 4
    # a curve that falls with more groups (noise) gives 0, never a negative cost
    falling = [record({"access": "copy", "workgroup": w}, {"n": n}, floor * (1 + w / 1e4),
                      vid=f"copy{w}") for w in sizes]
    assert chars_of(get_analysis("workgroup_dispatch")(falling, DEVICE, 2e9))[
        "group_dispatch_s"].value == 0.0


def test_quick_sweep_on_pocl(engine):
    from gencl.measure import run_points
    from gencl.spec import load_spec

    spec = load_spec("workgroup_dispatch")
    points = spec.sweep_points(engine.info, quick=True)
    points += [spec.complete({"access": "store", "workgroup": 64})]  # store-only form verified
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    assert all(m.max_error == 0.0 for m in results)  # checked against numpy, exactly
    result = get_analysis("workgroup_dispatch")([m.to_json() for m in results],
                                                engine.info.to_json(), None)
    chars = chars_of(result)
    # at this size a CPU's curve may be flat (cost 0: no group adds anything measurable)
    for name in ("group_dispatch_s", "group_dispatch_cycles_per_cu", "group_dispatch_store_s"):
        assert math.isfinite(chars[name].value) and chars[name].value >= 0, name


def test_dispatch_overlap_exponent_of_the_corner():
    # a rounded corner t = (T^p + (G·c)^p)^(1/p) planted at p = 3 comes back; the sharp max()
    # of the H200 reads as p at the fit's bound (64); a flat curve has no corner to fit
    groups = [N // w for w in SIZES]
    soft = [record({"access": "copy", "workgroup": w}, {"n": N},
                   ((272e-6) ** 3 + (g * 0.6e-9) ** 3) ** (1 / 3), vid=f"copy{w}")
            for w, g in zip(SIZES, groups)]
    chars = chars_of(get_analysis("workgroup_dispatch")(soft, DEVICE, 2e9))
    assert chars["dispatch_overlap_exponent"].value == pytest.approx(3.0, rel=0.05)
    sharp = chars_of(get_analysis("workgroup_dispatch")(series(0.6e-9, 272e-6), DEVICE, 2e9))
    assert sharp["dispatch_overlap_exponent"].value > 30
    flat = chars_of(get_analysis("workgroup_dispatch")(series(1e-12, 300e-6), DEVICE, 2e9))
    assert "dispatch_overlap_exponent" not in flat
