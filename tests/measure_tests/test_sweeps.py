"""Per-sweep figures of a measured record: time, effective bandwidth against the copy
bandwidth, and the on-chip cost from the transform's traffic (hand-made traffic dicts)."""

from __future__ import annotations

import pytest

from gencl.measure._sweeps import (
    grid_points, one_sweep_form, sweep_figures, temporal_traffic, time_per_sweep)
from gencl.spec import load_spec

SPEC = load_spec("jacobi")
TB4 = SPEC.complete({**SPEC.hooks.variants["TB4"], "workgroup": (32, 4)})
N = 256
TRAFFIC = {"global_read_bytes": 3.0e6, "global_write_bytes": 1.0e6, "point_updates": 4 * N * N
           * 1.25, "local_read_bytes": 8.0e6, "local_write_bytes": 2.0e6, "barriers_per_group": 9}


def _record(point, median_s):
    return {"point": point, "sizes": {"n": N}, "status": "ok", "median_s": median_s}


def test_a_launch_of_k_sweeps_counts_one_sweeps_compulsory_bytes_per_sweep():
    r = _record(TB4, 4e-3)
    f = sweep_figures(SPEC, r, copy_bw=1e9, traffic={})
    assert f["steps"] == 4 and f["time_per_sweep_s"] == time_per_sweep(SPEC, r) == 1e-3
    assert f["compulsory_bytes_per_sweep"] == 3 * 4 * N * N  # read u, f, write u_new once
    assert f["effective_bw_Bps"] == pytest.approx(3 * 4 * N * N / 1e-3)
    assert f["effective_over_copy"] == pytest.approx(3 * 4 * N * N / 1e-3 / 1e9)
    assert "local_bytes_per_sweep" not in f  # no traffic reported: no on-chip figures
    plain = sweep_figures(SPEC, _record(one_sweep_form(TB4), 1e-3), copy_bw=1e9, traffic={})
    assert plain["effective_bw_Bps"] == f["effective_bw_Bps"]  # same time per sweep, same rate


def test_on_chip_figures_are_the_traffic_per_sweep_over_the_time_per_sweep():
    f = sweep_figures(SPEC, _record(TB4, 4e-3), traffic=TRAFFIC, grid=N * N)
    assert f["global_bytes_per_sweep"] == pytest.approx(4.0e6 / 4)
    assert f["local_bytes_per_sweep"] == pytest.approx(10.0e6 / 4)
    assert f["local_bw_Bps"] == pytest.approx(10.0e6 / 4 / 1e-3)
    assert f["barriers_per_group_per_sweep"] == pytest.approx(9 / 4)
    assert f["redundant_updates_pct"] == pytest.approx(25.0)


def test_the_grid_is_read_off_the_program_and_no_scheme_means_no_traffic():
    plain = SPEC.complete(SPEC.hooks.variants["BE"])
    assert grid_points(SPEC, plain, {"n": 37}) == 37 * 37
    assert temporal_traffic(SPEC, plain, {"n": 37}) is None
    assert temporal_traffic(SPEC, {**plain, "temporal": "none"}, {"n": 37}) is None
    assert one_sweep_form({"temporal": "tile", "sweeps": 4, "x": 1}) == \
        {"temporal": "none", "sweeps": 1, "x": 1}
