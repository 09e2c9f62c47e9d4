"""Timing inputs drawn once for the points that draw the same data; early stop of sampling."""

from __future__ import annotations

import math

import numpy as np

from gencl.generate import lower
from gencl.measure import OpenCLEngine, ReusedInputs
from gencl.measure._inputs import draw_inputs
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


def test_the_checks_draw_is_the_timing_draw_when_the_sizes_it_read_agree(engine):
    # a walk's check runs 200 steps, its timing thousands: the ring (n, granule) is the same
    spec = load_spec("random_walk")
    point = spec.complete({"memory": "global", "pattern": "random", "footprint": 1 << 16,
                           "spacing": 128})
    timing_sizes = spec.sizes(point, engine.info, True)
    check_sizes = spec.verify_sizes(point, engine.info)
    assert check_sizes["K"] != timing_sizes["K"]
    check = draw_inputs(spec, point, check_sizes)
    assert check.matches(point, timing_sizes)
    assert not check.matches(point, {**timing_sizes, "n": timing_sizes["n"] // 2})
    built = engine.build(lower(spec, point))
    timing = ReusedInputs(spec)
    try:
        bound = timing.bind(engine, built, timing_sizes, check)
        assert timing.draw(point, timing_sizes)["nxt"] is check.values["nxt"]
        timing.done(bound)
        # a draw that read other sizes is not taken: drawn again, equal to a fresh draw
        other = {**timing_sizes, "n": timing_sizes["n"] // 2}
        half = point | {"footprint": 1 << 15}
        bound = timing.bind(engine, engine.build(lower(spec, half)), other, check)
        again = timing.draw(half, other)["nxt"]
        assert again is not check.values["nxt"]
        assert np.array_equal(again, spec.inputs(half, other, np.random.default_rng(0))["nxt"])
        timing.done(bound)
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


def test_shared_buffers_are_drawn_again_where_a_parameter_changes_the_data(engine):
    """A space's shared timing buffers (gencl space) serve every variant of one layout, but
    spmv_ell's sparsity pattern changes the data and not the layout: a point of the other
    pattern gets its own columns, uploaded anew (before, it was timed on the first one's)."""
    import pyopencl as cl

    from gencl.measure import SharedInputs

    spec = load_spec("spmv_ell")
    shared = SharedInputs(spec)
    sizes = spec.sizes(spec.complete({}), engine.info, True)

    def columns(pattern, workgroup):
        built = engine.build(lower(spec, spec.complete({"pattern": pattern,
                                                        "workgroup": workgroup})))
        bound = shared.bind(engine, built, sizes)
        names = [a.name for a in built.variant.args]
        buf = bound.arg_sets[0][names.index("col")]
        host = np.empty(spec.inputs(built.variant.point, sizes,
                                    np.random.default_rng(0))["col"].size, np.int32)
        cl.enqueue_copy(engine.queue, host, buf)
        return buf, host

    try:
        stencil, stencil_cols = columns("stencil", 64)
        again, _ = columns("stencil", 128)  # another work-group: the same buffers
        assert again is stencil
        _, random_cols = columns("random", 64)
        want = spec.inputs(spec.complete({"pattern": "random"}), sizes,
                           np.random.default_rng(0))["col"].ravel()
        assert np.array_equal(random_cols, want)
        assert not np.array_equal(random_cols, stencil_cols)
    finally:
        shared.release()
