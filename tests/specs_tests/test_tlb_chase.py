"""tlb_chase: the standard path matches numpy; the runner's device-built rings walk where the
host expects, at strides up to a megabyte; the page-stride slots spread over cache lines."""

from __future__ import annotations

import numpy as np

from gencl.measure import run_points
from gencl.spec import load_spec
from gencl.spec.pointer_chase import page_stride_slots
from tests.specs_tests._check import check_points


def test_slots_are_a_stride_apart_and_skewed_by_a_line():
    slots = page_stride_slots(40, 512, 16)  # 4 KiB stride, 128 B lines, in 8-byte words
    assert (np.diff(slots // 512) == 1).all()          # one slot per stride
    assert list((slots % 512)[:34:16]) == [0, 256, 0]  # a line further each slot, wrapping


def test_quick_points_match_numpy(engine):
    points = check_points(engine, "tlb_chase")
    assert {p["stride"] for p in points} >= {128, 4096}


def test_runner_walks_device_built_rings(engine):
    spec = load_spec("tlb_chase")
    points = [spec.complete({"stride": s, "pages": p})
              for s, p in ((128, 64), (4096, 16), (1 << 20, 8), (1 << 30, 1 << 14))]
    results = run_points(spec, points, engine, quick=True)
    assert [m.status for m in results[:3]] == ["ok"] * 3, [m.reason for m in results]
    assert results[3].status == "excluded" and "budget" in results[3].reason
    assert all(m.work["steps"] == m.sizes["K"] for m in results[:3])
    assert results[0].extra["buffer_bytes"] == 8 << 20  # the largest walk that fits
