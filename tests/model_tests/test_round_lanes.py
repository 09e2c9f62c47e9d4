"""On a CPU runtime a load round serves a vector of scalar items at once (``round_lanes``):
the memory-latency term of the real generator's Jacobi rows against that closed form."""

from __future__ import annotations

import dataclasses

import pytest

from gencl.model import compute_stats, params_from, predict
from gencl.model._predict import round_lanes

CPU = {"name": "cpu", "device_type": "CPU", "compute_units": 2, "max_clock_hz": 2.6e9}
GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32}


def _jacobi(vector_width):
    from gencl.api import load
    from gencl.generate import transform_program

    spec = load("tuning/jacobi.py")
    point = spec.complete({"boundary": "padded", "vector_width": vector_width,
                           "workgroup": (32, 4)})
    return compute_stats(transform_program(spec, point), {"n": 512}, subgroup_size=16)


def test_scalar_items_run_as_lanes_share_a_round_a_vector():
    cpu = params_from({}, CPU)
    scalar = _jacobi(1)
    # 64-byte vectors of 4-byte floats: 16 items a round
    assert cpu.lane_access_bytes == 64 and round_lanes(scalar, cpu) == 16
    # the build ran them one at a time (its machine code said so): a round each
    alone = dataclasses.replace(scalar, extra={**scalar.extra, "items_as_lanes": False})
    assert round_lanes(alone, cpu) == 1
    lanes, serial = (predict(s, cpu).terms["memory_latency"] for s in (scalar, alone))
    assert serial > 0 and lanes == pytest.approx(serial / 16)
    # float4 items and any GPU: a round an item (a GPU's Little's law prices its waves)
    assert round_lanes(_jacobi(4), cpu) == 1
    assert round_lanes(scalar, params_from({}, GPU)) == 1
