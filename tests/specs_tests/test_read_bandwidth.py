"""read_bandwidth: each quick variant (float, float4, float16) sums to numpy's answer."""

from __future__ import annotations

from tests.specs_tests._check import check_points


def test_quick_variants_match_numpy(engine):
    points = check_points(engine, "read_bandwidth")
    assert {p["vector_width"] for p in points} == {1, 4, 16}
