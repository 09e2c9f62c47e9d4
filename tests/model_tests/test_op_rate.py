"""Which of loopy's function calls the compute term prices at the special functions' rate: min,
max, absolute value and sign are one arithmetic instruction on GPUs and CPUs (upwind2d's fmax and
fmin), a transcendental is not."""

from __future__ import annotations

import loopy as lp
import numpy as np
import pytest

from gencl.model import compute_stats, params_from
from gencl.model._predict import compute_time
from gencl.model._vector_rate import op_rate

CPU = {"name": "cpu", "device_type": "CPU", "compute_units": 2, "max_clock_hz": 3e9}
N = 1 << 16


def _program(expression: str):
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}", f"y[i] = {expression}",
        [lp.GlobalArg("x", np.float32, shape=("n",)), lp.GlobalArg("y", np.float32, shape=("n",)),
         lp.ValueArg("n", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return lp.split_iname(knl, "i", 64, outer_tag="g.0", inner_tag="l.0")


@pytest.mark.parametrize("function", ["fmax", "fmin"])
def test_min_and_max_are_priced_as_arithmetic(function):
    p = params_from({"sp_madd_peak_flops": 1e11, "native_sf_peak_ops": 1e9}, CPU)
    stats = compute_stats(_program(f"{function}(x[i], 0.0f)"), {"n": N}, subgroup_size=8)
    assert stats.ops == {f"float32:func:{function}": N}
    # one lane operation a point at the arithmetic rate (the peak counts a madd as 2 FLOP)
    assert compute_time(stats, p) == pytest.approx(N / (1e11 / 2))


def test_a_transcendental_is_priced_at_the_special_functions_rate():
    p = params_from({"sp_madd_peak_flops": 1e11, "native_sf_peak_ops": 1e9}, CPU)
    stats = compute_stats(_program("exp(x[i])"), {"n": N}, subgroup_size=8)
    assert stats.ops == {"float32:func:exp": N}
    assert compute_time(stats, p) == pytest.approx(N / 1e9)


@pytest.mark.parametrize("key, special", [
    ("float32:func:fabs", False), ("float64:func:fmax", False), ("float32:func:copysign", False),
    ("float32:func:sqrt", True), ("float32:func:sin", True), ("float32:div", True),
])
def test_op_rate_by_function(key, special):
    p = params_from({"sp_madd_peak_flops": 1e11, "dp_peak_flops": 5e10,
                     "native_sf_peak_ops": 1e9}, CPU)
    assert (op_rate(key, p) == p.sf_ops) == special


@pytest.mark.parametrize("expression, ops", [
    # loopy's code generator writes a square x * x and drops x**1; its op counter calls every
    # power "pow", which the special functions' rate would price
    ("(x[i] - 1.0f)**2", {"float32:add": N, "float32:mul": N}),
    ("(x[i] + 1.0f)**2 * x[i]**1", {"float32:add": N, "float32:mul": 2 * N}),
    # other powers stay calls (loopy_pow_ or pow): priced as special functions
    ("(x[i] + 1.0f)**3", {"float32:add": N, "float32:pow": N}),
    ("x[i]**2 + x[i]**0.5f", {"float32:add": N, "float32:mul": N, "float32:pow": N}),
])
def test_a_square_is_one_multiplication(expression, ops):
    p = params_from({"sp_madd_peak_flops": 1e11, "native_sf_peak_ops": 1e9}, CPU)
    stats = compute_stats(_program(expression), {"n": N}, subgroup_size=8)
    assert stats.ops == ops
    powers = ops.get("float32:pow", 0)
    arithmetic = max(ops["float32:add"], ops.get("float32:mul", 0))  # a mul feeding an add
    assert compute_time(stats, p) == pytest.approx(arithmetic / (1e11 / 2) + powers / 1e9)
