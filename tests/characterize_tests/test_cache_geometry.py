"""Capacity-vs-stride geometry (``gencl.characterize.cache_geometry``): the plan and the analysis
give back the line, sets and ways of simulated set-associative caches of known geometry, under
LRU and under random replacement, and tell a hashed index from ``line mod sets``."""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pytest

from gencl.characterize.cache_geometry import StridePlan, explore, geometry

KIB = 1 << 10
WINDOW = 64


class SetAssociative:
    """A sectored set-associative cache, timed per access like ``windowed_walk``.

    ``policy``: "lru" or "random" (a random way of a full set is evicted; free ways fill first).
    ``hashed``: the set is ``line ^ line/T ^ line/T²`` mod T. ``stale``: every launch finds the
    cache full of another buffer's lines (an L1 not invalidated between launches)."""

    def __init__(self, line, sector, sets, ways, *, policy="lru", hashed=False, stale=False,
                 hit=36, miss=290, seed=0):
        self.line, self.sector, self.nsets, self.ways = line, sector, sets, ways
        self.policy, self.hashed, self.stale = policy, hashed, stale
        self.hit, self.miss = hit, miss
        self.rng = np.random.default_rng(seed)

    def _set(self, la):
        t = self.nsets
        return (la ^ (la // t) ^ (la // (t * t))) % t if self.hashed else la % t

    def _access(self, sets, addr):
        la, sec = addr // self.line, (addr % self.line) // self.sector
        ways = sets.setdefault(self._set(la), OrderedDict())
        if la in ways:
            if self.policy == "lru":
                ways.move_to_end(la)
            if sec in ways[la]:
                return self.hit
            ways[la].add(sec)
            return self.miss
        if len(ways) >= self.ways:
            victim = (next(iter(ways)) if self.policy == "lru"
                      else list(ways)[int(self.rng.integers(len(ways)))])
            del ways[victim]
        ways[la] = {sec}
        return self.miss

    def probe(self, lines, stride, stage, limit, warm):
        run = self.walk([k * stride for k in range(lines)], limit, warm)
        return {"level": "L1_full", "stage": stage, "lines": lines, "stride": stride, **run}

    def walk(self, addresses, limit, warm):
        """One launch walking a ring of *addresses* (bytes, in order): *warm* untimed passes,
        then whole timed passes (≥ 4, ≥ the window), as ``windowed_walk``."""
        sets: dict = {}
        if self.stale:  # another buffer's lines, far away, in every way
            for t in range(self.nsets):
                for w in range(self.ways):
                    la = (1 << 40) // self.line + t + w * self.nsets
                    sets.setdefault(self._set(la), OrderedDict())[la] = {0}
        lines = len(addresses)
        passes = max(4, math.ceil(WINDOW / lines))
        lat = []
        for g in range((warm + passes) * lines):
            t = self._access(sets, addresses[g % lines]) + int(self.rng.integers(0, 6))
            if g >= warm * lines:
                lat.append(t)
        lat = np.array(lat)
        return {"passes": passes, "warm_passes": warm, "threshold": limit,
                "slow": int((lat > limit).sum()), "total": int(lat.sum()),
                "window": lat[:WINDOW].tolist()}


def plan_for(top):
    """Powers of two 32 B … *top*, the line's strides, 3·2^k from 384 B."""
    powers = tuple(1 << k for k in range(5, int(math.log2(top)) + 1))
    return StridePlan("L1_full", powers, line_strides=(96, 160, 224, 288, 480),
                      index_strides=tuple(3 << k for k in range(7, int(math.log2(top)), 2)),
                      fetch_bytes=64 * KIB, max_lines=1 << 12)


@pytest.mark.parametrize("cache,top", [
    # 16 KiB, 128-B lines of 32-B sectors, 16 sets × 8 ways, LRU
    (SetAssociative(128, 32, 16, 8), 16 * KIB),
    # the same under random replacement, every launch finding stale lines in every way
    (SetAssociative(128, 32, 16, 8, policy="random", stale=True, seed=1), 16 * KIB),
    # 64-B lines filled whole, 32 sets × 4 ways, random
    (SetAssociative(64, 64, 32, 4, policy="random", seed=2), 16 * KIB),
    # 32-B lines (no sectors), 64 sets × 4 ways: the line is the sector
    (SetAssociative(32, 32, 64, 4, seed=3), 16 * KIB),
])
def test_line_sets_ways_of_a_modulo_indexed_cache(cache, top):
    got = geometry(explore(plan_for(top), cache.probe))
    size = cache.line * cache.nsets * cache.ways
    assert got["size_bytes"] == size, got
    assert got["fetch_bytes"] == cache.sector, got
    assert got["line_bytes"] == cache.line, got
    assert got["ways"] == cache.ways and got["sets"] == cache.nsets, got
    assert got["knee_stride_bytes"] == cache.line * cache.nsets
    assert got["set_index"].startswith("line mod sets"), got["set_index"]
    assert got["hit_latency_cycles"] == pytest.approx(38, abs=3)
    assert got["miss_latency_cycles"] == pytest.approx(292, abs=3)


def test_a_hashed_index_is_named_and_keeps_the_line():
    """XOR-folded set index: lines at 2^k and 3·2^k strides land in other sets than modulo
    would put them; the line still comes from the odd strides, the index is called hashed."""
    cache = SetAssociative(128, 32, 16, 8, hashed=True, policy="random", seed=4)
    got = geometry(explore(plan_for(64 * KIB), cache.probe))
    assert got["size_bytes"] == 16 * KIB and got["line_bytes"] == 128, got
    assert got["set_index"].startswith("hashed"), got["set_index"]


def test_no_plateau_means_no_ways():
    """Strides that stop before every line shares one set: ways and sets stay unset, and why."""
    cache = SetAssociative(128, 32, 64, 4)  # T·line = 8 KiB: the strides stop at 4 KiB
    got = geometry(explore(plan_for(4 * KIB), cache.probe))
    assert got["line_bytes"] == 128 and "ways" not in got and "sets" not in got
    assert "no plateau" in got["ways_why"]


def test_fetch_unit_and_runs_of_one_search():
    """Past the level every 32-B access of a 32-B-sector cache misses, half the 16-B ones; a
    ring of ways + 1 lines at a stride of sets × line misses every pass (LRU) and is the first
    miss of that stride's search."""
    cache = SetAssociative(128, 32, 16, 8)
    runs = explore(plan_for(16 * KIB), cache.probe)
    got = geometry(runs)
    assert got["fetch_miss_fraction"]["16"] == pytest.approx(0.5, abs=0.02)
    assert got["fetch_miss_fraction"]["32"] == pytest.approx(1.0)
    at_knee = [r for r in runs if r["stage"] == "capacity" and r["stride"] == 2 * KIB]
    first_miss = min(r["lines"] for r in at_knee if r["slow"] >= r["passes"])
    assert first_miss == 9 and got["lines_by_stride"]["capacity"]["2048"] == 8


def test_fine_chase_analysis_reports_the_summary_keys_from_the_full_level():
    """Records of an L1_full level (as the runner stores them) give l1_line_bytes, l1_sets,
    l1_ways, l1_fetch_bytes and the level's capacity and latencies; the N(S) series."""
    from gencl.characterize import get_analysis

    cache = SetAssociative(128, 32, 16, 8, policy="random", seed=6)
    runs = explore(plan_for(16 * KIB), cache.probe)
    point_keys = ("level", "stage", "lines", "stride")
    records = [{"variant_id": f"r{i}", "status": "ok", "point": {k: r[k] for k in point_keys},
                "extra": {k: v for k, v in r.items() if k not in point_keys}}
               for i, r in enumerate(runs)]
    result = get_analysis("fine_chase")(records, {}, None)
    chars = {c.name: c.value for c in result.characteristics}
    assert chars["l1_line_bytes"] == 128 and chars["l1_ways"] == 8 and chars["l1_sets"] == 16
    assert chars["l1_fetch_bytes"] == 32 and chars["l1_full_size_bytes"] == 16 * KIB
    assert "fine_chase_l1_full_lines_vs_stride" in result.series
    assert any(n.startswith("L1_full set index: line mod sets") for n in result.notes)
