"""Seconds → cycles: the clock a cycle figure is counted in, and where that clock came from.

Every latency in cycles (CPMR, Λ, λ) depends on it; seed 000 eq. 7 multiplies by the clock
frequency. Priority: the clock seen during the run (argument), the median clock recorded with the
measurements, the device's reported maximum clock (then the method says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def cycle_clock(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                clock_hz: float | None) -> tuple[float, str]:
    """The clock (Hz) to count cycles in and a phrase saying where it came from."""
    if clock_hz:
        return float(clock_hz), f"clock seen during the run ({clock_hz / 1e6:.0f} MHz)"
    seen = [r["clock_hz"] for r in records if r.get("status") == "ok" and r.get("clock_hz")]
    if seen:
        hz = float(np.median(seen))
        return hz, f"median clock recorded with the measurements ({hz / 1e6:.0f} MHz)"
    hz = float(device.get("max_clock_hz") or 0.0)
    if hz <= 0:
        hz = 1e9
        return hz, "no clock known: cycles counted at an assumed 1 GHz"
    return hz, f"device's reported maximum clock ({hz / 1e6:.0f} MHz; no clock seen in the run)"


def ok_records(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Records with timings (status ok and a median)."""
    return [r for r in records if r.get("status") == "ok" and r.get("median_s")]
