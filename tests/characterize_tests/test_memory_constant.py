"""constant_memory analysis on synthetic records: broadcast bandwidth, λ, stride curve, and an
eq. 6 constant-cache staircase (Kepler-like 8 KB level, seed 000 Table III) recovered."""

from __future__ import annotations

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.latency import staircase
from specs.constant_memory import FOOTPRINTS
from tests.characterize_tests._records import DEVICE, record

CLOCK = 2e9
GROUPS, ITEMS, READS = 1000, 256, 64


def bandwidth_records(bw_by_stride):
    nbytes = GROUPS * ITEMS * READS * 4
    return [record({"test": "bandwidth", "stride": s, "footprint": 256}, {"G": GROUPS},
                   nbytes / bw, work={"bytes": nbytes, "steps": 0})
            for s, bw in bw_by_stride.items()]


def walk_records(size, lats, limit=64 << 10, seed=0):
    rng = np.random.default_rng(seed)
    foot = [f for f in FOOTPRINTS if f <= limit]
    cpmr = staircase(np.array(foot, float), (size,), lats) * rng.normal(1, 0.02, len(foot))
    steps = 16384
    return [record({"test": "walk", "stride": 0, "footprint": f}, {"n": f // 4, "K": steps},
                   c * steps / CLOCK, work={"bytes": 4 * steps, "steps": steps})
            for f, c in zip(foot, cpmr)]


def test_bandwidth_and_issue_latency():
    bws = {0: 20e12, 1: 1e12, 4: 0.9e12, 16: 0.6e12}
    result = get_analysis("constant_memory")(bandwidth_records(bws), DEVICE, CLOCK)
    chars = {c.name: c for c in result.characteristics}
    assert chars["constant_bw_Bps"].value == pytest.approx(20e12)
    # λ = CPMR' × CUs × warp, CPMR' = t × clock / (items × reads)
    t = GROUPS * ITEMS * READS * 4 / 20e12
    cpmr = t * CLOCK / (GROUPS * ITEMS * READS)
    assert chars["constant_issue_latency_cycles"].value == pytest.approx(cpmr * 132 * 32)
    assert chars["constant_stride_bw_Bps"].value["16"] == pytest.approx(0.6e12)
    slow = result.series["constant_slowdown_vs_stride"]
    assert slow["x"] == [0, 1, 4, 16] and slow["y"][1] == pytest.approx(20.0)
    assert "constant_cache_levels" not in chars  # no walk ran


def test_constant_cache_staircase():
    recs = walk_records(8 << 10, (48.0, 90.6))  # seed 000 Table III, Quadro K620
    result = get_analysis("constant_memory")(recs, DEVICE, CLOCK)
    chars = {c.name: c.value for c in result.characteristics}
    assert chars["constant_cache_bytes"][0] == pytest.approx(8 << 10, rel=0.15)
    assert len(chars["constant_cache_bytes"]) == 1
    lats = chars["constant_completion_latency_cycles"]
    assert lats[0] == pytest.approx(48.0, rel=0.1) and lats[-1] == pytest.approx(90.6, rel=0.1)
    assert "constant_latency_cycles" not in chars  # random_walk's key
    assert "constant_latency_staircase" in result.series
    assert chars["constant_cache_levels"][0]["size_bytes"] == pytest.approx(8 << 10, rel=0.15)


def test_flat_walk_reports_no_cache_and_failures_are_skipped():
    recs = walk_records(1 << 30, (40.0, 41.0))  # the "cache" is larger than anything walked
    recs.append(record({"test": "bandwidth", "stride": 0, "footprint": 256}, {"G": 1}, 1.0,
                       status="build_error"))
    result = get_analysis("constant_memory")(recs, DEVICE, CLOCK)
    chars = {c.name: c.value for c in result.characteristics}
    assert chars["constant_cache_bytes"] == []
    assert "constant_bw_Bps" not in chars
    assert any("no cache level" in n for n in result.notes)


def test_series_are_plotted_in_the_constant_section():
    from gencl.profile._plots import plottable, section_of

    recs = bandwidth_records({0: 2e12, 4: 1e12, 16: 5e11}) + walk_records(8 << 10, (48.0, 90.6))
    series = get_analysis("constant_memory")(recs, DEVICE, CLOCK).series
    assert set(series) == {"constant_bw_vs_stride", "constant_slowdown_vs_stride",
                           "constant_latency_staircase"}
    for name, s in series.items():
        assert plottable(s) and section_of(name, "constant_memory") == "constant", name
