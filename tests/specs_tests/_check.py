"""Check a spec's variants against its numpy reference on PoCL at its verification sizes."""

from __future__ import annotations

import numpy as np

from gencl.generate import GenerationFailure, generate_many
from gencl.measure import verify_variant
from gencl.spec import load_spec


def check_points(engine, spec_name: str, points=None, *, quick: bool = True) -> list[dict]:
    """Every point (default: the quick sweep) builds and matches numpy; returns the points."""
    spec = load_spec(spec_name)
    points = points if points is not None else spec.sweep_points(engine.info, quick=quick)
    points = [spec.complete(p) for p in points]
    assert points, f"{spec_name}: no points"
    rng = np.random.default_rng(7)
    for point, variant in zip(points, generate_many(spec, points)):
        assert not isinstance(variant, GenerationFailure), (point, variant)
        built = engine.build(variant)
        sizes = (spec.verify_sizes(point, engine.info) if spec.verify_sizes
                 else spec.sizes(point, engine.info, True))
        values = spec.inputs(point, sizes, rng)
        err = verify_variant(engine, spec, built, sizes, values)
        assert err <= 1.0, (point, err)
    return points
