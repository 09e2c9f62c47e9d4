"""tuning/jacobi.py: every knob value and every named variant against numpy over ping-pong sweeps.

A sample of the space (each knob value at least once, plus seed 003's hand variants) runs on the
real PoCL device at three sizes: one that is not a multiple of the tile, one that is, and the
smallest legal size. The full space is `gencl verify`'s job.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from gencl.generate import lower
from gencl.measure._engine import check_assumptions
from gencl.measure import verify_variant
from gencl.space import limits_for
from gencl.spec import load_spec

SPEC = load_spec("jacobi")
X = SPEC.extra


def _sample() -> list[dict]:
    axes = SPEC.axes
    points = [SPEC.complete(v) for v in SPEC.hooks.variants.values()]
    for k, wg in enumerate(axes["workgroup"]):
        p = SPEC.complete({
            "workgroup": wg, "dtype": axes["dtype"][k % 2], "boundary": axes["boundary"][k % 2],
            "vector_width": axes["vector_width"][(k // 2) % 4], "block_x": axes["block_x"][k % 3],
            "block_y": axes["block_y"][(k // 3) % 3], "local": axes["local"][k % 3]})
        if p["local"] != "none":
            p.update(boundary="padded", vector_width=1)
        points.append(p)
    return points


POINTS = _sample()


#: the temporal axes' values are tests/generate_tests/test_temporal.py's
TEMPORAL = ("temporal", "sweeps", "temporal_points")


def test_sample_covers_every_knob_value():
    for name, values in SPEC.axes.items():
        if name in TEMPORAL:
            continue
        seen = {p[name] for p in POINTS}
        assert set(values) <= seen, f"{name}: {set(values) - seen} never sampled"


def _sizes(point):
    tx, ty = X["tile"](point)
    w = point["vector_width"]
    sizes = [SPEC.verify_sizes(point, None)["n"], w]  # partial tile; smallest legal size
    whole = math.lcm(tx, ty)
    if whole <= 512:
        sizes.append(whole)  # a multiple of the tile in both directions
    return sizes


@pytest.mark.parametrize("point", POINTS, ids=lambda p: SPEC.hooks.variant_name(p) + "-" + "-".join(
    str(p[k]) for k in ("dtype", "workgroup", "block_x", "block_y")))
def test_variant_matches_numpy_over_sweeps(engine, point):
    assert SPEC.excluded(point, None) is None  # device limits do not apply at test sizes
    variant = lower(SPEC, point)
    built = engine.build(variant)
    rng = np.random.default_rng(7)
    for n in _sizes(point):
        sizes = {"n": n}
        assert check_assumptions(variant, sizes) is None
        values = SPEC.inputs(point, sizes, rng)
        assert verify_variant(engine, SPEC, built, sizes, values, launches=3) <= 1.0, f"n={n}"


def test_wrong_coefficient_is_caught(engine):
    """The check can fail: a sweep run with another ω does not pass as the reference."""
    point = SPEC.complete(SPEC.hooks.variants["vec4_BE"])
    built = engine.build(lower(SPEC, point))
    sizes = {"n": 36}
    values = SPEC.inputs(point, sizes, np.random.default_rng(0))
    values["omega"] = np.float32(0.7)
    expected_values = {**values, "omega": np.float32(0.8)}
    assert verify_variant(engine, SPEC, built, sizes, expected_values, launches=2) <= 1.0
    assert verify_variant(engine, SPEC, built, sizes, values, launches=2) <= 1.0  # its own ω
    wrong = dataclasses.replace(SPEC, reference=lambda v, p, s: SPEC.reference(
        {**v, "omega": np.float32(0.8)}, p, s))
    assert verify_variant(engine, wrong, built, sizes, values, launches=2) > 1.0


def test_reference_sweep_is_the_formula():
    point = SPEC.complete({})
    u, f = np.random.default_rng(1).uniform(-1, 1, (2, 6, 6))
    new = SPEC.reference(
        {"u": _layout(u, point), "f": _layout(f, point), "omega": 0.8,
         "h2": 1 / 16}, point, {"n": 4})["u_new"]
    got = X["grid"](new, point, 4)
    i, j = 2, 3
    want = 0.2 * u[i, j] + 0.2 * (u[i, j - 1] + u[i, j + 1] + u[i - 1, j] + u[i + 1, j]
                                  + f[i, j] / 16)
    assert got[i, j] == pytest.approx(want)
    assert np.array_equal(got[0], u[0]) and np.array_equal(got[:, -1], u[:, -1])  # Dirichlet


def _layout(grid, point):
    cols = grid.shape[1] - 2 + (16 if point["boundary"] == "branch" else 32)
    out = np.full((grid.shape[0], cols), np.nan)
    c = 0 if point["boundary"] == "branch" else 15
    out[:, c:c + grid.shape[1]] = grid
    return out


def test_size_not_a_multiple_of_the_vector_is_invalid():
    variant = lower(SPEC, SPEC.complete(SPEC.hooks.variants["vec8_BE"]))
    assert "violate" in check_assumptions(variant, {"n": 12})


def test_space_on_an_h200_has_over_a_thousand_points_within_limits(jacobi_h200_space):
    limits = limits_for("nvidia")
    points = list(jacobi_h200_space)  # SPEC.points(limits), walked once (conftest)
    assert len([p for p in points if p["dtype"] == "float32"]) >= 1000
    assert all(X["local_bytes"](p) <= 48 * 1024 for p in points)
    big = SPEC.complete({"boundary": "padded", "local": "static", "workgroup": (256, 4),
                         "block_x": 4, "block_y": 4, "dtype": "float64"})
    assert "local memory" in SPEC.excluded(big, limits)
