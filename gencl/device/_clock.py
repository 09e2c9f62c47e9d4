"""The clock a device actually ran at during a measurement, where the platform tells."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import threading
from pathlib import Path


def _nvidia_sm_clock_mhz() -> float | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm",
                              "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=5).stdout
        return float(out.split()[0])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return None


def _cpu_clock_mhz() -> float | None:
    try:
        mhz = [float(line.split(":")[1]) for line in Path("/proc/cpuinfo").read_text().splitlines()
               if line.startswith("cpu MHz")]
    except (OSError, ValueError):
        return None
    return statistics.fmean(mhz) if mhz else None


class ClockMonitor:
    """Sample the clock in a background thread while a block runs.

    ``nvidia-smi`` on NVIDIA GPUs, /proc/cpuinfo for a CPU device; ``median_hz`` is None where
    neither applies (then figures in cycles use the device's reported maximum clock and say so).
    """

    def __init__(self, is_gpu: bool, interval_s: float = 0.25) -> None:
        self._probe = _nvidia_sm_clock_mhz if is_gpu and shutil.which("nvidia-smi") else (
            None if is_gpu else _cpu_clock_mhz)
        self._interval = interval_s
        self._samples: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ClockMonitor:
        if self._probe is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            value = self._probe() if self._probe else None
            if value:
                self._samples.append(value)
            self._stop.wait(self._interval)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=6)

    @property
    def median_hz(self) -> float | None:
        return statistics.median(self._samples) * 1e6 if self._samples else None

    @property
    def samples_hz(self) -> list[float]:
        return [s * 1e6 for s in self._samples]
