"""runtime_overhead: the runner compiles unique sources and launches the verified empty kernel;
the analysis turns it into compile_time_s_per_kloc and launch overheads."""

from __future__ import annotations

import pytest

from gencl.characterize import get_analysis
from gencl.characterize.runtime import compile_slope
from gencl.measure import run_points
from gencl.spec import load_spec


def test_runner_on_pocl(engine):
    spec = load_spec("runtime_overhead")
    results = run_points(spec, spec.sweep_points(engine.info, quick=True), engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    lines = [m.extra["source_lines"] for m in results if m.point["test"] == "compile"]
    assert lines[1] > lines[0] + 100  # 128 unrolled terms make a longer source
    result = get_analysis("runtime_overhead")([m.to_json() for m in results],
                                              engine.info.to_json(), None)
    chars = {c.name: c.value for c in result.characteristics}
    assert 0 < chars["launch_overhead_s"] < 0.1
    assert "compile_time_s_per_kloc" in chars
    # one-at-a-time launches: bursts spread in time, the figure is the quietest burst's median
    for m in results:
        if m.point["test"] in ("launch_queued_to_start", "launch_roundtrip"):
            medians = m.extra["burst_medians_s"]
            assert len(medians) == 8 and len(m.samples_s) == m.extra["burst_launches"]
            assert m.median_s == pytest.approx(min(medians))
            assert chars[{"launch_roundtrip": "launch_roundtrip_s"}.get(
                m.point["test"], "launch_queued_to_start_s")] == pytest.approx(min(medians))


def test_compile_slope_known_line():
    slope, intercept = compile_slope([100, 1100, 2100], [0.2 + 0.5 * k for k in (0.1, 1.1, 2.1)])
    assert slope == pytest.approx(0.5) and intercept == pytest.approx(0.2)
