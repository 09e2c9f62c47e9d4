"""The solver: n sweeps of a point of k sweeps per launch = n // k launches of it + n % k launches
of its single-sweep point, ping-ponged; checked against n sweeps of numpy on random data."""

from __future__ import annotations

import numpy as np
import pytest

import gencl
from gencl.errors import GenclError
from gencl.measure import reference_after
from gencl.measure._solve import solve_on
from gencl.measure._sweeps import single_sweep_point
from gencl.spec import load_spec, steps_per_launch

SPEC = load_spec("jacobi")
#: today's temporal point of k = 2 (the spec's named variant TB2, k from its steps hook)
TB2 = SPEC.complete({**SPEC.hooks.variants["TB2"], "workgroup": (32, 4)})
SIZES = {"n": 37}  # not a multiple of the tile


def _numpy_sweeps(point, values, sweeps):
    single = single_sweep_point(SPEC, point)
    return reference_after(SPEC, values, single, SIZES, sweeps)["u_new"]


def _interior(buf):
    grid = SPEC.extra["grid"](buf, TB2, SIZES["n"])
    return grid.astype(np.float64)


def test_single_sweep_point_is_the_nearest_one_sweep_point_of_the_same_layout():
    single = single_sweep_point(SPEC, TB2)
    assert steps_per_launch(SPEC, TB2) == 2 and steps_per_launch(SPEC, single) == 1
    assert SPEC.excluded(single, None) is None
    differ = {k for k in TB2 if TB2[k] != single[k]}
    assert differ == {"temporal", "sweeps", "temporal_points"}  # work-group, dtype, layout kept
    plain = SPEC.complete(SPEC.hooks.variants["BE"])
    assert single_sweep_point(SPEC, plain) == plain


@pytest.mark.parametrize("sweeps", [7, 1, 0])
def test_remainder_sweeps_run_single_sweep_launches(engine, sweeps):
    """7 = 3 launches of k = 2 + 1 single sweep; 1 < k: single sweeps only; 0: the input."""
    values = SPEC.inputs(TB2, SIZES, np.random.default_rng(5))
    got = solve_on(engine, SPEC, TB2, sweeps, SIZES, values)["u_new"]
    want = _numpy_sweeps(TB2, values, sweeps) if sweeps else values["u"]
    assert np.allclose(_interior(got), _interior(want), rtol=0, atol=1e-5 * max(sweeps, 1))
    if sweeps > 1:  # the check can fail: one sweep fewer is another answer
        fewer = _numpy_sweeps(TB2, values, sweeps - 1)
        assert not np.allclose(_interior(got), _interior(fewer), rtol=0, atol=1e-3)


def test_api_solve_on_a_device_by_name():
    out = gencl.solve("jacobi", TB2, 5, device="pocl", sizes={"n": 20}, seed=1)
    values = SPEC.inputs(TB2, {"n": 20}, np.random.default_rng(1))
    want = reference_after(SPEC, values, single_sweep_point(SPEC, TB2), {"n": 20}, 5)["u_new"]
    grid = SPEC.extra["grid"]
    assert np.allclose(grid(out["u_new"], TB2, 20), grid(want, TB2, 20), atol=5e-5)


def test_a_kernel_without_ping_pong_cannot_be_solved(engine):
    spec = load_spec("copy")
    point = spec.complete({})
    with pytest.raises(GenclError, match="ping_pong"):
        solve_on(engine, spec, point, 3, {}, {})
