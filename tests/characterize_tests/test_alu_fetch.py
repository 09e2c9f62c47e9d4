"""alu_fetch analysis on synthetic records built from t = max(bytes/BW, ops/peak): the balance
point (ratio, FLOP/B, FLOP/load) is recovered; curves without a crossing report none."""

from __future__ import annotations

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.alu_fetch import fit_balance
from specs.alu_fetch import RATIOS
from tests.characterize_tests._records import DEVICE, record

N, INPUTS = 1 << 24, 4


def records(width, bw, peak, *, smooth=None, noise=0.02, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for ratio in RATIOS:
        nbytes = N * (INPUTS + 1) * 4
        flops = 2 * N * INPUTS * 4 * ratio
        t_mem, t_alu = nbytes / bw, flops / peak
        t = max(t_mem, t_alu) if smooth is None else (t_mem ** smooth + t_alu ** smooth) ** (
            1 / smooth)
        out.append(record({"ratio": ratio, "inputs": INPUTS, "vector_width": width,
                           "workgroup": 256}, {"n": N}, t * rng.normal(1, noise),
                          work={"bytes": nbytes, "flops": flops,
                                "loads": N // width * INPUTS}))
    return out


def expected_ratio(bw, peak):
    # ops/peak = bytes/BW  →  2·N·F·4ρ / peak = N·(F+1)·4 / BW
    return peak * (INPUTS + 1) * 4 / (bw * 2 * INPUTS * 4)


def test_balance_per_type():
    bw, peak = 4e12, 60e12            # an H200-like 15 FLOP/B ridge
    recs = records(1, bw, peak) + records(4, bw, 1.6 * peak, seed=1)
    result = get_analysis("alu_fetch")(recs, DEVICE, None)
    balance = {c.name: c.value for c in result.characteristics}["alu_fetch_balance"]
    for label, p in (("float", peak), ("float4", 1.6 * peak)):
        got = balance[label]
        assert got["ratio"] == pytest.approx(expected_ratio(bw, p), rel=0.1)
        assert got["ops_per_byte"] == pytest.approx(p / bw, rel=0.1)
        assert got["alu_per_fetch"] == pytest.approx(4 * got["ratio"])
        width = 1 if label == "float" else 4
        # FLOP per load instruction: 2 per multiply-add per lane, 4·ρ multiply-adds per value
        assert got["ops_per_load"] == pytest.approx(8 * got["ratio"] * width, rel=1e-6)
        assert got["memory_bound_Bps"] == pytest.approx(bw, rel=0.05)
        assert got["alu_bound_flops"] == pytest.approx(p, rel=0.05)
    time = result.series["alu_fetch_time_vs_ratio"]
    assert time["x"] == sorted(RATIOS)
    assert set(time["y"]) >= {"float", "float4", "float fit max(T, k·ρ)"}
    assert "alu_fetch_throughput_vs_ratio" in result.series


def test_smooth_knee_still_found():
    # a rounded knee (p-norm of the two times): the crossing of the asymptotes stays put
    bw, peak = 2e12, 40e12
    recs = records(1, bw, peak, smooth=4)
    value = get_analysis("alu_fetch")(recs, DEVICE, None).characteristics[0].value["float"]
    assert value["ratio"] == pytest.approx(expected_ratio(bw, peak), rel=0.2)
    assert value["rise_ratio"] <= value["ratio"]


@pytest.mark.parametrize("peak", [1e16, 1e9])  # never ALU-bound / ALU-bound from the start
def test_no_balance_inside_the_sweep(peak):
    result = get_analysis("alu_fetch")(records(1, 4e12, peak), DEVICE, None)
    assert not result.characteristics
    assert any("no balance inside" in n for n in result.notes)


def test_fit_balance_exact():
    r = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64]
    fit = fit_balance(r, [max(1.0, v / 5) for v in r])
    assert fit.ratio == pytest.approx(5.0, rel=0.05) and fit.inside


def test_series_are_plotted_in_the_alu_fetch_section():
    from gencl.profile._plots import plottable, section_of

    series = get_analysis("alu_fetch")(records(1, 4e12, 60e12), DEVICE, None).series
    for name, s in series.items():
        assert plottable(s) and section_of(name, "alu_fetch") == "alu_fetch", name


def test_overlap_exponent_per_type():
    # a rounded corner t = (T^p + (kρ)^p)^(1/p): scalar p = 2, vector-typed p = 4, recovered
    bw, peak = 4e12, 60e12
    recs = records(1, bw, peak, smooth=2, noise=0.005) + records(
        4, bw, 1.6 * peak, smooth=4, noise=0.005, seed=1)
    result = get_analysis("alu_fetch")(recs, DEVICE, None)
    chars = {c.name: c for c in result.characteristics}
    assert chars["overlap_scalar_exponent"].value == pytest.approx(2.0, rel=0.1)
    assert chars["overlap_vector_exponent"].value == pytest.approx(4.0, rel=0.15)
    assert chars["overlap_scalar_exponent"].variants  # traceable to the runs it was fitted on
    assert any(k.startswith("float fit overlap p=") for k in result.series[
        "alu_fetch_time_vs_ratio"]["y"])


def test_overlap_exponent_by_vector_width():
    # each width its own rounded corner (p 2, 3, 4, 6): every width's p recovered, in width
    # order; overlap_vector_exponent stays float4's (the width profiles measured before the
    # others), not the widest's
    bw, peak = 4e12, 60e12
    recs = [r for seed, (w, p) in enumerate(((1, 2), (2, 3), (4, 4), (8, 6)))
            for r in records(w, bw, peak * w ** 0.5, smooth=p, noise=0.003, seed=seed)]
    chars = {c.name: c for c in get_analysis("alu_fetch")(recs, DEVICE, None).characteristics}
    curve = chars["overlap_exponent_by_vector_width"].value
    assert [c["vector_width"] for c in curve] == [1, 2, 4, 8]
    for c, p in zip(curve, (2, 3, 4, 6)):
        assert c["exponent"] == pytest.approx(p, rel=0.15)
    assert chars["overlap_vector_exponent"].value == curve[2]["exponent"]
    assert chars["overlap_scalar_exponent"].value == curve[0]["exponent"]


def test_a_sharp_corner_is_a_large_exponent():
    result = get_analysis("alu_fetch")(records(1, 4e12, 60e12, noise=0.002), DEVICE, None)
    assert {c.name: c.value for c in result.characteristics}["overlap_scalar_exponent"] > 8


def test_a_curve_the_overlap_form_does_not_fit_reports_no_exponent():
    # the crossing is found (this seed), but ±40 % scatter is not a rounded roofline: no
    # exponent, a note
    recs = records(1, 4e12, 60e12, noise=0.4, seed=3)
    result = get_analysis("alu_fetch")(recs, DEVICE, None)
    names = {c.name for c in result.characteristics}
    assert "alu_fetch_balance" in names and "overlap_scalar_exponent" not in names
    assert any("does not fit" in n for n in result.notes)


def test_fit_overlap_exact():
    from gencl.characterize.alu_fetch import fit_overlap

    r = np.array([0.25, 0.5, 1, 2, 4, 8, 16, 32, 64])
    t = (1.0 + (r / 5) ** 3) ** (1 / 3)
    fit = fit_overlap(r, t, fit_balance(r, t))
    assert fit.exponent == pytest.approx(3.0, rel=1e-3)
    assert fit.t_mem == pytest.approx(1.0, rel=1e-3) and fit.slope == pytest.approx(0.2, rel=1e-3)
    assert fit.rms_log_error < 1e-6
