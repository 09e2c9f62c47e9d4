"""gencl.generate.temporal: k sweeps per launch, generically, against numpy on PoCL.

Each case lowers a temporal point of a suite kernel (both schemes; tiles that do not divide the
grid), runs three ping-pong launches and compares with 3·k sweeps of the kernel's numpy
reference, physical boundary included (pad columns hold NaN: a point read or missed wrongly
cannot pass). k = 1 must reproduce the plain program; a program the transform cannot take says
why; ``tile_traffic``'s closed forms are checked against a count that walks the schemes' rules
point by point; the derived and hand-bound spaces offer the axes within an H200's limits.
"""

from __future__ import annotations

import dataclasses
import math
import re

import loopy as lp
import numpy as np
import pytest

from gencl.generate import lower
from gencl.generate.temporal import (
    NotTemporal, geometry, local_bytes, read_temporal_form, temporal_program, tile_traffic)
from gencl.measure import reference_after, verify_variant
from gencl.measure._engine import check_assumptions
from gencl.space import limits_for
from gencl.spec import ApplicationHooks, load_spec, steps_per_launch

#: (kernel, scheme, k, work-group, points, sizes): no size a multiple of its tile
CASES = [
    ("jacobi", "tile", 4, (32, 4), (1, 8), {"n": 45}),
    ("jacobi", "tile", 6, (16, 8), (2, 8), {"n": 70}),
    ("jacobi", "stream", 4, (32, 1), (2, 16), {"n": 77}),
    ("jacobi", "stream", 2, (64, 1), (1, 128), {"n": 70}),
    ("laplace3d", "tile", 2, (16, 4, 4), (1, 2, 2), {"nz": 9, "ny": 11, "nx": 48}),
    ("laplace3d", "stream", 3, (32, 4, 1), (1, 2, 8), {"nz": 19, "ny": 11, "nx": 40}),
    ("box2d9", "stream", 3, (32, 1), (1, 16), {"ny": 37, "nx": 70}),
    ("star3d_r4", "stream", 2, (32, 4, 1), (1, 5, 4), {"nz": 13, "ny": 11, "nx": 24}),
    # stream_async: copied global → __local ahead (PoCL builds the plain load-and-store form
    # of the copy; the NVIDIA form differs only in the copy macros)
    ("jacobi", "stream_async", 2, (64, 1), (1, 128), {"n": 70}),
    ("laplace3d", "stream_async", 3, (32, 4, 1), (1, 2, 8), {"nz": 19, "ny": 11, "nx": 40}),
    ("box2d9", "stream_async", 3, (32, 1), (1, 16), {"ny": 37, "nx": 70}),
    ("star3d_r4", "stream_async", 2, (32, 4, 1), (1, 5, 4), {"nz": 13, "ny": 11, "nx": 24}),
    # strip: one work item per tile (the work-group value does not apply: None, the first)
    ("jacobi", "strip", 4, None, (40, 24), {"n": 45}),
    ("jacobi", "strip", 3, None, (24, 17), {"n": 50}),
    ("box2d9", "strip", 2, None, (32, 13), {"ny": 23, "nx": 61}),
    ("laplace3d", "strip", 2, None, (24, 9, 7), {"nz": 9, "ny": 11, "nx": 37}),
    ("star3d_r4", "strip", 2, None, (32, 19, 18), {"nz": 13, "ny": 11, "nx": 24}),
]


def _with_temporal_axes(spec):
    """*spec* with the temporal axes even where its space offers none (a radius-4 star's
    margins overflow every tile of an H200's space; small tiles at small sizes still work)."""
    if "temporal" in spec.knobs:
        return spec
    from gencl.generate.temporal import temporal_knobs
    ndim = len(spec.size_names)
    return dataclasses.replace(spec, knobs={**temporal_knobs(ndim, spec.hooks.ping_pong),
                                            **spec.knobs})


def _point(spec, scheme, k, wg, pts):
    base = {"boundary": "padded"} if "boundary" in spec.params else {}
    return spec.complete({**base, "temporal": scheme, "sweeps": k, "workgroup": wg,
                          "temporal_points": pts})


@pytest.mark.parametrize("name,scheme,k,wg,pts,sizes", CASES,
                         ids=[f"{c[0]}-{c[1]}-k{c[2]}" for c in CASES])
def test_blocked_variant_equals_launches_times_k_sweeps(unoptimized_engine, name, scheme, k, wg,
                                                        pts, sizes):
    engine = unoptimized_engine  # the emitted code's answer; LLVM's passes only cost time here
    spec = _with_temporal_axes(load_spec(name))
    wg = wg or spec.knobs["workgroup"].values[0]
    point = _point(spec, scheme, k, wg, pts)  # small tiles: the space's are too large here
    assert steps_per_launch(spec, point) == k
    variant = lower(spec, point)
    if scheme == "strip":
        assert "barrier" not in variant.source  # one work item: no barrier anywhere
    assert check_assumptions(variant, sizes) is None
    built = engine.build(variant)
    values = spec.inputs(point, sizes, np.random.default_rng(4))
    assert verify_variant(engine, spec, built, sizes, values, launches=3) <= 1.0


def test_one_launch_is_k_sweeps_not_one(engine):
    """The check can fail: a k = 4 launch compared with one sweep does not pass."""
    spec = load_spec("laplace3d")
    point = _point(spec, "stream", 4, (32, 4, 1), (1, 3, 8))
    built = engine.build(lower(spec, point))
    sizes = {"nz": 12, "ny": 9, "nx": 40}
    values = spec.inputs(point, sizes, np.random.default_rng(0))
    one = dataclasses.replace(spec, hooks=dataclasses.replace(spec.hooks, steps=lambda p: 1))
    assert verify_variant(engine, one, built, sizes, values, launches=1) > 1.0
    assert verify_variant(engine, spec, built, sizes, values, launches=1) <= 1.0


@pytest.mark.parametrize("name,scheme,wg,pts", [
    ("jacobi", "tile", (32, 4), (1, 2)), ("jacobi", "stream", (32, 1), (1, 8)),
    ("laplace3d", "tile", (32, 4, 1), (1, 1, 3)), ("laplace3d", "stream", (32, 4, 1), (1, 1, 4))])
def test_one_sweep_is_the_plain_program(engine, name, scheme, wg, pts):
    spec = load_spec(name)
    plain = spec.complete({"boundary": "padded"} if name == "jacobi" else {})
    blocked = _point(spec, scheme, 1, wg, pts)
    sizes = spec.verify_sizes(plain, None)
    values = spec.inputs(plain, sizes, np.random.default_rng(1))
    _assert_one_launch_equal(engine, spec, plain, blocked, sizes, values)


def test_programs_it_cannot_take_say_why():
    jacobi = load_spec("jacobi")
    branch = jacobi.program(jacobi.complete({"boundary": "branch"}))
    with pytest.raises(NotTemporal, match="written by 2 instructions"):
        read_temporal_form(branch, jacobi.hooks.ping_pong)
    padded = jacobi.program(jacobi.complete({"boundary": "padded"}))
    with pytest.raises(NotTemporal, match="no ping-pong pair"):
        read_temporal_form(padded, ())
    transposed = lp.make_kernel(
        "{[i, j]: 0 <= i, j < n}", "b[i + 1, j + 1] = a[j + 1, i + 1] + a[i, j + 1]",
        [lp.GlobalArg("a", np.float32, shape=("n + 2", "n + 2")),
         lp.GlobalArg("b", np.float32, shape=("n + 2", "n + 2"), is_input=True, is_output=True),
         lp.ValueArg("n", np.int32)], target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    with pytest.raises(NotTemporal, match="axis 0 must be i plus an offset"):
        temporal_program(transposed, (("b", "a"),), scheme="tile", sweeps=2, workgroup=(32, 4),
                         points=(1, 1))
    leapfrog = load_spec("tuning/wave3d.py")  # w = 2u − w + …: two time levels
    with pytest.raises(NotTemporal, match="reads w, the array it writes"):
        read_temporal_form(leapfrog.program(leapfrog.complete({})), leapfrog.hooks.ping_pong)
    # the knob turns it into a point outside the space, with the reason
    point = jacobi.complete({"boundary": "branch", "temporal": "tile", "sweeps": 2,
                             "temporal_points": (1, 8)})
    assert "written by 2 instructions" in jacobi.excluded(point, None)


# {{{ traffic: closed forms against a walk over every work item's points

def _walk(form, scheme, k, wg, pts, sizes):
    """Count what the scheme's rules do by visiting every group, work item and owned point."""
    geo = geometry(form, scheme, k, wg, pts)
    n = form.ndim
    ext = [sizes[e] for e in form.extents]
    shape = [eval(s, {}, dict(sizes)) for s in form.shape]  # noqa: S307 -- "n + 2" style
    updates = writes = fetched = 0
    interior = lambda x: all(0 <= x[d] < ext[d] for d in range(n))  # noqa: E731
    if scheme in ("tile", "strip"):
        groups = [range(-(-ext[d] // geo.tile[d])) for d in range(n)]
        for g in np.ndindex(*[len(r) for r in groups]):
            for tt in np.ndindex(*geo.loaded):
                x = [g[d] * geo.tile[d] - k * geo.lo[d] + tt[d] for d in range(n)]
                fetched += all(0 <= x[d] + form.out_offsets[d] < shape[d] for d in range(n))
                for s in range(k):
                    live = all(geo.lo[d] * (s + 1) <= tt[d] < geo.loaded[d] - geo.hi[d] * (s + 1)
                               for d in range(n))
                    updates += live and interior(x)
                if all(k * geo.lo[d] <= tt[d] < k * geo.lo[d] + geo.tile[d] for d in range(n)):
                    writes += interior(x)
        return {"point_updates": updates, "global_write_bytes": writes * form.itemsize}
    c = geo.points[0]
    groups = [-(-ext[0] // c)] + [-(-ext[d] // geo.tile[d]) for d in range(1, n)]
    for g in np.ndindex(*groups):
        for s in range(1, k + 1):
            # level s works on planes g·c − (k − s)·lo … g·c + c + (k − s)·hi
            for z in range(g[0] * c - (k - s) * geo.lo[0], g[0] * c + c + (k - s) * geo.hi[0]):
                for tt in np.ndindex(*geo.loaded[1:]):
                    if not all(geo.lo[d] * s <= tt[d - 1] < geo.loaded[d] - geo.hi[d] * s
                               for d in range(1, n)):
                        continue
                    x = [z] + [g[d] * geo.tile[d] - k * geo.lo[d] + tt[d - 1]
                               for d in range(1, n)]
                    updates += interior(x)
                    writes += s == k and interior(x)
    return {"point_updates": updates, "global_write_bytes": writes * form.itemsize}


@pytest.mark.parametrize("name,scheme,k,wg,pts,sizes", [
    ("jacobi", "tile", 3, (8, 4), (1, 2), {"n": 29}),
    ("jacobi", "strip", 3, (8, 4), (17, 11), {"n": 29}),
    ("laplace3d", "strip", 2, (8, 4, 2), (13, 9, 7), {"nz": 5, "ny": 7, "nx": 11}),
    ("jacobi", "stream", 2, (8, 1), (2, 8), {"n": 27}),
    ("laplace3d", "stream", 2, (8, 2, 1), (1, 3, 4), {"nz": 9, "ny": 7, "nx": 19}),
    ("laplace3d", "stream_async", 2, (8, 2, 1), (1, 3, 4), {"nz": 9, "ny": 7, "nx": 19}),
    ("laplace3d", "tile", 2, (8, 4, 2), (1, 2, 3), {"nz": 5, "ny": 7, "nx": 11})])
def test_tile_traffic_counts_what_the_scheme_does(name, scheme, k, wg, pts, sizes):
    spec = load_spec(name)
    point = spec.complete({"boundary": "padded"} if name == "jacobi" else {})
    form = read_temporal_form(spec.program(point), spec.hooks.ping_pong)
    got = tile_traffic(form, scheme, k, wg, pts, sizes)
    walked = _walk(form, scheme, k, wg, pts, sizes)
    assert got["point_updates"] == walked["point_updates"]
    interior = math.prod(sizes[e] for e in form.extents)
    assert got["global_write_bytes"] == walked["global_write_bytes"] == form.itemsize * interior
    assert got["point_updates"] > k * interior  # the margins are recomputed
    geo = geometry(form, scheme, k, wg, pts)
    expected_barriers = k + 1 if scheme == "tile" else 0 if scheme == "strip" else geo.steps
    assert got["barriers_per_group"] == expected_barriers
    # the local footprint is what the generated source declares
    src = lower(spec, _point(spec, scheme, k, wg, pts)).source
    declared = sum(math.prod(int(x) for x in m.split("*"))
                   for m in re.findall(r"__local float \w+\[([\d\s*]+)\]", src))
    assert declared * form.itemsize == local_bytes(form, geo) == got["local_bytes"]


@pytest.mark.parametrize("name,scheme,pts,sizes", [
    # f and sigma re-read at every update
    ("helmholtz3d", "stream", (1, 3, 4), {"nz": 9, "ny": 7, "nx": 19}),
    ("jacobi", "stream", (2, 8), {"n": 27}),           # f re-read at every update
    ("jacobi", "tile", (1, 2), {"n": 29}),             # f loaded once, into registers
    ("laplace3d", "stream", (1, 3, 4), {"nz": 9, "ny": 7, "nx": 19}),  # the ring alone
])
def test_tile_traffic_names_the_updates_that_read_global_arrays(name, scheme, pts, sizes):
    spec = load_spec(name)
    point = spec.complete({"boundary": "padded"} if name == "jacobi" else {})
    form = read_temporal_form(spec.program(point), spec.hooks.ping_pong)
    wg = (8, 2, 1) if form.ndim == 3 else (8, 4) if scheme == "tile" else (8, 1)
    got = tile_traffic(form, scheme, 2, wg, pts, sizes)
    size, arrays = form.itemsize, len(form.registers) + len(form.others)
    interior = got["global_write_bytes"] / size
    if scheme == "stream" and arrays:
        # every update reads each array: all but one read of each element is a re-read
        assert got["global_reading_updates"] == got["point_updates"]
        assert got["reread_read_only_bytes"] == size * arrays * (got["point_updates"] - interior)
    else:
        assert got["global_reading_updates"] == 0
    if not arrays:
        assert got["reread_read_only_bytes"] == 0


def test_more_sweeps_per_launch_read_less_per_sweep():
    spec = load_spec("jacobi")
    form = read_temporal_form(spec.program(spec.complete({"boundary": "padded"})),
                              spec.hooks.ping_pong)
    sizes = {"n": 1024}
    per_sweep = [tile_traffic(form, "tile", k, (128, 8), (1, 8), sizes)["global_read_bytes"] / k
                 for k in (2, 4, 8)]
    assert per_sweep[0] > per_sweep[1] > per_sweep[2]

# }}}


# {{{ the spaces

def test_spaces_offer_the_temporal_axes_within_an_h200(jacobi_h200_space):
    limits = limits_for("nvidia")
    for name in ("jacobi", "laplace3d", "box2d9"):
        spec = load_spec(name)
        assert list(spec.knobs)[:3] == ["temporal", "sweeps", "temporal_points"]
        # Jacobi's space walked once for the tests of it (conftest)
        space = jacobi_h200_space if name == "jacobi" else spec.points(limits)
        points = [p for p in space if p["dtype"] == "float32"]
        temporal = [p for p in points if p["temporal"] != "none"]
        assert {p["temporal"] for p in temporal} == {"tile", "stream", "stream_async"}, name
        assert 20 <= len(temporal) <= 300, (name, len(temporal))
        assert all(p["sweeps"] == 1 for p in points if p["temporal"] == "none")
        assert all(p["sweeps"] > 1 for p in temporal)
        form = read_temporal_form(spec.program(temporal[0]), spec.hooks.ping_pong)  # float32
        for p in temporal:
            geo = geometry(form, p["temporal"], p["sweeps"], p["workgroup"],
                           p["temporal_points"])
            assert local_bytes(form, geo) <= 48 * 1024 - 1024
            assert math.prod(geo.group) <= 1024


def test_a_kernel_without_ping_pong_gets_no_temporal_axes():
    spec = load_spec("laplace3d")
    bare = dataclasses.replace(spec, knobs={}, hooks=ApplicationHooks())
    from gencl.generate import derive_space
    assert "temporal" not in derive_space(bare).knobs
    assert "temporal" in derive_space(dataclasses.replace(spec, knobs={})).knobs


def test_reference_after_applies_k_steps_per_launch():
    spec = load_spec("laplace3d")
    point = _point(spec, "stream", 3, (32, 4, 1), (1, 1, 64))
    sizes = {"nz": 4, "ny": 5, "nx": 32}
    values = spec.inputs(point, sizes, np.random.default_rng(2))
    plain = spec.complete({})
    six = reference_after(spec, values, plain, sizes, launches=6)
    two = reference_after(spec, values, point, sizes, launches=2)
    np.testing.assert_array_equal(six["u_new"], two["u_new"])

# }}}


# {{{ the strip scheme (the CPU form: one work item per tile, no barrier)

#: (kernel, k, tile points contiguous first, sizes): no size a multiple of the owned tile
def test_strip_one_sweep_is_the_plain_program(engine):
    spec = load_spec("box2d9")
    plain = spec.complete({})
    blocked = _point(spec, "strip", 1, spec.knobs["workgroup"].values[0], (48, 16))
    sizes = {"ny": 37, "nx": 70}
    values = spec.inputs(plain, sizes, np.random.default_rng(6))
    _assert_one_launch_equal(engine, spec, plain, blocked, sizes, values)


def test_strip_points_are_offered_within_a_cpu_cache_not_an_h200(jacobi_h200_space):
    from gencl.space._limits import DeviceLimits

    cpu = DeviceLimits("a CPU (PoCL: local memory = L2)", "CPU", 4096, 1280 * 1024)
    spec = load_spec("jacobi")
    # the strip slice only (the whole space under a CPU's limits took 48 s to walk)
    strip = list(spec.points(cpu, fixed={"temporal": "strip", "dtype": "float32"}))
    assert strip and {p["workgroup"] for p in strip} == {spec.knobs["workgroup"].values[0]}
    form = read_temporal_form(spec.program(strip[0]), spec.hooks.ping_pong)
    for p in strip:
        geo = geometry(form, "strip", p["sweeps"], p["workgroup"], p["temporal_points"])
        assert local_bytes(form, geo) * 3 // 2 <= cpu.local_mem_bytes  # halves + f's tile
    assert not [p for p in jacobi_h200_space if p["temporal"] == "strip"]  # walked once

# }}}


def _assert_one_launch_equal(engine, spec, plain, blocked, sizes, values):
    """One launch of the plain and of the blocked program give the same output."""
    out = []
    for point in (plain, blocked):
        built = engine.build(lower(spec, point))
        bound = engine.bind(built, sizes, values)
        try:
            engine.run_once(built, bound)
            out.append(engine.read_outputs(bound)[spec.hooks.ping_pong[0][0]])
        finally:
            bound.release()
    np.testing.assert_allclose(out[1], out[0], rtol=1e-6, equal_nan=True)
    assert not np.isnan(out[0]).all()


def test_async_copies_are_offered_where_the_device_has_them(engine):
    spec = load_spec("laplace3d")
    point = next(p for p in spec.points(limits_for("nvidia")) if p["temporal"] == "stream_async")
    assert spec.excluded(point, limits_for("nvidia")) is None
    reason = spec.excluded(point, engine.info)  # PoCL: no cp.async
    assert reason is not None and "cp.async" in reason
    plain = lower(spec, {**point, "temporal": "stream"}).source
    source = lower(spec, point).source
    assert "cp.async.ca.shared.global" in source and "cp.async.wait_group 1;" in source
    assert "GENCL_COPY" not in plain and "cp.async" not in plain


@pytest.mark.parametrize("name, scheme, pts, expected", [
    # 4 B × points per plane (the stream chunk is the knob's last entry) × planes copied ahead
    ("laplace3d", "stream_async", (1, 3, 4), 4 * 3 * 2),
    ("jacobi", "stream_async", (2, 8), 4 * 2 * 2),
    ("laplace3d", "stream", (1, 3, 4), None),   # loads in registers: loopy counts them
    ("laplace3d", "tile", (1, 2, 3), None),
])
def test_async_copy_bytes_in_flight_per_work_item(name, scheme, pts, expected):
    spec = load_spec(name)
    point = spec.complete({"boundary": "padded"} if name == "jacobi" else {})
    form = read_temporal_form(spec.program(point), spec.hooks.ping_pong)
    wg = ((8, 4, 2) if scheme == "tile" else (8, 2, 1)) if form.ndim == 3 else (8, 1)
    sizes = {"nz": 9, "ny": 7, "nx": 19} if form.ndim == 3 else {"n": 27}
    got = tile_traffic(form, scheme, 2, wg, pts, sizes)
    assert got.get("copy_bytes_in_flight_per_item") == expected
