"""image_memory analysis on synthetic records: the best bandwidth point, clpeak's kernel alone at
the device's work-group size, and a texture-cache staircase (eq. 6) recovered from the walk."""

from __future__ import annotations

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.latency import staircase
from specs.image_memory import FOOTPRINTS
from tests.characterize_tests._records import DEVICE, record

CLOCK = 2e9
GPU = {**DEVICE, "max_work_group_size": 1024}


def bandwidth_record(bw, *, layout="clpeak", coords="int", fmt="rgba", fetches=16,
                     workgroup=1024, workgroup_y=1, status="ok"):
    point = {"test": "bandwidth", "layout": layout, "coords": coords, "format": fmt,
             "fetches": fetches, "workgroup": workgroup, "workgroup_y": workgroup_y,
             "footprint": 1024}
    items = 4096 * 4096 // fetches
    nbytes = items * fetches * (16 if fmt == "rgba" else 4)
    sizes = {"W": 4096, "H": 4096, **({"N": items} if layout == "clpeak" else
                                       {"HB": 4096 // fetches})}
    return record(point, sizes, nbytes / bw, work={"bytes": nbytes, "steps": 0},
                  status=status)


def walk_records(sizes, lats, limit=256 << 20, seed=0):
    rng = np.random.default_rng(seed)
    foot = [f for f in FOOTPRINTS if f <= limit]
    cpmr = staircase(np.array(foot, float), sizes, lats) * rng.normal(1, 0.02, len(foot))
    steps = 65536
    return [record({"test": "walk", "layout": "clpeak", "coords": "int", "format": "rgba",
                    "fetches": 16, "workgroup": 1024, "workgroup_y": 1, "footprint": f},
                   {"W": 64, "H": 64, "K": steps}, c * steps / CLOCK,
                   work={"bytes": 16 * steps, "steps": steps})
            for f, c in zip(foot, cpmr)]


def test_best_point_and_clpeak_kernel():
    recs = [bandwidth_record(3.9e12),                                  # clpeak's shape
            bandwidth_record(4.2e12, layout="rows", workgroup=32, workgroup_y=8),
            bandwidth_record(3.0e12, workgroup=256),
            bandwidth_record(9e12, fmt="r", status="wrong_answer")]   # failures never count
    result = get_analysis("image_memory")(recs, GPU, CLOCK)
    chars = {c.name: c for c in result.characteristics}
    assert chars["image_read_bw_Bps"].value == pytest.approx(4.2e12)
    assert "rows int RGBA ×16 wg 32×8" in chars["image_read_bw_Bps"].method
    assert chars["image_read_bw_clpeak_kernel_Bps"].value == pytest.approx(3.9e12)
    bars = result.series["image_bandwidth_by_variant"]
    assert bars["labels"][0].startswith("rows") and bars["labels"][1].endswith(" *")
    # on a device whose maximum work-group is 4096, no point ran clpeak's exact shape
    other = get_analysis("image_memory")(recs, {**GPU, "max_work_group_size": 4096}, CLOCK)
    assert "image_read_bw_clpeak_kernel_Bps" not in {c.name for c in other.characteristics}


def test_bandwidth_vs_fetches_series():
    recs = [bandwidth_record(bw, layout="rows", fetches=f, workgroup=32, workgroup_y=8)
            for f, bw in ((16, 3e12), (32, 3.5e12), (64, 3.2e12))]
    series = get_analysis("image_memory")(recs, GPU, CLOCK).series
    line = series["image_bandwidth_vs_fetches"]
    assert line["x"] == [16, 32, 64]
    assert line["y"]["rows RGBA"] == pytest.approx([3e12, 3.5e12, 3.2e12])


def test_texture_cache_staircase():
    recs = walk_records((256 << 10, 50 << 20), (45.0, 300.0, 700.0))  # a Hopper-like path
    result = get_analysis("image_memory")(recs, GPU, CLOCK)
    chars = {c.name: c.value for c in result.characteristics}
    sizes = chars["image_cache_bytes"]
    assert len(sizes) == 2
    assert sizes[0] == pytest.approx(256 << 10, rel=0.15)
    assert sizes[1] == pytest.approx(50 << 20, rel=0.15)
    lats = chars["image_completion_latency_cycles"]
    assert lats[0] == pytest.approx(45.0, rel=0.1) and lats[-1] == pytest.approx(700.0, rel=0.1)
    assert chars["image_latency_cycles"] == pytest.approx(45.0, rel=0.1)  # the first plateau
    assert "image_read_bw_Bps" not in chars  # no bandwidth point ran


def test_flat_walk_and_series_sections():
    from gencl.profile._plots import plottable, section_of

    recs = walk_records((1 << 30,), (40.0, 41.0), limit=4 << 20) + [bandwidth_record(1e12)]
    result = get_analysis("image_memory")(recs, GPU, CLOCK)
    chars = {c.name: c.value for c in result.characteristics}
    assert chars["image_cache_bytes"] == []
    assert any("no cache level" in n for n in result.notes)
    assert set(result.series) == {"image_bandwidth_by_variant", "image_latency_staircase"}
    for name, s in result.series.items():
        assert plottable(s) and section_of(name, "image_memory") == "image", name
    nothing = get_analysis("image_memory")([bandwidth_record(1e12, status="build_error")],
                                           GPU, CLOCK)
    assert nothing.characteristics == () and nothing.notes
