"""store_reload: the wait per in-place store from synthetic records whose answer is known, and
the quick sweep on PoCL (each variant matches numpy, keeps its row loop, feeds the analysis)."""

from __future__ import annotations

import math

import pytest

from gencl.characterize import get_analysis
from gencl.spec import load_spec
from tests.characterize_tests._records import DEVICE, record


def point(target, offset, width):
    return {"target": target, "offset": offset, "vector_width": width, "workgroup": 256}


def test_wait_per_store_over_shared_lines():
    m, rows = 132 * 32 * 4 * 100, 8
    sizes = {"m": m, "K": rows}
    # 100 sub-group stores × rows a compute unit at width 4, 400 × rows at width 1
    recs = [record(point("other", 16, 1), sizes, 300e-6, vid="o1"),
            record(point("self", 16, 1), sizes, 300e-6 + 400 * rows * 12e-9, vid="s1"),
            record(point("other", 16, 4), sizes, 250e-6, vid="o4"),
            record(point("self", 16, 4), sizes, 250e-6 + 100 * rows * 14e-9, vid="s4"),
            # rows on a line: the in-place loop is as fast as the copy (no wait, not negative)
            record(point("other", 0, 1), sizes, 300e-6, vid="a1"),
            record(point("self", 0, 1), sizes, 299e-6, vid="b1"),
            record(point("self", 16, 1), sizes, 1e-9, status="wrong_answer", vid="bad")]
    result = get_analysis("store_reload")(recs, DEVICE, 2e9)
    wait, cases = result.characteristics
    assert wait.name == "store_reload_s"
    assert wait.value == pytest.approx(13e-9)  # the median of 12 and 14 ns
    assert {(c["offset_bytes"], c["vector_width"]): c["store_reload_s"] for c in cases.value} \
        == {(0, 1): 0.0, (64, 1): pytest.approx(12e-9), (64, 4): pytest.approx(14e-9)}
    assert any("offset=64 B, vector_width=1" in n and "12.00 ns a store, 24 cycles" in n
               for n in result.notes)


def test_no_pair_off_the_line_no_figure():
    sizes = {"m": 132 * 32, "K": 8}
    recs = [record(point("other", 0, 1), sizes, 1e-4), record(point("self", 0, 1), sizes, 1e-4),
            record(point("self", 16, 1), sizes, 1e-4)]
    assert get_analysis("store_reload")(recs, DEVICE, None).characteristics == ()


def test_quick_sweep_on_pocl(engine):
    from gencl.generate import generate
    from gencl.measure import run_points

    spec = load_spec("store_reload")
    points = spec.sweep_points(engine.info, quick=True)
    assert {p["target"] for p in points} == {"self", "other"}
    for p in points:  # one rolled loop over the rows, storing where its next pass loads
        source = generate(spec, p).source
        assert source.count("for (int k") == 1 and "opencl_unroll_hint(1)" in source
        assert ("x[" in source.split("=")[-2]) == (p["target"] == "self")
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    result = get_analysis("store_reload")([m.to_json() for m in results],
                                          engine.info.to_json(), None)
    wait, _ = result.characteristics
    assert math.isfinite(wait.value) and wait.value >= 0
