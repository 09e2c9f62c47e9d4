"""transfers: the runner moves the right bytes every way at small sizes on PoCL."""

from __future__ import annotations

from gencl.characterize import get_analysis
from gencl.measure import run_points
from gencl.spec import load_spec


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
