"""Local-memory analysis on synthetic records: bandwidth and a 32-bank conflict curve."""

from __future__ import annotations

import math

import pytest

from gencl.characterize import get_analysis
from tests.characterize_tests._records import DEVICE, record


def test_conflict_degree_and_bandwidth():
    recs = []
    for s in range(1, 33):
        ways = math.gcd(s, 32)  # 32 banks of 4-byte words
        point = {"dtype": "float32", "allocation": "static", "workgroup": 256, "stride": s}
        recs.append(record(point, {"G": 100}, 1e-3 * ways, work={"bytes": 2.8e10}))
    recs.append(record({"dtype": "float32", "allocation": "dynamic", "workgroup": 256,
                        "stride": 1}, {"G": 100}, 0.98e-3, work={"bytes": 2.8e10}))
    result = get_analysis("local_memory")(recs, DEVICE, None)
    chars = {c.name: c.value for c in result.characteristics}
    assert chars["local_bw_Bps"] == pytest.approx(2.8e10 / 0.98e-3)
    assert chars["local_bank_conflict_max_float32"] == pytest.approx(32)
    curve = result.series["bank_conflicts_float32"]
    assert curve["y"][curve["x"].index(2)] == pytest.approx(2)
    assert curve["y"][curve["x"].index(3)] == pytest.approx(1)
