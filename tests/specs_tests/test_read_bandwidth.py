"""read_bandwidth: each quick variant sums to numpy's answer, in both of clpeak's layouts."""

from __future__ import annotations

import numpy as np

from gencl.generate import lower
from gencl.spec import load_spec
from tests.specs_tests._check import check_points


def test_quick_variants_match_numpy(engine):
    points = check_points(engine, "read_bandwidth")
    assert {p["vector_width"] for p in points} == {1, 16}
    assert {p["layout"] for p in points} == {"strided", "blocked"}
    assert {p["buffer_mib"] for p in points} == {0, 512}  # the suite's buffer and clpeak's


def test_clpeak_points_match_numpy(engine):
    spec = load_spec("read_bandwidth")
    points = [p for p in spec.sweep_points(engine.info) if p["reads"] == 16]
    clpeak = {(p["vector_width"], p["layout"]) for p in points
              if (p["workgroup"], p["loop"], p["buffer_mib"]) == (256, "constant", 512)}
    assert clpeak == {(w, layout) for w in (1, 2, 4, 8, 16) for layout in ("strided", "blocked")}
    check_points(engine, "read_bandwidth", points)


def test_clpeak_shape_and_size():
    """clpeak's kernel: 16 floatW loads, their lanes summed, one float stored per work item;
    its launch: buffer of min(max alloc / 2, 512 MiB) floats, global size floats / W / 16."""
    spec = load_spec("read_bandwidth")
    point = spec.complete({"vector_width": 16, "reads": 16, "buffer_mib": 512})
    source = lower(spec, point).source
    assert "__global float *__restrict__ dst" in source
    assert source.count("acc = acc + src[") == 16
    assert "total = acc.s0 + acc.s1 + " in source and "acc.sf;" in source

    class Device:
        device_type, max_alloc_bytes = "GPU", 35 << 30

    assert spec.sizes(point, Device, False) == {"m": (512 << 20) // 4 // 16 // 16, "R": 16}
    Device.max_alloc_bytes = 600 << 20  # a small device: half its max alloc, whole granules
    assert spec.sizes(point, Device, False)["m"] * 16 * 16 * 4 == 300 << 20
    assert spec.metrics["bytes"](point, spec.sizes(point, Device, True)) == 300 << 20


def test_blocked_layout_reads_a_group_block():
    """A work-group's rows lie in one block: successive reads one work-group apart."""
    spec = load_spec("read_bandwidth")
    point = spec.complete({"vector_width": 4, "reads": 16, "workgroup": 64,
                           "layout": "blocked"})
    loads = [line.strip() for line in lower(spec, point).source.splitlines()
             if "acc = acc + src[" in line]
    assert loads[:2] == ["acc = acc + src[1024 * gid(0) + lid(0)];",
                         "acc = acc + src[64 + 1024 * gid(0) + lid(0)];"]
    # the reference follows the layout: read as the other layout, the sums differ
    sizes = spec.verify_sizes(point, None)
    values = spec.inputs(point, sizes, np.random.default_rng(0))
    strided = spec.reference(values, dict(point, layout="strided"), sizes)["dst"]
    assert not np.allclose(spec.reference(values, point, sizes)["dst"], strided)
