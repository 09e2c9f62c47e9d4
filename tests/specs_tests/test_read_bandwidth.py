"""read_bandwidth: each quick variant sums to numpy's answer, in both of clpeak's layouts."""

from __future__ import annotations

import numpy as np

from gencl.generate import lower
from gencl.spec import load_spec
from tests.specs_tests._check import check_points


def test_quick_variants_match_numpy(engine):
    points = check_points(engine, "read_bandwidth")
    assert {p["vector_width"] for p in points} == {1, 4, 16}
    assert {p["layout"] for p in points} == {"strided", "blocked"}


def test_clpeak_points_match_numpy(engine):
    spec = load_spec("read_bandwidth")
    points = [p for p in spec.sweep_points(engine.info) if p["reads"] == 16]
    assert {(p["vector_width"], p["layout"]) for p in points} >= {(16, "blocked"),
                                                                 (16, "strided")}
    check_points(engine, "read_bandwidth", points)


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
