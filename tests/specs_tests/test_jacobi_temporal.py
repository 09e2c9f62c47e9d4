"""tuning/jacobi.py, temporal form: k sweeps per launch on a local tile with a k-wide halo.

Every temporal variant of a small sample (each k, both local forms, several tile shapes, both
dtypes) runs several ping-pong launches on the real PoCL device against numpy applying
launches × k sweeps, at a size that is not a multiple of the tile, one that is, and the
smallest legal size (n = 1). One variant runs under oclgrind once: no race; the same source with
the per-sweep barrier deleted must show a race (the check can fail).
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from gencl.generate import lower
from gencl.measure._engine import check_assumptions
from gencl.measure import verify_variant
from gencl.space import limits_for
from gencl.spec import load_spec

SPEC = load_spec("jacobi")
X = SPEC.extra

POINTS = [SPEC.complete({"boundary": "temporal", "sweeps": k, "workgroup": wg, "local": loc,
                         "dtype": dt})
          for k, wg, loc, dt in [(2, (32, 4), "static", "float32"),
                                 (4, (32, 8), "dynamic", "float32"),
                                 (8, (32, 16), "static", "float32"),
                                 (4, (64, 4), "static", "float64")]]


def test_sample_covers_every_k_and_local_form():
    assert {p["sweeps"] for p in POINTS} == {2, 4, 8}
    assert {p["local"] for p in POINTS} == {"static", "dynamic"}


@pytest.mark.parametrize("point", POINTS, ids=lambda p: SPEC.hooks.variant_name(p) + "-" + "-".join(
    str(p[k]) for k in ("dtype", "workgroup", "local")))
def test_temporal_variant_matches_numpy_over_launches(engine, point):
    assert SPEC.excluded(point, None) is None
    variant = lower(SPEC, point)
    assert variant.codegen_s < 3.0  # < 1 s on an idle core; this machine is shared
    assert variant.source.count("barrier(CLK_LOCAL_MEM_FENCE)") >= 2  # per sweep + before store
    built = engine.build(variant)
    rng = np.random.default_rng(3)
    wx, wy = point["workgroup"]
    for n in (SPEC.verify_sizes(point, None)["n"], 1, 2 * wx):  # partial, smallest, whole tiles
        sizes = {"n": n}
        assert check_assumptions(variant, sizes) is None
        values = SPEC.inputs(point, sizes, rng)
        assert verify_variant(engine, SPEC, built, sizes, values, launches=3) <= 1.0, f"n={n}"


def test_one_launch_is_k_sweeps_not_one(engine):
    """The check can fail: k = 4 output compared with the 1-sweep reference does not pass."""
    point = POINTS[1]
    built = engine.build(lower(SPEC, point))
    sizes = {"n": 40}
    values = SPEC.inputs(point, sizes, np.random.default_rng(0))
    # a spec that takes a launch for one sweep (no steps hook, a one-sweep reference)
    one = dataclasses.replace(SPEC, reference=lambda v, p, s: SPEC.reference(
        v, {**p, "sweeps": 1}, s), hooks=dataclasses.replace(SPEC.hooks, steps=None))
    assert verify_variant(engine, one, built, sizes, values, launches=1) > 1.0
    assert verify_variant(engine, SPEC, built, sizes, values, launches=1) <= 1.0


def test_local_footprint_is_the_generated_variants():
    """The constraint's footprint is what the kernel allocates (static __local arrays)."""
    point = SPEC.complete({"boundary": "temporal", "sweeps": 4, "workgroup": (64, 8),
                           "local": "static"})
    src = lower(SPEC, point).source
    sizes = [int(np.prod([int(d) for d in m.split("*")]))
             for m in re.findall(r"__local float \w+\[([\d\s*]+)\]", src)]
    assert sum(sizes) * 4 == X["local_bytes"](point)


def test_temporal_space_on_an_h200_is_small_and_fits():
    limits = limits_for("nvidia")
    points = list(SPEC.points(limits))
    temporal = [p for p in points if p["boundary"] == "temporal"]
    f32 = [p for p in points if p["dtype"] == "float32"]  # `gencl space jacobi` measures one dtype
    assert 20 <= len(temporal) <= 80 and len(f32) <= 2500
    assert all(X["local_bytes"](p) <= 48 * 1024 for p in temporal)
    assert all(p["sweeps"] == 1 for p in points if p["boundary"] != "temporal")
    big = SPEC.complete({"boundary": "temporal", "sweeps": 8, "workgroup": (128, 4),
                         "local": "static", "dtype": "float64"})
    assert "local memory" in SPEC.excluded(big, limits)


def test_metrics_count_k_sweeps():
    point = SPEC.complete(SPEC.hooks.variants["TB4"])
    assert SPEC.metrics["bytes"](point, {"n": 10}) == 4 * 12 * 100
    assert SPEC.metrics["points"](point, {"n": 10}) == 400


def test_no_race_under_oclgrind_and_a_missing_barrier_is_one():
    from gencl.verify._oclgrind import run_under_oclgrind

    point = SPEC.complete({"boundary": "temporal", "sweeps": 2, "workgroup": (32, 4),
                           "local": "static"})
    good = lower(SPEC, point)
    line = re.compile(r".*barrier\(CLK_LOCAL_MEM_FENCE\) /\* Barrier inserted due to "
                      r"sweep_barrier \*/;\n")
    assert line.search(good.source)
    bad = dataclasses.replace(good, id=good.id + "-nobarrier", source=line.sub("", good.source))
    results = run_under_oclgrind(SPEC.path, [good, bad])
    ok, broken = results[good.id], results[bad.id]
    assert ok["ran"] and ok["matched"] and not ok["findings"], ok
    assert any(f["kind"] == "race" for f in broken["findings"]), broken
