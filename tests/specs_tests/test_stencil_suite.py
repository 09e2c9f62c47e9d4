"""The stencil suite in tuning/: every knob value of every kernel's space, against numpy on PoCL.

Every kernel but box2d9 declares no knobs (their spaces are derived from the program); box2d9
binds its own. The spaces are too large to run whole in CI (`gencl verify` does that), so each
kernel runs a covering sample: a greedy set of valid points in which every value of every axis
appears at least once and every valid pair of values of the transforms that interact in the
emitted code (vector width, streaming on or off, register blocking, unrolling, local tile). Each
point runs at the kernel's verification sizes (tiles cut at the edges) and at sizes that are
whole multiples of its tile.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from gencl.generate import derive_space, lower
from gencl.generate._auto_space import tile
from gencl.measure import OutOfResources, verify_variant
from gencl.measure._engine import check_assumptions
from gencl.generate.temporal import geometry, read_temporal_form
from gencl.spec import NO_TEMPORAL, SWEEPS_AXIS, TEMPORAL_AXIS, TEMPORAL_POINTS_AXIS, load_spec
from gencl.spec.stencil_step import GRID_2D, GRID_3D, from_padded, to_padded

SUITE = ("laplace3d", "star3d_r4", "box3d27", "box2d9", "vardiff3d", "star2d_r2", "advect3d",
         "aniso2d", "mehrstellen3d", "wave3d", "biharm2d", "edge3d19", "wave2d", "div3d",
         "curl3d", "sobel2d", "helmholtz3d", "perona2d", "grayscott3d", "copy2d", "box2d25",
         "grad3d", "upwind2d", "heat3d_o4", "box2d49", "gradmag3d")
#: largest tile volume run at whole-tile sizes (keeps the numpy reference cheap)
MAX_POINTS = 1 << 20


def _cost(point) -> int:
    """Rough code size of a point: prefer cheap points when they cover as much."""
    cost = 1
    for key, value in point.items():
        if isinstance(value, int) and key != "dtype":
            cost *= max(1, value) if "stream" not in key else 1
    return cost


@functools.cache
def _temporal_form(name):
    spec = load_spec(name)
    return read_temporal_form(spec.program(spec.complete({})), spec.hooks.ping_pong)


def _unrolled(spec, point) -> int:
    """Copies of the update a temporal point's code holds (1: none, or loops): the sweeps ×
    the points a work item owns × a stream's unrolled steps. A PoCL build grows with it (the
    float64 star3d_r4 stream at 3 sweeps of 4 rows: 47 s to build and first launch on a
    2-core EPYC, 50 of the 122 s its whole sample took), so the sample takes each temporal
    value where it is cheapest rather than all of them in one point."""
    scheme = point.get(TEMPORAL_AXIS, NO_TEMPORAL)
    if scheme == NO_TEMPORAL or scheme == "strip":  # the strip's updates are loops
        return 1
    geo = geometry(_temporal_form(spec.name), scheme, point[SWEEPS_AXIS],
                   point["workgroup"], point[TEMPORAL_POINTS_AXIS])
    return geo.sweeps * geo.per_item * (geo.unroll if geo.scheme == "stream" else 1)


#: transforms whose values interact in the emitted code: every valid pair of their values is run
STRUCTURAL = ("vector", "register_block", "streaming", "unroll", "local_tile")


def _pairs(point, axes=None) -> set[tuple]:
    items = sorted((a, repr(v)) for a, v in point.items() if axes is None or a in axes)
    return {(x, y) for i, x in enumerate(items) for y in items[i + 1:]}


def _shape(spec, point, structural) -> dict:
    """The structural values of *point*, a streamed chunk reduced to streamed or not (its
    length changes loop bounds, not the code's shape)."""
    return {a: (min(point[a], 2) if spec.knobs[a].transform == "streaming" else point[a])
            for a in structural}


def covering_sample(spec) -> list[dict]:
    """Valid points (no device) in which every value of every axis appears, and every valid pair
    of values of the structural axes (vector × streaming × blocking × unrolling × local tile;
    streaming as on or off): greedily, most new values and pairs per copy of the update the
    code unrolls first (``_unrolled``), then the cheapest, then most other pairs new."""
    valid = list(spec.points(None))
    structural = {n for n, k in spec.knobs.items() if k.transform in STRUCTURAL}
    wanted = {(axis, repr(v)) for axis, values in spec.axes.items() for v in values}
    wanted |= set().union(*(_pairs(_shape(spec, p, structural)) for p in valid))

    def covers(p):
        return {(a, repr(p[a])) for a in p} | _pairs(_shape(spec, p, structural))

    # each point's values, pairs and cost once, not once per greedy step (the same choices:
    # collection ran this for every kernel on every xdist worker, seconds of it in the loop)
    scored = [(covers(p), -_cost(p), _pairs(p), p, _unrolled(spec, p)) for p in valid]
    seen: set[tuple] = set()
    chosen: list[dict] = []
    while wanted:
        cover, _, pairs, best, _ = max(scored, key=lambda s: (len(wanted & s[0]) / s[4], s[1],
                                                              len(s[2] - seen)))
        gain = wanted & cover
        if not gain:
            break  # a value no valid point takes: the test below reports it
        chosen.append(best)
        wanted -= gain
        seen |= pairs
    return chosen


@functools.cache
def _derived(name):
    """A suite kernel's derived space, once per worker: deriving reads the program (0.1-0.3 s)
    and every one of the kernel's points asked for it again."""
    return derive_space(load_spec(name))


def whole_tile_sizes(spec, point) -> dict[str, int] | None:
    """Sizes that are a multiple of the point's tile along every axis (None: too large)."""
    derived = _derived(spec.name)
    if spec.knobs == derived.knobs:
        st = derived.stencil
        extents = tile(st, derived.names(), point)
        sizes = {a.param: e for a, e in zip(st.axes, extents)}
    else:  # box2d9: the tile its knobs give
        wx, wy = point["workgroup"]
        sizes = {"nx": wx * point["vector_width"], "ny": wy * point["stream"]}
    return sizes if math.prod(sizes.values()) <= MAX_POINTS else None


CASES = [(name, point) for name in SUITE for point in covering_sample(load_spec(name))]


@pytest.mark.parametrize("name", SUITE)
def test_sample_covers_every_value_of_every_axis(name):
    spec = load_spec(name)
    sample = [p for n, p in CASES if n == name]
    for axis, values in spec.axes.items():
        missing = {repr(v) for v in values} - {repr(p[axis]) for p in sample}
        assert not missing, f"{name}.{axis}: {missing} in no valid point"


@pytest.mark.parametrize("name,point", CASES,
                         ids=[f"{n}-" + "-".join(str(v).replace(" ", "") for v in p.values())
                              for n, p in CASES])
def test_variant_matches_numpy(engine, unoptimized_engine, name, point):
    if point.get(TEMPORAL_AXIS, NO_TEMPORAL) != NO_TEMPORAL:
        engine = unoptimized_engine
    spec = load_spec(name)
    variant = lower(spec, point)
    built = engine.build(variant)
    rng = np.random.default_rng(11)
    runs = [spec.verify_sizes(point, engine.info)]
    whole = whole_tile_sizes(spec, point)
    if whole:
        runs.append(whole)
    for sizes in runs:
        assert check_assumptions(variant, sizes) is None, sizes
        try:
            err = verify_variant(engine, spec, built, sizes, spec.inputs(point, sizes, rng))
        except OutOfResources as exc:
            # the sample is drawn without a device; a CPU runtime reports its core's cache as
            # local memory (PoCL: 512 KiB on the 2-core EPYC VM of 2026-11-28), which the
            # largest strip tiles (1 MiB) outgrow: checked wherever the device holds them
            pytest.skip(f"{exc} on {engine.info.name}")
        assert err <= 1.0, (sizes, err)


def test_a_wrong_coefficient_is_caught(engine):
    """The check can fail: a step run with another α does not pass as the reference."""
    spec = load_spec("laplace3d")
    point = spec.complete({"vector_width": 4, "stream_k": 4})
    built = engine.build(lower(spec, point))
    sizes = spec.verify_sizes(point, engine.info)
    values = spec.inputs(point, sizes, np.random.default_rng(0))
    right = verify_variant(engine, spec, built, sizes, values)
    values["alpha"] = values["alpha"] * np.float32(1.01)
    expected = spec.reference(values, point, sizes)
    values["alpha"] = values["alpha"] / np.float32(1.01)
    bad = verify_variant(engine, spec.__class__(**{**spec.__dict__,
                                                   "reference": lambda v, p, s: expected}),
                         built, sizes, values)
    assert right <= 1.0 < bad


@pytest.mark.parametrize("name", SUITE)
def test_metrics_count_the_compulsory_traffic(name):
    spec = load_spec(name)
    point = spec.complete({"dtype": "float64"})
    sizes = spec.sizes(point, None, False)
    interior = math.prod(sizes.values())
    # every grid the update reads once, the one it writes once (not a table of weights): from
    # the program itself
    from loopy.symbolic import get_dependencies

    knl = spec.program(point).default_entrypoint
    arrays = {a.name for a in knl.args if len(getattr(a, "shape", None) or ()) == len(sizes)}
    # a leapfrog's w too: read and written
    read = set().union(*(get_dependencies(i.expression) for i in knl.instructions)) & arrays
    written = set().union(*(i.assignee_var_names() for i in knl.instructions)) & arrays
    assert spec.metrics["bytes"](point, sizes) == (len(read) + len(written)) * 8 * interior
    assert spec.metrics["points"](point, sizes) == interior
    assert spec.metrics["flops"](point, sizes) >= interior  # copy2d: one operation a point


def written_and_read(spec, point) -> tuple[list[str], str]:
    """The arrays the update writes and one it reads: a ping-pong pair's output and input, or
    (a kernel whose outputs are not fed back: div3d, curl3d) the program's outputs and first
    input grid."""
    if spec.hooks.ping_pong:
        written, read = spec.hooks.ping_pong[0]
        return [written], read
    knl = spec.program(point).default_entrypoint
    grids = [a for a in knl.args if getattr(a, "shape", None)]
    return [a.name for a in grids if a.is_output], next(a.name for a in grids if not a.is_output)


@pytest.mark.parametrize("name", SUITE)
def test_reference_keeps_the_boundary_and_updates_the_interior(name):
    """Each written array (a ping-pong pair's output) changes at every interior point and
    nowhere else: its boundary is kept whatever it held before (u_new: the boundary and NaN
    inside; a leapfrog's w: the level before)."""
    spec = load_spec(name)
    point = spec.complete({})
    sizes = spec.verify_sizes(point, None)
    values = spec.inputs(point, sizes, np.random.default_rng(2))
    outputs, source = written_and_read(spec, point)
    expected = spec.reference(values, point, sizes)
    interior = math.prod(sizes.values())
    for output in outputs:
        out = expected[output]
        # the pad columns, NaN in both
        assert np.isnan(out).sum() == np.isnan(values[source]).sum(), output
        changed = ~np.isnan(out) & ~(out == values[output])
        assert 0.9 * interior < changed.sum() <= interior, output


@pytest.mark.parametrize("name,dtype", [(n, d) for n in SUITE for d in ("float32", "float64")])
def test_naive_peer_kernel_matches_the_reference(engine, name, dtype):
    """The one-thread-per-point kernel each suite file gives its CUDA and OpenCL peers, run as
    OpenCL C on PoCL on the logical grid (no pads), against the spec's reference."""
    import inspect
    from types import SimpleNamespace

    import pyopencl as cl

    from gencl.peers import portable_source

    spec = load_spec(name)
    module = inspect.getmodule(spec.program)
    point = spec.complete({"dtype": dtype})
    sizes = spec.verify_sizes(point, None)
    ctx = SimpleNamespace(inputs=spec.inputs(point, sizes, np.random.default_rng(5)),
                          sizes=sizes, point=point)
    host = module.logical_inputs(ctx)
    outputs, _ = written_and_read(spec, point)
    want = module.logical_reference(ctx)
    real = "double" if dtype == "float64" else "float"
    source = portable_source(module.NAIVE, "opencl", real)
    kernel = getattr(cl.Program(engine.ctx, source).build(), name)
    mf = cl.mem_flags
    bufs, args = {}, []
    for arg in module.ARGS:
        value = host.get(arg, sizes.get(arg))
        if isinstance(value, np.ndarray):
            bufs[arg] = cl.Buffer(engine.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=value)
            args.append(bufs[arg])
        else:
            args.append(np.int32(value) if arg in sizes else value)
    kernel.set_args(*args)
    grid = GRID_3D if len(sizes) == 3 else GRID_2D  # the naive peer's block and extents
    block = grid.block
    extents = [sizes[n] for n in grid.extents]
    global_size = tuple(-(-n // b) * b for n, b in zip(extents, block))
    cl.enqueue_nd_range_kernel(engine.queue, kernel, global_size, block).wait()
    from gencl.measure import compare
    for output in outputs:
        got = np.empty_like(host[output])
        cl.enqueue_copy(engine.queue, got, bufs[output]).wait()
        assert compare(got, want[output], spec.tolerance[dtype]) <= 1.0, output
        assert not np.isnan(got[(slice(1, -1),) * got.ndim]).any(), output


@pytest.mark.parametrize("radius", [1, 2, 4])
def test_padded_layout_keeps_the_boundary_next_to_the_interior(radius):
    """Every suite kernel's buffers: interior rows start PAD elements in, the boundary's
    *radius* columns just before and after, the rest fill; from_padded gives the grid back."""
    pad, rng = 16, np.random.default_rng(radius)
    grid = rng.random((3, 5, 8 + 2 * radius)).astype(np.float32)
    buf = to_padded(grid, pad, radius=radius)
    assert buf.shape == (3, 5, 8 + 2 * pad)
    np.testing.assert_array_equal(buf[..., pad:pad + 8], grid[..., radius:radius + 8])
    np.testing.assert_array_equal(buf[..., pad - radius:pad], grid[..., :radius])
    assert np.isnan(buf[..., :pad - radius]).all() and np.isnan(buf[..., pad + 8 + radius:]).all()
    np.testing.assert_array_equal(from_padded(buf, pad, radius=radius), grid)
