"""constant_memory: every bandwidth stride (broadcast included) sums numpy's words, and the
``__constant`` walk ends where numpy's walk ends, on PoCL at verification sizes."""

from __future__ import annotations

from gencl.generate import generate
from gencl.spec import load_spec
from tests.specs_tests._check import check_points


def test_every_sweep_variant_matches_numpy(engine):
    spec = load_spec("constant_memory")
    small = [p for p in spec.sweep if p["test"] == "bandwidth"] + \
        [{"test": "walk", "footprint": f} for f in (256, 4096, 65536)]
    points = check_points(engine, "constant_memory", small)
    assert {p["stride"] for p in points if p["test"] == "bandwidth"} == {0, 1, 2, 4, 8, 16}


def test_arrays_are_constant_memory(engine):
    spec = load_spec("constant_memory")
    for partial in ({"test": "bandwidth", "stride": 4}, {"test": "walk", "footprint": 1024}):
        variant = generate(spec, spec.complete(partial))
        assert "__constant" in variant.source


def test_walk_stops_at_the_constant_buffer_size(engine):
    spec = load_spec("constant_memory")
    walk = [p["footprint"] for p in spec.sweep_points(engine.info) if p["test"] == "walk"]
    assert max(walk) <= engine.info.constant_mem_bytes
    assert spec.excluded(spec.complete({"test": "walk", "footprint": 1 << 20}),
                         _Limited(engine.info, 64 << 10))


class _Limited:
    """The device with a smaller constant buffer (NVIDIA's 64 KiB)."""

    def __init__(self, info, limit):
        self._info, self.constant_mem_bytes = info, limit

    def __getattr__(self, name):
        return getattr(self._info, name)
