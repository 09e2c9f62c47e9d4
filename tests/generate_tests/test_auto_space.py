"""The automatic space: what the analysis reads off a program, the axes and constraints derived
from it, the loader's use of it, and a user's knob-less spec running on PoCL."""

from __future__ import annotations

import dataclasses
import re
import textwrap

import loopy as lp
import numpy as np
import pytest

from gencl.generate import analyse_program, derive_space, describe_space, lower, with_derived_space
from gencl.generate._auto_space import local_tile_bytes, tile
from gencl.measure import verify_variant
from gencl.space import DeviceLimits, limits_for
from gencl.spec import ApplicationHooks, load_spec
from tests.generate_tests._stencils import star_spec

H200 = limits_for("nvidia")


def test_analysis_reads_axes_halo_and_vector_layout():
    st = analyse_program(load_spec("laplace3d").program({"dtype": "float32"}))
    assert [a.iname for a in st.axes] == ["k", "j", "i"]  # outermost first, contiguous last
    assert [a.param for a in st.axes] == ["nz", "ny", "nx"]
    assert all(a.halo == (-1, 1) for a in st.axes)
    assert st.output == "u_new" and st.reads == ("u",) and st.tile_array == "u"
    assert set(st.vector_arrays) == {"u", "u_new"} and {2, 4, 8} <= set(st.vector_widths)
    assert st.short_loops == () and st.itemsize == 4


def test_analysis_of_a_radius_loop():
    st = analyse_program(load_spec("star3d_r4").program({"dtype": "float64"}))
    assert all(a.halo == (-4, 4) for a in st.axes)
    assert st.short_loops == (("s", 4),)
    assert st.stream_loops == ("s",) and st.vector_loops == ("s",)
    assert st.halos["c"] == ((0, 0), (0, 0), (0, 0)) and st.tile_array == "u"
    assert st.itemsize == 8


def test_unaligned_layout_gets_no_vector_axis():
    """Interior rows that start at an odd column cannot keep whole vectors aligned."""
    t = lp.make_kernel("{[j, i]: 0 <= j < n and 0 <= i < n}",
                       "b[j + 1, i + 1] = a[j, i + 1] + a[j + 2, i + 1] + a[j + 1, i] "
                       "+ a[j + 1, i + 2]",
                       [lp.GlobalArg("a", np.float32, shape=("n + 2", "n + 2")),
                        lp.GlobalArg("b", np.float32, shape=("n + 2", "n + 2"), is_output=True),
                        lp.ValueArg("n", np.int32)], target=lp.PyOpenCLTarget(),
                       lang_version=(2018, 2))
    st = analyse_program(t)
    assert st.vector_widths == () and [a.halo for a in st.axes] == [(-1, 1), (-1, 1)]


def test_derived_axes_do_not_depend_on_names():
    """The suite's 7-point heat step and a 7-point star with other array and iname names get the
    same transforms with the same values, bound to their own names."""
    mine = derive_space(load_spec("laplace3d")).knobs
    other = derive_space(dataclasses.replace(  # a ping-pong pair: the temporal axes too
        star_spec(radius=1), hooks=ApplicationHooks(ping_pong=(("b", "a"),)))).knobs
    assert [k.transform for k in mine.values()] == [k.transform for k in other.values()]
    assert [k.values for k in mine.values()] == [k.values for k in other.values()]
    assert list(other) == ["temporal", "sweeps", "temporal_points", "vector_width", "block_y",
                           "stream_z", "workgroup", "local_a"]
    assert other["temporal"].options == {"ping_pong": (("b", "a"),)}
    assert other["stream_z"].options == {"iname": "z"}
    assert other["workgroup"].options == {"inames": ("x", "y", "z")}


def _two_outputs(second_index: str):
    """A 2-D step writing b at (j + 1, i + 1) and c at *second_index*, both from a."""
    return lp.make_kernel(
        "{[j, i]: 0 <= j < n and 0 <= i < n}",
        f"""
        b[j + 1, i + 16] = a[j, i + 16] - a[j + 2, i + 16]
        c[{second_index}] = a[j + 1, i + 15] - a[j + 1, i + 17]
        """,
        [lp.GlobalArg("a", np.float32, shape=("n + 2", "n + 32")),
         lp.GlobalArg("b", np.float32, shape=("n + 2", "n + 32"), is_output=True),
         lp.GlobalArg("c", np.float32, shape=("n + 2", "n + 32"), is_output=True),
         lp.ValueArg("n", np.int32)], target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


def test_outputs_written_at_one_point_share_the_derived_space():
    """A kernel writing several arrays at one point (a gradient's two components, a curl's
    three) is one stencil: every output keeps whole vectors, the halo is the union of the
    reads', and the longest update sets the sum order's paths; the temporal schemes, which
    carry one array, are not offered."""
    st = analyse_program(_two_outputs("j + 1, i + 16"))
    assert st.outputs == ("b", "c") and st.output == "b" and st.reads == ("a",)
    assert [a.halo for a in st.axes] == [(-1, 1), (-1, 1)]
    assert set(st.vector_arrays) == {"a", "b", "c"} and 4 in st.vector_widths
    spec = dataclasses.replace(star_spec(), program=lambda p: _two_outputs("j + 1, i + 16"),
                               hooks=ApplicationHooks(ping_pong=(("b", "a"),)))
    knobs = derive_space(spec).knobs
    assert "temporal" not in knobs and {"vector_width", "workgroup"} <= set(knobs)
    assert "writing b, c" in describe_space(with_derived_space(spec))[0]


def test_outputs_written_at_different_points_are_not_one_stencil():
    derived = derive_space(dataclasses.replace(
        star_spec(), program=lambda p: _two_outputs("j + 1, i + 17")))
    assert derived.knobs == {}
    assert "c[j + 1, i + 17] is not written at b's point" in derived.reason


def test_a_program_that_is_not_a_stencil_keeps_an_empty_space():
    t = lp.make_kernel("{[i]: 0 <= i < n}", "b[2 * i] = a[i]",
                       [lp.GlobalArg("a", np.float32, shape=("n",)),
                        lp.GlobalArg("b", np.float32, shape=("2 * n",), is_output=True),
                        lp.ValueArg("n", np.int32)], target=lp.PyOpenCLTarget(),
                       lang_version=(2018, 2))
    spec = dataclasses.replace(star_spec(), program=lambda p: t)
    derived = derive_space(spec)
    assert derived.knobs == {} and "iname plus a constant" in derived.reason
    assert with_derived_space(spec).knobs == {}
    assert "no space derived" in describe_space(spec)[0]


def test_benchmarks_keep_the_space_they_declare():
    spec = load_spec("random_walk")  # group "memory", no knobs on purpose
    assert spec.knobs == {}


def test_loader_fills_the_knobs_of_a_knob_less_spec():
    spec = load_spec("laplace3d")
    assert list(spec.knobs) == ["temporal", "sweeps", "temporal_points", "vector_width",
                                "block_j", "stream_k", "workgroup", "local_u"]
    assert spec.knobs["stream_k"].transform == "streaming"
    lines = describe_space(spec, H200)
    assert "space derived from the program" in lines[0]
    for name, knob in spec.knobs.items():
        assert any(name in line and knob.transform in line for line in lines), name
    assert re.search(r"\d+ points within the constraints on NVIDIA", lines[-1])


@pytest.mark.parametrize("name", ["laplace3d", "star3d_r4", "box3d27"])
def test_knob_less_3d_specs_have_at_least_50_valid_variants(name, engine):
    spec = load_spec(name)
    for device in (H200, engine.info):
        valid = [p for p in spec.points(device) if p["dtype"] == "float32"]
        assert len(valid) >= 50, (name, device.name, len(valid))


def test_constraints_follow_the_device_and_the_sizes():
    spec = load_spec("laplace3d")
    point = spec.complete({"workgroup": (128, 4, 1), "block_j": 2, "local_u": "static",
                           "dtype": "float64"})
    tiny = DeviceLimits("tiny", "GPU", 256, 8 * 1024)
    assert "work-group 512 > device max 256" in spec.excluded(point, tiny)
    small = DeviceLimits("small", "GPU", 1024, 8 * 1024)
    assert "local memory" in spec.excluded(point, small)
    assert spec.excluded(point, H200) is None
    assert "streaming" in spec.excluded({**point, "stream_k": 4}, H200)
    assert "vector" in spec.excluded({**point, "vector_width": 2}, H200)
    wide = spec.complete({"vector_width": 8, "block_j": 2})
    assert "points per work item" in spec.excluded(wide, None)
    odd = dataclasses.replace(spec, verify_sizes=lambda p, d: {"nz": 3, "ny": 3, "nx": 20})
    odd = with_derived_space(dataclasses.replace(odd, knobs={}, constraints=()))
    assert "does not divide nx = 20" in odd.excluded(spec.complete({"vector_width": 8}), None)
    star = load_spec("star3d_r4")
    assert "unrolled" in star.excluded(star.complete({"stream_k": 8, "unroll_s": "none"}), None)


def test_local_tile_bytes_are_what_loopy_allocates():
    spec = load_spec("star3d_r4")
    derived = derive_space(spec)
    point = spec.complete({"local_u": "static", "unroll_s": "full", "workgroup": (32, 4, 1),
                           "block_j": 2})
    source = lower(spec, point).source
    dims = re.search(r"__local float u_local\[([\d *]+)\];", source).group(1)
    size = int(np.prod([int(d) for d in dims.split("*")]))
    roles = derived.names()
    assert tile(derived.stencil, roles, point) == [1, 8, 32]
    assert local_tile_bytes(derived.stencil, roles, point, 4) == 4 * size == 4 * 9 * 16 * 40


USER_SPEC = '''
import loopy as lp, numpy as np
from gencl.spec import BenchmarkSpec

def program(p):
    return lp.make_kernel("{[z, y, x]: 0 <= z < n and 0 <= y < n and 0 <= x < n}",
        "v[z+1, y+1, x+8] = 0.5 * t[z+1, y+1, x+8] + 0.25 * (t[z, y+1, x+8] + t[z+2, y+1, x+8]"
        " + t[z+1, y, x+8] + t[z+1, y+2, x+8] + t[z+1, y+1, x+7] + t[z+1, y+1, x+9])",
        [lp.GlobalArg("t", np.float32, shape=("n+2", "n+2", "n+16")),
         lp.GlobalArg("v", np.float32, shape=("n+2", "n+2", "n+16"), is_output=True),
         lp.ValueArg("n", np.int32)], target=lp.PyOpenCLTarget(), lang_version=(2018, 2))

def reference(d, p, s):
    t, v, n = d["t"], np.full_like(d["t"], np.nan), s["n"]
    c = lambda a, b, e: t[1+a:1+a+n, 1+b:1+b+n, 8+e:8+e+n]
    v[1:1+n, 1:1+n, 8:8+n] = 0.5 * c(0, 0, 0) + 0.25 * (c(-1, 0, 0) + c(1, 0, 0)
        + c(0, -1, 0) + c(0, 1, 0) + c(0, 0, -1) + c(0, 0, 1))
    return {"v": v}

SPEC = BenchmarkSpec(name="user_heat", description="a user's 7-point step", program=program,
    inputs=lambda p, s, rng: {
        "t": rng.uniform(-1, 1, (s["n"] + 2, s["n"] + 2, s["n"] + 16)).astype(np.float32)},
    reference=reference, sizes=lambda p, d, q: {"n": 128})
'''


def test_a_users_knob_less_spec_gets_a_space_that_runs(engine, tmp_path):
    path = tmp_path / "user_heat.py"
    path.write_text(textwrap.dedent(USER_SPEC))
    spec = load_spec(str(path))
    assert {k.transform for k in spec.knobs.values()} == {
        "vector", "register_block", "streaming", "workgroup", "local_tile"}
    valid = list(spec.points(engine.info))
    assert len(valid) >= 50
    rng = np.random.default_rng(1)
    for partial in ({}, {"vector_width": 4, "stream_z": 4, "block_y": 2},
                    {"local_t": "static", "workgroup": (32, 4, 1)}):
        point = spec.complete(partial)
        assert point in valid, spec.excluded(point, engine.info)
        built = engine.build(lower(spec, point))
        for n in (16, 13 if point["vector_width"] == 1 else 12):
            sizes = {"n": n}
            values = spec.inputs(point, sizes, rng)
            values["v"] = np.full_like(values["t"], np.nan)
            assert verify_variant(engine, spec, built, sizes, values) <= 1.0, (point, n)
