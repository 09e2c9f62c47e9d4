"""local_memory: static and dynamic buffers, a group and one work item, strided reads and 8-byte
words all sum to numpy's answer."""

from __future__ import annotations

from tests.specs_tests._check import check_points


def test_quick_variants_match_numpy(engine):
    points = check_points(engine, "local_memory")
    assert {p["allocation"] for p in points} == {"static", "dynamic"}
    assert {p["workgroup"] for p in points} == {256, 1}
    assert max(p["stride"] for p in points) == 64
