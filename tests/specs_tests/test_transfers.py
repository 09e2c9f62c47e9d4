"""transfers: the runner moves the right bytes every way at small sizes on PoCL."""

from __future__ import annotations

import pytest

from gencl.characterize import get_analysis
from gencl.characterize.runtime import plateau
from gencl.measure import run_points
from gencl.spec import load_spec
from specs.transfers import flattened


def test_runner_moves_bytes_every_way(engine):
    spec = load_spec("transfers")
    points = [spec.complete({"direction": d, "size_bytes": 4096 * 16})
              for d in spec.params["direction"]]
    results = run_points(spec, points, engine, quick=True)
    assert [m.status for m in results] == ["ok"] * len(points), [m.reason for m in results]
    result = get_analysis("transfers")([m.to_json() for m in results], engine.info.to_json(),
                                       None)
    names = {c.name for c in result.characteristics}
    assert {"h2d_bw_Bps", "d2h_bw_Bps", "kernel_d2d_bw_Bps"} <= names


def test_plateau_leaves_out_sizes_the_caches_serve():
    """The H200 host's pattern: 16 and 64 MiB writes from its L3 at 17 GB/s, 256 MiB and 1 GiB at
    ~9 from DRAM; the plateau is the large sizes' median, never flattered by the cached ones."""
    mib = 1 << 20
    value, _ = plateau([16 * mib, 64 * mib, 256 * mib, 1024 * mib], [17.6, 17.2, 8.5, 9.3])
    assert value == pytest.approx(8.9)
    assert plateau([4 * mib, 16 * mib], [5.0, 7.0])[0] == 7.0  # none that large: the largest


def test_sizes_keep_growing_until_past_the_plateau_start():
    """Flat at 16 → 64 MiB (both cached) must not stop a direction before 256 MiB."""
    mib = 1 << 20
    assert not flattened([(16 * mib, 17.6), (64 * mib, 17.2)])
    assert not flattened([(64 * mib, 17.2), (256 * mib, 8.5)])
    assert flattened([(256 * mib, 8.5), (1024 * mib, 9.3)])
