"""random_walk: every quick variant walks to the numpy reference's position; the ring is one
cycle; the stride chase visits slots in order."""

from __future__ import annotations

import numpy as np

from gencl.spec.pointer_chase import ring_array, sattolo_ring, walk_reference
from tests.specs_tests._check import check_points


def test_sattolo_ring_is_one_cycle():
    ring = sattolo_ring(1000, np.random.default_rng(0))
    seen, idx = set(), 0
    for _ in range(1000):
        seen.add(idx)
        idx = int(ring[idx])
    assert idx == 0 and len(seen) == 1000


def test_ring_array_walks_only_spaced_slots():
    nxt = ring_array(4096, 32, "random", np.random.default_rng(1))
    idx, visited = 0, set()
    for _ in range(4096 // 32):
        visited.add(idx)
        idx = int(nxt[idx])
    assert idx == 0 and visited == set(range(0, 4096, 32))
    stride = ring_array(64, 4, "stride", np.random.default_rng(1))
    assert walk_reference({"nxt": stride, "state": np.array([0])}, 3)["state"][0] == 12


def test_every_quick_variant_matches_numpy(engine):
    points = check_points(engine, "random_walk")
    assert {p["memory"] for p in points} == {"global", "local", "constant", "private"}
    assert any(p["pattern"] == "stride" for p in points)
