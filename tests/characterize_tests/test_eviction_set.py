"""Minimal eviction sets (``gencl.characterize.eviction_set``): the reduction finds W + 1 lines
of one set of simulated caches of known geometry, hashed index or not, LRU or random
replacement; a wrong test never yields a confirmed wrong size; the analysis replays the
recorded tests and reports ways and sets."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from gencl.characterize.cache_geometry import all_hit
from gencl.characterize.eviction_set import (
    explore_ways, minimal_eviction_set, replay_ways, shared_bits, starting_pools, ways_and_sets)

from .test_cache_geometry import SetAssociative, plan_for

KIB = 1 << 10
LIMIT = math.sqrt(38 * 292)  # between the simulator's hit and miss latencies


def ring_probe(cache):
    """The simulator as the runner's ring probe: one walk of those lines, *info* kept."""
    def probe(lines, line_bytes, limit, warm, info):
        run = cache.walk([n * line_bytes for n in lines], limit, warm)
        return {"level": "L1_full", "lines": len(lines), "stride": line_bytes, **run, **info}
    return probe


def exact_fits(set_of, ways):
    """No set gets more than *ways* lines: what an ideal all-hit test answers."""
    calls = []

    def fits(lines):
        calls.append(len(lines))
        return max(Counter(set_of(n) for n in lines).values(), default=0) <= ways
    return fits, calls


def hashed(sets, seed):
    key = int(np.random.default_rng(seed).integers(1 << 30))

    def set_of(n):
        h = (n * 2654435761 ^ key) & 0xFFFFFFFF
        return (h ^ h >> 13 ^ h >> 7) % sets
    return set_of


@pytest.mark.parametrize("cache", [
    SetAssociative(128, 32, 16, 8, hashed=True, policy="random", stale=True, seed=11),
    SetAssociative(128, 32, 16, 8, hashed=True, seed=12),  # LRU
    SetAssociative(128, 32, 8, 4, policy="random", seed=13),  # line mod sets
    SetAssociative(64, 64, 7, 6, hashed=True, policy="random", seed=14),  # 7 sets: not 2^k
])
def test_minimal_sets_of_simulated_caches_give_ways_and_sets(cache):
    """Every repetition (consecutive lines, random lines of a region) ends in W + 1 lines of
    one set, confirmed by the walks themselves; ways and sets follow."""
    capacity = cache.nsets * cache.ways
    pools = starting_pools(capacity, 64 * capacity, 3, seed=1)
    runs = explore_ways(pools, ring_probe(cache), cache.line, LIMIT, 16, budget=400)
    found = replay_ways(runs)
    assert len(found) == 3 and all(f["confirmed"] for f in found), found
    for f in found:
        assert len(f["lines"]) == cache.ways + 1
        assert len({cache._set(n) for n in f["lines"]}) == 1
    got = ways_and_sets(found, capacity)
    assert got["ways"] == cache.ways and got["sets"] == pytest.approx(cache.nsets)
    assert sum(got["tests"]) == len(runs)


@pytest.mark.parametrize("ways,sets", [(4, 434), (8, 217), (16, 108), (7, 248)])
def test_tests_grow_as_ways_times_log_of_the_ring(ways, sets):
    """An ideal test: W + 1 lines of one set, in ≤ (W + 1)·(log2 n + 1) + W + 2 tests."""
    set_of = hashed(sets, ways)
    pool = starting_pools(ways * sets, 1 << 15, 2, seed=ways)[1]["pool"]
    fits, calls = exact_fits(set_of, ways)
    got = minimal_eviction_set(pool, fits, budget=1000)
    assert got["confirmed"] and len(got["lines"]) == ways + 1
    assert len({set_of(n) for n in got["lines"]}) == 1
    assert got["tests"] == len(calls) <= (ways + 1) * (math.log2(len(pool)) + 1) + ways + 2


def test_one_wrong_test_never_gives_a_confirmed_wrong_size():
    """A ring that fits reported as not fitting (a stray slow access), at each test in turn:
    the result is W + 1 lines of one set, or not confirmed with the reason."""
    set_of = hashed(13, 0)
    pool = list(range(60))
    clean = minimal_eviction_set(pool, exact_fits(set_of, 4)[0])["tests"]
    for wrong in range(clean):
        fits, calls = exact_fits(set_of, 4)

        def noisy(lines, fits=fits, calls=calls, wrong=wrong):
            ok = fits(lines)
            return ok and len(calls) - 1 != wrong
        got = minimal_eviction_set(pool, noisy)
        if got["confirmed"]:
            assert len(got["lines"]) == 5 and len({set_of(n) for n in got["lines"]}) == 1
        else:
            assert got["why"]


def test_a_ring_that_fits_and_the_budget_are_reported():
    set_of = hashed(16, 3)
    fits, _ = exact_fits(set_of, 8)
    assert minimal_eviction_set(range(10), fits)["why"] == "the starting ring of 10 lines fits"
    got = minimal_eviction_set(range(200), fits, budget=12)
    assert not got["confirmed"] and got["tests"] == 12 and "budget of 12" in got["why"]
    verdict = ways_and_sets([got, got], 128)
    assert "ways" not in verdict and "0 of 2 repetitions confirmed" in verdict["ways_why"]


def test_disagreeing_sets_give_no_ways():
    found = [{"lines": [1, 2, 3], "confirmed": True, "tests": 9},
             {"lines": [4, 5, 6, 7], "confirmed": True, "tests": 9}]
    got = ways_and_sets(found, 100)
    assert "ways" not in got and "disagree: [3, 4]" in got["ways_why"]


def test_replay_notices_a_changed_outcome():
    """The analysis redoes the reduction from the recorded slow counts: one test's count made
    a miss where it was all-hit sends the reduction elsewhere, and it says so."""
    cache = SetAssociative(128, 32, 8, 4, hashed=True, seed=5)
    pools = starting_pools(32, 1024, 2, seed=2)
    runs = explore_ways(pools, ring_probe(cache), 128, LIMIT, 16)
    assert all(f["confirmed"] for f in replay_ways(runs))
    first_fit = next(i for i, r in enumerate(runs) if all_hit(r) and r["rep"] == 0)
    runs[first_fit] = {**runs[first_fit], "slow": 40}
    got = replay_ways(runs)
    assert not got[0]["confirmed"] and "do not replay" in got[0]["why"] and got[1]["confirmed"]


def test_shared_bits_of_a_modulo_set():
    """Lines 16 apart (line mod 16): bits 7…10 equal, the differences span their own bits."""
    got = shared_bits([3, 19, 35, 67], 128)
    assert got["bits_equal"] == [7, 8, 9, 10] and got["bits_varying"] == [11, 12, 13]
    assert got["difference_rank"] == 3


def test_fine_chase_reports_ways_and_sets_of_a_hashed_l1():
    """The L1_full level's records with the eviction-set stage (as the runner stores them):
    l1_ways and l1_sets from the minimal sets where the strides' plateau holds the whole
    capacity or agrees, the method says so; the sets found and their tests in the notes."""
    from gencl.characterize import get_analysis
    from gencl.characterize.cache_geometry import explore

    cache = SetAssociative(128, 32, 16, 8, hashed=True, policy="random", seed=21)
    runs = explore(plan_for(64 * KIB), cache.probe, ring_probe(cache))
    point_keys = ("level", "stage", "lines", "stride")
    records = [{"variant_id": f"r{i}", "status": "ok", "point": {k: r[k] for k in point_keys},
                "extra": {k: v for k, v in r.items() if k not in point_keys}}
               for i, r in enumerate(runs)]
    result = get_analysis("fine_chase")(records, {}, None)
    chars = {c.name: c for c in result.characteristics}
    assert chars["l1_ways"].value == 8 and chars["l1_sets"].value == pytest.approx(16)
    assert "minimal eviction set" in chars["l1_ways"].method
    geo = chars["l1_full_geometry"].value
    assert geo["ways_from"] == "minimal eviction sets" and "ways_disagree" not in geo
    assert geo["eviction_sets"]["set_sizes"] == [9, 9, 9]
    assert any("minimal eviction sets" in n for n in result.notes)
