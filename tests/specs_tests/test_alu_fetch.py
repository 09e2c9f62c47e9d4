"""alu_fetch: every ratio of the sweep at float and float4, and the quick sweep's at every other
width, computes numpy's chain on PoCL; the work metrics follow seed 004's 4:1 convention."""

from __future__ import annotations

import pytest

from gencl.spec import load_spec
from specs.alu_fetch import QUICK_RATIOS, WIDTHS
from tests.specs_tests._check import check_points


def test_every_sweep_variant_matches_numpy(engine):
    spec = load_spec("alu_fetch")
    # the other widths at the quick sweep's ratios only: the same program at each ratio, and
    # every ratio of all five widths builds and checks 2.5× the programs on the CI machine
    chosen = [p for p in spec.sweep if p["vector_width"] in (1, 4)
              or p["ratio"] in QUICK_RATIOS[p["vector_width"]]]
    points = check_points(engine, "alu_fetch", chosen)
    assert {p["vector_width"] for p in points} == set(WIDTHS)
    assert {p["ratio"] for p in points} == set(spec.params["ratio"])


@pytest.mark.parametrize("ratio,vector_width", [(0.25, 1), (16, 4)])
def test_work_counts(ratio, vector_width):
    spec = load_spec("alu_fetch")
    point = spec.complete({"ratio": ratio, "vector_width": vector_width})
    sizes = {"n": 1024}
    flops = spec.metrics["flops"](point, sizes)
    loads = spec.metrics["loads"](point, sizes)
    assert flops == 2 * 1024 * 4 * 4 * ratio  # 4·ratio multiply-adds per loaded value
    assert loads == 1024 // vector_width * 4
    assert spec.metrics["bytes"](point, sizes) == 1024 * 5 * 4
