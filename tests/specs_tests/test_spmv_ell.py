"""spmv_ell: the matrix is the wrapped grid's 7-point one, and every variant of its space
matches numpy on PoCL (random values and x; the padding slot's zeros only)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gencl.generate import lower
from gencl.measure import verify_variant
from gencl.spec import load_spec


def test_each_row_holds_its_seven_neighbours_and_a_padding_slot():
    spec = load_spec("spmv_ell")
    sizes = spec.verify_sizes(spec.complete({}), None)
    values = spec.inputs(spec.complete({}), sizes, np.random.default_rng(0))
    n, nx, plane = sizes["n"], sizes["nx"], sizes["ny"] * sizes["nx"]
    i = 2 * plane + 3 * nx + 7  # an interior point of the 4 × 8 × 64 grid
    assert sorted(values["col"][:, i]) == sorted([i, i, i - 1, i + 1, i - nx, i + nx,
                                                  i - plane, i + plane])
    assert (values["col"] >= 0).all() and (values["col"] < n).all()
    assert (values["val"][-1] == 0).all() and (values["val"][:-1] != 0).all()


SPACE = [dict(zip(("workgroup", "unroll"), p))
         for p in itertools.product((128, 64, 256, 512), ("none", 2, 4, "full"))]


@pytest.mark.parametrize("point", SPACE, ids=[f"{p['workgroup']}-{p['unroll']}" for p in SPACE])
def test_variant_matches_numpy(engine, point):
    spec = load_spec("spmv_ell")
    point = spec.complete(point)
    built = engine.build(lower(spec, point))
    sizes = spec.verify_sizes(point, engine.info)
    err = verify_variant(engine, spec, built, sizes,
                         spec.inputs(point, sizes, np.random.default_rng(7)))
    assert err <= 1.0
