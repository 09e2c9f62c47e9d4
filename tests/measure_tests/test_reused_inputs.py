"""Timing inputs drawn once for the points that draw the same data; early stop of sampling."""

from __future__ import annotations

import math

import numpy as np

from gencl.generate import lower
from gencl.measure import OpenCLEngine, ReusedInputs
from gencl.spec import load_spec


def _copy_point(spec, **fields):
    return spec.complete({"dtype": "float32", "reads": 4, "vector_width": 1, "loop": "constant",
                          "unroll": "full", "workgroup": 64, **fields})


def test_points_drawing_the_same_data_share_the_draw_and_its_buffers(engine):
    spec = load_spec("copy")
    timing = ReusedInputs(spec)
    sizes = {"n": 64 * 4 * 16, "R": 4}
    try:
        built = engine.build(lower(spec, _copy_point(spec)))
        first = timing.bind(engine, built, sizes, None)
        src = first.arg_sets[0][0]
        drawn = timing.draw(built.variant.point, sizes)["src"]
        timing.done(first)
        # another loop kind and vector width: copy's inputs read only the dtype and the sizes
        other = engine.build(lower(spec, _copy_point(spec, vector_width=4, loop="dynamic",
                                                     unroll="none")))
        second = timing.bind(engine, other, sizes, None)
        assert second.arg_sets[0][0] is src  # the same device buffer, not uploaded again
        assert timing.draw(other.variant.point, sizes)["src"] is drawn
        timing.done(second)
        # another dtype reads other data: drawn again, as a fresh draw of that point would be
        ints = engine.build(lower(spec, _copy_point(spec, dtype="int16")))
        third = timing.bind(engine, ints, sizes, None)
        assert third.arg_sets[0][0] is not src
        fresh = spec.inputs(ints.variant.point, sizes, np.random.default_rng(0))["src"]
        assert np.array_equal(timing.draw(ints.variant.point, sizes)["src"], fresh)
        timing.done(third)
    finally:
        timing.release()


def test_early_stop_keeps_at_least_the_minimum_and_never_exceeds_repeats():
    spec = load_spec("copy")
    # any spread stops early; one attempt: a wide spread on a busy CI host must not re-measure
    eng = OpenCLEngine(repeats=12, stop_rel_ci=math.inf, min_repeats=4, max_attempts=1)
    built = eng.build(lower(spec, _copy_point(spec)))
    timing = ReusedInputs(spec)
    try:
        bound = timing.bind(eng, built, {"n": 64 * 4 * 16, "R": 4}, None)
        assert len(eng.time(built, bound)["samples_s"]) == 4
        eng.stop_rel_ci = -1.0  # no spread is that tight: every repeat is taken
        assert len(eng.time(built, bound)["samples_s"]) == 12
        timing.done(bound)
    finally:
        timing.release()
