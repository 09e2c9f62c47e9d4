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


def _point(**kw):
    return {"dtype": "float32", "allocation": "static", "workgroup": 256, "stride": 1,
            "vector_width": 1, "ilp": 1, "unroll": "full", **kw}


def test_peak_is_the_best_vector_point_and_conflicts_compare_like_with_like():
    """A float4 × 4-chain point sets local_bw_Bps; the one-word peak and the conflict curve come
    from one-word points only, each stride against the stride-1 run of the same settings."""
    bytes_ = {"bytes": 2.8e10}
    recs = [record(_point(stride=s), {"G": 100}, 1e-3 * math.gcd(s, 32), work=bytes_)
            for s in (1, 2, 4, 32)]
    recs += [record(_point(vector_width=4, ilp=4), {"G": 100}, 0.4e-3, work=bytes_),
             record(_point(vector_width=2), {"G": 100}, 0.6e-3, work=bytes_),
             # faster one-word runs with other settings must not become the conflicts' stride 1
             record(_point(ilp=4), {"G": 100}, 0.8e-3, work=bytes_),
             record(_point(workgroup=1024), {"G": 25}, 0.9e-3, work=bytes_),
             # conflicts would make this the slowest, but it is not in the bandwidth set
             record(_point(stride=3), {"G": 100}, 5e-3, work=bytes_)]
    result = get_analysis("local_memory")(recs, DEVICE, None)
    chars = {c.name: c for c in result.characteristics}
    assert chars["local_bw_Bps"].value == pytest.approx(2.8e10 / 0.4e-3)
    assert "× 4, ilp 4" in chars["local_bw_Bps"].method
    assert chars["local_bw_scalar_Bps"].value == pytest.approx(2.8e10 / 0.8e-3)
    curve = result.series["bank_conflicts_float32"]
    assert curve["x"] == [1, 2, 3, 4, 32]
    assert curve["y"] == pytest.approx([1, 2, 5, 4, 32])
    widths = result.series["local_bandwidth_by_access_bytes"]
    assert widths["x"] == [4, 8, 16]
    assert widths["y"]["float32, ilp 4"] == [pytest.approx(2.8e10 / 0.8e-3), None,
                                             pytest.approx(2.8e10 / 0.4e-3)]
