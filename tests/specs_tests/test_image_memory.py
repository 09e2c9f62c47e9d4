"""image_memory: every bandwidth variant of the sweep sums numpy's pixels and the texture-path walk
ends where numpy's walk ends (PoCL, which has images, at verification sizes); the arguments are
images; a device without image support records every point as excluded and runs nothing."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np

from gencl.generate import generate
from gencl.measure import run_points
from gencl.spec import load_spec
from tests.specs_tests._check import check_points


def test_every_bandwidth_variant_and_the_walk_match_numpy(engine):
    assert engine.info.image_support is True
    spec = load_spec("image_memory")
    bandwidth = [p for p in spec.sweep_points(engine.info) if p["test"] == "bandwidth"]
    walk = [{"test": "walk", "footprint": f} for f in (1024, 16 << 10, 1 << 20)]
    points = check_points(engine, "image_memory", bandwidth + walk)
    for axis, values in (("layout", {"clpeak", "rows"}), ("coords", {"int", "float"}),
                         ("format", {"rgba", "r"}), ("fetches", {16, 32, 64})):
        assert {p[axis] for p in points if p["test"] == "bandwidth"} == values, axis
    # clpeak's own shape on this device: work-groups of its maximum size
    assert any(p["layout"] == "clpeak" and p["coords"] == "int" and p["fetches"] == 16
               and p["workgroup"] == engine.info.max_work_group_size for p in points)


def test_reads_go_through_images():
    spec = load_spec("image_memory")
    clpeak = generate(spec, spec.complete({"test": "bandwidth"}))
    assert "__read_only image2d_t img" in clpeak.source
    assert "(int2)(pixel % W, pixel / W)" in clpeak.source  # clpeak's coordinates, verbatim
    image = next(a for a in clpeak.args if a.name == "img")
    assert (image.kind, image.dtype, image.shape) == ("image", "float32", ("H", "W", "4"))
    floats = generate(spec, spec.complete({"test": "bandwidth", "coords": "float",
                                           "layout": "rows", "workgroup": 32,
                                           "workgroup_y": 8}))
    assert "read_imagef(img, loopy_sampler, (float2)" in floats.source  # loopy's own read
    walk = generate(spec, spec.complete({"test": "walk", "footprint": 4096}))
    assert "read_imagei(img, loopy_sampler, (int2)(cx, cy))" in walk.source


def test_walk_images_are_whole_and_their_ring_one_cycle():
    from specs.image_memory import FOOTPRINTS, SPACING, WALK_TEXEL, inputs, walk_shape

    for footprint in FOOTPRINTS:
        height, width = walk_shape(footprint)
        assert height * width * WALK_TEXEL == footprint and height <= width
    spec = load_spec("image_memory")
    point = spec.complete({"test": "walk", "footprint": 8192})
    sizes = spec.sizes(point, None, True)
    img = inputs(point, sizes, np.random.default_rng(3))["img"]
    x, y, seen = 0, 0, set()
    for _ in range(8192 // SPACING):
        seen.add((x, y))
        x, y = (int(v) for v in img[y, x, :2])
    assert (x, y) == (0, 0) and len(seen) == 8192 // SPACING  # every slot once, back to start


def test_device_without_images_records_every_point_excluded(engine):
    spec = load_spec("image_memory")
    blind = copy.copy(engine)  # the same PoCL device, described as having no image support
    blind.info = dataclasses.replace(engine.info, image_support=False)
    reason = "the device has no image support (CL_DEVICE_IMAGE_SUPPORT is false)"
    points = [spec.complete(p) for p in spec.quick_sweep]
    assert all(spec.excluded(p, blind.info) == reason for p in points)
    assert spec.sweep_points(blind.info, quick=True) == []
    results = run_points(spec, points, blind, quick=True)
    assert len(results) == len(points)
    assert {(m.status, m.reason) for m in results} == {("excluded", reason)}
    from gencl.profile._suite import _skipped_here

    assert _skipped_here(spec, blind.info, quick=False) == reason  # the profile goes on
