"""Latency analyses on synthetic walks: a staircase built from eq. 6 must be recovered."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.latency import (
    fit_line_size, fit_staircase, measured_levels, partitioned_last_level, staircase, transition)
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


# {{{ the size of a level from its step

def _partitioned(footprints, near=25 << 20, total=50 << 20, lats=(41.0, 287.0, 532.0, 690.0),
                 spread=1.41):
    """A walk over L1 256 KiB, a near and a far L2 partition and DRAM, each step starting at
    the level's capacity and complete *spread* times past it (a policy that keeps part of a
    ring longer than the cache, as the H200's L2 does), linear in log footprint between."""
    s = np.asarray(footprints, float)

    def step(c):
        return np.clip(np.log(s / c) / np.log(spread), 0.0, 1.0)

    y = np.full(s.shape, lats[0])
    for (a, b), c in zip(zip(lats, lats[1:]), (256 << 10, near, total)):
        y = y + (b - a) * step(c)
    return y


def test_held_bytes_is_the_capacity_when_the_step_trails_past_it():
    foot = np.array(sorted({int(1024 * 2 ** (k / 6)) // 128 * 128 for k in range(0, 109)}),
                    float)
    y = _partitioned(foot) * np.random.default_rng(4).normal(1, 0.003, len(foot))
    stair = fit_staircase(foot, y)
    levels = measured_levels(foot, y, stair)
    assert len(levels) == 3
    for level, size in zip(levels, (256 << 10, 25 << 20, 50 << 20)):
        assert level["held_bytes"] == pytest.approx(size, rel=0.05)
        assert level["onset_bytes"] <= size * 1.13
        # the half rise lies past the capacity: the estimator a trailing step misleads
        assert level["half_rise_bytes"] > 1.1 * size
    parts = partitioned_last_level(levels)
    assert parts["near_bytes"] == pytest.approx(25 << 20, rel=0.05)
    assert parts["total_bytes"] == pytest.approx(50 << 20, rel=0.05)
    assert parts["far_latency_cycles"] == pytest.approx(532, rel=0.02)


def test_held_bytes_discounts_misses_that_grow_before_the_step():
    """A level with conflict misses in proportion to the footprint below its size (10 % when
    full), then a cliff: held is the size, not the size less its early misses."""
    foot = np.array([2 ** (k / 4) * 4096 for k in range(0, 40)])
    c, lo, hi = 200e3, 40.0, 290.0
    m = np.where(foot <= c, 0.1 * foot / c, 1.0)
    t = transition(foot, lo + (hi - lo) * m, lo, hi)
    assert t is not None and t.held == pytest.approx(foot[foot <= c].max(), rel=1e-6)
    assert transition(foot[foot <= c], (lo + (hi - lo) * m)[foot <= c], lo, hi) is None


def test_two_levels_far_apart_are_not_partitions():
    assert partitioned_last_level([{"size_bytes": 1 << 20, "latency_cycles": 14.0},
                                   {"size_bytes": 32 << 20, "latency_cycles": 45.0}]) is None


_H200_WALKS = {
    # the first H200 run (bench_results/nvidia-h200/raw/random_walk.json as of commit 7e8d59c):
    # four footprints per octave in the L2 steps
    "first run": Path(__file__).parent / "data" / "h200_random_walk_7e8d59c.json",
    # the committed rerun with twelve footprints per octave inside the steps
    "committed": Path(__file__).parents[2] / "bench_results" / "nvidia-h200" / "raw"
    / "random_walk.json",
}


@pytest.mark.parametrize("run", list(_H200_WALKS))
def test_h200_walks_give_the_l2_whole(run):
    """The H200's walks: L1 200–250 KiB, L2 in two 25 MiB partitions, 50 MiB ± 10 % in all
    (the far one must not be merged into the near one, nor taken for DRAM), DRAM at its
    measured plateau (page-local walks; published HBM latencies 480–660 cycles, within 15 %)."""
    data = json.loads(_H200_WALKS[run].read_text())
    result = get_analysis("random_walk")(data["results"], data["device"], None)
    chars = {c.name: c.value for c in result.characteristics}
    levels = chars["cache_levels"]
    assert len(levels) == 3
    assert 200 << 10 <= levels[0]["size_bytes"] <= 250 << 10
    parts = chars["partitioned_last_level"]
    assert parts["total_bytes"] == pytest.approx(50 << 20, rel=0.10)
    assert parts["near_bytes"] == pytest.approx(25 << 20, rel=0.10)
    near, far = parts["near_latency_cycles"], parts["far_latency_cycles"]
    dram = chars["global_latency_cycles"]
    assert 265 * 0.95 <= near <= 300  # published L2 hit 265–280 cycles
    assert 1.5 * near < far < dram / 1.15  # the far partition: neither near nor DRAM
    assert 480 * 0.85 <= dram <= 660 * 1.15

# }}}
