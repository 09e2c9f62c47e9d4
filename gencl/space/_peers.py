"""What the tuned kernel is compared with, measured in the same run at the same size.

* the device's copy bandwidth: specs/copy.py at float4 (its best point) — the roof, and with the
  kernel's compulsory traffic the roofline time no implementation can beat;
* the kernel's peers (``ApplicationHooks.peers``: torch, torch.compile, a CUDA or OpenCL kernel a
  user writes by hand), each checked against the numpy reference before its time counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def measure_copy_bandwidth(engine: Any, *, quick: bool = False) -> dict[str, Any]:
    """Best bytes/s of the copy spec's float4 points on this device (read+write traffic)."""
    from gencl.measure import run_points
    from gencl.spec import load_spec

    spec = load_spec("copy")
    points = [spec.complete({"dtype": "float32", "vector_width": 4, "reads": r, "loop": "constant",
                             "unroll": "full", "workgroup": 256}) for r in (1, 16)]
    results = [m for m in run_points(spec, points, engine, quick=quick) if m.ok]
    if not results:
        return {"copy_bw_Bps": None, "point": None}
    best = max(results, key=lambda m: m.metrics["bytes"])
    return {"copy_bw_Bps": best.metrics["bytes"], "point": best.point,
            "median_s": best.median_s, "bytes": best.work["bytes"]}


def measure_peers(spec: Any, engine: Any, point: Mapping[str, Any], sizes: Mapping[str, int], *,
                  repeats: int = 25, seed: int = 0) -> tuple[dict[str, float], dict[str, str]]:
    """Seconds per launch of every peer the spec declares, on the run's inputs at *sizes*; and
    why the others did not run."""
    from gencl.peers import PeerContext, run_peers

    if not spec.hooks.peers:
        return {}, {}
    values = spec.inputs(dict(point), dict(sizes), np.random.default_rng(seed))
    context = PeerContext(spec, dict(point), dict(sizes), values, engine, repeats=repeats)
    return run_peers(context, spec.hooks.peers)
