"""spmv_ell: the matrix is the wrapped grid's 7-point one (or the diagonal and random columns,
anywhere or near the diagonal),
every variant of its space matches numpy on PoCL (random values and x; the padding slot's zeros
only), and the hand-written OpenCL peer runs there while the CUDA ones say why they cannot."""

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


def test_random_rows_hold_the_diagonal_and_columns_anywhere():
    spec = load_spec("spmv_ell")
    point = spec.complete({"pattern": "random"})
    sizes = spec.verify_sizes(point, None)
    col = spec.inputs(point, sizes, np.random.default_rng(0))["col"]
    n = sizes["n"]
    assert (col[0] == np.arange(n)).all() and (col[-1] == np.arange(n)).all()
    # the drawn columns spread over the whole vector, not near the diagonal
    assert np.abs(col[1:-1].astype(np.int64) - np.arange(n)).mean() > n / 4


def test_window_rows_hold_the_diagonal_and_columns_near_it():
    spec = load_spec("spmv_ell")
    window = 1024  # the spec's WINDOWS["window"]
    n, ny, nx = 8 * 16 * 128, 16, 128  # its quick grid, 8 windows long
    col = spec.inputs(spec.complete({"pattern": "window"}), {"n": n, "ny": ny, "nx": nx},
                      np.random.default_rng(0))["col"]
    i = np.arange(n)
    assert (col[0] == i).all() and (col[-1] == i).all()
    # wrapped distance to the diagonal: within the window, and spread over all of it
    away = (col[1:-1].astype(np.int64) - i) % n
    away = np.minimum(away, n - away)
    assert away.max() == window and away.mean() > window / 3


SPACE = [dict(zip(("pattern", "workgroup", "unroll"), p))
         for p in itertools.product(("stencil", "random", "window", "wide"), (128, 64, 256, 512),
                                    ("none", 2, 4, "full"))]


@pytest.mark.parametrize("point", SPACE, ids=["-".join(map(str, p.values())) for p in SPACE])
def test_variant_matches_numpy(engine, point):
    spec = load_spec("spmv_ell")
    point = spec.complete(point)
    built = engine.build(lower(spec, point))
    sizes = spec.verify_sizes(point, engine.info)
    err = verify_variant(engine, spec, built, sizes,
                         spec.inputs(point, sizes, np.random.default_rng(7)))
    assert err <= 1.0


def test_peers_on_the_cpu(engine):
    from gencl.peers import PeerContext, PeerUnavailable

    spec = load_spec("spmv_ell")
    point = spec.complete({"pattern": "random"})
    sizes = spec.verify_sizes(point, engine.info)
    ctx = PeerContext(spec, point, sizes, spec.inputs(point, sizes, np.random.default_rng(3)),
                      engine, repeats=3)
    assert spec.hooks.peers["hand_opencl"](ctx) > 0  # checked against numpy, then timed
    for name in ("cuda_naive", "cusparse_csr"):
        with pytest.raises(PeerUnavailable):
            spec.hooks.peers[name](ctx)
