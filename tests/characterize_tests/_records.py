"""Synthetic measurement records (Measurement.to_json() shape) whose right answer is known."""

from __future__ import annotations

from typing import Any

DEVICE = {"name": "synthetic", "device_type": "GPU", "platform": "NVIDIA CUDA",
          "compute_units": 132, "max_clock_hz": 2e9, "warp_size": 32}


def record(point: dict[str, Any], sizes: dict[str, int], median_s: float, *,
           work: dict[str, float] | None = None, status: str = "ok", vid: str = "",
           extra: dict[str, Any] | None = None) -> dict[str, Any]:
    work = work or {}
    return {"variant_id": vid or f"v{abs(hash((str(point), str(sizes)))) % 10**8}",
            "spec": "synthetic", "point": point, "sizes": sizes, "status": status,
            "reason": "", "samples_s": [median_s] * 5, "median_s": median_s,
            "ci95_s": 0.01 * median_s, "clock_hz": None, "work": work,
            "metrics": {k: v / median_s for k, v in work.items()}, "extra": extra or {}}
