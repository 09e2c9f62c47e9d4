"""Series shapes the report draws, and the shapes it skips (pure: no device)."""

from __future__ import annotations

import pytest

from gencl.profile._plots import plot_series, plottable, section_of

META = {"device": "dev", "driver": "drv", "clock": "1 MHz", "date": "today", "version": "0"}


@pytest.mark.parametrize("series", [
    {"x": [1, 2, 4], "y": [1.0, 2.0, 2.5], "xlabel": "work items", "ylabel": "GFLOP/s",
     "xscale": "log", "hlines": {"peak": 2.5}},
    {"x": [1, 2, 4], "y": {"ilp1": [1, 2, 3], "ilp2": [2, 3, 4]}},
    {"lines": {"1B": {"x": [1, 2], "y": [3, 4]}, "4B": {"x": [1, 2], "y": [5, 6]}}},
    {"kind": "bar", "labels": ["float", "float2", "float4"], "values": [1, 2, 3]},
    {"z": [[1, 2], [3, 4]], "x": [0, 1], "y": ["a", "b"], "zlabel": "slowdown"},
])
def test_documented_shapes_are_drawn(tmp_path, series):
    assert plottable(series)
    path = tmp_path / "p.png"
    assert plot_series("s", series, path, META, title="t")
    assert path.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("series", [{"x": [1, 2], "y": [1]}, {"z": [[1], [1, 2]]}, [1, 2], {}])
def test_other_shapes_are_skipped(tmp_path, series):
    assert not plottable(series)
    assert not plot_series("s", series, tmp_path / "p.png", META, title="t")
    assert not (tmp_path / "p.png").exists()


def test_sections_by_name_then_analysis():
    assert section_of("latency_staircase", "random_walk") == "latency"
    assert section_of("curve", "occupancy") == "occupancy_roofline"
    assert section_of("whatever", None) == "other"
