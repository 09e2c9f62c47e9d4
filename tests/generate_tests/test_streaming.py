"""Streaming (2.5-D blocking), lane-split vector gathers and written-out sums: what each emits,
and that every variant matches numpy on PoCL at sizes that are and are not multiples of its tile."""

from __future__ import annotations

import dataclasses
import itertools
import re

import numpy as np
import pytest

from gencl.generate import lower
from gencl.generate.knobs import TRANSFORMS
from gencl.measure import verify_variant
from gencl.measure._engine import check_assumptions
from tests.generate_tests._stencils import hand_bound, star_spec


def _body(source: str) -> str:
    return source[source.index("__kernel"):]


def _verify(engine, spec, point, sizes_list):
    variant = lower(spec, point)
    built = engine.build(variant)
    rng = np.random.default_rng(3)
    for sizes in sizes_list:
        assert check_assumptions(variant, sizes) is None, sizes
        err = verify_variant(engine, spec, built, sizes, spec.inputs(point, sizes, rng))
        assert err <= 1.0, (point, sizes, err)
    return variant


def _tile_sizes(point):
    """A size that is a multiple of the work-group's tile along every axis, and one that is
    not (one more plane and row, one more vector)."""
    wx, wy, _ = point["workgroup"]
    w = point["vector_width"]
    tz, ty, tx = point["stream"], wy * point["block"], wx * w
    return [{"nz": 2 * tz, "ny": 2 * ty, "nx": 2 * tx},
            {"nz": 2 * tz + 1, "ny": ty + 1, "nx": tx + w}]


def test_streamed_column_is_read_once_per_plane(engine):
    """With registers, each iteration of the plane loop reads the centre column of ``a`` once
    (the new plane) and keeps the two others in a rotating private buffer."""
    spec = hand_bound()
    point = {"vector_width": 1, "block": 1, "stream": 4, "workgroup": (8, 2, 1)}
    body = _body(_verify(engine, spec, point, _tile_sizes(point)).source)
    assert re.search(r"float a_col\[3\];", body)
    loop = body[body.index("for (int z_stream"):]
    assert loop.count("for (") == 1
    # seven reads of a per point before; in the loop now: one new plane + four in-plane neighbours
    assert len(re.findall(r"\ba\[", loop)) == 5, loop
    assert "a_col[0] = a_col[1];" in loop and "a_col[1] = a_col[2];" in loop
    before = body[:body.index("for (int z_stream")]
    assert len(re.findall(r"a_col\[\d\] = a\[", before)) == 2  # prologue: the chunk's first two


def test_streaming_without_registers_is_a_plain_loop(engine):
    spec = hand_bound()
    t = TRANSFORMS["streaming"].apply(spec.program({}), 4, point={}, iname="z",
                                      registers=False)
    t = TRANSFORMS["workgroup"].apply(t, (8, 2, 1), point={}, inames=("x", "y", "z"))
    knl = t.default_entrypoint
    assert "z_stream" in knl.all_inames() and not knl.temporary_variables
    # the same program through the generator with registers off: right answers
    off = dataclasses.replace(spec, knobs={
        **spec.knobs, "stream": dataclasses.replace(spec.knobs["stream"], options={
            "iname": "z", "registers": False})})
    point = {"vector_width": 2, "block": 2, "stream": 3, "workgroup": (4, 4, 1)}
    body = _body(_verify(engine, off, point, _tile_sizes(point)).source)
    assert "a_col" not in body and "for (int z_stream" in body


@pytest.mark.parametrize("point", [
    dict(zip(("vector_width", "block", "stream", "workgroup"), values))
    for values in [(1, 1, 1, (8, 2, 1)), (2, 2, 3, (8, 2, 1)), (4, 1, 4, (4, 4, 1)),
                   (4, 2, 3, (4, 4, 1)), (2, 1, 4, (8, 2, 1)), (1, 2, 3, (4, 4, 1))]],
    ids=lambda p: "w{vector_width}-b{block}-s{stream}".format(**p))
def test_hand_bound_star_matches_numpy(engine, point):
    _verify(engine, hand_bound(), point, _tile_sizes(point))


def test_sample_covers_every_hand_bound_value():
    spec = hand_bound()
    sampled = [(1, 1, 1, (8, 2, 1)), (2, 2, 3, (8, 2, 1)), (4, 1, 4, (4, 4, 1))]
    for axis, (name, values) in enumerate(spec.axes.items()):
        assert set(values) <= {s[axis] for s in sampled}, name


def test_vector_gathers_keep_the_update_vector_arithmetic(engine):
    """Unaligned neighbours x−1, x+1 come from three aligned vector loads (x−W.., x.., x+W..)
    and one shuffle each; the update itself is one floatW statement."""
    spec = hand_bound()
    point = {"vector_width": 4, "block": 1, "stream": 1, "workgroup": (8, 2, 1)}
    body = _body(_verify(engine, spec, point, _tile_sizes(point)).source)
    assert "__global float4 const *__restrict__ a" in body
    update = [line for line in body.splitlines() if re.search(r"\bb\[.*\] = ", line)]
    assert len(update) == 1 and ".s" not in update[0], update
    shuffles = re.findall(r"a_lane\w* = shuffle2\(a_vec\w*, a_vec\w*, \(uint4\)\(([\d, ]+)\)\);",
                          body)
    assert sorted(shuffles) == ["1, 2, 3, 4", "3, 4, 5, 6"]  # x+1, x−1
    assert len(re.findall(r"a_vec\w* = a\[", body)) == 3
    assert not re.search(r"\ba\[[^\]]*\]\.s\d", body)  # no scalar reads of a at all


def test_streaming_a_radius_loop_written_out(engine):
    """A sum over the radius written out (unroll full) puts the ±2 planes in a five-plane
    buffer indexed by constants, vectorized; without unrolling, the loop form stays right."""
    spec = hand_bound(radius=2, loop=True)
    point = {"unroll": "full", "vector_width": 4, "block": 1, "stream": 3,
             "workgroup": (8, 2, 1)}
    body = _body(_verify(engine, spec, point, _tile_sizes(point)).source)
    assert "for (int d" not in body and re.search(r"float4 a_col\[5\];", body)
    assert not re.search(r"a_col\[[^\]]*d[^\]]*\]", body)  # constant slots only
    loose = {"unroll": "none", "vector_width": 1, "block": 2, "stream": 4,
             "workgroup": (4, 4, 1)}
    body = _body(_verify(engine, spec, loose, _tile_sizes(loose)).source)
    assert "for (int d" in body or "d <=" in body  # the radius loop is still a loop


def test_expanded_sum_has_no_loop_and_every_term():
    from gencl.generate.knobs.unroll import expand_sum

    spec = star_spec(radius=3, loop=True)
    t = expand_sum(spec.program({}), "d")
    knl = t.default_entrypoint
    assert "d" not in knl.all_inames()
    text = str(knl.instructions[0].expression)
    assert "sum" not in text and all(f"w[{d}]" in text for d in (1, 2, 3))


def test_streaming_refuses_an_axis_that_does_not_start_at_zero():
    import loopy as lp

    from gencl.errors import KnobError
    from gencl.generate.knobs.streaming import stream

    t = lp.make_kernel("{[k, i]: 1 <= k < n and 0 <= i < n}", "b[k, i] = a[k - 1, i] + a[k, i]",
                       [lp.GlobalArg("a", np.float32, shape=("n", "n")),
                        lp.GlobalArg("b", np.float32, shape=("n", "n"), is_output=True),
                        lp.ValueArg("n", np.int32)], target=lp.PyOpenCLTarget(),
                       lang_version=(2018, 2))
    with pytest.raises(KnobError, match="start at 0"):
        stream(t, "k", 4)


def test_every_pair_of_stream_and_block_on_the_loop_form(engine):
    """Streaming and register blocking together, scalar, over the radius-2 loop form."""
    spec = hand_bound(radius=2, loop=True)
    for block, chunk in itertools.product((1, 2), (3,)):
        point = {"unroll": "full", "vector_width": 1, "block": block, "stream": chunk,
                 "workgroup": (4, 4, 1)}
        _verify(engine, spec, point, _tile_sizes(point)[1:])


def test_x_only_work_group_sweeps_y_and_z(engine):
    """A 1-D work-group over x: each work item loops over every row y and streams its chunk of
    planes z; the rotating buffer restarts for every row (the loop over y encloses the sweep)."""
    from gencl.spec import Knob

    spec = hand_bound()
    spec = dataclasses.replace(spec, knobs={
        "stream": spec.knobs["stream"],
        "workgroup": Knob("workgroup", ((8,),), {"inames": ("x",)})})
    point = {"stream": 4, "workgroup": (8,)}
    body = _body(_verify(engine, spec, point, [{"nz": 9, "ny": 5, "nx": 16},
                                                {"nz": 8, "ny": 3, "nx": 24}]).source)
    y_loop, sweep = body.index("for (int y"), body.index("for (int z_stream")
    prologue = body.index("a_col[0] = a[")
    assert y_loop < prologue < sweep
