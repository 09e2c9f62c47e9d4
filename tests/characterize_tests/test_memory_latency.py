"""Latency analyses on synthetic walks: a staircase built from eq. 6 must be recovered."""

from __future__ import annotations

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.latency import fit_line_size, fit_staircase, staircase
from tests.characterize_tests._records import DEVICE, record

CLOCK = 2e9
FOOT = [int(1024 * 2 ** (k / 3)) // 128 * 128 for k in range(0, 55)]


def walk_records(sizes, lats, noise=0.02, seed=0):
    rng = np.random.default_rng(seed)
    cpmr = staircase(np.array(FOOT, float), sizes, lats) * rng.normal(1, noise, len(FOOT))
    steps = 65536
    return [record({"memory": "global", "pattern": "random", "footprint": f, "spacing": 128},
                   {"n": f // 4, "K": steps}, c * steps / CLOCK, work={"steps": steps})
            for f, c in zip(FOOT, cpmr)]


@pytest.mark.parametrize("sizes,lats", [
    ((256 << 10, 50 << 20), (35.0, 270.0, 600.0)),           # Hopper-like L1, L2, HBM
    ((32 << 10, 1 << 20, 32 << 20), (5.0, 14.0, 45.0, 250.0)),  # a CPU's three levels
])
def test_staircase_recovers_levels(sizes, lats):
    recs = walk_records(sizes, lats)
    result = get_analysis("random_walk")(recs, DEVICE, CLOCK)
    chars = {c.name: c for c in result.characteristics}
    levels = chars["cache_levels"].value
    assert len(levels) == len(sizes)
    for level, size, lat in zip(levels, sizes, lats):
        assert level["size_bytes"] == pytest.approx(size, rel=0.15)
        assert level["latency_cycles"] == pytest.approx(lat, rel=0.1)
    assert chars["global_latency_cycles"].value == pytest.approx(lats[-1], rel=0.1)
    staircase_series = result.series["global_latency_staircase"]
    assert len(staircase_series["lines"][0]["x"]) == len(FOOT)


def test_flat_walk_has_no_levels():
    stair = fit_staircase(FOOT, [400.0 + (i % 2) for i in range(len(FOOT))])
    assert stair.sizes == () and stair.memory_latency == pytest.approx(400.5, rel=0.01)


@pytest.mark.parametrize("line", [32, 64, 128])
def test_line_size_is_the_knee(line):
    s = [4, 8, 16, 32, 64, 128, 256, 512]
    got, curve = fit_line_size(s, [30 + 240 * min(1, v / line) for v in s])
    assert got == line


def test_no_knee_when_flat():
    assert fit_line_size([4, 8, 16, 32], [20.0, 20.5, 20.2, 20.1])[0] is None


def test_fixed_memories_and_clock():
    steps = 10000
    recs = [record({"memory": m, "pattern": "random", "footprint": 4096, "spacing": 4},
                   {"n": 1024, "K": steps}, lat * steps / CLOCK)
            for m, lat in (("local", 29.0), ("constant", 40.0), ("private", 33.0))]
    recs.append(record({"memory": "local", "pattern": "random", "footprint": 4096,
                        "spacing": 4}, {"n": 1024, "K": steps}, 1.0, status="timeout"))
    result = get_analysis("random_walk")(recs, DEVICE, CLOCK)
    chars = {c.name: c.value for c in result.characteristics}
    assert chars["local_latency_cycles"] == pytest.approx(29.0)
    assert chars["constant_latency_cycles"] == pytest.approx(40.0)
    assert chars["private_latency_cycles"] == pytest.approx(33.0)
    # half the clock → half the cycles
    half = get_analysis("random_walk")(recs, DEVICE, CLOCK / 2)
    assert {c.name: c.value for c in half.characteristics}["local_latency_cycles"] == \
        pytest.approx(14.5)
